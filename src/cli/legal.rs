//! `retro legal`, `retro revmoves` and `retro proofkernel`: the legality analysis from the
//! command line.

use std::{
    io::{BufRead, Write},
    time::{Duration, Instant},
};

use rayon::prelude::*;

use crate::legality::{
    self, kernel, FenError, KernelMove, KernelResult, Kind, Limits, RawPosition, Stop,
};

/// Why `retro proofkernel` gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum ProofKernelError {
    /// A FEN that cannot be read.
    #[error(transparent)]
    Fen(#[from] FenError),
    /// The search ran out of its budget.
    #[error("{}", stopped(*.0))]
    Stopped(Stop),
}

/// What a budget that ran out says.
fn stopped(s: Stop) -> &'static str {
    match s {
        Stop::Nodes => "node limit reached before the search ended",
        Stop::Time => "time limit reached before the search ended",
    }
}

/// The limits of one analysis that starts now: `max_nodes`, and `time` from now.
fn limits_from_now(max_nodes: u64, time: Option<Duration>) -> Limits {
    Limits {
        max_nodes,
        deadline: time.map(|t| Instant::now() + t),
    }
}

/// The output line of `retro legal` for one FEN: `FEN<TAB>legal|illegal|unknown<TAB>reason`, or
/// `FEN<TAB>error<TAB>message` for a malformed FEN.
pub fn legal_line(fen: &str, limits: Limits) -> String {
    let fen = fen.trim();
    match legality::analyze_fen(fen, limits) {
        Ok(v) => format!("{fen}\t{}\t{}", v.status, v.reason),
        Err(e) => format!("{fen}\terror\t{e}"),
    }
}

/// `retro legal`: analyses the FENs given, or each non-empty line of `input`, in parallel
/// batches, writing the lines in input order. `time` limits each position's analysis.
///
/// # Errors
/// Only I/O errors on `input` or `out`.
pub fn run_legal(
    fens: &[String],
    max_nodes: u64,
    time: Option<Duration>,
    input: impl BufRead,
    mut out: impl Write,
) -> std::io::Result<()> {
    let analyse = |batch: &[String]| -> Vec<String> {
        batch
            .par_iter()
            .map(|fen| legal_line(fen, limits_from_now(max_nodes, time)))
            .collect()
    };
    if fens.is_empty() {
        let mut batch = Vec::new();
        let mut lines = input.lines();
        loop {
            let line = lines.next().transpose()?;
            let end = line.is_none();
            if let Some(l) = line {
                if !l.trim().is_empty() {
                    batch.push(l);
                }
            }
            if batch.len() >= 256 || (end && !batch.is_empty()) {
                for l in analyse(&batch) {
                    writeln!(out, "{l}")?;
                }
                out.flush()?;
                batch.clear();
            }
            if end {
                break;
            }
        }
    } else {
        for l in analyse(fens) {
            writeln!(out, "{l}")?;
        }
    }
    out.flush()
}

/// `retro revmoves`: the candidate last moves of a position, one a line, with their undo
/// information and the position before each.
///
/// # Errors
/// A malformed FEN.
pub fn revmoves_lines(fen: &str) -> Result<Vec<String>, FenError> {
    let p = RawPosition::from_fen(fen)?;
    Ok(legality::revmoves::generate(&p)
        .iter()
        .map(|m| format!("{m}\t{}", m.prior.fen()))
        .collect())
}

/// The kernel moves as one line.
fn kernel_text(moves: &[KernelMove]) -> String {
    if moves.is_empty() {
        "(no captures needed)".to_string()
    } else {
        moves
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// `retro proofkernel`: a proof kernel from `init` (the starting position when `None`) to
/// `goal` as one line of kernel moves, or a statement that none exists; then the extended
/// proof kernel.
///
/// # Errors
/// A malformed FEN, or the budget ran out before a kernel was found.
pub fn proofkernel_line(
    init: Option<&str>,
    goal: &str,
    max_nodes: u64,
    time: Option<Duration>,
) -> Result<String, ProofKernelError> {
    let init = match init {
        Some(f) => RawPosition::from_fen(f)?,
        None => RawPosition::start(),
    };
    let goal = RawPosition::from_fen(goal)?;
    let limits = limits_from_now(max_nodes, time);
    let kernel = match kernel::search(&init, &goal, Kind::Plain, &mut limits.counter())
        .map_err(ProofKernelError::Stopped)?
    {
        KernelResult::Found(moves) => moves,
        KernelResult::None => {
            return Ok(
                "no proof kernel: the goal cannot be reached from the initial position".to_string(),
            )
        }
    };
    let plain = format!("proof kernel: {}", kernel_text(&kernel));
    // The extended search starts from the kernel found, with a node budget of its own.
    let extended = kernel::search(
        &init,
        &goal,
        Kind::ExtendedFrom(&kernel),
        &mut limits.counter(),
    );
    let extended = match extended {
        Ok(KernelResult::Found(moves)) => {
            format!("extended proof kernel: {}", kernel_text(&moves))
        }
        Ok(KernelResult::None) => {
            "no extended proof kernel: no kernel fits the ranks of the pawns".to_string()
        }
        Err(e) => format!("extended proof kernel: unknown, {}", stopped(e)),
    };
    Ok(format!("{plain}\n{extended}"))
}
