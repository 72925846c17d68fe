//! Positions where the 50-move rule decides how to win: the side to move wins within the rule
//! from its halfmove clock, but the fastest mate (DTM) would cross 100 plies without a capture
//! or pawn move, and the first move of the fastest mate already gives the win away. The set in
//! tests/data/rule50.fen was found by the ignored test below; the suite checks its claims
//! against the tables, and tests/uci.rs plays them out.

mod common;

use retro_build::verify::entry_position;
use retro_engine::fen::parse_fen;
use retro_engine::rule50::{self, Outcome};
use retro_tables::{index::IndexScheme, Material, Tablebase};
use shakmaty::{fen::Fen, Chess, Color, EnPassantMode, Position};

/// The materials searched, with captures or pawn moves that a DTM line can postpone.
const MATERIALS: [&str; 6] = ["KQvKR", "KQvKN", "KQvKB", "KRvKN", "KRvKB", "KQvKP"];

/// What a position of the set must satisfy with its clock: a win within the rule, a DTM mate
/// that does not fit, and a DTM-best first move after which the win no longer fits.
fn check(tb: &Tablebase, pos: &Chess) -> Result<(), String> {
    let clock = pos.halfmoves();
    let dtz = tb.probe_dtz(pos).map_err(|e| e.to_string())?;
    let dtm = tb.probe(pos).map_err(|e| e.to_string())?;
    if rule50::outcome(dtz, clock) != Outcome::Win {
        return Err(format!(
            "DTZ {dtz} with clock {clock}: no win within the rule"
        ));
    }
    if rule50::mate_fits(dtm, clock) {
        return Err(format!(
            "the mate in {} plies fits the clock {clock}",
            dtm.plies()
        ));
    }
    let ranked = tb.rank_moves(pos).map_err(|e| e.to_string())?;
    let (fastest, _) = ranked.first().ok_or("no moves")?;
    let after = tb.move_dtz(pos, fastest).map_err(|e| e.to_string())?;
    let clock_after = if fastest.is_zeroing() { 0 } else { clock + 1 };
    if rule50::outcome(after, clock_after) == Outcome::Loss {
        return Err(format!(
            "the fastest mate's first move still wins in time (DTZ {after})"
        ));
    }
    Ok(())
}

fn read_set() -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rule50.fen");
    std::fs::read_to_string(path)
        .expect("tests/data/rule50.fen")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_set_holds_what_it_claims() {
    let tb = Tablebase::open(common::all_tables()).expect("tables");
    let set = read_set();
    assert!(set.len() >= 12, "{} positions", set.len());
    for fen in &set {
        let pos = parse_fen(fen).expect("legal FEN");
        if let Err(e) = check(&tb, &pos) {
            panic!("{fen}: {e}");
        }
    }
}

/// Prints up to three positions per material (white to move, the clock set to the most the
/// win allows, less a ply to spare) that satisfy `check`: the lines of tests/data/rule50.fen.
#[test]
#[ignore = "a search over six tables; its output is tests/data/rule50.fen"]
fn find_positions() {
    let tb = Tablebase::open(common::all_tables()).expect("tables");
    for name in MATERIALS {
        let m: Material = name.parse().expect("material");
        let ix = IndexScheme::new(m);
        let mut found = 0;
        let mut idx = 0;
        while idx < ix.size() && found < 3 {
            idx += 7919;
            let Some(sq) = ix.decode(idx % ix.size()) else {
                continue;
            };
            let Some(mut pos) = entry_position(ix.slots(), &sq, Color::White) else {
                continue;
            };
            let Ok(dtz) = tb.probe_dtz(&pos) else {
                continue;
            };
            if dtz.0 <= 0 || dtz.0 > 60 {
                continue;
            }
            // The most the clock can be for the win to fit, with a ply to spare.
            let clock = 99 - dtz.plies();
            let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
            let mut parts: Vec<&str> = fen.split(' ').collect();
            let c = clock.to_string();
            parts[4] = &c;
            pos = parse_fen(&parts.join(" ")).expect("legal FEN");
            if check(&tb, &pos).is_ok() {
                println!("{}", Fen::from_position(&pos, EnPassantMode::Legal));
                found += 1;
            }
        }
    }
}
