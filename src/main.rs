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
    /// Plays an endgame in the terminal against the tables (or watches one with --auto); the
    /// game is saved as PGN.
    #[command(group(clap::ArgGroup::new("start").required(true).args(["fen", "material", "random"])))]
    Play {
        /// Directory of Retro's tables (default: table_path of engine.toml, else `tables`).
        #[arg(long)]
        tables: Option<PathBuf>,
        /// Start from this position.
        #[arg(long)]
        fen: Option<String>,
        /// Start from a random position of this material (for example KRvK).
        #[arg(long)]
        material: Option<String>,
        /// Start from a random position of a random material whose table is present.
        #[arg(long)]
        random: bool,
        /// With --random: pieces on the board, kings included (default: 3 or 4).
        #[arg(long, requires = "random", value_parser = clap::value_parser!(u8).range(3..=6))]
        pieces: Option<u8>,
        /// The human's side: white or black (default: the side to move).
        #[arg(long, value_parser = ["white", "black"])]
        side: Option<String>,
        /// Directory the game is saved into (default: games_dir of engine.toml, else `games`).
        #[arg(long)]
        games: Option<PathBuf>,
        /// Letters instead of Unicode chess pieces.
        #[arg(long)]
        ascii: bool,
        /// No human: the human's side plays random moves (or table moves with --perfect).
        #[arg(long)]
        auto: bool,
        /// With --auto: the human's side plays the table's best moves too.
        #[arg(long, requires = "auto")]
        perfect: bool,
        /// Seed of the random position and the random moves (default: from the clock).
        #[arg(long)]
        seed: Option<u64>,
        /// Milliseconds of search per move where the tables do not decide the move.
        #[arg(long, default_value_t = 1000)]
        movetime: u64,
    },
    /// Prints random legal positions of a material as FENs, uniformly over the legal
    /// placements with either side to move, leaving out checkmates and stalemates.
    RandomPosition {
        /// The material, for example KBNvK.
        material: String,
        /// How many positions.
        #[arg(long, default_value_t = 1)]
        count: usize,
        /// Seed (default: from the clock); the same seed gives the same positions.
        #[arg(long)]
        seed: Option<u64>,
    },
    /// Steps through a PGN game showing the table's verdict at every position, and lists the
    /// moves that threw away a win or a draw.
    Replay {
        /// Directory of Retro's tables (default: table_path of engine.toml, else `tables`).
        #[arg(long)]
        tables: Option<PathBuf>,
        /// Which game of the file, counted from 1.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
        game: u64,
        /// Show every position at once instead of waiting for Enter.
        #[arg(long)]
        all: bool,
        /// Letters instead of Unicode chess pieces.
        #[arg(long)]
        ascii: bool,
        /// The PGN file.
        file: PathBuf,
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

/// Prints lines to standard output; a closed pipe (`| head`) ends the listing quietly.
fn print_lines(lines: &[String]) -> ExitCode {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match lines
        .iter()
        .try_for_each(|l| writeln!(out, "{l}"))
        .and_then(|()| out.flush())
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("retro: {e}");
            ExitCode::from(1)
        }
    }
}

/// Opens a table directory, warning when it holds no table.
fn open_tables(dir: PathBuf) -> Result<Tablebase, ExitCode> {
    match Tablebase::open(&dir) {
        Ok(tb) => {
            if tb.materials().is_empty() {
                log::warn!(
                    "no tables in {} (build them with build-tables --out {})",
                    dir.display(),
                    dir.display()
                );
            }
            Ok(tb)
        }
        Err(e) => {
            eprintln!("retro: {e}");
            Err(ExitCode::from(2))
        }
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
            let tb = match open_tables(tables.unwrap_or(config.table_path)) {
                Ok(tb) => tb,
                Err(code) => return code,
            };
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
                if lines.is_empty() {
                    print_lines(&["no possible last move".to_string()])
                } else {
                    print_lines(&lines)
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
        Some(Command::Play {
            tables,
            fen,
            material,
            random,
            pieces,
            side,
            games,
            ascii,
            auto,
            perfect,
            seed,
            movetime,
        }) => {
            let tb = match open_tables(tables.unwrap_or(config.table_path)) {
                Ok(tb) => tb,
                Err(code) => return code,
            };
            let seed = seed.unwrap_or_else(cli::clock_seed);
            let start = match cli::play_start(
                &tb,
                fen.as_deref(),
                material.as_deref(),
                random,
                pieces,
                seed,
            ) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("retro: {e}");
                    return ExitCode::from(2);
                }
            };
            let opts = retro::play::session::PlayOptions {
                human: match side.as_deref() {
                    Some("white") => shakmaty::Color::White,
                    Some(_) => shakmaty::Color::Black,
                    None => shakmaty::Position::turn(&start),
                },
                ascii,
                auto,
                perfect,
                games_dir: Some(
                    games
                        .or(config.games_dir)
                        .unwrap_or_else(|| PathBuf::from("games")),
                ),
                move_time: std::time::Duration::from_millis(movetime),
                seed,
                tags: cli::play_tags(auto, perfect, side.as_deref(), &start),
            };
            let stdin = std::io::stdin();
            let mut stdout = std::io::stdout();
            match retro::play::session::play(&tb, start, &opts, stdin.lock(), &mut stdout) {
                Ok(_) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("retro: {e}");
                    ExitCode::from(1)
                }
            }
        }
        Some(Command::RandomPosition {
            material,
            count,
            seed,
        }) => match cli::random_fens(&material, count, seed.unwrap_or_else(cli::clock_seed)) {
            Ok(lines) => print_lines(&lines),
            Err(e) => {
                eprintln!("retro: {e}");
                ExitCode::from(2)
            }
        },
        Some(Command::Replay {
            tables,
            game,
            all,
            ascii,
            file,
        }) => {
            let tb = match open_tables(tables.unwrap_or(config.table_path)) {
                Ok(tb) => tb,
                Err(code) => return code,
            };
            let g = match cli::read_game(&file, game) {
                Ok(g) => g,
                Err(e) => {
                    eprintln!("retro: {e}");
                    return ExitCode::from(2);
                }
            };
            let stdin = std::io::stdin();
            let mut stdout = std::io::stdout();
            match retro::play::replay::replay(&tb, &g, ascii, !all, stdin.lock(), &mut stdout) {
                Ok(_) => ExitCode::SUCCESS,
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
