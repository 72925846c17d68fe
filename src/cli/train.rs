//! `retro train`: the network fitted to training data written by `retro datagen --dir`, on all
//! threads, the network file written (atomically) after each epoch that improves the held-out
//! loss, one progress line per epoch on standard error.

use std::path::{Path, PathBuf};

use retro_train::{
    data,
    stream::{self, DataFiles, ReadError, StreamOptions},
    train::{self, EpochReport, Sample, TrainOptions, Weights},
};

use super::{print_lines, processors, CliError};
use retro_engine::nnue::{KingBuckets, HIDDEN};

/// The arguments of `retro train`.
#[derive(Debug, clap::Args)]
pub struct TrainArgs {
    /// The network file to write (after each epoch that improves the held-out loss; with
    /// `--epochs 0`, the starting network as it is).
    #[arg(long)]
    pub out: PathBuf,
    /// Passes over the data (0: write the start, a warm start widened, say).
    #[arg(long, default_value_t = 20)]
    pub epochs: usize,
    /// Positions per step.
    #[arg(long, default_value_t = 16_384)]
    pub batch_size: usize,
    /// AdamW's step size at the start.
    #[arg(long, default_value_t = 1e-3)]
    pub lr: f32,
    /// Epochs between drops of the step size.
    #[arg(long, default_value_t = 8)]
    pub lr_step: usize,
    /// Factor of each drop.
    #[arg(long, default_value_t = 0.3)]
    pub lr_gamma: f32,
    /// AdamW's weight decay.
    #[arg(long, default_value_t = 0.01)]
    pub weight_decay: f32,
    /// The result's share of the target (the search score's is the rest).
    #[arg(long, default_value_t = 0.5)]
    pub lambda: f32,
    /// Hold out every n-th block of 1000 positions (0: none) ...
    #[arg(long, default_value_t = 10)]
    pub hold_out_every: usize,
    /// ... while fewer than this many positions are held out (later blocks are trained on).
    #[arg(long, default_value_t = 1_000_000)]
    pub hold_out_max: usize,
    /// Positions of the shuffle buffer (mirrored ones included): data with more training
    /// positions is read again every epoch through it, so that memory does not grow with the
    /// data (about 140 bytes a position); data within it is read once and kept.
    #[arg(long, default_value_t = 8_000_000)]
    pub shuffle_buffer: usize,
    /// Threads (default: one per processor).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Seed of the starting weights and the order of the positions.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The sigmoid's scale in centipawns (default: fitted to the data).
    #[arg(long)]
    pub k: Option<f32>,
    /// Do not add each training position mirrored left to right.
    #[arg(long)]
    pub no_mirror: bool,
    /// Output buckets of the network: 1, or 8 (the output layer's weights by the number of
    /// pieces on the board).
    #[arg(long, default_value_t = 1, value_parser = parse_output_buckets)]
    pub output_buckets: usize,
    /// King buckets of the network: its first layer's weights by the square of each side's own
    /// king, the view mirrored left to right when the king is on files e-h: 1 (mirroring
    /// alone), 4, 8, 16 or 32. Without it, one set of weights and no mirroring.
    #[arg(long, value_name = "N", value_parser = parse_king_buckets)]
    pub king_buckets: Option<KingBuckets>,
    /// Start from this network file's weights instead of random ones (a warm start: what
    /// earlier data taught goes on into the next network); its output buckets are kept, and
    /// its king buckets (a network without them starts each bucket of `--king-buckets`). A
    /// network of fewer neurons a side than this build's starts its neurons, the others drawn
    /// at random with zero output weights, so that it evaluates as before.
    #[arg(long, value_name = "NET", conflicts_with = "output_buckets")]
    pub init: Option<PathBuf>,
    /// Data files or directories of them, written by `retro datagen --dir`.
    #[arg(required = true)]
    pub data: Vec<PathBuf>,
}

impl TrainArgs {
    /// Trains the network ([`run_train`]), from `--init`'s weights when given.
    ///
    /// # Errors
    /// A network file of `--init` that cannot be loaded, or as [`run_train`].
    pub fn run(self) -> Result<(), CliError> {
        let opts = TrainOptions {
            epochs: self.epochs,
            batch_size: self.batch_size,
            learning_rate: self.lr,
            lr_gamma: self.lr_gamma,
            lr_step: self.lr_step,
            weight_decay: self.weight_decay,
            result_weight: self.lambda,
            threads: self.threads.unwrap_or_else(processors),
            seed: self.seed,
            k: self.k,
            output_buckets: self.output_buckets,
            // (A warm start keeps the network's own king buckets unless others are asked for.)
            king_buckets: self.king_buckets.unwrap_or(KingBuckets::NONE),
        };
        let init = match &self.init {
            Some(path) => {
                Some(retro_engine::nnue::Network::load_widened(path).map_err(CliError::Network)?)
            }
            None => None,
        };
        let stream = StreamOptions {
            buffer: self.shuffle_buffer,
            hold_out_every: self.hold_out_every,
            hold_out_max: self.hold_out_max,
            mirror: !self.no_mirror,
        };
        run_train(
            &self.data,
            &self.out,
            &opts,
            &stream,
            init.as_ref().map(|(net, neurons)| (net, *neurons)),
        )
    }
}

/// A `--output-buckets` value that is neither 1 nor [`retro_engine::nnue::OUTPUT_BUCKETS`].
#[derive(Debug, thiserror::Error)]
#[error("expected 1 or {}", retro_engine::nnue::OUTPUT_BUCKETS)]
pub struct OutputBucketsError;

/// `--output-buckets`: 1 or [`retro_engine::nnue::OUTPUT_BUCKETS`].
///
/// # Errors
/// [`OutputBucketsError`] for any other value.
pub fn parse_output_buckets(s: &str) -> Result<usize, OutputBucketsError> {
    let buckets = retro_engine::nnue::OUTPUT_BUCKETS;
    match s.parse::<usize>() {
        Ok(n) if n == 1 || n == buckets => Ok(n),
        _ => Err(OutputBucketsError),
    }
}

/// A `--king-buckets` value without a layout.
#[derive(Debug, thiserror::Error)]
#[error("expected 1, 4, 8, 16 or 32")]
pub struct KingBucketsError;

/// `--king-buckets`: the standard layout of 1, 4, 8, 16 or 32 buckets
/// ([`KingBuckets::standard`]).
///
/// # Errors
/// [`KingBucketsError`] for any other value.
pub fn parse_king_buckets(s: &str) -> Result<KingBuckets, KingBucketsError> {
    s.parse::<u32>()
        .ok()
        .and_then(KingBuckets::standard)
        .ok_or(KingBucketsError)
}

/// The arguments of `retro convert-data`.
#[derive(Debug, clap::Args)]
pub struct ConvertDataArgs {
    /// The directory the `.rgms` files are written into (same names); with --to-text, the
    /// text file.
    #[arg(long)]
    pub out: PathBuf,
    /// Write the training positions of games files (`.rgms`) as the text lines of `retro
    /// datagen --out` into the file --out, instead: FEN, White's result (1, 0.5 or 0), source
    /// (`table` for a game the tables ended, else `game`: the games format does not keep
    /// adjudication), White's score in centipawns.
    #[arg(long)]
    pub to_text: bool,
    /// `.rdat` files (`.rgms` with --to-text), or directories of them.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
}

impl ConvertDataArgs {
    /// Converts the files ([`convert`], or [`games_to_text`]) and prints a line for each
    /// written.
    ///
    /// # Errors
    /// As [`convert`] and [`games_to_text`], or failed output.
    pub fn run(self) -> Result<(), CliError> {
        if self.to_text {
            let (games, positions) = games_to_text(&self.inputs, &self.out)?;
            let line = format!(
                "{}: {games} games, {positions} positions",
                self.out.display()
            );
            return print_lines(&[line], std::io::stdout().lock());
        }
        let mut lines = Vec::new();
        for (path, positions, bytes) in convert(&self.inputs, &self.out)? {
            lines.push(format!(
                "{}: {positions} positions, {bytes} bytes",
                path.display()
            ));
        }
        print_lines(&lines, std::io::stdout().lock())
    }
}

/// The data files named: a file itself, a directory's `.rgms` (games) and `.rdat` (records)
/// files in name order.
///
/// # Errors
/// [`CliError::Io`] when a directory cannot be listed.
pub fn data_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, CliError> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut in_dir: Vec<PathBuf> = std::fs::read_dir(p)?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|f| f.extension().is_some_and(|x| x == "rdat" || x == "rgms"))
                .collect();
            in_dir.sort();
            files.extend(in_dir);
        } else {
            files.push(p.clone());
        }
    }
    Ok(files)
}

/// `retro convert-data`: each records file (`.rdat`) of `inputs` written as a games file
/// (`.rgms`, one game of one position per record, nothing lost) of the same name into `out`.
/// Returns the files written with their positions and bytes.
///
/// # Errors
/// [`CliError`] when a file cannot be read or written, or a record is no legal position.
pub fn convert(inputs: &[PathBuf], out: &Path) -> Result<Vec<(PathBuf, usize, u64)>, CliError> {
    std::fs::create_dir_all(out)?;
    let mut written = Vec::new();
    for f in data_files(inputs)?
        .into_iter()
        .filter(|f| f.extension().is_some_and(|x| x == "rdat"))
    {
        let records = data::read_file(&f).map_err(|source| CliError::TrainData {
            path: f.clone(),
            source,
        })?;
        let mut games = Vec::with_capacity(records.len());
        for (index, r) in records.iter().enumerate() {
            let g = retro_train::games::GameRecord::from_record(r).ok_or_else(|| {
                CliError::TrainData {
                    path: f.clone(),
                    source: data::DataError::Record {
                        index,
                        reason: data::RecordError::Illegal,
                    },
                }
            })?;
            games.push(g);
        }
        let name = f.with_extension("rgms");
        let target = out.join(name.file_name().unwrap_or(name.as_os_str()));
        retro_train::games::write_games_file(&target, &games).map_err(|source| {
            CliError::TrainGames {
                path: target.clone(),
                source,
            }
        })?;
        let bytes = std::fs::metadata(&target)?.len();
        written.push((target, records.len(), bytes));
    }
    Ok(written)
}

/// `retro convert-data --to-text`: the training positions of the games files (`.rgms`) of
/// `inputs`, in name order, written to the file `out` (atomically) as the text lines of `retro
/// datagen --out`. Returns the games and the positions written.
///
/// # Errors
/// [`CliError`] when a file cannot be read (a file that is not a games file among them) or
/// `out` cannot be written; nothing is written then. Directories give their `.rgms` files.
pub fn games_to_text(inputs: &[PathBuf], out: &Path) -> Result<(usize, usize), CliError> {
    let files: Vec<PathBuf> = data_files(inputs)?
        .into_iter()
        .filter(|f| f.extension().is_some_and(|x| x == "rgms"))
        .collect();
    let (mut games, mut positions) = (0, 0);
    // One file in memory at a time; a file that cannot be read ends the write, and the
    // temporary file is removed.
    retro_tables::write_atomic(out, |w| -> Result<(), CliError> {
        use std::io::Write as _;
        for f in &files {
            let read =
                retro_train::games::read_games_file(f).map_err(|source| CliError::TrainGames {
                    path: f.clone(),
                    source,
                })?;
            for g in &read {
                let source = if g.label.is_some() { "table" } else { "game" };
                for t in g.positions() {
                    let score = match shakmaty::Position::turn(&t.pos) {
                        shakmaty::Color::White => i32::from(t.score),
                        shakmaty::Color::Black => -i32::from(t.score),
                    };
                    let fen =
                        shakmaty::fen::Fen::from_position(&t.pos, shakmaty::EnPassantMode::Legal);
                    writeln!(w, "{fen}\t{}\t{source}\t{score}", g.result.score()).map_err(
                        |source| CliError::Create {
                            path: out.to_path_buf(),
                            source,
                        },
                    )?;
                    positions += 1;
                }
            }
            games += read.len();
        }
        Ok(())
    })
    .map_err(|e| match e {
        // The temporary file's creation, sync or rename.
        CliError::Io(source) => CliError::Create {
            path: out.to_path_buf(),
            source,
        },
        e => e,
    })?;
    Ok((games, positions))
}

/// Trains a network on the data in `inputs` and writes it to `out` (after each epoch that
/// improves the held-out loss; after every epoch without held-out positions; with no epochs,
/// the start), from random weights or from those of `init`, a network and the neurons a side
/// its file had (a warm start, its output buckets kept; a narrower network's new neurons are
/// drawn at random). The data is read once more than the epochs when it does not fit in the
/// shuffle buffer (see [`retro_train::stream`]), else once.
///
/// # Errors
/// [`CliError`] when the data cannot be read or the network written.
pub fn run_train(
    inputs: &[PathBuf],
    out: &Path,
    opts: &TrainOptions,
    stream: &StreamOptions,
    init: Option<(&retro_engine::nnue::Network, usize)>,
) -> Result<(), CliError> {
    let files = DataFiles::new(data_files(inputs)?);
    let start = match init {
        Some((net, neurons)) => {
            let mut w =
                Weights::from_network_with(net, opts.king_buckets).map_err(CliError::WarmStart)?;
            if neurons < HIDDEN {
                eprintln!("train: widening the network from {neurons} neurons a side to {HIDDEN}");
                w.seed_neurons(neurons, opts.seed);
            }
            w
        }
        None => Weights::random(opts.seed, opts.output_buckets, opts.king_buckets),
    };
    let kings = start.kings;
    let survey = stream::survey(&files, kings, stream).map_err(read_error)?;
    let k = opts.k.unwrap_or_else(|| survey.fit_k());
    let held: Vec<&Sample> = survey.held.iter().collect();
    let mirror = survey.mirrors();
    eprintln!(
        "train: {} positions from {} files ({} with a table label), {} fitted{}, {} held out; \
         {}; K = {k:.1} cp; {} output buckets, {}; {} epochs of batches of {}, {} threads, seed {}",
        survey.positions,
        files.files().len(),
        survey.labelled,
        survey.fitted,
        if mirror {
            " (mirrored ones included)"
        } else {
            ""
        },
        held.len(),
        if survey.in_memory() {
            "in memory".to_string()
        } else {
            format!(
                "read every epoch through a shuffle buffer of {}",
                stream.buffer
            )
        },
        init.map_or(opts.output_buckets, |(n, _)| n.buckets()),
        if kings.by_king() {
            format!("{} king buckets, mirrored", kings.count())
        } else {
            "no king buckets".to_string()
        },
        opts.epochs,
        opts.batch_size,
        opts.threads,
        opts.seed
    );
    let fit_loss = survey.samples().map_or_else(
        || "(streamed)".to_string(),
        |s| {
            let refs: Vec<&Sample> = s.iter().collect();
            format!(
                "{:.6}",
                train::mean_loss(&start, &refs, k, opts.result_weight)
            )
        },
    );
    eprintln!(
        "train: before: training loss {fit_loss}, held-out loss {:.6}; \
         the search scores' own held-out loss {:.6}",
        train::mean_loss(&start, &held, k, opts.result_weight),
        train::search_score_loss(&held, k, opts.result_weight)
    );
    let mut write_error = None;
    let mut best = f64::INFINITY;
    let begun = std::time::Instant::now();
    let mut after_epoch = |w: &Weights, r: &EpochReport| {
        // With positions held out, the network of the best held-out loss is kept (early
        // stopping); without, the last.
        let better = held.is_empty() || r.held_out_loss < best;
        best = best.min(r.held_out_loss);
        eprintln!(
            "train: epoch {:>3}/{}  loss {:.6}  held-out {:.6}  lr {:.2e}  {:.0} positions/s  {:.0} s{}",
            r.epoch,
            opts.epochs,
            r.train_loss,
            r.held_out_loss,
            r.learning_rate,
            r.positions_per_second,
            begun.elapsed().as_secs_f64(),
            if better { "  (written)" } else { "" }
        );
        if better && write_error.is_none() {
            write_error = write_network(w, out).err();
        }
    };
    let (last, report) = stream::train_streamed(start, &files, &survey, k, opts, &mut after_epoch)
        .map_err(read_error)?;
    if let Some(e) = write_error {
        return Err(e);
    }
    if opts.epochs == 0 {
        // No epoch wrote it: the network is the start, as it is (a warm start widened, say).
        write_network(&last, out)?;
    }
    eprintln!(
        "train: network written to {} (at most {} positions held at once)",
        out.display(),
        report.peak_samples
    );
    Ok(())
}

/// A data file's fault as the CLI's error.
fn read_error(e: ReadError) -> CliError {
    match e {
        ReadError::Records { path, source } => CliError::TrainData { path, source },
        ReadError::Games { path, source } => CliError::TrainGames { path, source },
    }
}

/// Writes the integer network of `w` to `out` atomically (a hidden temporary file, synced and
/// renamed into place: a run killed meanwhile leaves the network before it, whole).
fn write_network(w: &Weights, out: &Path) -> Result<(), CliError> {
    let net = w.quantised().map_err(CliError::Network)?;
    retro_tables::write_atomic(out, |f| std::io::Write::write_all(f, &net.to_bytes())).map_err(
        |source| CliError::Create {
            path: out.to_path_buf(),
            source,
        },
    )?;
    Ok(())
}
