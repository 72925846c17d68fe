//! The nodes of the retrograde passes as integers: an entry, its side to move and an en
//! passant file in one `u64` (an `Item`), and a seed of the init pass with its depth.

use shakmaty::Color;

use crate::kernel::{king_slot, side_of_bit};

/// A decided node: entry index, side to move (bit 40) and, for an en passant node, the file of
/// the pawn that can be taken plus one (bits 41..45).
pub(super) type Item = u64;

pub(super) const fn item(idx: u64, side: Color, ep: u8) -> Item {
    idx | ((king_slot(side) as u64) << 40) | ((ep as u64) << 41)
}

pub(super) const fn item_idx(it: Item) -> u64 {
    it & ((1 << 40) - 1)
}

pub(super) const fn item_side(it: Item) -> Color {
    side_of_bit(it >> 40)
}

pub(super) const fn item_ep(it: Item) -> u8 {
    ((it >> 41) & 15) as u8
}

/// A seed while the init pass runs: the item of entry `idx` (below 2^31) and side, with the
/// depth in bits 48...
#[inline]
pub(super) fn seed(plies: u32, idx: u64, side: Color) -> u64 {
    (u64::from(plies) << 48) | item(idx, side, 0)
}

/// A seed as kept in its depth's bucket: the entry, and the side in bit 31.
#[inline]
pub(super) fn seed32(p: u64) -> u32 {
    (item_idx(p & ((1 << 48) - 1)) as u32 & 0x7FFF_FFFF) | ((king_slot(item_side(p)) as u32) << 31)
}

/// The item of a bucketed seed.
#[inline]
pub(super) fn item_of_seed(s: u32) -> Item {
    item(
        u64::from(s & 0x7FFF_FFFF),
        side_of_bit(u64::from(s >> 31)),
        0,
    )
}
