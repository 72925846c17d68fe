//! `retro play` (an endgame in the terminal against the tables), `retro random-position` and
//! `retro replay` (a PGN game stepped through with the table's verdicts): their arguments, and
//! each run with the helpers of [`crate::play`].

use std::{path::PathBuf, time::Duration};

use retro_engine::config::Config;
use shakmaty::{Color, Position};

use super::{open_tables, print_lines, CliError};
use crate::play::{pgn, replay, session, start};

/// A side of the board, as `--side` takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Side {
    /// White.
    White,
    /// Black.
    Black,
}

impl Side {
    /// The side as shakmaty's colour.
    pub fn color(self) -> Color {
        match self {
            Side::White => Color::White,
            Side::Black => Color::Black,
        }
    }
}

/// The arguments of `retro play`.
#[derive(Debug, clap::Args)]
pub struct PlayArgs {
    /// Directory of Retro's tables (default: table_path of engine.toml, else
    /// `retro/tables` in the platform's data folder).
    #[arg(long)]
    pub tables: Option<PathBuf>,
    /// Start from this position.
    #[arg(long)]
    pub fen: Option<String>,
    /// Start from a random position of this material (for example KRvK).
    #[arg(long)]
    pub material: Option<String>,
    /// Start from a random position of a random material whose table is present.
    #[arg(long)]
    pub random: bool,
    /// With --random: pieces on the board, kings included (default: 3 or 4).
    #[arg(long, requires = "random", value_parser = clap::value_parser!(u8).range(3..=6))]
    pub pieces: Option<u8>,
    /// The human's side: white or black (default: the side to move).
    #[arg(long, value_enum)]
    pub side: Option<Side>,
    /// Directory the game is saved into (default: games_dir of engine.toml, else `games`).
    #[arg(long)]
    pub games: Option<PathBuf>,
    /// Letters instead of Unicode chess pieces.
    #[arg(long)]
    pub ascii: bool,
    /// No human: the human's side plays random moves (or table moves with --perfect).
    #[arg(long)]
    pub auto: bool,
    /// With --auto: the human's side plays the table's best moves too.
    #[arg(long, requires = "auto")]
    pub perfect: bool,
    /// Seed of the random position and the random moves (default: from the clock).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Milliseconds of search per move where the tables do not decide the move.
    #[arg(long, default_value_t = 1000)]
    pub movetime: u64,
    /// Retro plays the tables by pure DTM, ignoring the 50-move rule (which still ends the
    /// game); also what `syzygy_50_move_rule = false` in engine.toml makes the default.
    #[arg(long)]
    pub no_50_move_rule: bool,
    /// The 50-move rule does not end the game: with --no-50-move-rule, to watch a mate longer
    /// than the rule allows to the end (KRNvKNN's mate in 262 moves goes 242 moves without a
    /// capture).
    #[arg(long)]
    pub play_on: bool,
}

impl PlayArgs {
    /// Plays the game in the terminal (standard input and output) and saves it.
    ///
    /// # Errors
    /// A table directory that cannot be opened, no start position, a network file that cannot
    /// be loaded, or failed I/O.
    pub fn run(self, config: &Config) -> Result<(), CliError> {
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
        } = self;
        let stdin = std::io::stdin();
        let stdout = std::io::stdout();
        let tb = open_tables(&tables.unwrap_or_else(|| config.table_path.clone()))?;
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
                    .or_else(|| config.games_dir.clone())
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
}

/// The arguments of `retro random-position`.
#[derive(Debug, clap::Args)]
pub struct RandomPositionArgs {
    /// The material, for example KBNvK.
    pub material: String,
    /// How many positions.
    #[arg(long, default_value_t = 1)]
    pub count: usize,
    /// Seed (default: from the clock); the same seed gives the same positions.
    #[arg(long)]
    pub seed: Option<u64>,
}

impl RandomPositionArgs {
    /// Prints the positions, one FEN a line.
    ///
    /// # Errors
    /// A material that cannot be read or has no legal position, or failed output.
    pub fn run(self) -> Result<(), CliError> {
        let seed = self.seed.unwrap_or_else(start::clock_seed);
        let lines = start::random_fens(&self.material, self.count, seed)?;
        print_lines(&lines, std::io::stdout().lock())
    }
}

/// The arguments of `retro replay`.
#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// Directory of Retro's tables (default: table_path of engine.toml, else
    /// `retro/tables` in the platform's data folder).
    #[arg(long)]
    pub tables: Option<PathBuf>,
    /// Which game of the file, counted from 1.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub game: u64,
    /// Show every position at once instead of waiting for Enter.
    #[arg(long)]
    pub all: bool,
    /// Letters instead of Unicode chess pieces.
    #[arg(long)]
    pub ascii: bool,
    /// The PGN file.
    pub file: PathBuf,
}

impl ReplayArgs {
    /// Steps through the game in the terminal.
    ///
    /// # Errors
    /// A table directory that cannot be opened, no such game in the file, or failed I/O.
    pub fn run(self, config: &Config) -> Result<(), CliError> {
        let tb = open_tables(&self.tables.unwrap_or_else(|| config.table_path.clone()))?;
        let g = pgn::read_game(&self.file, self.game)?;
        let mut out = std::io::stdout().lock();
        replay::replay(
            &tb,
            &g,
            self.ascii,
            !self.all,
            std::io::stdin().lock(),
            &mut out,
        )?;
        Ok(())
    }
}
