//! The check every proof game passes before it is reported: its moves, replayed by shakmaty
//! from the standard starting position, are legal and end in the goal.

use shakmaty::{uci::UciMove, Chess, EnPassantMode, Move, Position, Role};

use super::position::RawPosition;

/// Why a sequence of moves is not a proof game of a goal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// A move that cannot be read as UCI.
    #[error("move {ply}: {text} is not a UCI move")]
    Unreadable {
        /// The ply, from 1.
        ply: usize,
        /// The move as given.
        text: String,
    },
    /// A move that is not legal where it is played.
    #[error("move {ply}: {text} is not legal in {fen}")]
    Illegal {
        /// The ply, from 1.
        ply: usize,
        /// The move as given.
        text: String,
        /// The position it was played in.
        fen: String,
    },
    /// The moves end elsewhere.
    #[error("the moves end in {reached}, not the goal ({what} differ)")]
    Elsewhere {
        /// The FEN reached.
        reached: String,
        /// What differs: the placement, the side to move, the castling rights or the en
        /// passant square.
        what: &'static str,
    },
}

/// Replays `moves` from the starting position and checks that they end in `goal`: the same
/// placement, side to move and castling rights; where the goal names an en passant square, the
/// last move is the double pawn push over it; where it names none, no en passant capture is
/// possible at the end.
///
/// # Errors
/// The first illegal move, or what differs at the end.
pub fn check(goal: &RawPosition, moves: &[Move]) -> Result<(), ReplayError> {
    let uci: Vec<String> = moves
        .iter()
        .map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string())
        .collect();
    check_uci(goal, &uci)
}

/// [`check`] for moves in UCI notation.
///
/// # Errors
/// A move that cannot be read or is illegal, or what differs at the end.
pub fn check_uci<S: AsRef<str>>(goal: &RawPosition, moves: &[S]) -> Result<(), ReplayError> {
    let mut pos = Chess::default();
    let mut last: Option<Move> = None;
    for (i, text) in moves.iter().enumerate() {
        let text = text.as_ref();
        let ply = i + 1;
        let uci: UciMove = text.parse().map_err(|_| ReplayError::Unreadable {
            ply,
            text: text.to_string(),
        })?;
        let m = uci.to_move(&pos).map_err(|_| ReplayError::Illegal {
            ply,
            text: text.to_string(),
            fen: shakmaty::fen::Fen::from_position(&pos, EnPassantMode::Legal).to_string(),
        })?;
        pos.play_unchecked(m);
        last = Some(m);
    }
    let elsewhere = |what| ReplayError::Elsewhere {
        reached: shakmaty::fen::Fen::from_position(&pos, EnPassantMode::Legal).to_string(),
        what,
    };
    if *pos.board() != goal.board {
        return Err(elsewhere("placements"));
    }
    if pos.turn() != goal.turn {
        return Err(elsewhere("sides to move"));
    }
    if pos.castles().castling_rights() != goal.castling {
        return Err(elsewhere("castling rights"));
    }
    let ep_ok = match goal.ep {
        Some(ep) => last.as_ref().is_some_and(|m| is_double_push_over(m, ep)),
        None => pos.ep_square(EnPassantMode::Legal).is_none(),
    };
    if !ep_ok {
        return Err(elsewhere("en passant squares"));
    }
    Ok(())
}

/// Whether `m` is a pawn's double push that skips `ep`.
fn is_double_push_over(m: &Move, ep: shakmaty::Square) -> bool {
    let Some(from) = m.from() else {
        return false;
    };
    let to = m.to();
    let mid = (u32::from(from.rank() as u8) + u32::from(to.rank() as u8)) / 2;
    m.role() == Role::Pawn
        && from.file() == to.file()
        && from.rank().distance(to.rank()) == 2
        && ep == shakmaty::Square::from_coords(from.file(), shakmaty::Rank::new(mid))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn goal(fen: &str) -> RawPosition {
        RawPosition::from_fen(fen).expect("test FEN")
    }

    #[test]
    fn a_true_proof_game_passes() {
        let g = goal("r1bqkbnr/pppppppp/2n5/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(check_uci(&g, &["e2e4", "b8c6"]), Ok(()));
    }

    #[test]
    fn illegal_moves_and_wrong_ends_fail() {
        let g = goal("r1bqkbnr/pppppppp/2n5/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1");
        assert!(matches!(
            check_uci(&g, &["e2e5", "b8c6"]),
            Err(ReplayError::Illegal { ply: 1, .. })
        ));
        assert!(matches!(
            check_uci(&g, &["e2e4", "x"]),
            Err(ReplayError::Unreadable { ply: 2, .. })
        ));
        assert!(matches!(
            check_uci(&g, &["e2e3", "b8c6"]),
            Err(ReplayError::Elsewhere {
                what: "placements",
                ..
            })
        ));
        let after_e4_white_to_move =
            goal("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1");
        assert!(matches!(
            check_uci(&after_e4_white_to_move, &["e2e4"]),
            Err(ReplayError::Elsewhere {
                what: "sides to move",
                ..
            })
        ));
        // Out and back with the king: the placement is the same, the rights are not.
        let start = RawPosition::start();
        assert!(matches!(
            check_uci(&start, &["e2e4", "e7e5", "e1e2", "e8e7", "e2e1", "e7e8"]),
            Err(ReplayError::Elsewhere { .. })
        ));
    }

    #[test]
    fn the_en_passant_square_is_checked_both_ways() {
        let claimed = goal("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 1");
        let moves = ["e2e4", "d7d5", "e4e5", "f7f5"];
        assert_eq!(check_uci(&claimed, &moves), Ok(()));
        // The goal that names no en passant square is another position: f7-f5 cannot be the
        // last move.
        let none = goal("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1");
        assert!(check_uci(&none, &moves).is_err());
        let slow = [
            "e2e4", "d7d5", "e4e5", "f7f5", "g1f3", "g8f6", "f3g1", "f6g8",
        ];
        assert_eq!(check_uci(&none, &slow), Ok(()));
        assert!(check_uci(&claimed, &slow).is_err());
    }
}
