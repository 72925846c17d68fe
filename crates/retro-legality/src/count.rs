//! The number of legal chess positions, estimated from a uniform sample of a ranking of
//! "urpositions" (ChessPositionRanking) that contains every legal position `mult` times.
//!
//! Each sampled object counts `1/mult` when its position is legal and 0 otherwise; the mean
//! times the size of the ranking estimates the number of legal positions, with a normal 95%
//! confidence interval. Positions the analysis leaves unknown are counted as illegal in the
//! estimate, and bound it: all of them illegal, or all of them legal.

use std::fmt;

use super::Status;

/// The number of objects in the ranking the samples are drawn from.
pub const RANKING_SIZE: f64 = 8_726_713_169_886_222_032_347_729_969_256_422_370_854_716_254.0;

/// The same number, digit for digit, for printing.
pub const RANKING_SIZE_TEXT: &str = "8726713169886222032347729969256422370854716254";

/// One sampled position: its FEN and its multiplicity.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The position.
    pub fen: String,
    /// How many objects of the ranking stand for it (at least 1).
    pub mult: u64,
}

/// A line of a sample file that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SampleError {
    /// No header line naming the `fen` and `mult` columns.
    #[error("the first line must be a header naming the columns `fen` and `mult`")]
    Header,
    /// A row without a valid multiplicity.
    #[error("line {line}: expected a multiplicity >= 1 in column `mult`, found {found:?}")]
    Mult {
        /// The line, from 1.
        line: usize,
        /// What stands there.
        found: String,
    },
}

/// Reads a tab-separated sample: a header naming `fen` and `mult`, then one position a line
/// (empty lines skipped).
///
/// # Errors
/// A missing header or a bad multiplicity.
pub fn parse_sample(text: &str) -> Result<Vec<Sample>, SampleError> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines
        .next()
        .ok_or(SampleError::Header)?
        .split('\t')
        .collect();
    let col = |name: &str| header.iter().position(|h| h.trim() == name);
    let (Some(fen_col), Some(mult_col)) = (col("fen"), col("mult")) else {
        return Err(SampleError::Header);
    };
    let mut out = Vec::new();
    for (i, line) in lines.enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let found = fields.get(mult_col).copied().unwrap_or("").trim();
        let mult = found
            .parse::<u64>()
            .ok()
            .filter(|&m| m >= 1)
            .ok_or_else(|| SampleError::Mult {
                line: i + 2,
                found: found.to_string(),
            })?;
        out.push(Sample {
            fen: fields
                .get(fen_col)
                .copied()
                .unwrap_or("")
                .trim()
                .to_string(),
            mult,
        });
    }
    Ok(out)
}

/// The estimate from a decided sample.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Positions in the sample.
    pub size: usize,
    /// Positions proven legal.
    pub legal: usize,
    /// Positions proven illegal.
    pub illegal: usize,
    /// Positions left unknown (malformed FENs included).
    pub unknown: usize,
    /// The estimated number of legal positions (unknowns counted as illegal).
    pub count: f64,
    /// Its 95% confidence interval.
    pub interval: (f64, f64),
    /// The estimate were every unknown position legal.
    pub all_unknown_legal: f64,
}

impl Estimate {
    /// The estimate from each sampled position's multiplicity and verdict.
    pub fn new(results: &[(u64, Status)]) -> Estimate {
        let size = results.len();
        let n = size.max(1) as f64;
        let value = |&(mult, status): &(u64, Status)| {
            if status == Status::Legal {
                1.0 / mult as f64
            } else {
                0.0
            }
        };
        let mean = results.iter().map(value).sum::<f64>() / n;
        let var = if size > 1 {
            results
                .iter()
                .map(|r| (value(r) - mean).powi(2))
                .sum::<f64>()
                / (n - 1.0)
        } else {
            0.0
        };
        let half = 1.96 * (var / n).sqrt();
        let unknown_mass = results
            .iter()
            .filter(|r| r.1 == Status::Unknown)
            .map(|r| 1.0 / r.0 as f64)
            .sum::<f64>()
            / n;
        let count_of = |s: Status| results.iter().filter(|r| r.1 == s).count();
        Estimate {
            size,
            legal: count_of(Status::Legal),
            illegal: count_of(Status::Illegal),
            unknown: count_of(Status::Unknown),
            count: mean * RANKING_SIZE,
            interval: (
                (mean - half).max(0.0) * RANKING_SIZE,
                (mean + half) * RANKING_SIZE,
            ),
            all_unknown_legal: (mean + unknown_mass) * RANKING_SIZE,
        }
    }
}

impl fmt::Display for Estimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "positions: {} (legal {}, illegal {}, unknown {})",
            self.size, self.legal, self.illegal, self.unknown
        )?;
        writeln!(
            f,
            "legal chess positions: {:.3e} (95% confidence interval {:.3e} to {:.3e}; \
             sum of 1/mult over the legal ones / {} * {RANKING_SIZE_TEXT})",
            self.count, self.interval.0, self.interval.1, self.size
        )?;
        write!(
            f,
            "with the {} unknown positions all illegal: {:.3e}; all legal: {:.3e}",
            self.unknown, self.count, self.all_unknown_legal
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_file_is_read_by_its_header() {
        let text = "mult\tfen\n2\t8/8/8/8/8/8/8/Kk6 w - - 0 1\n\n1\tx\n";
        let s = parse_sample(text).expect("valid");
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].mult, 2);
        assert_eq!(s[0].fen, "8/8/8/8/8/8/8/Kk6 w - - 0 1");
        assert_eq!(parse_sample("fen\n"), Err(SampleError::Header));
        assert_eq!(
            parse_sample("fen\tmult\nx\t0\n"),
            Err(SampleError::Mult {
                line: 2,
                found: "0".to_string()
            })
        );
    }

    #[test]
    fn the_estimate_weights_legal_positions_by_their_multiplicity() {
        let results = [
            (1, Status::Legal),
            (2, Status::Legal),
            (1, Status::Illegal),
            (4, Status::Unknown),
        ];
        let e = Estimate::new(&results);
        assert_eq!((e.legal, e.illegal, e.unknown), (2, 1, 1));
        let mean = (1.0 + 0.5) / 4.0;
        assert!((e.count / RANKING_SIZE - mean).abs() < 1e-12);
        assert!((e.all_unknown_legal / RANKING_SIZE - (mean + 0.25 / 4.0)).abs() < 1e-12);
        assert!(e.interval.0 <= e.count && e.count <= e.interval.1);
        // Values 1, 0.5, 0, 0: sample variance 0.229..., half-width 1.96 * sqrt(var / 4).
        let var = ((1.0 - mean).powi(2) + (0.5 - mean).powi(2) + 2.0 * mean * mean) / 3.0;
        let half = 1.96 * (var / 4.0f64).sqrt();
        assert!((e.interval.1 / RANKING_SIZE - (mean + half)).abs() < 1e-12);
    }

    #[test]
    fn the_ranking_size_is_the_printed_number() {
        let parsed: f64 = RANKING_SIZE_TEXT.parse().expect("a number");
        assert_eq!(parsed, RANKING_SIZE);
    }
}
