//! The errors of the engine's commands: each names what was refused and why. The engine keeps
//! its last good state after any of them.

use shakmaty::uci::{IllegalUciMoveError, ParseUciMoveError};

use crate::fen::FenError;
use retro_tables::ProbeError;

/// A command the engine refused.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// A console job while a search or another job runs.
    #[error("busy: send stop first")]
    Busy,
    /// The search thread could not be started.
    #[error("cannot start the search thread: {0}")]
    SearchThread(std::io::Error),
    /// A console job's thread could not be started.
    #[error("cannot start a thread: {0}")]
    JobThread(std::io::Error),
}

/// Why a `position` was refused; the position stays as it was.
#[derive(Debug, thiserror::Error)]
pub enum PositionError {
    /// The FEN gives no legal position.
    #[error("{source} in '{fen}'")]
    Fen {
        /// The FEN.
        fen: String,
        /// What is wrong with it.
        source: FenError,
    },
    /// A move of the list cannot be played.
    #[error("move {number} '{text}' is illegal ({source})")]
    Move {
        /// Its number in the list, from 1.
        number: usize,
        /// The move as given.
        text: String,
        /// What is wrong with it.
        source: MoveError,
    },
}

/// Why a move in UCI notation cannot be played.
#[derive(Debug, thiserror::Error)]
pub enum MoveError {
    /// Not UCI notation.
    #[error(transparent)]
    Syntax(#[from] ParseUciMoveError),
    /// Not legal in the position.
    #[error(transparent)]
    Illegal(#[from] IllegalUciMoveError),
}

/// Why the tables give no value for the position.
#[derive(Debug, thiserror::Error)]
pub enum DtmError {
    /// No tables are loaded.
    #[error("no tables loaded (TablePath)")]
    NoTables,
    /// The tables do not cover the position.
    #[error("position not covered by the tables: {0}")]
    NotCovered(ProbeError),
}

/// Why the legality analysis did not run.
#[derive(Debug, thiserror::Error)]
pub enum LegalityError {
    /// The FEN given cannot be read.
    #[error("{source} in '{fen}'")]
    Fen {
        /// The FEN.
        fen: String,
        /// What is wrong with it.
        source: retro_legality::FenError,
    },
    /// The current position could not be handed to the analysis.
    #[error(transparent)]
    Position(retro_legality::FenError),
    /// With `UCI_Chess960` on: the analysis proves positions from the standard starting
    /// position only, so it gives no verdict on Chess960 games.
    #[error(
        "the legality analysis proves positions from the standard starting position only; \
         it gives no verdict with UCI_Chess960 on"
    )]
    Chess960,
    /// A search or another job runs: `stop` it first.
    #[error("busy with a search or job: send stop first")]
    Busy,
}
