//! `retro`: the command line of the Retro chess engine. This file only parses the command line
//! and hands each subcommand to its module in [`retro::cli`] (its arguments and the code that
//! runs it); with no subcommand, or one that is a UCI command line, it speaks UCI.

use std::{path::PathBuf, process::ExitCode};

use clap::{Parser, Subcommand};
use retro::cli::{self, CliError};
use retro_engine::config::Config;

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
    /// FEN<TAB>error<TAB>reason; with --dtz also WDL50<TAB>DTZ.
    Probe(cli::probe::ProbeArgs),
    /// Searches a fixed set of positions to a fixed depth (one thread, no tables) and prints
    /// the total nodes and nodes per second; the node count is the same on every run.
    Bench(cli::bench::BenchArgs),
    /// Decides whether positions can arise in a game: FEN<TAB>legal|illegal|unknown<TAB>reason
    /// (FEN<TAB>error<TAB>message for a malformed FEN). Positions run in parallel.
    Legal(cli::legal::LegalArgs),
    /// Estimates the number of legal chess positions from a sample of ranked positions (a
    /// tab-separated file with `fen` and `mult` columns) by deciding every position.
    CountLegal(cli::legal::CountLegalArgs),
    /// Searches a proof game (a game from the starting position) for one position:
    /// FEN<TAB>legal<TAB>proof game: N plies<TAB>MOVES, or FEN<TAB>illegal|unknown<TAB>reason.
    Proofgame(cli::legal::ProofgameArgs),
    /// Lists the candidate last moves of a position with their undo information: the move,
    /// the piece captured, the castling rights and en passant square before it, and the FEN
    /// before it.
    Revmoves(cli::legal::RevmovesArgs),
    /// Searches a proof kernel (the captures of a game, without squares) from the starting
    /// position, or from `--init`, to a position.
    Proofkernel(cli::legal::ProofkernelArgs),
    /// Plays an endgame in the terminal against the tables (or watches one with --auto); the
    /// game is saved as PGN.
    #[command(group(clap::ArgGroup::new("start").required(true).args(["fen", "material", "random"])))]
    Play(cli::play::PlayArgs),
    /// Prints random legal positions of a material as FENs, uniformly over the legal
    /// placements with either side to move, leaving out checkmates and stalemates.
    RandomPosition(cli::play::RandomPositionArgs),
    /// Steps through a PGN game showing the table's verdict at every position, and lists the
    /// moves that threw away a win or a draw.
    Replay(cli::play::ReplayArgs),
    /// Plays self-play games at a fixed number of nodes per move from random openings: with
    /// --dir, whole games (every move's search score, the result, table labels) in parts for
    /// `retro train`; with --out, their quiet positions as text for `retro tune`
    /// (FEN<TAB>1|0.5|0<TAB>game|adjudicated|table).
    Datagen(cli::tune::DatagenArgs),
    /// Trains the evaluation network on data written by `retro datagen --dir` and writes the
    /// network file (load it with the UCI option EvalFile).
    Train(cli::train::TrainArgs),
    /// Converts training records (`.rdat`, 32 bytes a position) into the games format
    /// (`.rgms`) that `retro datagen --dir` writes and `retro train` reads, nothing lost.
    ConvertData(cli::train::ConvertDataArgs),
    /// Fits the evaluation's weights to data files (Texel's method) and writes them as a
    /// weights file (crates/retro-engine/src/eval/weights.rs in the source tree).
    Tune(cli::tune::TuneArgs),
    /// A local explorer in the browser: lichess's tablebase API (/standard,
    /// /standard/mainline) on Retro's tables and Syzygy's, /legal, /analyse, and a page at /.
    Serve(cli::serve::ServeArgs),
    /// Speaks UCI on standard input and output (the same as no subcommand).
    Uci,
}

/// Sends the log to standard error, or to the configured log file.
fn init_logging(config: &Config) {
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
}

fn main() -> ExitCode {
    // Arguments that are whole command lines (with a space: `retro "genfens 10 seed 1 book
    // None" quit`, as OpenBench runs engines) are UCI commands, run in turn.
    let raw: Vec<String> = std::env::args().skip(1).collect();
    if raw
        .first()
        .is_some_and(|a| a.trim().contains(char::is_whitespace))
    {
        let config = match Config::load(None) {
            // A one-shot run: no background build of missing tables.
            Ok((c, _)) => Config {
                build_missing_tables: false,
                ..c
            },
            Err(e) => {
                eprintln!("retro: {e}");
                return ExitCode::from(CliError::from(e).exit_code());
            }
        };
        init_logging(&config);
        retro::uci::run_lines(&config, &raw);
        return ExitCode::SUCCESS;
    }
    let args = Args::parse();
    let (config, config_error) = match Config::load(args.config.as_deref()) {
        Ok((c, _)) => (c, None),
        Err(e) => (Config::default(), Some(e)),
    };
    init_logging(&config);
    let result = match config_error {
        Some(e) => Err(CliError::from(e)),
        None => run(args.command, config),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("retro: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// Runs one subcommand.
fn run(command: Option<Command>, config: Config) -> Result<(), CliError> {
    match command {
        Some(Command::Probe(args)) => args.run(&config),
        Some(Command::Bench(args)) => args.run(&config),
        Some(Command::Legal(args)) => args.run(),
        Some(Command::CountLegal(args)) => args.run(),
        Some(Command::Proofgame(args)) => args.run(),
        Some(Command::Revmoves(args)) => args.run(),
        Some(Command::Proofkernel(args)) => args.run(),
        Some(Command::Play(args)) => args.run(&config),
        Some(Command::RandomPosition(args)) => args.run(),
        Some(Command::Replay(args)) => args.run(&config),
        Some(Command::Datagen(args)) => args.run(&config),
        Some(Command::Train(args)) => args.run(),
        Some(Command::ConvertData(args)) => args.run(),
        Some(Command::Tune(args)) => args.run(),
        Some(Command::Serve(args)) => cli::serve::run_serve(args, &config),
        Some(Command::Uci) | None => {
            retro::uci::run(&config);
            Ok(())
        }
    }
}
