//! Distance to zeroing under the 50-move rule, as Syzygy defines it (see `retro_tables::Dtz`).

use super::{LossAt, Rules};

/// DTZ50. An exit is a zeroing move: 1 ply into a position lost (for the winner) or won (for
/// the loser) under the rule, 101 into a blessed loss or a cursed win. A loss whose best move
/// zeroes is decided one ply before its exit, as a mate is at 0 with a DTZ of -1: the winner's
/// moves into it count from there, and its DTZ is one more than its depth.
pub(crate) struct Dtz50;

impl Rules for Dtz50 {
    #[inline]
    fn loss_at(first: usize, exit: usize) -> LossAt {
        if exit > first {
            LossAt {
                depth: exit - 1,
                by_exit: true,
            }
        } else {
            LossAt {
                depth: first,
                by_exit: false,
            }
        }
    }
}
