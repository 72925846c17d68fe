//! Depth to mate: a position's depth is the plies to mate under best play, without the 50-move
//! rule.

use retro_tables::Value;

use super::{LossAt, Rules};

/// Depth to mate. An exit's plies are those of the mate it leads to, counted from this
/// position (the sub-table's value and the move): a loser holds out as long as its longest.
pub struct Dtm;

impl Rules for Dtm {
    #[inline]
    fn loss_at(first: usize, exit: usize) -> LossAt {
        LossAt {
            depth: first.max(exit),
            by_exit: exit > first,
        }
    }
}

/// A metric of the plies-to-mate family: a position's value is a [`Value`] (a win in an odd
/// number of plies, a loss in an even one), decided depth by depth by the DTM solves (cells in
/// memory, the compact store, pawn structures), which are generic over it. The family's
/// metrics differ in how a move out of the table (a capture or a promotion) is valued: by the
/// value it gives the position it leads to, [`Mating::exit_child`]. DTM takes the sub-table's
/// value as it is; a distance to conversion takes its class alone.
pub trait Mating: Rules {
    /// The value, for the opponent to move, that a move out of the table into a position of
    /// sub-table value `child` is valued by (the mover's value is one ply further,
    /// [`Value::from_child`]).
    #[inline]
    fn exit_child(child: Value) -> Value {
        child
    }
}

impl Mating for Dtm {}

/// The DTM value of a position from its moves, one at a time: what the verifiers check every
/// stored value against. The best move's value (one ply further from the mate than the
/// position it leads to), or without a move mate or stalemate.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DtmMoves {
    best: Option<Value>,
}

impl DtmMoves {
    /// A move whose value for the side to move is `v`.
    #[inline]
    pub(crate) fn add_own(&mut self, v: Value) {
        self.best = Some(self.best.map_or(v, |b| b.max(v)));
    }

    /// A move into a position of value `child` for the opponent; `None` (and nothing added)
    /// when a value one ply further does not fit a byte.
    #[inline]
    pub(crate) fn add(&mut self, child: Value) -> Option<()> {
        self.add_own(Value::from_child(child)?);
        Some(())
    }

    /// The best move's value so far, `None` before any.
    pub(crate) fn best(&self) -> Option<Value> {
        self.best
    }

    /// The value, once every move is in; `in_check` (asked only when there was no move) tells
    /// mate from stalemate.
    pub(crate) fn value(self, in_check: impl FnOnce() -> bool) -> Value {
        self.best.unwrap_or_else(|| {
            if in_check() {
                Value::MATED
            } else {
                Value::DRAW
            }
        })
    }
}
