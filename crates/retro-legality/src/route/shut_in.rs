//! Pieces that pawns shut in at home: whether a route's waypoint can be reached with them (a
//! victim that cannot get to its capture's square, a promotion square a bishop never leaves),
//! and letting such a piece out by moving a pawn forward earlier than the plan does.

use shakmaty::{Bitboard, ByColor, Color, File, Rank, Square};

use super::{Capture, Waypoint, START_COUNTS};
use crate::{kernel_move::KernelPiece, position::RawPosition, rows::Slot};

/// Per colour, the home squares of its bishops that pawns shut in up to waypoint `k`: both
/// squares in front of such a square hold a pawn, of either side, at every waypoint up to `k`
/// (a slot of that rank alone: a pawn at home since the start, or one that came by taking the
/// one there, or was taken there), so that a bishop still at home cannot have left it by then.
fn shut_in_bishops(waypoints: &[Waypoint], k: usize) -> ByColor<Bitboard> {
    let held_in = |w: &Waypoint| -> Bitboard {
        Color::ALL
            .into_iter()
            .flat_map(|c| w.pawns[c].iter())
            .filter(|s| s.low == s.high && (2..=7).contains(&s.low))
            .map(|s| {
                let rank = Rank::new(u32::from(s.low - 1));
                Square::from_coords(File::new(u32::from(s.file)), rank)
            })
            .collect()
    };
    let held = waypoints
        .iter()
        .take(k + 1)
        .fold(Bitboard::FULL, |b, w| b & held_in(w));
    ByColor::new_with(|c| {
        let home = c.fold_wb(Rank::First, Rank::Eighth);
        let front = c.fold_wb(Rank::Second, Rank::Seventh);
        [(File::C, File::B, File::D), (File::F, File::E, File::G)]
            .into_iter()
            .filter(|&(_, l, r)| {
                held.contains(Square::from_coords(l, front))
                    && held.contains(Square::from_coords(r, front))
            })
            .map(|(f, _, _)| Square::from_coords(f, home))
            .collect()
    })
}

/// Whether waypoint `w` has a pawn give check, for good, to a king that never moves (it keeps
/// a castling right in the `goal`): an enemy pawn fixed on the square beside the king's file
/// in front of it (d7 or f7 against e8), or promoting there without a capture (which passes
/// that square). Such a check can only be answered by taking the pawn, a capture the kernel
/// does not have.
pub(super) fn checks_home_king(w: &Waypoint, goal: &RawPosition) -> bool {
    Color::ALL.into_iter().any(|king| {
        if (goal.castling & Bitboard::from(king.backrank())).is_empty() {
            return false;
        }
        let rank = king.fold_wb(2u8, 7u8);
        let fixed = w.pawns[!king]
            .iter()
            .any(|s| (s.file == 3 || s.file == 5) && s.low == rank && s.high == rank);
        let promotes = w.promotes.is_some_and(|p| {
            p.rank() == king.backrank() && (p.file() == File::D || p.file() == File::F)
        });
        fixed || promotes
    })
}

/// Whether a `c` piece of kernel type `t` (a queen or rook; others always) may have left its
/// back rank by waypoint `k`: at some waypoint up to `k`, a file lets it out, or `c` has
/// promoted (a promoted piece starts outside). A rook leaves by a file whose pawns, of both
/// sides, may all stand two ranks or more ahead of `c`'s back rank, a queen past a pawn of its
/// own beside or in front of its square that has left its start square (or is gone).
fn can_leave(waypoints: &[Waypoint], k: usize, c: Color, t: KernelPiece) -> bool {
    let start = c.fold_wb(2u8, 7u8);
    let open = |w: &Waypoint| match t {
        KernelPiece::Rook => (0..8u8).any(|f| {
            Color::ALL.into_iter().all(|d| {
                w.pawns[d]
                    .iter()
                    .filter(|s| s.file == f)
                    .all(|s| c.fold_wb(s.high >= 4, s.low <= 5))
            })
        }),
        KernelPiece::Queen => (2..5u8).any(|f| {
            !w.pawns[c]
                .iter()
                .any(|s| s.file == f && s.low == start && s.high == start)
        }),
        _ => true,
    };
    let mut had = START_COUNTS;
    for w in waypoints.iter().take(k + 1) {
        if open(w) || w.counts[c].iter().zip(had.iter()).any(|(&n, &h)| n > h) {
            return true;
        }
        had = w.counts[c];
    }
    false
}

/// Whether waypoint `k` of `waypoints` can be reached as far as the pieces shut in at home
/// tell: a capture by a pawn needs a victim that can get to its square, and a promotion
/// without a capture a free promotion square. A bishop counts as still at home when the
/// pawns shut it in and no waypoint before `k` took a bishop of its colour (its side's
/// bishops of that colour never became fewer); a queen or rook when no file let it out by
/// then ([`can_leave`]).
pub(super) fn feasible(waypoints: &[Waypoint], k: usize) -> bool {
    let Some(w) = waypoints.get(k) else {
        return true;
    };
    let before = |c: Color| match k.checked_sub(1).and_then(|j| waypoints.get(j)) {
        Some(v) => v.counts[c],
        None => START_COUNTS,
    };
    let shut = shut_in_bishops(waypoints, k);
    // The type of the bishop at home on `sq`, if it is shut in there and was never taken: no
    // earlier waypoint has fewer pieces of its type than the one before (a promotion adds
    // another, which does not let it out).
    let at_home = |c: Color, sq: Square| {
        let t = KernelPiece::bishop_on(sq);
        let mut had = START_COUNTS[t];
        let kept = waypoints.get(..k).is_some_and(|earlier| {
            earlier.iter().all(|v| {
                let now = v.counts[c][t];
                let kept = now >= had;
                had = now;
                kept
            })
        });
        (shut[c].contains(sq) && kept).then_some(t)
    };
    if let Some(Capture::OnSquare {
        square,
        victim,
        types,
    }) = w.capture
    {
        let have = before(victim);
        let stuck: u8 = shut[victim]
            .into_iter()
            .filter(|&sq| sq != square)
            .filter_map(|sq| at_home(victim, sq))
            .fold(0, |m, t| m | t.bit());
        // A queen or rook that cannot have left its back rank is taken there, if at all.
        let types = if square.rank() == victim.backrank() {
            types
        } else {
            [KernelPiece::Queen, KernelPiece::Rook]
                .into_iter()
                .filter(|&t| !can_leave(waypoints, k, victim, t))
                .fold(types, |types, t| types & !t.bit())
        };
        let possible = KernelPiece::ALL.into_iter().any(|t| {
            types & t.bit() != 0 && have[t] > 0 && !(have[t] == 1 && stuck & t.bit() != 0)
        });
        if !possible {
            return false;
        }
    }
    if let Some(p) = w.promotes {
        if Color::ALL.into_iter().any(|c| at_home(c, p).is_some()) {
            return false;
        }
    }
    true
}

/// Lets a piece that shuts waypoint `k` off ([`feasible`]) out: one of the pawns that shut it
/// in at home steps forward by waypoint `k` instead of later. Such a pawn is one the plan keeps
/// at home only until some later waypoint, or the `goal`, has it go forward anyway; it may not
/// be taken or take anything from home before then, and no pawn may be fixed on the squares in
/// front of it. The pawns tried, in order: where the victim of the waypoint's capture is a queen
/// or rook that cannot have left its back rank ([`can_leave`]), those that let it out (on the
/// queen's file and beside it a step forward; on any file two, the rooks' own first); then
/// those beside a bishop shut in at home (a step). The first that makes waypoint `k` feasible
/// is moved, its slots widened up to where the plan lets it go. `false` when none does.
pub(super) fn release_piece(waypoints: &mut [Waypoint], k: usize, goal: &RawPosition) -> bool {
    let Some(w) = waypoints.get(k) else {
        return false;
    };
    // (side, file, steps forward)
    let mut tries: Vec<(Color, u8, u8)> = Vec::new();
    if let Some(Capture::OnSquare { victim, types, .. }) = w.capture {
        if types & KernelPiece::Queen.bit() != 0
            && !can_leave(waypoints, k, victim, KernelPiece::Queen)
        {
            tries.extend([(victim, 3, 1), (victim, 2, 1), (victim, 4, 1)]);
        }
        if types & KernelPiece::Rook.bit() != 0
            && !can_leave(waypoints, k, victim, KernelPiece::Rook)
        {
            tries.extend([0, 7, 1, 6, 2, 5, 3, 4].map(|f| (victim, f, 2)));
        }
    }
    let shut = shut_in_bishops(waypoints, k);
    for c in Color::ALL {
        for bishop in shut[c] {
            let f = bishop.file() as u8;
            tries.extend([(c, f - 1, 1), (c, f + 1, 1)]);
        }
    }
    for (c, file, steps) in tries {
        let Some(stay) = kept_home(waypoints, k, c, file, steps, goal) else {
            continue;
        };
        let before: Vec<Slot> = stay
            .clone()
            .filter_map(|i| home_slot(waypoints.get(i)?, c, file).copied())
            .collect();
        // No further than the first slot that lets it go forward reaches: pawns never go
        // back.
        let reach = waypoints
            .get(stay.end)
            .and_then(|w| home_slot(w, c, file))
            .map_or(8, |s| c.fold_wb(s.high, 9 - s.low));
        let step = c.fold_wb((2 + steps).min(reach), (7 - steps).max(9 - reach));
        for i in stay.clone() {
            if let Some(s) = waypoints.get_mut(i).and_then(|w| home_slot_mut(w, c, file)) {
                s.low = s.low.min(step);
                s.high = s.high.max(step);
            }
        }
        if feasible(waypoints, k) {
            log::debug!(
                "initial path: the {} pawn of file {} steps forward by waypoint {} to let a piece out",
                c,
                char::from(b'a' + file),
                k + 1
            );
            return true;
        }
        for (i, old) in stay.zip(before) {
            if let Some(s) = waypoints.get_mut(i).and_then(|w| home_slot_mut(w, c, file)) {
                *s = old;
            }
        }
    }
    false
}

/// The waypoints from `k` on where `c`'s pawn of `file` is kept at home though a later
/// waypoint, or the `goal` (after the last waypoint, where no captures are left), lets it go
/// forward; `None` when it is not at home at `k`, leaves its file or is taken while at home,
/// stands at home in the goal, or some pawn is fixed on one of the `steps` squares in front of
/// it meanwhile.
fn kept_home(
    waypoints: &[Waypoint],
    k: usize,
    c: Color,
    file: u8,
    steps: u8,
    goal: &RawPosition,
) -> Option<std::ops::Range<usize>> {
    // The ranks in front of it, up to `steps` ahead.
    let ahead = |rank: u8| match c {
        Color::White => rank > 2 && rank <= 2 + steps,
        Color::Black => rank < 7 && rank + steps >= 7,
    };
    for (i, w) in waypoints.iter().enumerate().skip(k) {
        let s = home_slot(w, c, file)?;
        if s.high != s.low {
            return (i > k).then_some(k..i);
        }
        let blocked = Color::ALL.into_iter().any(|d| {
            w.pawns[d]
                .iter()
                .any(|o| o.file == file && o.low == o.high && ahead(o.low))
        });
        if blocked {
            return None;
        }
    }
    let home = Square::from_coords(
        File::new(u32::from(file)),
        Rank::new(u32::from(c.fold_wb(1u8, 6u8))),
    );
    (k < waypoints.len() && goal.board.piece_at(home) != Some(c.pawn()))
        .then_some(k..waypoints.len())
}

/// `c`'s pawn of `file` that may still stand at home in `w`.
fn home_slot(w: &Waypoint, c: Color, file: u8) -> Option<&Slot> {
    let home = c.fold_wb(2u8, 7u8);
    w.pawns[c]
        .iter()
        .find(|s| s.file == file && (s.low..=s.high).contains(&home))
}

/// The same, to change.
fn home_slot_mut(w: &mut Waypoint, c: Color, file: u8) -> Option<&mut Slot> {
    let home = c.fold_wb(2u8, 7u8);
    w.pawns[c]
        .iter_mut()
        .find(|s| s.file == file && (s.low..=s.high).contains(&home))
}

#[cfg(test)]
mod tests {
    use shakmaty::{Color, Square};

    use super::*;
    use crate::{
        route::fixtures::{at, black_pawns, extended_kernel, route, waypoint, white_pawns},
        rows,
    };

    #[test]
    fn a_bishop_shut_in_at_home_cannot_be_taken_elsewhere() {
        // A white pawn takes black's light bishop on e4: c8's bishop, behind b7 and d7.
        let capture = Some(Capture::OnSquare {
            square: Square::E4,
            victim: Color::Black,
            types: KernelPiece::LightBishop.bit(),
        });
        let shut = waypoint(black_pawns(&[]), white_pawns(&[3, 4]), capture, None);
        assert_eq!(
            shut_in_bishops(std::slice::from_ref(&shut), 0)[Color::Black].count(),
            2
        );
        assert!(!feasible(&[shut], 0));
        // With the d pawn free to move it can come out.
        let open = waypoint(black_pawns(&[3]), white_pawns(&[3, 4]), capture, None);
        assert!(feasible(&[open], 0));
        // A knight may be taken instead.
        let either = Some(Capture::OnSquare {
            square: Square::E4,
            victim: Color::Black,
            types: KernelPiece::LightBishop.bit() | KernelPiece::Knight.bit(),
        });
        let knight = waypoint(black_pawns(&[]), white_pawns(&[3, 4]), either, None);
        assert!(feasible(&[knight], 0));
    }

    #[test]
    fn no_promotion_lands_on_a_bishop_shut_in_at_home() {
        // Black promotes on c1 while b2 and d2 have not moved: c1's bishop is still there.
        let black = black_pawns(&[2]);
        let shut = waypoint(black.clone(), white_pawns(&[]), None, Some(Square::C1));
        assert!(!feasible(&[shut], 0));
        // Unless the bishop was taken (at home, by a knight) at an earlier waypoint.
        let mut taken = waypoint(black.clone(), white_pawns(&[]), None, None);
        taken.counts[Color::White][KernelPiece::DarkBishop] = 0;
        let then = waypoint(black.clone(), white_pawns(&[]), None, Some(Square::C1));
        assert!(feasible(&[taken, then], 1));
        // A second dark bishop (promoted) does not let the first out.
        let mut promoted = waypoint(black.clone(), white_pawns(&[]), None, None);
        promoted.counts[Color::White][KernelPiece::DarkBishop] = 2;
        let then = waypoint(black.clone(), white_pawns(&[]), None, Some(Square::C1));
        assert!(!feasible(&[promoted, then], 1));
        // Or b2 may have moved.
        let open = waypoint(black, white_pawns(&[1]), None, Some(Square::C1));
        assert!(feasible(&[open], 0));
    }

    #[test]
    fn a_pawn_that_moves_later_steps_forward_earlier_to_let_a_bishop_out() {
        // A white pawn takes black's light bishop on e4 while b7 and d7 are at home; black's
        // d pawn goes forward only at the second waypoint.
        let capture = Some(Capture::OnSquare {
            square: Square::E4,
            victim: Color::Black,
            types: KernelPiece::LightBishop.bit(),
        });
        let first = waypoint(black_pawns(&[]), white_pawns(&[3, 4]), capture, None);
        let later = waypoint(black_pawns(&[3]), white_pawns(&[3, 4]), None, None);
        let start = RawPosition::start();
        let mut route = vec![first.clone(), later.clone()];
        assert!(!feasible(&route, 0));
        assert!(release_piece(&mut route, 0, &start));
        assert!(feasible(&route, 0));
        let d = route[0].pawns[Color::Black].iter().find(|s| s.file == 3);
        assert_eq!(d.map(|s| (s.low, s.high)), Some((6, 7)), "{:?}", route[0]);
        assert_eq!(route[1], later);
        // Not a pawn that stays at home to the end.
        let mut stays = vec![first.clone(), first.clone()];
        assert!(!release_piece(&mut stays, 0, &start));
        assert_eq!(stays, vec![first.clone(), first.clone()]);
        // Unless the goal has it forward.
        let d6 = "rnbqkbnr/ppp1pppp/3p4/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let d6 = RawPosition::from_fen(d6).expect("test FEN");
        assert!(release_piece(&mut stays, 0, &d6));
        assert!(stays.iter().all(|w| w.pawns[Color::Black]
            .iter()
            .any(|s| (s.file, s.low, s.high) == (3, 6, 7))));
        // Nor one taken at home before it would go forward.
        let mut gone = black_pawns(&[]);
        gone.retain(|s| s.file != 3);
        let taken = waypoint(gone, white_pawns(&[3, 4]), None, None);
        let mut route = vec![first.clone(), taken, later.clone()];
        assert!(!release_piece(&mut route, 0, &start));
        // Nor one with a pawn fixed in front of it.
        let mut white = white_pawns(&[4]);
        white.retain(|s| s.file != 3);
        white.push(at(Color::White, 3, 6));
        let blocked = waypoint(black_pawns(&[]), white, capture, None);
        let mut route = vec![blocked, later];
        assert!(!release_piece(&mut route, 0, &start));
    }

    #[test]
    fn a_rook_or_queen_behind_its_pawns_at_home_is_taken_there_or_not_at_all() {
        let rook = |square| {
            Some(Capture::OnSquare {
                square,
                victim: Color::Black,
                types: KernelPiece::Rook.bit(),
            })
        };
        let white = || white_pawns(&[4, 5]);
        let home = waypoint(black_pawns(&[]), white(), rook(Square::E3), None);
        assert!(!feasible(std::slice::from_ref(&home), 0));
        // A pawn one step forward does not let a rook out; one that goes on does.
        let mut step = black_pawns(&[]);
        step[0].low = 6;
        let one = waypoint(step.clone(), white(), rook(Square::E3), None);
        assert!(!feasible(&[one], 0));
        let open = waypoint(black_pawns(&[0]), white(), rook(Square::E3), None);
        assert!(feasible(&[open], 0));
        // On its back rank it may be taken.
        let there = waypoint(black_pawns(&[]), white(), rook(Square::A8), None);
        assert!(feasible(&[there], 0));
        // A queen gets out past a pawn beside it that has stepped forward.
        let queen = Some(Capture::OnSquare {
            square: Square::E3,
            victim: Color::Black,
            types: KernelPiece::Queen.bit(),
        });
        assert!(!feasible(
            &[waypoint(black_pawns(&[]), white(), queen, None)],
            0
        ));
        step[0].low = 7;
        step[4].low = 6;
        assert!(feasible(&[waypoint(step, white(), queen, None)], 0));
        // The h pawn, which goes forward later anyway, goes two steps by the capture.
        let later = waypoint(black_pawns(&[7]), white(), None, None);
        let mut route = vec![home, later.clone()];
        assert!(release_piece(&mut route, 0, &RawPosition::start()));
        let h = route[0].pawns[Color::Black].iter().find(|s| s.file == 7);
        assert_eq!(h.map(|s| (s.low, s.high)), Some((5, 7)), "{}", route[0]);
        assert!(feasible(&route, 0));
        assert_eq!(route[1], later);
    }

    #[test]
    fn a_pawn_taken_at_home_that_shuts_a_bishop_in_is_taken_a_step_forward() {
        // cpr10k 8799: white's a pawn first takes black's dark bishop on b4 (wPa0xDBb2), and
        // white's f pawn later takes black's e pawn (wPf0xPe1). Black's g pawn never moves, so
        // the bishop leaves f8 by e7 only; the plan that keeps black's pawns as high as it can
        // has the e pawn taken at home on e7, shutting the bishop in to the end.
        let fen = "k2K4/2Rp1Bp1/3PN1Q1/q4bp1/R3PBB1/1B1RrR2/1qnr1nN1/1N1b3q b - - 0 1";
        let (goal, r) = route(fen);
        let k = extended_kernel(&goal);
        let e_pawn = |slots: &[Slot]| {
            slots
                .iter()
                .find(|s| s.color == Color::Black && s.file == 4)
                .map(|s| (s.low, s.high))
        };
        let high =
            rows::plan(&RawPosition::start(), &goal, &k, rows::Shape::default()).expect("a plan");
        assert_eq!(e_pawn(&high.pawns[0]), Some((7, 7)));
        // The stepped plan has it taken on e6, free to step forward before the first capture.
        assert_eq!(
            r.waypoints[0].capture.map(|c| matches!(
                c,
                Capture::OnSquare {
                    square: Square::B4,
                    ..
                }
            )),
            Some(true)
        );
        assert_eq!(e_pawn(&r.waypoints[0].pawns[Color::Black]), Some((6, 7)));
        assert!(feasible(&r.waypoints, 0));
    }
}
