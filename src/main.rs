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
    /// Searches a fixed set of positions to a fixed depth (one thread, no tables) and prints
    /// the total nodes and nodes per second; the node count is the same on every run.
    Bench {
        /// Depth in plies.
        #[arg(long, default_value_t = retro::engine::bench::DEPTH, value_parser = clap::value_parser!(u32).range(1..=20))]
        depth: u32,
    },
    /// Decides whether positions can arise in a game: FEN<TAB>legal|illegal|unknown<TAB>reason
    /// (FEN<TAB>error<TAB>message for a malformed FEN). Positions run in parallel.
    Legal {
        /// Positions analysed at most per FEN by the last-move analysis.
        #[arg(long, default_value_t = 100_000)]
        max_nodes: u64,
        /// Seconds at most per FEN.
        #[arg(long)]
        time: Option<f64>,
        /// Positions; when none are given, one FEN per line is read from standard input.
        fens: Vec<String>,
    },
    /// Lists the candidate last moves of a position with their undo information: the move,
    /// the piece captured, the castling rights and en passant square before it, and the FEN
    /// before it.
    Revmoves {
        /// The position.
        fen: String,
    },
    /// Searches a proof kernel (the captures of a game, without squares) from the starting
    /// position, or from `--init`, to a position.
    Proofkernel {
        /// The initial position (default: the starting position).
        #[arg(long)]
        init: Option<String>,
        /// Search nodes at most.
        #[arg(long, default_value_t = 1_000_000)]
        max_nodes: u64,
        /// Seconds at most.
        #[arg(long)]
        time: Option<f64>,
        /// The goal position.
        fen: String,
    },
    /// Speaks UCI on standard input and output (the same as no subcommand).
    Uci,
}

/// A `--time` value: seconds, finite and not negative.
fn check_seconds(time: Option<f64>) -> Result<(), String> {
    match time {
        Some(t) if !t.is_finite() || t < 0.0 => {
            Err(format!("--time {t}: expected a number of seconds >= 0"))
        }
        _ => Ok(()),
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let (config, config_error) = match Config::load(args.config.as_deref()) {
        Ok((c, _)) => (c, None),
        Err(e) => (Config::default(), Some(e)),
    };
    let mut logger = env_logger::Builder::new();
    logger
        .filter_level(config.log_level.filter())
        .parse_env("RUST_LOG")
        .target(env_logger::Target::Stderr);
    if let Some(path) = &config.log_file {
        match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            Ok(f) => {
                logger.target(env_logger::Target::Pipe(Box::new(f)));
            }
            Err(e) => eprintln!(
                "retro: log file {}: {e}; logging to standard error",
                path.display()
            ),
        }
    }
    logger.init();
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
        Some(Command::Bench { depth }) => {
            let go = std::sync::atomic::AtomicBool::new(false);
            let r = retro::engine::bench::run(depth, &go, |l| println!("{l}"));
            println!(
                "bench: {} nodes {} nps {} ms (depth {depth}, {} positions)",
                r.nodes,
                r.nps(),
                r.time.as_millis(),
                retro::engine::bench::POSITIONS.len()
            );
            ExitCode::SUCCESS
        }
        Some(Command::Legal {
            max_nodes,
            time,
            fens,
        }) => {
            if let Err(e) = check_seconds(time) {
                eprintln!("retro: {e}");
                return ExitCode::from(2);
            }
            let stdin = std::io::stdin();
            let stdout = std::io::stdout();
            match cli::run_legal(&fens, max_nodes, time, stdin.lock(), stdout.lock()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("retro: {e}");
                    ExitCode::from(1)
                }
            }
        }
        Some(Command::Revmoves { fen }) => match cli::revmoves_lines(&fen) {
            Ok(lines) => {
                use std::io::Write;
                let mut out = std::io::stdout().lock();
                let written = if lines.is_empty() {
                    writeln!(out, "no possible last move")
                } else {
                    lines.iter().try_for_each(|l| writeln!(out, "{l}"))
                };
                // A closed pipe (`| head`) ends the listing quietly.
                match written.and_then(|()| out.flush()) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                    Err(e) => {
                        eprintln!("retro: {e}");
                        ExitCode::from(1)
                    }
                }
            }
            Err(e) => {
                eprintln!("retro: {e}");
                ExitCode::from(2)
            }
        },
        Some(Command::Proofkernel {
            init,
            max_nodes,
            time,
            fen,
        }) => {
            if let Err(e) = check_seconds(time) {
                eprintln!("retro: {e}");
                return ExitCode::from(2);
            }
            match cli::proofkernel_line(init.as_deref(), &fen, max_nodes, time) {
                Ok(line) => {
                    println!("{line}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("retro: {e}");
                    ExitCode::from(1)
                }
            }
        }
        Some(Command::Uci) | None => {
            retro::uci::run(&config);
            ExitCode::SUCCESS
        }
    }
}
