//! A retrograde pass: the frontier's nodes split into partitions that share no predecessor,
//! taken by the threads largest first.

use std::sync::{
    atomic::{AtomicUsize, Ordering::Relaxed},
    Mutex,
};

use shakmaty::Color;

use super::{frontier::Frontier, SIDES};
use retro_tables::index::IndexScheme;

/// The tasks of a retrograde pass: (side to move in the nodes, king placements whose entries
/// the task un-moves). A predecessor differs from its node only in a piece of the side that
/// moved, so the king of the side to move stays on its square up to the index's symmetry:
/// split by the class of that king's square (`IndexScheme::square_class`), no two tasks touch
/// the same predecessor, and each may update them without atomic exchanges.
pub(crate) fn partitions(ix: &IndexScheme) -> Vec<(Color, Vec<u64>)> {
    let mut parts = Vec::new();
    for side in SIDES {
        let mut by_class: Vec<Vec<u64>> = vec![Vec::new(); 64];
        for (k, &(wk, bk)) in ix.king_placements().iter().enumerate() {
            let king = side.fold_wb(wk, bk);
            by_class[usize::from(ix.square_class(king))].push(k as u64);
        }
        parts.extend(
            by_class
                .into_iter()
                .filter(|v| !v.is_empty())
                .map(|v| (side, v)),
        );
    }
    parts
}

/// What one task of a retrograde pass may update without atomic read-modify-write operations,
/// which on this hardware stall the thread's outstanding cache misses.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Access {
    /// Nothing: other tasks may update the same predecessors.
    Shared,
    /// The cells of the predecessors it updates.
    Cells,
    /// Those cells and their bits in the bitmaps by entry (decided or open, and the frontier).
    CellsAndBits,
}

impl Access {
    /// What a task of a pass over `ix`'s partitions owns: the cells of its predecessors, and
    /// their bitmap words too when a king placement starts on a word (a word then holds the
    /// entries of one placement alone).
    pub(crate) fn of_partitions(ix: &IndexScheme) -> Access {
        if ix.king_stride().is_multiple_of(64) {
            Access::CellsAndBits
        } else {
            Access::Cells
        }
    }
}

/// One node's un-moves in two halves, which [`Pipelined`] runs as a software pipeline.
pub(crate) trait Unmove {
    /// A node of the frontier.
    type Node: Copy;
    /// What the un-moves of one node find.
    type Found;
    /// The node of entry `idx` with `side` to move.
    fn node(side: Color, idx: u64) -> Self::Node;
    /// The un-moves of `node` into `found` (replaced), whose cells it asks to be prefetched.
    fn find(&mut self, node: Self::Node, found: &mut Self::Found);
    /// Updates the predecessors in `found`.
    fn update(&mut self, found: &Self::Found);
}

/// A software pipeline of un-moves: the predecessors of one node are found (and their cells
/// prefetched) before those of the node before it are updated, so that the cache misses of
/// the one overlap the work of the other.
pub(crate) struct Pipelined<U: Unmove> {
    /// The un-moves, with what their updates gathered.
    pub(crate) unmove: U,
    found: [U::Found; 2],
    k: usize,
    pending: bool,
}

impl<U: Unmove> Pipelined<U> {
    /// A pipeline over `unmove`, with room for what two nodes find.
    pub(crate) fn new(unmove: U, found: [U::Found; 2]) -> Pipelined<U> {
        Pipelined {
            unmove,
            found,
            k: 0,
            pending: false,
        }
    }

    /// Finds the un-moves of `node`, then updates those of the node before.
    #[inline]
    pub(crate) fn push(&mut self, node: U::Node) {
        let k = self.k;
        self.unmove.find(node, &mut self.found[k]);
        if self.pending {
            self.unmove.update(&self.found[1 - k]);
        }
        self.pending = true;
        self.k = 1 - k;
    }

    /// Updates what is still pending.
    pub(crate) fn flush(&mut self) {
        if self.pending {
            self.unmove.update(&self.found[1 - self.k]);
            self.pending = false;
        }
    }

    /// The un-moves, every update done.
    pub(crate) fn finish(mut self) -> U {
        self.flush();
        self.unmove
    }
}

impl<U: Unmove + Send> PassTask for Pipelined<U>
where
    U::Found: Send,
{
    fn node(&mut self, side: Color, idx: u64) {
        self.push(U::node(side, idx));
    }

    fn end_partition(&mut self, _side: Color) {
        self.flush();
    }
}

/// What one task of a pass does with the nodes of its partitions (see [`run_pass`]).
pub(crate) trait PassTask: Send {
    /// A node of the frontier, `side` to move; the nodes of a partition come in index order.
    fn node(&mut self, side: Color, idx: u64);
    /// After the last node of a partition of `side`.
    fn end_partition(&mut self, side: Color);
}

/// Runs a pass over the frontier `cur` (taking its nodes out): one task per thread, each
/// taking partitions (side to move, king placements: see `CompactSolver::partitions`), the
/// largest first by a sample of the frontier, so that the pass ends with small ones. Returns
/// the tasks.
pub(crate) fn run_pass<P: PassTask>(
    cur: &Frontier,
    partitions: &[(Color, Vec<u64>)],
    king_stride: u64,
    make: impl Fn() -> P + Sync,
) -> Vec<P> {
    let mut order: Vec<(u64, usize)> = partitions
        .iter()
        .enumerate()
        .map(|(t, (side, placements))| {
            let w = placements
                .iter()
                .map(|&k| cur.sample(*side, k * king_stride, (k + 1) * king_stride))
                .sum::<u64>();
            (w, t)
        })
        .collect();
    order.sort_unstable_by(|a, b| b.cmp(a));
    let taken = AtomicUsize::new(0);
    let done = Mutex::new(Vec::new());
    rayon::broadcast(|_| {
        let mut task = make();
        while let Some(&(_, t)) = order.get(taken.fetch_add(1, Relaxed)) {
            let Some((side, placements)) = partitions.get(t) else {
                break;
            };
            for &p in placements {
                let first = p * king_stride;
                cur.take_range(*side, first, first + king_stride, |idx| {
                    task.node(*side, idx);
                });
            }
            task.end_partition(*side);
        }
        if let Ok(mut g) = done.lock() {
            g.push(task);
        }
    });
    done.into_inner().unwrap_or_default()
}
