//! `build-tables`: generates Retro's depth-to-mate tables by retrograde analysis, verifies
//! them (`--verify`), or compresses 5-piece tables again at another level or block length
//! (`--recompress`). The arguments and the work are in [`retro::cli::build_tables`].

use std::process::ExitCode;

use clap::Parser;
use retro::cli::build_tables::{BuildTablesArgs, BuildTablesError};

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    match BuildTablesArgs::parse().run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if !matches!(e, BuildTablesError::Failed(_)) {
                eprintln!("build-tables: {e}");
            }
            ExitCode::from(e.exit_code())
        }
    }
}
