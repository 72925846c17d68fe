//! Table values: win, draw or loss for the side to move and the plies to mate, in one byte.

use std::{cmp::Ordering, fmt};

/// Win, draw or loss for the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub enum Wdl {
    /// The side to move is mated with best play.
    Loss,
    /// Neither side can force mate.
    Draw,
    /// The side to move mates with best play.
    Win,
}

impl Wdl {
    /// `win`, `draw` or `loss`.
    pub fn as_str(self) -> &'static str {
        match self {
            Wdl::Win => "win",
            Wdl::Draw => "draw",
            Wdl::Loss => "loss",
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The value of a position for the side to move.
///
/// Tables of up to 5 pieces store it in one byte (see [`Value::to_byte`]):
///
/// | byte      | meaning                                   |
/// |-----------|-------------------------------------------|
/// | 0         | draw (also unused index slots)            |
/// | 1..=128   | loss in `2 * (byte - 1)` plies (0..=254)  |
/// | 129..=255 | win in `2 * (byte - 129) + 1` plies (1..=253) |
///
/// Longer mates (6-piece tables reach 523 plies) add an extension byte (see
/// [`Value::to_planes`]): the first byte keeps the same kind of value, the extension counts
/// how many times the first byte's range was wrapped. A win always takes an odd number of plies
/// and a loss an even number, so every mate up to [`Value::MAX_PLIES`] either way has a code.
/// Every byte, and every pair of bytes, decodes to some value, so a table's payload can hold
/// no invalid entry.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Value(u16);

/// Half the plies of a loss: `code - 1`; of a win: `code - WIN_BASE`.
const WIN_BASE: u16 = 0x8001;

/// The most half-plies (plies / 2) of a win: what a first byte (127 values) and its extension
/// hold.
const MAX_WIN_HALF: u32 = 255 * 127 + 126;

/// The most half-plies of a loss (a first byte holds 128 values).
const MAX_LOSS_HALF: u32 = 255 * 128 + 127;

/// Half-plies of a loss one first byte holds.
const LOSS_SPAN: u32 = 128;

/// Half-plies of a win one first byte holds.
const WIN_SPAN: u32 = 127;

impl Value {
    /// A draw.
    pub const DRAW: Value = Value(0);
    /// The side to move is checkmated.
    pub const MATED: Value = Value(1);
    /// The longest mate a value holds, in plies, either way (a loss may be one ply longer than
    /// the longest win, and longer losses are held too).
    pub const MAX_PLIES: u32 = 2 * MAX_WIN_HALF + 1;
    /// The longest loss one byte holds.
    pub const MAX_BYTE_LOSS: u32 = 254;
    /// The longest win one byte holds.
    pub const MAX_BYTE_WIN: u32 = 253;

    /// The value stored as `byte` (see the table above).
    pub const fn from_byte(byte: u8) -> Value {
        match byte {
            0 => Value::DRAW,
            1..=128 => Value(byte as u16),
            _ => Value(WIN_BASE + (byte - 129) as u16),
        }
    }

    /// The byte this value is stored as; `None` for a mate longer than a byte holds (a win
    /// beyond 253 plies, a loss beyond 254).
    pub const fn to_byte(self) -> Option<u8> {
        let (first, ext) = self.to_planes();
        if ext == 0 {
            Some(first)
        } else {
            None
        }
    }

    /// The value as a first byte and an extension byte: a loss in `2 h` plies is
    /// `(1 + h % 128, h / 128)`, a win in `2 h + 1` plies `(129 + h % 127, h / 127)`, a draw
    /// `(0, 0)`. The first byte alone is [`Value::to_byte`]'s byte whenever the extension is 0,
    /// and has the value's kind (draw, loss, win) always.
    pub const fn to_planes(self) -> (u8, u8) {
        match self.wdl() {
            Wdl::Draw => (0, 0),
            Wdl::Loss => {
                let h = (self.0 - 1) as u32;
                ((1 + h % LOSS_SPAN) as u8, (h / LOSS_SPAN) as u8)
            }
            Wdl::Win => {
                let h = (self.0 - WIN_BASE) as u32;
                ((129 + h % WIN_SPAN) as u8, (h / WIN_SPAN) as u8)
            }
        }
    }

    /// The value stored as a first byte and an extension byte (see [`Value::to_planes`]). A
    /// first byte of 0 is a draw whatever the extension.
    pub const fn from_planes(first: u8, ext: u8) -> Value {
        match first {
            0 => Value::DRAW,
            1..=128 => Value(1 + (ext as u32 * LOSS_SPAN + (first - 1) as u32) as u16),
            _ => Value(WIN_BASE + (ext as u32 * WIN_SPAN + (first - 129) as u32) as u16),
        }
    }

    /// A loss in `plies` (even, at most [`Value::MAX_PLIES`]); `None` when not representable.
    pub const fn loss(plies: u32) -> Option<Value> {
        if plies.is_multiple_of(2) && plies / 2 <= MAX_LOSS_HALF {
            Some(Value(1 + (plies / 2) as u16))
        } else {
            None
        }
    }

    /// A win in `plies` (odd, at most [`Value::MAX_PLIES`]); `None` when not representable.
    pub const fn win(plies: u32) -> Option<Value> {
        if plies % 2 == 1 && plies / 2 <= MAX_WIN_HALF {
            Some(Value(WIN_BASE + (plies / 2) as u16))
        } else {
            None
        }
    }

    /// A loss in `plies` that one byte holds (at most 254); `None` otherwise.
    pub const fn byte_loss(plies: u32) -> Option<Value> {
        if plies <= Value::MAX_BYTE_LOSS {
            Value::loss(plies)
        } else {
            None
        }
    }

    /// A win in `plies` that one byte holds (at most 253); `None` otherwise.
    pub const fn byte_win(plies: u32) -> Option<Value> {
        if plies <= Value::MAX_BYTE_WIN {
            Value::win(plies)
        } else {
            None
        }
    }

    /// Whether one byte holds this value.
    pub const fn fits_byte(self) -> bool {
        self.to_byte().is_some()
    }

    /// The value as one 16-bit number (0 a draw, then losses from mated, then wins from mate
    /// in one), for arrays of values in memory; [`Value::from_code`] reads it back.
    pub const fn code(self) -> u16 {
        self.0
    }

    /// The value of a [`Value::code`]; `None` for a number no value has.
    pub const fn from_code(code: u16) -> Option<Value> {
        let v = Value(code);
        match v.wdl() {
            Wdl::Draw => Some(v),
            Wdl::Loss => {
                if (code - 1) as u32 <= MAX_LOSS_HALF {
                    Some(v)
                } else {
                    None
                }
            }
            Wdl::Win => {
                if (code - WIN_BASE) as u32 <= MAX_WIN_HALF {
                    Some(v)
                } else {
                    None
                }
            }
        }
    }

    /// Win, draw or loss.
    pub const fn wdl(self) -> Wdl {
        match self.0 {
            0 => Wdl::Draw,
            c if c < WIN_BASE => Wdl::Loss,
            _ => Wdl::Win,
        }
    }

    /// Plies to mate (0 for draws and for a checkmated side to move).
    pub const fn plies(self) -> u32 {
        match self.wdl() {
            Wdl::Draw => 0,
            Wdl::Loss => 2 * (self.0 as u32 - 1),
            Wdl::Win => 2 * (self.0 - WIN_BASE) as u32 + 1,
        }
    }

    /// The value of a move for the mover, given the value of the position it leads to (for the
    /// opponent, who is then to move). `None` when the mate would be longer than a value holds.
    pub const fn from_child(child: Value) -> Option<Value> {
        match child.wdl() {
            Wdl::Draw => Some(Value::DRAW),
            Wdl::Win => Value::loss(child.plies() + 1),
            Wdl::Loss => Value::win(child.plies() + 1),
        }
    }

    /// As [`Value::from_child`], `None` also when one byte would not hold the mate.
    pub const fn byte_from_child(child: Value) -> Option<Value> {
        match Value::from_child(child) {
            Some(v) if v.fits_byte() => Some(v),
            _ => None,
        }
    }

    /// A number that orders values from the side to move's point of view: faster wins highest,
    /// then slower wins, draws, longer losses, and faster losses lowest.
    pub const fn rank(self) -> i32 {
        match self.wdl() {
            Wdl::Win => 100_000 - self.plies() as i32,
            Wdl::Draw => 0,
            Wdl::Loss => -100_000 + self.plies() as i32,
        }
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Value) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Value {
    /// Better for the side to move is greater.
    fn cmp(&self, other: &Value) -> Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.wdl() {
            Wdl::Draw => f.write_str("draw"),
            w => write!(f, "{} in {} plies", w, self.plies()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_round_trips() {
        for b in 0..=255u8 {
            let v = Value::from_byte(b);
            let again = match v.wdl() {
                Wdl::Draw => Some(Value::DRAW),
                Wdl::Win => Value::win(v.plies()),
                Wdl::Loss => Value::loss(v.plies()),
            };
            assert_eq!(again, Some(v), "byte {b}");
        }
        assert_eq!(Value::loss(254).map(Value::plies), Some(254));
        assert_eq!(Value::win(253).map(Value::plies), Some(253));
        assert_eq!(Value::byte_win(255), None);
        assert_eq!(Value::byte_loss(256), None);
        assert_eq!(Value::win(255).and_then(Value::to_byte), None);
        assert_eq!(Value::loss(3), None);
        for b in 0..=255u8 {
            assert_eq!(Value::from_byte(b).to_byte(), Some(b));
        }
    }

    #[test]
    fn every_pair_of_planes_round_trips() {
        for first in 0..=255u8 {
            for ext in 0..=255u8 {
                let v = Value::from_planes(first, ext);
                let expect = if first == 0 { (0, 0) } else { (first, ext) };
                assert_eq!(v.to_planes(), expect, "{first} {ext}");
                assert_eq!(Value::from_code(v.code()), Some(v));
                assert_eq!(v.wdl(), Value::from_byte(first).wdl());
                if ext == 0 {
                    assert_eq!(v, Value::from_byte(first));
                }
            }
        }
        for plies in 0..=Value::MAX_PLIES {
            let v = if plies % 2 == 0 {
                Value::loss(plies)
            } else {
                Value::win(plies)
            };
            let v = v.unwrap_or(Value::DRAW);
            assert_eq!(v.plies(), plies);
            let (f, e) = v.to_planes();
            assert_eq!(Value::from_planes(f, e), v);
        }
        assert_eq!(Value::win(Value::MAX_PLIES + 2), None);
        assert_eq!(Value::loss(2 * MAX_LOSS_HALF + 2), None);
        assert!(Value::loss(2 * MAX_LOSS_HALF).is_some());
        assert_eq!(Value::win(523).map(Value::to_planes), Some((129 + 7, 2)));
    }

    #[test]
    fn child_values_and_order() {
        assert_eq!(Value::from_child(Value::MATED), Value::win(1));
        assert_eq!(
            Value::from_child(Value::win(5).unwrap_or(Value::DRAW)),
            Value::loss(6)
        );
        assert_eq!(Value::from_child(Value::DRAW), Some(Value::DRAW));
        let w1 = Value::win(1).unwrap_or(Value::DRAW);
        let w9 = Value::win(9).unwrap_or(Value::DRAW);
        let l2 = Value::loss(2).unwrap_or(Value::DRAW);
        assert!(w1 > w9 && w9 > Value::DRAW && Value::DRAW > l2 && l2 > Value::MATED);
    }
}
