//! The 50-move-rule metric: win/draw/loss under the rule ([`Wdl50`]) and the distance to the
//! next zeroing move ([`Dtz`]), with the definitions the Syzygy tables use.
//!
//! A zeroing move is a capture or a pawn move (they reset the halfmove clock); a mate ends the
//! game and counts as one too. From a position with the clock at 0, the side to move wins under
//! the rule when it can force a zeroing move into a position lost for the opponent under the
//! rule (or mate) within 100 plies; a *cursed win* is a win only without the rule, a *blessed
//! loss* its other side.

use std::fmt;

use super::value::{Value, Wdl};

/// The plies the 50-move rule allows without a capture or a pawn move: 100 (50 moves each).
pub const RULE_PLIES: u32 = 100;

/// Win, draw or loss under the 50-move rule, for the side to move with the clock at 0.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub enum Wdl50 {
    /// Lost within the rule.
    Loss,
    /// Lost without the rule, drawn by it.
    BlessedLoss,
    /// Drawn either way.
    Draw,
    /// Won without the rule, drawn by it.
    CursedWin,
    /// Won within the rule.
    Win,
}

impl Wdl50 {
    /// All five, from worst to best for the side to move.
    pub const ALL: [Wdl50; 5] = [
        Wdl50::Loss,
        Wdl50::BlessedLoss,
        Wdl50::Draw,
        Wdl50::CursedWin,
        Wdl50::Win,
    ];

    /// `loss`, `blessed-loss`, `draw`, `cursed-win` or `win`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Wdl50::Loss => "loss",
            Wdl50::BlessedLoss => "blessed-loss",
            Wdl50::Draw => "draw",
            Wdl50::CursedWin => "cursed-win",
            Wdl50::Win => "win",
        }
    }

    /// -2 (loss) to 2 (win), Syzygy's numbers.
    pub const fn to_i8(self) -> i8 {
        match self {
            Wdl50::Loss => -2,
            Wdl50::BlessedLoss => -1,
            Wdl50::Draw => 0,
            Wdl50::CursedWin => 1,
            Wdl50::Win => 2,
        }
    }

    /// The class of Syzygy's number `v` (clamped to -2..=2).
    pub const fn from_i8(v: i8) -> Wdl50 {
        match v {
            i8::MIN..=-2 => Wdl50::Loss,
            -1 => Wdl50::BlessedLoss,
            0 => Wdl50::Draw,
            1 => Wdl50::CursedWin,
            _ => Wdl50::Win,
        }
    }

    /// The value for the other side.
    pub const fn flip(self) -> Wdl50 {
        Wdl50::from_i8(-self.to_i8())
    }

    /// The result without the rule: cursed wins are wins, blessed losses losses.
    pub const fn wdl(self) -> Wdl {
        match self {
            Wdl50::Loss | Wdl50::BlessedLoss => Wdl::Loss,
            Wdl50::Draw => Wdl::Draw,
            Wdl50::CursedWin | Wdl50::Win => Wdl::Win,
        }
    }

    /// The result a game gets under the rule from the clock at 0: cursed wins and blessed
    /// losses are draws.
    pub const fn under_rule(self) -> Wdl {
        match self {
            Wdl50::Loss => Wdl::Loss,
            Wdl50::Win => Wdl::Win,
            _ => Wdl::Draw,
        }
    }
}

impl fmt::Display for Wdl50 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Distance to zeroing in plies, signed as Syzygy signs it: positive where the side to move wins
/// (1 to 100) or cursed-wins (above 100), negative where it loses (-1 to -100, -1 also for a
/// checkmated side) or is saved by the rule (below -100), 0 for draws.
///
/// A position whose best move zeroes is 1 (win), 101 (cursed win), -1 (loss) or -101 (blessed
/// loss); otherwise it is one ply more than the position after the best move, the winner
/// shortening and the loser lengthening the way to the zeroing move.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord, Default)]
pub struct Dtz(pub i16);

impl Dtz {
    /// A draw.
    pub const DRAW: Dtz = Dtz(0);

    /// The class under the rule.
    pub const fn wdl50(self) -> Wdl50 {
        match self.0 {
            0 => Wdl50::Draw,
            1..=100 => Wdl50::Win,
            101.. => Wdl50::CursedWin,
            -100..=-1 => Wdl50::Loss,
            _ => Wdl50::BlessedLoss,
        }
    }

    /// The value of a position whose best move zeroes into a position of class `after` for the
    /// opponent (Syzygy's "before zeroing").
    pub const fn before_zeroing(after: Wdl50) -> Dtz {
        match after {
            Wdl50::Loss => Dtz(1),
            Wdl50::BlessedLoss => Dtz(101),
            Wdl50::Draw => Dtz(0),
            Wdl50::CursedWin => Dtz(-101),
            Wdl50::Win => Dtz(-1),
        }
    }

    /// Plies to the zeroing move (0 for draws).
    pub const fn plies(self) -> u32 {
        self.0.unsigned_abs() as u32
    }
}

impl Dtz {
    /// The value a DTZ table's byte `stored` gives a position whose DTM table byte is `dtm`: the
    /// DTM gives the sign (a draw is 0 whatever the byte). A win is exact; a loss is only its
    /// class (`-1` for a loss within the rule, `-101` for a blessed loss, as written; any
    /// magnitude of the class is accepted), its distance coming from its successors (see
    /// [`Dtz::to_table_byte`]). `None` for a win or loss stored as 0, which a valid pair of
    /// tables never holds.
    pub const fn from_tables(dtm: u8, stored: u8) -> Option<Dtz> {
        Dtz::from_stored(dtm, stored as u16)
    }

    /// The byte a DTZ table stores for this value: a win's DTZ, a loss's class only (1 within
    /// the rule, 101 when blessed: the exact distance of a loss is one more than the longest of
    /// its moves into wins, which the table holds, so storing it would only repeat them), 0 for
    /// a draw; `None` for a win above 255 plies.
    pub const fn to_table_byte(self) -> Option<u8> {
        match self.0 {
            0..=255 => Some(self.0 as u8),
            -100..=-1 => Some(1),
            i16::MIN..=-101 => Some(101),
            _ => None,
        }
    }

    /// The number a DTZ table stores for this value, when it may need more than a byte (6
    /// pieces): a win's DTZ, a loss's class (1 or 101), 0 for a draw. In a file it is a first
    /// byte and an extension byte ([`Dtz::stored_to_planes`]).
    pub const fn to_stored(self) -> u16 {
        match self.0 {
            0.. => self.0 as u16,
            -100..=-1 => 1,
            i16::MIN..=-101 => 101,
        }
    }

    /// As [`Dtz::from_tables`], from the number a table stores (see [`Dtz::to_stored`]).
    pub const fn from_stored(dtm: u8, stored: u16) -> Option<Dtz> {
        if stored > i16::MAX as u16 {
            return None;
        }
        let m = stored as i16;
        match Value::from_byte(dtm).wdl() {
            Wdl::Draw => Some(Dtz(0)),
            _ if stored == 0 => None,
            Wdl::Win => Some(Dtz(m)),
            Wdl::Loss => Some(Dtz(-m)),
        }
    }

    /// A stored number as a first byte and an extension byte: 0 as `(0, 0)`, `s` above 0 as
    /// `(1 + (s - 1) % 255, (s - 1) / 255)`, so that the first byte alone is the number
    /// wherever it is below 256 (a table of one plane) and is 0 only for 0.
    pub const fn stored_to_planes(s: u16) -> (u8, u8) {
        if s == 0 {
            (0, 0)
        } else {
            (1 + ((s - 1) % 255) as u8, ((s - 1) / 255) as u8)
        }
    }

    /// The stored number of a first byte and an extension byte (see
    /// [`Dtz::stored_to_planes`]); a first byte of 0 is 0.
    pub const fn stored_from_planes(first: u8, ext: u8) -> u16 {
        if first == 0 {
            0
        } else {
            1 + (first as u16 - 1) + 255 * ext as u16
        }
    }

    /// The value of a lost position from the values of its moves (each a win or cursed win for
    /// the opponent; none for a checkmated side): the loser takes the longest way to the zeroing
    /// move, a zeroing move counting 1 (into a win) or 101 (into a cursed win), another one more
    /// than the DTZ after it.
    pub fn loss_from_moves(moves: impl IntoIterator<Item = (bool, Dtz)>) -> Option<Dtz> {
        let mut longest = 1i16;
        for (zeroing, after) in moves {
            let v = match (zeroing, after.wdl50()) {
                (true, Wdl50::Win) => 1,
                (true, Wdl50::CursedWin) => 101,
                (false, Wdl50::Win | Wdl50::CursedWin) => after.0.saturating_add(1),
                _ => return None,
            };
            longest = longest.max(v);
        }
        Some(Dtz(-longest))
    }
}

impl fmt::Display for Dtz {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_numbers_round_trip_through_planes() {
        for s in 0..=(255u16 * 255 + 255) {
            let (f, e) = Dtz::stored_to_planes(s);
            assert_eq!(Dtz::stored_from_planes(f, e), s, "{s}");
            if s <= 255 {
                assert_eq!((f, e), (s as u8, 0));
            }
        }
        for d in [1i16, 100, 101, 255, 256, 586, -1, -100, -101, -600, 0] {
            let win = Value::win(7).and_then(Value::to_byte).unwrap_or(0);
            let loss = Value::loss(8).and_then(Value::to_byte).unwrap_or(0);
            let dtm = if d >= 0 { win } else { loss };
            let got = Dtz::from_stored(dtm, Dtz(d).to_stored());
            if d == 0 {
                assert_eq!(Dtz::from_stored(0, 0), Some(Dtz(0)));
            } else if d > 0 {
                assert_eq!(got, Some(Dtz(d)));
            } else {
                assert_eq!(got.map(Dtz::wdl50), Some(Dtz(d).wdl50()));
            }
            if let Some(b) = Dtz(d).to_table_byte() {
                assert_eq!(u16::from(b), Dtz(d).to_stored());
            }
        }
    }

    #[test]
    fn classes_flip_and_order() {
        for w in Wdl50::ALL {
            assert_eq!(w.flip().flip(), w);
            assert_eq!(Wdl50::from_i8(w.to_i8()), w);
            assert_eq!(w.flip().to_i8(), -w.to_i8());
        }
        assert!(Wdl50::Loss < Wdl50::BlessedLoss && Wdl50::CursedWin < Wdl50::Win);
        assert_eq!(Wdl50::CursedWin.wdl(), Wdl::Win);
        assert_eq!(Wdl50::CursedWin.under_rule(), Wdl::Draw);
    }

    #[test]
    fn table_bytes_keep_wins_and_the_class_of_losses() {
        let win = Value::win(7).and_then(Value::to_byte).unwrap_or(0);
        let loss = Value::loss(8).and_then(Value::to_byte).unwrap_or(0);
        for d in [1i16, 2, 100, 101, 255] {
            let b = Dtz(d).to_table_byte().expect("fits");
            assert_eq!(Dtz::from_tables(win, b), Some(Dtz(d)));
            let l = Dtz(-d).to_table_byte().expect("fits");
            let stored = Dtz::from_tables(loss, l).expect("a loss");
            assert_eq!(stored.wdl50(), Dtz(-d).wdl50());
            assert_eq!(stored, if d <= 100 { Dtz(-1) } else { Dtz(-101) });
        }
        assert_eq!(Dtz(256).to_table_byte(), None);
        assert_eq!(Dtz(-300).to_table_byte(), Some(101));
        assert_eq!(Dtz::from_tables(0, 17), Some(Dtz(0)));
        assert_eq!(Dtz::from_tables(win, 0), None);
        assert_eq!(
            Dtz::from_tables(Value::MATED.to_byte().unwrap_or(0), 1),
            Some(Dtz(-1))
        );
    }

    #[test]
    fn losses_from_their_moves() {
        // Mated: no move.
        assert_eq!(Dtz::loss_from_moves([]), Some(Dtz(-1)));
        // Every move zeroes into a win: -1; into a cursed win: -101.
        assert_eq!(Dtz::loss_from_moves([(true, Dtz(5))]), Some(Dtz(-1)));
        assert_eq!(
            Dtz::loss_from_moves([(true, Dtz(5)), (true, Dtz(130))]),
            Some(Dtz(-101))
        );
        // The longest way: a quiet move into a win in 12 gives 13.
        assert_eq!(
            Dtz::loss_from_moves([(true, Dtz(101)), (false, Dtz(12)), (false, Dtz(3))]),
            Some(Dtz(-101))
        );
        assert_eq!(
            Dtz::loss_from_moves([(true, Dtz(1)), (false, Dtz(12)), (false, Dtz(3))]),
            Some(Dtz(-13))
        );
        assert_eq!(Dtz::loss_from_moves([(false, Dtz(100))]), Some(Dtz(-101)));
        // A move into a draw or a loss: not a lost position.
        assert_eq!(Dtz::loss_from_moves([(false, Dtz(0))]), None);
        assert_eq!(Dtz::loss_from_moves([(true, Dtz(-4))]), None);
    }

    #[test]
    fn dtz_classes() {
        assert_eq!(Dtz(1).wdl50(), Wdl50::Win);
        assert_eq!(Dtz(100).wdl50(), Wdl50::Win);
        assert_eq!(Dtz(101).wdl50(), Wdl50::CursedWin);
        assert_eq!(Dtz(-1).wdl50(), Wdl50::Loss);
        assert_eq!(Dtz(-100).wdl50(), Wdl50::Loss);
        assert_eq!(Dtz(-101).wdl50(), Wdl50::BlessedLoss);
        assert_eq!(Dtz(0).wdl50(), Wdl50::Draw);
        for w in Wdl50::ALL {
            // A zeroing move into `w` for the opponent gives the mover the flipped class.
            assert_eq!(Dtz::before_zeroing(w).wdl50(), w.flip());
        }
    }
}
