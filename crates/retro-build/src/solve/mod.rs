//! Retrograde analysis of one material.
//!
//! 1. Init, one parallel pass over every entry of both sides to move: unused entries and
//!    positions whose side not to move is in check are skipped; for the others the legal moves
//!    are generated once. Captures and promotions leave the material and are looked up in the
//!    sub-tables ("exits"); the other moves stay in the table and are counted (as distinct
//!    successor entries). Checkmates are losses in 0; a winning exit seeds a win at its depth; a
//!    drawing exit (or stalemate) means the position can never be lost.
//! 2. Depth by depth, from the positions decided at depth `d` only, un-moves generate the
//!    predecessors: a predecessor of a loss is a win in `d + 1`; a predecessor of a win has its
//!    counter lowered, and when it reaches zero the predecessor is lost in
//!    `max(d, longest losing exit) + 1`. A loss later than `d + 1` is decided at once (its value
//!    is final) and joins the frontier at its depth (kept in a bucket till then).
//! 3. What is never decided is a draw.
//!
//! Speed: the positions decided at one depth are a bitmap per side, read in index order, so
//! that neighbouring nodes have neighbouring predecessors (the same cache lines and pages). A
//! node's predecessors are generated and their cells prefetched before the previous node's are
//! updated (a software pipeline), and a bitmap of decided entries, small enough to stay in the
//! processor's cache, drops most predecessors of a loss (they are mostly faster wins already)
//! before their cells are touched; for a piece whose un-moves reach entries far apart, a second
//! bitmap of the same bits by lines of that piece (`LineBits`) drops them all with one load. The
//! passes split their nodes by the square class of the king of the side to move, whose
//! predecessors no other task touches, so cells and bits are updated with plain stores, without
//! the atomic read-modify-write operations that stall a thread's outstanding cache misses; the
//! seeds of a depth are completed the same way, in runs split at king placements.
//!
//! En passant: a double push that allows an en passant capture leads to a virtual node, the
//! position with the capture available, worth the better (for the side to move) of the table
//! entry and the capture. It is no entry of its own; its value is propagated at the right depth
//! either with its table entry (when that is at least as good as the capture) or from a seed at
//! the capture's depth, which the init pass plants (`seed_ep_nodes`) and the passes take up when
//! they reach that depth.

mod cell;
pub(crate) mod exits;
mod init;
mod item;
pub(crate) mod moves;
mod retro;
pub(crate) mod unmoves;

use std::{
    marker::PhantomData,
    sync::{
        atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering::Relaxed},
        Mutex,
    },
};

use rayon::prelude::*;
use shakmaty::{ByColor, Color, Role};

use self::{
    cell::{cell_value, decided_cell, open_cell, CANT_LOSE},
    init::Legal,
};
pub(crate) use crate::error::{SolveError, SubTableError};
use crate::{
    dtz::Records,
    kernel::{
        exits::{exit_plans, ExitPlan},
        frontier::{zeroed_bits, LineBits},
        memory::{memory_in_use, Atomics, Pages},
        Stage,
    },
    metric::{Dtm, Mating},
    progress::Progress,
};
use retro_tables::{index::IndexScheme, Material, Tables, Value};

/// The deepest depth (plies) the passes schedule anything at.
const MAX_DEPTH: usize = 256;

/// The result of solving a material.
pub struct Solved {
    /// Values with white to move, one byte per entry.
    pub white: Vec<u8>,
    /// Values with black to move.
    pub black: Vec<u8>,
    /// Legal positions per side to move.
    pub positions: ByColor<u64>,
    /// Per side, a bit per entry (bit `i % 64` of word `i / 64`) set when it is a legal position.
    pub legal: ByColor<Vec<u64>>,
    /// The records of the init pass for the DTZ50 solve, when asked for.
    pub records: Option<Records>,
}

/// Solves materials into byte tables, in DTM or another metric of its family (`M`, see
/// [`Mating`]).
pub struct Solver<T: Tables + Sync + Default, M: Mating = Dtm> {
    material: Material,
    ix: IndexScheme,
    slots: Vec<(Color, Role)>,
    n: usize,
    /// The tables exits are looked up in, for the current stage.
    sub: T,
    /// Per entry, two bytes. Undecided: the count of in-table successors not yet known to be
    /// won by the opponent (low byte, plus `CANT_LOSE` when an exit saves the position) and half
    /// the plies of the longest losing exit (high byte). Decided: `DECIDED` (low byte) and the
    /// value (high byte).
    cells: ByColor<Atomics<AtomicU16>>,
    /// Per side, a bit per decided entry: 16 times smaller than `cells`, so that it mostly
    /// stays in the processor's cache and most predecessors that need no update cost no memory
    /// access.
    decided: ByColor<Atomics<AtomicU64>>,
    /// Per side, per slot of a piece of that side, the decided bits by lines of that piece
    /// (see `LineBits`), for the passes from losses, whose predecessors are mostly decided.
    lines: ByColor<Vec<Option<LineBits>>>,
    /// How each kind of exit is looked up (see `exit_plans`).
    plans: Vec<Option<ExitPlan>>,
    sub_error: Mutex<Option<SubTableError>>,
    overflow: AtomicBool,
    /// What the init pass records for the DTZ50 solve, when asked (see `with_records`).
    records: Option<Records>,
    metric: PhantomData<fn() -> M>,
}

impl<T: Tables + Sync + Default> Solver<T> {
    /// A DTM solver for `material` (canonical) that looks exits up in `sub`.
    pub fn new(material: Material, sub: T) -> Solver<T> {
        Solver::of_metric(material, sub)
    }

    /// Has the init pass also fill `records` for the DTZ50 solve of the material (see
    /// [`Records`]); [`Solved::records`] hands them on.
    pub fn with_records(mut self, records: Records) -> Solver<T> {
        self.records = Some(records);
        self
    }
}

impl<T: Tables + Sync + Default, M: Mating> Solver<T, M> {
    /// A solver of the metric `M` for `material` (canonical) that looks exits up in `sub`.
    pub(crate) fn of_metric(material: Material, sub: T) -> Solver<T, M> {
        let ix = IndexScheme::new(material);
        let size = ix.size() as usize;
        let mk16 = || {
            // Default pages: on the virtual machine this was measured on, faulting in the cells
            // as huge pages cost more than the TLB misses they save in the passes (KQRvKR
            // solve, interleaved: 12.03-12.24 s with them, 11.66-11.97 s without).
            let cells = Atomics::<AtomicU16>::zeroed(size, Pages::Default);
            cells
                .par_iter()
                .for_each(|c| c.store(open_cell(0, CANT_LOSE), Relaxed));
            cells
        };
        let lines = LineBits::by_side(&ix);
        Solver {
            material,
            slots: ix.slots().to_vec(),
            plans: exit_plans(ix.slots()),
            n: ix.piece_count(),
            ix,
            sub,
            cells: ByColor::new_with(|_| mk16()),
            decided: ByColor::new_with(|_| zeroed_bits(size as u64)),
            lines,
            sub_error: Mutex::new(None),
            overflow: AtomicBool::new(false),
            records: None,
            metric: PhantomData,
        }
    }

    /// Keeps the first sub-table error, for [`Solver::check_errors`] to report.
    fn note_sub_error(&self, e: SubTableError) {
        if let Ok(mut g) = self.sub_error.lock() {
            if g.is_none() {
                *g = Some(e);
            }
        }
    }

    /// Solves the material: the init pass, then the retrograde passes depth by depth; what is
    /// never decided is a draw. `progress` shows the passes; `stage` supplies the sub-tables of
    /// each stage (the previous stage's are dropped first).
    ///
    /// # Errors
    /// A sub-table that cannot be read, or a mate longer than 254 plies.
    pub fn solve(
        mut self,
        progress: &dyn Progress,
        mut stage: impl FnMut(Stage) -> Result<T, SolveError>,
    ) -> Result<Solved, SolveError> {
        let started = std::time::Instant::now();
        let (seeds, legal) = self.init(progress, &mut stage)?;
        if let Some(r) = self.records.as_mut() {
            r.release_stage();
        }
        log::info!("{}: after init, {}", self.material.name(), memory_in_use());
        self.sub = T::default();
        self.sub = stage(Stage::Retro)?;
        log::info!(
            "{}: init {:.2} s",
            self.material.name(),
            started.elapsed().as_secs_f64()
        );
        let depths = self.retrograde(progress, seeds)?;
        progress.end();
        log::info!(
            "{}: solved, {depths} depths, {:.2} s, {}",
            self.material.name(),
            started.elapsed().as_secs_f64(),
            memory_in_use()
        );
        Ok(self.into_solved(legal))
    }

    /// The value bytes of both sides and the legal positions.
    fn into_solved(self, legal: Legal) -> Solved {
        let into_bytes = |v: Atomics<AtomicU16>| {
            v.par_iter()
                .map(|c| cell_value(c.load(Relaxed)).to_planes().0)
                .collect::<Vec<u8>>()
        };
        let ByColor { white: w, black: b } = self.cells;
        let records = self.records;
        Solved {
            records,
            white: into_bytes(w),
            black: into_bytes(b),
            positions: legal.positions,
            legal: legal
                .bits
                .map(|v| v.par_iter().map(|w| w.load(Relaxed)).collect()),
        }
    }

    /// The value of an entry (a draw while undecided).
    #[inline]
    fn value(&self, side: Color, idx: usize) -> Value {
        cell_value(self.cells[side][idx].load(Relaxed))
    }

    /// Decides an entry that no other thread can decide or count down at the same time (a
    /// loss).
    #[inline]
    fn decide(&self, side: Color, idx: usize, v: Value) {
        self.cells[side][idx].store(decided_cell(v), Relaxed);
        self.note_decided(side, idx);
    }

    /// Sets the bit of a decided entry in `decided` (after its cell is stored).
    #[inline]
    fn note_decided(&self, side: Color, idx: usize) {
        if let Some(w) = self.decided[side].get(idx / 64) {
            w.fetch_or(1 << (idx % 64), Relaxed);
        }
        for l in self.lines[side].iter().flatten() {
            l.set(idx as u64);
        }
    }

    /// The squares of the piece in `slot` whose entries, with the other pieces as in entry
    /// `idx`, are known to be decided with `side` to move: one load, from the piece's line
    /// bitmap, or for the lowest digit of a piece other than a pawn from the decided bitmap
    /// (its lines are those words); none known for other pieces.
    #[inline]
    fn decided_on_line(&self, side: Color, slot: usize, idx: u64) -> u64 {
        LineBits::word_on_line(&self.lines[side], &self.decided[side], &self.ix, slot, idx)
            .unwrap_or(0)
    }

    /// Whether the bit of a decided entry is set: `false` may still be a decided entry.
    #[inline]
    fn known_decided(&self, side: Color, idx: u64) -> bool {
        self.decided[side]
            .get((idx / 64) as usize)
            .is_some_and(|w| w.load(Relaxed) & (1 << (idx % 64)) != 0)
    }

    fn check_errors(&self) -> Result<(), SolveError> {
        if let Ok(mut g) = self.sub_error.lock() {
            if let Some(source) = g.take() {
                return Err(SolveError::SubTable {
                    material: self.material.name(),
                    source,
                });
            }
        }
        if self.overflow.load(Relaxed) {
            return Err(SolveError::Overflow(self.material.name()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod agreement_tests;

#[cfg(test)]
mod metric_tests;

#[cfg(test)]
mod tests {
    use super::{
        item::item,
        moves::{Keys, MoveSummary},
        unmoves::Preds,
        *,
    };
    use crate::{kernel::SIDES, SubTables};
    use retro_tables::pieces::occupancy;

    /// The multiplication gives the quotient for every divisor the line bitmaps use and
    /// entries up to 2^31, including the divisor's multiples and their neighbours.
    /// `may_coincide` is what lets the init pass count moves and the retrograde passes list
    /// predecessors without looking for repeats: where it says no, the moves (and the un-moves)
    /// of a position must reach distinct entries. Checked on pawnless materials with identical
    /// pieces, against the entries themselves; and the repeats it guards against do occur.
    #[test]
    fn moves_reach_distinct_entries_unless_nearly_symmetric() {
        for name in ["KRRvK", "KQvKR", "KBBvK", "KNvKB"] {
            let m: Material = name.parse().expect("material");
            let solver = Solver::new(m, SubTables::default());
            let (mut checked, mut guarded, mut repeats) = (0u64, 0u64, 0u64);
            let mut found = Preds::new();
            for idx in (0..solver.ix.size()).step_by(5) {
                let Some(sq) = solver.ix.decode(idx) else {
                    continue;
                };
                let occ = occupancy(&sq, solver.n);
                for side in SIDES {
                    if solver.in_check(&sq, side.other(), occ, usize::MAX) {
                        continue;
                    }
                    // Moves of `side`: every distinct entry against every move.
                    let mut distinct = MoveSummary::new();
                    assert!(solver.summarize(&sq, idx, side, Keys::Dedupe, &mut distinct));
                    let mut all = MoveSummary::new();
                    assert!(solver.summarize(&sq, idx, side, Keys::Count, &mut all));
                    if solver.ix.may_coincide(&sq, side.other()) {
                        guarded += 1;
                        repeats += u64::from(distinct.nkeys < all.nkeys);
                    } else {
                        assert_eq!(distinct.nkeys, all.nkeys, "{name} entry {idx} side {side}");
                    }
                    // Un-moves into `side`'s position (the other side moved last).
                    solver.predecessors(item(idx, side, 0), 1, &mut found);
                    if !solver.ix.may_coincide(&sq, side) {
                        let mut p = found.preds[..found.np].to_vec();
                        p.sort_unstable();
                        p.dedup();
                        assert_eq!(p.len(), found.np, "{name} entry {idx} side {side} un-moves");
                    }
                    checked += 1;
                }
            }
            assert!(checked > 1000 && guarded > 0, "{name}: {checked} {guarded}");
            if name == "KRRvK" || name == "KBBvK" {
                assert!(repeats > 0, "{name}: no repeated entries among {guarded}");
            }
        }
    }
}
