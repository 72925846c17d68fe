//! The generator's errors: of a DTM solve ([`SolveError`]), of a sub-table read during one
//! ([`SubTableError`]), of a DTZ50 solve ([`DtzError`], [`Inconsistency`]),
//! and of an exchange between ranks ([`ExchangeError`]).

use shakmaty::{Color, Role};

use retro_tables::{Dtz, Wdl50};

/// Why a material could not be solved.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// A sub-table could not be read during the build.
    #[error("while solving {material}: {source}")]
    SubTable {
        /// The material being solved.
        material: String,
        /// What went wrong with the sub-table.
        source: SubTableError,
    },
    /// A mate longer than the value byte holds.
    #[error("{0}: a mate is longer than 254 plies, which the format cannot store")]
    Overflow(String),
    /// The compact solve is for materials without pawns.
    #[error("{0}: the compact solve is for materials without pawns")]
    Pawns(String),
    /// A position with more distinct moves than a state byte counts.
    #[error("{0}: a position has more moves than the compact solve counts")]
    TooManyMoves(String),
    /// A work file of the compact solve could not be written or read.
    #[error("work files in {0}: {1}")]
    Work(std::path::PathBuf, std::io::Error),
    /// The ranks of a split solve could not exchange what they found.
    #[error("while solving {material} over ranks: {source}")]
    Exchange {
        /// The material being solved.
        material: String,
        /// What went wrong between the ranks.
        source: ExchangeError,
    },
    /// A solve by structure asked for a part the material does not have.
    #[error("{material} has {parts} structure parts (0 to {}), not {part}", .parts.saturating_sub(1))]
    NoSuchPart {
        /// The material.
        material: String,
        /// The part asked for.
        part: usize,
        /// The parts it has.
        parts: usize,
    },
    /// A part of a solve by structure needs parts of the levels above it that are not done.
    #[error("{material}: structure part {part} needs {missing} more parts of the levels above it solved first")]
    PartsMissing {
        /// The material.
        material: String,
        /// The part.
        part: usize,
        /// How many parts it needs are missing.
        missing: usize,
    },
}

/// What went wrong with a sub-table during a solve.
#[derive(Debug, thiserror::Error)]
pub enum SubTableError {
    /// It could not be opened.
    #[error(transparent)]
    Open(#[from] retro_tables::TableError),
    /// A probe of it failed.
    #[error(transparent)]
    Probe(#[from] retro_tables::ProbeError),
    /// The classes under the 50-move rule of a sub-table could not be read or looked up.
    #[error("{0}")]
    Dtz50(Box<DtzError>),
    /// No plan maps positions of this kind of exit to a sub-table.
    #[error("no exit plan for slot {slot} and {promotion:?}")]
    NoExitPlan {
        /// The slot of the piece captured (`usize::MAX` for none).
        slot: usize,
        /// The promoting pawn's slot and the piece it becomes.
        promotion: Option<(usize, Role)>,
    },
}

/// Why a DTZ solve failed.
#[derive(Debug, thiserror::Error)]
pub enum DtzError {
    /// The ranks of a split DTZ50 solve could not exchange what they found.
    #[error("while solving the DTZ50 of {material} over ranks: {source}")]
    Exchange {
        /// The material being solved.
        material: String,
        /// What went wrong between the ranks.
        source: ExchangeError,
    },
    /// A table a zeroing move leads to is not available.
    #[error("the WDL50 values of {0} are needed and missing")]
    MissingSubTable(String),
    /// A position could not be indexed in a sub-table.
    #[error("a position of {0} cannot be indexed")]
    NotIndexable(String),
    /// The moves of a position contradict its DTM value (a bug, or tables that do not match).
    #[error("{material}: entry {idx} with {side} to move: {why}")]
    Inconsistent {
        /// The material.
        material: String,
        /// The entry.
        idx: u64,
        /// The side to move (shown as `white` or `black`).
        side: Color,
        /// What does not fit.
        why: Inconsistency,
    },
    /// A table could not be read.
    #[error(transparent)]
    Table(#[from] retro_tables::TableError),
    /// A table could not be probed.
    #[error(transparent)]
    Probe(#[from] retro_tables::ProbeError),
    /// A distance longer than the cells hold.
    #[error("{0}: a distance to zeroing is longer than 4095 plies")]
    Overflow(String),
    /// A distance to zeroing longer than the DTZ table's byte holds.
    #[error("{0}: a DTZ of {1} plies, more than the format's 255")]
    TooLong(String, Dtz),
    /// A work file of the compact DTZ50 solve could not be written or read.
    #[error("DTZ50 work files in {0}: {1}")]
    Work(std::path::PathBuf, std::io::Error),
}

/// What contradicts the DTM values in a position's moves ([`DtzError::Inconsistent`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Inconsistency {
    /// A lost position has a zeroing move into a position that is not won for the opponent.
    #[error("a loss with a move to {0}")]
    LossWithMoveTo(Wdl50),
    /// A lost position with moves, none of which leaves the table, and no successor counted.
    #[error("a loss with {0} moves and no exit")]
    LossWithoutExit(u32),
    /// Pawn pushes recorded for a material without pawns.
    #[error("pawn pushes without pawns")]
    PushesWithoutPawns,
    /// More distinct successors than a cell counts.
    #[error("{0} successors")]
    Successors(usize),
    /// A lost position with no move and no exit (and not mated).
    #[error("a loss with no move and no exit")]
    NoMoveNoExit,
    /// A won or lost position still open when a pawn move reaches it.
    #[error("undecided when a pawn move reaches it")]
    UndecidedAfterPawnMove,
    /// A loser with more decided successors than moves.
    #[error("more decided successors than moves")]
    MoreDecidedThanMoves,
    /// A won or lost position the passes never decided.
    #[error("never decided")]
    NeverDecided,
}

/// Why an exchange between ranks failed.
#[derive(Debug, thiserror::Error)]
pub enum ExchangeError {
    /// The transport failed (a rank ended, a message could not be sent).
    #[error("the exchange between ranks failed: {0}")]
    Transport(&'static str),
    /// A message of the wrong size or kind arrived.
    #[error("rank {from} sent a malformed message ({len} bytes)")]
    Malformed {
        /// The rank it came from.
        from: usize,
        /// Its length in bytes.
        len: usize,
    },
    /// The work file of the predecessors received could not be written or read.
    #[error("the received predecessors' work file: {0}")]
    Inbox(#[from] std::io::Error),
    /// More ranks than the table has king placements to share.
    #[error("more ranks than the table's {placements} king placements")]
    TooManyRanks {
        /// The table's king placements.
        placements: usize,
    },
    /// A rank received a predecessor it does not own.
    #[error("{0} predecessors reached a rank that does not own them")]
    Misrouted(u64),
}
