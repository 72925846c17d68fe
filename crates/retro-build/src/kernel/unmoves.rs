//! Un-moves: where the pieces of the side that moved last may have come from, as far as the
//! king of the side to move allows.

use shakmaty::{attacks, Color, Role};

use super::king_slot;
use retro_tables::{
    index::Squares,
    pieces::{attacks_from, square},
    MAX_PIECES,
};

/// Squares the piece in slot `i` (of the side not to move in `sq`) may have come from
/// without leaving the king of `side` (to move in `sq`) in check before its move: not a square
/// from which it attacks that king itself, and within `discovered[i]` (see
/// `discovery_masks`).
pub(crate) fn legal_origins(
    slots: &[(Color, Role)],
    sq: &Squares,
    occ: u64,
    side: Color,
    i: usize,
    discovered: &[u64; MAX_PIECES],
) -> u64 {
    let ksq = sq[king_slot(side)];
    let (ic, ir) = slots[i];
    let lifted = occ & !(1u64 << sq[i]);
    // A piece of role `ir` on any of these squares would attack the king.
    let attackers = if ir == Role::Pawn {
        attacks_from(side, Role::Pawn, ksq, lifted)
    } else {
        attacks_from(ic.other(), ir, ksq, lifted)
    };
    !attackers & discovered[i]
}

/// For each piece of the side not to move in `sq`, the squares it may have come from as far
/// as the other pieces of its side go: where one of them attacks the king of `side` once
/// that piece is lifted, the piece must have blocked the attack, from a square between
/// them (there is none for a knight, pawn or king). Computed once per node for all pieces:
/// a slider attacks the king with one piece lifted only if that piece is the one blocker
/// between them, or there is none.
pub(crate) fn discovery_masks(
    slots: &[(Color, Role)],
    n: usize,
    sq: &Squares,
    occ: u64,
    side: Color,
) -> [u64; MAX_PIECES] {
    let ksq = sq[king_slot(side)];
    let mover = side.other();
    let mut masks = [!0u64; MAX_PIECES];
    for j in 0..n {
        let (c, r) = slots[j];
        // On an empty board, does this piece reach the king's square at all?
        if c != mover || attacks_from(c, r, sq[j], 0) & (1u64 << ksq) == 0 {
            continue;
        }
        let line = match r {
            Role::Bishop | Role::Rook | Role::Queen => {
                attacks::between(square(sq[j]), square(ksq)).0
            }
            _ => 0,
        };
        let blockers = line & occ;
        if blockers == 0 {
            for (i, m) in masks.iter_mut().enumerate().take(n) {
                if i != j && slots[i].0 == mover {
                    *m &= line;
                }
            }
        } else if blockers.count_ones() == 1 {
            let b = blockers.trailing_zeros() as u8;
            if let Some(i) = (0..n).find(|&i| sq[i] == b && slots[i].0 == mover) {
                masks[i] &= line;
            }
        }
    }
    masks
}
