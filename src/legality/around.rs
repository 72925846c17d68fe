//! Distances of pieces around walls: the pawns and fixed pieces of a position, which the
//! relaxed problem's empty-board distances ignore. A proof game search's non-admissible
//! estimates add what the walls cost ([`waypoint`](super::waypoint),
//! [`unblock`](super::unblock)).

use std::cell::RefCell;

use rustc_hash::FxHashMap;
use shakmaty::{attacks, Bitboard, Color, Piece, Role, Square};

use super::heuristic::FAR;

/// Moves a piece needs beyond its empty-board distance when the walls shut it off from where
/// it must go: some pawn has to move first.
pub(super) const SHUT_IN: u8 = 4;

/// Entries of an [`Around`] cache before it is emptied.
const ENTRIES: usize = 1 << 14;

/// Distances around walls, cached per walls, role and square: pawns move seldom, so that the
/// children of a position share theirs.
#[derive(Default)]
pub(super) struct Around {
    cache: RefCell<FxHashMap<(u64, Role, Square), [u8; 64]>>,
}

impl Around {
    /// The moves of a `role` piece (not a pawn) from `from` to `to` that neither cross nor
    /// land on `walls` (but `to`), `None` when there are none.
    pub(super) fn distance(
        &self,
        role: Role,
        walls: Bitboard,
        from: Square,
        to: Square,
    ) -> Option<u8> {
        let mut cache = self.cache.borrow_mut();
        if cache.len() >= ENTRIES {
            cache.clear();
        }
        let row = cache
            .entry((u64::from(walls), role, to))
            .or_insert_with(|| spread(role, walls, Bitboard::EMPTY, to));
        let d = row[usize::from(from)];
        (d != FAR).then_some(d)
    }
}

/// The moves of a `role` piece (not a pawn) between `from` and every square around `walls`
/// (a king also around `avoid`), by a breadth-first search from `from`: a piece's moves go
/// both ways, so these are also the distances from every square to `from`.
pub(super) fn spread(role: Role, walls: Bitboard, avoid: Bitboard, from: Square) -> [u8; 64] {
    let mut row = [FAR; 64];
    row[usize::from(from)] = 0;
    let piece = Piece {
        color: Color::White,
        role,
    };
    let mut frontier = Bitboard::from_square(from);
    let mut seen = frontier;
    let mut d = 0u8;
    while !frontier.is_empty() {
        d += 1;
        let mut next = Bitboard::EMPTY;
        for sq in frontier {
            next |= attacks::attacks(sq, piece, walls);
        }
        next &= !seen & !walls & !avoid;
        for sq in next {
            row[usize::from(sq)] = d;
        }
        seen |= next;
        frontier = next;
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rook_walks_around_a_wall_and_a_shut_in_one_gets_nowhere() {
        let around = Around::default();
        // Pawns on a2, b2 and b1: the rook on a1 is shut in.
        let walls = Bitboard::from_square(Square::A2)
            | Bitboard::from_square(Square::B2)
            | Bitboard::from_square(Square::B1);
        assert_eq!(
            around.distance(Role::Rook, walls, Square::A1, Square::D4),
            None
        );
        // A wall on a2 alone: a1-a4 becomes a detour over the b file (a1-b1-b4-a4).
        let a2 = Bitboard::from_square(Square::A2);
        assert_eq!(
            around.distance(Role::Rook, a2, Square::A1, Square::A4),
            Some(3)
        );
        assert_eq!(
            around.distance(Role::Rook, Bitboard::EMPTY, Square::A1, Square::A4),
            Some(1)
        );
        // A knight jumps over walls.
        assert_eq!(
            around.distance(Role::Knight, walls, Square::A1, Square::C2),
            Some(1)
        );
    }
}
