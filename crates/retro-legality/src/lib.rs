//! Legality analysis: whether a position can arise in a game from the starting position.
//!
//! - `position`: a position as a FEN states it, unvalidated.
//! - [`rules`]: static rules (kings, piece counts and promotions, pawn captures, checks,
//!   castling rights, en passant square).
//! - [`revmoves`]: the reverse move generator.
//! - [`kernel`]: proof-kernel search over pawn columns and piece counts.
//! - `rows`: extended proof kernels, the ranks of a kernel's captures as a constraint
//!   problem solved by arc consistency.
//! - `lastmove`: last-move analysis, recursive over captures, checks and single candidates.
//! - `heuristic`, `astar`, `proofgame`: proof games, found by weighted A* with a
//!   relaxed-problem estimate; `route`: the initial path, a proof kernel's captures as
//!   waypoints of the search (`route::piece_counts`: the pieces at each waypoint;
//!   `route::shut_in`: waypoints out of reach for pieces shut in at home; `route::estimate`:
//!   each waypoint as a leg of the search, with its estimate); `unblock`: the second,
//!   non-admissible estimate for pieces in each other's way (`around`: piece distances around
//!   the pawns); [`replay`]: the check every proof game passes.
//! - `kernel_move`: the vocabulary of proof kernels (`KernelPiece`, the kernel's piece types;
//!   kernel moves and their targets).
//! - [`count`]: the number of legal chess positions estimated from a decided sample.
//!
//! A position is `illegal` only with a proof, `legal` only with one (a proof game that replays
//! from the starting position to it), and `unknown` otherwise.

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod around;
mod assign;
mod astar;
pub mod count;
mod frontier;
mod heuristic;
pub mod kernel;
mod kernel_move;
mod lastmove;
pub mod limits;
mod position;
pub mod proofgame;
mod reason;
pub mod replay;
pub mod revmoves;
mod route;
mod rows;
pub mod rules;
mod unblock;

use std::{fmt, time::Instant};

pub use self::{
    kernel::Kind,
    kernel_move::{KernelMove, KernelResult},
    lastmove::Analysis,
    limits::{Budget, Limits, Stop},
    position::{FenError, RawPosition},
    proofgame::ProofGame,
    reason::{Illegality, ProofSearchEnd, Reason, Undecided},
    rules::Rule,
};

/// The outcome of the analysis of one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// Proven reachable.
    Legal,
    /// Proven unreachable.
    Illegal,
    /// Neither proven.
    Unknown,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Legal => "legal",
            Status::Illegal => "illegal",
            Status::Unknown => "unknown",
        })
    }
}

/// A status with the rule or stage that decided it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Legal, illegal or unknown.
    pub status: Status,
    /// What decided it.
    pub reason: Reason,
    /// Positions the last-move analysis looked at.
    pub nodes: u64,
    /// For a legal position, a game that reaches it (replayed and checked).
    pub proof: Option<ProofGame>,
}

impl Verdict {
    /// The verdict that `reason` decides, its status derived from it.
    fn new(reason: Reason, nodes: u64, proof: Option<ProofGame>) -> Verdict {
        Verdict {
            status: reason.status(),
            reason,
            nodes,
            proof,
        }
    }
}

/// How a time limit is shared, in sixths of it: the last-move analysis takes the first
/// `FIRST_SIXTHS`; when that is not enough, the proof game search goes on to `PROOF_SIXTHS` and
/// the last-move analysis takes the rest. A legal position's time belongs to its proof game
/// search (the last-move analysis can never finish one), and illegal positions are mostly
/// decided within a fraction of a second.
const FIRST_SIXTHS: u32 = 2;
/// See [`FIRST_SIXTHS`].
const PROOF_SIXTHS: u32 = 5;

/// Analyses `p` within `limits`.
///
/// With a time limit, the last-move analysis gets the first third of it. When that is not
/// enough, the proof game search gets the next half and the last-move analysis, going on from
/// what it has settled, the last sixth. Without one, each runs to its node limit in turn.
pub fn analyze(p: &RawPosition, limits: Limits) -> Verdict {
    let mut verdict = analyze_within(p, limits);
    // A cancelled analysis ran out of time because it was told to stop: it says so.
    if limits.cancelled() {
        if let Reason::Unknown { why, proof_search } = &mut verdict.reason {
            if *why == Undecided::TimeLimit {
                *why = Undecided::Stopped;
            }
            if *proof_search == Some(ProofSearchEnd::TimeLimit) {
                *proof_search = Some(ProofSearchEnd::Stopped);
            }
        }
    }
    verdict
}

/// [`analyze`], where a cancelled analysis reads as one out of time.
fn analyze_within(p: &RawPosition, limits: Limits) -> Verdict {
    if let Some(rule) = rules::check(p) {
        return Verdict::new(Reason::Illegal(Illegality::Rule(rule)), 0, None);
    }
    if p.is_start() {
        let empty = ProofGame { moves: Vec::new() };
        return Verdict::new(Reason::StartingPosition, 0, Some(empty));
    }
    let started = Instant::now();
    let sixths = |n: u32| {
        limits
            .deadline
            .map(|d| started + d.saturating_duration_since(started) * n / 6)
    };
    let mut a = Analysis::new(Limits {
        deadline: sixths(FIRST_SIXTHS),
        ..limits
    });
    let first = a.illegal(p);
    let cut = first == Err(Stop::Time) && !limits.expired();
    let mut reason = judged(p, &a, first);
    let searched =
        reason.status() != Status::Illegal && limits.proof_nodes > 0 && !limits.expired();
    if !searched {
        return Verdict::new(reason, a.nodes, None);
    }
    let proof_limits = Limits {
        max_nodes: limits.proof_nodes,
        deadline: if cut {
            sixths(PROOF_SIXTHS)
        } else {
            limits.deadline
        },
        ..limits
    };
    let proof_stop = match proofgame::find(p, proof_limits, &mut |_| {}) {
        Ok(Some(game)) => {
            let plies = game.plies();
            return Verdict::new(Reason::ProofGame { plies }, a.nodes, Some(game));
        }
        Ok(None) => ProofSearchEnd::NotFound,
        Err(_) => ProofSearchEnd::TimeLimit,
    };
    if cut && !limits.expired() {
        a.set_deadline(limits.deadline);
        let second = a.illegal(p);
        reason = judged(p, &a, second);
    }
    if let Reason::Unknown { proof_search, .. } = &mut reason {
        *proof_search = Some(proof_stop);
    }
    Verdict::new(reason, a.nodes, None)
}

/// The reason (and so the status) of a last-move analysis `a` of `p` that ended with `result`.
fn judged(p: &RawPosition, a: &Analysis, result: Result<Option<Illegality>, Stop>) -> Reason {
    let unknown = |why| Reason::Unknown {
        why,
        proof_search: None,
    };
    match result {
        Ok(Some(why)) => Reason::Illegal(why),
        // The analysis checks the relaxed problem (see `unsolvable`) once it has a kernel; one
        // that stopped before gets the check here.
        Err(_) if unsolvable(p) => Reason::Illegal(Illegality::Unsolvable),
        Ok(None) if a.root_kernel == Some(true) => unknown(Undecided::KernelExists),
        Ok(None) => unknown(Undecided::NotProven),
        Err(Stop::Nodes) => unknown(Undecided::NodeLimit),
        Err(Stop::Time) => unknown(Undecided::TimeLimit),
    }
}

/// Whether the relaxed problem of the proof game search has no solution from the starting
/// position to `p`: its estimate (`heuristic::Heuristic`) is infinite, so that no game
/// reaches `p` (a piece shut in at home by pawns that never moved counts as captured there,
/// so that the promotions it leaves to do may be too many).
pub fn unsolvable(p: &RawPosition) -> bool {
    heuristic::Heuristic::new(p)
        .estimate(&shakmaty::Chess::default())
        .is_none()
}

/// Analyses a FEN.
///
/// # Errors
/// A malformed FEN.
pub fn analyze_fen(fen: &str, limits: Limits) -> Result<Verdict, FenError> {
    Ok(analyze(&RawPosition::from_fen(fen)?, limits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_goal_the_relaxed_problem_cannot_reach_is_illegal() {
        // Black's c8 bishop is shut in by the b7 and d7 pawns, which never moved, and c8 is
        // empty: it was taken at home. Black's two light bishops are then both promoted, and
        // with four more queens and a third rook that is seven promotions for the six pawns
        // black has lost. (A cpr10k position that the kernel and last-move analysis leave
        // open.)
        // The kernel search, which knows the bishop was taken at home, finds no kernel first.
        let fen = "1q6/BpNpr3/n4q1r/RbP1qBr1/B1PQ4/2q3R1/1bbNQ1q1/k4K2 w - - 0 1";
        let p = RawPosition::from_fen(fen).expect("test FEN");
        assert!(unsolvable(&p));
        assert_eq!(analyze(&p, Limits::default()).status, Status::Illegal);
        // A cpr1k position that only the relaxed problem proves illegal.
        let only = "n2RRq2/3p2Bp/1PK5/2Q1R3/p3r2r/PN1B1kNP/Qrbbn1bR/N4q2 w - - 0 1";
        let p = RawPosition::from_fen(only).expect("test FEN");
        let v = analyze(&p, Limits::default());
        assert_eq!(
            (v.status, v.reason),
            (Status::Illegal, Reason::Illegal(Illegality::Unsolvable))
        );
        // With a light bishop fewer (one promotion fewer), the relaxed problem has a solution.
        let fewer = "1q6/BpNpr3/n4q1r/RbP1qBr1/B1PQ4/2q3R1/1b1NQ1q1/k4K2 w - - 0 1";
        let p = RawPosition::from_fen(fewer).expect("test FEN");
        assert!(!unsolvable(&p));
        // A position a few moves from the start.
        let near = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2";
        let p = RawPosition::from_fen(near).expect("test FEN");
        assert!(!unsolvable(&p));
    }
}
