//! The choice of a move at the root: positions the tables cover are played from the tables
//! (fastest mate, longest resistance, or the search's choice among the drawing moves), others
//! by the search. Under the 50-move rule (`Syzygy50MoveRule`, the default) the tables' moves
//! are those that win within the rule from the position's halfmove clock, the fastest mate by
//! DTM among them ([`rule50`]); without DTZ50 tables, or with the option off, pure DTM.
//! Positions beyond Retro's tables are played from the Syzygy tables of `SyzygyPath`. At a
//! limited strength (`UCI_LimitStrength`) every position is played by the weakened search.

use shakmaty::{Chess, Move, Position};

use super::{
    heuristics::HeuristicsPool,
    report::{Notice, Report, Score, SearchInfo},
    rule50::{self, Outcome, RuleMove},
    search::{self, SearchControl, SearchParams, SearchResult, MATE, TB_WIN},
    tt::TranspositionTable,
};
use retro_tables::{Tablebase, Value, Wdl};

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
        if params.rule50 {
            if let Ok(ranked) = rule50::rank_moves(tb, pos) {
                let allowed = allowed(params, &ranked);
                if let Some(&&best) = allowed.first() {
                    control.add_tbhits(2 * ranked.len() as u64);
                    if best.outcome != Outcome::Draw || best.dtm.wdl() != Wdl::Draw {
                        return rule_move(params, tb, control, report, best, ranked.len());
                    }
                    // Drawn by the position itself: the search picks among the moves that keep
                    // the draw without the rule's help.
                    let drawing = allowed
                        .iter()
                        .filter(|r| r.outcome == Outcome::Draw && r.dtm.wdl() == Wdl::Draw);
                    let restricted = SearchParams {
                        root_moves: drawing.map(|r| r.mv).collect(),
                        ..params.clone()
                    };
                    return search::search(&restricted, tt, heuristics, tables, control, &on_info);
                }
            }
        }
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
    if let Some(sz) = params.syzygy.as_deref() {
        let pieces = pos.board().occupied().count();
        if pieces <= params.syzygy_limit && !pos.castles().any() {
            if let Some(ranked) = rule50::rank_moves_syzygy(sz, pos) {
                let allowed = allowed(params, &ranked);
                if let Some(&&best) = allowed.first() {
                    control.add_tbhits(ranked.len() as u64);
                    if best.outcome != Outcome::Draw {
                        let to_zero = best.dtz_after.plies() as i32 + 1;
                        let score = if best.outcome == Outcome::Win {
                            TB_WIN - to_zero
                        } else {
                            -(TB_WIN - to_zero)
                        };
                        let probes = ranked.len() as u64;
                        return table_result(
                            params,
                            control,
                            report,
                            vec![best.mv],
                            score,
                            to_zero,
                            probes,
                        );
                    }
                    let drawing = allowed.iter().filter(|r| r.outcome == Outcome::Draw);
                    let restricted = SearchParams {
                        root_moves: drawing.map(|r| r.mv).collect(),
                        ..params.clone()
                    };
                    return search::search(&restricted, tt, heuristics, tables, control, &on_info);
                }
            }
        }
    }
    search::search(params, tt, heuristics, tables, control, &on_info)
}

/// The ranked moves that `go searchmoves` allows (all when it named none).
fn allowed<'r>(params: &SearchParams, ranked: &'r [RuleMove]) -> Vec<&'r RuleMove> {
    ranked
        .iter()
        .filter(|r| params.root_moves.is_empty() || params.root_moves.contains(&r.mv))
        .collect()
}

/// The table's move under the 50-move rule, reported with the line of such moves as its
/// principal variation: a mate score where the DTM mate comes within the rule from the current
/// clock, a [`TB_WIN`] score where only the DTZ promises the win in time, 0 (with a notice)
/// where the rule draws a position won or lost without it.
fn rule_move(
    params: &SearchParams,
    tb: &Tablebase,
    control: &SearchControl,
    report: &(dyn Fn(Report) + Sync),
    best: RuleMove,
    probes: usize,
) -> SearchResult {
    let mut line = vec![best.mv];
    let mut p = params.pos.clone();
    p.play_unchecked(best.mv);
    while line.len() < 40 {
        let Ok(ranked) = rule50::rank_moves(tb, &p) else {
            break;
        };
        match ranked.first() {
            Some(r) if r.outcome != Outcome::Draw => {
                line.push(r.mv);
                p.play_unchecked(r.mv);
            }
            _ => break,
        }
    }
    let clock = params.pos.halfmoves();
    let plies = best.dtm.plies() as i32;
    let to_zero = best.dtz_after.plies() as i32 + 1;
    let score = match best.outcome {
        Outcome::Win if rule50::mate_fits(best.dtm, clock) => MATE - plies,
        Outcome::Loss if rule50::mate_fits(best.dtm, clock) => -(MATE - plies),
        Outcome::Win => TB_WIN - to_zero,
        Outcome::Loss => -(TB_WIN - to_zero),
        Outcome::Draw => 0,
    };
    if params.report && best.outcome == Outcome::Draw {
        if let (Ok(dtm), Ok(dtz)) = (tb.probe(&params.pos), tb.probe_dtz(&params.pos)) {
            report(Report::Notice(Notice::DrawnByRule { dtm, dtz, clock }));
        }
    }
    table_result(
        params,
        control,
        report,
        line,
        score,
        plies,
        2 * probes as u64,
    )
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
    table_result(params, control, report, line, score, plies, probes as u64)
}

/// The result of a move the tables chose (the first of `line`, their principal variation), of
/// search value `score`, `plies` from mate, reported as one `info` line.
fn table_result(
    params: &SearchParams,
    control: &SearchControl,
    report: &(dyn Fn(Report) + Sync),
    line: Vec<Move>,
    score: i32,
    plies: i32,
    tbhits: u64,
) -> SearchResult {
    let depth = plies.max(1) as u32;
    let best = line.first().copied();
    let ponder = line.get(1).copied();
    if params.report {
        report(Report::Info(SearchInfo {
            depth,
            seldepth: depth,
            score: Score::from_search(score),
            nodes: 0,
            nps: 0,
            hashfull: 0,
            tbhits,
            time: control.elapsed(),
            pv: line,
        }));
    }
    SearchResult {
        best,
        ponder,
        score,
        depth,
        nodes: 0,
    }
}
