//! What the engine tells its front end, as typed values: search information, the best move,
//! the lines of console jobs, and notices (tables loaded, built or refused, options that could
//! not be applied). The engine never writes text to a stream; the UCI front end turns these
//! into `info`, `bestmove` and `info string` lines.

use std::{fmt, path::PathBuf, sync::Arc, time::Duration};

use shakmaty::{CastlingMode, Move};

use super::{
    vocab::{is_mate_score, moves_to_mate},
    winrate::WdlChances,
};
use retro_legality::Verdict;
use retro_tables::{Dtz, Material, Value};

/// The totals of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchResult {
    /// Nodes searched over all positions.
    pub nodes: u64,
    /// Wall time of the searches.
    pub time: Duration,
}

/// The search of one bench position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchPosition {
    /// Its number, from 1.
    pub number: usize,
    /// The positions of the bench.
    pub of: usize,
    /// Nodes searched.
    pub nodes: u64,
    /// The move found.
    pub best: Option<Move>,
    /// Its score.
    pub score: Score,
}

impl fmt::Display for BenchPosition {
    /// `position 3/12: 81234 nodes, best e2e4, score cp 20`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let best = self
            .best
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .unwrap_or_else(|| "0000".to_string());
        write!(
            f,
            "position {}/{}: {} nodes, best {best}, score {}",
            self.number, self.of, self.nodes, self.score
        )
    }
}

impl BenchResult {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.time.as_secs_f64().max(1e-6)) as u64
    }
}

/// A score as a front end shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns for the side to move.
    Cp(i32),
    /// Mate in this many moves: positive when the side to move mates, negative when it is
    /// mated.
    Mate(i32),
}

impl Score {
    /// The score of a search value (centipawns, or a mate score beyond
    /// [`MATE_BOUND`](crate::MATE_BOUND)).
    pub fn from_search(score: i32) -> Score {
        if is_mate_score(score) {
            Score::Mate(moves_to_mate(score))
        } else {
            Score::Cp(score)
        }
    }
}

impl fmt::Display for Score {
    /// `cp N` or `mate N`, as UCI and `bench` write it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(n) => write!(f, "cp {n}"),
            Score::Mate(n) => write!(f, "mate {n}"),
        }
    }
}

/// The state of a search after an iteration, or of a move played from the tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInfo {
    /// Depth in plies.
    pub depth: u32,
    /// Selective depth in plies.
    pub seldepth: u32,
    /// Which line: 1 for the best, 2 for the second best, ... (`MultiPV`).
    pub multipv: u32,
    /// The score.
    pub score: Score,
    /// Win, draw and loss chances (with `UCI_ShowWDL`).
    pub wdl: Option<WdlChances>,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Per mille of the transposition table in use.
    pub hashfull: u32,
    /// Table probes that gave a value.
    pub tbhits: u64,
    /// Time since the search started.
    pub time: Duration,
    /// The principal variation.
    pub pv: Vec<Move>,
}

/// The answer of the legality analysis (the `legal` command, the Show Legality button).
#[derive(Clone, Debug)]
pub enum Legality {
    /// The position was reached by legal moves from the starting position.
    FromStart {
        /// How many moves.
        moves: usize,
    },
    /// The analysis's verdict on the position given by its FEN.
    Analysed {
        /// The verdict.
        verdict: Verdict,
        /// The position analysed.
        fen: String,
        /// `stop` ended the analysis early.
        stopped: bool,
    },
}

/// What the background build of all 35 tables of 3 and 4 pieces takes, as measured by
/// `build-tables --max-pieces 4` on two cores (docs/tables.md).
const FULL_BUILD: &str = "about 180 MB of disk and a minute on two cores";

/// The tables of a directory, as the engine reports them when it opens them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableSummary {
    /// The directory.
    pub dir: PathBuf,
    /// Whether it exists.
    pub exists: bool,
    /// How many tables it holds.
    pub count: usize,
    /// The table of the most positions, if any.
    pub largest: Option<Material>,
}

impl TableSummary {
    /// The summary of `materials`, the tables present in `dir`.
    pub fn of(dir: &std::path::Path, materials: &[Material]) -> TableSummary {
        let largest = materials
            .iter()
            .max_by_key(|m| (retro_tables::index::IndexScheme::new(**m).size(), m.name()))
            .copied();
        TableSummary {
            dir: dir.to_path_buf(),
            exists: dir.is_dir(),
            count: materials.len(),
            largest,
        }
    }
}

impl fmt::Display for TableSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dir = self.dir.display();
        match (self.count, self.largest) {
            (_, _) if !self.exists => write!(f, "no tables: {dir} does not exist"),
            (0, _) | (_, None) => write!(f, "no tables in {dir}"),
            (1, Some(m)) => write!(f, "1 table in {dir} ({})", m.name()),
            (n, Some(m)) => write!(
                f,
                "{n} tables in {dir}, up to {} pieces (largest {})",
                m.piece_count(),
                m.name()
            ),
        }
    }
}

/// Something the engine reports while it works.
#[derive(Clone, Debug)]
pub enum Report {
    /// The search finished an iteration, or played a move from the tables.
    Info(SearchInfo),
    /// The root position has no legal move: checkmate (`mated`) or stalemate.
    NoMoves {
        /// Whether the side to move is checkmated.
        mated: bool,
        /// Whether to add the (certain) win, draw and loss chances (`UCI_ShowWDL`).
        show_wdl: bool,
    },
    /// The search ended: the move to play (`None` without legal moves) and the expected reply.
    BestMove {
        /// The move.
        best: Option<Move>,
        /// The expected reply.
        ponder: Option<Move>,
    },
    /// `perft`: the move paths below one root move.
    PerftMove {
        /// The root move.
        mv: Move,
        /// Paths below it.
        nodes: u64,
    },
    /// `perft` ended: the total.
    PerftDone {
        /// The depth.
        depth: u32,
        /// Paths in all.
        nodes: u64,
        /// Wall time.
        time: Duration,
    },
    /// `perft` was stopped.
    PerftStopped {
        /// The depth.
        depth: u32,
    },
    /// `bench`: one position searched.
    BenchPosition(BenchPosition),
    /// `bench` ended.
    BenchDone(BenchResult),
    /// A notice for the user.
    Notice(Notice),
    /// The legality analysis (`legal`, Show Legality) ended, or was stopped.
    Legality(Legality),
}

/// A notice for the user: what the engine did on its own, or could not do.
#[derive(Clone, Debug)]
pub enum Notice {
    /// The hash table of the configured size could not be made at start; 1 MB is used.
    HashFallback(String),
    /// A new hash table could not be made; the current one stays.
    HashKept(String),
    /// The tables of a directory could not be opened.
    TablesUnavailable(String),
    /// The tables of the table directory (at the start, and after `setoption name
    /// TablePath`).
    TablesFound(TableSummary),
    /// Tables were switched off.
    TablesOff,
    /// Syzygy tables were opened (`SyzygyPath`).
    SyzygyOpened {
        /// How many files.
        files: usize,
        /// The most pieces of any.
        pieces: usize,
    },
    /// The Syzygy path could not be used; no Syzygy tables are probed.
    SyzygyUnavailable(String),
    /// Syzygy tables were switched off.
    SyzygyOff,
    /// A network was loaded (`EvalFile`); `None`: the built-in one.
    NetworkLoaded {
        /// Its file.
        path: Option<PathBuf>,
        /// Its checksum.
        checksum: u64,
    },
    /// The network built into the binary cannot be used (a bad `EVALFILE` at build time): it
    /// scores every position 0.
    EmbeddedNetworkInvalid(String),
    /// The network file could not be used; the current network stays.
    NetworkKept {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A table failed validation and will not be probed.
    TableRefused {
        /// Its material.
        material: Material,
        /// Why.
        reason: String,
    },
    /// Missing 3-4-piece tables are being built in the background.
    BuildingTables {
        /// How many are missing.
        missing: usize,
        /// Their positions for one side to move, in all.
        entries: u64,
        /// Where they are built.
        dir: PathBuf,
    },
    /// A background build is running already, so no other starts.
    BuildRunning,
    /// The background build ended and its tables are in use.
    TablesReady(TableSummary),
    /// The background build failed.
    BuildFailed(String),
    /// `ucinewgame` arrived during a search, which is stopped.
    NewGameStopsSearch,
    /// `go` arrived before any `position`.
    NoPosition,
    /// `go` arrived while a search (`true`) or a console job ran: it is stopped first.
    GoStopsRunning(bool),
    /// The last `position` was refused; the position before it is used.
    PositionKept {
        /// Why it was refused.
        reason: String,
        /// The position used.
        fen: String,
    },
    /// A `searchmoves` move is not legal in the position.
    SearchMoveIgnored(String),
    /// A root move the tables value as a draw under the 50-move rule that wins or loses
    /// without it (`MultiPV` line `multipv`).
    MoveDrawnByRule {
        /// The line.
        multipv: u32,
        /// The move.
        mv: Move,
        /// Its value for the mover without the rule (`None` from Syzygy's tables, which have
        /// no DTM).
        dtm: Option<Value>,
        /// Its DTZ50 for the mover.
        dtz: Dtz,
    },
    /// The tables say the position is won or lost without the 50-move rule, but drawn with it
    /// (a cursed win or blessed loss, or a win the halfmove clock has spoiled).
    DrawnByRule {
        /// Its value without the rule, for the side to move.
        dtm: Value,
        /// Its DTZ50 for the side to move.
        dtz: Dtz,
        /// The halfmove clock.
        clock: u32,
    },
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::HashFallback(e) => write!(f, "{e}; using 1 MB"),
            Notice::HashKept(e) => write!(f, "Hash: {e}; keeping the current table"),
            Notice::TablesUnavailable(e) => write!(f, "cannot open tables: {e}"),
            Notice::TablesFound(t) => write!(f, "{t}"),
            Notice::TablesOff => write!(f, "tables off"),
            Notice::SyzygyOpened { files, pieces } => {
                write!(f, "Syzygy: {files} table files, up to {pieces} pieces")
            }
            Notice::SyzygyUnavailable(e) => write!(f, "Syzygy tables not used: {e}"),
            Notice::SyzygyOff => write!(f, "Syzygy tables off"),
            Notice::NetworkLoaded { path, checksum } => match path {
                Some(p) => write!(
                    f,
                    "EvalFile: network {} loaded ({checksum:016x})",
                    p.display()
                ),
                None => write!(f, "EvalFile: the built-in network ({checksum:016x})"),
            },
            Notice::EmbeddedNetworkInvalid(e) => write!(
                f,
                "the built-in network cannot be used ({e}): it scores every position 0; set \
                 EvalFile to a network file"
            ),
            Notice::NetworkKept { path, reason } => write!(
                f,
                "EvalFile {}: {reason}; keeping the current network",
                path.display()
            ),
            Notice::TableRefused { material, reason } => {
                write!(f, "table {} refused: {reason}", material.name())
            }
            Notice::BuildingTables {
                missing,
                entries,
                dir,
            } => write!(
                f,
                "{missing} of the 35 3-4-piece tables are missing in {}: building them in the \
                 background ({:.1} million positions a side; all 35 take {FULL_BUILD}); the \
                 search runs without them until they are ready",
                dir.display(),
                *entries as f64 / 1e6
            ),
            Notice::BuildRunning => {
                write!(
                    f,
                    "a table build is already running; try again when it ends"
                )
            }
            Notice::TablesReady(t) => write!(f, "tables ready: {t}"),
            Notice::BuildFailed(e) => write!(f, "building tables failed: {e}"),
            Notice::NewGameStopsSearch => write!(f, "ucinewgame during a search: stopping it"),
            Notice::NoPosition => write!(f, "go before position: searching the start position"),
            Notice::GoStopsRunning(true) => {
                write!(
                    f,
                    "go during a search: stopping it first (its bestmove follows)"
                )
            }
            Notice::GoStopsRunning(false) => write!(f, "go during a console job: stopping it"),
            Notice::PositionKept { reason, fen } => write!(
                f,
                "the last position command was refused ({reason}): using the position before \
                 it, {fen}"
            ),
            Notice::DrawnByRule { dtm, dtz, clock } => write!(
                f,
                "{} ({dtm} without the 50-move rule, DTZ {dtz}, halfmove clock {clock}): a draw \
                 under the rule",
                drawn_by_rule_kind(*dtz)
            ),
            Notice::MoveDrawnByRule {
                multipv,
                mv,
                dtm,
                dtz,
            } => write!(
                f,
                "multipv {multipv} {}: {} ({}DTZ {dtz}): a draw under the rule",
                mv.to_uci(shakmaty::CastlingMode::Chess960),
                drawn_by_rule_kind(*dtz),
                dtm.map(|v| format!("{v} without the 50-move rule, "))
                    .unwrap_or_default(),
            ),
            Notice::SearchMoveIgnored(m) => {
                write!(f, "searchmoves: '{m}' is not legal here, ignored")
            }
        }
    }
}

/// What makes a position of DTZ50 `dtz` (for the side to move) a draw under the 50-move rule:
/// a cursed win or blessed loss, or a win or loss the clock has spoiled or saved.
fn drawn_by_rule_kind(dtz: Dtz) -> &'static str {
    if dtz.plies() > 100 {
        dtz.wdl50().as_str()
    } else if dtz.0 > 0 {
        "win spoiled by the clock"
    } else {
        "loss saved by the clock"
    }
}

/// Where the engine sends its reports; called from any of its threads, in the order of events.
pub type Reporter = Arc<dyn Fn(Report) + Send + Sync>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::{mate_in, mated_in};

    #[test]
    fn scores_as_front_ends_write_them() {
        assert_eq!(Score::from_search(35).to_string(), "cp 35");
        assert_eq!(Score::from_search(-120).to_string(), "cp -120");
        assert_eq!(Score::from_search(mate_in(1)).to_string(), "mate 1");
        assert_eq!(Score::from_search(mate_in(27)).to_string(), "mate 14");
        assert_eq!(Score::from_search(mated_in(2)).to_string(), "mate -1");
        assert_eq!(Score::from_search(mated_in(26)).to_string(), "mate -13");
    }
}
