//! The choice of a move at the root: positions the tables cover are played from the tables
//! (fastest mate, longest resistance, or the search's choice among the drawing moves), others
//! by the search. At a limited strength (`UCI_LimitStrength`) every position is played by the
//! weakened search.

use shakmaty::{Chess, Move, Position};

use super::{
    heuristics::HeuristicsPool,
    report::{Report, Score, SearchInfo},
    search::{self, SearchControl, SearchParams, SearchResult, MATE},
    tt::TranspositionTable,
};
use crate::tablebase::{Tablebase, Value, Wdl};

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
/// resistance, or the search's choice among the drawing moves), else by the search. Reports
/// the search's progress to `report` when `params.report` is set.
pub fn think(
    params: &SearchParams,
    tt: &TranspositionTable,
    heuristics: &HeuristicsPool,
    tables: Option<&Tablebase>,
    control: &SearchControl,
    report: &(dyn Fn(Report) + Sync),
) -> SearchResult {
    let pos = &params.pos;
    let on_info = |info: SearchInfo| report(Report::Info(info));
    if pos.legal_moves().is_empty() {
        let mated = pos.is_check();
        if params.report {
            report(Report::NoMoves { mated });
        }
        return SearchResult {
            score: if mated { -MATE } else { 0 },
            ..SearchResult::default()
        };
    }
    if params.strength.is_some() {
        // A limited strength plays every position by its weakened search, without the tables.
        return search::search(params, tt, heuristics, None, control, &on_info);
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
                return search::search(&restricted, tt, heuristics, tables, control, &on_info);
            }
        }
    }
    search::search(params, tt, heuristics, tables, control, &on_info)
}

/// The table's move `best` of value `value`, reported with the table's line as its principal
/// variation.
fn table_move(
    params: &SearchParams,
    tb: &Tablebase,
    control: &SearchControl,
    report: &(dyn Fn(Report) + Sync),
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
    let depth = plies.max(1) as u32;
    let ponder = line.get(1).copied();
    if params.report {
        report(Report::Info(SearchInfo {
            depth,
            seldepth: depth,
            score: Score::from_search(score),
            nodes: 0,
            nps: 0,
            hashfull: 0,
            tbhits: probes as u64,
            time: control.elapsed(),
            pv: line,
        }));
    }
    SearchResult {
        best: Some(best),
        ponder,
        score,
        depth,
        nodes: 0,
    }
}
