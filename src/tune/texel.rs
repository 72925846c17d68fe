//! Texel's method: the evaluation's weights fitted so that a sigmoid of the evaluation predicts
//! the labels of the data (game results, table values), by full-batch gradient descent (Adam)
//! on the mean squared error.
//!
//! Each position is turned once into its features (the parameters [`eval::terms`] uses, white's
//! count minus black's), its phase and the parts of the evaluation outside the weights (tempo,
//! mop-up, the drawish scaling), so that an epoch is a pass over small sparse vectors.

use std::io::BufRead;

use rayon::prelude::*;
use shakmaty::{Board, Color, Position};

use super::datagen::Source;
use retro_engine::eval::{self, params, Terms, MAX_PHASE, S, TEMPO};

/// One labelled position, reduced to what the evaluation needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Parameter index and white's count minus black's, for the parameters used.
    pub features: Vec<(u16, i16)>,
    /// The game phase, 0 to [`MAX_PHASE`].
    pub phase: i32,
    /// The mop-up bonus, centipawns for white (scaled with the weights).
    pub mop_up: i32,
    /// The tempo bonus of the side to move, centipawns for white (not scaled).
    pub tempo: i32,
    /// The evaluation is divided by 8 when white is ahead / when black is ahead.
    pub drawish: [bool; 2],
    /// The label for white: 1, 0.5 or 0.
    pub label: f32,
}

/// Counts the features of a position.
struct Counter(Vec<i32>);

impl Terms for Counter {
    fn add(&mut self, us: Color, param: usize, n: i32) {
        self.0[param] += if us == Color::White { n } else { -n };
    }
}

impl Sample {
    /// The sample of `board` (with `turn` to move) labelled `label`.
    pub fn new(board: &Board, turn: Color, label: f32) -> Sample {
        let mut counter = Counter(vec![0; params::COUNT]);
        eval::terms(board, &mut counter);
        let features = counter
            .0
            .iter()
            .enumerate()
            .filter(|(_, &c)| c != 0)
            .map(|(i, &c)| (i as u16, c.clamp(i16::MIN.into(), i16::MAX.into()) as i16))
            .collect();
        let tempo = if turn == Color::White { TEMPO } else { -TEMPO };
        Sample {
            features,
            phase: eval::phase(board),
            mop_up: eval::mop_up(board),
            tempo,
            drawish: [eval::drawish(board, true), eval::drawish(board, false)],
            label,
        }
    }

    /// The evaluation for white with `weights` (as reals), and the factor that multiplies
    /// each weight's contribution (the phase share and the scaling) for middlegame and
    /// endgame.
    fn evaluate(&self, weights: &[[f64; 2]]) -> (f64, [f64; 2]) {
        let (mut mg, mut eg) = (0.0, 0.0);
        for &(i, c) in &self.features {
            let w = weights[i as usize];
            mg += w[0] * f64::from(c);
            eg += w[1] * f64::from(c);
        }
        let ph = f64::from(self.phase) / f64::from(MAX_PHASE);
        let raw = mg * ph + eg * (1.0 - ph) + f64::from(self.mop_up);
        let scale = if self.drawish[usize::from(raw <= 0.0)] {
            0.125
        } else {
            1.0
        };
        (
            raw * scale + f64::from(self.tempo),
            [ph * scale, (1.0 - ph) * scale],
        )
    }
}

/// Why the data cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// A line is not `FEN<TAB>RESULT<TAB>SOURCE` with a legal FEN and a result of 1, 0.5, 0.
    #[error("line {line}: {reason}")]
    Line {
        /// The line number, from 1.
        line: usize,
        /// What is wrong.
        reason: LineError,
    },
    /// Reading failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The samples of a data file, with how many came from each [`Source`] (game, adjudicated,
/// table).
///
/// # Errors
/// [`DataError::Line`] for a malformed line, [`DataError::Io`] when reading fails.
pub fn read_samples(input: impl BufRead) -> Result<(Vec<Sample>, [usize; 3]), DataError> {
    let lines: Vec<String> = input.lines().collect::<Result<_, _>>()?;
    let parsed: Vec<Result<(Sample, Source), DataError>> = lines
        .par_iter()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            parse_line(l).map_err(|reason| DataError::Line {
                line: i + 1,
                reason,
            })
        })
        .collect();
    let mut samples = Vec::with_capacity(parsed.len());
    let mut sources = [0; 3];
    for p in parsed {
        let (s, source) = p?;
        sources[source as usize] += 1;
        samples.push(s);
    }
    Ok((samples, sources))
}

/// What is wrong with a line of a data file.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    /// The FEN cannot be read.
    #[error("{fen}: {source}")]
    Fen {
        /// The FEN column.
        fen: String,
        /// Why not.
        source: retro_engine::fen::FenError,
    },
    /// The result column is not 1, 0.5 or 0 (`None`: missing).
    #[error("result {0:?}: expected 1, 0.5 or 0")]
    Label(Option<String>),
    /// The source column is missing or not one of game, adjudicated, table.
    #[error("source: expected game, adjudicated or table")]
    Source,
}

/// A line of a data file: `FEN<TAB>RESULT<TAB>SOURCE`.
fn parse_line(line: &str) -> Result<(Sample, Source), LineError> {
    let mut cols = line.split('\t');
    let fen = cols.next().unwrap_or("");
    let pos = retro_engine::fen::parse_fen(fen).map_err(|source| LineError::Fen {
        fen: fen.to_string(),
        source,
    })?;
    let label = match cols.next().map(str::trim) {
        Some("1") => 1.0,
        Some("0.5") => 0.5,
        Some("0") => 0.0,
        other => return Err(LineError::Label(other.map(str::to_string))),
    };
    let source = cols
        .next()
        .map(str::trim)
        .and_then(Source::parse)
        .ok_or(LineError::Source)?;
    Ok((Sample::new(pos.board(), pos.turn(), label), source))
}

/// The predicted score for white of an evaluation `v` (centipawns) with scale `k`.
fn sigmoid(k: f64, v: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * v / 400.0))
}

/// The mean squared error of the predictions of `weights` on `samples`.
pub fn loss(samples: &[Sample], weights: &[[f64; 2]], k: f64) -> f64 {
    let sum: f64 = samples
        .par_iter()
        .map(|s| {
            let (v, _) = s.evaluate(weights);
            let e = f64::from(s.label) - sigmoid(k, v);
            e * e
        })
        .sum();
    sum / samples.len().max(1) as f64
}

/// The sigmoid scale that fits `weights` best (golden-section search on 0.1 to 3).
pub fn fit_k(samples: &[Sample], weights: &[[f64; 2]]) -> f64 {
    let (mut a, mut b) = (0.1f64, 3.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..40 {
        let c = b - g * (b - a);
        let d = a + g * (b - a);
        if loss(samples, weights, c) < loss(samples, weights, d) {
            b = d;
        } else {
            a = c;
        }
    }
    (a + b) / 2.0
}

/// The gradient of [`loss`] with respect to every weight.
fn gradient(samples: &[Sample], weights: &[[f64; 2]], k: f64) -> Vec<[f64; 2]> {
    let n = samples.len().max(1) as f64;
    let grad = samples
        .par_chunks(4096)
        .map(|chunk| {
            let mut g = vec![[0.0f64; 2]; weights.len()];
            for s in chunk {
                let (v, share) = s.evaluate(weights);
                let p = sigmoid(k, v);
                // d(label - p)^2 / dv
                let d = -2.0 * (f64::from(s.label) - p) * p * (1.0 - p) * k * 10f64.ln() / 400.0;
                for &(i, c) in &s.features {
                    let gi = &mut g[i as usize];
                    gi[0] += d * share[0] * f64::from(c);
                    gi[1] += d * share[1] * f64::from(c);
                }
            }
            g
        })
        .reduce(
            || vec![[0.0f64; 2]; weights.len()],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    x[0] += y[0];
                    x[1] += y[1];
                }
                a
            },
        );
    grad.into_iter().map(|g| [g[0] / n, g[1] / n]).collect()
}

/// Settings of the descent.
#[derive(Clone, Copy, Debug)]
pub struct TuneOptions {
    /// Full passes over the data.
    pub epochs: usize,
    /// Adam's step size, in centipawns.
    pub rate: f64,
    /// Weight of the penalty `l2 * (w - start)^2` per weight, which keeps weights that few
    /// positions use near their starting values.
    pub l2: f64,
}

/// Fits `start` to `samples` with sigmoid scale `k`, calling `progress(epoch, loss)` every
/// few epochs; returns the weights rounded to centipawns.
pub fn tune(
    samples: &[Sample],
    start: &[S],
    k: f64,
    opts: TuneOptions,
    progress: &mut dyn FnMut(usize, f64),
) -> Vec<S> {
    let mut w = as_reals(start);
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8f64);
    let mut m = vec![[0.0f64; 2]; w.len()];
    let mut v = vec![[0.0f64; 2]; w.len()];
    for epoch in 1..=opts.epochs {
        let mut g = gradient(samples, &w, k);
        for ((gi, wi), si) in g.iter_mut().zip(&w).zip(start) {
            gi[0] += 2.0 * opts.l2 * (wi[0] - f64::from(si.0));
            gi[1] += 2.0 * opts.l2 * (wi[1] - f64::from(si.1));
        }
        let (c1, c2) = (1.0 - b1.powi(epoch as i32), 1.0 - b2.powi(epoch as i32));
        for i in 0..w.len() {
            for j in 0..2 {
                m[i][j] = b1 * m[i][j] + (1.0 - b1) * g[i][j];
                v[i][j] = b2 * v[i][j] + (1.0 - b2) * g[i][j] * g[i][j];
                w[i][j] -= opts.rate * (m[i][j] / c1) / ((v[i][j] / c2).sqrt() + eps);
            }
        }
        if epoch % 10 == 0 || epoch == opts.epochs {
            progress(epoch, loss(samples, &w, k));
        }
    }
    w.iter()
        .map(|x| S(x[0].round() as i32, x[1].round() as i32))
        .collect()
}

/// The weights as reals.
pub fn as_reals(weights: &[S]) -> Vec<[f64; 2]> {
    weights
        .iter()
        .map(|s| [f64::from(s.0), f64::from(s.1)])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_engine::eval::weights::WEIGHTS;

    #[test]
    fn the_sample_evaluation_is_the_engine_evaluation() {
        for fen in [
            "r1bqk2r/pp1n1ppp/2pbpn2/3p4/2PP4/2NBPN2/PP3PPP/R1BQK2R w KQkq - 2 7",
            "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 99 50",
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
            "4k3/8/8/8/8/8/8/3NK3 b - - 0 1",
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        ] {
            let pos = retro_engine::fen::parse_fen(fen).expect("FEN");
            let s = Sample::new(pos.board(), pos.turn(), 0.5);
            let (v, _) = s.evaluate(&as_reals(&WEIGHTS));
            let engine = eval::evaluate(&pos);
            let white = if pos.turn() == Color::White {
                engine
            } else {
                -engine
            };
            // The engine rounds the taper and the scaling down to whole centipawns.
            assert!((v - f64::from(white)).abs() <= 2.0, "{fen}: {v} {white}");
        }
    }

    #[test]
    fn descent_lowers_the_loss() {
        let data = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\t0.5\tgame\n\
                    4k3/8/8/8/8/8/8/R3K3 w - - 0 1\t1\ttable\n\
                    4k3/8/8/8/8/8/3q4/4K3 w - - 0 1\t0\tadjudicated\n";
        let (samples, sources) = read_samples(data.as_bytes()).expect("data");
        assert_eq!(sources, [1, 1, 1]);
        let start = vec![S(0, 0); params::COUNT];
        let before = loss(&samples, &as_reals(&start), 1.0);
        let tuned = tune(
            &samples,
            &start,
            1.0,
            TuneOptions {
                epochs: 50,
                rate: 2.0,
                l2: 0.0,
            },
            &mut |_, _| {},
        );
        let after = loss(&samples, &as_reals(&tuned), 1.0);
        assert!(after < before, "{after} >= {before}");
    }

    #[test]
    fn bad_lines_are_named() {
        let err = read_samples("8/8/8/8/8/8/8/8 w - - 0 1\t1\tgame\n".as_bytes());
        assert!(matches!(err, Err(DataError::Line { line: 1, .. })));
        let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
        let err = read_samples(format!("{fen}\t2\tgame\n").as_bytes());
        assert!(matches!(err, Err(DataError::Line { line: 1, .. })));
    }
}
