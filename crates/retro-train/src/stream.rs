//! Training on data larger than memory: the positions are read from their files in order, one
//! file at a time, every epoch, and mixed by a shuffle buffer of a fixed number of positions, so
//! that the trainer's memory is set by the buffer (and the held-out positions, also bounded, and
//! the one file being read, whole), not by the data.
//!
//! A first pass over the data ([`survey`]) counts it, fits K to its training positions, keeps
//! its held-out positions and, when all the training positions fit in the buffer, keeps those
//! too: such data is then trained from memory, read once, as [`crate::train::train`] does.
//! Otherwise each epoch ([`train_streamed`]) reads the data again on a thread of its own while
//! the gradient is computed: each position goes into the buffer, and once the buffer is full
//! each position put in takes out one drawn at random, which joins the batch being filled.
//!
//! Everything depends on the positions' order and the seed only, not on how the data is cut
//! into files: one file or many give the same network.

use std::{
    collections::BTreeMap,
    convert::Infallible,
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicUsize, Ordering},
        mpsc,
    },
};

use retro_engine::nnue::KingBuckets;

use crate::{
    data::{self, DataError, Record},
    games::{self, GamesError},
    train::{
        self, learning_rate, least_squares_k, sigmoid, EpochReport, Fitter, Sample, TrainOptions,
        Weights, HOLD_OUT_BLOCK,
    },
};

/// Batches read ahead of the gradient, waiting in the channel between the reading thread and
/// the trainer.
const BATCHES_AHEAD: usize = 4;

/// Training positions in a fixed order.
pub trait Positions: Sync {
    /// Why the positions cannot be read.
    type Error: Send;

    /// Calls `each` with every position, in order.
    ///
    /// # Errors
    /// When the positions cannot be read (those before were given).
    fn each(&self, each: &mut dyn FnMut(&Record)) -> Result<(), Self::Error>;
}

impl Positions for [Record] {
    type Error = Infallible;

    fn each(&self, each: &mut dyn FnMut(&Record)) -> Result<(), Infallible> {
        self.iter().for_each(each);
        Ok(())
    }
}

/// Data files read in the order given: games files (`.rgms`, known by their magic bytes) and
/// record files (`.rdat`).
#[derive(Clone, Debug)]
pub struct DataFiles {
    files: Vec<PathBuf>,
}

impl DataFiles {
    /// The files `files`, to be read in this order.
    pub fn new(files: Vec<PathBuf>) -> DataFiles {
        DataFiles { files }
    }

    /// The files.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }
}

/// A data file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// A record file (or a file that cannot be read at all).
    #[error("{}: {source}", path.display())]
    Records {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: DataError,
    },
    /// A games file.
    #[error("{}: {source}", path.display())]
    Games {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: GamesError,
    },
}

impl Positions for DataFiles {
    type Error = ReadError;

    fn each(&self, each: &mut dyn FnMut(&Record)) -> Result<(), ReadError> {
        for path in &self.files {
            read_file(path, each)?;
        }
        Ok(())
    }
}

/// Calls `each` with the training positions of one data file: every record of a record file,
/// the training positions of every game of a games file (the file checked whole first).
fn read_file(path: &Path, each: &mut dyn FnMut(&Record)) -> Result<(), ReadError> {
    let bytes = std::fs::read(path).map_err(|e| ReadError::Records {
        path: path.to_path_buf(),
        source: e.into(),
    })?;
    if bytes.starts_with(&games::GAMES_MAGIC) {
        let games = games::read_games(&bytes).map_err(|source| ReadError::Games {
            path: path.to_path_buf(),
            source,
        })?;
        drop(bytes);
        for g in &games {
            g.records().iter().for_each(&mut *each);
        }
    } else {
        let records = data::read_records(&bytes).map_err(|source| ReadError::Records {
            path: path.to_path_buf(),
            source,
        })?;
        drop(bytes);
        records.iter().for_each(each);
    }
    Ok(())
}

/// How the data is streamed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamOptions {
    /// Positions of the shuffle buffer (mirrored ones included).
    pub buffer: usize,
    /// Hold out every n-th block of [`HOLD_OUT_BLOCK`] positions (0: none) ...
    pub hold_out_every: usize,
    /// ... while fewer than this many positions are held out (a block is held whole, so that a
    /// game's positions stay on one side); later blocks are all trained on.
    pub hold_out_max: usize,
    /// Each training position also trained mirrored left to right (see
    /// [`Sample::mirrored`]); not for networks with king buckets, which mirror the views
    /// themselves.
    pub mirror: bool,
}

impl Default for StreamOptions {
    fn default() -> StreamOptions {
        StreamOptions {
            buffer: 8_000_000,
            hold_out_every: 10,
            hold_out_max: 1_000_000,
            mirror: true,
        }
    }
}

/// Which positions are held out: every n-th block of [`HOLD_OUT_BLOCK`] positions of the
/// stream, whole, while fewer than the most are held when it begins; decided afresh from the
/// start of each pass.
struct HoldOut {
    every: u64,
    max: usize,
    held: usize,
    open: bool,
}

impl HoldOut {
    fn new(opts: &StreamOptions) -> HoldOut {
        HoldOut {
            every: opts.hold_out_every as u64,
            max: opts.hold_out_max,
            held: 0,
            open: false,
        }
    }

    /// Whether the position of stream index `index` (counted from 0, every one asked in turn)
    /// is held out.
    fn take(&mut self, index: u64) -> bool {
        let block = HOLD_OUT_BLOCK as u64;
        if self.every == 0 || (index / block) % self.every != self.every - 1 {
            return false;
        }
        if index.is_multiple_of(block) {
            self.open = self.held < self.max;
        }
        self.held += usize::from(self.open);
        self.open
    }
}

/// The samples one training position gives: itself, and its mirror when asked.
fn samples_of(r: &Record, kings: &KingBuckets, mirror: bool) -> (Sample, Option<Sample>) {
    let s = Sample::of(r, kings);
    let m = mirror.then(|| s.mirrored());
    (s, m)
}

/// What the first pass over the data found.
pub struct Survey {
    /// Positions read.
    pub positions: u64,
    /// Positions with a table label.
    pub labelled: u64,
    /// Samples trained on in an epoch (mirrored ones included).
    pub fitted: u64,
    /// The held-out positions.
    pub held: Vec<Sample>,
    /// The training positions' scores (centipawns) and results (in halves), counted: what K is
    /// fitted to.
    scores: BTreeMap<(i32, u8), u64>,
    /// The training samples when they all fit in the buffer (trained from memory).
    in_memory: Option<Vec<Sample>>,
    /// The most samples held at once.
    peak: usize,
    opts: StreamOptions,
    kings: KingBuckets,
}

impl Survey {
    /// The sigmoid's scale K (centipawns) that best predicts the training positions' results
    /// from their scores, least squares (as [`train::fit_k`]).
    pub fn fit_k(&self) -> f32 {
        least_squares_k(|k| {
            self.scores
                .iter()
                .map(|(&(score, halves), &n)| {
                    let e = sigmoid(score as f32 / k) - f32::from(halves) / 2.0;
                    n as f64 * f64::from(e * e)
                })
                .sum()
        })
    }

    /// Whether the training samples are held in memory (they fit in the buffer) rather than
    /// read again every epoch.
    pub fn in_memory(&self) -> bool {
        self.in_memory.is_some()
    }

    /// Whether each training position is also trained mirrored (asked for, and the network has
    /// no king buckets, which mirror the views themselves).
    pub fn mirrors(&self) -> bool {
        self.opts.mirror
    }

    /// The training samples in memory, if they fit.
    pub fn samples(&self) -> Option<&[Sample]> {
        self.in_memory.as_deref()
    }
}

/// The first pass over `data` for a network of king buckets `kings`: counts, the held-out
/// positions, the scores K is fitted to, and the training samples if they fit in the buffer.
///
/// # Errors
/// As `data`'s [`Positions::each`].
pub fn survey<P: Positions + ?Sized>(
    data: &P,
    kings: KingBuckets,
    opts: &StreamOptions,
) -> Result<Survey, P::Error> {
    let mirror = opts.mirror && !kings.is_mirrored();
    let opts = StreamOptions { mirror, ..*opts };
    let mut s = Survey {
        positions: 0,
        labelled: 0,
        fitted: 0,
        held: Vec::new(),
        scores: BTreeMap::new(),
        in_memory: Some(Vec::new()),
        peak: 0,
        opts,
        kings,
    };
    let mut hold = HoldOut::new(&opts);
    data.each(&mut |r| {
        let index = s.positions;
        s.positions += 1;
        s.labelled += u64::from(r.wdl50.is_some());
        if hold.take(index) {
            s.held.push(Sample::of(r, &kings));
        } else {
            let (sample, mirrored) = samples_of(r, &kings, mirror);
            // Results are 0, 1/2 or 1: counted in halves.
            let halves = (sample.result * 2.0).round() as u8;
            *s.scores.entry((sample.score as i32, halves)).or_insert(0) += 1;
            s.fitted += 1 + u64::from(mirrored.is_some());
            if let Some(kept) = &mut s.in_memory {
                kept.push(sample);
                kept.extend(mirrored);
                if kept.len() > opts.buffer {
                    s.in_memory = None;
                }
            }
        }
        let kept = s.in_memory.as_ref().map_or(0, Vec::len);
        s.peak = s.peak.max(kept + s.held.len());
    })?;
    Ok(s)
}

/// A buffer that mixes a stream: full, each item put in takes out one drawn at random.
struct ShuffleBuffer {
    items: Vec<Sample>,
    capacity: usize,
    rng: fastrand::Rng,
}

impl ShuffleBuffer {
    fn new(capacity: usize, seed: u64) -> ShuffleBuffer {
        ShuffleBuffer {
            items: Vec::with_capacity(capacity.min(1 << 20)),
            capacity: capacity.max(1),
            rng: fastrand::Rng::with_seed(seed),
        }
    }

    /// Puts `item` in; once full, returns one drawn at random in its place.
    fn push(&mut self, item: Sample) -> Option<Sample> {
        if self.items.len() < self.capacity {
            self.items.push(item);
            return None;
        }
        let at = self.rng.usize(..self.items.len());
        Some(std::mem::replace(&mut self.items[at], item))
    }

    /// The items left, in random order.
    fn drain(mut self) -> Vec<Sample> {
        self.rng.shuffle(&mut self.items);
        self.items
    }
}

/// What a streamed training did besides its weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamReport {
    /// The most samples held in memory at once (survey, buffer, batches read ahead, held-out
    /// positions).
    pub peak_samples: usize,
}

/// Trains from `start` for `opts.epochs` epochs on `data`, surveyed by [`survey`] with
/// `start`'s king buckets: from memory when the survey kept the samples, else reading the data
/// again each epoch through the shuffle buffer. Calls `after_epoch` after each epoch, as
/// [`train::train`] does.
///
/// # Errors
/// As `data`'s [`Positions::each`] (the data changed since the survey).
pub fn train_streamed<P: Positions + ?Sized>(
    start: Weights,
    data: &P,
    survey: &Survey,
    k: f32,
    opts: &TrainOptions,
    after_epoch: &mut dyn FnMut(&Weights, &EpochReport),
) -> Result<(Weights, StreamReport), P::Error> {
    let held: Vec<&Sample> = survey.held.iter().collect();
    let mut report = StreamReport {
        peak_samples: survey.peak,
    };
    if let Some(samples) = survey.samples() {
        let refs: Vec<&Sample> = samples.iter().collect();
        let w = train::train(start, &refs, &held, k, opts, after_epoch);
        return Ok((w, report));
    }
    let mut fitter = Fitter::new(start);
    let batch_size = opts.batch_size.max(1);
    for epoch in 1..=opts.epochs {
        let started = std::time::Instant::now();
        let lr = learning_rate(opts, epoch);
        let resident = AtomicUsize::new(survey.held.len());
        let peak = AtomicUsize::new(0);
        let (mut loss, mut fitted) = (0.0, 0usize);
        let read = std::thread::scope(|scope| {
            let (tx, rx) = mpsc::sync_channel::<Vec<Sample>>(BATCHES_AHEAD);
            let (resident, peak) = (&resident, &peak);
            let seed = opts.seed ^ 0x5eed ^ (epoch as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let reader = scope.spawn(move || {
                let mut buffer = ShuffleBuffer::new(survey.opts.buffer, seed);
                let mut batch = Vec::with_capacity(batch_size);
                let mut hold = HoldOut::new(&survey.opts);
                let mut index = 0u64;
                let mut open = true;
                let mut emit = |s: Sample, batch: &mut Vec<Sample>| {
                    // With the trainer gone (it panicked), nothing more is kept.
                    if !open {
                        return;
                    }
                    batch.push(s);
                    if batch.len() == batch_size && open {
                        let full = std::mem::replace(batch, Vec::with_capacity(batch_size));
                        open = tx.send(full).is_ok();
                    }
                };
                let result = data.each(&mut |r| {
                    let held = hold.take(index);
                    index += 1;
                    if held {
                        return;
                    }
                    let (s, m) = samples_of(r, &survey.kings, survey.opts.mirror);
                    for s in std::iter::once(s).chain(m) {
                        let now = resident.fetch_add(1, Ordering::Relaxed) + 1;
                        peak.fetch_max(now, Ordering::Relaxed);
                        if let Some(out) = buffer.push(s) {
                            emit(out, &mut batch);
                        }
                    }
                });
                for s in buffer.drain() {
                    emit(s, &mut batch);
                }
                if !batch.is_empty() && open {
                    let _ = tx.send(batch);
                }
                result
            });
            for batch in rx {
                let refs: Vec<&Sample> = batch.iter().collect();
                loss += fitter.step(&refs, k, lr, opts);
                fitted += batch.len();
                drop(refs);
                resident.fetch_sub(batch.len(), Ordering::Relaxed);
            }
            reader
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p))
        });
        read?;
        report.peak_samples = report.peak_samples.max(peak.into_inner());
        let seconds = started.elapsed().as_secs_f64();
        let epoch_report = EpochReport {
            epoch,
            train_loss: loss / fitted.max(1) as f64,
            held_out_loss: train::mean_loss(&fitter.w, &held, k, opts.result_weight),
            learning_rate: lr,
            positions_per_second: fitted as f64 / seconds.max(1e-9),
        };
        after_epoch(&fitter.w, &epoch_report);
    }
    Ok((fitter.w, report))
}

#[cfg(test)]
mod tests;
