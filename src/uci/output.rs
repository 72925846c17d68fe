//! The UCI text the engine writes: [`Output`] (one line at a time, flushed, from any thread)
//! and the formatting of the engine's reports and answers. No other module writes UCI text.

use std::{
    io::Write,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
};

use shakmaty::{CastlingMode, Move};

use retro_engine::{Legality, OptionKind, OptionSpec, Report, SearchInfo, WdlChances};

/// Where UCI output goes: one line at a time, flushed, from any thread; moves written with
/// the castling notation in force.
#[derive(Clone)]
pub struct Output {
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    /// Castling written king takes rook (`UCI_Chess960`).
    chess960: Arc<AtomicBool>,
}

impl Output {
    /// Output to `w`, castling in standard notation.
    pub fn new(w: Box<dyn Write + Send>) -> Output {
        Output {
            writer: Arc::new(Mutex::new(w)),
            chess960: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Writes castling king takes rook (Chess960) or as the king's two-square move.
    pub fn set_chess960(&self, on: bool) {
        self.chess960.store(on, Ordering::Relaxed);
    }

    /// The castling notation in force.
    pub fn castling_mode(&self) -> CastlingMode {
        if self.chess960.load(Ordering::Relaxed) {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        }
    }

    /// Writes one line and flushes. A closed output (the GUI went away) is ignored; the
    /// engine ends at the end of its input.
    pub fn line(&self, s: &str) {
        let mut w = match self.writer.lock() {
            Ok(w) => w,
            Err(poisoned) => poisoned.into_inner(),
        };
        let _ = writeln!(w, "{s}");
        let _ = w.flush();
    }

    /// An `info string` line.
    pub fn info(&self, s: &str) {
        self.line(&format!("info string {s}"));
    }

    /// Writes the lines of an engine report.
    pub fn report(&self, report: &Report) {
        self.line(&report_line(report, self.castling_mode()));
    }
}

/// A move in UCI notation, castling written as `mode` has it.
pub fn uci_move(m: Move, mode: CastlingMode) -> String {
    m.to_uci(mode).to_string()
}

/// The line of an engine report, castling written as `mode` has it.
pub fn report_line(report: &Report, mode: CastlingMode) -> String {
    let uci_move = |m: Move| uci_move(m, mode);
    match report {
        Report::Info(info) => info_line(info, mode),
        Report::NoMoves { mated, show_wdl } => {
            let (score, wdl) = if *mated {
                ("mate 0", WdlChances::LOSS)
            } else {
                ("cp 0", WdlChances::DRAW)
            };
            if *show_wdl {
                format!("info depth 0 score {score} wdl {wdl}")
            } else {
                format!("info depth 0 score {score}")
            }
        }
        Report::BestMove { best: None, .. } => "bestmove 0000".to_string(),
        Report::BestMove {
            best: Some(b),
            ponder,
        } => match ponder {
            Some(p) => format!("bestmove {} ponder {}", uci_move(*b), uci_move(*p)),
            None => format!("bestmove {}", uci_move(*b)),
        },
        Report::PerftMove { mv, nodes } => format!("{}: {nodes}", uci_move(*mv)),
        // Stockfish's closing lines, which perft tools read; the time before them.
        Report::PerftDone { depth, nodes, time } => format!(
            "info string perft {depth}: {nodes} nodes in {} ms ({} nps)\n\nNodes searched: \
             {nodes}",
            time.as_millis(),
            (*nodes as f64 / time.as_secs_f64().max(1e-6)) as u64
        ),
        Report::PerftStopped { depth } => format!("perft {depth}: stopped"),
        Report::BenchPosition(p) => p.to_string(),
        Report::BenchDone(r) => format!(
            "bench: {} positions, {} ms\n{} nodes {} nps",
            retro_engine::bench::POSITIONS.len(),
            r.time.as_millis(),
            r.nodes,
            r.nps()
        ),
        Report::Notice(n) => format!("info string {n}"),
        Report::Legality(l) => legality_lines(l, mode),
    }
}

/// The `info string` lines of the legality analysis's answer (one, or two with a proof game).
fn legality_lines(l: &Legality, mode: CastlingMode) -> String {
    match l {
        Legality::FromStart { moves: 0 } => {
            "info string legal: legal (the starting position)".to_string()
        }
        Legality::FromStart { moves: 1 } => "info string legal: legal (reached from the \
                                             starting position by the 1 move given)"
            .to_string(),
        Legality::FromStart { moves } => format!(
            "info string legal: legal (reached from the starting position by the {moves} moves \
             given)"
        ),
        Legality::Analysed {
            verdict,
            fen,
            stopped,
        } => {
            let stop = if *stopped { " [stopped]" } else { "" };
            let mut text = format!(
                "info string legal: {} ({}){stop} {fen}",
                verdict.status, verdict.reason
            );
            if let Some(game) = verdict.proof.as_ref().filter(|g| g.plies() > 0) {
                let moves: Vec<String> = game.moves.iter().map(|m| uci_move(*m, mode)).collect();
                text.push_str(&format!(
                    "\ninfo string legal: proof game {} plies: {}",
                    game.plies(),
                    moves.join(" ")
                ));
            }
            text
        }
    }
}

/// An `info` line of the search.
fn info_line(i: &SearchInfo, mode: CastlingMode) -> String {
    let pv: Vec<String> = i.pv.iter().map(|m| uci_move(*m, mode)).collect();
    let wdl = i.wdl.map(|w| format!(" wdl {w}")).unwrap_or_default();
    format!(
        "info depth {} seldepth {} multipv {} score {}{wdl} nodes {} nps {} hashfull {} tbhits {} time {} pv {}",
        i.depth,
        i.seldepth,
        i.multipv,
        i.score,
        i.nodes,
        i.nps,
        i.hashfull,
        i.tbhits,
        i.time.as_millis(),
        pv.join(" ")
    )
}

/// The `option` line declaring an option in the answer to `uci`.
pub fn option_line(spec: &OptionSpec) -> String {
    let name = spec.name;
    match &spec.kind {
        OptionKind::Spin { default, min, max } => {
            format!("option name {name} type spin default {default} min {min} max {max}")
        }
        OptionKind::Check { default } => {
            format!("option name {name} type check default {default}")
        }
        OptionKind::Text { default } if default.is_empty() => {
            format!("option name {name} type string default <empty>")
        }
        OptionKind::Text { default } => {
            format!("option name {name} type string default {default}")
        }
        OptionKind::Button => format!("option name {name} type button"),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use shakmaty::{uci::UciMove, Chess};

    use super::*;
    use retro_engine::{Notice, Options, Score};

    #[test]
    fn reports_as_uci_lines() {
        let pos = Chess::default();
        let e4 = "e2e4"
            .parse::<UciMove>()
            .expect("uci")
            .to_move(&pos)
            .expect("legal");
        let info = SearchInfo {
            depth: 3,
            seldepth: 5,
            multipv: 1,
            score: Score::Cp(20),
            wdl: None,
            nodes: 1234,
            nps: 5000,
            hashfull: 7,
            tbhits: 0,
            time: Duration::from_millis(250),
            pv: vec![e4],
        };
        assert_eq!(
            report_line(&Report::Info(info), CastlingMode::Standard),
            "info depth 3 seldepth 5 multipv 1 score cp 20 nodes 1234 nps 5000 hashfull 7 \
             tbhits 0 time 250 pv e2e4"
        );
        assert_eq!(
            report_line(
                &Report::BestMove {
                    best: Some(e4),
                    ponder: None
                },
                CastlingMode::Standard
            ),
            "bestmove e2e4"
        );
        // Castling: the king's two-square move, or king takes rook with UCI_Chess960.
        let castle = shakmaty::Move::Castle {
            king: shakmaty::Square::E1,
            rook: shakmaty::Square::H1,
        };
        let best = Report::BestMove {
            best: Some(castle),
            ponder: None,
        };
        assert_eq!(report_line(&best, CastlingMode::Standard), "bestmove e1g1");
        assert_eq!(report_line(&best, CastlingMode::Chess960), "bestmove e1h1");
        assert_eq!(
            report_line(
                &Report::BestMove {
                    best: None,
                    ponder: None
                },
                CastlingMode::Standard
            ),
            "bestmove 0000"
        );
        assert_eq!(
            report_line(
                &Report::NoMoves {
                    mated: true,
                    show_wdl: false
                },
                CastlingMode::Standard
            ),
            "info depth 0 score mate 0"
        );
        assert_eq!(
            report_line(
                &Report::NoMoves {
                    mated: false,
                    show_wdl: true
                },
                CastlingMode::Standard
            ),
            "info depth 0 score cp 0 wdl 0 1000 0"
        );
        assert_eq!(
            report_line(&Report::Notice(Notice::TablesOff), CastlingMode::Standard),
            "info string tables off"
        );
    }

    #[test]
    fn option_declarations() {
        let o = Options::from_config(&retro_engine::config::Config::default());
        let lines: Vec<String> = o.specs().iter().map(option_line).collect();
        assert_eq!(lines.len(), 18);
        assert!(lines.contains(&"option name EvalFile type string default <embedded>".to_string()));
        assert!(lines.contains(&format!(
            "option name Use NNUE type check default {}",
            retro_engine::config::DEFAULT_USE_NNUE
        )));
        assert!(
            lines.contains(&"option name MultiPV type spin default 1 min 1 max 500".to_string())
        );
        assert!(lines.contains(&"option name UCI_ShowWDL type check default false".to_string()));
        assert!(lines.contains(&"option name UCI_Chess960 type check default false".to_string()));
        assert!(lines.contains(&"option name SyzygyPath type string default <empty>".to_string()));
        assert!(lines
            .contains(&"option name SyzygyProbeLimit type spin default 7 min 0 max 7".to_string()));
        assert!(lines.contains(&"option name Syzygy50MoveRule type check default true".to_string()));
        let elo = retro_engine::strength::ELO_RANGE;
        let elo_line = format!(
            "option name UCI_Elo type spin default 1500 min {} max {}",
            elo.start(),
            elo.end()
        );
        assert!(lines.contains(&elo_line), "{lines:?}");
        assert!(lines[0].starts_with("option name Hash type spin default 16 min 1 max"));
        assert!(lines.contains(&"option name Show DTM type button".to_string()));
        assert!(lines.contains(&"option name Ponder type check default false".to_string()));
    }
}
