//! The command lines of `retro` other than the UCI engine, a module per command or family of
//! commands, each with its arguments (a `clap::Args` struct whose `run` does the command) beside
//! the code that runs it; `src/main.rs` only parses the command line and dispatches.
//!
//! - [`probe`]: `retro probe`.
//! - [`mod@bench`]: `retro bench`.
//! - [`legal`]: `retro legal`, `count-legal`, `proofgame`, `revmoves` and `proofkernel`.
//! - [`play`]: `retro play`, `random-position` and `replay` (their helpers are in
//!   [`crate::play`]).
//! - [`tune`]: `retro datagen` and `retro tune`.
//! - [`train`]: `retro train` and `convert-data`.
//! - [`serve`]: `retro serve`.
//! - [`build_tables`]: the `build-tables` binary.
//!
//! Each command reports one line per input and never stops at a bad one; what ends a command
//! early is a [`CliError`], whose [`CliError::exit_code`] is the process's exit status.

pub mod bars;
pub mod bench;
pub mod build_tables;
pub mod legal;
pub mod play;
pub mod probe;
pub mod serve;
pub mod slurm;
pub mod train;
pub mod tune;

use std::path::Path;

use crate::play::{pgn::GameFileError, start::StartError};
use retro_engine::config::ConfigError;
use retro_tables::{format::TableError, Tablebase};

/// What ends a command of `retro` early.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// `engine.toml` cannot be read.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The table directory cannot be opened.
    #[error(transparent)]
    Tables(#[from] TableError),
    /// A `--time` that is not a number of seconds from 0 to a year.
    #[error("--time {0}: expected a number of seconds from 0 to {MAX_SECONDS}")]
    Seconds(f64),
    /// A FEN the legality analysis cannot read.
    #[error(transparent)]
    Fen(#[from] retro_legality::FenError),
    /// No start position for `retro play` or `retro random-position`.
    #[error(transparent)]
    Start(#[from] StartError),
    /// No game from the PGN file.
    #[error(transparent)]
    GameFile(#[from] GameFileError),
    /// The sample of `retro count-legal` cannot be read.
    #[error(transparent)]
    Count(#[from] legal::CountError),
    /// The proof-kernel search did not run to its end.
    #[error(transparent)]
    ProofKernel(#[from] legal::ProofKernelError),
    /// Self-play for tuning data failed.
    #[error(transparent)]
    Datagen(#[from] crate::tune::datagen::DatagenError),
    /// A tuning data file is malformed.
    #[error("{}: {source}", path.display())]
    Data {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        source: crate::tune::texel::DataError,
    },
    /// A training data file cannot be read or written.
    #[error("{}: {source}", path.display())]
    TrainData {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        source: retro_train::data::DataError,
    },
    /// A games file (`.rgms`) cannot be read or written.
    #[error("{}: {source}", .path.display())]
    TrainGames {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        source: retro_train::games::GamesError,
    },
    /// A network cannot be made from the trained weights.
    #[error(transparent)]
    Network(retro_engine::nnue::NetworkError),
    /// The network file a command is to evaluate with cannot be used.
    #[error("{}: {source}", .path.display())]
    NetworkFile {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        source: retro_engine::nnue::NetworkError,
    },
    /// The network of `--init` cannot start the network asked for.
    #[error("--init: {0}")]
    WarmStart(retro_train::train::WarmStartError),
    /// The explorer's server could not run.
    #[error(transparent)]
    Serve(#[from] retro_serve::ServeError),
    /// The Syzygy tables of `--syzygy` cannot be used.
    #[error(transparent)]
    Syzygy(#[from] retro_tables::SyzygyError),
    /// A weights file is malformed.
    #[error("{}: {source}", path.display())]
    Weights {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        source: crate::tune::weights_file::WeightsError,
    },
    /// An output file cannot be created.
    #[error("{}: {source}", path.display())]
    Create {
        /// The file.
        path: std::path::PathBuf,
        /// Why not.
        source: std::io::Error,
    },
    /// Reading the input or writing the output failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl CliError {
    /// The exit status: 2 for bad arguments or files given (the command did not start), 1 for
    /// a failure while it ran.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Config(_)
            | CliError::Tables(_)
            | CliError::Seconds(_)
            | CliError::Fen(_)
            | CliError::Start(_)
            | CliError::GameFile(_)
            | CliError::Data { .. }
            | CliError::Weights { .. }
            | CliError::Create { .. }
            | CliError::Count(_)
            | CliError::WarmStart(_)
            | CliError::Syzygy(_) => 2,
            CliError::TrainData { source, .. } => {
                if matches!(source, retro_train::data::DataError::Io(_)) {
                    1
                } else {
                    2
                }
            }
            CliError::TrainGames { source, .. } => {
                if matches!(source, retro_train::games::GamesError::Io(_)) {
                    1
                } else {
                    2
                }
            }
            CliError::NetworkFile { source, .. } => {
                if matches!(source, retro_engine::nnue::NetworkError::Io(_)) {
                    1
                } else {
                    2
                }
            }
            CliError::ProofKernel(_)
            | CliError::Datagen(_)
            | CliError::Network(_)
            | CliError::Serve(_)
            | CliError::Io(_) => 1,
        }
    }
}

/// A `--time` value: seconds, finite and not negative, as a duration.
///
/// # Errors
/// [`CliError::Seconds`] for a negative or non-finite value, or one over [`MAX_SECONDS`].
pub fn time_limit(seconds: Option<f64>) -> Result<Option<std::time::Duration>, CliError> {
    match seconds {
        Some(t) if !(0.0..=MAX_SECONDS).contains(&t) => Err(CliError::Seconds(t)),
        Some(t) => Ok(Some(std::time::Duration::from_secs_f64(t))),
        None => Ok(None),
    }
}

/// The node limit of `retro legal` and `count-legal` per position when neither `--max-nodes`
/// nor `--time` is given.
pub const LEGAL_NODES: u64 = 100_000;

/// The node limit of `retro proofgame` when neither `--max-nodes` nor `--time` is given.
pub const PROOF_GAME_NODES: u64 = 1_000_000;

/// The node limit of an analysis: `--max-nodes` when given; else none when a `--time` limits
/// it (the search runs to its time), else `default`.
pub fn node_limit(max_nodes: Option<u64>, time: Option<std::time::Duration>, default: u64) -> u64 {
    match (max_nodes, time) {
        (Some(n), _) => n,
        (None, Some(_)) => u64::MAX,
        (None, None) => default,
    }
}

/// The longest `--time` taken: a year, so that the deadline it sets (now plus the limit) is a
/// time the clock can hold.
pub const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// Opens a table directory, warning when it holds no table.
///
/// # Errors
/// [`CliError::Tables`] when the directory cannot be read.
pub fn open_tables(dir: &Path) -> Result<Tablebase, CliError> {
    let tb = Tablebase::open(dir)?;
    if tb.materials().is_empty() {
        log::warn!(
            "no tables in {} (build them with build-tables --out {})",
            dir.display(),
            dir.display()
        );
    }
    Ok(tb)
}

/// The processors of this machine (the default number of threads).
pub fn processors() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// Prints a status line on standard output; a closed output (`| head`) is not an error, as
/// the work goes on without a reader.
pub fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

/// Writes `lines` to `out`; a closed pipe (`| head`) ends the listing quietly.
///
/// # Errors
/// Any other write error.
pub fn print_lines(lines: &[String], mut out: impl std::io::Write) -> Result<(), CliError> {
    match lines
        .iter()
        .try_for_each(|l| writeln!(out, "{l}"))
        .and_then(|()| out.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_time_limit_alone_lifts_the_node_limit() {
        let t = Some(Duration::from_secs(30));
        assert_eq!(node_limit(None, t, LEGAL_NODES), u64::MAX);
        assert_eq!(node_limit(None, None, LEGAL_NODES), LEGAL_NODES);
        assert_eq!(node_limit(Some(5), t, LEGAL_NODES), 5);
        assert_eq!(node_limit(Some(5), None, PROOF_GAME_NODES), 5);
    }

    #[test]
    fn time_limits_beyond_the_clock_are_refused() {
        for bad in [-1.0, f64::NAN, f64::INFINITY, 1e20, MAX_SECONDS * 2.0] {
            assert!(time_limit(Some(bad)).is_err(), "{bad}");
        }
        assert_eq!(
            time_limit(Some(0.5)).ok(),
            Some(Some(Duration::from_millis(500)))
        );
        assert_eq!(time_limit(None).ok(), Some(None));
    }
}
