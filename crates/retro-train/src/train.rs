//! The trainer: the network of `retro_engine::nnue` in floating point, fitted on the CPU by
//! AdamW to a blend of each position's game result (or exact table value) and its search
//! score, with a step learning-rate schedule, a held-out split and a seed.
//!
//! The prediction is `sigmoid(output · SCALE / K)`: the network's output in centipawns through
//! the same sigmoid that turns the search's score into an expected result, `K` fitted to the
//! data (the scores' own scale, so that the network's centipawns are the search's). The loss is
//! the mean squared difference from the target `λ · result + (1 − λ) · sigmoid(score / K)`.

use retro_engine::nnue::{
    bucket_of, KingBuckets, Network, NetworkError, HIDDEN, INPUTS, MAX_OUTPUT_WEIGHT,
    OUTPUT_BUCKETS, QB, SCALE,
};
use retro_tables::Wdl50;

use crate::data::Record;

/// How to train.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// Passes over the training positions.
    pub epochs: usize,
    /// Positions per step.
    pub batch_size: usize,
    /// AdamW's step size at the start.
    pub learning_rate: f32,
    /// The step size is multiplied by this ...
    pub lr_gamma: f32,
    /// ... every this many epochs.
    pub lr_step: usize,
    /// AdamW's decoupled weight decay.
    pub weight_decay: f32,
    /// λ: the result's share of the target, the score's is 1 − λ.
    pub result_weight: f32,
    /// Threads computing the gradient.
    pub threads: usize,
    /// Seed of the initial weights and of the order of the positions.
    pub seed: u64,
    /// The sigmoid's scale in centipawns (`None`: fitted to the data's scores and results).
    pub k: Option<f32>,
    /// Output buckets of the network to start from ([`Weights::random`]): 1, or
    /// [`OUTPUT_BUCKETS`] (by the number of pieces). [`train`] keeps those of the weights it is
    /// given.
    pub output_buckets: usize,
    /// King buckets of the network to start from ([`Weights::random`]); [`train`] keeps those
    /// of the weights it is given.
    pub king_buckets: KingBuckets,
}

impl Default for TrainOptions {
    fn default() -> TrainOptions {
        TrainOptions {
            epochs: 20,
            batch_size: 16_384,
            learning_rate: 1e-3,
            lr_gamma: 0.3,
            lr_step: 8,
            weight_decay: 0.01,
            result_weight: 0.5,
            threads: 1,
            seed: 1,
            k: None,
            output_buckets: 1,
            king_buckets: KingBuckets::NONE,
        }
    }
}

/// Consecutive positions held out together: a game's positions stay on one side.
pub const HOLD_OUT_BLOCK: usize = 1000;
/// The most pieces of a position, and so of its active inputs per side.
const MAX_FEATURES: usize = 32;
/// AdamW's decay rates of the first and second moments, and its epsilon.
const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPSILON: f32 = 1e-8;
/// The largest output weight in floating point: the integer file's bound.
const MAX_OUT: f32 = MAX_OUTPUT_WEIGHT as f32 / QB as f32;

/// A position ready for training: its active inputs (first-layer rows, each side's view chosen
/// by its king bucket) seen from the side to move and from the other side, and its target.
#[derive(Clone, Debug)]
pub struct Sample {
    us: [u16; MAX_FEATURES],
    them: [u16; MAX_FEATURES],
    n: u8,
    /// The search score, centipawns for the side to move.
    pub(crate) score: f32,
    /// The result (or the table's value), 0 to 1 for the side to move.
    pub(crate) result: f32,
}

impl Sample {
    /// The sample of a record for a network of king buckets `kings`.
    pub fn of(r: &Record, kings: &KingBuckets) -> Sample {
        let mut s = Sample {
            us: [0; MAX_FEATURES],
            them: [0; MAX_FEATURES],
            n: 0,
            score: f32::from(r.score),
            result: match r.wdl50 {
                Some(Wdl50::Win) => 1.0,
                Some(Wdl50::Loss) => 0.0,
                Some(_) => 0.5,
                None => r.result.score(),
            },
        };
        let (us, them) = (
            kings.view_of(r.turn, &r.board),
            kings.view_of(!r.turn, &r.board),
        );
        for (k, (piece, sq)) in r.pieces().take(MAX_FEATURES).enumerate() {
            // At most MAX_KING_BUCKETS * INPUTS = 24,576 rows: an input fits 16 bits.
            s.us[k] = us.input(r.turn, piece, sq) as u16;
            s.them[k] = them.input(!r.turn, piece, sq) as u16;
            s.n += 1;
        }
        s
    }

    /// The sample of the position mirrored left to right (files a and h swapped) for a network
    /// without king buckets: the same labels, chess being symmetric so but for castling, which
    /// the inputs do not show. (A network with king buckets mirrors every view to the king's
    /// half of the board, so that a position and its mirror are the same sample.)
    pub fn mirrored(&self) -> Sample {
        let mut m = self.clone();
        // An input is `... * 64 + square`, and the square's file is its low three bits.
        for f in m.us.iter_mut().chain(m.them.iter_mut()) {
            *f ^= 7;
        }
        m
    }

    fn target(&self, k: f32, lambda: f32) -> f32 {
        lambda * self.result + (1.0 - lambda) * sigmoid(self.score / k)
    }
}

pub(crate) fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The weights in floating point, in the units of `Network::quantise`.
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// How each side's view chooses its rows of the first layer.
    pub kings: KingBuckets,
    /// First layer, row by king bucket and input.
    pub ft: Vec<f32>,
    /// The factoriser, with several king buckets (else empty): a row per input shared by every
    /// bucket, added to each bucket's row of that input (so that what a piece on a square is
    /// worth is learnt from every king square at once); the file holds the sums.
    pub factor: Vec<f32>,
    /// First layer's bias.
    pub ft_bias: Vec<f32>,
    /// Output weights by output bucket: the side to move's neurons, then the other's.
    pub out: Vec<f32>,
    /// Output bias, one per output bucket.
    pub out_bias: Vec<f32>,
}

/// Why a network cannot be the start of a training.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WarmStartError {
    /// The network has king buckets, and not the ones asked for.
    #[error("the network has {found} king buckets of its own, not the {asked} asked for")]
    KingBuckets {
        /// The network's number of king buckets.
        found: usize,
        /// The number asked for.
        asked: usize,
    },
}

impl Weights {
    fn zeros(buckets: usize, kings: KingBuckets) -> Weights {
        Weights {
            kings,
            ft: vec![0.0; kings.count() * INPUTS * HIDDEN],
            factor: if kings.count() > 1 {
                vec![0.0; INPUTS * HIDDEN]
            } else {
                Vec::new()
            },
            ft_bias: vec![0.0; HIDDEN],
            out: vec![0.0; buckets * 2 * HIDDEN],
            out_bias: vec![0.0; buckets],
        }
    }

    /// Random starting weights drawn with `seed`, for a network of `buckets` output buckets (1
    /// or [`OUTPUT_BUCKETS`]; any other number is taken as 1) and king buckets `kings` (with
    /// several, the factoriser is drawn and the buckets' own rows start at 0).
    pub fn random(seed: u64, buckets: usize, kings: KingBuckets) -> Weights {
        let buckets = if buckets == OUTPUT_BUCKETS {
            buckets
        } else {
            1
        };
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut w = Weights::zeros(buckets, kings);
        let a = 1.0 / (INPUTS as f32).sqrt();
        let drawn = if w.factor.is_empty() {
            &mut w.ft
        } else {
            &mut w.factor
        };
        for x in drawn {
            *x = a * (2.0 * rng.f32() - 1.0);
        }
        let b = 1.0 / ((2 * HIDDEN) as f32).sqrt();
        for x in &mut w.out {
            *x = b * (2.0 * rng.f32() - 1.0);
        }
        w
    }

    /// The weights of a network file's network: the start of a training that goes on from it
    /// (a warm start), carrying what earlier data taught into the next network.
    pub fn from_network(net: &Network) -> Weights {
        let kings = net.king_buckets();
        let (ft, ft_bias, out, out_bias) = net.dequantised();
        let mut w = Weights::zeros(out_bias.len(), kings);
        w.ft = ft;
        w.ft_bias = ft_bias;
        w.out = out;
        w.out_bias = out_bias;
        w
    }

    /// The weights of a network file's network as the start of a network of king buckets
    /// `kings`: the network's own when it has those buckets; for a network without king buckets,
    /// its first layer as the factoriser (or, with one bucket, as that bucket's rows), so that
    /// each bucket starts as the network was (mirrored where the king is on files e-h).
    ///
    /// # Errors
    /// [`WarmStartError`] for a network of other king buckets.
    pub fn from_network_with(net: &Network, kings: KingBuckets) -> Result<Weights, WarmStartError> {
        let own = net.king_buckets();
        if own == kings || !kings.by_king() {
            return Ok(Weights::from_network(net));
        }
        if own.by_king() {
            return Err(WarmStartError::KingBuckets {
                found: own.count(),
                asked: kings.count(),
            });
        }
        let w = Weights::from_network(net);
        let mut out = Weights::zeros(w.out_bias.len(), kings);
        if out.factor.is_empty() {
            out.ft = w.ft;
        } else {
            out.factor = w.ft;
        }
        out.ft_bias = w.ft_bias;
        out.out = w.out;
        out.out_bias = w.out_bias;
        Ok(out)
    }

    /// Draws the first-layer weights of the neurons from `from` on, as [`Weights::random`]
    /// draws them (the factoriser's rows with king buckets), and leaves their biases and output
    /// weights as they are: for a network widened from one of `from` neurons
    /// (`Network::load_widened`), whose other neurons are all zero, the evaluations stay the
    /// same and the new neurons, no longer all alike, learn.
    pub fn seed_neurons(&mut self, from: usize, seed: u64) {
        let mut rng = fastrand::Rng::with_seed(seed);
        let a = 1.0 / (INPUTS as f32).sqrt();
        let drawn = if self.factor.is_empty() {
            &mut self.ft
        } else {
            &mut self.factor
        };
        for row in drawn.chunks_exact_mut(HIDDEN) {
            for x in &mut row[from.min(HIDDEN)..] {
                *x = a * (2.0 * rng.f32() - 1.0);
            }
        }
    }

    /// The first layer as the file holds it: each bucket's rows with the factoriser added.
    fn merged_ft(&self) -> Vec<f32> {
        if self.factor.is_empty() {
            return self.ft.clone();
        }
        let mut ft = self.ft.clone();
        for bucket in ft.chunks_exact_mut(INPUTS * HIDDEN) {
            for (x, f) in bucket.iter_mut().zip(&self.factor) {
                *x += f;
            }
        }
        ft
    }

    /// The integer network of these weights.
    ///
    /// # Errors
    /// None in practice: the shapes are the network's.
    pub fn quantised(&self) -> Result<Network, NetworkError> {
        Network::quantise(
            self.kings,
            &self.merged_ft(),
            &self.ft_bias,
            &self.out,
            &self.out_bias,
        )
    }

    /// The output bucket of a sample: by its pieces with [`OUTPUT_BUCKETS`] output biases,
    /// else the first.
    fn bucket(&self, s: &Sample) -> usize {
        bucket_of(self.out_bias.len(), usize::from(s.n))
    }

    /// The output (in units of `SCALE` centipawns) of a sample, with the hidden layer's sums
    /// of both sides written to `acc`.
    fn forward(&self, s: &Sample, acc: &mut [[f32; HIDDEN]; 2]) -> f32 {
        for (side, feats) in [&s.us, &s.them].into_iter().enumerate() {
            let a = &mut acc[side];
            a.copy_from_slice(&self.ft_bias);
            for &f in &feats[..usize::from(s.n)] {
                let row = &self.ft[usize::from(f) * HIDDEN..][..HIDDEN];
                for (x, w) in a.iter_mut().zip(row) {
                    *x += w;
                }
                if !self.factor.is_empty() {
                    let row = &self.factor[usize::from(f) % INPUTS * HIDDEN..][..HIDDEN];
                    for (x, w) in a.iter_mut().zip(row) {
                        *x += w;
                    }
                }
            }
        }
        let bucket = self.bucket(s);
        let mut out = self.out_bias[bucket];
        for (side, a) in acc.iter().enumerate() {
            let w = &self.out[(2 * bucket + side) * HIDDEN..][..HIDDEN];
            for (x, w) in a.iter().zip(w) {
                let c = x.clamp(0.0, 1.0);
                out += c * c * w;
            }
        }
        out
    }

    /// The network's evaluation of a sample in centipawns, in floating point.
    pub fn evaluate(&self, s: &Sample) -> f32 {
        let mut acc = [[0.0; HIDDEN]; 2];
        self.forward(s, &mut acc) * SCALE as f32
    }
}

/// Gradient of the loss summed over some samples.
struct Gradient {
    w: Weights,
    loss: f64,
}

impl Gradient {
    /// A zero gradient of weights shaped as `w`.
    fn new(w: &Weights) -> Gradient {
        Gradient {
            w: Weights::zeros(w.out_bias.len(), w.kings),
            loss: 0.0,
        }
    }

    fn add(&mut self, other: &Gradient) {
        for (a, b) in [
            (&mut self.w.ft, &other.w.ft),
            (&mut self.w.factor, &other.w.factor),
            (&mut self.w.ft_bias, &other.w.ft_bias),
            (&mut self.w.out, &other.w.out),
            (&mut self.w.out_bias, &other.w.out_bias),
        ] {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        }
        self.loss += other.loss;
    }
}

/// The loss of `samples` and, when `grad` is given, its gradient added there.
fn loss_and_gradient(
    w: &Weights,
    samples: &[&Sample],
    k: f32,
    lambda: f32,
    mut grad: Option<&mut Gradient>,
) -> f64 {
    let mut acc = [[0.0f32; HIDDEN]; 2];
    let mut total = 0.0f64;
    let out_scale = SCALE as f32 / k;
    for s in samples {
        let out = w.forward(s, &mut acc);
        let p = sigmoid(out * out_scale);
        let t = s.target(k, lambda);
        total += f64::from((p - t) * (p - t));
        let Some(g) = grad.as_deref_mut() else {
            continue;
        };
        let d_out = 2.0 * (p - t) * p * (1.0 - p) * out_scale;
        let bucket = w.bucket(s);
        g.w.out_bias[bucket] += d_out;
        for (side, feats) in [&s.us, &s.them].into_iter().enumerate() {
            let mut d_acc = [0.0f32; HIDDEN];
            let wo = &w.out[(2 * bucket + side) * HIDDEN..][..HIDDEN];
            let go = &mut g.w.out[(2 * bucket + side) * HIDDEN..][..HIDDEN];
            for j in 0..HIDDEN {
                let x = acc[side][j];
                let c = x.clamp(0.0, 1.0);
                go[j] += d_out * c * c;
                if x > 0.0 && x < 1.0 {
                    d_acc[j] = d_out * wo[j] * 2.0 * c;
                }
            }
            for (b, d) in g.w.ft_bias.iter_mut().zip(&d_acc) {
                *b += d;
            }
            for &f in &feats[..usize::from(s.n)] {
                let row = &mut g.w.ft[usize::from(f) * HIDDEN..][..HIDDEN];
                for (x, d) in row.iter_mut().zip(&d_acc) {
                    *x += d;
                }
                if !g.w.factor.is_empty() {
                    let row = &mut g.w.factor[usize::from(f) % INPUTS * HIDDEN..][..HIDDEN];
                    for (x, d) in row.iter_mut().zip(&d_acc) {
                        *x += d;
                    }
                }
            }
        }
    }
    if let Some(g) = grad {
        g.loss += total;
    }
    total
}

/// The loss and gradient of a batch, computed on `threads` threads, each summing a
/// contiguous part (so that the sum, and the run, are the same for the same thread count).
fn batch_gradient(w: &Weights, batch: &[&Sample], k: f32, lambda: f32, threads: usize) -> Gradient {
    let part = batch.len().div_ceil(threads.max(1)).max(1);
    let mut grads: Vec<Gradient> = std::thread::scope(|s| {
        let handles: Vec<_> = batch
            .chunks(part)
            .map(|chunk| {
                s.spawn(move || {
                    let mut g = Gradient::new(w);
                    loss_and_gradient(w, chunk, k, lambda, Some(&mut g));
                    g
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut total = grads.pop().unwrap_or_else(|| Gradient::new(w));
    for g in grads.iter().rev() {
        total.add(g);
    }
    total
}

/// AdamW's moments.
struct Adam {
    m: Weights,
    v: Weights,
    t: i32,
}

impl Adam {
    fn step(&mut self, w: &mut Weights, g: &Weights, n: f32, lr: f32, decay: f32) {
        self.t += 1;
        let c1 = 1.0 - BETA1.powi(self.t);
        let c2 = 1.0 - BETA2.powi(self.t);
        let update = |w: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32], decayed: bool| {
            for (((w, g), m), v) in w.iter_mut().zip(g).zip(m).zip(v) {
                let g = g / n;
                *m = BETA1 * *m + (1.0 - BETA1) * g;
                *v = BETA2 * *v + (1.0 - BETA2) * g * g;
                let step = (*m / c1) / ((*v / c2).sqrt() + EPSILON);
                if decayed {
                    *w -= lr * decay * *w;
                }
                *w -= lr * step;
            }
        };
        let (m, v) = (&mut self.m, &mut self.v);
        update(&mut w.ft, &g.ft, &mut m.ft, &mut v.ft, true);
        update(&mut w.factor, &g.factor, &mut m.factor, &mut v.factor, true);
        update(
            &mut w.ft_bias,
            &g.ft_bias,
            &mut m.ft_bias,
            &mut v.ft_bias,
            false,
        );
        update(&mut w.out, &g.out, &mut m.out, &mut v.out, true);
        for x in &mut w.out {
            *x = x.clamp(-MAX_OUT, MAX_OUT);
        }
        update(
            &mut w.out_bias,
            &g.out_bias,
            &mut m.out_bias,
            &mut v.out_bias,
            false,
        );
    }
}

/// The sigmoid's scale K (centipawns) that best predicts the results from the scores: least
/// squares, by golden-section search between 50 and 1000.
pub fn fit_k(samples: &[&Sample]) -> f32 {
    least_squares_k(|k| {
        samples
            .iter()
            .map(|s| f64::from((sigmoid(s.score / k) - s.result).powi(2)))
            .sum()
    })
}

/// The K between 50 and 1000 that minimises `err`, by golden-section search.
pub(crate) fn least_squares_k(err: impl Fn(f32) -> f64) -> f32 {
    let (mut lo, mut hi) = (50.0f32, 1000.0f32);
    let phi = (5.0f32.sqrt() - 1.0) / 2.0;
    for _ in 0..40 {
        let a = hi - phi * (hi - lo);
        let b = lo + phi * (hi - lo);
        if err(a) < err(b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// What one epoch did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochReport {
    /// The epoch, from 1.
    pub epoch: usize,
    /// Mean loss over the training positions (during the epoch).
    pub train_loss: f64,
    /// Mean loss over the held-out positions after the epoch (0 without any).
    pub held_out_loss: f64,
    /// The step size used.
    pub learning_rate: f32,
    /// Positions per second of the epoch.
    pub positions_per_second: f64,
}

/// The mean loss of `samples` under `w`.
pub fn mean_loss(w: &Weights, samples: &[&Sample], k: f32, lambda: f32) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    loss_and_gradient(w, samples, k, lambda, None) / samples.len() as f64
}

/// The mean loss of predicting each sample by its own search score, `sigmoid(score / K)`: what
/// the search that labelled the data achieves, a reference for the network's static evaluation.
pub fn search_score_loss(samples: &[&Sample], k: f32, lambda: f32) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let sum: f64 = samples
        .iter()
        .map(|s| f64::from((sigmoid(s.score / k) - s.target(k, lambda)).powi(2)))
        .sum();
    sum / samples.len() as f64
}

/// Trains from `start` on `train` for `opts.epochs` epochs, calling `after_epoch` with the
/// weights and the report after each (to write the network, print progress); returns the
/// weights.
pub fn train(
    start: Weights,
    train: &[&Sample],
    held: &[&Sample],
    k: f32,
    opts: &TrainOptions,
    after_epoch: &mut dyn FnMut(&Weights, &EpochReport),
) -> Weights {
    let mut fitter = Fitter::new(start);
    let mut rng = fastrand::Rng::with_seed(opts.seed ^ 0x5eed);
    let mut order: Vec<&Sample> = train.to_vec();
    for epoch in 1..=opts.epochs {
        let started = std::time::Instant::now();
        let lr = learning_rate(opts, epoch);
        rng.shuffle(&mut order);
        let mut loss = 0.0;
        for batch in order.chunks(opts.batch_size.max(1)) {
            loss += fitter.step(batch, k, lr, opts);
        }
        let seconds = started.elapsed().as_secs_f64();
        let report = EpochReport {
            epoch,
            train_loss: loss / order.len().max(1) as f64,
            held_out_loss: mean_loss(&fitter.w, held, k, opts.result_weight),
            learning_rate: lr,
            positions_per_second: order.len() as f64 / seconds.max(1e-9),
        };
        after_epoch(&fitter.w, &report);
    }
    fitter.w
}

/// The step size of `epoch` (from 1): `opts.learning_rate` times `opts.lr_gamma` for every
/// `opts.lr_step` epochs before it.
pub(crate) fn learning_rate(opts: &TrainOptions, epoch: usize) -> f32 {
    opts.learning_rate
        * opts
            .lr_gamma
            .powi(((epoch - 1) / opts.lr_step.max(1)) as i32)
}

/// Weights being fitted, with their optimiser's state.
pub(crate) struct Fitter {
    /// The weights so far.
    pub(crate) w: Weights,
    adam: Adam,
}

impl Fitter {
    pub(crate) fn new(start: Weights) -> Fitter {
        let (buckets, kings) = (start.out_bias.len(), start.kings);
        Fitter {
            w: start,
            adam: Adam {
                m: Weights::zeros(buckets, kings),
                v: Weights::zeros(buckets, kings),
                t: 0,
            },
        }
    }

    /// One step of AdamW on `batch` at step size `lr`; returns the batch's summed loss (before
    /// the step).
    pub(crate) fn step(&mut self, batch: &[&Sample], k: f32, lr: f32, opts: &TrainOptions) -> f64 {
        let g = batch_gradient(&self.w, batch, k, opts.result_weight, opts.threads);
        self.adam
            .step(&mut self.w, &g.w, batch.len() as f32, lr, opts.weight_decay);
        g.loss
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{Chess, Color, Position};

    use super::*;
    use crate::data::{Outcome, Record};

    /// A tiny data set for a network of king buckets `kings`: positions of a few random games,
    /// labelled by material.
    fn tiny_with(kings: &KingBuckets) -> Vec<Sample> {
        let mut rng = fastrand::Rng::with_seed(11);
        let mut out = Vec::new();
        while out.len() < 300 {
            let mut p = Chess::default();
            for _ in 0..rng.usize(4..80) {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                p.play_unchecked(moves[rng.usize(..moves.len())]);
            }
            let b = p.board();
            let material = |c: Color| {
                (b.by_color(c) & b.pawns()).count() as i32 * 100
                    + (b.by_color(c) & (b.knights() | b.bishops())).count() as i32 * 300
                    + (b.by_color(c) & b.rooks()).count() as i32 * 500
                    + (b.by_color(c) & b.queens()).count() as i32 * 900
            };
            let diff = material(p.turn()) - material(!p.turn());
            let result = match diff {
                d if d > 150 => Outcome::Win,
                d if d < -150 => Outcome::Loss,
                _ => Outcome::Draw,
            };
            out.push(Sample::of(
                &Record::new(&p, diff as i16, result, None),
                kings,
            ));
        }
        out
    }

    /// The king bucket layouts the tests train: none, mirroring alone, and eight buckets (with
    /// the factoriser).
    fn layouts() -> [KingBuckets; 3] {
        let layout = |n| KingBuckets::standard(n).expect("a standard layout");
        [KingBuckets::NONE, layout(1), layout(8)]
    }

    #[test]
    fn a_few_steps_lower_the_loss_the_same_way_for_a_seed() {
        for buckets in [1, OUTPUT_BUCKETS] {
            a_few_steps_lower_the_loss(buckets, KingBuckets::NONE);
        }
        for kings in layouts() {
            a_few_steps_lower_the_loss(1, kings);
        }
    }

    fn a_few_steps_lower_the_loss(buckets: usize, kings: KingBuckets) {
        let data = tiny_with(&kings);
        let refs: Vec<&Sample> = data.iter().collect();
        let opts = TrainOptions {
            epochs: 5,
            batch_size: 64,
            learning_rate: 0.01,
            threads: 2,
            output_buckets: buckets,
            king_buckets: kings,
            ..TrainOptions::default()
        };
        let k = 200.0;
        let start = Weights::random(opts.seed, opts.output_buckets, opts.king_buckets);
        let before = mean_loss(&start, &refs, k, opts.result_weight);
        let run = || train(start.clone(), &refs, &[], k, &opts, &mut |_, _| {});
        let a = run();
        let after = mean_loss(&a, &refs, k, opts.result_weight);
        assert!(
            after < before * 0.8,
            "{buckets} buckets, {kings:?}: loss {before} -> {after}"
        );
        assert_eq!(a, run(), "the same seed trains the same weights");
        let net = a.quantised().expect("shape");
        assert_eq!((net.buckets(), net.king_buckets()), (buckets, kings));
        let other = train(
            Weights::random(2, buckets, kings),
            &refs,
            &[],
            k,
            &TrainOptions {
                seed: 2,
                ..opts.clone()
            },
            &mut |_, _| {},
        );
        assert_ne!(a, other);
    }

    /// A warm start begins exactly where the network is: its weights quantise back to it, for
    /// one output bucket and for eight.
    #[test]
    fn a_network_warm_starts_from_its_own_weights() {
        for buckets in [1, OUTPUT_BUCKETS] {
            for kings in layouts() {
                let net = Weights::random(11, buckets, kings)
                    .quantised()
                    .expect("shape");
                let back = Weights::from_network(&net).quantised().expect("shape");
                assert_eq!(
                    back.checksum(),
                    net.checksum(),
                    "{buckets} buckets, {kings:?}"
                );
            }
        }
        let embedded = Network::embedded();
        let back = Weights::from_network(&embedded).quantised().expect("shape");
        assert_eq!(back.checksum(), embedded.checksum());
    }

    /// A network whose neurons from some on are zero (as a narrower one widened) keeps its
    /// evaluations when those neurons are drawn, with and without king buckets; its own neurons
    /// keep their weights and the drawn ones differ from each other.
    #[test]
    fn new_neurons_are_drawn_without_changing_the_network() {
        let from = HIDDEN / 2;
        for kings in layouts() {
            let mut w = Weights::random(13, 1, kings);
            for rows in [&mut w.ft, &mut w.factor] {
                for row in rows.chunks_exact_mut(HIDDEN) {
                    row[from..].fill(0.0);
                }
            }
            w.ft_bias[from..].fill(0.0);
            for half in w.out.chunks_exact_mut(HIDDEN) {
                half[from..].fill(0.0);
            }
            let before = w.quantised().expect("shape");
            let mut seeded = w.clone();
            seeded.seed_neurons(from, 7);
            // The rows drawn: the factoriser's where there is one.
            let (drawn, own) = if w.factor.is_empty() {
                (&seeded.ft, &w.ft)
            } else {
                (&seeded.factor, &w.factor)
            };
            for (row, before) in drawn.chunks_exact(HIDDEN).zip(own.chunks_exact(HIDDEN)) {
                assert_eq!(row[..from], before[..from]);
                assert!(row[from..].iter().all(|&x| x != 0.0));
                assert_ne!(row[from], row[from + 1]);
            }
            // With a factoriser the buckets' own rows of the new neurons stay 0.
            if !w.factor.is_empty() {
                assert_eq!(seeded.ft, w.ft);
            }
            let after = seeded.quantised().expect("shape");
            for fen in [
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9",
                "8/5k2/3p4/8/2P5/8/5K2/8 b - - 0 50",
            ] {
                let p: Chess = fen
                    .parse::<shakmaty::fen::Fen>()
                    .expect("a FEN")
                    .into_position(shakmaty::CastlingMode::Standard)
                    .expect("a position");
                assert_eq!(after.evaluate_position(&p), before.evaluate_position(&p));
            }
        }
    }

    /// A network without king buckets starts one with them: each bucket as the network was,
    /// so that a position whose kings stand on files a-d evaluates as before (on files e-h the
    /// view is mirrored); a network of other king buckets is refused.
    #[test]
    fn a_network_without_king_buckets_warm_starts_one_with_them() {
        let plain = Weights::random(12, 1, KingBuckets::NONE)
            .quantised()
            .expect("shape");
        let eight = KingBuckets::standard(8).expect("layout");
        let w = Weights::from_network_with(&plain, eight).expect("a warm start");
        let net = w.quantised().expect("shape");
        assert_eq!(net.king_buckets(), eight);
        let mut rng = fastrand::Rng::with_seed(5);
        let mut compared = 0;
        while compared < 200 {
            let mut p = Chess::default();
            for _ in 0..rng.usize(0..60) {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                p.play_unchecked(moves[rng.usize(..moves.len())]);
            }
            let on_queenside = |c: Color| {
                p.board()
                    .king_of(c)
                    .is_some_and(|k| u32::from(k.file()) < 4)
            };
            if on_queenside(Color::White) && on_queenside(Color::Black) {
                assert_eq!(net.evaluate_position(&p), plain.evaluate_position(&p));
                compared += 1;
            }
        }
        let sixteen = KingBuckets::standard(16).expect("layout");
        assert_eq!(
            Weights::from_network_with(&net, sixteen).err(),
            Some(WarmStartError::KingBuckets {
                found: 8,
                asked: 16
            })
        );
        // A network of the buckets asked for goes on from its own weights.
        let again = Weights::from_network_with(&net, eight).expect("its own buckets");
        assert_eq!(again.quantised().expect("shape").checksum(), net.checksum());
    }

    #[test]
    fn a_mirrored_sample_is_that_of_the_mirrored_position() {
        let p: Chess = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b - - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .expect("FEN")
            .into_position(shakmaty::CastlingMode::Standard)
            .expect("legal");
        let r = Record::new(&p, 31, Outcome::Draw, None);
        let mut board = r.board.clone();
        board.flip_horizontal();
        let flipped = Record { board, ..r.clone() };
        let sorted = |s: &Sample| {
            let n = usize::from(s.n);
            let (mut a, mut b) = (s.us[..n].to_vec(), s.them[..n].to_vec());
            a.sort_unstable();
            b.sort_unstable();
            (a, b, s.score, s.result)
        };
        let none = KingBuckets::NONE;
        let m = Sample::of(&r, &none).mirrored();
        assert_eq!(sorted(&m), sorted(&Sample::of(&flipped, &none)));
        assert_ne!(sorted(&m), sorted(&Sample::of(&r, &none)));
        // With king buckets, a position and its mirror are the same sample.
        for kings in &layouts()[1..] {
            assert_eq!(
                sorted(&Sample::of(&r, kings)),
                sorted(&Sample::of(&flipped, kings))
            );
        }
    }

    #[test]
    fn the_gradient_matches_finite_differences() {
        for buckets in [1, OUTPUT_BUCKETS] {
            gradient_matches_finite_differences(buckets, KingBuckets::NONE);
        }
        for kings in layouts() {
            gradient_matches_finite_differences(1, kings);
        }
    }

    fn gradient_matches_finite_differences(buckets: usize, kings: KingBuckets) {
        let data = tiny_with(&kings);
        let refs: Vec<&Sample> = data.iter().take(20).collect();
        let mut w = Weights::random(3, buckets, kings);
        for (i, b) in w.ft_bias.iter_mut().enumerate() {
            *b = 0.3 + 0.001 * i as f32;
        }
        // Bucket rows of their own, so that they and the factoriser both shape the sums.
        for (i, x) in w.ft.iter_mut().enumerate() {
            *x += 0.01 * ((i % 7) as f32 - 3.0);
        }
        let (k, lambda) = (200.0, 0.5);
        let mut g = Gradient::new(&w);
        loss_and_gradient(&w, &refs, k, lambda, Some(&mut g));
        let h = 1e-3f32;
        let f0 = usize::from(refs[0].us[0]);
        // With the factoriser: the first sample's first input's shared row.
        let x0 = f0 % INPUTS;
        // The output weights of the first sample's bucket (the only ones it moves).
        let b0 = w.bucket(refs[0]);
        let o0 = 2 * b0 * HIDDEN;
        assert!(
            buckets == 1 || b0 > 0,
            "a bucket other than the first is tested"
        );
        // (which slice, index) of a few weights of each kind.
        let picks = [(0, o0), (0, o0 + 5), (0, o0 + HIDDEN + 17), (1, 0), (1, 5)]
            .into_iter()
            .chain([
                (1, 17),
                (2, f0 * HIDDEN),
                (2, f0 * HIDDEN + 5),
                (2, f0 * HIDDEN + 17),
                (3, b0),
            ])
            .chain(
                [(4, x0 * HIDDEN), (4, x0 * HIDDEN + 5)]
                    .into_iter()
                    .filter(|_| !w.factor.is_empty()),
            );
        fn at(w: &mut Weights, kind: usize, i: usize) -> &mut f32 {
            match kind {
                0 => &mut w.out[i],
                1 => &mut w.ft_bias[i],
                2 => &mut w.ft[i],
                4 => &mut w.factor[i],
                _ => &mut w.out_bias[i],
            }
        }
        for (kind, i) in picks {
            let mut plus = w.clone();
            *at(&mut plus, kind, i) += h;
            let mut minus = w.clone();
            *at(&mut minus, kind, i) -= h;
            let numeric = (loss_and_gradient(&plus, &refs, k, lambda, None)
                - loss_and_gradient(&minus, &refs, k, lambda, None))
                / f64::from(2.0 * h);
            let analytic = f64::from(*at(&mut g.w, kind, i));
            assert!(
                (numeric - analytic).abs() <= 1e-4 + 0.05 * analytic.abs(),
                "{buckets} buckets, {kings:?}, kind {kind} [{i}]: numeric {numeric}, analytic {analytic}"
            );
            if kind == 0 || kind == 3 {
                assert!(analytic.abs() > 1e-6, "kind {kind} [{i}] has a gradient");
            }
        }
    }
}
