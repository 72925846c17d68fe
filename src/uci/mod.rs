//! The UCI front end: what `retro` does when started without a subcommand. It only parses and
//! prints: each input line becomes a [`Command`] ([`command`]), which [`Protocol`] hands to
//! the [`Engine`], and the engine's answers and reports become UCI text ([`output`], the only
//! code that writes it).
//!
//! ```text
//! stdin ─▶ serve ─▶ Protocol::handle_line ─▶ Engine (no stdio)
//!                        │                    │ reports, from its threads
//! stdout ◀── Output ◀────┴────────────────────┘
//! ```

pub mod command;
pub mod go;
pub mod output;

use std::{io::BufRead, sync::Arc};

pub use command::{Command, Start, UciError};
pub use output::Output;
use shakmaty::{fen::Fen, EnPassantMode, Position};

use crate::play::board;
use retro_engine::config::Config;
use retro_engine::{bench, Dtm, Engine, OptionChange, Reporter};
use retro_tables::Dtz;

/// The engine's name as `id name` gives it.
pub const NAME: &str = concat!("Retro ", env!("CARGO_PKG_VERSION"));
/// The engine's authors as `id author` gives them.
pub const AUTHOR: &str = "the Retro developers";

/// Whether to go on after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// `quit` (or the end of the input).
    Quit,
}

/// The protocol: the engine and where its answers go.
pub struct Protocol {
    out: Output,
    engine: Engine,
}

impl Protocol {
    /// An engine with the defaults of `config`, answering on `out`.
    pub fn new(config: &Config, out: Output) -> Protocol {
        let printer = out.clone();
        let reporter: Reporter = Arc::new(move |r| printer.report(&r));
        Protocol {
            engine: Engine::new(config, reporter),
            out,
        }
    }

    /// The engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Stops a running search and waits for its `bestmove`, or a console job and waits for
    /// it to end.
    pub fn stop_and_wait(&mut self) {
        self.engine.stop_and_wait();
    }

    /// Handles one line of input.
    pub fn handle_line(&mut self, line: &str) -> Flow {
        log::debug!("<< {line}");
        match command::parse(line) {
            Ok(cmd) => self.handle(cmd),
            Err(e) => {
                if e.is_position() {
                    self.out.info(&format!("{e}; the position is unchanged"));
                    self.engine.refuse_position(e.to_string());
                } else {
                    self.out.info(&e.to_string());
                }
                Flow::Continue
            }
        }
    }

    /// Carries out one command.
    fn handle(&mut self, cmd: Command) -> Flow {
        let out = &self.out;
        let refused = |e: &dyn std::fmt::Display| out.info(&e.to_string());
        match cmd {
            Command::Empty | Command::Register | Command::Debug(_) => {}
            Command::Uci => {
                out.line(&format!("id name {NAME}"));
                out.line(&format!("id author {AUTHOR}"));
                for spec in self.engine.options().specs() {
                    out.line(&output::option_line(&spec));
                }
                out.line("uciok");
            }
            Command::IsReady => {
                self.engine.ready();
                out.line("readyok");
            }
            Command::NewGame => self.engine.new_game(),
            Command::SetOption { name, value } => {
                let result = self.engine.set_option(&name, value.as_deref());
                out.set_chess960(self.engine.options().chess960);
                match result {
                    Ok(OptionChange::ShowDtm) => self.show_dtm(),
                    Ok(OptionChange::ShowLegality) => self.legal(None),
                    Ok(_) => {}
                    Err(e) => refused(&e),
                }
            }
            Command::Position { start, moves } => {
                let fen = match &start {
                    Start::StartPos => None,
                    Start::Fen(f) => Some(f.as_str()),
                };
                if let Err(e) = self.engine.set_position(fen, &moves) {
                    refused(&format!("{e}; the position is unchanged"));
                }
            }
            Command::Go(go) => {
                for p in &go.problems {
                    out.info(&p.to_string());
                }
                if let Err(e) = self.engine.go(go.limits, &go.search_moves) {
                    refused(&e);
                }
            }
            Command::Stop => self.engine.stop(),
            Command::PonderHit => self.engine.ponderhit(),
            Command::Quit => {
                self.engine.quit();
                return Flow::Quit;
            }
            Command::Display => self.display(),
            Command::Probe => self.show_dtm(),
            Command::Legal(fen) => self.legal(fen.as_deref()),
            Command::Perft(n) => {
                if let Err(e) = self.engine.perft(n) {
                    refused(&e);
                }
            }
            Command::Bench(d) => {
                if let Err(e) = self.engine.bench(d.unwrap_or(bench::DEPTH)) {
                    refused(&e);
                }
            }
            Command::Eval => out.line(&format!(
                "eval: {} cp for the side to move",
                self.engine.eval()
            )),
            Command::Genfens { count, seed, book } => self.genfens(count, seed, book.as_deref()),
            Command::Help => {
                for l in [
                    "UCI: uci isready ucinewgame setoption position go stop ponderhit quit",
                    "console: d (board), probe (table value of the position and its moves), eval,",
                    "  legal [FEN], perft N, bench [DEPTH], genfens N seed S book <None|FILE>, help",
                ] {
                    out.line(l);
                }
            }
        }
        Flow::Continue
    }

    /// `genfens`: the openings, one `info string genfens FEN` line each (OpenBench reads them).
    fn genfens(&self, count: usize, seed: u64, book: Option<&str>) {
        let book = match book {
            None => Vec::new(),
            Some(path) => match std::fs::read_to_string(path) {
                Ok(text) => crate::tune::datagen::read_book(&text, path),
                Err(e) => {
                    self.out.info(&format!("genfens: book {path}: {e}"));
                    return;
                }
            },
        };
        match crate::tune::datagen::genfens(count, seed, &book) {
            Ok(fens) => {
                for fen in fens {
                    self.out.info(&format!("genfens {fen}"));
                }
            }
            Err(e) => self.out.info(&format!("genfens: {e}")),
        }
    }

    /// `d`: the board, FEN, key, checkers and the table's verdict.
    fn display(&self) {
        let pos = self.engine.position();
        for l in board::render(pos, None, shakmaty::Color::White, true).lines() {
            self.out.line(l);
        }
        let fen = Fen::from_position(pos, EnPassantMode::Legal);
        self.out.line(&format!("FEN: {fen}"));
        self.out.line(&format!("Key: {:016x}", self.engine.key()));
        let checkers: Vec<String> = pos.checkers().into_iter().map(|s| s.to_string()).collect();
        self.out.line(&format!("Checkers: {}", checkers.join(" ")));
        let table = match self.engine.tables() {
            Some(tb) => board::full_verdict(&tb, pos),
            None => "no tables loaded".to_string(),
        };
        self.out.line(&format!("Table: {table}"));
    }

    /// The DTM of the position and of every legal move, as `info string` lines (the `probe`
    /// command and the Show DTM button); with the DTZ50 tables, each line also gives the class
    /// under the 50-move rule and the DTZ, of the position for the side to move and of each
    /// move for the side that plays it.
    fn show_dtm(&self) {
        let turn = self.engine.position().turn();
        match self.engine.dtm() {
            Err(e) => self.out.info(&format!("dtm: {e}")),
            Ok(Dtm {
                position,
                dtz,
                clock,
                move_dtz,
                moves,
            }) => {
                let rule = |d: Option<Dtz>| match d {
                    Some(d) => format!(", WDL50 {} DTZ {d}", d.wdl50()),
                    None => String::new(),
                };
                self.out.info(&format!(
                    "dtm position {}{} (halfmove clock {clock})",
                    board::value_text(position, turn),
                    rule(dtz)
                ));
                match moves {
                    Ok(moves) => {
                        for (k, (m, v)) in moves.into_iter().enumerate() {
                            // The move's class for its mover, and the DTZ after it.
                            let after = move_dtz.get(k).copied().flatten();
                            let mine = after.map(|d| Dtz(-d.0));
                            self.out.info(&format!(
                                "dtm move {} {}{}",
                                output::uci_move(m, self.out.castling_mode()),
                                board::value_text(v, turn),
                                rule(mine)
                            ));
                        }
                    }
                    Err(e) => self.out.info(&format!("dtm: moves not covered: {e}")),
                }
            }
        }
    }

    /// The `legal` command and the Show Legality button: the analysis runs on a job thread,
    /// its answer arrives as a report.
    fn legal(&mut self, fen: Option<&str>) {
        if let Err(e) = self.engine.legality(fen) {
            self.out.info(&format!("legal: {e}"));
        }
    }
}

/// Runs the engine on the command lines given as arguments (`retro "genfens 10 seed 1 book
/// None" quit`, as OpenBench runs engines), then on standard input unless one was `quit`.
pub fn run_lines(config: &Config, lines: &[String]) {
    let out = Output::new(Box::new(std::io::stdout()));
    let mut protocol = Protocol::new(config, out);
    for line in lines {
        if protocol.handle_line(line) == Flow::Quit {
            return;
        }
    }
    serve(&mut protocol, std::io::stdin().lock());
}

/// Runs the engine on standard input and output until `quit` or the end of the input.
pub fn run(config: &Config) {
    let out = Output::new(Box::new(std::io::stdout()));
    let mut protocol = Protocol::new(config, out);
    serve(&mut protocol, std::io::stdin().lock());
}

/// Handles each line of `input` until `quit` or the end of the input; at the end of the input
/// a running search is stopped and its `bestmove` waited for.
pub fn serve(protocol: &mut Protocol, input: impl BufRead) {
    for line in input.split(b'\n') {
        match line {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes);
                if protocol.handle_line(&text) == Flow::Quit {
                    return;
                }
            }
            Err(e) => {
                log::error!("reading input: {e}");
                break;
            }
        }
    }
    protocol.stop_and_wait();
}
