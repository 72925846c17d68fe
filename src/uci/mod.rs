//! The UCI engine: what `retro` does when started without a subcommand.
//!
//! Standard input is read on its own thread and passed as events over a crossbeam channel to
//! the protocol thread, which keeps the engine's state. Each `go` starts a search thread that
//! prints its `info` lines and its `bestmove`; the protocol thread stays free to answer
//! `isready` and to pass on `stop`, `ponderhit` and `quit` at once. A table build started in
//! the background reports through the same channel.

pub mod command;
pub mod options;

use std::{
    io::{BufRead, Write},
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    thread::JoinHandle,
    time::{Duration, Instant},
};

use crossbeam_channel::{Receiver, Sender};
use shakmaty::{fen::Fen, uci::UciMove, CastlingMode, Chess, EnPassantMode, Move, Position};

use crate::{
    build::{self, BuildOptions},
    config::Config,
    engine::{
        self, bench, mate_moves,
        search::{hash_of, SearchControl, SearchParams},
        tt::TranspositionTable,
    },
    tablebase::{Material, Tablebase, Wdl},
};
use command::{Command, Start};
use options::{OptionChange, Options};

/// The engine's name as `id name` gives it.
pub const NAME: &str = concat!("Retro ", env!("CARGO_PKG_VERSION"));
/// The engine's authors as `id author` gives them.
pub const AUTHOR: &str = "the Retro developers";

/// What arrives at the protocol thread.
#[derive(Debug)]
pub enum Event {
    /// A line of input.
    Line(String),
    /// The end of the input.
    Eof,
    /// A background table build ended: the directory and the outcome.
    TablesBuilt(PathBuf, Result<usize, String>),
}

/// Whether to go on after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// `quit` (or the end of the input).
    Quit,
}

/// Where UCI output goes: one line at a time, flushed, from any thread.
#[derive(Clone)]
pub struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    /// Output to `w`.
    pub fn new(w: Box<dyn Write + Send>) -> Output {
        Output(Arc::new(Mutex::new(w)))
    }

    /// Writes one line and flushes. A closed output (the GUI went away) is ignored; the
    /// engine ends at the end of its input.
    pub fn line(&self, s: &str) {
        let mut w = match self.0.lock() {
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
}

struct Running {
    /// A search (which must print its bestmove) or a console job (perft, bench).
    is_search: bool,
    control: Arc<SearchControl>,
    /// Set by the search thread just before it prints `bestmove`: from then on the thread
    /// only ends, and a new `go` may wait for it.
    done: Arc<std::sync::atomic::AtomicBool>,
    handle: JoinHandle<()>,
}

impl Running {
    fn done(&self) -> bool {
        self.done.load(std::sync::atomic::Ordering::Acquire) || self.handle.is_finished()
    }
}

/// The engine's state between commands.
pub struct Engine {
    out: Output,
    options: Options,
    pos: Chess,
    /// Keys of the positions before `pos` in the game.
    history: Vec<u64>,
    have_position: bool,
    /// Whether the position came from `position startpos` and legal moves: a proof that it
    /// is legal.
    from_start: bool,
    tt: Arc<TranspositionTable>,
    tables: Option<Arc<Tablebase>>,
    search: Option<Running>,
    events: Sender<Event>,
    building: Option<PathBuf>,
    build_missing: bool,
}

impl Engine {
    /// An engine with the defaults of `config`, writing to `out`; background work reports to
    /// `events`.
    pub fn new(config: &Config, out: Output, events: Sender<Event>) -> Engine {
        let mut options = Options::from_config(config);
        let tt = match TranspositionTable::new(options.hash) {
            Ok(tt) => tt,
            Err(e) => {
                out.info(&format!("{e}; using 1 MB"));
                options.hash = 1;
                TranspositionTable::new(1).unwrap_or_else(|_| std::process::abort())
            }
        };
        let tt = Arc::new(tt);
        let mut e = Engine {
            out,
            options,
            pos: Chess::default(),
            history: Vec::new(),
            have_position: false,
            from_start: true,
            tt,
            tables: None,
            search: None,
            events,
            building: None,
            build_missing: config.build_missing_tables,
        };
        let dir = e.options.table_path.clone();
        e.load_tables(&dir, true);
        e
    }

    /// The current position.
    pub fn position(&self) -> &Chess {
        &self.pos
    }

    /// Whether a search thread is running.
    pub fn searching(&self) -> bool {
        self.search
            .as_ref()
            .is_some_and(|r| !r.handle.is_finished())
    }

    /// Opens the tables of `dir`; when the 3-4-piece ones are missing and building is on,
    /// starts building them in the background.
    fn load_tables(&mut self, dir: &Path, at_start: bool) {
        if dir.as_os_str().is_empty() {
            self.tables = None;
            return;
        }
        match Tablebase::open(dir) {
            Ok(tb) => {
                let n = tb.materials().len();
                log::info!("{n} tables in {}", dir.display());
                let tb = Arc::new(tb);
                self.preload(&tb);
                self.tables = Some(tb);
            }
            Err(e) => {
                self.tables = None;
                if !at_start || !self.build_missing {
                    self.out.info(&format!("cannot open tables: {e}"));
                }
            }
        }
        let present = self
            .tables
            .as_ref()
            .map(|t| t.materials())
            .unwrap_or_default();
        let missing: Vec<Material> = Material::all(4)
            .into_iter()
            .filter(|m| !present.contains(m))
            .collect();
        if missing.is_empty() || !self.build_missing {
            return;
        }
        if self.building.is_some() {
            self.out
                .info("a table build is already running; try again when it ends");
            return;
        }
        self.out.info(&format!(
            "{} of the 35 3-4-piece tables are missing in {}: building them in the background; the search runs without them until they are ready",
            missing.len(),
            dir.display()
        ));
        self.building = Some(dir.to_path_buf());
        let tx = self.events.clone();
        let dir = dir.to_path_buf();
        std::thread::spawn(move || {
            let opts = BuildOptions {
                out: dir.clone(),
                force: false,
                progress: false,
                compression: Default::default(),
            };
            let r = build::build(&missing, &opts, |s| log::info!("{s}"))
                .map(|v| v.len())
                .map_err(|e| e.to_string());
            let _ = tx.send(Event::TablesBuilt(dir, r));
        });
    }

    /// Validates every table on a background thread, so that no search pays for opening one;
    /// refused tables are reported.
    fn preload(&self, tb: &Arc<Tablebase>) {
        let tb = Arc::clone(tb);
        let out = self.out.clone();
        let spawned = std::thread::Builder::new()
            .name("preload".into())
            .spawn(move || {
                let start = Instant::now();
                for (m, e) in tb.preload() {
                    out.info(&format!("table {} refused: {e}", m.name()));
                }
                log::info!("tables validated in {} ms", start.elapsed().as_millis());
            });
        if let Err(e) = spawned {
            log::warn!("cannot preload tables: {e}");
        }
    }

    /// Handles a non-input event.
    pub fn handle_event(&mut self, event: Event) -> Flow {
        match event {
            Event::Line(l) => self.handle_line(&l),
            Event::Eof => {
                self.stop_search();
                Flow::Quit
            }
            Event::TablesBuilt(dir, r) => {
                self.building = None;
                match r {
                    Ok(_) if dir == self.options.table_path => match Tablebase::open(&dir) {
                        Ok(tb) => {
                            self.out.info(&format!(
                                "tables ready: {} tables in {}",
                                tb.materials().len(),
                                dir.display()
                            ));
                            self.tables = Some(Arc::new(tb));
                        }
                        Err(e) => self.out.info(&format!("cannot open tables: {e}")),
                    },
                    Ok(n) => log::info!("built {n} tables in {}", dir.display()),
                    Err(e) => self.out.info(&format!("building tables failed: {e}")),
                }
                Flow::Continue
            }
        }
    }

    /// Handles one line of input.
    pub fn handle_line(&mut self, line: &str) -> Flow {
        log::debug!("<< {line}");
        let cmd = match command::parse(line) {
            Ok(c) => c,
            Err(e) => {
                self.out.info(&e);
                return Flow::Continue;
            }
        };
        match cmd {
            Command::Empty | Command::Register | Command::Debug(_) => {}
            Command::Uci => {
                self.out.line(&format!("id name {NAME}"));
                self.out.line(&format!("id author {AUTHOR}"));
                for l in self.options.declarations() {
                    self.out.line(&l);
                }
                self.out.line("uciok");
            }
            Command::IsReady => self.out.line("readyok"),
            Command::NewGame => {
                if self.searching() {
                    self.out.info("ucinewgame during a search: stopping it");
                    self.stop_search();
                }
                self.renew_hash();
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::Position { start, moves } => self.set_position(&start, &moves),
            Command::Go {
                limits,
                search_moves,
            } => self.go(limits, &search_moves),
            Command::Stop => {
                if let Some(r) = &self.search {
                    r.control.stop();
                }
                self.join_finished();
            }
            Command::PonderHit => {
                if let Some(r) = &self.search {
                    r.control.ponderhit();
                }
            }
            Command::Quit => {
                self.stop_for_quit();
                return Flow::Quit;
            }
            Command::Display => self.display(),
            Command::Probe => self.show_dtm(),
            Command::Legal(fen) => self.legal(fen.as_deref()),
            Command::Perft(n) => self.perft(n),
            Command::Bench(d) => {
                let depth = d.unwrap_or(bench::DEPTH);
                self.start_job(move |control, out| {
                    let r = bench::run(depth, &control.stop, |l| out.line(l));
                    Some(format!(
                        "bench: {} nodes {} nps {} ms",
                        r.nodes,
                        r.nps(),
                        r.time.as_millis()
                    ))
                });
            }
            Command::Eval => {
                let v = engine::eval::evaluate(&self.pos);
                self.out.line(&format!("eval: {v} cp for the side to move"));
            }
            Command::Help => {
                for l in [
                    "UCI: uci isready ucinewgame setoption position go stop ponderhit quit",
                    "console: d (board), probe (table value of the position and its moves), eval,",
                    "  legal [FEN], perft N, bench [DEPTH], help",
                ] {
                    self.out.line(l);
                }
            }
        }
        Flow::Continue
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        match self.options.set(name, value) {
            Err(e) => self.out.info(&e),
            Ok(OptionChange::None) => {}
            Ok(OptionChange::Hash(old)) => {
                if !self.renew_hash() {
                    self.options.hash = old;
                }
            }
            Ok(OptionChange::ClearHash) => {
                // A fresh table: cheaper than writing zeros over the old one, and a running
                // search keeps its own.
                self.renew_hash();
            }
            Ok(OptionChange::TablePath) => {
                let dir = self.options.table_path.clone();
                self.load_tables(&dir, false);
                match &self.tables {
                    Some(t) => self.out.info(&format!(
                        "{} tables in {}",
                        t.materials().len(),
                        dir.display()
                    )),
                    None if dir.as_os_str().is_empty() => self.out.info("tables off"),
                    None => {}
                }
            }
            Ok(OptionChange::ShowDtm) => self.show_dtm(),
            Ok(OptionChange::ShowLegality) => self.legal(None),
        }
    }

    /// A new, empty hash table of the Hash size; on failure the old table stays and the
    /// result is false.
    fn renew_hash(&mut self) -> bool {
        match TranspositionTable::new(self.options.hash) {
            Ok(tt) => {
                self.tt = Arc::new(tt);
                true
            }
            Err(e) => {
                self.out
                    .info(&format!("Hash: {e}; keeping the current table"));
                false
            }
        }
    }

    fn set_position(&mut self, start: &Start, moves: &[String]) {
        let mut pos = match start {
            Start::StartPos => Chess::default(),
            Start::Fen(f) => match crate::cli::parse_fen(f).map_err(|e| format!("{e} in '{f}'")) {
                Ok(p) => p,
                Err(e) => {
                    self.out.info(&format!("{e}; position unchanged"));
                    return;
                }
            },
        };
        let mut history = Vec::with_capacity(moves.len());
        for (i, text) in moves.iter().enumerate() {
            let m = UciMove::from_ascii(text.as_bytes())
                .map_err(|e| e.to_string())
                .and_then(|u| u.to_move(&pos).map_err(|e| e.to_string()));
            match m {
                Ok(m) => {
                    history.push(hash_of(&pos));
                    pos.play_unchecked(m);
                }
                Err(e) => {
                    self.out.info(&format!(
                        "move {} '{text}' is illegal ({e}); position unchanged",
                        i + 1
                    ));
                    return;
                }
            }
        }
        self.pos = pos;
        self.history = history;
        self.have_position = true;
        self.from_start = matches!(start, Start::StartPos);
    }

    fn go(&mut self, limits: engine::time::Limits, search_moves: &[String]) {
        self.join_finished();
        if self.search.is_some() {
            self.out
                .info("already searching: send stop first; go ignored");
            return;
        }
        if !self.have_position {
            self.out
                .info("go before position: searching the start position");
        }
        let mut root_moves: Vec<Move> = Vec::new();
        for text in search_moves {
            match UciMove::from_ascii(text.as_bytes())
                .ok()
                .and_then(|u| u.to_move(&self.pos).ok())
            {
                Some(m) => root_moves.push(m),
                None => self
                    .out
                    .info(&format!("searchmoves: '{text}' is not legal here, ignored")),
            }
        }
        let params = SearchParams {
            pos: self.pos.clone(),
            history: self.history.clone(),
            limits,
            overhead: Duration::from_millis(self.options.move_overhead),
            threads: self.options.threads,
            root_moves,
            report: true,
        };
        let control = Arc::new(SearchControl::new(params.limits.ponder));
        let tt = Arc::clone(&self.tt);
        let tables = self.tables.clone();
        let out = self.out.clone();
        let c = Arc::clone(&control);
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let done_flag = Arc::clone(&done);
        let spawned = std::thread::Builder::new()
            .name("search".into())
            .stack_size(64 << 20)
            .spawn(move || {
                let report = |l: &str| out.line(l);
                let result = engine::think(&params, &tt, tables.as_deref(), &c, &report);
                // Infinite and ponder searches end with stop or ponderhit, never by themselves.
                while (params.limits.is_unbounded()
                    || c.pondering.load(std::sync::atomic::Ordering::Relaxed))
                    && !c.stopped()
                {
                    std::thread::sleep(Duration::from_millis(1));
                }
                let best = result.best.or_else(|| {
                    let moves = params.pos.legal_moves();
                    moves
                        .iter()
                        .find(|m| params.root_moves.is_empty() || params.root_moves.contains(m))
                        .or(moves.first())
                        .copied()
                });
                let line = match best {
                    None => "bestmove 0000".to_string(),
                    Some(b) => {
                        let mut l = format!("bestmove {}", b.to_uci(CastlingMode::Standard));
                        if let Some(p) = result.ponder {
                            l.push_str(&format!(" ponder {}", p.to_uci(CastlingMode::Standard)));
                        }
                        l
                    }
                };
                done_flag.store(true, std::sync::atomic::Ordering::Release);
                out.line(&line);
            });
        match spawned {
            Ok(handle) => {
                self.search = Some(Running {
                    is_search: true,
                    control,
                    done,
                    handle,
                })
            }
            Err(e) => self
                .out
                .info(&format!("cannot start the search thread: {e}")),
        }
    }

    fn join_finished(&mut self) {
        if self.search.as_ref().is_some_and(Running::done) {
            if let Some(r) = self.search.take() {
                let _ = r.handle.join();
            }
        }
    }

    /// Stops a running search and waits for its `bestmove`, or a console job and waits for
    /// it to end.
    pub fn stop_search(&mut self) {
        if let Some(r) = self.search.take() {
            r.control.stop();
            let _ = r.handle.join();
        }
    }

    /// Stops what runs; waits for a search's `bestmove` but not for a console job.
    fn stop_for_quit(&mut self) {
        if let Some(r) = self.search.take() {
            r.control.stop();
            if r.is_search {
                let _ = r.handle.join();
            }
        }
    }

    fn display(&self) {
        let board = self.pos.board();
        for rank in (0..8).rev() {
            let mut row = format!(" {} ", rank + 1);
            for file in 0..8 {
                let sq = shakmaty::Square::from_coords(
                    shakmaty::File::new(file),
                    shakmaty::Rank::new(rank),
                );
                row.push(' ');
                row.push(board.piece_at(sq).map_or('.', |p| p.char()));
            }
            self.out.line(&row);
        }
        self.out.line("    a b c d e f g h");
        let fen = Fen::from_position(&self.pos, EnPassantMode::Legal);
        self.out.line(&format!("FEN: {fen}"));
        self.out.line(&format!("Key: {:016x}", hash_of(&self.pos)));
        let checkers: Vec<String> = self
            .pos
            .checkers()
            .into_iter()
            .map(|s| s.to_string())
            .collect();
        self.out.line(&format!("Checkers: {}", checkers.join(" ")));
        self.out.line(&format!("Table: {}", self.table_verdict()));
    }

    fn table_verdict(&self) -> String {
        let Some(tb) = &self.tables else {
            return "no tables loaded".to_string();
        };
        match tb.probe(&self.pos) {
            Ok(v) => describe(v, self.pos.turn()),
            Err(e) => format!("not covered ({e})"),
        }
    }

    /// The DTM of the position and of every legal move, as `info string` lines.
    fn show_dtm(&self) {
        let Some(tb) = &self.tables else {
            self.out.info("dtm: no tables loaded (TablePath)");
            return;
        };
        match tb.probe(&self.pos) {
            Err(e) => self
                .out
                .info(&format!("dtm: position not covered by the tables: {e}")),
            Ok(v) => {
                self.out
                    .info(&format!("dtm position {}", describe(v, self.pos.turn())));
                match tb.rank_moves(&self.pos) {
                    Ok(moves) => {
                        for (m, v) in moves {
                            self.out.info(&format!(
                                "dtm move {} {}",
                                m.to_uci(CastlingMode::Standard),
                                describe(v, self.pos.turn())
                            ));
                        }
                    }
                    Err(e) => self.out.info(&format!("dtm: moves not covered: {e}")),
                }
            }
        }
    }

    /// The `legal` console command and the Show Legality button: the legality analysis of
    /// `fen`, or of the current position (legal outright when it was reached by moves from the
    /// starting position).
    fn legal(&self, fen: Option<&str>) {
        use crate::legality::{analyze, Limits, RawPosition};
        let limits = Limits {
            deadline: Some(Instant::now() + std::time::Duration::from_secs(5)),
            ..Limits::default()
        };
        let p = match fen {
            Some(f) => match RawPosition::from_fen(f) {
                Ok(p) => p,
                Err(e) => {
                    self.out.info(&format!("legal: {e} in '{f}'"));
                    return;
                }
            },
            None if self.from_start => {
                self.out.info(&format!(
                    "legal: legal (reached from the starting position by the {} moves given)",
                    self.history.len()
                ));
                return;
            }
            None => {
                let fen = Fen::from_position(&self.pos, EnPassantMode::Legal);
                match RawPosition::from_fen(&fen.to_string()) {
                    Ok(p) => p,
                    Err(e) => {
                        self.out.info(&format!("legal: {e}"));
                        return;
                    }
                }
            }
        };
        let v = analyze(&p, limits);
        self.out
            .info(&format!("legal: {} ({}) {}", v.status, v.reason, p.fen()));
    }

    fn perft(&mut self, depth: u32) {
        let pos = self.pos.clone();
        self.start_job(move |control, out| {
            let start = Instant::now();
            let mut total = 0;
            for m in pos.legal_moves() {
                let mut child = pos.clone();
                child.play_unchecked(m);
                let Some(n) = engine::perft::perft(&child, depth - 1, &control.stop) else {
                    return Some(format!("perft {depth}: stopped"));
                };
                total += n;
                out.line(&format!("{}: {n}", m.to_uci(CastlingMode::Standard)));
            }
            let t = start.elapsed();
            Some(format!(
                "perft {depth}: {total} nodes in {} ms ({} nps)",
                t.as_millis(),
                (total as f64 / t.as_secs_f64().max(1e-6)) as u64
            ))
        });
    }

    /// Runs a console job on its own thread, like a search: `stop` ends it, and `isready`
    /// is answered meanwhile. The job's last line is printed after the job counts as done,
    /// so that a command sent on seeing it is not refused as busy.
    fn start_job(
        &mut self,
        job: impl FnOnce(&SearchControl, &Output) -> Option<String> + Send + 'static,
    ) {
        self.join_finished();
        if self.search.is_some() {
            self.out.info("busy: send stop first");
            return;
        }
        let control = Arc::new(SearchControl::new(false));
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (c, d, out) = (Arc::clone(&control), Arc::clone(&done), self.out.clone());
        match std::thread::Builder::new()
            .name("job".into())
            .spawn(move || {
                let last = job(&c, &out);
                d.store(true, std::sync::atomic::Ordering::Release);
                if let Some(l) = last {
                    out.line(&l);
                }
            }) {
            Ok(handle) => {
                self.search = Some(Running {
                    is_search: false,
                    control,
                    done,
                    handle,
                })
            }
            Err(e) => self.out.info(&format!("cannot start a thread: {e}")),
        }
    }
}

/// A table value in words: `win mate 14 (27 plies) for white`, `draw`, `loss mate -3 (6 plies)`.
fn describe(v: crate::tablebase::Value, turn: shakmaty::Color) -> String {
    match (v.wdl(), mate_moves(v)) {
        (Wdl::Draw, _) | (_, None) => "draw".to_string(),
        (wdl, Some(n)) => format!("{wdl} mate {n} ({} plies) for {turn}", v.plies()),
    }
}

/// Runs the engine on standard input and output until `quit` or the end of the input.
pub fn run(config: &Config) {
    let (tx, rx) = crossbeam_channel::unbounded();
    let out = Output::new(Box::new(std::io::stdout()));
    let reader_tx = tx.clone();
    std::thread::spawn(move || read_input(std::io::stdin().lock(), &reader_tx));
    let mut engine = Engine::new(config, out, tx);
    serve(&mut engine, &rx);
}

/// Sends each line of `input` as an event, then [`Event::Eof`].
pub fn read_input(input: impl BufRead, tx: &Sender<Event>) {
    for line in input.split(b'\n') {
        match line {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                if tx.send(Event::Line(text)).is_err() {
                    return;
                }
            }
            Err(e) => {
                log::error!("reading input: {e}");
                break;
            }
        }
    }
    let _ = tx.send(Event::Eof);
}

/// Handles events until `quit` or the end of the input.
pub fn serve(engine: &mut Engine, rx: &Receiver<Event>) {
    while let Ok(event) = rx.recv() {
        if engine.handle_event(event) == Flow::Quit {
            break;
        }
    }
    engine.stop_search();
}
