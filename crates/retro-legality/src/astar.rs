//! Weighted A* over real chess moves, from a position to a goal position.
//!
//! The queue is ordered by `plies so far + weight * estimate` ([`Heuristic`]), which gives up
//! the shortest game for speed (a proof game need not be short). Ties go to captures, then king
//! moves that near the king's goal square, then promotions, then pawn moves, then at random: a
//! restart with another seed explores another part of the tree. Positions are generated once
//! (a set of their Zobrist keys); those the heuristic calls unreachable are never queued.

use std::time::Instant;

use shakmaty::{zobrist::Zobrist64, Chess, EnPassantMode, Move, Position, Role};

use super::{
    frontier::{Open, Seen},
    heuristic::Heuristic,
    limits::Stop,
    position::RawPosition,
};

/// What one search is allowed and asked.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// The estimate's weight (1 is plain A*).
    pub weight: u32,
    /// Positions expanded at most.
    pub max_nodes: u64,
    /// The seed of the random tie-break.
    pub seed: u64,
    /// When to give up.
    pub deadline: Option<Instant>,
    /// Set by another thread to give up now (see [`crate::Limits::cancel`]).
    pub cancel: Option<&'static std::sync::atomic::AtomicBool>,
}

/// How a search ended.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// The moves from the start to the goal.
    Found(Vec<Move>),
    /// The node limit was reached; `best` leads to the position of lowest estimate seen.
    NodeLimit {
        /// Moves to the position nearest the goal by the estimate.
        best: Vec<Move>,
    },
    /// Every position reachable without a dead end was expanded.
    Exhausted,
}

/// A queued position.
struct Entry {
    plies: u32,
    node: u32,
    /// The Zobrist key of `pos` (see [`hash`]).
    key: u64,
    pos: Chess,
}

/// The tree of generated positions: each one's parent and the move from it.
struct Tree {
    nodes: Vec<(u32, Option<Move>)>,
}

impl Tree {
    fn path(&self, mut node: u32) -> Vec<Move> {
        let mut moves = Vec::new();
        while let Some((parent, Some(m))) = self.nodes.get(node as usize).cloned() {
            moves.push(m);
            node = parent;
        }
        moves.reverse();
        moves
    }
}

/// Whether `pos` is `goal`: placement, side to move and castling rights; and, unless
/// `any_ep`, no en passant capture possible (the goal claims none).
pub fn reached(pos: &Chess, goal: &RawPosition, any_ep: bool) -> bool {
    *pos.board() == goal.board
        && pos.turn() == goal.turn
        && pos.castles().castling_rights() == goal.castling
        && (any_ep || pos.ep_square(EnPassantMode::Legal).is_none())
}

/// What a search looks for: when it is there, and how far it is.
pub trait Goal {
    /// The plies from `pos` to the goal by an estimate, `None` when it cannot be reached.
    fn estimate(&self, pos: &Chess) -> Option<u32>;

    /// Whether `pos` is there.
    fn reached(&self, pos: &Chess) -> bool;

    /// Whether the king move `m` in `pos` brings the king nearer its goal square.
    fn king_nearer(&self, pos: &Chess, m: &Move) -> bool;
}

/// A goal position: placement, side to move and castling rights, and no en passant capture
/// possible unless `any_ep` (see [`reached`]); the estimate is the relaxed problem's.
pub struct Exact<'a> {
    /// The estimate, which holds the goal.
    pub h: &'a Heuristic,
    /// Whether an en passant capture may be possible in the goal.
    pub any_ep: bool,
}

impl Goal for Exact<'_> {
    fn estimate(&self, pos: &Chess) -> Option<u32> {
        self.h.estimate(pos)
    }

    fn reached(&self, pos: &Chess) -> bool {
        reached(pos, self.h.goal(), self.any_ep)
    }

    fn king_nearer(&self, pos: &Chess, m: &Move) -> bool {
        let c = pos.turn();
        let Some(target) = self.h.goal().king(c) else {
            return false;
        };
        let before = self
            .h
            .distance(c, Role::King, m.from().unwrap_or(m.to()), target);
        let after = self.h.distance(c, Role::King, m.to(), target);
        matches!((before, after), (Some(b), Some(a)) if a < b)
    }
}

/// The tie-break class of `m` in `pos` (lower first).
fn class(pos: &Chess, m: &Move, goal: &dyn Goal) -> u8 {
    if m.is_capture() {
        return 0;
    }
    if m.role() == Role::King && goal.king_nearer(pos, m) {
        return 1;
    }
    if m.is_promotion() {
        return 2;
    }
    if m.role() == Role::Pawn {
        return 3;
    }
    4
}

/// Searches from `start` to `goal`.
///
/// # Errors
/// The deadline passed.
pub fn search(start: &Chess, goal: &dyn Goal, params: Params) -> Result<Outcome, Stop> {
    search_counted(start, goal, params, &mut 0)
}

/// [`search`], adding the positions it expands to `expanded`.
///
/// # Errors
/// The deadline passed.
pub fn search_counted(
    start: &Chess,
    goal: &dyn Goal,
    params: Params,
    expanded: &mut u64,
) -> Result<Outcome, Stop> {
    if goal.reached(start) {
        return Ok(Outcome::Found(Vec::new()));
    }
    let Some(h0) = goal.estimate(start) else {
        log::debug!("search: the goal is out of reach from the start");
        return Ok(Outcome::Exhausted);
    };
    let before = *expanded;
    let mut tree = Tree {
        nodes: vec![(u32::MAX, None)],
    };
    let mut seen = Seen::new();
    let key = hash(start);
    seen.insert(key);
    let mut rng = fastrand::Rng::with_seed(params.seed);
    let mut queue = Open::new();
    // The children's keys of the position being expanded.
    let mut keys: Vec<Option<u64>> = Vec::with_capacity(256);
    queue.push(
        (params.weight * h0, 0, 0),
        Entry {
            plies: 0,
            node: 0,
            key,
            pos: start.clone(),
        },
    );
    let mut best = (h0, 0u32);
    while let Some(e) = queue.pop() {
        *expanded += 1;
        let this_search = *expanded - before;
        if this_search > params.max_nodes {
            return Ok(Outcome::NodeLimit {
                best: tree.path(best.1),
            });
        }
        if this_search.is_multiple_of(64)
            && (params.deadline.is_some_and(|d| Instant::now() >= d)
                || params
                    .cancel
                    .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed)))
        {
            return Err(Stop::Time);
        }
        let moves = e.pos.legal_moves();
        // The children's keys first, from the parent's where they can be: a position seen
        // already is not made, and their slots in the seen set are read together.
        keys.clear();
        keys.extend(moves.iter().map(|&m| child_key(&e.pos, e.key, m)));
        for key in keys.iter().flatten() {
            seen.touch(*key);
        }
        for (&m, &k) in moves.iter().zip(keys.iter()) {
            let (key, made) = match k {
                Some(key) => (key, None),
                None => {
                    let child = after(&e.pos, m);
                    (hash(&child), Some(child))
                }
            };
            if !seen.insert(key) {
                continue;
            }
            let child = made.unwrap_or_else(|| after(&e.pos, m));
            let Ok(id) = u32::try_from(tree.nodes.len()) else {
                return Ok(Outcome::NodeLimit {
                    best: tree.path(best.1),
                });
            };
            if goal.reached(&child) {
                tree.nodes.push((e.node, Some(m)));
                return Ok(Outcome::Found(tree.path(id)));
            }
            let Some(est) = goal.estimate(&child) else {
                continue;
            };
            tree.nodes.push((e.node, Some(m)));
            if est < best.0 {
                best = (est, id);
            }
            let plies = e.plies + 1;
            let queued = queue.push(
                (
                    plies + params.weight * est,
                    class(&e.pos, &m, goal),
                    rng.u32(..),
                ),
                Entry {
                    plies,
                    node: id,
                    key,
                    pos: child,
                },
            );
            if !queued {
                return Ok(Outcome::NodeLimit {
                    best: tree.path(best.1),
                });
            }
        }
    }
    log::debug!(
        "search: out of positions after {} expanded",
        *expanded - before
    );
    Ok(Outcome::Exhausted)
}

/// The Zobrist key of a position (en passant only where a capture is legal).
fn hash(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// The key ([`hash`]) of the position after the legal move `m` in `pos`, whose key is `key`,
/// where shakmaty updates it (not after a double push, a king move or a move that may change
/// castling rights, nor where `pos` has an en passant square); else `None`.
fn child_key(pos: &Chess, key: u64, m: Move) -> Option<u64> {
    pos.update_zobrist_hash(Zobrist64(key), m, EnPassantMode::Legal)
        .map(|k| k.0)
}

/// `pos` after the legal move `m`.
fn after(pos: &Chess, m: Move) -> Chess {
    let mut child = pos.clone();
    child.play_unchecked(m);
    child
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(seed: u64) -> Params {
        Params {
            weight: 5,
            max_nodes: 20_000,
            seed,
            deadline: None,
            cancel: None,
        }
    }

    fn solve(fen: &str) -> Vec<Move> {
        let goal = RawPosition::from_fen(fen).expect("test FEN");
        let h = Heuristic::new(&goal);
        let exact = Exact {
            h: &h,
            any_ep: false,
        };
        match search(&Chess::default(), &exact, params(1)) {
            Ok(Outcome::Found(moves)) => moves,
            other => panic!("{fen}: no proof game: {other:?}"),
        }
    }

    #[test]
    fn a_key_updated_from_the_parent_is_the_key_made_from_scratch() {
        let mut rng = fastrand::Rng::with_seed(11);
        let mut updated = 0;
        for _ in 0..200 {
            let mut pos = Chess::default();
            for _ in 0..120 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let key = hash(&pos);
                for &m in &moves {
                    if let Some(k) = child_key(&pos, key, m) {
                        assert_eq!(k, hash(&after(&pos, m)), "{} {m:?}", pos.board());
                        updated += 1;
                    }
                }
                let m = moves[rng.usize(..moves.len())];
                pos.play_unchecked(m);
            }
        }
        assert!(updated > 100_000, "{updated}");
    }

    #[test]
    fn a_found_path_leads_to_the_goal() {
        let fen = "r1bqkbnr/pppppppp/2n5/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1";
        let goal = RawPosition::from_fen(fen).expect("test FEN");
        let moves = solve(fen);
        let mut pos = Chess::default();
        for m in &moves {
            pos = pos.play(*m).expect("legal move");
        }
        assert!(reached(&pos, &goal, false));
        assert_eq!(moves.len(), 2);
    }

    #[test]
    fn a_goal_without_castling_rights_needs_the_king_or_rooks_to_move() {
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1";
        let moves = solve(fen);
        // Each of the four rights needs a rook out and back: 16 plies at least.
        assert!(moves.len() >= 16, "{} plies", moves.len());
    }

    #[test]
    fn an_unreachable_goal_is_never_found() {
        // The same placement with black to move needs an odd number of plies, which knights
        // and rooks moving out and back cannot give: the search ends at its node limit.
        let goal =
            RawPosition::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1")
                .expect("test FEN");
        let h = Heuristic::new(&goal);
        let mut p = params(3);
        p.max_nodes = 2_000;
        let exact = Exact {
            h: &h,
            any_ep: false,
        };
        let out = search(&Chess::default(), &exact, p).expect("no deadline");
        assert!(!matches!(out, Outcome::Found(_)), "{out:?}");
    }
}
