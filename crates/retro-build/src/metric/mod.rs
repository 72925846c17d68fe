//! The metric seam: the rules that make a solve's depths DTM or DTZ50, in one place for every
//! solve of the generator (cells in memory, the compact store, pawn structures).
//!
//! The kernel decides positions depth by depth: a predecessor of a loss decided at depth `d`
//! wins at [`Rules::win_at`]`(d)` (the solves whose frontier of the next depth is a bitmap
//! decide it by marking it there), and a loser is decided when its last in-table move is, at
//! [`Rules::loss_at`]: the depth after that move's, or by its exit (a move that leaves the
//! material or, for DTZ50, zeroes the clock) when that holds out longer. The metrics differ in
//! what an exit's plies are and in how a loss decided by its exit is counted: for DTZ50 its
//! depth may then be the next one all the same (`LossAt::by_exit` is not "later").

mod dtm;
mod dtz50;

use retro_tables::{format::Metric, Dtz, Wdl50};

#[cfg(test)]
pub(crate) use self::dtz50::ZeroingMoves;
pub(crate) use self::{
    dtm::{Dtm, DtmMoves, Mating},
    dtz50::{Dtz50, Dtz50Moves, Recomputed},
};

/// Where a loss is decided ([`Rules::loss_at`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LossAt {
    /// The depth it is decided at (and joins the frontier).
    pub depth: usize,
    /// Whether its best move is its exit, which holds out longer than its in-table moves: a
    /// DTM loss is then decided at a later depth than the next (the solves schedule it), a
    /// DTZ50 loss at its exit's plies less one, and stored one ply past that depth.
    pub by_exit: bool,
}

/// The rules of a metric.
pub trait Rules {
    /// The depth at which a predecessor of a loss decided at depth `d` wins.
    #[inline]
    fn win_at(d: usize) -> usize {
        d + 1
    }

    /// Where a loser is decided whose in-table moves are all decided, the last at depth
    /// `first - 1` (`first` is 0 when it has none: every move is an exit), and whose worst
    /// exit takes `exit` plies in this metric (0 when it has none).
    fn loss_at(first: usize, exit: usize) -> LossAt;
}

/// A metric of the plies to the next zeroing move (a capture, a promotion or a pawn move) under a
/// move-count rule of [`Zeroing::RULE`] plies: DTZ50 (100 plies) is one, a DTZ under the 75-move
/// rule or without a rule would be others. The DTZ solves (cells in memory, the compact store
/// and by pawn structure), their cells and [`ZeroingMoves`] are generic over it: a zeroing move
/// is an exit valued by the class it leads to (the clock is reset there), 1 ply into a position
/// won or lost within the rule and `RULE + 1` into one beyond it (a cursed win or a blessed
/// loss); the other moves are solved depth by depth, and a loss whose best move zeroes is
/// decided one ply before its exit ([`Rules::loss_at`]).
pub trait Zeroing: Rules {
    /// The plies without a zeroing move after which the rule draws: a win farther than that
    /// from its zeroing move is a cursed win, such a loss a blessed loss.
    const RULE: u16;

    /// The plies of an exit into a class beyond the rule: a winner's move into a blessed loss,
    /// a loser's into a cursed win.
    const LONG_EXIT: u16 = Self::RULE + 1;

    /// A winner's zeroing move into `theirs` (the opponent's class, to move after it): the
    /// plies of its exit, `None` when it does not win.
    #[inline]
    fn winner_exit(theirs: Wdl50) -> Option<u16> {
        match theirs {
            Wdl50::Loss => Some(1),
            Wdl50::BlessedLoss => Some(Self::LONG_EXIT),
            _ => None,
        }
    }

    /// A loser's zeroing move into `theirs`: the plies of its exit, or `theirs` back when a
    /// loser cannot have that move (a move into a draw or a loss would save it).
    #[inline]
    fn loser_exit(theirs: Wdl50) -> Result<u16, Wdl50> {
        match theirs {
            Wdl50::Win => Ok(1),
            Wdl50::CursedWin => Ok(Self::LONG_EXIT),
            c => Err(c),
        }
    }

    /// A zeroing move into `theirs` for a winner (`winner`) or a loser: the plies of its exit
    /// ([`Zeroing::winner_exit`], [`Zeroing::loser_exit`]), `None` for a winner's move that
    /// does not win, or `theirs` back for a move a loser cannot have.
    #[inline]
    fn exit(winner: bool, theirs: Wdl50) -> Result<Option<u16>, Wdl50> {
        if winner {
            Ok(Self::winner_exit(theirs))
        } else {
            Self::loser_exit(theirs).map(Some)
        }
    }

    /// The class of a position whose DTZ in this metric is `dtz`.
    #[inline]
    fn class(dtz: Dtz) -> Wdl50 {
        let rule = i32::from(Self::RULE);
        match i32::from(dtz.0) {
            0 => Wdl50::Draw,
            d if d > rule => Wdl50::CursedWin,
            d if d > 0 => Wdl50::Win,
            d if d >= -rule => Wdl50::Loss,
            _ => Wdl50::BlessedLoss,
        }
    }

    /// The byte a table file of this metric stores for `dtz`: a win's DTZ, a loss's class only
    /// (1 within the rule, the long exit's plies beyond it: the exact distance of a loss is one
    /// more than the longest of its moves into wins, which the table holds), 0 for a draw;
    /// `None` for what does not fit a byte. `Dtz::from_tables` reads it back.
    #[inline]
    fn table_byte(dtz: Dtz) -> Option<u8> {
        match dtz.0 {
            0.. => u8::try_from(dtz.0).ok(),
            d if d >= -(Self::RULE as i16) => Some(1),
            _ => u8::try_from(Self::LONG_EXIT).ok(),
        }
    }
}

/// A zeroing metric written to table files: the files that hold it, from which the solves of
/// the tables its zeroing moves lead to read their classes (`dtz::sub`).
pub trait ZeroingFiles: Zeroing {
    /// The table files of this metric.
    const FILE: Metric;
}

/// The rule of every zeroing metric: a loss whose exit holds out longer than its in-table
/// moves is decided one ply before its exit, by it.
#[inline]
fn zeroing_loss_at(first: usize, exit: usize) -> LossAt {
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

/// A zeroing metric the tests add as a new metric would be added: a DTZ under a five-move
/// rule (10 plies), short enough that tables of 3 and 4 pieces have wins beyond it, and with
/// pawns, promotions into them.
#[cfg(test)]
pub(crate) struct FiveMoveRule;

#[cfg(test)]
impl Rules for FiveMoveRule {
    fn loss_at(first: usize, exit: usize) -> LossAt {
        zeroing_loss_at(first, exit)
    }
}

#[cfg(test)]
impl Zeroing for FiveMoveRule {
    const RULE: u16 = 10;
}

/// A metric of the DTM family the tests add as a new one would be added: a distance to
/// conversion counted as DTM counts a mate, each exit (a capture or a promotion) valued by its
/// sub-table's class alone, as if a lost position there were mated and a won one mating in one
/// ply. The winner converts as soon as it can, the loser as late.
#[cfg(test)]
pub(crate) struct Conversion;

#[cfg(test)]
impl Rules for Conversion {
    fn loss_at(first: usize, exit: usize) -> LossAt {
        Dtm::loss_at(first, exit)
    }
}

#[cfg(test)]
impl Mating for Conversion {
    fn exit_child(child: retro_tables::Value) -> retro_tables::Value {
        use retro_tables::{Value, Wdl};
        match child.wdl() {
            Wdl::Loss => Value::MATED,
            Wdl::Draw => Value::DRAW,
            Wdl::Win => Value::from_child(Value::MATED).unwrap_or(child),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loss_without_a_longer_exit_is_decided_after_its_last_move() {
        for first in [0, 1, 2, 57, 99, 100, 101, 300] {
            for exit in 0..=first.min(1) {
                let want = LossAt {
                    depth: first,
                    by_exit: false,
                };
                assert_eq!(Dtm::loss_at(first, exit), want, "{first} {exit}");
                assert_eq!(Dtz50::loss_at(first, exit), want, "{first} {exit}");
            }
        }
    }

    #[test]
    fn a_longer_exit_decides_the_loss_later() {
        // DTM: a loss as long as its longest exit.
        assert_eq!(
            Dtm::loss_at(3, 10),
            LossAt {
                depth: 10,
                by_exit: true
            }
        );
        assert_eq!(
            Dtm::loss_at(10, 10),
            LossAt {
                depth: 10,
                by_exit: false
            }
        );
        // DTZ50: a loss whose every move zeroes (a capture into a win, 1 ply, or into a
        // cursed win, 101) is counted as a mate is, one ply less than its DTZ.
        assert_eq!(
            Dtz50::loss_at(0, 1),
            LossAt {
                depth: 0,
                by_exit: true
            }
        );
        assert_eq!(
            Dtz50::loss_at(0, 101),
            LossAt {
                depth: 100,
                by_exit: true
            }
        );
        assert_eq!(
            Dtz50::loss_at(100, 101),
            LossAt {
                depth: 100,
                by_exit: true
            }
        );
        assert_eq!(
            Dtz50::loss_at(101, 101),
            LossAt {
                depth: 101,
                by_exit: false
            }
        );
        assert_eq!(Dtm::win_at(4), 5);
        assert_eq!(Dtz50::win_at(100), 101);
    }
    /// The passes of the DTZ50 solves on a bitmap frontier tell a node's kind by the parity of
    /// its depth: from the mates (0) and the losses whose every move zeroes (an exit of 1 or
    /// 101 plies), a win is one deeper than a loss, and a loss one deeper than a win or one
    /// less than its exit.
    #[test]
    fn dtz50_wins_come_at_odd_depths_and_losses_at_even_ones() {
        for exit in [1, 101] {
            assert_eq!(Dtz50::loss_at(0, exit).depth % 2, 0, "exit {exit}");
        }
        for loss in (0..400).step_by(2) {
            let win = Dtz50::win_at(loss);
            assert_eq!(win % 2, 1, "win after a loss at {loss}");
            for exit in [0, 1, 101] {
                let next = Dtz50::loss_at(win + 1, exit).depth;
                assert_eq!(next % 2, 0, "loss after a win at {win}, exit {exit}");
            }
        }
    }
    fn dtz50(moves: impl FnOnce(&mut Dtz50Moves), in_check: bool) -> Option<(i16, bool)> {
        let mut m = Dtz50Moves::default();
        moves(&mut m);
        m.value(|| in_check).map(|r| (r.dtz.0, r.zeroes))
    }

    /// The verifiers' recomputation of a DTZ50 value from a position's moves follows Syzygy's
    /// rules and agrees with the solves' `loss_at`.
    #[test]
    fn dtz50_values_from_the_moves() {
        use retro_tables::Wdl50;
        // Mate is a loss whose best move zeroes; stalemate a draw.
        assert_eq!(dtz50(|_| {}, true), Some((-1, true)));
        assert_eq!(dtz50(|_| {}, false), Some((0, false)));
        // The shortest win: a capture into a loss, or one ply past a loss's depth.
        assert_eq!(
            dtz50(
                |m| {
                    m.quiet_to_loss(6);
                    m.zeroing(Wdl50::Loss);
                },
                false
            ),
            Some((1, false))
        );
        assert_eq!(dtz50(|m| m.quiet_to_loss(6), false), Some((7, false)));
        assert_eq!(
            dtz50(|m| m.zeroing(Wdl50::BlessedLoss), false),
            Some((101, false))
        );
        // A loss: its longest move, which zeroes when the zeroing one is longer.
        assert_eq!(
            dtz50(
                |m| {
                    m.quiet_to_win(10);
                    m.zeroing(Wdl50::Win);
                },
                false
            ),
            Some((-11, false))
        );
        let cursed = dtz50(
            |m| {
                m.quiet_to_win(10);
                m.zeroing(Wdl50::CursedWin);
            },
            false,
        );
        assert_eq!(cursed, Some((-101, true)));
        // One move that saves the game makes it a draw.
        assert_eq!(
            dtz50(
                |m| {
                    m.quiet_to_win(10);
                    m.quiet_to_draw();
                },
                false
            ),
            Some((0, false))
        );
        assert_eq!(dtz50(|m| m.zeroing(Wdl50::Draw), true), Some((0, false)));
        let r = Recomputed {
            dtz: retro_tables::Dtz(-101),
            zeroes: true,
        };
        assert_eq!(r.loss_depth(), 100);
    }

    /// DTZ50's classes and stored bytes, from its rule alone, are the file format's.
    #[test]
    fn dtz50_classes_and_bytes_are_the_file_format_s() {
        for d in i16::MIN..=i16::MAX {
            let dtz = Dtz(d);
            assert_eq!(Dtz50::class(dtz), dtz.wdl50(), "{d}");
            assert_eq!(Dtz50::table_byte(dtz), dtz.to_table_byte(), "{d}");
        }
        assert_eq!(FiveMoveRule::class(Dtz(11)), Wdl50::CursedWin);
        assert_eq!(FiveMoveRule::class(Dtz(-10)), Wdl50::Loss);
        assert_eq!(FiveMoveRule::table_byte(Dtz(-11)), Some(11));
        assert_eq!(FiveMoveRule::winner_exit(Wdl50::BlessedLoss), Some(11));
    }

    #[test]
    fn dtm_values_from_the_moves() {
        use retro_tables::Value;
        assert_eq!(DtmMoves::default().value(|| true), Value::MATED);
        assert_eq!(DtmMoves::default().value(|| false), Value::DRAW);
        let mut m = DtmMoves::default();
        assert_eq!(m.add(Value::MATED), Some(()));
        assert_eq!(m.add(Value::DRAW), Some(()));
        // A mate in one beats a draw.
        let mate_in_one = Value::from_child(Value::MATED);
        assert!(mate_in_one.is_some_and(|v| v.wdl() == retro_tables::Wdl::Win));
        assert_eq!(Some(m.value(|| false)), mate_in_one);
    }
}
