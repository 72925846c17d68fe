//! Move-ordering statistics that a search thread learns and keeps for the next search of the
//! same game: the history of quiet moves, and (with the experiment `exp-conthist`) their
//! continuation histories. Each search thread has its own; a new game clears them.

use std::sync::Mutex;

use shakmaty::{Color, Move};

/// Whether the search keeps continuation histories (the cargo feature `exp-conthist`, an
/// experiment awaiting its SPRT; off, the table is empty and the search as without it).
pub(crate) const CONT_HISTORY: bool = cfg!(feature = "exp-conthist");

/// Pieces (by colour and role) times target squares: the rows and columns of the
/// continuation history.
pub(crate) const PIECE_TO: usize = 12 * 64;

/// The [`PIECE_TO`] index of a move by `us`: its piece and its target square.
pub(crate) fn piece_to(us: Color, m: &Move) -> u16 {
    let piece = us as usize * 6 + (m.role() as usize - 1);
    (piece * 64 + m.to() as usize) as u16
}

/// One thread's statistics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heuristics {
    /// How often a quiet move (by side, from and to squares) caused a cutoff, with decay.
    pub history: Vec<i32>,
    /// Continuation history: how a quiet move (piece and target) fared after a move one or two
    /// plies before it (piece and target), `[previous * PIECE_TO + move]`; empty unless
    /// [`CONT_HISTORY`].
    pub cont: Vec<i16>,
}

impl Default for Heuristics {
    fn default() -> Heuristics {
        Heuristics {
            history: vec![0; 2 * 64 * 64],
            cont: vec![0; if CONT_HISTORY { PIECE_TO * PIECE_TO } else { 0 }],
        }
    }
}

/// The statistics of every search thread, kept between searches.
#[derive(Debug, Default)]
pub struct HeuristicsPool {
    threads: Mutex<Vec<Heuristics>>,
}

impl HeuristicsPool {
    /// An empty pool: every thread starts from nothing.
    pub fn new() -> HeuristicsPool {
        HeuristicsPool::default()
    }

    /// The statistics of threads `0..n`, taken out of the pool (fresh ones where the pool has
    /// none) until [`HeuristicsPool::put_back`].
    pub fn take(&self, n: usize) -> Vec<Heuristics> {
        let mut threads = self
            .threads
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let kept = n.min(threads.len());
        let mut taken: Vec<Heuristics> = threads.drain(..kept).collect();
        taken.resize_with(n, Heuristics::default);
        taken
    }

    /// Returns the statistics of threads `0..`, in order, for the next search.
    pub fn put_back(&self, heuristics: Vec<Heuristics>) {
        let mut threads = self
            .threads
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *threads = heuristics;
    }

    /// Forgets everything (a new game).
    pub fn clear(&self) {
        self.put_back(Vec::new());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_statistics_per_thread_until_cleared() {
        let pool = HeuristicsPool::new();
        let mut hs = pool.take(2);
        assert_eq!(hs.len(), 2);
        assert!(hs.iter().all(|h| *h == Heuristics::default()));
        hs[0].history[5] = 7;
        hs[1].history[9] = -3;
        pool.put_back(hs);
        let hs = pool.take(3);
        assert_eq!((hs[0].history[5], hs[1].history[9]), (7, -3));
        assert_eq!(hs[2], Heuristics::default());
        pool.put_back(hs);
        pool.clear();
        assert!(pool.take(2).iter().all(|h| *h == Heuristics::default()));
    }
}
