//! `retro probe`: the table value of positions given as FENs, one output line each.

use std::{
    io::{BufRead, Write},
    path::PathBuf,
};

use retro_engine::{config::Config, fen::parse_fen};
use retro_tables::Tablebase;

use super::{open_tables, CliError};

/// The arguments of `retro probe`.
#[derive(Debug, clap::Args)]
pub struct ProbeArgs {
    /// Directory of Retro's tables (default: table_path of engine.toml, else
    /// `retro/tables` in the platform's data folder).
    #[arg(long)]
    pub tables: Option<PathBuf>,
    /// Also print the result under the 50-move rule (win, cursed-win, draw, blessed-loss,
    /// loss) and the distance to zeroing in plies, signed as Syzygy signs it.
    #[arg(long)]
    pub dtz: bool,
    /// Positions; when none are given, one FEN per line is read from standard input.
    pub fens: Vec<String>,
}

impl ProbeArgs {
    /// Probes the positions ([`run_probe`]) in the tables of `--tables`, else `config`'s.
    ///
    /// # Errors
    /// A table directory that cannot be opened, or failed I/O.
    pub fn run(self, config: &Config) -> Result<(), CliError> {
        let tb = open_tables(&self.tables.unwrap_or_else(|| config.table_path.clone()))?;
        let stdin = std::io::stdin();
        let stdout = std::io::stdout();
        run_probe(&tb, &self.fens, self.dtz, stdin.lock(), stdout.lock())?;
        Ok(())
    }
}

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
