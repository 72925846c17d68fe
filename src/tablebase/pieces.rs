//! Small piece lists: squares in slot order with their colours and roles, attack tests on them,
//! and the conversion of any piece list to the slot order of a table.

use shakmaty::{attacks, Bitboard, Board, Color, Role, Square};

use super::{
    index::Squares,
    material::{Material, MAX_PIECES},
};

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

/// Pieces of a board; `None` if there are more than [`MAX_PIECES`].
pub fn pieces_of_board(board: &Board) -> Option<PieceList> {
    let mut out = PieceList::new();
    for sq in board.occupied() {
        let p = board.piece_at(sq)?;
        if !out.push((p.color, p.role, sq as u8)) {
            return None;
        }
    }
    Some(out)
}

/// Material of a piece list; `None` unless each side has exactly one king.
pub fn material_of(pieces: &[Piece]) -> Option<Material> {
    let mut counts = [[0u8; 5]; 2];
    let mut kings = [0; 2];
    for &(color, role, _) in pieces {
        let c = usize::from(color == Color::Black);
        match super::material::role_slot(role) {
            Some(slot) => counts[c][slot] += 1,
            None => kings[c] += 1,
        }
    }
    (kings == [1, 1]).then(|| Material::from_counts(counts[0], counts[1]))
}

/// Arranges `pieces` (of material `material`, in the orientation given) into the slot order of
/// `slots`, flipping colours and ranks when `swap` is set. `None` if they do not fit.
pub fn to_slots(pieces: &[Piece], slots: &[(Color, Role)], swap: bool) -> Option<Squares> {
    let mut sq = [0u8; MAX_PIECES];
    let mut used = [false; MAX_PIECES];
    if pieces.len() != slots.len() {
        return None;
    }
    for (i, &(color, role)) in slots.iter().enumerate() {
        let mut found = false;
        for (j, &(c, r, s)) in pieces.iter().enumerate() {
            let (c, s) = if swap { (c.other(), s ^ 56) } else { (c, s) };
            if !used[j] && c == color && r == role {
                used[j] = true;
                sq[i] = s;
                found = true;
                break;
            }
        }
        if !found {
            return None;
        }
    }
    Some(sq)
}
