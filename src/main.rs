//! `retro`: the command line of the Retro chess engine.

use std::{path::PathBuf, process::ExitCode};

use clap::{Parser, Subcommand};
use retro::{cli, config::Config, tablebase::Tablebase};

#[derive(Parser)]
#[command(
    name = "retro",
    version,
    about = "Retro: a chess engine with its own depth-to-mate endgame tables"
)]
struct Args {
    /// Configuration file (default: engine.toml beside the binary, else in the working
    /// directory).
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Prints the table value of positions: FEN<TAB>win|draw|loss<TAB>plies, or
    /// FEN<TAB>error<TAB>reason.
    Probe {
        /// Directory of Retro's tables (default: table_path of engine.toml, else `tables`).
        #[arg(long)]
        tables: Option<PathBuf>,
        /// Positions; when none are given, one FEN per line is read from standard input.
        fens: Vec<String>,
    },
}

fn main() -> ExitCode {
    let args = Args::parse();
    let (config, config_error) = match Config::load(args.config.as_deref()) {
        Ok((c, _)) => (c, None),
        Err(e) => (Config::default(), Some(e)),
    };
    env_logger::Builder::new()
        .filter_level(config.log_level.filter())
        .parse_env("RUST_LOG")
        .target(env_logger::Target::Stderr)
        .init();
    if let Some(e) = config_error {
        eprintln!("retro: {e}");
        return ExitCode::from(2);
    }
    match args.command {
        Some(Command::Probe { tables, fens }) => {
            let tables = tables.unwrap_or(config.table_path);
            let tb = match Tablebase::open(&tables) {
                Ok(tb) => tb,
                Err(e) => {
                    eprintln!("retro: {e}");
                    return ExitCode::from(2);
                }
            };
            if tb.materials().is_empty() {
                log::warn!(
                    "no tables in {} (build them with build-tables --out {})",
                    tables.display(),
                    tables.display()
                );
            }
            let stdin = std::io::stdin();
            let stdout = std::io::stdout();
            match cli::run_probe(&tb, &fens, stdin.lock(), stdout.lock()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("retro: {e}");
                    ExitCode::from(1)
                }
            }
        }
        None => {
            eprintln!(
                "retro: the UCI engine is not built yet; available now: `retro probe` (see --help)"
            );
            ExitCode::from(2)
        }
    }
}
