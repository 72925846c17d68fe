//! Table play under the 50-move rule: what a table position is worth with the halfmove clock
//! it has, and the order of the root moves for the side to move.
//!
//! With the clock at `c`, a position whose DTZ is `d` wins (or loses) under the rule when
//! `|d| + c <= 100`: the zeroing move comes before the clock reaches 100. Otherwise it is a draw
//! by the rule (a cursed win or blessed loss, or a win the clock has spoiled). A mate whose DTM
//! `m` satisfies `m + c <= 100` comes within the rule whatever the defence, since every move
//! of the DTM line counts at most one ply; only then is it reported as a mate.

use shakmaty::{Chess, Move, Position};

use retro_tables::{Dtz, ProbeError, Syzygy, Tablebase, Value, Wdl};

pub use retro_tables::RULE_PLIES;

/// The result of a position under the 50-move rule for the side to move, given its clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// Lost before the clock runs out.
    Loss,
    /// Drawn, by the position or by the rule.
    Draw,
    /// Won before the clock runs out.
    Win,
}

/// The outcome of a position with DTZ `dtz` and the halfmove clock at `clock`.
pub fn outcome(dtz: Dtz, clock: u32) -> Outcome {
    if dtz.plies().saturating_add(clock) > RULE_PLIES || dtz.0 == 0 {
        Outcome::Draw
    } else if dtz.0 > 0 {
        Outcome::Win
    } else {
        Outcome::Loss
    }
}

/// Whether the DTM mate of `dtm` comes within the rule from the clock at `clock`.
pub fn mate_fits(dtm: Value, clock: u32) -> bool {
    dtm.wdl() != Wdl::Draw && dtm.plies().saturating_add(clock) <= RULE_PLIES
}

/// A root move with what the tables say of it.
#[derive(Clone, Copy, Debug)]
pub struct RuleMove {
    /// The move.
    pub mv: Move,
    /// Its DTM value for the mover.
    pub dtm: Value,
    /// The DTZ of the position after it, for the opponent.
    pub dtz_after: Dtz,
    /// The clock after it.
    pub clock_after: u32,
    /// Its DTM mate (a win or a loss) comes within the rule from the clock after the move,
    /// whatever the defence: certain, whatever the DTZ says.
    pub mate_fits: bool,
    /// Its outcome for the mover under the rule.
    pub outcome: Outcome,
}

impl RuleMove {
    /// Plies to spare before the clock reaches 100 on the way to the next zeroing move (0 for a
    /// checkmate).
    pub fn margin(&self) -> i64 {
        i64::from(RULE_PLIES) - i64::from(self.clock_after) - i64::from(self.dtz_after.plies())
    }

    /// The sort key, best first, in the order of the scores the root reports: wins (the mates
    /// that fit the rule first, fastest first; then the wins only the DTZ promises: those with
    /// a ply to spare first, since a DTZ can count one ply less than the zeroing move, then the
    /// nearest zeroing move, then the fastest mate by DTM); draws, the best DTM value first (a
    /// cursed win keeps playing for the mate in case the opponent zeroes, a blessed loss resists
    /// the longest); losses (those whose mate does not fit the rule first, the opponent's
    /// zeroing move farthest, then the longest DTM resistance; then the mates that fit, the
    /// longest resistance first; by DTZ alone without DTM, from Syzygy).
    fn key(&self) -> (u8, i64, i64, i64, i64) {
        match self.outcome {
            Outcome::Win if self.mate_fits => (0, 0, i64::from(self.dtm.plies()), 0, 0),
            Outcome::Win => (
                0,
                1,
                -i64::from(self.margin() >= 1 || self.dtz_after.0 == -1),
                i64::from(self.dtz_after.plies()),
                i64::from(self.dtm.plies()),
            ),
            Outcome::Draw => (1, -i64::from(self.dtm.rank()), 0, 0, 0),
            Outcome::Loss if self.mate_fits => (2, 1, -i64::from(self.dtm.rank()), 0, 0),
            Outcome::Loss => (
                2,
                0,
                -i64::from(self.dtz_after.plies()),
                -i64::from(self.dtm.rank()),
                0,
            ),
        }
    }
}

/// The legal moves of a table position ranked under the 50-move rule, best first (see
/// [`RuleMove`]'s order); ties keep move generation order.
///
/// # Errors
/// Castling rights, or a position after a move that no DTM or DTZ50 table covers.
pub fn rank_moves(tb: &Tablebase, pos: &Chess) -> Result<Vec<RuleMove>, ProbeError> {
    if pos.castles().any() {
        return Err(ProbeError::Castling);
    }
    let clock = pos.halfmoves();
    let mut out = Vec::new();
    for m in pos.legal_moves() {
        let mut after = pos.clone();
        after.play_unchecked(m);
        let dtm = Value::from_child(tb.probe(&after)?).ok_or(ProbeError::Overflow)?;
        let dtz_after = tb.probe_dtz(&after)?;
        let clock_after = if m.is_zeroing() {
            0
        } else {
            clock.saturating_add(1)
        };
        // The mate after the move, from the clock after it (a capture or pawn move resets it).
        let fits =
            dtm.wdl() != Wdl::Draw && dtm.plies().saturating_add(clock_after) <= RULE_PLIES + 1;
        let outcome = if after.is_checkmate() {
            Outcome::Win
        } else if fits {
            // A mate within the rule whatever the defence: the DTZ (which may count a ply
            // more than the zeroing move) cannot turn it into a draw.
            if dtm.wdl() == Wdl::Win {
                Outcome::Win
            } else {
                Outcome::Loss
            }
        } else {
            match outcome(dtz_after, clock_after) {
                Outcome::Win => Outcome::Loss,
                Outcome::Loss => Outcome::Win,
                Outcome::Draw => Outcome::Draw,
            }
        };
        out.push(RuleMove {
            mv: m,
            dtm,
            dtz_after,
            clock_after,
            mate_fits: fits,
            outcome,
        });
    }
    out.sort_by_key(RuleMove::key);
    Ok(out)
}

/// The legal moves of a position ranked under the 50-move rule by Syzygy's DTZ alone (no DTM:
/// a win takes the nearest zeroing move), best first; `None` when Syzygy does not cover a
/// position after a move. A DTZ Syzygy stored rounded counts one ply more where a win must
/// fit the clock.
pub fn rank_moves_syzygy(sz: &Syzygy, pos: &Chess) -> Option<Vec<RuleMove>> {
    let clock = pos.halfmoves();
    let mut out = Vec::new();
    for m in pos.legal_moves() {
        let mut after = pos.clone();
        after.play_unchecked(m);
        let clock_after = if m.is_zeroing() {
            0
        } else {
            clock.saturating_add(1)
        };
        let (dtz_after, rounded) = if after.is_checkmate() {
            (Dtz(-1), false)
        } else {
            sz.probe_dtz(&after)?
        };
        let outcome = if after.is_checkmate() {
            Outcome::Win
        } else {
            let worst = if rounded && dtz_after.0 < 0 {
                Dtz(dtz_after.0 - 1)
            } else {
                dtz_after
            };
            match outcome(worst, clock_after) {
                Outcome::Win => Outcome::Loss,
                Outcome::Loss => Outcome::Win,
                Outcome::Draw => Outcome::Draw,
            }
        };
        out.push(RuleMove {
            mv: m,
            dtm: Value::DRAW,
            dtz_after,
            clock_after,
            mate_fits: false,
            outcome,
        });
    }
    out.sort_by_key(RuleMove::key);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_with_the_clock() {
        assert_eq!(outcome(Dtz(30), 0), Outcome::Win);
        assert_eq!(outcome(Dtz(30), 70), Outcome::Win);
        assert_eq!(outcome(Dtz(30), 71), Outcome::Draw);
        assert_eq!(outcome(Dtz(-30), 70), Outcome::Loss);
        assert_eq!(outcome(Dtz(-30), 71), Outcome::Draw);
        assert_eq!(outcome(Dtz(101), 0), Outcome::Draw);
        assert_eq!(outcome(Dtz(-101), 0), Outcome::Draw);
        assert_eq!(outcome(Dtz(0), 0), Outcome::Draw);
        let m = Value::win(21).expect("value");
        assert!(mate_fits(m, 79));
        assert!(!mate_fits(m, 80));
        assert!(!mate_fits(Value::DRAW, 0));
        // A FEN may give any clock: the largest is a draw by the rule, not an overflow.
        assert_eq!(outcome(Dtz(30), u32::MAX), Outcome::Draw);
        assert!(!mate_fits(m, u32::MAX));
    }
}
