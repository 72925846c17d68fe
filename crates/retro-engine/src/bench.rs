//! `bench`: a fixed-depth search of a fixed set of positions, one thread, a fresh 16 MB hash
//! table and no endgame tables for each, so that the node count is the same on every run of
//! the same build: a signature of the search, and its speed in nodes per second.

use std::{
    sync::atomic::{AtomicBool, Ordering},
    time::Instant,
};

pub use super::report::{BenchPosition, BenchResult};
use super::{
    eval::Evaluator,
    report::Score,
    search::{search_alone, SearchParams},
    tt::TranspositionTable,
};

/// The depth searched in each position.
pub const DEPTH: u32 = 10;

/// The positions: openings, middlegames with both kings castled or not, and endgames.
pub const POSITIONS: [&str; 12] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r2q1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R2QK2R w KQ - 0 9",
    "2r3k1/pp3ppp/2n1b3/3p4/3P4/2P1BN2/P4PPP/2R3K1 b - - 3 22",
    "r1b2rk1/2q1bppp/p2ppn2/1p6/3BPP2/2NB4/PPP1Q1PP/2KR3R w - - 2 13",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/8/4k3/3p4/3P4/4K3/8/8 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "8/5pk1/6p1/3R4/7P/6P1/r4P2/6K1 w - - 0 40",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "4r1k1/r1q2ppp/ppp2n2/4P3/5Rb1/1N1BQ3/PPP3PP/R5K1 w - - 1 17",
];

/// Runs the bench at `depth` with the evaluation `eval`, calling `on_position` after each
/// position; `stop` ends it after the current position.
pub fn run(
    depth: u32,
    eval: &Evaluator,
    stop: &AtomicBool,
    mut on_position: impl FnMut(BenchPosition),
) -> BenchResult {
    let mut nodes = 0;
    let start = Instant::now();
    for (i, fen) in POSITIONS.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let Ok(pos) = crate::fen::parse_fen(fen) else {
            continue;
        };
        let Ok(tt) = TranspositionTable::new(16) else {
            continue;
        };
        let params = SearchParams {
            eval: eval.clone(),
            ..SearchParams::fixed_depth(pos, depth)
        };
        let r = search_alone(&params, &tt);
        nodes += r.nodes;
        on_position(BenchPosition {
            number: i + 1,
            of: POSITIONS.len(),
            nodes: r.nodes,
            best: r.best,
            score: Score::from_search(r.score),
        });
    }
    BenchResult {
        nodes,
        time: start.elapsed(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn bench_positions_parse_and_searches_repeat() {
        let go = std::sync::atomic::AtomicBool::new(false);
        for eval in [
            super::Evaluator::Classic,
            super::Evaluator::Network(crate::nnue::Network::embedded()),
        ] {
            let a = super::run(4, &eval, &go, |_| {});
            let b = super::run(4, &eval, &go, |_| {});
            assert_eq!(a.nodes, b.nodes);
            assert!(a.nodes > super::POSITIONS.len() as u64 * 10);
        }
    }
}
