//! Proof games: a game from the starting position that reaches the goal position, the proof
//! that the goal is legal.
//!
//! Weighted A* ([`astar`](super::astar)) searches from the start with the relaxed-problem
//! estimate ([`Heuristic`]); a run that reaches its node limit is restarted with a limit a fifth
//! larger and another random tie-break, until the budget of the analysis is spent. Runs take
//! turns: one straight to the goal, one along the initial path ([`Route`]: the captures of an
//! extended proof kernel as waypoints, each reached by its own search, then the goal); a goal
//! with many captures takes three runs along the initial path to one straight (the first). A goal that
//! names an en passant square is searched for the position before the double push that made it,
//! and the push is added. Every game found is replayed ([`replay`](super::replay)) before it is
//! returned: a game that fails the replay is a bug, logged and never reported.

use std::time::Instant;

use shakmaty::{CastlingMode, Chess, Color, Move, Position, Rank, Role, Square};

use super::{
    astar::{self, Exact, Goal, Outcome, Params},
    heuristic::Heuristic,
    kernel::{self, Kind},
    kernel_move::KernelResult,
    limits::{Limits, Stop},
    position::RawPosition,
    replay,
    waypoint::{Leg, Route},
};

/// The estimate's weight in the search (the seed document's 5).
pub const WEIGHT: u32 = 5;

/// The node limit of the first run; each restart raises it by a fifth.
pub const FIRST_RUN_NODES: u64 = 50_000;

/// The kernel search behind the initial path looks at this many nodes at most.
pub const KERNEL_NODES: u64 = 1_000_000;

/// A goal whose initial path has at least this many waypoints starts with it.
pub const GUIDED_FIRST: usize = 3;

/// Each leg of the initial path gets at least this many nodes.
pub const LEG_NODES: u64 = 2_000;

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
    /// Whether this run follows the initial path (else it goes straight to the goal).
    pub guided: bool,
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
    let exact = Exact { h: &h, any_ep };
    let route = route(&target, limits)?.filter(|r| !r.is_empty());
    let guided_first = route.as_ref().is_some_and(|r| r.len() >= GUIDED_FIRST);
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
        let guided = route.as_ref().filter(|_| {
            if guided_first {
                run % 4 != 1
            } else {
                run % 2 == 0
            }
        });
        progress(&Progress {
            run,
            nodes: spent,
            run_limit: this_run,
            guided: guided.is_some(),
        });
        let params = Params {
            weight: WEIGHT,
            max_nodes: this_run,
            seed: u64::from(run),
            deadline: limits.deadline,
        };
        let found = match guided {
            Some(r) => along(r, &exact, params)?,
            None => match astar::search(&start, &exact, params)? {
                Outcome::Found(moves) => Some(moves),
                Outcome::Exhausted => return Ok(None),
                Outcome::NodeLimit { .. } => None,
            },
        };
        if let Some(mut moves) = found {
            if let Some(push) = last {
                moves.push(push);
            }
            return Ok(checked(goal, moves));
        }
        spent += this_run;
        run_limit += run_limit / 5;
    }
    Ok(None)
}

/// The initial path to `target`: the waypoints of an extended proof kernel, `None` when none is
/// found within [`KERNEL_NODES`] or it does not give a route.
///
/// # Errors
/// The deadline passed.
fn route(target: &RawPosition, limits: Limits) -> Result<Option<Route>, Stop> {
    let budget = Limits {
        max_nodes: KERNEL_NODES,
        ..limits
    };
    let init = RawPosition::start();
    match kernel::search(&init, target, Kind::Extended, &mut budget.counter()) {
        Ok(KernelResult::Found(k)) => Ok(Route::new(target, &k)),
        Ok(KernelResult::None) | Err(Stop::Nodes) => Ok(None),
        Err(Stop::Time) => Err(Stop::Time),
    }
}

/// One run along `route`: each waypoint in turn from the starting position, each by a search
/// of at most an eighth of the run's nodes (at least [`LEG_NODES`]), then the goal by one of
/// half the run. A leg that fails twice from the same position, or cannot be reached from it,
/// sends the run back one leg, which is searched again with another random tie-break (it ends
/// elsewhere, from where the next leg may be easier). `None` when the first leg fails, or the
/// legs have spent the run's nodes.
///
/// # Errors
/// The deadline passed.
fn along(route: &Route, exact: &Exact<'_>, params: Params) -> Result<Option<Vec<Move>>, Stop> {
    let legs: Vec<Leg<'_>> = route.legs().collect();
    let per_leg = (params.max_nodes / 8).max(LEG_NODES);
    // The moves that reached each leg so far, and the position they lead to.
    let mut done: Vec<Vec<Move>> = Vec::with_capacity(legs.len());
    let mut pos = Chess::default();
    let mut expanded = 0u64;
    let mut failures = 0u32;
    let mut tries = 0u64;
    while let Some(leg) = legs.get(done.len()) {
        if expanded >= params.max_nodes {
            log::debug!("initial path: node budget spent at leg {}", done.len() + 1);
            return Ok(None);
        }
        tries += 1;
        let p = Params {
            max_nodes: per_leg,
            seed: params.seed.wrapping_mul(1_000_003).wrapping_add(tries),
            ..params
        };
        match astar::search_counted(&pos, leg, p, &mut expanded)? {
            Outcome::Found(found) => {
                for &m in &found {
                    pos.play_unchecked(m);
                }
                done.push(found);
                failures = 0;
            }
            other => {
                log_failure(done.len(), legs.len(), &pos, leg, &other);
                failures += 1;
                if failures >= 2 || matches!(other, Outcome::Exhausted) {
                    if done.pop().is_none() {
                        return Ok(None);
                    }
                    pos = Chess::default();
                    for &m in done.iter().flatten() {
                        pos.play_unchecked(m);
                    }
                    failures = 0;
                }
            }
        }
    }
    let mut moves: Vec<Move> = done.concat();
    let p = Params {
        max_nodes: params.max_nodes / 2,
        ..params
    };
    match astar::search(&pos, exact, p)? {
        Outcome::Found(found) => {
            moves.extend(found);
            Ok(Some(moves))
        }
        _ => {
            log::debug!("initial path: goal not reached after {} plies", moves.len());
            Ok(None)
        }
    }
}

/// Logs (at debug level) a leg the search did not reach: from where, how far it got, and the
/// waypoint.
fn log_failure(i: usize, legs: usize, pos: &Chess, leg: &Leg<'_>, outcome: &Outcome) {
    if !log::log_enabled!(log::Level::Debug) {
        return;
    }
    let mut best = pos.clone();
    if let Outcome::NodeLimit { best: line } = outcome {
        for &m in line {
            best.play_unchecked(m);
        }
    }
    let fen = |p: &Chess| {
        shakmaty::fen::Fen::from_position(p, shakmaty::EnPassantMode::Legal).to_string()
    };
    log::debug!(
        "initial path: leg {} of {legs} not reached from {} (estimate {:?}; best {}): {:?}",
        i + 1,
        fen(pos),
        leg.estimate(pos),
        fen(&best),
        leg.waypoint()
    );
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
