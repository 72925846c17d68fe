//! The passes of one part, for either metric: depth by depth, the un-moves of the pieces other
//! than pawns from the nodes decided at one depth update their predecessors in the part's
//! cells. The metric ([`PartMetric`]) says what a cell is and what an update makes of it; the
//! part's init (each metric's own: it values the exits) fills the cells and the first buckets.

use shakmaty::{ByColor, Color, Role};

use super::Places;
use crate::kernel::{
    depths::{by_depth, Depths},
    unmoves::{discovery_masks, legal_origins},
};
use retro_tables::{
    index::{IndexScheme, Squares},
    pieces::{attacks_from, occupancy},
};

/// What a metric's part solve keeps in a cell, and the rules of its updates.
pub(super) trait PartMetric {
    /// One entry with one side to move.
    type Cell: Copy;
    /// Why the part's solve failed.
    type Error;
    /// Whether a loser's counter counts distinct successors (the un-moves from a win are
    /// then deduplicated where two may reach one entry) rather than moves.
    const DISTINCT: bool;
    /// The depths the buckets hold: a node decided deeper is the overflow error.
    const DEPTHS: usize;

    /// The error of a value deeper than the metric stores.
    fn overflow(&self) -> Self::Error;

    /// A seed that comes at depth `d` (a win through an exit, planted by the init): decides
    /// the cell a win at `d` unless it is decided already (by a faster win); whether it joins
    /// the nodes of `d`.
    ///
    /// # Errors
    /// The overflow error, for a win deeper than the metric stores.
    fn join_seed(&self, cell: &mut Self::Cell, d: usize) -> Result<bool, Self::Error>;

    /// Whether a decided cell is a loss (its predecessors win).
    fn lost(&self, cell: Self::Cell) -> bool;

    /// Updates the cell of a predecessor (entry `idx`, `side` to move) of a node decided at
    /// depth `d`, a loss when `lost`: returns the depth it is decided at, if this decides it.
    ///
    /// # Errors
    /// The overflow error, or values that contradict each other.
    fn update(
        &self,
        cell: &mut Self::Cell,
        lost: bool,
        d: usize,
        at: (u64, Color),
    ) -> Result<Option<usize>, Self::Error>;
}

/// A node: side to move, place in the part, and whether it is a seed (see
/// [`PartMetric::join_seed`]).
type Node = (Color, u32, bool);

/// The nodes of a part by the depth they join at.
pub(super) struct Buckets {
    by_depth: Vec<Vec<Node>>,
    /// The deepest depth with a node.
    last: usize,
}

impl Buckets {
    /// Empty buckets for depths below `depths`.
    pub(super) fn new(depths: usize) -> Buckets {
        Buckets {
            by_depth: vec![Vec::new(); depths],
            last: 0,
        }
    }

    /// Puts the node of `side` to move at `place` in the bucket of depth `d`: a cell decided
    /// at `d`, or a seed (see [`PartMetric::join_seed`]).
    ///
    /// # Errors
    /// The metric's overflow error when `d` is past its depths.
    pub(super) fn add<M: PartMetric>(
        &mut self,
        m: &M,
        (side, place): (Color, usize),
        d: usize,
        how: Joins,
    ) -> Result<(), M::Error> {
        let Some(b) = self.by_depth.get_mut(d) else {
            return Err(m.overflow());
        };
        b.push((side, place as u32, how == Joins::Seed));
        self.last = self.last.max(d);
        Ok(())
    }
}

/// How a node comes into its depth's bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Joins {
    /// Its cell is decided at that depth.
    Decided,
    /// A seed: a win through an exit, decided at that depth unless a faster win came first.
    Seed,
}

/// What the passes of a part read: the table's index and pieces, and the part's places.
pub(super) struct Scope<'t> {
    pub(super) ix: &'t IndexScheme,
    pub(super) slots: &'t [(Color, Role)],
    pub(super) places: Places<'t>,
}

/// The passes of one part, after its init: depth by depth from the first bucket
/// ([`by_depth`]), every node (a seed once it joins) un-moved, its predecessors in the part
/// updated by `m`, what they decide put in the bucket of its depth; until the buckets are
/// empty. What is never decided is a draw.
///
/// # Errors
/// The first error of an update.
pub(super) fn passes<M: PartMetric>(
    m: &M,
    scope: &Scope<'_>,
    cells: &mut ByColor<Vec<M::Cell>>,
    buckets: &mut Buckets,
) -> Result<(), M::Error> {
    let mut part = PartDepths {
        m,
        scope,
        cells,
        buckets,
        nodes: Vec::new(),
        preds: Vec::new(),
    };
    by_depth(&mut part, 0).map(|_| ())
}

/// One part's solve seen depth by depth.
struct PartDepths<'p, 's, M: PartMetric> {
    m: &'p M,
    scope: &'p Scope<'s>,
    cells: &'p mut ByColor<Vec<M::Cell>>,
    buckets: &'p mut Buckets,
    /// The nodes of the current depth.
    nodes: Vec<Node>,
    preds: Vec<u64>,
}

impl<M: PartMetric> Depths for PartDepths<'_, '_, M> {
    type Error = M::Error;

    fn complete(&mut self, d: usize) -> Result<u64, M::Error> {
        self.nodes = self
            .buckets
            .by_depth
            .get_mut(d)
            .map(std::mem::take)
            .unwrap_or_default();
        Ok(self.nodes.len() as u64)
    }

    fn scheduled_after(&self, d: usize) -> bool {
        self.buckets.last > d
    }

    fn pass(&mut self, d: usize, _count: u64) -> Result<(), M::Error> {
        let (m, scope) = (self.m, self.scope);
        for &(side, place, seed) in &self.nodes {
            let p = place as usize;
            let Some(cell) = self.cells[side].get_mut(p) else {
                continue;
            };
            if seed && !m.join_seed(cell, d)? {
                continue;
            }
            let lost = m.lost(*cell);
            let idx = scope.places.entry(p);
            let Some(sq) = scope.ix.decode(idx) else {
                continue;
            };
            predecessors(scope.ix, scope.slots, &sq, idx, side, &mut self.preds);
            if M::DISTINCT && !lost && scope.ix.may_coincide(&sq, side) {
                self.preds.sort_unstable();
                self.preds.dedup();
            }
            let mover = side.other();
            for &pi in &self.preds {
                let Some(pp) = scope.places.place(pi) else {
                    continue;
                };
                let Some(cell) = self.cells[mover].get_mut(pp) else {
                    continue;
                };
                if let Some(at) = m.update(cell, lost, d, (pi, mover))? {
                    self.buckets.add(m, (mover, pp), at, Joins::Decided)?;
                }
            }
        }
        Ok(())
    }
}

/// The entries, with the other side to move, from which a move of one of its pieces other
/// than a pawn, capturing nothing, leads to `sq` (entry `idx`, `side` to move): into `out`
/// (cleared). Un-moves after which the king of `side` would have been in check with the other
/// side to move give no position and are left out; an entry may come twice when two un-moves
/// reach it.
fn predecessors(
    ix: &IndexScheme,
    slots: &[(Color, Role)],
    sq: &Squares,
    idx: u64,
    side: Color,
    out: &mut Vec<u64>,
) {
    out.clear();
    let n = ix.piece_count();
    let mover = side.other();
    let occ = occupancy(sq, n);
    let masks = discovery_masks(slots, n, sq, occ, side);
    for (i, &(c, role)) in slots.iter().enumerate().take(n) {
        if c != mover || role == Role::Pawn {
            continue;
        }
        let mut origins = attacks_from(c, role, sq[i], occ)
            & !occ
            & legal_origins(slots, sq, occ, side, i, &masks);
        while origins != 0 {
            let from = origins.trailing_zeros() as u8;
            origins &= origins - 1;
            let mut pred = *sq;
            pred[i] = from;
            if let Some(p) = ix.moved(idx, sq, i, from).or_else(|| ix.index(&pred)) {
                out.push(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A metric on plain counters, to see the loop's order: a cell is `None` while open
    /// (counting nothing: every update decides it a win one deeper).
    struct Wins;

    impl PartMetric for Wins {
        type Cell = Option<usize>;
        type Error = &'static str;
        const DISTINCT: bool = false;
        const DEPTHS: usize = 4;

        fn overflow(&self) -> &'static str {
            "overflow"
        }

        fn join_seed(&self, cell: &mut Option<usize>, d: usize) -> Result<bool, &'static str> {
            if cell.is_some() {
                return Ok(false);
            }
            *cell = Some(d);
            Ok(true)
        }

        fn lost(&self, _cell: Option<usize>) -> bool {
            false
        }

        fn update(
            &self,
            _cell: &mut Option<usize>,
            _lost: bool,
            _d: usize,
            _at: (u64, Color),
        ) -> Result<Option<usize>, &'static str> {
            Ok(None)
        }
    }

    #[test]
    fn a_seed_joins_unless_its_cell_was_decided_and_a_deep_one_overflows() {
        let mut b = Buckets::new(Wins::DEPTHS);
        let mut cell = Some(1);
        assert_eq!(Wins.join_seed(&mut cell, 3), Ok(false));
        let mut open = None;
        assert_eq!(Wins.join_seed(&mut open, 3), Ok(true));
        assert_eq!(open, Some(3));
        assert_eq!(b.add(&Wins, (Color::White, 0), 3, Joins::Seed), Ok(()));
        assert_eq!(b.last, 3);
        let deep = b.add(&Wins, (Color::Black, 0), 4, Joins::Decided);
        assert_eq!(deep, Err("overflow"));
        assert_eq!(b.last, 3);
    }
}
