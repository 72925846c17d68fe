//! Proof games: a game from the starting position that reaches the goal position, the proof
//! that the goal is legal.
//!
//! Weighted A* (`astar`) searches from the start with the relaxed-problem
//! estimate (`Heuristic`); a run that reaches its node limit is restarted with a limit a fifth
//! larger and another random tie-break, until the budget of the analysis is spent. Runs take
//! turns: one straight to the goal, one along an initial path (`Route`: the captures of an
//! extended proof kernel as waypoints, each reached by its own search, then the goal); a goal
//! with many captures takes three runs along the initial path to one straight (the first).
//! Every other run along a path first looks for another kernel (the kernel search's ties
//! broken at random), whose route joins the ones tried. A search that ends at its node limit
//! gets a second try from the best position it found, with the estimate that also counts the
//! pieces in each other's way (`Unblock`).
//!
//! A goal that names an en passant square is searched for the position before the double push
//! that made it, and the push is added. A goal whose side to move is in check is also searched,
//! every other run, for the positions before the moves that may have given the check, so that
//! the checking piece need not come early. Every game found is replayed
//! (`replay`) before it is returned: a game that fails the replay is a bug,
//! logged and never reported.

use shakmaty::{CastlingMode, Chess, Color, Move, Position, Rank, Role, Square};

use super::{
    astar::{self, Exact, Goal, Outcome, Params},
    heuristic::Heuristic,
    kernel::{self, Kind},
    kernel_move::{KernelMove, KernelResult},
    limits::{Limits, Stop},
    position::RawPosition,
    replay, revmoves,
    route::{Leg, Route},
    unblock::Unblock,
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

/// Earlier positions a search assumes at most for a goal in check (see
/// `assumed_last_moves`).
pub const MAX_ASSUMED: usize = 2;

/// The kernel search of an assumed earlier position looks at this many nodes at most.
const ASSUMED_KERNEL_NODES: u64 = 50_000;

/// Routes (initial paths) a search tries at most: the first kernel's, then those of kernels
/// found with the ties of the kernel search broken at random, one every other guided run.
pub const MAX_ROUTES: usize = 4;

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
    /// Whether this run goes to the position before an assumed last move (see
    /// `assumed_last_moves`) rather than to the goal itself.
    pub assumed: bool,
}

/// Searches a proof game of `goal` within `limits` (`max_nodes` positions expanded in all
/// runs together, beside the kernel searches of the routes), calling `progress` as each run
/// starts.
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
    let main = match goal.ep {
        Some(ep) => match before_double_push(goal, ep) {
            Some((before, push)) => Target::new(before, vec![push], true, true, limits)?,
            None => return Ok(None),
        },
        None => Target::new(goal.clone(), Vec::new(), false, true, limits)?,
    };
    let mut targets = vec![main];
    // Where the goal's side to move is in check, the positions before the moves that may have
    // given it, each searched in turn with the goal itself.
    let mut assumed = if goal.ep.is_none() {
        assumed_last_moves(goal, limits)?
    } else {
        Vec::new()
    };
    assumed.reverse();
    let start = Chess::default();
    let mut spent = 0u64;
    let mut run_limit = FIRST_RUN_NODES.min(limits.max_nodes);
    for run in 1u32.. {
        if spent >= limits.max_nodes {
            return Ok(None);
        }
        if limits.expired() {
            return Err(Stop::Time);
        }
        let this_run = run_limit.min(limits.max_nodes - spent);
        // Odd runs go to the goal, even ones to the assumed earlier positions in turn.
        let alternatives = targets.len() - 1 + assumed.len();
        let k = if run % 2 == 1 || alternatives == 0 {
            0
        } else {
            1 + (run as usize / 2 - 1) % alternatives
        };
        if k >= targets.len() {
            if let Some((before, m)) = assumed.pop() {
                // The goal's first run went straight already: an earlier position starts along
                // its path.
                targets.push(Target::new(before, vec![m], false, false, limits)?);
            }
        }
        let k = k.min(targets.len() - 1);
        let Some(t) = targets.get_mut(k) else {
            continue;
        };
        let guided = t.next_run(run, limits)?;
        progress(&Progress {
            run,
            nodes: spent,
            run_limit: this_run,
            guided: guided.is_some(),
            assumed: k > 0,
        });
        let params = Params {
            weight: WEIGHT,
            max_nodes: this_run,
            seed: u64::from(run),
            deadline: limits.deadline,
            cancel: limits.cancel,
        };
        let exact = Exact {
            h: &t.h,
            any_ep: t.any_ep,
        };
        let found = match guided.and_then(|i| t.routes.get(i)) {
            Some(r) => along(r, &exact, params)?,
            None => {
                // Four fifths of the run for the search, a fifth for its second try.
                let p = Params {
                    max_nodes: this_run - this_run / 5,
                    ..params
                };
                match astar::search(&start, &exact, p)? {
                    Outcome::Found(moves) => Some(moves),
                    // The goal itself out of reach: no game (an assumed earlier position
                    // only drops out).
                    Outcome::Exhausted if k == 0 => return Ok(None),
                    Outcome::Exhausted => {
                        targets.remove(k);
                        None
                    }
                    Outcome::NodeLimit { best } => unblocked(&start, best, &exact, p)?,
                }
            }
        };
        if let Some(mut moves) = found {
            if let Some(t) = targets.get(k) {
                moves.extend_from_slice(&t.then);
            }
            if let Some(game) = checked(goal, moves) {
                return Ok(Some(game));
            }
        }
        spent += this_run;
        run_limit = run_limit.saturating_add(run_limit / 5);
    }
    Ok(None)
}

/// A run along a route gives up when its legs have sent it back more than this many times
/// per leg, all legs together.
const MAX_BACKS: usize = 4;

/// Kernels whose ties are broken at random that a target tries for its first route when the
/// first kernel's route cannot be followed (see [`Routed::Unfit`]); the tries end at the first
/// that gives a route or finds no kernel.
const FIRST_ROUTE_TRIES: u64 = 4;

/// A position the search goes to, with the moves from there to the goal, its estimate and its
/// initial paths.
struct Target {
    /// The moves from this position to the goal: the double push of the goal's en passant
    /// square, or a last move assumed.
    then: Vec<Move>,
    h: Heuristic,
    /// Whether an en passant capture may be possible here.
    any_ep: bool,
    routes: Vec<Route>,
    /// Whether the first route is long enough that guided runs come first.
    guided_first: bool,
    /// Whether the first run goes straight to the target (else along its first route).
    straight_first: bool,
    /// This target's runs so far, and those of them along a route.
    runs: u32,
    guided_runs: u32,
}

impl Target {
    /// The target `pos` with its first route.
    ///
    /// # Errors
    /// The deadline passed.
    fn new(
        pos: RawPosition,
        then: Vec<Move>,
        any_ep: bool,
        straight_first: bool,
        limits: Limits,
    ) -> Result<Target, Stop> {
        let mut first = route(&pos, limits, Kind::Extended)?;
        // A kernel whose route cannot be followed (a waypoint out of reach): others, with
        // the ties of the kernel search broken at random; where none can, the first of them
        // whose route can once a bishop shut in at home is let out earlier.
        let mut unfit = Vec::new();
        for seed in 1..=FIRST_ROUTE_TRIES {
            let Routed::Unfit(k) = first else {
                break;
            };
            unfit.push(k);
            first = route(&pos, limits, Kind::ExtendedShuffled(seed))?;
        }
        let first = match first {
            Routed::Route(r) => Some(r),
            last => {
                if let Routed::Unfit(k) = last {
                    unfit.push(k);
                }
                unfit.iter().find_map(|k| Route::new(&pos, k, true))
            }
        };
        let routes: Vec<Route> = first.filter(|r| !r.is_empty()).into_iter().collect();
        Ok(Target {
            then,
            guided_first: routes.first().is_some_and(|r| r.len() >= GUIDED_FIRST),
            straight_first,
            h: Heuristic::new(&pos),
            any_ep,
            routes,
            runs: 0,
            guided_runs: 0,
        })
    }

    /// Starts this target's next run (`run` of the search): the route it follows (its index),
    /// `None` to go straight to the target. The first run goes straight (unless
    /// `straight_first` is off, then the runs start one later in the cycle); where the first route
    /// has [`GUIDED_FIRST`] waypoints or more three runs follow a route for each straight one,
    /// else the two take turns. Every other guided run first looks for another kernel's route,
    /// while there are fewer than [`MAX_ROUTES`]: a route whose legs keep failing may not be
    /// the only one.
    ///
    /// # Errors
    /// The deadline passed.
    fn next_run(&mut self, run: u32, limits: Limits) -> Result<Option<usize>, Stop> {
        self.runs += 1;
        // Counted from 0 where the first run goes along the path.
        let n = self.runs - u32::from(!self.straight_first);
        let guided = !self.routes.is_empty()
            && if self.guided_first {
                n % 4 != 1
            } else {
                n.is_multiple_of(2)
            };
        if !guided {
            return Ok(None);
        }
        self.guided_runs += 1;
        if self.guided_runs.is_multiple_of(2) && self.routes.len() < MAX_ROUTES {
            let pos = self.h.goal().clone();
            let shuffled = route(&pos, limits, Kind::ExtendedShuffled(u64::from(run)))?;
            if let Some(r) = shuffled.released(&pos).filter(|r| !r.is_empty()) {
                if !self.routes.iter().any(|old| old.same_waypoints(&r)) {
                    self.routes.push(r);
                }
            }
        }
        Ok(Some(self.guided_runs as usize % self.routes.len().max(1)))
    }
}

/// Where `goal`'s side to move is in check: the ordinary moves that may have given it (a
/// piece or pawn moving, capturing or not, or promoting), each with the position before it,
/// those that need no castling right or en passant square the goal lacks and whose earlier
/// position has a proof kernel; those without a capture first, at most [`MAX_ASSUMED`] (of
/// the first four times as many candidates).
///
/// # Errors
/// The deadline passed.
fn assumed_last_moves(
    goal: &RawPosition,
    limits: Limits,
) -> Result<Vec<(RawPosition, Move)>, Stop> {
    if goal.checkers(goal.turn).is_empty() {
        return Ok(Vec::new());
    }
    let mut candidates: Vec<_> = revmoves::generate(goal)
        .into_iter()
        .filter(|r| {
            r.kind == revmoves::Kind::Normal
                && r.prior.ep.is_none()
                && r.prior.castling == goal.castling
        })
        .collect();
    candidates.sort_by_key(|r| r.capture.is_some());
    let init = RawPosition::start();
    let mut out = Vec::new();
    for r in candidates.into_iter().take(4 * MAX_ASSUMED) {
        if out.len() >= MAX_ASSUMED {
            break;
        }
        let budget = Limits {
            max_nodes: ASSUMED_KERNEL_NODES,
            ..limits
        };
        match kernel::search(&init, &r.prior, Kind::Plain, &mut budget.counter()) {
            Ok(KernelResult::Found(_)) => {}
            Ok(KernelResult::None) | Err(Stop::Nodes) => continue,
            Err(Stop::Time) => return Err(Stop::Time),
        }
        let m = Move::Normal {
            role: r.role,
            from: r.from,
            capture: r.capture,
            to: r.to,
            promotion: r.promotion,
        };
        out.push((r.prior, m));
    }
    Ok(out)
}

/// What the search for an initial path found.
enum Routed {
    /// A route.
    Route(Route),
    /// No kernel within [`KERNEL_NODES`].
    NoKernel,
    /// A kernel that gives no route (see [`Route::new`]) unless a bishop is let out.
    Unfit(Vec<KernelMove>),
}

impl Routed {
    /// The route, if there is one, else that of the kernel found once a bishop shut in at
    /// home is let out (to `target`).
    fn released(self, target: &RawPosition) -> Option<Route> {
        match self {
            Routed::Route(r) => Some(r),
            Routed::Unfit(k) => Route::new(target, &k, true),
            Routed::NoKernel => None,
        }
    }
}

/// An initial path to `target`: the waypoints of an extended proof kernel of `kind`.
///
/// # Errors
/// The deadline passed.
fn route(target: &RawPosition, limits: Limits, kind: Kind<'_>) -> Result<Routed, Stop> {
    let budget = Limits {
        max_nodes: KERNEL_NODES,
        ..limits
    };
    let init = RawPosition::start();
    match kernel::search(&init, target, kind, &mut budget.counter()) {
        Ok(KernelResult::Found(k)) => {
            Ok(Route::new(target, &k, false).map_or(Routed::Unfit(k), Routed::Route))
        }
        Ok(KernelResult::None) | Err(Stop::Nodes) => Ok(Routed::NoKernel),
        Err(Stop::Time) => Err(Stop::Time),
    }
}

/// One run along `route`: each waypoint in turn from the starting position, each by a search
/// of at most an eighth of the run's nodes (at least [`LEG_NODES`]), then the goal by one of
/// half the run. A leg that fails twice from the same position, or cannot be reached from it,
/// sends the run back one leg (two the second time, and so on), which is searched again with
/// another random tie-break (it ends elsewhere, from where the next leg may be easier). `None`
/// when the first leg fails, the legs have spent the run's nodes, or they have sent the run
/// back [`MAX_BACKS`] times per leg.
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
    // Per leg, the times it sent the run back.
    let mut backs = vec![0usize; legs.len()];
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
        let next: &dyn Goal = match legs.get(done.len() + 1) {
            Some(next) => next,
            None => exact,
        };
        let onward = Onward {
            leg,
            next,
            goal: exact,
        };
        match astar::search_counted(&pos, &onward, p, &mut expanded)? {
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
                    // Back one leg the first time this leg sends the run back, two the
                    // second, and so on: a leg that keeps ending where the next one cannot
                    // go on is itself given up.
                    let i = done.len();
                    let back = backs.get_mut(i).map_or(1, |b| {
                        *b += 1;
                        *b
                    });
                    if i == 0 || backs.iter().sum::<usize>() > MAX_BACKS * legs.len() {
                        return Ok(None);
                    }
                    done.truncate(i.saturating_sub(back));
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
    let found = match astar::search(&pos, exact, p)? {
        Outcome::Found(found) => Some(found),
        Outcome::NodeLimit { best } => {
            if log::log_enabled!(log::Level::Debug) {
                let end = played(&pos, &best);
                log::debug!(
                    "initial path: goal not reached from {} (estimate {:?}; best {}, estimate {:?})",
                    fen(&pos),
                    exact.estimate(&pos),
                    fen(&end),
                    exact.estimate(&end)
                );
            }
            unblocked(&pos, best, exact, params)?
        }
        Outcome::Exhausted => None,
    };
    match found {
        Some(found) => {
            moves.extend(found);
            Ok(Some(moves))
        }
        None => {
            log::debug!("initial path: goal not reached after {} plies", moves.len());
            Ok(None)
        }
    }
}

/// A leg of a route as the goal of its search: the leg's waypoint, in a position from which
/// some move leaves the next goal in reach (a waypoint reached in check with only captures to
/// answer it, where the next leg takes nothing, is a dead end, not a waypoint). No position
/// from which the route's final goal is out of reach (a piece shut in for good, see
/// [`Heuristic::frozen`](super::heuristic::Heuristic::frozen)) is searched on.
struct Onward<'a> {
    leg: &'a dyn Goal,
    next: &'a dyn Goal,
    goal: &'a dyn Goal,
}

impl Goal for Onward<'_> {
    fn estimate(&self, pos: &Chess) -> Option<u32> {
        let e = self.leg.estimate(pos)?;
        self.goal.estimate(pos).map(|_| e)
    }

    fn reached(&self, pos: &Chess) -> bool {
        self.leg.reached(pos)
            && self.goal.estimate(pos).is_some()
            && (self.next.reached(pos)
                || pos.legal_moves().iter().any(|&m| {
                    let mut after = pos.clone();
                    after.play_unchecked(m);
                    self.next.estimate(&after).is_some()
                }))
    }

    fn king_nearer(&self, pos: &Chess, m: &Move) -> bool {
        self.leg.king_nearer(pos, m)
    }
}

/// The second try of a search from `start` that ended at its node limit: from the best
/// position it found (`best` leads there), a search of a quarter of the run's nodes by the
/// estimate that counts pieces in each other's way ([`Unblock`]). The moves from `start`.
///
/// # Errors
/// The deadline passed.
fn unblocked(
    start: &Chess,
    best: Vec<Move>,
    exact: &Exact<'_>,
    params: Params,
) -> Result<Option<Vec<Move>>, Stop> {
    let pos = played(start, &best);
    let p = Params {
        max_nodes: params.max_nodes / 4,
        seed: params.seed ^ 0x5555,
        ..params
    };
    let goal = Unblock::new(exact);
    Ok(match astar::search(&pos, &goal, p)? {
        Outcome::Found(found) => {
            log::debug!(
                "unblocked: found {} plies after {}",
                found.len(),
                best.len()
            );
            let mut moves = best;
            moves.extend(found);
            Some(moves)
        }
        _ => None,
    })
}

/// Logs (at debug level) a leg the search did not reach: from where, how far it got, and the
/// waypoint.
fn log_failure(i: usize, legs: usize, pos: &Chess, leg: &Leg<'_>, outcome: &Outcome) {
    if !log::log_enabled!(log::Level::Debug) {
        return;
    }
    let best = match outcome {
        Outcome::NodeLimit { best } => played(pos, best),
        _ => pos.clone(),
    };
    log::debug!(
        "initial path: leg {} of {legs} not reached from {} (estimate {:?}; best {}): {}",
        i + 1,
        fen(pos),
        leg.estimate(pos),
        fen(&best),
        leg.waypoint()
    );
}

/// The position after `moves` from `start` (moves a search found there).
fn played(start: &Chess, moves: &[Move]) -> Chess {
    let mut pos = start.clone();
    for &m in moves {
        pos.play_unchecked(m);
    }
    pos
}

/// `p`'s FEN, for debug logs.
fn fen(p: &Chess) -> String {
    shakmaty::fen::Fen::from_position(p, shakmaty::EnPassantMode::Legal).to_string()
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
    fn a_goal_in_check_assumes_the_moves_that_gave_it_quiet_ones_first() {
        // 1. e4 f5 2. Qh5+: the queen came to h5 from d1, e2, f3 or g4 (or with a capture from
        // squares on its lines).
        let fen = "rnbqkbnr/ppppp1pp/8/5p1Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 2";
        let goal = RawPosition::from_fen(fen).expect("test FEN");
        let assumed = assumed_last_moves(&goal, Limits::default()).expect("no deadline");
        assert_eq!(assumed.len(), MAX_ASSUMED);
        for (before, m) in &assumed {
            assert_eq!(
                (m.role(), m.to(), m.capture()),
                (Role::Queen, Square::H5, None)
            );
            let mut pos = before.to_chess().expect("a legal earlier position");
            assert!(pos.is_legal(*m));
            pos.play_unchecked(*m);
            assert!(crate::astar::reached(&pos, &goal, false));
        }
        // Not in check: nothing assumed.
        let quiet =
            RawPosition::from_fen("rnbqkbnr/ppppp1pp/8/5p2/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
                .expect("test FEN");
        assert!(assumed_last_moves(&quiet, Limits::default())
            .expect("no deadline")
            .is_empty());
        // And the game is found.
        let game = find_fen(fen).expect("a proof game");
        assert_eq!(replay::check_uci(&goal, &game.uci()), Ok(()));
    }

    /// A goal reached everywhere (or nowhere) with a fixed estimate (or none).
    struct Fixed {
        reached: bool,
        estimate: Option<u32>,
    }

    impl Goal for Fixed {
        fn estimate(&self, _pos: &Chess) -> Option<u32> {
            self.estimate
        }
        fn reached(&self, _pos: &Chess) -> bool {
            self.reached
        }
        fn king_nearer(&self, _pos: &Chess, _m: &Move) -> bool {
            false
        }
    }

    #[test]
    fn a_leg_is_reached_only_where_the_next_goal_stays_in_reach() {
        let leg = Fixed {
            reached: true,
            estimate: Some(0),
        };
        let pos = Chess::default();
        let next_of = |reached, estimate| Fixed { reached, estimate };
        // The final goal stays in reach throughout.
        let goal = next_of(false, Some(5));
        // Every move takes the next goal out of reach: a dead end.
        let dead = next_of(false, None);
        assert!(!Onward {
            leg: &leg,
            next: &dead,
            goal: &goal,
        }
        .reached(&pos));
        // Some move keeps it in reach, or it is reached already.
        let open = next_of(false, Some(3));
        assert!(Onward {
            leg: &leg,
            next: &open,
            goal: &goal,
        }
        .reached(&pos));
        let there = next_of(true, None);
        assert!(Onward {
            leg: &leg,
            next: &there,
            goal: &goal,
        }
        .reached(&pos));
        // The leg itself not reached.
        let away = next_of(false, Some(1));
        assert!(!Onward {
            leg: &away,
            next: &open,
            goal: &goal,
        }
        .reached(&pos));
    }

    #[test]
    fn an_en_passant_square_no_pawn_can_have_skipped_gives_no_game() {
        // e6 is claimed but no black pawn stands on e5.
        let fen = "rnbqkbnr/pppp1ppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1";
        assert_eq!(find_fen(fen), None);
    }
}
