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

/// The value of a position for the side to move, packed into one byte.
///
/// | byte      | meaning                                   |
/// |-----------|-------------------------------------------|
/// | 0         | draw (also unused index slots)            |
/// | 1..=128   | loss in `2 * (byte - 1)` plies (0..=254)  |
/// | 129..=255 | win in `2 * (byte - 129) + 1` plies (1..=253) |
///
/// A win always takes an odd number of plies and a loss an even number, so every mate up to 254
/// plies either way has a code. Every byte decodes to some value, so a table's payload can hold
/// no invalid entry.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Value(u8);

impl Value {
    /// A draw.
    pub const DRAW: Value = Value(0);
    /// The side to move is checkmated.
    pub const MATED: Value = Value(1);

    /// The value stored as `byte`.
    pub const fn from_byte(byte: u8) -> Value {
        Value(byte)
    }

    /// The byte this value is stored as.
    pub const fn to_byte(self) -> u8 {
        self.0
    }

    /// A loss in `plies` (even, at most 254); `None` when not representable.
    pub const fn loss(plies: u32) -> Option<Value> {
        if plies.is_multiple_of(2) && plies <= 254 {
            Some(Value(1 + (plies / 2) as u8))
        } else {
            None
        }
    }

    /// A win in `plies` (odd, at most 253); `None` when not representable.
    pub const fn win(plies: u32) -> Option<Value> {
        if plies % 2 == 1 && plies <= 253 {
            Some(Value(129 + (plies / 2) as u8))
        } else {
            None
        }
    }

    /// Win, draw or loss.
    pub const fn wdl(self) -> Wdl {
        match self.0 {
            0 => Wdl::Draw,
            1..=128 => Wdl::Loss,
            _ => Wdl::Win,
        }
    }

    /// Plies to mate (0 for draws and for a checkmated side to move).
    pub const fn plies(self) -> u32 {
        match self.0 {
            0 => 0,
            1..=128 => 2 * (self.0 as u32 - 1),
            _ => 2 * (self.0 as u32 - 129) + 1,
        }
    }

    /// The value of a move for the mover, given the value of the position it leads to (for the
    /// opponent, who is then to move). `None` when the mate would be longer than a byte holds.
    pub const fn from_child(child: Value) -> Option<Value> {
        match child.wdl() {
            Wdl::Draw => Some(Value::DRAW),
            Wdl::Win => Value::loss(child.plies() + 1),
            Wdl::Loss => Value::win(child.plies() + 1),
        }
    }

    /// A number that orders values from the side to move's point of view: faster wins highest,
    /// then slower wins, draws, longer losses, and faster losses lowest.
    pub const fn rank(self) -> i32 {
        match self.wdl() {
            Wdl::Win => 1000 - self.plies() as i32,
            Wdl::Draw => 0,
            Wdl::Loss => -1000 + self.plies() as i32,
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
        assert_eq!(Value::win(255), None);
        assert_eq!(Value::loss(3), None);
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
