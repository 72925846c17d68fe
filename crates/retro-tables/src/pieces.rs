//! Small piece lists: squares in slot order with their colours and roles, attack tests on them,
//! and the conversion of any piece list to the slot order of a table.

use shakmaty::{attacks, Bitboard, Board, Color, Role, Square};

use super::{index::Squares, material::MAX_PIECES};

/// A square as shakmaty's type (the caller guarantees `sq < 64`).
#[inline]
pub fn square(sq: u8) -> Square {
    Square::new(u32::from(sq & 63))
}

/// Squares attacked by a piece of `color` and `role` on `sq` with `occ` occupied.
#[inline]
pub fn attacks_from(color: Color, role: Role, sq: u8, occ: u64) -> u64 {
    let s = square(sq);
    let occ = Bitboard(occ);
    let bb = match role {
        Role::Pawn => attacks::pawn_attacks(color, s),
        Role::Knight => attacks::knight_attacks(s),
        Role::Bishop => attacks::bishop_attacks(s, occ),
        Role::Rook => attacks::rook_attacks(s, occ),
        Role::Queen => attacks::queen_attacks(s, occ),
        Role::King => attacks::king_attacks(s),
    };
    bb.0
}

/// Whether a piece of `by` (among `slots[..n]` at `sq`, skipping slot `skip`) attacks `target`.
#[inline]
pub fn attacked(
    slots: &[(Color, Role)],
    sq: &Squares,
    target: u8,
    by: Color,
    occ: u64,
    skip: usize,
) -> bool {
    for (i, &(color, role)) in slots.iter().enumerate() {
        if color == by && i != skip && attacks_from(color, role, sq[i], occ) & (1u64 << target) != 0
        {
            return true;
        }
    }
    false
}

/// Occupied squares of `sq[..n]`.
#[inline]
pub fn occupancy(sq: &Squares, n: usize) -> u64 {
    sq[..n].iter().fold(0u64, |acc, &s| acc | (1u64 << s))
}

/// A piece: colour, role and square.
pub type Piece = (Color, Role, u8);

/// Up to [`MAX_PIECES`] pieces, without allocation.
#[derive(Clone, Copy, Debug)]
pub struct PieceList {
    items: [Piece; MAX_PIECES],
    len: usize,
}

impl PieceList {
    /// No pieces.
    pub const fn new() -> PieceList {
        PieceList {
            items: [(Color::White, Role::King, 0); MAX_PIECES],
            len: 0,
        }
    }

    /// Adds a piece; `false` (and nothing added) when full.
    pub fn push(&mut self, p: Piece) -> bool {
        if self.len == MAX_PIECES {
            return false;
        }
        self.items[self.len] = p;
        self.len += 1;
        true
    }

    /// The pieces.
    pub fn as_slice(&self) -> &[Piece] {
        &self.items[..self.len]
    }
}

impl Default for PieceList {
    fn default() -> PieceList {
        PieceList::new()
    }
}

/// Pieces of a board, in table slot order (kings, then each side's pieces strongest first);
/// `None` if there are more than [`MAX_PIECES`].
#[inline]
pub fn pieces_of_board(board: &Board) -> Option<PieceList> {
    if board.occupied().count() > MAX_PIECES {
        return None;
    }
    let mut out = PieceList::new();
    for color in Color::ALL {
        if let Some(k) = board.king_of(color) {
            out.push((color, Role::King, k as u8));
        }
    }
    for color in Color::ALL {
        let mine = board.by_color(color);
        for role in [
            Role::Queen,
            Role::Rook,
            Role::Bishop,
            Role::Knight,
            Role::Pawn,
        ] {
            for sq in mine & board.by_role(role) {
                out.push((color, role, sq as u8));
            }
        }
    }
    Some(out)
}

/// Order of a piece in table slots: white king, black king, then the other white pieces and
/// the other black pieces, each queen, rook, bishop, knight, pawn.
#[inline]
pub fn slot_key(color: Color, role: Role) -> u8 {
    let r = match role {
        Role::King => return u8::from(color == Color::Black),
        Role::Queen => 0,
        Role::Rook => 1,
        Role::Bishop => 2,
        Role::Knight => 3,
        Role::Pawn => 4,
    };
    if color == Color::White {
        2 + r
    } else {
        8 + r
    }
}

/// Arranges `pieces` into the slot order of `slots` (which must be in table order, as
/// [`Material::slots`](crate::Material::slots) gives), flipping colours and ranks when `swap` is set. `None` if they do
/// not fit.
#[inline]
pub fn to_slots(pieces: &[Piece], slots: &[(Color, Role)], swap: bool) -> Option<Squares> {
    let n = pieces.len();
    if n != slots.len() || n > MAX_PIECES {
        return None;
    }
    let mut keys = [0u8; MAX_PIECES];
    let mut sq = [0u8; MAX_PIECES];
    for (i, &(c, r, s)) in pieces.iter().enumerate() {
        let (c, s) = if swap { (c.other(), s ^ 56) } else { (c, s) };
        // Insertion sort by slot key.
        let k = slot_key(c, r);
        let mut j = i;
        while j > 0 && keys[j - 1] > k {
            keys[j] = keys[j - 1];
            sq[j] = sq[j - 1];
            j -= 1;
        }
        keys[j] = k;
        sq[j] = s;
    }
    for (i, &(c, r)) in slots.iter().enumerate() {
        if keys[i] != slot_key(c, r) {
            return None;
        }
    }
    Some(sq)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Material;

    #[test]
    fn slot_order_matches_material() {
        for name in ["KQvKR", "KRPvKB", "KPvKP", "KNNvKQ", "KBvKQR"] {
            let m: Material = name.parse().expect("material");
            let slots = m.slots();
            let keys: Vec<u8> = slots.iter().map(|&(c, r)| slot_key(c, r)).collect();
            assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{name}: {keys:?}");
            // Pieces in reverse order land in slot order.
            let pieces: Vec<Piece> = slots
                .iter()
                .enumerate()
                .rev()
                .map(|(i, &(c, r))| (c, r, 8 + i as u8))
                .collect();
            let sq = to_slots(&pieces, &slots, false).expect("fits");
            for (i, &(c, r)) in slots.iter().enumerate() {
                let p = pieces.iter().find(|p| p.2 == sq[i]).expect("square");
                assert_eq!((p.0, p.1), (c, r), "{name} slot {i}");
            }
        }
    }
}
