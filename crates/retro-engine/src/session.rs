//! The engine as a library: [`Engine`] owns the position and the game before it, the options,
//! the transposition table, the endgame tables (and their background build) and the threads
//! of a search or console job. Its commands return at once (`go`, `perft` and `bench` run on
//! a thread of their own) and everything it has to say arrives at its [`Reporter`] as typed
//! [`Report`]s. It reads and writes no stream: a front end (the UCI module) parses the
//! input, calls these methods and prints the reports.

use std::{
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex, MutexGuard,
    },
    time::{Duration, Instant},
};

use shakmaty::{uci::UciMove, CastlingMode, Chess, EnPassantMode, Move, Position};

use super::{
    bench,
    error::{DtmError, EngineError, LegalityError, MoveError, PositionError},
    eval::Evaluator,
    heuristics::HeuristicsPool,
    job::{Job, JobKind},
    nnue::Network,
    options::{OptionChange, OptionError, Options},
    perft,
    report::{Legality, Notice, Report, Reporter, TableSummary},
    search::{SearchControl, SearchParams},
    strength::Strength,
    think::think,
    time::SearchLimits,
    tt::TranspositionTable,
    vocab::hash_of,
};
use crate::config::Config;
use crate::fen::parse_fen_in;
use retro_build::BuildOptions;
use retro_legality::RawPosition;
use retro_tables::{index::IndexScheme, Dtz, Material, Syzygy, Tablebase, Value};

/// How long the legality analysis of the console and the Show Legality button may take.
const LEGALITY_TIME: Duration = Duration::from_secs(5);

/// The tables in use, shared with the background build that replaces them when it ends.
#[derive(Default)]
struct TableSlot {
    /// The directory of the TablePath option.
    dir: PathBuf,
    /// Its tables, when they could be opened.
    tables: Option<Arc<Tablebase>>,
    /// The directory a background build is filling, if one runs.
    building: Option<PathBuf>,
}

/// The table value of the position and of each legal move (the Show DTM button).
#[derive(Debug)]
pub struct Dtm {
    /// The position's value.
    pub position: Value,
    /// Its DTZ50, when its DTZ50 table is there.
    pub dtz: Option<Dtz>,
    /// Its halfmove clock.
    pub clock: u32,
    /// For each legal move, the DTZ50 of the position after it (for the opponent), in the
    /// order of `moves`, when the DTZ50 tables cover them.
    pub move_dtz: Vec<Option<Dtz>>,
    /// Each legal move with the value of the position after it, best first, or why the moves
    /// are not covered.
    pub moves: Result<Vec<(Move, Value)>, retro_tables::ProbeError>,
}

/// The engine's state between commands.
pub struct Engine {
    reporter: Reporter,
    options: Options,
    pos: Chess,
    /// Keys of the positions before `pos` in the game.
    history: Vec<u64>,
    have_position: bool,
    /// Why the last `position` was refused, while the position before it is kept.
    refused: Option<String>,
    /// Whether the position came from the starting position by legal moves: a proof that it
    /// is legal.
    from_start: bool,
    tt: Arc<TranspositionTable>,
    /// Whether `tt`'s pages are resident (see [`Engine::ready`]).
    tt_resident: bool,
    /// The search threads' move-ordering statistics, kept from move to move of a game.
    heuristics: Arc<HeuristicsPool>,
    tables: Arc<Mutex<TableSlot>>,
    /// The Syzygy tables of `SyzygyPath`, when they could be opened.
    syzygy: Option<Arc<Syzygy>>,
    job: Option<Job>,
    build_missing: bool,
    /// Set to end a running legality analysis (`stop`); one flag for the engine's lifetime
    /// (see [`retro_legality::Limits::cancel`]).
    legality_stop: &'static AtomicBool,
    /// The network of `EvalFile` (the built-in one by default).
    network: Arc<Network>,
}

impl Engine {
    /// An engine with the defaults of `config`, reporting to `reporter`. Opens the tables of
    /// the configured directory (and starts building the missing 3-4-piece ones when the
    /// configuration asks for it) and the Syzygy tables of its `syzygy_path`.
    pub fn new(config: &Config, reporter: Reporter) -> Engine {
        let mut options = Options::from_config(config);
        let tt = match TranspositionTable::new(options.hash) {
            Ok(tt) => tt,
            Err(e) => {
                reporter(Report::Notice(Notice::HashFallback(e.to_string())));
                options.hash = 1;
                TranspositionTable::new(1).unwrap_or_else(|_| std::process::abort())
            }
        };
        let mut engine = Engine {
            reporter,
            options,
            pos: Chess::default(),
            history: Vec::new(),
            have_position: false,
            refused: None,
            from_start: true,
            tt: Arc::new(tt),
            tt_resident: false,
            heuristics: Arc::new(HeuristicsPool::new()),
            tables: Arc::new(Mutex::new(TableSlot::default())),
            syzygy: None,
            job: None,
            build_missing: config.build_missing_tables,
            // One small allocation per engine, kept for the process's life: the analysis's
            // limits are `Copy` and hold the flag by a `'static` reference.
            legality_stop: Box::leak(Box::new(AtomicBool::new(false))),
            network: Network::embedded(),
        };
        if let Some(e) = Network::embedded_error() {
            engine.notice(Notice::EmbeddedNetworkInvalid(e.to_string()));
        }
        let dir = engine.options.table_path.clone();
        engine.load_tables(&dir, true);
        engine.load_syzygy(true);
        if !engine.options.eval_file.as_os_str().is_empty() && !engine.load_network() {
            engine.options.eval_file = PathBuf::new();
        }
        engine
    }

    /// The current position.
    pub fn position(&self) -> &Chess {
        &self.pos
    }

    /// The option values.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// How castling is read and written: Chess960's king-takes-rook and rook files with
    /// `UCI_Chess960`, else standard chess.
    pub fn castling_mode(&self) -> CastlingMode {
        if self.options.chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        }
    }

    /// The tables in use, if any.
    pub fn tables(&self) -> Option<Arc<Tablebase>> {
        lock(&self.tables).tables.clone()
    }

    /// Whether a search or console job is running.
    pub fn is_busy(&self) -> bool {
        self.job.as_ref().is_some_and(Job::is_running)
    }

    fn notice(&self, n: Notice) {
        (self.reporter)(Report::Notice(n));
    }

    /// Sets the position: the FEN given (the starting position when `None`) and the moves in
    /// UCI notation after it.
    ///
    /// # Errors
    /// A FEN or a move that cannot be read or played; the position stays as it was.
    pub fn set_position(
        &mut self,
        fen: Option<&str>,
        moves: &[String],
    ) -> Result<(), PositionError> {
        let result = self.try_set_position(fen, moves);
        if let Err(e) = &result {
            self.refuse_position(e.to_string());
        }
        result
    }

    /// Records that a `position` command was refused (by the front end, which could not read
    /// it, or by [`Engine::set_position`]): the position before it is kept, and the next
    /// `go` and `legal` say so, until a position is set.
    pub fn refuse_position(&mut self, reason: String) {
        self.refused = Some(reason);
    }

    fn try_set_position(
        &mut self,
        fen: Option<&str>,
        moves: &[String],
    ) -> Result<(), PositionError> {
        let mut pos = match fen {
            None => Chess::default(),
            Some(f) => {
                parse_fen_in(f, self.castling_mode()).map_err(|source| PositionError::Fen {
                    fen: f.to_string(),
                    source,
                })?
            }
        };
        let mut history = Vec::with_capacity(moves.len());
        for (i, text) in moves.iter().enumerate() {
            let m = UciMove::from_ascii(text.as_bytes())
                .map_err(MoveError::from)
                .and_then(|u| u.to_move(&pos).map_err(MoveError::from))
                .map_err(|source| PositionError::Move {
                    number: i + 1,
                    text: text.clone(),
                    source,
                })?;
            history.push(hash_of(&pos));
            pos.play_unchecked(m);
        }
        self.pos = pos;
        self.history = history;
        self.have_position = true;
        self.refused = None;
        self.from_start = fen.is_none();
        Ok(())
    }

    /// The notice that the last `position` was refused and the position before it is used.
    fn refused_notice(&self) -> Option<Notice> {
        self.refused.as_ref().map(|reason| Notice::PositionKept {
            reason: reason.clone(),
            fen: shakmaty::fen::Fen::from_position(&self.pos, EnPassantMode::Legal).to_string(),
        })
    }

    /// Starts a search of the position within `limits`, among `search_moves` (all legal
    /// moves when empty; moves not legal here are reported and left out). Returns at once;
    /// the search reports its progress and its best move.
    ///
    /// Whatever runs already is stopped first, and says so: a search gives its best move (so
    /// that every `go` is answered), a console job or a legality analysis (the Show Legality
    /// button, after which a GUI may send `go` at once) ends.
    ///
    /// # Errors
    /// The search's thread cannot be started.
    pub fn go(&mut self, limits: SearchLimits, search_moves: &[String]) -> Result<(), EngineError> {
        self.join_finished();
        if let Some(kind) = self.job.as_ref().map(Job::kind) {
            if kind != JobKind::Legality {
                self.notice(Notice::GoStopsRunning(kind == JobKind::Search));
            }
            self.stop_and_wait();
        }
        if let Some(n) = self.refused_notice() {
            self.notice(n);
        } else if !self.have_position {
            self.notice(Notice::NoPosition);
        }
        let mut root_moves: Vec<Move> = Vec::new();
        for text in search_moves {
            match UciMove::from_ascii(text.as_bytes())
                .ok()
                .and_then(|u| u.to_move(&self.pos).ok())
            {
                Some(m) => root_moves.push(m),
                None => self.notice(Notice::SearchMoveIgnored(text.clone())),
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
            strength: self
                .options
                .limit_strength
                .then(|| Strength::new(self.options.elo, fastrand::u64(..))),
            rule50: self.options.rule50,
            syzygy: self.syzygy.clone(),
            syzygy_limit: self.options.syzygy_probe_limit,
            multipv: self.options.multipv,
            show_wdl: self.options.show_wdl,
            eval: self.evaluator(),
        };
        let control = Arc::new(SearchControl::new(params.limits.ponder));
        let tt = Arc::clone(&self.tt);
        let heuristics = Arc::clone(&self.heuristics);
        let tables = self.tables();
        let reporter = Arc::clone(&self.reporter);
        let job = Job::spawn(
            JobKind::Search,
            "search",
            control,
            Arc::clone(&self.reporter),
            move |control| {
                let result = think(
                    &params,
                    &tt,
                    &heuristics,
                    tables.as_deref(),
                    control,
                    &*reporter,
                );
                // Infinite and ponder searches end with stop or ponderhit, never by themselves.
                control.wait_for_release(params.limits.is_unbounded());
                let best = result.best.or_else(|| {
                    let moves = params.pos.legal_moves();
                    moves
                        .iter()
                        .find(|m| params.root_moves.is_empty() || params.root_moves.contains(m))
                        .or(moves.first())
                        .copied()
                });
                Report::BestMove {
                    best,
                    ponder: best.and(result.ponder),
                }
            },
        )
        .map_err(EngineError::SearchThread)?;
        self.job = Some(job);
        Ok(())
    }

    /// Asks a running search or job to end, without waiting for it.
    pub fn stop(&mut self) {
        if let Some(j) = &self.job {
            self.legality_stop.store(true, Ordering::Relaxed);
            j.stop();
        }
        self.join_finished();
    }

    /// The opponent played the expected move: a pondering search now runs on the clock.
    pub fn ponderhit(&self) {
        if let Some(j) = &self.job {
            j.ponderhit();
        }
    }

    /// Stops a running search and waits for its best move, or a console job and waits for
    /// it to end.
    pub fn stop_and_wait(&mut self) {
        if let Some(j) = self.job.take() {
            self.legality_stop.store(true, Ordering::Relaxed);
            j.stop();
            j.join();
        }
    }

    /// Stops what runs before the engine quits; waits for a search's best move but not for a
    /// console job.
    pub fn quit(&mut self) {
        if let Some(j) = self.job.take() {
            self.legality_stop.store(true, Ordering::Relaxed);
            j.stop();
            if j.kind() == JobKind::Search {
                j.join();
            }
        }
    }

    /// A new game: stops a running search and empties the hash table.
    pub fn new_game(&mut self) {
        if self.is_busy() {
            self.notice(Notice::NewGameStopsSearch);
            self.stop_and_wait();
        }
        self.renew_hash();
        self.heuristics.clear();
    }

    /// Sets an option by name (case does not matter) and acts on it: resizes or clears the
    /// hash table, opens the tables of a new TablePath. The buttons Show DTM and Show
    /// Legality are returned for the front end to answer with [`Engine::dtm`] and
    /// [`Engine::legality`].
    ///
    /// # Errors
    /// An unknown option, or a value that is missing, malformed or out of range; the option
    /// keeps its value.
    pub fn set_option(
        &mut self,
        name: &str,
        value: Option<&str>,
    ) -> Result<OptionChange, OptionError> {
        let change = self.options.set(name, value)?;
        match change {
            OptionChange::Hash(old) => {
                if !self.renew_hash() {
                    self.options.hash = old;
                }
            }
            // A fresh table: cheaper than writing zeros over the old one, and a running
            // search keeps its own.
            OptionChange::ClearHash => {
                self.renew_hash();
            }
            OptionChange::TablePath => {
                let dir = self.options.table_path.clone();
                self.load_tables(&dir, false);
            }
            OptionChange::SyzygyPath => self.load_syzygy(false),
            OptionChange::EvalFile(ref old) => {
                if !self.load_network() {
                    self.options.eval_file = old.clone();
                }
            }
            OptionChange::None | OptionChange::ShowDtm | OptionChange::ShowLegality => {}
        }
        Ok(change)
    }

    /// A new, empty hash table of the Hash size; on failure the old table stays and the
    /// result is false.
    fn renew_hash(&mut self) -> bool {
        match TranspositionTable::new(self.options.hash) {
            Ok(tt) => {
                self.tt = Arc::new(tt);
                self.tt_resident = false;
                true
            }
            Err(e) => {
                self.notice(Notice::HashKept(e.to_string()));
                false
            }
        }
    }

    /// Prepares for the next search (`isready`): the hash table's pages are made resident,
    /// so that the first search does not wait for them.
    pub fn ready(&mut self) {
        if !self.tt_resident {
            let start = Instant::now();
            self.tt.make_resident();
            self.tt_resident = true;
            log::debug!("hash table resident in {} ms", start.elapsed().as_millis());
        }
    }

    /// The static evaluation of the position, in centipawns for the side to move.
    pub fn eval(&self) -> i32 {
        self.evaluator().evaluate(&self.pos)
    }

    /// The evaluation the options choose: the network with `Use NNUE`, except under
    /// `UCI_LimitStrength`, whose `UCI_Elo` scale was calibrated with the hand-written one.
    fn evaluator(&self) -> Evaluator {
        if self.options.use_nnue && !self.options.limit_strength {
            Evaluator::Network(Arc::clone(&self.network))
        } else {
            Evaluator::Classic
        }
    }

    /// Loads the network of `EvalFile` (the built-in one when it is empty) and reports it;
    /// on failure the current network stays, the failure is reported and the result is false.
    fn load_network(&mut self) -> bool {
        let path = self.options.eval_file.clone();
        if path.as_os_str().is_empty() {
            self.network = Network::embedded();
            self.notice(Notice::NetworkLoaded {
                path: None,
                checksum: self.network.checksum(),
            });
            return true;
        }
        match Network::load(&path) {
            Ok(net) => {
                self.notice(Notice::NetworkLoaded {
                    path: Some(path),
                    checksum: net.checksum(),
                });
                self.network = Arc::new(net);
                true
            }
            Err(e) => {
                self.notice(Notice::NetworkKept {
                    path,
                    reason: e.to_string(),
                });
                false
            }
        }
    }

    /// The Zobrist key of the position.
    pub fn key(&self) -> u64 {
        hash_of(&self.pos)
    }

    /// The table value of the position and of each legal move.
    ///
    /// # Errors
    /// No tables are loaded, or they do not cover the position.
    pub fn dtm(&self) -> Result<Dtm, DtmError> {
        let tb = self.tables().ok_or(DtmError::NoTables)?;
        let position = tb.probe(&self.pos).map_err(DtmError::NotCovered)?;
        let moves = tb.rank_moves(&self.pos);
        let move_dtz = moves
            .as_ref()
            .map(|ms| {
                ms.iter()
                    .map(|(m, _)| tb.move_dtz(&self.pos, m).ok())
                    .collect()
            })
            .unwrap_or_default();
        Ok(Dtm {
            position,
            dtz: tb.probe_dtz(&self.pos).ok(),
            clock: self.pos.halfmoves(),
            move_dtz,
            moves,
        })
    }

    /// Starts the legality analysis of `fen`, or of the current position (legal outright when
    /// it was reached by moves from the starting position), on a job thread: it takes up to a
    /// few seconds, `stop` ends it, and its answer arrives as [`Report::Legality`].
    ///
    /// # Errors
    /// The FEN cannot be read, `UCI_Chess960` is on, or a search or job runs already.
    pub fn legality(&mut self, fen: Option<&str>) -> Result<(), LegalityError> {
        if self.options.chess960 {
            return Err(LegalityError::Chess960);
        }
        if let (None, Some(n)) = (fen, self.refused_notice()) {
            self.notice(n);
        }
        let p = match fen {
            Some(f) => RawPosition::from_fen(f).map_err(|source| LegalityError::Fen {
                fen: f.to_string(),
                source,
            })?,
            None if self.from_start => {
                (self.reporter)(Report::Legality(Legality::FromStart {
                    moves: self.history.len(),
                }));
                return Ok(());
            }
            None => {
                let fen = shakmaty::fen::Fen::from_position(&self.pos, EnPassantMode::Legal);
                RawPosition::from_fen(&fen.to_string()).map_err(LegalityError::Position)?
            }
        };
        let cancel = self.legality_stop;
        self.join_finished();
        if self.job.is_some() {
            return Err(LegalityError::Busy);
        }
        cancel.store(false, Ordering::Relaxed);
        let limits = retro_legality::Limits {
            deadline: Some(Instant::now() + LEGALITY_TIME),
            cancel: Some(cancel),
            ..retro_legality::Limits::default()
        };
        self.start_job(JobKind::Legality, move |_| {
            let verdict = retro_legality::analyze(&p, limits);
            Report::Legality(Legality::Analysed {
                verdict,
                fen: p.fen(),
                stopped: cancel.load(Ordering::Relaxed),
            })
        })
        .map_err(|_| LegalityError::Busy)
    }

    /// Starts `perft depth` on the position: the paths below each root move, then the
    /// total. `stop` ends it.
    ///
    /// # Errors
    /// A search or job runs already, or the thread cannot be started.
    pub fn perft(&mut self, depth: u32) -> Result<(), EngineError> {
        let pos = self.pos.clone();
        let reporter = Arc::clone(&self.reporter);
        self.start_job(JobKind::Console, move |control| {
            let start = Instant::now();
            if depth == 0 {
                // No root moves to split by: the position itself is the one path.
                return match perft::perft(&pos, 0, &control.stop) {
                    Some(nodes) => Report::PerftDone {
                        depth,
                        nodes,
                        time: start.elapsed(),
                    },
                    None => Report::PerftStopped { depth },
                };
            }
            let mut total = 0;
            for m in pos.legal_moves() {
                let mut child = pos.clone();
                child.play_unchecked(m);
                let Some(n) = perft::perft(&child, depth - 1, &control.stop) else {
                    return Report::PerftStopped { depth };
                };
                total += n;
                reporter(Report::PerftMove { mv: m, nodes: n });
            }
            Report::PerftDone {
                depth,
                nodes: total,
                time: start.elapsed(),
            }
        })
    }

    /// Starts the bench at `depth`: each position's search, then the totals. `stop` ends it
    /// after the current position.
    ///
    /// # Errors
    /// A search or job runs already, or the thread cannot be started.
    pub fn bench(&mut self, depth: u32) -> Result<(), EngineError> {
        let reporter = Arc::clone(&self.reporter);
        let eval = self.evaluator();
        self.start_job(JobKind::Console, move |control| {
            let r = bench::run(depth, &eval, &control.stop, |p| {
                reporter(Report::BenchPosition(p))
            });
            Report::BenchDone(r)
        })
    }

    /// Runs a console job on its own thread, like a search: `stop` ends it, and the front end
    /// stays free meanwhile.
    fn start_job(
        &mut self,
        kind: JobKind,
        work: impl FnOnce(&SearchControl) -> Report + Send + 'static,
    ) -> Result<(), EngineError> {
        self.join_finished();
        if self.job.is_some() {
            return Err(EngineError::Busy);
        }
        let control = Arc::new(SearchControl::new(false));
        let job = Job::spawn(kind, "job", control, Arc::clone(&self.reporter), work)
            .map_err(EngineError::JobThread)?;
        self.job = Some(job);
        Ok(())
    }

    /// Forgets a job that has given its last report.
    fn join_finished(&mut self) {
        if self.job.as_ref().is_some_and(Job::is_done) {
            if let Some(j) = self.job.take() {
                j.join();
            }
        }
    }

    /// Opens the tables of `dir`; when the 3-4-piece ones are missing and building is on,
    /// starts building them in the background.
    fn load_tables(&mut self, dir: &Path, at_start: bool) {
        {
            let mut slot = lock(&self.tables);
            slot.dir = dir.to_path_buf();
            slot.tables = None;
        }
        if dir.as_os_str().is_empty() {
            self.notice(Notice::TablesOff);
            return;
        }
        match Tablebase::open(dir) {
            Ok(tb) => {
                log::info!("{} tables in {}", tb.materials().len(), dir.display());
                let tb = Arc::new(tb);
                self.preload(&tb);
                lock(&self.tables).tables = Some(tb);
            }
            Err(e) => {
                if !at_start || !self.build_missing {
                    self.notice(Notice::TablesUnavailable(e.to_string()));
                }
            }
        }
        let present = self.tables().map(|t| t.materials()).unwrap_or_default();
        self.notice(Notice::TablesFound(TableSummary::of(dir, &present)));
        let missing: Vec<Material> = Material::all(4)
            .into_iter()
            .filter(|m| !present.contains(m))
            .collect();
        if missing.is_empty() || !self.build_missing {
            return;
        }
        self.build_in_background(dir, missing);
    }

    /// Opens the Syzygy tables of the SyzygyPath option. Setting the option reports what was
    /// opened (or that the tables are off); at the start, where the path comes from
    /// engine.toml, only a path that cannot be used is reported.
    fn load_syzygy(&mut self, at_start: bool) {
        let path = self.options.syzygy_path.clone();
        self.syzygy = None;
        if path.trim().is_empty() {
            if !at_start {
                self.notice(Notice::SyzygyOff);
            }
            return;
        }
        match Syzygy::open(&path) {
            Ok(sz) => {
                if at_start {
                    log::info!(
                        "Syzygy: {} table files, up to {} pieces, in {path}",
                        sz.files(),
                        sz.max_pieces()
                    );
                } else {
                    self.notice(Notice::SyzygyOpened {
                        files: sz.files(),
                        pieces: sz.max_pieces(),
                    });
                }
                self.syzygy = Some(Arc::new(sz));
            }
            Err(e) => self.notice(Notice::SyzygyUnavailable(e.to_string())),
        }
    }

    /// Builds `missing` into `dir` on a thread of its own; when it ends, the tables are
    /// opened and used if `dir` is still the table directory.
    fn build_in_background(&self, dir: &Path, missing: Vec<Material>) {
        {
            let mut slot = lock(&self.tables);
            if slot.building.is_some() {
                drop(slot);
                self.notice(Notice::BuildRunning);
                return;
            }
            slot.building = Some(dir.to_path_buf());
        }
        self.notice(Notice::BuildingTables {
            missing: missing.len(),
            entries: missing.iter().map(|m| IndexScheme::new(*m).size()).sum(),
            dir: dir.to_path_buf(),
        });
        let slot = Arc::clone(&self.tables);
        let reporter = Arc::clone(&self.reporter);
        let dir = dir.to_path_buf();
        let spawned = std::thread::Builder::new()
            .name("build".into())
            .spawn(move || {
                let opts = BuildOptions::quiet(dir.clone());
                let built = retro_build::build(&missing, &opts, |s| log::info!("{s}"));
                let mut slot = lock(&slot);
                slot.building = None;
                let notice = match built {
                    Ok(_) if dir == slot.dir => match Tablebase::open(&dir) {
                        Ok(tb) => {
                            let summary = TableSummary::of(&dir, &tb.materials());
                            slot.tables = Some(Arc::new(tb));
                            Notice::TablesReady(summary)
                        }
                        Err(e) => Notice::TablesUnavailable(e.to_string()),
                    },
                    Ok(v) => {
                        log::info!("built {} tables in {}", v.len(), dir.display());
                        return;
                    }
                    Err(e) => Notice::BuildFailed(e.to_string()),
                };
                drop(slot);
                reporter(Report::Notice(notice));
            });
        if let Err(e) = spawned {
            lock(&self.tables).building = None;
            self.notice(Notice::BuildFailed(e.to_string()));
        }
    }

    /// Validates every table on a background thread, so that no search pays for opening one;
    /// refused tables are reported.
    fn preload(&self, tb: &Arc<Tablebase>) {
        let tb = Arc::clone(tb);
        let reporter = Arc::clone(&self.reporter);
        let spawned = std::thread::Builder::new()
            .name("preload".into())
            .spawn(move || {
                let start = Instant::now();
                for (material, e) in tb.preload() {
                    reporter(Report::Notice(Notice::TableRefused {
                        material,
                        reason: e.to_string(),
                    }));
                }
                log::info!("tables validated in {} ms", start.elapsed().as_millis());
            });
        if let Err(e) = spawned {
            log::warn!("cannot preload tables: {e}");
        }
    }
}

impl Drop for Engine {
    /// A running search or job is stopped and waited for.
    fn drop(&mut self) {
        self.stop_and_wait();
    }
}

/// The table slot, also after a thread panicked while holding it (its data stays valid: every
/// write to it is a single assignment).
fn lock(slot: &Mutex<TableSlot>) -> MutexGuard<'_, TableSlot> {
    slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
