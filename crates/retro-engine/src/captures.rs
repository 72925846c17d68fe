//! The legal captures of a position, generated alone, for the quiescence search.
//!
//! shakmaty's `capture_moves` generates every legal move and keeps the captures, so a
//! quiescence node paid for its quiet moves too (8% of `retro bench`'s instructions). Here only
//! captures are made: each piece's attacks on the opponent's pieces, kept where the piece is
//! not pinned or moves along its pin, the king's where the target is not defended. The list
//! comes in the order `capture_moves` gives (en passant, then pawns capturing towards the
//! a-file and then towards the h-file, each plain captures before promotions, then knights,
//! bishops, rooks, queens and the king, each from and to squares ascending), so that the
//! search, which breaks ties in its order by the list's, is the same node for node (test
//! `the_captures_are_shakmatys_in_its_order`).

use shakmaty::{
    attacks, Bitboard, Board, Chess, Color, File, Move, MoveList, Position, Rank, Role, Square,
};

/// The pieces a pawn promotes to, in the order of the list.
const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

/// The legal captures of `pos` (promotions that capture, to every piece, among them), put in
/// `moves` (emptied first; filled in place, as a list returned would be copied whole).
pub(crate) fn captures(pos: &Chess, moves: &mut MoveList) {
    moves.clear();
    let board = pos.board();
    let us = pos.turn();
    let Some(king) = board.king_of(us) else {
        *moves = pos.capture_moves();
        return;
    };
    if pos.checkers().any() {
        // Evasions are rare in the quiescence search (it searches every move in check).
        *moves = pos.capture_moves();
        return;
    }
    if pos.maybe_ep_square().is_some() {
        // En passant, whose legality needs the board after the move, as shakmaty judges it.
        moves.extend(pos.en_passant_moves());
    }
    let them = pos.them();
    let occupied = board.occupied();
    let pinned = pinned(board, us, king);
    let legal =
        |from: Square, to: Square| !pinned.contains(from) || attacks::aligned(from, to, king);
    let push = |moves: &mut MoveList, role: Role, from: Square, to: Square, promotion| {
        moves.push(Move::Normal {
            role,
            from,
            capture: board.role_at(to),
            to,
            promotion,
        });
    };

    let last_rank = Bitboard::from_rank(us.fold_wb(Rank::Eighth, Rank::First));
    let pawns = pos.our(Role::Pawn);
    // Towards the a-file, then the h-file: the pawns that have such a diagonal, moved along it
    // (a square's index grows by 8 a rank and 1 a file).
    for (edge, file_step) in [(File::A, -1), (File::H, 1)] {
        let step = us.fold_wb(8, -8) + file_step;
        let targets = (pawns & !Bitboard::from_file(edge)).shift(step) & them;
        for to in targets & !last_rank {
            let Some(from) = to.offset(-step) else {
                continue;
            };
            if legal(from, to) {
                push(moves, Role::Pawn, from, to, None);
            }
        }
        for to in targets & last_rank {
            let Some(from) = to.offset(-step) else {
                continue;
            };
            if legal(from, to) {
                for role in PROMOTIONS {
                    push(moves, Role::Pawn, from, to, Some(role));
                }
            }
        }
    }
    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        for from in pos.our(role) {
            let reach = match role {
                Role::Knight => attacks::knight_attacks(from),
                Role::Bishop => attacks::bishop_attacks(from, occupied),
                Role::Rook => attacks::rook_attacks(from, occupied),
                _ => attacks::queen_attacks(from, occupied),
            };
            for to in reach & them {
                if legal(from, to) {
                    push(moves, role, from, to, None);
                }
            }
        }
    }
    for to in attacks::king_attacks(king) & them {
        // Not in check, so no line through the king's square reaches `to`: the board as it is
        // tells whether the king may stand there.
        if board.attacks_to(to, !us, occupied).is_empty() {
            push(moves, Role::King, king, to, None);
        }
    }
}

/// `color`'s pieces that alone stand between their king on `king` and an opposing rook, bishop
/// or queen that would attack it along that line.
fn pinned(board: &Board, color: Color, king: Square) -> Bitboard {
    let enemy = board.by_color(!color);
    let straight = attacks::rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens();
    let diagonal = attacks::bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens();
    let mut pinned = Bitboard::EMPTY;
    for sniper in (straight | diagonal) & enemy {
        let between = attacks::between(king, sniper) & board.occupied();
        if between.count() == 1 {
            pinned |= between;
        }
    }
    pinned & board.by_color(color)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Chess {
        crate::fen::parse_fen(fen).expect("legal FEN")
    }

    /// Pins, en passant (one that would expose the king among them), capturing promotions on
    /// both wings, a king that may and may not take, both colours, checks (the fallback).
    const FENS: [&str; 10] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "8/8/8/K1pP3r/8/8/8/7k w - c6 0 2",
        "1r2k2r/P6P/8/8/8/8/p6p/R3K1NR b - - 0 1",
        "4k3/8/8/8/1b6/8/3N4/4K2q w - - 0 1",
        "4k3/4r3/8/8/4B3/3q4/4K3/8 w - - 0 1",
        "3rk3/8/8/8/8/8/2n5/R3K3 w - - 0 1",
    ];

    fn assert_same(p: &Chess) {
        let expected: Vec<Move> = p.capture_moves().to_vec();
        let mut got = MoveList::new();
        // Stale moves in the list beforehand, as the search's list may hold.
        got.push(expected.first().copied().unwrap_or(Move::Put {
            role: Role::Queen,
            to: Square::A1,
        }));
        captures(p, &mut got);
        let got = got.to_vec();
        let fen = shakmaty::fen::Fen::from_position(p, shakmaty::EnPassantMode::Legal);
        assert_eq!(got, expected, "{fen}");
    }

    /// The same moves in the same order as shakmaty's `capture_moves`, on the positions above
    /// and on every position of random games from them.
    #[test]
    fn the_captures_are_shakmatys_in_its_order() {
        let mut rng = fastrand::Rng::with_seed(11);
        let mut positions = 0;
        let mut with_captures = 0;
        for fen in FENS {
            assert_same(&pos(fen));
            for _ in 0..60 {
                let mut p = pos(fen);
                for _ in 0..120 {
                    assert_same(&p);
                    positions += 1;
                    with_captures += usize::from(!p.capture_moves().is_empty());
                    let moves = p.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    // Captures more often than chance, so that the boards thin out and
                    // promotions come.
                    let caps = p.capture_moves();
                    let m = if !caps.is_empty() && rng.u8(..3) == 0 {
                        caps[rng.usize(..caps.len())]
                    } else {
                        moves[rng.usize(..moves.len())]
                    };
                    p.play_unchecked(m);
                }
            }
        }
        assert!(
            positions > 30_000 && with_captures > 10_000,
            "{positions} {with_captures}"
        );
    }
}
