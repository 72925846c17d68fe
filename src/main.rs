//! `retro`: the command line of the Retro chess engine.

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
    time::Duration,
};

use clap::{Parser, Subcommand};
use retro::cli::{self, CliError};
use retro::play::{pgn, replay, session, start};
use retro::tune::{datagen::DatagenOptions, texel::TuneOptions};
use retro_engine::bench;
use retro_engine::config::Config;
use retro_tables::Tablebase;
use shakmaty::{Color, Position};

/// A side of the board, as `--side` takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Side {
    /// White.
    White,
    /// Black.
    Black,
}

impl Side {
    /// The side as shakmaty's colour.
    fn color(self) -> Color {
        match self {
            Side::White => Color::White,
            Side::Black => Color::Black,
        }
    }
}

/// The arguments of `retro play`.
#[derive(clap::Args)]
struct PlayArgs {
    /// Directory of Retro's tables (default: table_path of engine.toml, else
    /// `retro/tables` in the platform's data folder).
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
    #[arg(long, value_enum)]
    side: Option<Side>,
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
    /// Retro plays the tables by pure DTM, ignoring the 50-move rule (which still ends the
    /// game); also what `syzygy_50_move_rule = false` in engine.toml makes the default.
    #[arg(long)]
    no_50_move_rule: bool,
    /// The 50-move rule does not end the game: with --no-50-move-rule, to watch a mate longer
    /// than the rule allows to the end (KRNvKNN's mate in 262 moves goes 242 moves without a
    /// capture).
    #[arg(long)]
    play_on: bool,
}

/// The arguments of `retro legal`.
#[derive(clap::Args)]
struct LegalArgs {
    /// Positions analysed at most per FEN by the last-move analysis, and positions
    /// expanded at most by the proof game search [default: 100000, or no limit with --time]
    #[arg(long)]
    max_nodes: Option<u64>,
    /// Seconds at most per FEN.
    #[arg(long)]
    time: Option<f64>,
    /// Also write each proof game found to this file as a PGN game (the goal FEN in its
    /// `Goal` tag).
    #[arg(long)]
    pgn: Option<PathBuf>,
    /// Positions; when none are given, one FEN per line is read from standard input.
    fens: Vec<String>,
}

/// The arguments of `retro datagen`.
#[derive(clap::Args)]
struct DatagenArgs {
    /// Directory of Retro's tables (default: table_path of engine.toml, else
    /// `retro/tables` in the platform's data folder).
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Games to play.
    #[arg(long, default_value_t = 1000)]
    games: usize,
    /// Search nodes per move: no new iteration starts after them (the search stops at 8
    /// times them).
    #[arg(long, default_value_t = 5000)]
    nodes: u64,
    /// Games played at once (default: one per processor).
    #[arg(long)]
    threads: Option<usize>,
    /// Random plies opening each game (after the book position, if any).
    #[arg(long, default_value_t = 8)]
    random_plies: usize,
    /// Opening book: an EPD or FEN file, one position per line; each game starts from one
    /// drawn with its seed.
    #[arg(long)]
    book: Option<PathBuf>,
    /// Seed of the openings; the same seed gives the same games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The text data file to write (for `retro tune`).
    #[arg(long, required_unless_present = "dir", conflicts_with = "dir")]
    out: Option<PathBuf>,
    /// The directory of binary training data to add to (for `retro train`): parts of
    /// --part-games games, those already there skipped, so the same command resumes.
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Games per part file of --dir.
    #[arg(long, default_value_t = 100)]
    part_games: usize,
    /// With --dir: only the parts numbered START to END - 1 (`--parts 0..500`), so that several
    /// machines, or a batch scheduler's array, make disjoint parts of one data set (part k plays
    /// the same games wherever it is made; the parts' files are merged by copying them into
    /// one directory).
    #[arg(long, value_name = "START..END", requires = "dir", value_parser = parse_part_range)]
    parts: Option<std::ops::Range<usize>>,
}

/// Why a `--parts` value is not a range of parts.
#[derive(Debug, thiserror::Error)]
enum PartRangeError {
    /// No `..`.
    #[error("expected START..END, such as 0..500")]
    Form,
    /// START is not a number.
    #[error("START: {0}")]
    Start(std::num::ParseIntError),
    /// END is not a number.
    #[error("END: {0}")]
    End(std::num::ParseIntError),
    /// END not above START.
    #[error("{0}..{1} holds no part")]
    Empty(usize, usize),
}

/// `--parts START..END`.
fn parse_part_range(s: &str) -> Result<std::ops::Range<usize>, PartRangeError> {
    let (a, b) = s.split_once("..").ok_or(PartRangeError::Form)?;
    let start = a.trim().parse::<usize>().map_err(PartRangeError::Start)?;
    let end = b.trim().parse::<usize>().map_err(PartRangeError::End)?;
    if start >= end {
        return Err(PartRangeError::Empty(start, end));
    }
    Ok(start..end)
}

/// The arguments of `retro train`.
#[derive(clap::Args)]
struct TrainArgs {
    /// The network file to write (after each epoch that improves the held-out loss).
    #[arg(long)]
    out: PathBuf,
    /// Passes over the data.
    #[arg(long, default_value_t = 20)]
    epochs: usize,
    /// Positions per step.
    #[arg(long, default_value_t = 16_384)]
    batch_size: usize,
    /// AdamW's step size at the start.
    #[arg(long, default_value_t = 1e-3)]
    lr: f32,
    /// Epochs between drops of the step size.
    #[arg(long, default_value_t = 8)]
    lr_step: usize,
    /// Factor of each drop.
    #[arg(long, default_value_t = 0.3)]
    lr_gamma: f32,
    /// AdamW's weight decay.
    #[arg(long, default_value_t = 0.01)]
    weight_decay: f32,
    /// The result's share of the target (the search score's is the rest).
    #[arg(long, default_value_t = 0.5)]
    lambda: f32,
    /// Hold out every n-th block of 1000 positions (0: none).
    #[arg(long, default_value_t = 10)]
    hold_out_every: usize,
    /// Threads (default: one per processor).
    #[arg(long)]
    threads: Option<usize>,
    /// Seed of the starting weights and the order of the positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The sigmoid's scale in centipawns (default: fitted to the data).
    #[arg(long)]
    k: Option<f32>,
    /// Do not add each training position mirrored left to right.
    #[arg(long)]
    no_mirror: bool,
    /// Output buckets of the network: 1, or 8 (the output layer's weights by the number of
    /// pieces on the board).
    #[arg(long, default_value_t = 1, value_parser = parse_output_buckets)]
    output_buckets: usize,
    /// Start from this network file's weights instead of random ones (a warm start: what
    /// earlier data taught goes on into the next network); its output buckets are kept.
    #[arg(long, value_name = "NET", conflicts_with = "output_buckets")]
    init: Option<PathBuf>,
    /// Data files or directories of them, written by `retro datagen --dir`.
    #[arg(required = true)]
    data: Vec<PathBuf>,
}

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
    Probe {
        /// Directory of Retro's tables (default: table_path of engine.toml, else
        /// `retro/tables` in the platform's data folder).
        #[arg(long)]
        tables: Option<PathBuf>,
        /// Also print the result under the 50-move rule (win, cursed-win, draw, blessed-loss,
        /// loss) and the distance to zeroing in plies, signed as Syzygy signs it.
        #[arg(long)]
        dtz: bool,
        /// Positions; when none are given, one FEN per line is read from standard input.
        fens: Vec<String>,
    },
    /// Searches a fixed set of positions to a fixed depth (one thread, no tables) and prints
    /// the total nodes and nodes per second; the node count is the same on every run.
    Bench {
        /// Depth in plies.
        #[arg(long, default_value_t = bench::DEPTH, value_parser = clap::value_parser!(u32).range(1..=20))]
        depth: u32,
        /// Evaluate with the network (default: as engine.toml's use_nnue says).
        #[arg(long, conflicts_with = "classic")]
        nnue: bool,
        /// Evaluate with the hand-written evaluation.
        #[arg(long)]
        classic: bool,
    },
    /// Decides whether positions can arise in a game: FEN<TAB>legal|illegal|unknown<TAB>reason
    /// (FEN<TAB>error<TAB>message for a malformed FEN). Positions run in parallel.
    Legal(LegalArgs),
    /// Estimates the number of legal chess positions from a sample of ranked positions (a
    /// tab-separated file with `fen` and `mult` columns) by deciding every position.
    CountLegal {
        /// Per position: nodes at most for the last-move analysis and as many for the proof
        /// game search [default: 100000, or no limit with --time]
        #[arg(long)]
        max_nodes: Option<u64>,
        /// Seconds at most per position.
        #[arg(long)]
        time: Option<f64>,
        /// Also write each position's verdict to this file as it is decided:
        /// INDEX<TAB>MULT<TAB>SECONDS<TAB> and the line `retro legal` prints.
        #[arg(long)]
        verdicts: Option<PathBuf>,
        /// The verdicts file of an earlier run on the same sample: the positions it decided
        /// keep their verdicts (a legal one only when its proof game replays) and only the
        /// others are analysed, to go on where a run left positions unknown.
        #[arg(long)]
        known: Option<PathBuf>,
        /// The sample file.
        file: PathBuf,
    },
    /// Searches a proof game (a game from the starting position) for one position:
    /// FEN<TAB>legal<TAB>proof game: N plies<TAB>MOVES, or FEN<TAB>illegal|unknown<TAB>reason.
    Proofgame {
        /// Positions expanded at most, all restarts together [default: 1000000, or no limit
        /// with --time]
        #[arg(long)]
        max_nodes: Option<u64>,
        /// Seconds at most.
        #[arg(long)]
        time: Option<f64>,
        /// The goal position.
        fen: String,
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
    Play(PlayArgs),
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
        /// Directory of Retro's tables (default: table_path of engine.toml, else
        /// `retro/tables` in the platform's data folder).
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
    /// Plays self-play games at a fixed number of nodes per move from random openings and
    /// writes their quiet positions, labelled with the result (or the tables' exact value), as
    /// tuning data: FEN<TAB>1|0.5|0<TAB>game|adjudicated|table.
    Datagen(DatagenArgs),
    /// Trains the evaluation network on data written by `retro datagen --dir` and writes the
    /// network file (load it with the UCI option EvalFile).
    Train(TrainArgs),
    /// Converts training records (`.rdat`, 32 bytes a position) into the games format
    /// (`.rgms`) that `retro datagen --dir` writes and `retro train` reads, nothing lost.
    ConvertData {
        /// The directory the `.rgms` files are written into (same names).
        #[arg(long)]
        out: PathBuf,
        /// `.rdat` files, or directories of them.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
    },
    /// Fits the evaluation's weights to data files (Texel's method) and writes them as a
    /// weights file (crates/retro-engine/src/eval/weights.rs in the source tree).
    Tune {
        /// Weights file to start from (default: the weights compiled into this binary).
        #[arg(long)]
        start: Option<PathBuf>,
        /// The weights file to write.
        #[arg(long)]
        out: PathBuf,
        /// Passes of gradient descent over the data.
        #[arg(long, default_value_t = 500)]
        epochs: usize,
        /// Step size of the descent in centipawns.
        #[arg(long, default_value_t = 1.0)]
        rate: f64,
        /// Scale of the sigmoid that maps centipawns to a score (default: fitted).
        #[arg(long)]
        k: Option<f64>,
        /// Penalty per weight on the squared distance from its starting value.
        #[arg(long, default_value_t = 1e-8)]
        l2: f64,
        /// Hold out every n-th block of 1000 positions (about ten games) to measure the error
        /// on games not fitted (0: none).
        #[arg(long, default_value_t = 10)]
        hold_out_every: usize,
        /// Data files written by `retro datagen`.
        #[arg(required = true)]
        data: Vec<PathBuf>,
    },
    /// A local explorer in the browser: lichess's tablebase API (/standard,
    /// /standard/mainline) on Retro's tables and Syzygy's, /legal, /analyse, and a page at /.
    Serve(cli::serve::ServeArgs),
    /// Speaks UCI on standard input and output (the same as no subcommand).
    Uci,
}

/// Opens a table directory, warning when it holds no table.
fn open_tables(dir: &Path) -> Result<Tablebase, CliError> {
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
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    match command {
        Some(Command::Probe { tables, dtz, fens }) => {
            let tb = open_tables(&tables.unwrap_or(config.table_path))?;
            cli::probe::run_probe(&tb, &fens, dtz, stdin.lock(), stdout.lock())?;
        }
        Some(Command::Bench {
            depth,
            nnue,
            classic,
        }) => {
            let go = std::sync::atomic::AtomicBool::new(false);
            let use_nnue = nnue || (config.use_nnue && !classic);
            if let Some(e) = retro_engine::nnue::Network::embedded_error() {
                log::error!(
                    "the built-in network cannot be used ({e}): it scores every position 0"
                );
            }
            let eval =
                retro_engine::eval::Evaluator::configured(use_nnue, config.eval_file.as_deref())
                    .map_err(CliError::Network)?;
            let r = bench::run(depth, &eval, &go, |p| println!("{p}"));
            // OpenBench reads the last line: the node count, which identifies a build, and
            // the speed.
            println!(
                "bench: depth {depth}, {} positions, {} ms",
                bench::POSITIONS.len(),
                r.time.as_millis()
            );
            println!("{} nodes {} nps", r.nodes, r.nps());
        }
        Some(Command::Legal(args)) => legal(args)?,
        Some(Command::CountLegal {
            max_nodes,
            time,
            verdicts,
            known,
            file,
        }) => {
            let time = cli::time_limit(time)?;
            let max_nodes = cli::node_limit(max_nodes, time, cli::LEGAL_NODES);
            let (estimate, took) = cli::legal::count_legal(
                &file,
                max_nodes,
                time,
                verdicts.as_deref(),
                known.as_deref(),
            )?;
            let text = format!("{estimate}\ntime: {:.1} s", took.as_secs_f64());
            cli::print_lines(&[text], stdout.lock())?;
        }
        Some(Command::Proofgame {
            max_nodes,
            time,
            fen,
        }) => {
            let time = cli::time_limit(time)?;
            let max_nodes = cli::node_limit(max_nodes, time, cli::PROOF_GAME_NODES);
            let line = cli::legal::proofgame_line(&fen, max_nodes, time)?;
            cli::print_lines(&[line], stdout.lock())?;
        }
        Some(Command::Revmoves { fen }) => {
            let mut lines = cli::legal::revmoves_lines(&fen)?;
            if lines.is_empty() {
                lines.push("no possible last move".to_string());
            }
            cli::print_lines(&lines, stdout.lock())?;
        }
        Some(Command::Proofkernel {
            init,
            max_nodes,
            time,
            fen,
        }) => {
            let time = cli::time_limit(time)?;
            let text = cli::legal::proofkernel_line(init.as_deref(), &fen, max_nodes, time)?;
            cli::print_lines(&[text], stdout.lock())?;
        }
        Some(Command::Play(args)) => play(args, config)?,
        Some(Command::RandomPosition {
            material,
            count,
            seed,
        }) => {
            let seed = seed.unwrap_or_else(start::clock_seed);
            let lines = start::random_fens(&material, count, seed)?;
            cli::print_lines(&lines, stdout.lock())?;
        }
        Some(Command::Replay {
            tables,
            game,
            all,
            ascii,
            file,
        }) => {
            let tb = open_tables(&tables.unwrap_or(config.table_path))?;
            let g = pgn::read_game(&file, game)?;
            let mut out = stdout.lock();
            replay::replay(&tb, &g, ascii, !all, stdin.lock(), &mut out)?;
        }
        Some(Command::Datagen(args)) => datagen(args, config)?,
        Some(Command::Train(args)) => train(args)?,
        Some(Command::ConvertData { out, inputs }) => {
            let mut lines = Vec::new();
            for (path, positions, bytes) in cli::train::convert(&inputs, &out)? {
                lines.push(format!(
                    "{}: {positions} positions, {bytes} bytes",
                    path.display()
                ));
            }
            cli::print_lines(&lines, stdout.lock())?;
        }
        Some(Command::Tune {
            start,
            out,
            epochs,
            rate,
            l2,
            k,
            hold_out_every,
            data,
        }) => {
            cli::tune::run_tune(&cli::tune::TuneRequest {
                data,
                start,
                out,
                opts: TuneOptions { epochs, rate, l2 },
                k,
                hold_out_every,
            })?;
        }
        Some(Command::Serve(args)) => cli::serve::run_serve(args, &config)?,
        Some(Command::Uci) | None => retro::uci::run(&config),
    }
    Ok(())
}

/// `retro play`: an endgame in the terminal against the tables.
fn play(args: PlayArgs, config: Config) -> Result<(), CliError> {
    let PlayArgs {
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
        no_50_move_rule,
        play_on,
    } = args;
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let tb = open_tables(&tables.unwrap_or(config.table_path))?;
    let seed = seed.unwrap_or_else(start::clock_seed);
    let first = start::play_start(
        &tb,
        fen.as_deref(),
        material.as_deref(),
        random,
        pieces,
        seed,
    )?;
    let opts = session::PlayOptions {
        human: side.map_or(first.turn(), Side::color),
        ascii,
        auto,
        perfect,
        games_dir: Some(
            games
                .or(config.games_dir)
                .unwrap_or_else(|| PathBuf::from("games")),
        ),
        move_time: Duration::from_millis(movetime),
        seed,
        tags: start::play_tags(auto, perfect, side.map(Side::color), &first),
        rule50: config.syzygy_50_move_rule && !no_50_move_rule,
        play_on,
        eval: retro_engine::eval::Evaluator::configured(
            config.use_nnue,
            config.eval_file.as_deref(),
        )
        .map_err(CliError::Network)?,
    };
    let mut out = stdout.lock();
    session::play(&tb, first, &opts, stdin.lock(), &mut out)?;
    Ok(())
}

/// `retro legal`.
fn legal(args: LegalArgs) -> Result<(), CliError> {
    let LegalArgs {
        max_nodes,
        time,
        pgn,
        fens,
    } = args;
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();

    let time = cli::time_limit(time)?;
    let max_nodes = cli::node_limit(max_nodes, time, cli::LEGAL_NODES);
    let mut pgn_file = match &pgn {
        Some(path) => Some(std::io::BufWriter::new(
            std::fs::File::create(path).map_err(|source| CliError::Create {
                path: path.clone(),
                source,
            })?,
        )),
        None => None,
    };
    cli::legal::run_legal(
        &fens,
        max_nodes,
        time,
        stdin.lock(),
        stdout.lock(),
        pgn_file.as_mut().map(|f| f as &mut dyn std::io::Write),
    )?;
    Ok(())
}

/// `retro datagen`.
fn datagen(args: DatagenArgs, config: Config) -> Result<(), CliError> {
    let DatagenArgs {
        tables,
        games,
        nodes,
        threads,
        random_plies,
        book,
        seed,
        out,
        dir,
        part_games,
        parts,
    } = args;
    let book = match book {
        Some(path) => read_book(&path)?,
        None => Vec::new(),
    };

    let tb = open_tables(&tables.unwrap_or(config.table_path))?;
    let opts = DatagenOptions {
        games,
        nodes,
        threads: threads.unwrap_or_else(processors),
        random_plies,
        seed,
        book,
        ..DatagenOptions::default()
    };
    let tables = (!tb.materials().is_empty()).then_some(&tb);
    match (out, dir) {
        (_, Some(dir)) => cli::tune::run_datagen_dir(&opts, tables, &dir, part_games, parts)?,
        (Some(out), None) => cli::tune::run_datagen(&opts, tables, &out)?,
        // clap requires one of them.
        (None, None) => return Ok(()),
    };
    Ok(())
}

/// The processors of this machine.
fn processors() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// The positions of an EPD or FEN file, one a line (an EPD line's first four fields).
fn read_book(path: &Path) -> Result<Vec<shakmaty::Chess>, CliError> {
    let text = std::fs::read_to_string(path).map_err(|source| CliError::Create {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(retro::tune::datagen::read_book(
        &text,
        &path.display().to_string(),
    ))
}

/// A `--output-buckets` value that is neither 1 nor [`retro_engine::nnue::OUTPUT_BUCKETS`].
#[derive(Debug, thiserror::Error)]
#[error("expected 1 or {}", retro_engine::nnue::OUTPUT_BUCKETS)]
struct OutputBucketsError;

/// `--output-buckets`: 1 or [`retro_engine::nnue::OUTPUT_BUCKETS`].
fn parse_output_buckets(s: &str) -> Result<usize, OutputBucketsError> {
    let buckets = retro_engine::nnue::OUTPUT_BUCKETS;
    match s.parse::<usize>() {
        Ok(n) if n == 1 || n == buckets => Ok(n),
        _ => Err(OutputBucketsError),
    }
}

/// `retro train`.
fn train(args: TrainArgs) -> Result<(), CliError> {
    let opts = retro_train::train::TrainOptions {
        epochs: args.epochs,
        batch_size: args.batch_size,
        learning_rate: args.lr,
        lr_gamma: args.lr_gamma,
        lr_step: args.lr_step,
        weight_decay: args.weight_decay,
        result_weight: args.lambda,
        hold_out_every: args.hold_out_every,
        threads: args.threads.unwrap_or_else(processors),
        seed: args.seed,
        k: args.k,
        output_buckets: args.output_buckets,
    };
    let init = match &args.init {
        Some(path) => Some(retro_engine::nnue::Network::load(path).map_err(CliError::Network)?),
        None => None,
    };
    cli::train::run_train(&args.data, &args.out, &opts, !args.no_mirror, init.as_ref())
}
