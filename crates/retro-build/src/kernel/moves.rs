//! Forward moves: a position's legal moves as target squares per piece, checks and pins
//! computed once (the init passes of every solver generate them for every entry).

use shakmaty::{attacks, Color, Role};

use super::king_slot;
use retro_tables::{
    index::Squares,
    pieces::{attacks_from, occupancy, square},
    MAX_PIECES,
};

/// The legal moves of one side in a position, as target squares per piece.
pub(crate) struct LegalTargets {
    /// Per slot, the squares its piece may legally move to (none for the other side's pieces):
    /// quiet moves, captures (never of the king) and, for a pawn, pushes and promotions.
    pub(crate) targets: [u64; MAX_PIECES],
    /// Per slot of a pawn, the square of its double push when legal.
    pub(crate) double: [u64; MAX_PIECES],
    /// The occupied squares.
    pub(crate) occ: u64,
}

impl LegalTargets {
    /// No moves, to be filled by [`legal_targets`].
    pub(crate) const fn new() -> LegalTargets {
        LegalTargets {
            targets: [0; MAX_PIECES],
            double: [0; MAX_PIECES],
            occ: 0,
        }
    }
}

/// The legal moves of `side` (0 white) in `sq` (pieces `slots`, `n` of them), without en
/// passant, into `out`; `false` when the position is no legal one (the king of the side not to
/// move is attacked; `out` is then left partly filled). Checks and pins are computed once, so
/// no move is tried and taken back. `out` belongs to the caller so that nothing is returned by
/// value: the init passes call this for every entry.
#[inline(always)]
pub(crate) fn legal_targets(
    slots: &[(Color, Role)],
    sq: &Squares,
    n: usize,
    side: Color,
    out: &mut LegalTargets,
) -> bool {
    let me = side;
    let occ = occupancy(sq, n);
    let their_king = 1u64 << sq[king_slot(side.other())];
    let mut own = 0u64;
    let mut own_attacks = [0u64; MAX_PIECES];
    for i in 0..n {
        let (c, r) = slots[i];
        if c == me {
            own |= 1u64 << sq[i];
            let a = attacks_from(c, r, sq[i], occ);
            if a & their_king != 0 {
                return false;
            }
            own_attacks[i] = a;
        }
    }
    let king = king_slot(side);
    let ksq = sq[king];
    let kbit = 1u64 << ksq;
    // Squares the enemy attacks with our king lifted, and pinned pieces with their lines.
    let mut danger = 0u64;
    let mut pinned = 0u64;
    let mut pin_lines = [0u64; MAX_PIECES];
    // The squares a move other than the king's must reach when in check: the checker's, or
    // one between it and the king; none in double check.
    let mut evasions = !0u64;
    let mut checkers = 0u32;
    for j in 0..n {
        let (c, r) = slots[j];
        if c == me {
            continue;
        }
        // With the king lifted, a piece attacks its square exactly when it gives check.
        let a = attacks_from(c, r, sq[j], occ & !kbit);
        danger |= a;
        let (ks, js) = (square(ksq), square(sq[j]));
        if a & kbit != 0 {
            checkers += 1;
            evasions = if checkers == 1 {
                (1u64 << sq[j]) | attacks::between(ks, js).0
            } else {
                0
            };
        }
        let lines = match r {
            Role::Rook => ks.file() == js.file() || ks.rank() == js.rank(),
            Role::Bishop => ks.file() != js.file() && ks.rank() != js.rank(),
            Role::Queen => true,
            _ => false,
        };
        if lines && attacks::ray(ks, js).any() {
            let between = attacks::between(ks, js).0;
            let blockers = between & occ;
            if blockers.count_ones() == 1 && blockers & own != 0 {
                pinned |= blockers;
                let slot = (0..n).find(|&k| sq[k] == blockers.trailing_zeros() as u8);
                if let Some(k) = slot {
                    pin_lines[k] = between | (1u64 << sq[j]);
                }
            }
        }
    }
    out.occ = occ;
    for i in 0..n {
        let (c, role) = slots[i];
        if c != me {
            out.targets[i] = 0;
            out.double[i] = 0;
            continue;
        }
        let from = sq[i];
        let mut targets;
        let mut double = 0u64;
        if role == Role::Pawn {
            let (fwd, start_rank): (i8, u8) = if side.is_white() { (8, 1) } else { (-8, 6) };
            let one = (from as i8 + fwd) as u8;
            targets = own_attacks[i] & occ & !own;
            if occ & (1u64 << one) == 0 {
                targets |= 1u64 << one;
                if from >> 3 == start_rank {
                    let two = (one as i8 + fwd) as u8;
                    if occ & (1u64 << two) == 0 {
                        double = 1u64 << two;
                        targets |= double;
                    }
                }
            }
        } else {
            targets = own_attacks[i] & !own;
        }
        if i == king {
            targets &= !danger;
        } else {
            targets &= evasions;
            if pinned & (1u64 << from) != 0 {
                targets &= pin_lines[i];
            }
        }
        out.targets[i] = targets;
        out.double[i] = double & targets;
    }
    true
}
