//! The budget of a legality search: how many nodes and how much time it may take ([`Limits`]),
//! why it stopped ([`Stop`]), and the counter a search ticks once per node ([`Budget`]).

use std::{
    sync::atomic::{AtomicBool, Ordering},
    time::Instant,
};

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
    /// A flag another thread sets to end the analysis now, as if its time ran out (the UCI
    /// `stop`). A `'static` reference keeps the limits `Copy`: its owner makes one flag for
    /// its lifetime.
    pub cancel: Option<&'static AtomicBool>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_nodes: 100_000,
            deadline: None,
            proof_nodes: 100_000,
            cancel: None,
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
        if nodes.is_multiple_of(64) && self.expired() {
            return Err(Stop::Time);
        }
        Ok(())
    }

    /// Whether the analysis was cancelled.
    pub fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// Whether the time is up: the deadline passed, or the analysis was cancelled.
    pub fn expired(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancelled_analysis_stops_as_if_out_of_time() {
        static FLAG: AtomicBool = AtomicBool::new(false);
        let limits = Limits {
            cancel: Some(&FLAG),
            ..Limits::default()
        };
        assert_eq!(limits.check(64), Ok(()));
        FLAG.store(true, Ordering::Relaxed);
        assert!(limits.expired());
        assert_eq!(limits.check(128), Err(Stop::Time));
        // The whole analysis of a position ends at once with an unknown verdict.
        let p = crate::RawPosition::from_fen(
            "nr2BK2/Q1NBb1R1/4pkb1/1R4R1/R1rq1rQ1/1n1r1Q2/3qqP1q/3Q4 w - - 0 1",
        )
        .expect("FEN");
        let v = crate::analyze(&p, limits);
        assert_eq!(v.status, crate::Status::Unknown, "{v:?}");
    }
}
