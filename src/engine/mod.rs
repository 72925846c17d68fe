//! The playing engine: evaluation, search, transposition table, time management, and the choice
//! of a move at the root, where positions the tables cover are played from the tables.

pub mod bench;
pub mod eval;
pub mod perft;
pub mod search;
pub mod time;
pub mod tt;

use shakmaty::{CastlingMode, Chess, Move, Position};

use crate::tablebase::{Tablebase, Value, Wdl};
use search::{SearchControl, SearchParams, SearchResult, MATE};
use tt::TranspositionTable;

/// The mate distance in moves that UCI reports for a table value: positive when the side to
/// move mates, negative when it is mated, `None` for a draw.
pub fn mate_moves(v: Value) -> Option<i32> {
    match v.wdl() {
        Wdl::Win => Some(v.plies().div_ceil(2) as i32),
        Wdl::Loss => Some(-((v.plies() / 2) as i32)),
        Wdl::Draw => None,
    }
}

/// The table's principal variation from `pos`: the best move of each position in turn, up to
/// `max` plies or the end of the game.
pub fn table_line(tb: &Tablebase, pos: &Chess, max: usize) -> Vec<Move> {
    let mut line = Vec::new();
    let mut p = pos.clone();
    while line.len() < max {
        let Ok(ranked) = tb.rank_moves(&p) else {
            break;
        };
        let Some((m, v)) = ranked.first().copied() else {
            break;
        };
        if v.wdl() == Wdl::Draw {
            break;
        }
        line.push(m);
        p.play_unchecked(m);
    }
    line
}

/// Chooses the move to play: from the tables when they cover the root (fastest mate, longest
/// resistance, or the search's choice among the drawing moves), else by the search.
pub fn think(
    params: &SearchParams,
    tt: &TranspositionTable,
    tables: Option<&Tablebase>,
    control: &SearchControl,
    report: &(dyn Fn(&str) + Sync),
) -> SearchResult {
    let pos = &params.pos;
    if pos.legal_moves().is_empty() {
        let score = if pos.is_check() { -MATE } else { 0 };
        if params.report {
            let s = if score == 0 { "cp 0" } else { "mate 0" };
            report(&format!("info depth 0 score {s}"));
        }
        return SearchResult {
            score,
            ..SearchResult::default()
        };
    }
    if let Some(tb) = tables {
        if let Ok(ranked) = tb.rank_moves(pos) {
            let allowed: Vec<&(Move, Value)> = ranked
                .iter()
                .filter(|(m, _)| params.root_moves.is_empty() || params.root_moves.contains(m))
                .collect();
            if let Some(&&(best, value)) = allowed.first() {
                control.add_tbhits(ranked.len() as u64);
                if value.wdl() != Wdl::Draw {
                    return table_move(params, tb, control, report, best, value, ranked.len());
                }
                // Drawn: let the search pick among the drawing moves.
                let drawing: Vec<Move> = allowed
                    .iter()
                    .filter(|(_, v)| v.wdl() == Wdl::Draw)
                    .map(|(m, _)| *m)
                    .collect();
                let restricted = SearchParams {
                    root_moves: drawing,
                    ..params.clone()
                };
                return search::search(&restricted, tt, tables, control, report);
            }
        }
    }
    search::search(params, tt, tables, control, report)
}

fn table_move(
    params: &SearchParams,
    tb: &Tablebase,
    control: &SearchControl,
    report: &(dyn Fn(&str) + Sync),
    best: Move,
    value: Value,
    probes: usize,
) -> SearchResult {
    let mut after = params.pos.clone();
    after.play_unchecked(best);
    let mut line = vec![best];
    line.extend(table_line(tb, &after, 40));
    let plies = value.plies() as i32;
    let score = if value.wdl() == Wdl::Win {
        MATE - plies
    } else {
        -(MATE - plies)
    };
    if params.report {
        let pv: Vec<String> = line
            .iter()
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .collect();
        report(&format!(
            "info depth {} seldepth {} multipv 1 score {} nodes 0 nps 0 hashfull 0 tbhits {probes} time {} pv {}",
            plies.max(1),
            plies.max(1),
            search::uci_score(score),
            control.elapsed().as_millis(),
            pv.join(" ")
        ));
    }
    SearchResult {
        best: Some(best),
        ponder: line.get(1).copied(),
        score,
        depth: plies.max(1) as u32,
        nodes: 0,
    }
}
