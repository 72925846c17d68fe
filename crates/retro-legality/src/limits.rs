//! The budget of a legality search: how many nodes and how much time it may take ([`Limits`]),
//! why it stopped ([`Stop`]), and the counter a search ticks once per node ([`Budget`]).

use std::time::Instant;

/// How far the analysis of one position may go.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Positions analysed at most (each recursive step counts one).
    pub max_nodes: u64,
    /// When to give up.
    pub deadline: Option<Instant>,
    /// Positions the proof game search expands at most, all its restarts together (0: no
    /// proof game search).
    pub proof_nodes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_nodes: 100_000,
            deadline: None,
            proof_nodes: 100_000,
        }
    }
}

impl Limits {
    /// Whether a search that has visited `nodes` nodes may go on (the clock is read every 64
    /// nodes).
    ///
    /// # Errors
    /// The node or time budget ran out.
    pub fn check(&self, nodes: u64) -> Result<(), Stop> {
        if nodes > self.max_nodes {
            return Err(Stop::Nodes);
        }
        if nodes.is_multiple_of(64) && self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Stop::Time);
        }
        Ok(())
    }
}

/// Why the analysis stopped before a proof.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The node budget ran out.
    Nodes,
    /// The time budget ran out.
    Time,
}

/// What a search calls once per node; an error ends the search.
pub trait Budget {
    /// Counts a node.
    ///
    /// # Errors
    /// The budget ran out.
    fn tick(&mut self) -> Result<(), Stop>;
}

impl<F: FnMut() -> Result<(), Stop>> Budget for F {
    fn tick(&mut self) -> Result<(), Stop> {
        self()
    }
}

/// A budget of its own: [`Limits`] and the nodes counted so far.
#[derive(Clone, Copy, Debug)]
pub struct Counter {
    limits: Limits,
    nodes: u64,
}

impl Limits {
    /// A fresh counter of these limits.
    pub fn counter(self) -> Counter {
        Counter {
            limits: self,
            nodes: 0,
        }
    }
}

impl Budget for Counter {
    fn tick(&mut self) -> Result<(), Stop> {
        self.nodes += 1;
        self.limits.check(self.nodes)
    }
}
