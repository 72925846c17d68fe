//! The `retro probe` command line: one output line per FEN, never stopping at a bad one.

use std::io::{BufRead, Write};

use shakmaty::{fen::Fen, CastlingMode, Chess};

use crate::tablebase::Tablebase;

/// Parses a FEN into a legal position.
///
/// # Errors
/// A message saying whether the FEN is malformed or the position illegal.
pub fn parse_fen(fen: &str) -> Result<Chess, String> {
    let parsed: Fen = fen
        .trim()
        .parse()
        .map_err(|e| format!("malformed FEN: {e}"))?;
    parsed
        .into_position(CastlingMode::Standard)
        // shakmaty's message already reads "illegal position: ...".
        .map_err(|e| e.to_string())
}

/// The output line for one FEN: `FEN<TAB>win|draw|loss<TAB>plies` or `FEN<TAB>error<TAB>reason`.
pub fn probe_line(tb: &Tablebase, fen: &str) -> String {
    let fen = fen.trim();
    match parse_fen(fen).and_then(|pos| tb.probe(&pos).map_err(|e| e.to_string())) {
        Ok(v) => format!("{fen}\t{}\t{}", v.wdl(), v.plies()),
        Err(e) => format!("{fen}\terror\t{e}"),
    }
}

/// Probes the FENs given, or each non-empty line of `input` when none are given, writing one
/// line each to `out`.
///
/// # Errors
/// Only I/O errors on `input` or `out`.
pub fn run_probe(
    tb: &Tablebase,
    fens: &[String],
    input: impl BufRead,
    mut out: impl Write,
) -> std::io::Result<()> {
    if fens.is_empty() {
        for line in input.lines() {
            let line = line?;
            if line.trim().is_empty() {
                continue;
            }
            writeln!(out, "{}", probe_line(tb, &line))?;
            out.flush()?;
        }
    } else {
        for fen in fens {
            writeln!(out, "{}", probe_line(tb, fen))?;
        }
    }
    out.flush()
}
