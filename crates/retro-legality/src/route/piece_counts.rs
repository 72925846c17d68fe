//! The pieces of a route's waypoints: per side and kernel type, the pieces left after each
//! kernel move, with each promotion typed so that the pieces that last are the goal's, and the
//! pawns that promote after the last capture.

use shakmaty::{Board, ByColor, Color, Piece, Role};

use super::{promotion_square, Counts, START_COUNTS};
use crate::{
    kernel,
    kernel_move::{ByKernelPiece, KernelMove, KernelPiece, Landing, Target},
    position::RawPosition,
    rows::{self, Slot},
};

/// A promotion of the kernel: its side, its file, and whether it is taken later.
struct Promotion {
    side: Color,
    file: u8,
    taken: bool,
}

/// The goal's pieces per side and kernel type that the kernel leaves to promotions after the
/// last capture.
pub(super) type Extra = ByColor<ByKernelPiece<i16>>;

/// The pieces of each side and kernel type after each kernel move, and the goal's pieces left
/// to later promotions. Promoted pieces that are taken later count as queens; those that last
/// are typed as the goal's pieces beyond the original ones left (bishops by the colour of their
/// promotion square). `None` when they cannot be.
pub(super) fn piece_counts(
    goal: &RawPosition,
    kernel: &[KernelMove],
) -> Option<(Vec<ByColor<Counts>>, Extra)> {
    // The promotions in order, and per move which one it makes and which it takes.
    let mut promotions: Vec<Promotion> = Vec::new();
    let mut made: Vec<Option<usize>> = Vec::with_capacity(kernel.len());
    let mut taken: Vec<Option<usize>> = Vec::with_capacity(kernel.len());
    for m in kernel {
        let mut took = None;
        if let Target::Promoted(p) = m.target {
            let i = promotions
                .iter()
                .position(|q| q.side == !m.side && q.file == p && !q.taken)?;
            promotions[i].taken = true;
            took = Some(i);
        }
        let file = match (m.target, m.landing, m.pawn) {
            (_, Some(Landing::Promotes(g)), _) => Some(g),
            (Target::Nothing, _, Some((f, _))) => Some(f),
            _ => None,
        };
        made.push(file.map(|file| {
            promotions.push(Promotion {
                side: m.side,
                file,
                taken: false,
            });
            promotions.len() - 1
        }));
        taken.push(took);
    }
    // The originals taken, and so the goal's extra pieces per type.
    let mut extra = ByColor::new_with(|c| {
        let have = goal_counts(&goal.board, c);
        have.map(i16::from)
    });
    for m in kernel {
        if let Target::Piece(t) = m.target {
            extra[!m.side][t] += 1;
        }
    }
    for c in Color::ALL {
        for (e, &s) in extra[c].iter_mut().zip(START_COUNTS.iter()) {
            *e -= i16::from(s);
        }
    }
    let mut types: Vec<KernelPiece> = vec![KernelPiece::Queen; promotions.len()];
    for (t, p) in types.iter_mut().zip(&promotions) {
        if !p.taken {
            *t = promotion_type(&mut extra, p.side, p.file, goal)?;
        }
    }
    // The walk.
    let mut counts = ByColor::new_with(|_| START_COUNTS);
    let mut out = Vec::with_capacity(kernel.len());
    for (k, m) in kernel.iter().enumerate() {
        if let Target::Piece(t) = m.target {
            let n = &mut counts[!m.side][t];
            *n = n.checked_sub(1)?;
        }
        if let Some(i) = taken[k] {
            let n = &mut counts[!m.side][types[i]];
            *n = n.checked_sub(1)?;
        }
        if let Some(i) = made[k] {
            counts[m.side][types[i]] += 1;
        }
        out.push(counts);
    }
    Some((out, extra))
}

/// The promotion type for a pawn of `side` promoting on `file`, taken from `extra`: a bishop of
/// the square's colour where one is wanted, else a queen, rook or knight. No bishop where it
/// would be shut in for good (see [`kernel::traps_bishop`]) unless `goal` has it there.
pub(super) fn promotion_type(
    extra: &mut Extra,
    side: Color,
    file: u8,
    goal: &RawPosition,
) -> Option<KernelPiece> {
    let light = kernel::promotes_on_light(side, usize::from(file));
    let bishop = if light {
        KernelPiece::LightBishop
    } else {
        KernelPiece::DarkBishop
    };
    let square = promotion_square(side, file);
    let trapped = kernel::traps_bishop(goal, side, usize::from(file))
        && goal.board.piece_at(square)
            != Some(Piece {
                color: side,
                role: Role::Bishop,
            });
    let t = [
        bishop,
        KernelPiece::Queen,
        KernelPiece::Rook,
        KernelPiece::Knight,
    ]
    .into_iter()
    .filter(|&t| t != bishop || !trapped)
    .find(|&t| extra[side][t] > 0)?;
    extra[side][t] -= 1;
    Some(t)
}

/// The pawns of `slots` that promote after the last capture, one file at a time: where a file
/// holds more pawns than the goal's, black ones at the bottom and white ones at the top go (the
/// first way of lining the rest up with the goal's pawns, [`rows::line_ups`]).
pub(super) fn end_promotions(slots: &[Slot], goal: &RawPosition) -> Vec<Slot> {
    let goal_cols = rows::pawns(goal);
    let mut out = Vec::new();
    for (f, want) in (0..8u8).zip(&goal_cols) {
        let mut have: Vec<Slot> = slots.iter().copied().filter(|s| s.file == f).collect();
        // Bottom up, by the rank each pawn stands on now.
        have.sort_by_key(|s| s.color.fold_wb(s.low, s.high));
        if want.len() >= have.len() {
            continue;
        }
        let colors: Vec<Color> = have.iter().map(|s| s.color).collect();
        let shift = rows::line_ups(have.len(), move |i| colors[i], want).next();
        if let Some(s) = shift {
            out.extend_from_slice(&have[..s]);
            out.extend_from_slice(&have[s + want.len()..]);
        }
    }
    out
}

/// `c`'s pieces on `board` per kernel type.
pub(super) fn goal_counts(board: &Board, c: Color) -> Counts {
    let mut n = Counts::default();
    for sq in board.by_color(c) {
        if let Some(t) = board.role_at(sq).and_then(|r| KernelPiece::of(r, sq)) {
            n[t] += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use shakmaty::{ByColor, Color};

    use super::*;

    #[test]
    fn no_bishop_is_promoted_where_it_is_shut_in_for_good() {
        // Black's b7 pawn never moved: a white bishop promoted on a8 never gets out, one on c8
        // does by d7.
        let goal = RawPosition::from_fen("4k3/1p6/8/8/8/8/8/4K3 w - - 0 1").expect("goal");
        let mut extra: Extra = ByColor::new_with(|_| ByKernelPiece::default());
        extra.white[KernelPiece::LightBishop] = 1;
        extra.white[KernelPiece::Knight] = 1;
        assert_eq!(
            promotion_type(&mut extra, Color::White, 0, &goal),
            Some(KernelPiece::Knight)
        );
        assert_eq!(
            promotion_type(&mut extra, Color::White, 2, &goal),
            Some(KernelPiece::LightBishop)
        );
        // Only the bishop wanted: a8 cannot give it.
        let mut extra: Extra = ByColor::new_with(|_| ByKernelPiece::default());
        extra.white[KernelPiece::LightBishop] = 1;
        assert_eq!(promotion_type(&mut extra, Color::White, 0, &goal), None);
        // Unless the goal has that bishop on a8.
        let goal = RawPosition::from_fen("B3k3/1p6/8/8/8/8/8/4K3 w - - 0 1").expect("goal");
        assert_eq!(
            promotion_type(&mut extra, Color::White, 0, &goal),
            Some(KernelPiece::LightBishop)
        );
    }
}
