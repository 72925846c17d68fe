//! Depth to mate: a position's depth is the plies to mate under best play, without the 50-move
//! rule.

use super::{LossAt, Rules};

/// Depth to mate. An exit's plies are those of the mate it leads to, counted from this
/// position (the sub-table's value and the move): a loser holds out as long as its longest.
pub(crate) struct Dtm;

impl Rules for Dtm {
    #[inline]
    fn loss_at(first: usize, exit: usize) -> LossAt {
        LossAt {
            depth: first.max(exit),
            by_exit: exit > first,
        }
    }
}
