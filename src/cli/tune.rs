//! `retro datagen` (self-play games into a data file) and `retro tune` (the evaluation's weights
//! fitted to data files, written as a weights file), with progress on standard error; their
//! arguments beside the code that runs them.

use std::{
    fs::File,
    io::{BufReader, BufWriter},
    path::{Path, PathBuf},
    time::Instant,
};

use indicatif::{ProgressBar, ProgressStyle};

use super::{open_tables, processors, CliError};
use crate::tune::{
    datagen::{self, DatagenOptions, DatagenSummary},
    texel::{self, Sample, TuneOptions},
    weights_file,
};
use retro_engine::{
    config::Config,
    eval::{weights::WEIGHTS, Evaluator, S},
};
use retro_tables::Tablebase;

/// The arguments of `retro datagen`.
#[derive(Debug, clap::Args)]
pub struct DatagenArgs {
    /// Directory of Retro's tables (default: table_path of engine.toml, else
    /// `retro/tables` in the platform's data folder).
    #[arg(long)]
    pub tables: Option<PathBuf>,
    /// Games to play.
    #[arg(long, default_value_t = 1000)]
    pub games: usize,
    /// Search nodes per move: no new iteration starts after them (the search stops at 8
    /// times them).
    #[arg(long, default_value_t = 5000)]
    pub nodes: u64,
    /// Games played at once (default: one per processor).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Random plies opening each game (after the book position, if any).
    #[arg(long, default_value_t = 8)]
    pub random_plies: usize,
    /// Opening book: an EPD or FEN file, one position per line; each game starts from one
    /// drawn with its seed.
    #[arg(long)]
    pub book: Option<PathBuf>,
    /// Seed of the openings; the same seed gives the same games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The text data file to write (for `retro tune`).
    #[arg(long, required_unless_present = "dir", conflicts_with = "dir")]
    pub out: Option<PathBuf>,
    /// The directory of binary training data to add to (for `retro train`): parts of
    /// --part-games games, those already there skipped, so the same command resumes.
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Games per part file of --dir.
    #[arg(long, default_value_t = 100)]
    pub part_games: usize,
    /// With --dir: only the parts numbered START to END - 1 (`--parts 0..500`), so that several
    /// machines, or a batch scheduler's array, make disjoint parts of one data set (part k plays
    /// the same games wherever it is made; the parts' files are merged by copying them into
    /// one directory).
    #[arg(long, value_name = "START..END", requires = "dir", value_parser = parse_part_range)]
    pub parts: Option<std::ops::Range<usize>>,
    /// The network the games' searches evaluate with (default: the evaluation engine.toml
    /// chooses, `use_nnue` and `eval_file`: the built-in network unless it says otherwise).
    #[arg(long, conflicts_with = "classic")]
    pub eval_file: Option<PathBuf>,
    /// Search with the hand-written evaluation instead of a network.
    #[arg(long)]
    pub classic: bool,
}

impl DatagenArgs {
    /// Plays the games and writes them: to the text file of `--out` ([`run_datagen`]) or as
    /// parts into `--dir` ([`run_datagen_dir`]).
    ///
    /// # Errors
    /// A book or table directory that cannot be read, or a data file that cannot be written.
    pub fn run(self, config: &Config) -> Result<(), CliError> {
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
            eval_file,
            classic,
        } = self;
        let use_nnue = !classic && (config.use_nnue || eval_file.is_some());
        let net_file = eval_file.or_else(|| config.eval_file.clone());
        let eval = Evaluator::configured(use_nnue, net_file.as_deref()).map_err(|source| {
            CliError::NetworkFile {
                path: net_file.clone().unwrap_or_default(),
                source,
            }
        })?;
        eprintln!("datagen: {}", describe_eval(&eval, net_file.as_deref()));
        let book = match book {
            Some(path) => read_book(&path)?,
            None => Vec::new(),
        };

        let tb = open_tables(&tables.unwrap_or_else(|| config.table_path.clone()))?;
        let opts = DatagenOptions {
            games,
            nodes,
            threads: threads.unwrap_or_else(processors),
            random_plies,
            seed,
            book,
            eval,
            ..DatagenOptions::default()
        };
        let tables = (!tb.materials().is_empty()).then_some(&tb);
        match (out, dir) {
            (_, Some(dir)) => run_datagen_dir(&opts, tables, &dir, part_games, parts)?,
            (Some(out), None) => run_datagen(&opts, tables, &out)?,
            // clap requires one of them.
            (None, None) => return Ok(()),
        };
        Ok(())
    }
}

/// Which evaluation datagen plays with, for its first line.
fn describe_eval(eval: &Evaluator, file: Option<&Path>) -> String {
    match (eval, file) {
        (Evaluator::Classic, _) => "searches with the hand-written evaluation".to_string(),
        (Evaluator::Network(_), Some(f)) => format!("searches with the network {}", f.display()),
        (Evaluator::Network(_), None) => "searches with the built-in network".to_string(),
    }
}

/// Why a `--parts` value is not a range of parts.
#[derive(Debug, thiserror::Error)]
pub enum PartRangeError {
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
///
/// # Errors
/// A [`PartRangeError`] when `s` is not two numbers, the second above the first, around `..`.
pub fn parse_part_range(s: &str) -> Result<std::ops::Range<usize>, PartRangeError> {
    let (a, b) = s.split_once("..").ok_or(PartRangeError::Form)?;
    let start = a.trim().parse::<usize>().map_err(PartRangeError::Start)?;
    let end = b.trim().parse::<usize>().map_err(PartRangeError::End)?;
    if start >= end {
        return Err(PartRangeError::Empty(start, end));
    }
    Ok(start..end)
}

/// The positions of an EPD or FEN file, one a line (an EPD line's first four fields).
///
/// # Errors
/// [`CliError::Create`] when the file cannot be read.
pub fn read_book(path: &Path) -> Result<Vec<shakmaty::Chess>, CliError> {
    let text = std::fs::read_to_string(path).map_err(|source| CliError::Create {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(datagen::read_book(&text, &path.display().to_string()))
}

/// The arguments of `retro tune`.
#[derive(Debug, clap::Args)]
pub struct TuneArgs {
    /// Weights file to start from (default: the weights compiled into this binary).
    #[arg(long)]
    pub start: Option<PathBuf>,
    /// The weights file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Passes of gradient descent over the data.
    #[arg(long, default_value_t = 500)]
    pub epochs: usize,
    /// Step size of the descent in centipawns.
    #[arg(long, default_value_t = 1.0)]
    pub rate: f64,
    /// Scale of the sigmoid that maps centipawns to a score (default: fitted).
    #[arg(long)]
    pub k: Option<f64>,
    /// Penalty per weight on the squared distance from its starting value.
    #[arg(long, default_value_t = 1e-8)]
    pub l2: f64,
    /// Hold out every n-th block of 1000 positions (about ten games) to measure the error
    /// on games not fitted (0: none).
    #[arg(long, default_value_t = 10)]
    pub hold_out_every: usize,
    /// Data files written by `retro datagen`.
    #[arg(required = true)]
    pub data: Vec<PathBuf>,
}

impl TuneArgs {
    /// Fits the weights ([`run_tune`]).
    ///
    /// # Errors
    /// As [`run_tune`].
    pub fn run(self) -> Result<(), CliError> {
        let TuneArgs {
            start,
            out,
            epochs,
            rate,
            k,
            l2,
            hold_out_every,
            data,
        } = self;
        run_tune(&TuneRequest {
            data,
            start,
            out,
            opts: TuneOptions { epochs, rate, l2 },
            k,
            hold_out_every,
        })
    }
}

fn bar(len: u64, template: &str) -> ProgressBar {
    let pb = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(template) {
        pb.set_style(style);
    }
    pb
}

/// Plays the games of `opts` and writes their positions to `out` (through a temporary file
/// renamed at the end); returns the summary.
///
/// # Errors
/// [`CliError`] when the file cannot be written or the hash table allocated.
pub fn run_datagen(
    opts: &DatagenOptions,
    tables: Option<&Tablebase>,
    out: &Path,
) -> Result<DatagenSummary, CliError> {
    let tmp = out.with_extension("partial");
    let mut file = BufWriter::new(File::create(&tmp)?);
    let pb = bar(
        opts.games as u64,
        "datagen [{elapsed_precise}] {bar:30} {pos}/{len} games, {msg} (eta {eta})",
    );
    let start = Instant::now();
    let summary = datagen::run(opts, tables, &mut datagen::Lines(&mut file), &|s| {
        pb.set_position(s.games as u64);
        pb.set_message(format!(
            "{} positions, +{} ={} -{}",
            s.positions, s.results[0], s.results[1], s.results[2]
        ));
    })?;
    pb.finish_and_clear();
    drop(file);
    std::fs::rename(&tmp, out)?;
    eprintln!(
        "datagen: {} games ({} white wins, {} draws, {} black wins; {} decided by the tables), \
         {} positions in {:.1} s into {}",
        summary.games,
        summary.results[0],
        summary.results[1],
        summary.results[2],
        summary.table_results,
        summary.positions,
        start.elapsed().as_secs_f64(),
        out.display()
    );
    Ok(summary)
}

/// Plays the games of `opts` in parts of `part_games` games and writes each part's training
/// games to `dir/part-NNNNN.rgms` in the compact games format (atomically, when the part is
/// complete). Parts already in `dir` (as games, or as records of the older format,
/// `part-NNNNN.rdat`) are skipped: the same command run again resumes after a stop. Part `k` plays the games
/// of seeds `opts.seed + k * part_games ..`, so a run's data does not depend on its stops, and
/// `range` (the parts numbered `start..end`) makes a shard of it: shards made anywhere, copied
/// into one directory, are the data of one run. Prints a progress line after each game:
/// positions per second and the time left.
///
/// # Errors
/// [`CliError`] when a part cannot be written or the hash table allocated.
pub fn run_datagen_dir(
    opts: &DatagenOptions,
    tables: Option<&Tablebase>,
    dir: &Path,
    part_games: usize,
    range: Option<std::ops::Range<usize>>,
) -> Result<DatagenSummary, CliError> {
    std::fs::create_dir_all(dir)?;
    let part_games = part_games.max(1);
    let all = opts.games.div_ceil(part_games);
    // This run's parts: all of them, or those of the range that the games reach.
    let mine = range.map_or(0..all, |r| r.start.min(all)..r.end.min(all));
    let parts = mine.len();
    let path = |k: usize| dir.join(format!("part-{k:05}.rgms"));
    let made = |k: usize| path(k).exists() || dir.join(format!("part-{k:05}.rdat")).exists();
    let todo: Vec<usize> = mine.filter(|&k| !made(k)).collect();
    eprintln!(
        "datagen: {} of {parts} parts of {part_games} games in {} already made; {} to play on {} threads",
        parts - todo.len(),
        dir.display(),
        todo.len(),
        opts.threads
    );
    let start = Instant::now();
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut total = DatagenSummary::default();
    for (done, &k) in todo.iter().enumerate() {
        let part = DatagenOptions {
            games: part_games.min(opts.games - k * part_games),
            seed: opts.seed.wrapping_add((k * part_games) as u64),
            ..opts.clone()
        };
        let mut games = datagen::GameRecords::default();
        let before = total;
        // The progress: a line redrawn after every game on a terminal; a line a part in a log.
        let progress = |s: &DatagenSummary, end: &str| {
            let secs = start.elapsed().as_secs_f64().max(1e-3);
            let games = before.games + s.games;
            let left = (todo.len() * part_games).saturating_sub(games);
            let positions = before.positions + s.positions;
            eprint!(
                "datagen: part {k} ({}/{}), {games} games, {positions} positions, {:.0} positions/s \
                 ({:.0} an hour), eta {:.0} s{end}",
                done + 1,
                todo.len(),
                positions as f64 / secs,
                positions as f64 / secs * 3600.0,
                secs / games as f64 * left as f64
            );
        };
        let summary = datagen::run(&part, tables, &mut games, &|s| {
            if tty {
                eprint!("\r");
                progress(s, "   ");
            }
        })?;
        if !tty {
            progress(&summary, "\n");
        }
        retro_train::games::write_games_file(&path(k), &games.0).map_err(|source| {
            CliError::TrainGames {
                path: path(k),
                source,
            }
        })?;
        total.games += summary.games;
        total.positions += summary.positions;
        for i in 0..3 {
            total.results[i] += summary.results[i];
        }
        total.table_results += summary.table_results;
    }
    let secs = start.elapsed().as_secs_f64();
    if tty {
        eprintln!();
    }
    eprintln!(
        "datagen: {} games ({} white wins, {} draws, {} black wins; {} decided by the tables), \
         {} positions in {:.1} s ({:.0} positions/s, {:.0} an hour) into {}",
        total.games,
        total.results[0],
        total.results[1],
        total.results[2],
        total.table_results,
        total.positions,
        secs,
        total.positions as f64 / secs.max(1e-3),
        total.positions as f64 / secs.max(1e-3) * 3600.0,
        dir.display()
    );
    Ok(total)
}

/// Consecutive samples held out together: the positions of a game stay on one side.
pub const HOLD_OUT_BLOCK: usize = 1000;

/// What `retro tune` is asked to do.
#[derive(Clone, Debug)]
pub struct TuneRequest {
    /// Data files.
    pub data: Vec<PathBuf>,
    /// The weights file to start from (default: the compiled-in weights).
    pub start: Option<PathBuf>,
    /// The weights file to write.
    pub out: PathBuf,
    /// The descent's settings.
    pub opts: TuneOptions,
    /// The sigmoid scale (default: fitted to the starting weights).
    pub k: Option<f64>,
    /// Every n-th block of [`HOLD_OUT_BLOCK`] samples (about ten games) is held out to measure
    /// the error on games not fitted (0: none).
    pub hold_out_every: usize,
}

/// Reads the data, fits the weights and writes the weights file, reporting the error before
/// and after on the fitted and the held-out samples.
///
/// # Errors
/// [`CliError`] for unreadable data or weights files, or a failed write.
pub fn run_tune(req: &TuneRequest) -> Result<(), CliError> {
    let started = Instant::now();
    let start: Vec<S> = match &req.start {
        Some(path) => {
            weights_file::parse(&std::fs::read_to_string(path)?).map_err(|e| CliError::Weights {
                path: path.clone(),
                source: e,
            })?
        }
        None => WEIGHTS.to_vec(),
    };
    let mut samples = Vec::new();
    let mut sources = [0usize; 3];
    for path in &req.data {
        let (s, src) =
            texel::read_samples(BufReader::new(File::open(path)?)).map_err(|e| CliError::Data {
                path: path.clone(),
                source: e,
            })?;
        samples.extend(s);
        for (a, b) in sources.iter_mut().zip(src) {
            *a += b;
        }
    }
    let mut train = Vec::with_capacity(samples.len());
    let mut held = Vec::new();
    for (i, s) in samples.into_iter().enumerate() {
        let block = i / HOLD_OUT_BLOCK + 1;
        if req.hold_out_every > 0 && block.is_multiple_of(req.hold_out_every) {
            held.push(s);
        } else {
            train.push(s);
        }
    }
    eprintln!(
        "tune: {} positions ({} from played games, {} adjudicated, {} from the tables), \
         {} fitted, {} held out; read in {:.1} s",
        train.len() + held.len(),
        sources[0],
        sources[1],
        sources[2],
        train.len(),
        held.len(),
        started.elapsed().as_secs_f64()
    );
    let reals = texel::as_reals(&start);
    let k = req.k.unwrap_or_else(|| texel::fit_k(&train, &reals));
    let before = (
        texel::loss(&train, &reals, k),
        texel::loss(&held, &reals, k),
    );
    eprintln!(
        "tune: K = {k:.4}; error before: {:.6} fitted, {} held out",
        before.0,
        held_error(&held, before.1)
    );
    let pb = bar(
        req.opts.epochs as u64,
        "tune [{elapsed_precise}] {bar:30} {pos}/{len} epochs, {msg}",
    );
    let tuned = texel::tune(&train, &start, k, req.opts, &mut |epoch, l| {
        pb.set_position(epoch as u64);
        pb.set_message(format!("error {l:.6}"));
    });
    pb.finish_and_clear();
    let reals = texel::as_reals(&tuned);
    let after = (
        texel::loss(&train, &reals, k),
        texel::loss(&held, &reals, k),
    );
    eprintln!(
        "tune: error after {} epochs: {:.6} fitted, {} held out ({:.1} s in all)",
        req.opts.epochs,
        after.0,
        held_error(&held, after.1),
        started.elapsed().as_secs_f64()
    );
    let note = format!(
        "Data: {} positions ({} from played games, {} adjudicated, {} from the tables), {} fitted. \
         K = {k:.4}, {} epochs at rate {}, L2 {:e}: mean squared error {:.6} -> {:.6} (held out: \
         {} -> {}).",
        train.len() + held.len(),
        sources[0],
        sources[1],
        sources[2],
        train.len(),
        req.opts.epochs,
        req.opts.rate,
        req.opts.l2,
        before.0,
        after.0,
        held_error(&held, before.1),
        held_error(&held, after.1),
    );
    let text = weights_file::render(&tuned, &note);
    let tmp = req.out.with_extension("partial");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, &req.out)?;
    eprintln!("tune: weights written to {}", req.out.display());
    Ok(())
}

/// The error on the held-out samples, or `none` without any.
fn held_error(held: &[Sample], error: f64) -> String {
    if held.is_empty() {
        "none".to_string()
    } else {
        format!("{error:.6} on {}", held.len())
    }
}
