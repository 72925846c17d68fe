//! Proof games: a game from the starting position that reaches the goal position, the proof
//! that the goal is legal.
//!
//! Weighted A* ([`astar`](super::astar)) searches from the start with the relaxed-problem
//! estimate ([`Heuristic`]); a run that reaches its node limit is restarted with a limit a fifth
//! larger and another random tie-break, until the budget of the analysis is spent. A goal that
//! names an en passant square is searched for the position before the double push that made it,
//! and the push is added. Every game found is replayed ([`replay`](super::replay)) before it is
//! returned: a game that fails the replay is a bug, logged and never reported.

use std::time::Instant;

use shakmaty::{CastlingMode, Chess, Color, Move, Rank, Role, Square};

use super::{
    astar::{self, Outcome, Params},
    heuristic::Heuristic,
    limits::{Limits, Stop},
    position::RawPosition,
    replay,
};

/// The estimate's weight in the search (the seed document's 5).
pub const WEIGHT: u32 = 5;

/// The node limit of the first run; each restart raises it by a fifth.
pub const FIRST_RUN_NODES: u64 = 50_000;

/// A game from the starting position to the goal, replayed and checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProofGame {
    /// The moves, from the starting position.
    pub moves: Vec<Move>,
}

impl ProofGame {
    /// The number of plies.
    pub fn plies(&self) -> usize {
        self.moves.len()
    }

    /// `proof game: N plies`, the reason of a `legal` verdict.
    pub fn summary(&self) -> String {
        format!("proof game: {} plies", self.plies())
    }

    /// The moves in UCI notation.
    pub fn uci(&self) -> Vec<String> {
        self.moves
            .iter()
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .collect()
    }
}

/// Where a search stands, for a progress line.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// The run, from 1.
    pub run: u32,
    /// Positions expanded in all runs so far.
    pub nodes: u64,
    /// This run's node limit.
    pub run_limit: u64,
}

/// Searches a proof game of `goal` within `limits` (`max_nodes` positions expanded in all
/// runs together), calling `progress` as each run starts.
///
/// `Ok(None)`: none was found within the budget, or the search ran out of positions (the
/// estimate pruned every line), which alone is no proof of illegality (the set of seen
/// positions keys on hashes).
///
/// # Errors
/// The deadline passed.
pub fn find(
    goal: &RawPosition,
    limits: Limits,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Option<ProofGame>, Stop> {
    let (target, last, any_ep) = match goal.ep {
        Some(ep) => match before_double_push(goal, ep) {
            Some((before, push)) => (before, Some(push), true),
            None => return Ok(None),
        },
        None => (goal.clone(), None, false),
    };
    let h = Heuristic::new(&target);
    let start = Chess::default();
    let mut spent = 0u64;
    let mut run_limit = FIRST_RUN_NODES.min(limits.max_nodes);
    for run in 1u32.. {
        if spent >= limits.max_nodes {
            return Ok(None);
        }
        if limits.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Stop::Time);
        }
        let this_run = run_limit.min(limits.max_nodes - spent);
        progress(&Progress {
            run,
            nodes: spent,
            run_limit: this_run,
        });
        let params = Params {
            weight: WEIGHT,
            max_nodes: this_run,
            seed: u64::from(run),
            deadline: limits.deadline,
        };
        match astar::search(&start, &target, any_ep, &h, params)? {
            Outcome::Found(mut moves) => {
                if let Some(push) = last {
                    moves.push(push);
                }
                return Ok(checked(goal, moves));
            }
            Outcome::Exhausted => return Ok(None),
            Outcome::NodeLimit { .. } => {}
        }
        spent += this_run;
        run_limit += run_limit / 5;
    }
    Ok(None)
}

/// `moves` as a proof game of `goal` if they pass the replay.
fn checked(goal: &RawPosition, moves: Vec<Move>) -> Option<ProofGame> {
    match replay::check(goal, &moves) {
        Ok(()) => Some(ProofGame { moves }),
        Err(e) => {
            log::error!("a proof game of {} failed its replay: {e}", goal.fen());
            None
        }
    }
}

/// The position before the double push that made `goal`'s en passant square `ep`, and the
/// push; `None` when no pawn can have made it.
fn before_double_push(goal: &RawPosition, ep: Square) -> Option<(RawPosition, Move)> {
    let mover = !goal.turn;
    let (ep_rank, from_rank, to_rank) = match mover {
        Color::White => (Rank::Third, Rank::Second, Rank::Fourth),
        Color::Black => (Rank::Sixth, Rank::Seventh, Rank::Fifth),
    };
    if ep.rank() != ep_rank {
        return None;
    }
    let from = Square::from_coords(ep.file(), from_rank);
    let to = Square::from_coords(ep.file(), to_rank);
    let pawn = shakmaty::Piece {
        color: mover,
        role: Role::Pawn,
    };
    if goal.board.piece_at(to) != Some(pawn)
        || goal.board.piece_at(from).is_some()
        || goal.board.piece_at(ep).is_some()
    {
        return None;
    }
    let mut before = goal.clone();
    before.board.discard_piece_at(to);
    before.board.set_piece_at(from, pawn);
    before.turn = mover;
    before.ep = None;
    let push = Move::Normal {
        role: Role::Pawn,
        from,
        capture: None,
        to,
        promotion: None,
    };
    Some((before, push))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find_fen(fen: &str) -> Option<ProofGame> {
        let goal = RawPosition::from_fen(fen).expect("test FEN");
        find(&goal, Limits::default(), &mut |_| {}).expect("no deadline")
    }

    #[test]
    fn a_goal_with_an_en_passant_square_ends_with_the_double_push() {
        let fen = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 1";
        let game = find_fen(fen).expect("a proof game");
        assert_eq!(game.uci().last().map(String::as_str), Some("f7f5"));
        let goal = RawPosition::from_fen(fen).expect("test FEN");
        assert_eq!(replay::check_uci(&goal, &game.uci()), Ok(()));
    }

    #[test]
    fn an_en_passant_square_no_pawn_can_have_skipped_gives_no_game() {
        // e6 is claimed but no black pawn stands on e5.
        let fen = "rnbqkbnr/pppp1ppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1";
        assert_eq!(find_fen(fen), None);
    }
}
