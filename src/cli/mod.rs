//! The command lines of `retro` other than the UCI engine: `probe`, `legal`, `revmoves`,
//! `proofkernel`, `proofgame`, `count-legal`, `datagen` and `tune` (the play mode's helpers
//! are in [`crate::play`]). Each command reports one line per input and never stops at a bad
//! one; what ends a command early is a [`CliError`], whose [`CliError::exit_code`] is the
//! process's exit status.

pub mod legal;
pub mod probe;
pub mod tune;

use crate::play::{pgn::GameFileError, start::StartError};
use retro_engine::config::ConfigError;
use retro_tables::format::TableError;

/// What ends a command of `retro` early.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// `engine.toml` cannot be read.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The table directory cannot be opened.
    #[error(transparent)]
    Tables(#[from] TableError),
    /// A `--time` that is not a number of seconds.
    #[error("--time {0}: expected a number of seconds >= 0")]
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
            | CliError::Count(_) => 2,
            CliError::ProofKernel(_) | CliError::Datagen(_) | CliError::Io(_) => 1,
        }
    }
}

/// A `--time` value: seconds, finite and not negative, as a duration.
///
/// # Errors
/// [`CliError::Seconds`] for a negative or non-finite value.
pub fn time_limit(seconds: Option<f64>) -> Result<Option<std::time::Duration>, CliError> {
    match seconds {
        Some(t) if !t.is_finite() || t < 0.0 => Err(CliError::Seconds(t)),
        Some(t) => Ok(Some(std::time::Duration::from_secs_f64(t))),
        None => Ok(None),
    }
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
