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
    search::{self, SearchControl, SearchParams, SearchResult},
    tt::TranspositionTable,
    vocab::{mate_in, mated_in, tb_loss_in, tb_win_in},
    winrate::WdlChances,
};
use retro_tables::{Dtz, Syzygy, Tablebase, Value, Wdl};

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
/// the search's progress to `report` when `params.report` is set; in a table position, the
/// `params.multipv` best moves as the tables rank them, each with its exact score.
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
            report(Report::NoMoves {
                mated,
                show_wdl: params.show_wdl,
            });
        }
        return SearchResult {
            score: if mated { mated_in(0) } else { 0 },
            ..SearchResult::default()
        };
    }
    if params.strength.is_some() {
        // A limited strength plays every position by its weakened search, without the tables.
        return search::search(params, tt, heuristics, None, control, &on_info);
    }
    let Some((source, mut ranked, probes)) = table_moves(params, tables) else {
        return search::search(params, tt, heuristics, tables, control, &on_info);
    };
    control.add_tbhits(probes);
    ranked.retain(|t| params.root_moves.is_empty() || params.root_moves.contains(&t.mv));
    let Some(best) = ranked.first().copied() else {
        return search::search(params, tt, heuristics, tables, control, &on_info);
    };
    let syzygy = matches!(source, Source::Syzygy(_));
    // The search's expected reply to its choice among drawing moves.
    let mut reply = None;
    if best.score == 0 && (best.drawn_by_rule.is_none() || syzygy) {
        // Drawn by the position itself: the search picks among the moves that keep the draw
        // without the rule's help (Syzygy's: among all drawing moves), silently; its choice
        // leads the drawing lines. (A draw only by the rule, a cursed win, plays the tables'
        // best, which keeps the mate in reach should the opponent zero the clock.)
        let drawing: Vec<Move> = ranked
            .iter()
            .filter(|t| t.score == 0 && (t.drawn_by_rule.is_none() || syzygy))
            .map(|t| t.mv)
            .collect();
        let restricted = SearchParams {
            root_moves: drawing,
            report: false,
            multipv: 1,
            ..params.clone()
        };
        let found = search::search(&restricted, tt, heuristics, tables, control, &|_| {});
        if let Some(i) = found
            .best
            .and_then(|m| ranked.iter().position(|t| t.mv == m))
        {
            let chosen = ranked.remove(i);
            ranked.insert(0, chosen);
            reply = found.ponder;
        }
    }
    // Lines are followed in the tables while time remains (a 7-piece Syzygy line probes every
    // move of every position on it); after that each is its first move.
    let budget = params.limits.budget(pos.turn(), params.overhead);
    let in_time = || !control.stopped() && budget.is_none_or(|b| control.elapsed() < b.hard);
    let mut lines: Vec<Vec<Move>> = ranked
        .iter()
        .take(params.multipv.max(1))
        .map(|t| source.line(pos, t.mv, &in_time))
        .collect();
    if let (Some(r), [_]) = (reply, lines[0].as_slice()) {
        lines[0].push(r);
    }
    let depth = ranked[0].plies.max(1);
    if params.report {
        if best.score == 0 {
            if let Some(tb) = tables.filter(|_| matches!(source, Source::Rule(_))) {
                if let (Ok(dtm), Ok(dtz)) = (tb.probe(pos), tb.probe_dtz(pos)) {
                    if dtm.wdl() != Wdl::Draw {
                        report(Report::Notice(Notice::DrawnByRule {
                            dtm,
                            dtz,
                            clock: pos.halfmoves(),
                        }));
                    }
                }
            }
        }
        for (k, (t, line)) in ranked.iter().zip(&lines).enumerate() {
            if let Some((dtm, dtz)) = t.drawn_by_rule.filter(|_| k > 0) {
                report(Report::Notice(Notice::MoveDrawnByRule {
                    multipv: k as u32 + 1,
                    mv: t.mv,
                    dtm,
                    dtz,
                }));
            }
            report(Report::Info(SearchInfo {
                depth,
                seldepth: depth,
                multipv: k as u32 + 1,
                score: Score::from_search(t.score),
                wdl: params.show_wdl.then_some(t.wdl),
                nodes: 0,
                nps: 0,
                hashfull: 0,
                tbhits: control.tbhits(),
                time: control.elapsed(),
                pv: line.clone(),
            }));
        }
    }
    let first = &lines[0];
    SearchResult {
        best: first.first().copied(),
        ponder: first.get(1).copied(),
        score: ranked[0].score,
        depth,
        nodes: 0,
    }
}

/// A root move as the tables value it.
#[derive(Clone, Copy, Debug)]
struct TableMove {
    mv: Move,
    /// Its exact score on the search's scale: a mate score where the mate is certain (within
    /// the 50-move rule when it applies), a [`TB_WIN`] score where only the DTZ promises the
    /// result in time, 0 for a draw.
    score: i32,
    /// Win, draw or loss for the mover.
    wdl: WdlChances,
    /// Plies to mate (or to the zeroing move where no mate is promised).
    plies: u32,
    /// Drawn only by the 50-move rule: the mover's value without the rule (where the tables
    /// have DTM) and its DTZ.
    drawn_by_rule: Option<(Option<Value>, Dtz)>,
}

/// Which tables value the root moves.
#[derive(Clone, Copy)]
enum Source<'t> {
    /// Retro's tables under the 50-move rule (DTZ50 and DTM).
    Rule(&'t Tablebase),
    /// Retro's tables by pure DTM.
    Dtm(&'t Tablebase),
    /// Syzygy's, under the 50-move rule, by DTZ alone.
    Syzygy(&'t Syzygy),
}

/// Plies of a table line shown as a principal variation.
const LINE_PLIES: usize = 40;

impl Source<'_> {
    /// The table line that starts with `mv` from `pos`: the move, then the best move of each
    /// position while the result is not a draw and `in_time` says so.
    fn line(self, pos: &Chess, mv: Move, in_time: &dyn Fn() -> bool) -> Vec<Move> {
        let mut line = vec![mv];
        let mut p = pos.clone();
        p.play_unchecked(mv);
        match self {
            Source::Dtm(tb) => line.extend(table_line(tb, &p, LINE_PLIES - 1)),
            Source::Rule(_) | Source::Syzygy(_) => {
                while line.len() < LINE_PLIES && in_time() {
                    let ranked = match self {
                        Source::Rule(tb) => rule50::rank_moves(tb, &p).ok(),
                        Source::Syzygy(sz) => rule50::rank_moves_syzygy(sz, &p),
                        Source::Dtm(_) => None,
                    };
                    match ranked.as_deref().and_then(<[RuleMove]>::first) {
                        Some(r) if r.outcome != Outcome::Draw => {
                            line.push(r.mv);
                            p.play_unchecked(r.mv);
                        }
                        _ => break,
                    }
                }
            }
        }
        line
    }
}

/// Every legal move of the root valued by the tables that cover it (Retro's, else Syzygy's),
/// best first, with the number of probes; `None` where no table covers the root and its moves.
fn table_moves<'t>(
    params: &'t SearchParams,
    tables: Option<&'t Tablebase>,
) -> Option<(Source<'t>, Vec<TableMove>, u64)> {
    let pos = &params.pos;
    if pos.castles().any() {
        return None;
    }
    if let Some(tb) = tables {
        if params.rule50 {
            if let Ok(ranked) = rule50::rank_moves(tb, pos) {
                let moves = ranked.iter().map(|r| rule_move(r, true)).collect();
                return Some((Source::Rule(tb), moves, 2 * ranked.len() as u64));
            }
        }
        if let Ok(ranked) = tb.rank_moves(pos) {
            let n = ranked.len() as u64;
            let moves = ranked.into_iter().map(|(m, v)| dtm_move(m, v)).collect();
            return Some((Source::Dtm(tb), moves, n));
        }
    }
    let sz = params.syzygy.as_deref()?;
    if pos.board().occupied().count() > params.syzygy_limit {
        return None;
    }
    let ranked = rule50::rank_moves_syzygy(sz, pos)?;
    let moves = ranked.iter().map(|r| rule_move(r, false)).collect();
    Some((Source::Syzygy(sz), moves, ranked.len() as u64))
}

/// The value of a move ranked under the 50-move rule: a mate score where the DTM mate comes
/// within the rule, a [`TB_WIN`] score where only the DTZ promises the result in time, 0
/// where the rule draws it (noting a position won or lost without it; `with_dtm` false for
/// Syzygy's, which have no DTM).
fn rule_move(r: &RuleMove, with_dtm: bool) -> TableMove {
    let plies = r.dtm.plies();
    let to_zero = r.dtz_after.plies() + 1;
    let fits = r.mate_fits;
    let (score, wdl, plies) = match r.outcome {
        Outcome::Win if fits => (mate_in(plies as i32), WdlChances::WIN, plies),
        Outcome::Loss if fits => (mated_in(plies as i32), WdlChances::LOSS, plies),
        Outcome::Win => (tb_win_in(to_zero as i32), WdlChances::WIN, to_zero),
        Outcome::Loss => (tb_loss_in(to_zero as i32), WdlChances::LOSS, to_zero),
        Outcome::Draw => (0, WdlChances::DRAW, 0),
    };
    let drawn_by_rule = (r.outcome == Outcome::Draw && r.dtz_after.0 != 0)
        .then_some((with_dtm.then_some(r.dtm), Dtz(-r.dtz_after.0)));
    TableMove {
        mv: r.mv,
        score,
        wdl,
        plies,
        drawn_by_rule,
    }
}

/// The value of a move by pure DTM (`v` for the mover).
fn dtm_move(mv: Move, v: Value) -> TableMove {
    let plies = v.plies();
    let (score, wdl) = match v.wdl() {
        Wdl::Win => (mate_in(plies as i32), WdlChances::WIN),
        Wdl::Loss => (mated_in(plies as i32), WdlChances::LOSS),
        Wdl::Draw => (0, WdlChances::DRAW),
    };
    TableMove {
        mv,
        score,
        wdl,
        plies,
        drawn_by_rule: None,
    }
}
