//! `retro probe`: the table value of positions given as FENs, one output line each.

use std::io::{BufRead, Write};

use retro_engine::fen::parse_fen;
use retro_tables::Tablebase;

/// The output line for one FEN: `FEN<TAB>win|draw|loss<TAB>plies` or `FEN<TAB>error<TAB>reason`;
/// with `dtz`, `<TAB>WDL50<TAB>DTZ` follow the plies.
pub fn probe_line(tb: &Tablebase, fen: &str, dtz: bool) -> String {
    let fen = fen.trim();
    let value = parse_fen(fen).map_err(|e| e.to_string()).and_then(|pos| {
        let v = tb.probe(&pos).map_err(|e| e.to_string())?;
        let z = if dtz {
            Some(tb.probe_dtz(&pos).map_err(|e| e.to_string())?)
        } else {
            None
        };
        Ok((v, z))
    });
    match value {
        Ok((v, None)) => format!("{fen}\t{}\t{}", v.wdl(), v.plies()),
        Ok((v, Some(z))) => format!("{fen}\t{}\t{}\t{}\t{}", v.wdl(), v.plies(), z.wdl50(), z),
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
    dtz: bool,
    input: impl BufRead,
    mut out: impl Write,
) -> std::io::Result<()> {
    if fens.is_empty() {
        for line in input.lines() {
            let line = line?;
            if line.trim().is_empty() {
                continue;
            }
            writeln!(out, "{}", probe_line(tb, &line, dtz))?;
            out.flush()?;
        }
    } else {
        for fen in fens {
            writeln!(out, "{}", probe_line(tb, fen, dtz))?;
        }
    }
    out.flush()
}
