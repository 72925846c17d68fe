//! Distances of pieces around walls: the pawns and fixed pieces of a position, which the
//! relaxed problem's empty-board distances ignore. A proof game search's non-admissible
//! estimates add what the walls cost ([`route`](super::route)'s legs,
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

impl Clone for Around {
    /// A clone starts with an empty cache.
    fn clone(&self) -> Around {
        Around::default()
    }
}

impl Around {
    /// `f` of the distances of a `role` piece around `walls` from every square to `to`,
    /// through the cache.
    fn with_row<R>(
        &self,
        role: Role,
        walls: Bitboard,
        to: Square,
        f: impl FnOnce(&[u8; 64]) -> R,
    ) -> R {
        let mut cache = self.cache.borrow_mut();
        if cache.len() >= ENTRIES {
            cache.clear();
        }
        f(cache
            .entry((u64::from(walls), role, to))
            .or_insert_with(|| spread(role, walls, Bitboard::EMPTY, to)))
    }

    /// The moves of a `role` piece (not a pawn) from every square to `to` that neither cross
    /// nor land on `walls` (but `to`), [`FAR`] where there are none.
    pub(super) fn row(&self, role: Role, walls: Bitboard, to: Square) -> [u8; 64] {
        self.with_row(role, walls, to, |row| *row)
    }

    /// The moves of a `role` piece (not a pawn) from `from` to `to` that neither cross nor
    /// land on `walls` (but `to`), `None` when there are none.
    pub(super) fn distance(
        &self,
        role: Role,
        walls: Bitboard,
        from: Square,
        to: Square,
    ) -> Option<u8> {
        self.with_row(role, walls, to, |row| {
            let d = row[usize::from(from)];
            (d != FAR).then_some(d)
        })
    }

    /// The pieces of `occupied` (not `walls`) that a `role` piece from `from` finds in its way
    /// to `to` around `walls` (see [`in_way`]). 0 when there is no way.
    #[cfg(test)]
    pub(super) fn blockers(
        &self,
        role: Role,
        walls: Bitboard,
        occupied: Bitboard,
        from: Square,
        to: Square,
    ) -> u32 {
        self.with_row(role, walls, to, |row| {
            in_way(row, role, walls, occupied, from, to)
        })
    }

    /// [`distance`](Around::distance) plus a move for each piece of `occupied` in the way
    /// (see [`in_way`]), which has to step aside; by one lookup of the cache.
    pub(super) fn distance_past(
        &self,
        role: Role,
        walls: Bitboard,
        occupied: Bitboard,
        from: Square,
        to: Square,
    ) -> Option<u8> {
        self.with_row(role, walls, to, |row| {
            let d = row[usize::from(from)];
            (d != FAR).then(|| {
                let n = in_way(row, role, walls, occupied, from, to);
                d.saturating_add(n.min(u32::from(FAR)) as u8).min(FAR - 1)
            })
        })
    }
}

/// The pieces of `occupied` (not `walls`) that a `role` piece from `from` finds in its way to
/// `to` (`row`: the distances to `to` around `walls`): along a shortest way, at each move the
/// one with the fewest pieces on the squares it crosses or lands on (but `to`). 0 when there is
/// no way.
fn in_way(
    row: &[u8; 64],
    role: Role,
    walls: Bitboard,
    occupied: Bitboard,
    from: Square,
    to: Square,
) -> u32 {
    let piece = Piece {
        color: Color::White,
        role,
    };
    let in_way = occupied & !walls & !Bitboard::from_square(to);
    let mut at = from;
    let mut total = 0;
    while at != to {
        let d = row[usize::from(at)];
        if d == FAR || d == 0 {
            return 0;
        }
        let Some((n, next)) = (attacks::attacks(at, piece, walls) & !walls)
            .into_iter()
            .filter(|&t| row[usize::from(t)] == d - 1)
            .map(|t| (((attacks::between(at, t) | t) & in_way).count(), t))
            .min_by_key(|&(n, _)| n)
        else {
            return 0;
        };
        total += n as u32;
        at = next;
    }
    total
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
        // Pieces in the way cost a move each: the rook on a1 goes to d4 around the a2 wall
        // by d1 alone (a1-d1-d4), crossing b1, c1 and d3.
        let occupied = Bitboard::from_square(Square::B1)
            | Bitboard::from_square(Square::C1)
            | Bitboard::from_square(Square::D3);
        assert_eq!(
            around.blockers(Role::Rook, a2, occupied, Square::A1, Square::D4),
            3
        );
        // Of two shortest ways the one with fewer pieces: a1-a8-h8 (a5) rather than a1-h1-h8
        // (b1, c1).
        let occupied = Bitboard::from_square(Square::B1)
            | Bitboard::from_square(Square::C1)
            | Bitboard::from_square(Square::A5);
        assert_eq!(
            around.blockers(
                Role::Rook,
                Bitboard::EMPTY,
                occupied,
                Square::A1,
                Square::H8
            ),
            1
        );
        // A piece on the target square itself is not counted (it is the one taken, or the
        // capture's own business).
        let occupied = Bitboard::from_square(Square::E3) | Bitboard::from_square(Square::F4);
        assert_eq!(
            around.blockers(
                Role::Bishop,
                Bitboard::EMPTY,
                occupied,
                Square::C1,
                Square::F4
            ),
            1
        );
        // A knight jumps over walls.
        assert_eq!(
            around.distance(Role::Knight, walls, Square::A1, Square::C2),
            Some(1)
        );
    }
}
