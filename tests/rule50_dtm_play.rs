//! How often pure DTM play loses a 5-piece win to the 50-move rule: random positions that the
//! side to move wins under the rule from clock 0 (WDL50 `win`), each played out with the tables
//! three ways, the game drawn when the halfmove clock reaches 100:
//!
//! - **DTM against DTM**: the winner plays the fastest mate, the defender the longest
//!   resistance to mate (what DTM tables alone, such as Gaviota's, tell an engine);
//! - **DTM against the rule**: the same winner, the defender playing for the rule (a move that
//!   draws by the rule if there is one, else a loss whose mate does not fit the rule with the
//!   opponent's zeroing move farthest, else the longest resistance: Retro's defence with
//!   `Syzygy50MoveRule`);
//! - **the rule against the rule**: both sides as Retro plays under the rule. Every one of these
//!   must end in mate within the rule: a failure is a bug in the tables or the move order.
//!
//! Ignored: it needs the 5-piece DTM and DTZ50 tables (build-tables --max-pieces 5), in
//! `RETRO_TABLES` or the project's tables/. Materials with both files present are sampled.
//! `cargo test --release --test rule50_dtm_play -- --ignored --nocapture`; set
//! `RETRO_RULE50_POSITIONS` for another count than 10,000, `RETRO_RULE50_CLOCK` for another
//! starting halfmove clock than 0 (the positions are then wins within the rule from that clock).

#[path = "common/random.rs"]
mod random;

use std::{
    collections::BTreeMap,
    path::PathBuf,
    sync::atomic::{AtomicUsize, Ordering::Relaxed},
};

use random::{random_position, Rng};
use rayon::prelude::*;
use retro_engine::rule50;
use retro_tables::{Material, Tablebase, Wdl50};
use shakmaty::{Chess, Position};

fn tables_dir() -> PathBuf {
    std::env::var_os("RETRO_TABLES").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tables"),
        PathBuf::from,
    )
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum End {
    /// The winner mated.
    Mate,
    /// The clock reached 100 plies.
    Rule,
    /// Anything else: a stalemate, the defender winning, a missing table (a bug here).
    Other,
}

/// Plays `pos` out: `winner_rule` and `defender_rule` say which side plays by the rule's order
/// ([`rule50::rank_moves`]), the other by DTM alone ([`Tablebase::rank_moves`]).
fn play(tb: &Tablebase, mut pos: Chess, winner_rule: bool, defender_rule: bool) -> (End, u32) {
    let winner = pos.turn();
    let mut plies = 0;
    loop {
        if pos.is_checkmate() {
            return (
                if pos.turn() != winner {
                    End::Mate
                } else {
                    End::Other
                },
                plies,
            );
        }
        if pos.halfmoves() >= rule50::RULE_PLIES {
            return (End::Rule, plies);
        }
        let by_rule = if pos.turn() == winner {
            winner_rule
        } else {
            defender_rule
        };
        let mv = if by_rule {
            rule50::rank_moves(tb, &pos)
                .ok()
                .and_then(|r| r.first().map(|m| m.mv))
        } else {
            tb.rank_moves(&pos)
                .ok()
                .and_then(|r| r.first().map(|m| m.0))
        };
        let Some(mv) = mv else {
            return (End::Other, plies);
        };
        pos.play_unchecked(mv);
        plies += 1;
    }
}

#[test]
#[ignore = "needs the 5-piece DTM and DTZ50 tables; minutes"]
fn pure_dtm_play_against_the_50_move_rule() {
    let dir = tables_dir();
    let tb = Tablebase::open(&dir).expect("tables");
    let materials: Vec<Material> = tb
        .materials()
        .into_iter()
        .filter(|m| m.piece_count() == 5 && dir.join(format!("{}.rdtz", m.name())).is_file())
        .collect();
    assert!(
        !materials.is_empty(),
        "no 5-piece DTZ50 tables in {}",
        dir.display()
    );
    let want: usize = std::env::var("RETRO_RULE50_POSITIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    let clock: u32 = std::env::var("RETRO_RULE50_CLOCK")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    // The positions: drawn once, in order, so that the sample is the same on every run.
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut positions = Vec::new();
    let mut drawn = 0u64;
    while positions.len() < want {
        let m = materials[(rng.next() % materials.len() as u64) as usize];
        let Some(pos) = random_position(m, clock, &mut rng) else {
            continue;
        };
        drawn += 1;
        if tb.probe_dtz(&pos).is_ok_and(|d| {
            d.wdl50() == Wdl50::Win && rule50::outcome(d, clock) == rule50::Outcome::Win
        }) {
            positions.push((m, pos));
        }
    }
    let start = std::time::Instant::now();
    let done = AtomicUsize::new(0);
    let games: Vec<(Material, [(End, u32); 3])> = positions
        .par_iter()
        .map(|(m, pos)| {
            let r = [
                play(&tb, pos.clone(), false, false),
                play(&tb, pos.clone(), false, true),
                play(&tb, pos.clone(), true, true),
            ];
            let n = done.fetch_add(1, Relaxed) + 1;
            if n.is_multiple_of(1000) {
                eprintln!(
                    "{n} positions played, {:.0} s",
                    start.elapsed().as_secs_f64()
                );
            }
            (*m, r)
        })
        .collect();
    let mut per: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    let mut ends = [
        BTreeMap::<End, usize>::new(),
        BTreeMap::new(),
        BTreeMap::new(),
    ];
    let mut failures = Vec::new();
    for ((m, r), (_, pos)) in games.iter().zip(&positions) {
        let e = per.entry(m.name()).or_default();
        e[0] += 1;
        for (k, (end, _)) in r.iter().enumerate() {
            *ends[k].entry(*end).or_default() += 1;
            if k < 2 && *end == End::Rule {
                e[k + 1] += 1;
            }
        }
        if r[2].0 != End::Mate {
            failures.push(format!(
                "{}: {:?} after {} plies",
                shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal),
                r[2].0,
                r[2].1
            ));
        }
        if r[2].0 == End::Other || r[0].0 == End::Other || r[1].0 == End::Other {
            e[3] += 1;
        }
    }
    println!(
        "{} won positions (WDL50 win within the rule from clock {clock}) of {} materials, from \
         {drawn} random positions; played in {:.0} s",
        positions.len(),
        materials.len(),
        start.elapsed().as_secs_f64()
    );
    println!("material  positions  lost to the rule: DTM v DTM  DTM v rule  other ends");
    for (name, e) in &per {
        println!(
            "{name:8}  {:9}  {:26}  {:10}  {:10}",
            e[0], e[1], e[2], e[3]
        );
    }
    for (k, what) in ["DTM v DTM", "DTM v rule", "rule v rule"]
        .iter()
        .enumerate()
    {
        println!("{what:12} {:?}", ends[k]);
    }
    assert!(
        failures.is_empty(),
        "{} games under the rule not won: {:?}",
        failures.len(),
        &failures[..failures.len().min(5)]
    );
}
