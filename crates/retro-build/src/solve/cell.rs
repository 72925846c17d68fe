//! An entry's two-byte cell during the solve: a counter and the longest losing exit while
//! undecided, the value once decided.

use retro_tables::Value;

/// Added to a counter when the position has a non-losing exit, so it never reaches zero.
pub(super) const CANT_LOSE: u8 = 128;

/// The low byte of a decided entry's cell (no counter takes this value: see `MAX_KEYS`).
pub(super) const DECIDED: u8 = 0xFF;

/// A decided entry's cell: its value in the high byte, `DECIDED` in the low byte. The solve
/// only makes values one byte holds (`Value::byte_win`, `byte_loss`, `byte_from_child`).
#[inline]
pub(super) const fn decided_cell(v: Value) -> u16 {
    ((v.to_planes().0 as u16) << 8) | DECIDED as u16
}

/// An undecided entry's cell: half the plies of its longest losing exit in the high byte (0
/// when it cannot lose), its counter in the low byte.
#[inline]
pub(super) const fn open_cell(half_exit_loss: u8, counter: u8) -> u16 {
    ((half_exit_loss as u16) << 8) | counter as u16
}

/// Whether a cell holds a decided entry.
#[inline]
pub(super) const fn is_decided(cell: u16) -> bool {
    cell & 0xFF == DECIDED as u16
}

/// The value of a cell: a draw while undecided.
#[inline]
pub(super) const fn cell_value(cell: u16) -> Value {
    if is_decided(cell) {
        Value::from_byte((cell >> 8) as u8)
    } else {
        Value::DRAW
    }
}
