//! The generator behind `build-tables`: plans the materials in dependency order
//! ([`plan`]), solves each by retrograde analysis, writes its tables atomically
//! ([`retro_tables::format::write_table`]) and checks tables independently ([`verify`]).
//!
//! Every solve runs on one retrograde kernel (the private `kernel` module: forward moves,
//! exits to the sub-tables, un-moves, the frontier by depth, passes by partition), with two
//! seams: the metric (DTM in `solve`, DTZ50 from the DTM values in `dtz`) and the state store
//! (cells in memory up to 5 pieces; one byte an entry and work files for 6 pieces, [`compact`]).
//! Progress goes to a [`Progress`] the caller supplies.
//!
//! Its public API is what `build-tables` and the engine's background build call: [`build`]
//! with [`BuildOptions`], [`build_one`], and [`verify`]. It depends on `retro-tables` only.

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod compact;
mod compact_build;
mod dtz;
mod error;
pub mod jobs;
mod kernel;
pub mod longest;
mod metric;
mod progress;
mod solve;
mod structure;
pub mod verify;

pub use compact_build::{build_split, work_dir};
pub use error::{DtzError, Inconsistency, SolveError, SubTableError};
pub use kernel::{memory_in_use, Stage};
pub use progress::{Progress, Silent};
pub use structure::{
    structure_levels, structure_part_done, verify::verify_by_structure,
    verify_dtz::verify_dtz_by_structure,
};

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    time::Instant,
};

use rayon::prelude::*;
use shakmaty::{ByColor, Color, Role};

use self::{
    dtz::{DtzSolved, DtzSolver, Records, Wdl50Tables},
    metric::{Dtz50, ZeroingFiles},
    solve::Solver,
};
use retro_tables::{
    format::{
        file_name, write_table, write_table_as, Compression, Encoding, Metric, Stats, Table,
        TableData, TableError,
    },
    index::IndexScheme,
    Material, ProbeError, Tables, Value, Wdl,
};

/// Why a build failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A table file could not be written or a sub-table read.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The solver failed.
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// The DTZ50 solve failed.
    #[error(transparent)]
    Dtz(#[from] DtzError),
    /// The output directory could not be created.
    #[error("cannot create {path}: {source}")]
    OutDir {
        /// The directory.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

/// What to build and how.
#[derive(Clone)]
pub struct BuildOptions {
    /// Directory of the tables (sub-tables are read from it too).
    pub out: PathBuf,
    /// Rebuild tables that are present and valid.
    pub force: bool,
    /// Where the build reports its progress ([`Silent`] for none).
    pub progress: Arc<dyn Progress>,
    /// Block length and level of the compressed tables ([`Encoding::for_table`]).
    pub compression: Compression,
    /// Solve every material without pawns with the compact solve ([`compact`]: one byte an
    /// entry, work files on disk), not only those of 6 pieces, which always take it.
    pub compact: bool,
    /// Wall time between the checkpoints of a compact solve's passes (a stopped build resumes
    /// from the last).
    pub checkpoint_every: std::time::Duration,
    /// Solve the DTM and DTZ50 of materials with pawns one pawn structure at a time
    /// (`structure`): the memory of the solves' cells is set by the largest structure, not by
    /// the table.
    pub by_structure: bool,
}

impl std::fmt::Debug for BuildOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BuildOptions")
            .field("out", &self.out)
            .field("force", &self.force)
            .field("compression", &self.compression)
            .field("compact", &self.compact)
            .field("checkpoint_every", &self.checkpoint_every)
            .field("by_structure", &self.by_structure)
            .finish_non_exhaustive()
    }
}

impl BuildOptions {
    /// Options for a build into `out` without progress bars, keeping present tables, with the
    /// default compression: what the engine's background build and the tests use.
    pub fn quiet(out: PathBuf) -> BuildOptions {
        BuildOptions {
            out,
            force: false,
            progress: Arc::new(Silent),
            compression: Compression::default(),
            compact: false,
            checkpoint_every: compact::CHECKPOINT_EVERY,
            by_structure: false,
        }
    }
}

/// Figures of one table.
#[derive(Clone, Debug)]
pub struct TableSummary {
    /// The material.
    pub material: Material,
    /// Whether valid tables were already there (nothing was built).
    pub skipped: bool,
    /// Whether a valid DTM table was there, so that only the DTZ50 table was built.
    pub dtm_present: bool,
    /// Legal positions, both sides to move.
    pub positions: u64,
    /// Wins for the side to move.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses for the side to move.
    pub losses: u64,
    /// Longest mate, in plies.
    pub longest: u32,
    /// Build time in seconds.
    pub seconds: f64,
    /// Of it, the retrograde solve.
    pub solve_seconds: f64,
    /// File size in bytes.
    pub bytes: u64,
    /// Size of the values uncompressed (one byte per entry and side, DTM and DTZ).
    pub raw_bytes: u64,
    /// The DTZ50 table, when it was built.
    pub dtz: Option<DtzSummary>,
    /// Positions worth showing (6-piece builds): what each is, and its FEN; the longest mate
    /// and the longest distance to zeroing of a win.
    pub examples: Vec<(String, String)>,
}

/// Figures of one DTZ50 table.
#[derive(Clone, Copy, Debug)]
pub struct DtzSummary {
    /// Longest distance to zeroing of a win (cursed ones included), in plies.
    pub longest_win: u32,
    /// Longest of a loss.
    pub longest_loss: u32,
    /// Time to build it, seconds.
    pub seconds: f64,
    /// Of it, the solve.
    pub solve_seconds: f64,
    /// File size in bytes.
    pub bytes: u64,
}

impl std::fmt::Display for TableSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.skipped {
            return write!(
                f,
                "{:<8} present and valid, skipped ({} bytes; --force rebuilds)",
                self.material.name(),
                self.bytes
            );
        }
        if self.dtm_present {
            write!(f, "{:<8} DTM present", self.material.name())?;
        } else {
            write!(
                f,
                "{:<8} positions {:>10}  wins {:>10}  draws {:>10}  losses {:>10}  longest mate {:>3} plies  {:>7.2} s (solve {:.2} s)",
                self.material.name(),
                self.positions,
                self.wins,
                self.draws,
                self.losses,
                self.longest,
                self.seconds,
                self.solve_seconds,
            )?;
        }
        if let Some(z) = &self.dtz {
            write!(
                f,
                "  DTZ50 longest {}/{} plies {:.2} s (solve {:.2} s, {} bytes)",
                z.longest_win, z.longest_loss, z.seconds, z.solve_seconds, z.bytes
            )?;
        }
        write!(f, "  {} bytes", self.bytes)?;
        if self.bytes < self.raw_bytes {
            write!(
                f,
                " (ratio {:.2})",
                self.raw_bytes as f64 / self.bytes.max(1) as f64
            )?;
        }
        for (what, fen) in &self.examples {
            write!(f, "\n    {what}: {fen}")?;
        }
        Ok(())
    }
}

/// Tables already built, for looking up exits.
#[derive(Default)]
pub struct SubTables {
    /// Each table with its material's key and its colour-swapped key.
    tables: Vec<(u64, u64, Table)>,
}

impl Tables for SubTables {
    fn table_by_key(&self, key: u64) -> Result<(&Table, bool), ProbeError> {
        for (own, swapped, t) in &self.tables {
            if *own == key {
                return Ok((t, false));
            }
            if *swapped == key {
                return Ok((t, true));
            }
        }
        Err(ProbeError::MissingTable(
            Material::from_key(key).canonical().name(),
        ))
    }
}

impl SubTables {
    /// Opens what one stage of solving `material` looks up. Tables of up to 4 pieces are raw and
    /// stay memory-mapped. A compressed table is read into memory, and only the side to move
    /// the stage reaches: in the init pass of one side, exits are that side's moves, so the
    /// other side is to move after them; the retrograde passes look up en passant captures
    /// only, which lead to 4 pieces. This keeps a 5-piece build with 5-piece promotion tables
    /// within a few GB.
    ///
    /// # Errors
    /// A missing or invalid sub-table.
    pub fn open_for(dir: &Path, material: Material, stage: Stage) -> Result<SubTables, TableError> {
        SubTables::open_reaching(dir, material, stage, true)
    }

    /// As [`SubTables::open_for`]; without `promotions`, the tables of as many pieces as
    /// `material` (those only a promotion without a capture leads to) are left out.
    pub(crate) fn open_reaching(
        dir: &Path,
        material: Material,
        stage: Stage,
        promotions: bool,
    ) -> Result<SubTables, TableError> {
        let mut tables = Vec::new();
        for (m, halves) in successors_reaching(material, stage, promotions) {
            let path = dir.join(file_name(m));
            let t = if m.piece_count() >= 5 {
                Table::open_sides_in_memory(&path, Some(m), halves)?
            } else {
                Table::open(&path, Some(m))?
            };
            tables.push((m.key(), m.swapped().key(), t));
        }
        Ok(SubTables { tables })
    }
}

/// [`stage_successors`], without the materials of as many pieces as `material` (promotions
/// without a capture) unless `promotions`.
fn successors_reaching(
    material: Material,
    stage: Stage,
    promotions: bool,
) -> Vec<(Material, [bool; 2])> {
    let mut out = stage_successors(material, stage);
    out.retain(|(m, _)| promotions || m.piece_count() < material.piece_count());
    out
}

/// The canonical materials one stage of solving `material` can look up, each with the sides to
/// move (white, black) of their tables that it reads.
fn stage_successors(material: Material, stage: Stage) -> Vec<(Material, [bool; 2])> {
    let mut out: Vec<(Material, [bool; 2])> = Vec::new();
    let mut add = |m: Material, mover: Color| {
        if m.piece_count() <= 2 {
            return;
        }
        // After a move of `mover`, the other side is to move; a table stored in the other
        // orientation holds that position with the colours exchanged.
        let c = m.canonical();
        let side = if m == c { mover.other() } else { mover };
        // The sides to move read, in the file's order (white, black).
        let plane = usize::from(side.is_black());
        match out.iter_mut().find(|(k, _)| *k == c) {
            Some((_, h)) => h[plane] = true,
            None => {
                let mut h = [false; 2];
                h[plane] = true;
                out.push((c, h));
            }
        }
    };
    let en_passant = material.count(Color::White, Role::Pawn) > 0
        && material.count(Color::Black, Role::Pawn) > 0;
    for (m, mover) in material.successors_by_mover() {
        match stage {
            Stage::Init(side) if side == mover => add(m, mover),
            Stage::InitBoth => add(m, mover),
            Stage::Retro
                if en_passant && m.piece_count() <= 4 && m.pawn_count() < material.pawn_count() =>
            {
                add(m, mover)
            }
            _ => {}
        }
    }
    out
}

/// The requested materials with all they depend on, in build order.
pub fn plan(requested: &[Material]) -> Vec<Material> {
    let mut all: Vec<Material> = requested.iter().flat_map(|m| m.closure()).collect();
    all.sort();
    all.dedup();
    retro_tables::sort_build_order(&mut all);
    all
}

fn summarize(
    material: Material,
    white: &[u8],
    black: &[u8],
    positions: u64,
) -> (TableSummary, Stats) {
    // A histogram of the bytes (four interleaved, so that runs of one value do not wait on
    // one counter), then wins, losses and the longest of each from it.
    let histogram = |bytes: &[u8]| {
        let mut h = [[0u64; 256]; 4];
        let mut quads = bytes.chunks_exact(4);
        for q in &mut quads {
            for (k, &b) in q.iter().enumerate() {
                h[k][usize::from(b)] += 1;
            }
        }
        for &b in quads.remainder() {
            h[0][usize::from(b)] += 1;
        }
        let mut total = [0u64; 256];
        for (b, t) in total.iter_mut().enumerate() {
            *t = h.iter().map(|row| row[b]).sum();
        }
        total
    };
    let total = white
        .par_chunks(1 << 20)
        .chain(black.par_chunks(1 << 20))
        .map(histogram)
        .reduce(
            || [0u64; 256],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        );
    let (mut wins, mut losses, mut longest_win, mut longest_loss) = (0, 0, 0, 0);
    for (b, &n) in total.iter().enumerate() {
        let v = Value::from_byte(b as u8);
        match v.wdl() {
            Wdl::Win if n > 0 => {
                wins += n;
                longest_win = longest_win.max(v.plies());
            }
            Wdl::Loss if n > 0 => {
                losses += n;
                longest_loss = longest_loss.max(v.plies());
            }
            _ => {}
        }
    }
    let stats = Stats {
        longest_win,
        longest_loss,
    };
    let longest = stats.longest_win.max(stats.longest_loss);
    let summary = TableSummary {
        material,
        skipped: false,
        dtm_present: false,
        positions,
        wins,
        draws: positions.saturating_sub(wins + losses),
        losses,
        longest,
        seconds: 0.0,
        solve_seconds: 0.0,
        bytes: 0,
        raw_bytes: 2 * white.len() as u64,
        dtz: None,
        examples: Vec::new(),
    };
    (summary, stats)
}

/// Builds one material whose sub-tables are in `opts.out`: its DTM table, then its DTZ50
/// table from the DTM values (each skipped when a valid file is present, unless `opts.force`).
///
/// # Errors
/// A sub-table that is missing or invalid, a solver error, or an I/O error writing a file.
pub fn build_one(material: Material, opts: &BuildOptions) -> Result<TableSummary, BuildError> {
    let path = opts.out.join(file_name(material));
    let dtz_path = opts.out.join(Metric::Dtz.file_name(material));
    let present = |p: &Path, open: fn(&Path, Option<Material>) -> Result<Table, TableError>| {
        !opts.force && open(p, Some(material)).is_ok_and(|t| t.check_blocks().is_ok())
    };
    let have_dtm = present(&path, Table::open);
    let have_dtz = have_dtm && present(&dtz_path, Table::open_dtz);
    let file_bytes = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    if have_dtz {
        let mut skipped = present_summary(material, &opts.out);
        skipped.skipped = true;
        skipped.bytes += file_bytes(&dtz_path);
        return Ok(skipped);
    }
    if compact::chosen(material, opts.compact) {
        return compact_build::build_compact(material, opts, have_dtm);
    }
    let work = structure::work_folder(&opts.out, material);
    // A DTM table written by an earlier build, whose parts are gone, takes the ordinary DTZ50
    // solve below, unless the DTZ50 parts of a build by structure are done.
    if opts.by_structure
        && material.has_pawns()
        && (!have_dtm
            || structure::dtm_parts_done(material, &work)
            || structure::levels_done(material, &work, structure::Kind::Dtz, 0..usize::MAX))
    {
        return build_by_structure(material, opts, have_dtm, &work);
    }
    let start = Instant::now();
    let (dtm, mut summary, records) = if have_dtm {
        let t = Table::open(&path, Some(material))?.into_memory([true, true])?;
        let dtm = dtz::dtm_values(&t).map_err(|e| BuildError::Dtz(e.into()))?;
        let (mut summary, _) = summarize(material, &dtm.white, &dtm.black, 0);
        summary.dtm_present = true;
        summary.bytes = file_bytes(&path);
        (dtm, summary, None)
    } else {
        build_dtm(material, opts)?
    };
    let z = build_dtz(material, opts, &dtm, records)?;
    summary.dtz = Some(z);
    summary.raw_bytes = 4 * dtm.white.len() as u64;
    summary.bytes += z.bytes;
    summary.seconds = start.elapsed().as_secs_f64();
    Ok(summary)
}

/// The sub-tables a part's init reads (every exit of both sides) for `material` in `out`; the
/// tables of promotions without a capture only with `promotions`.
fn structure_sub_tables(
    out: &Path,
    material: Material,
    promotions: bool,
) -> Result<SubTables, SolveError> {
    SubTables::open_reaching(out, material, Stage::InitBoth, promotions).map_err(|e| {
        SolveError::SubTable {
            material: material.name(),
            source: e.into(),
        }
    })
}

/// The levels of `material` (with pawns) in two runs: those whose parts can promote without a
/// capture (reading tables of as many pieces), then the others (reading only smaller ones), so
/// that a build by structure holds the large tables only while it needs them.
fn promotion_runs(material: Material) -> [(std::ops::Range<usize>, bool); 2] {
    let split = structure::promoting_levels(material);
    [(0..split, true), (split..usize::MAX, false)]
}

/// Builds `material` (with pawns) by structure ([`structure`]): its DTM parts (those not done
/// yet), its DTM table from them unless `have_dtm`, its DTZ50 parts and table, each table's
/// values gathered into work files mapped into memory, so that the build's memory is a part's
/// cells and what the writer keeps, not the table; the work folder `work` is removed at the
/// end.
fn build_by_structure(
    material: Material,
    opts: &BuildOptions,
    have_dtm: bool,
    work: &Path,
) -> Result<TableSummary, BuildError> {
    let start = Instant::now();
    let progress = opts.progress.as_ref();
    let every = 0..usize::MAX;
    // A build stopped after its DTM table and its DTZ50 parts (and after the DTM parts were
    // let go, below) goes on to the DTZ50 table.
    let mut summary = if have_dtm
        && !structure::levels_done(material, work, structure::Kind::Dtm, every.clone())
        && structure::levels_done(material, work, structure::Kind::Dtz, every.clone())
    {
        present_summary(material, &opts.out)
    } else {
        by_structure_dtm(material, opts, have_dtm, work)?
    };
    summary.solve_seconds = start.elapsed().as_secs_f64();
    let z_start = Instant::now();
    for (levels, promotions) in promotion_runs(material) {
        if structure::levels_done(material, work, structure::Kind::Dtz, levels.clone()) {
            continue;
        }
        let wdl50 = Wdl50Tables::open_reaching(&opts.out, material, promotions)?;
        structure::dtz::solve(material, &wdl50, work, progress, levels)?;
    }
    // The DTM parts are read by the DTZ50 parts only: their disk goes to the gathered DTZ50
    // values (for a 6-piece table, some 25 GB each).
    structure::remove_parts(material, work, structure::Kind::Dtm);
    let z = structure::gathered(material, work, structure::Kind::Dtz)?;
    let solve_seconds = z_start.elapsed().as_secs_f64();
    let stats = Stats {
        longest_win: z.stats[0],
        longest_loss: z.stats[1],
    };
    let data = TableData {
        white: &z.values.white,
        black: &z.values.black,
        legal: Some([&z.bits.white, &z.bits.black]),
        ext: None,
    };
    let encoding = Encoding::for_table(Metric::Dtz, material, opts.compression);
    let written = write_table_as(&opts.out, Metric::Dtz, material, data, stats, encoding)?;
    drop(z);
    if let Err(e) = std::fs::remove_dir_all(work) {
        log::warn!("{}: cannot remove {}: {e}", material.name(), work.display());
    }
    summary.dtz = Some(DtzSummary {
        longest_win: stats.longest_win,
        longest_loss: stats.longest_loss,
        seconds: z_start.elapsed().as_secs_f64(),
        solve_seconds,
        bytes: written.bytes,
    });
    summary.bytes += written.bytes;
    summary.seconds = start.elapsed().as_secs_f64();
    Ok(summary)
}

/// The DTM parts of `material` solved by structure (those not done yet), then its DTM table
/// written from them unless `have_dtm`; the summary of its values.
fn by_structure_dtm(
    material: Material,
    opts: &BuildOptions,
    have_dtm: bool,
    work: &Path,
) -> Result<TableSummary, BuildError> {
    let progress = opts.progress.as_ref();
    for (levels, promotions) in promotion_runs(material) {
        if structure::levels_done(material, work, structure::Kind::Dtm, levels.clone()) {
            continue;
        }
        let sub = structure_sub_tables(&opts.out, material, promotions)?;
        let scope = structure::Scope::Levels(levels);
        structure::solve(material, &sub, work, progress, scope, None)?;
    }
    let dtm = structure::gathered(material, work, structure::Kind::Dtm)?;
    let positions = dtm.bits.iter().flatten().map(|w| u64::from(w.count_ones()));
    let (mut summary, stats) = summarize(
        material,
        &dtm.values.white,
        &dtm.values.black,
        positions.sum(),
    );
    summary.raw_bytes = 4 * dtm.values.white.len() as u64;
    if have_dtm {
        summary.dtm_present = true;
        summary.bytes =
            std::fs::metadata(opts.out.join(file_name(material))).map_or(0, |m| m.len());
    } else {
        let data = TableData {
            white: &dtm.values.white,
            black: &dtm.values.black,
            legal: Some([&dtm.bits.white, &dtm.bits.black]),
            ext: None,
        };
        let encoding = Encoding::for_table(Metric::Dtm, material, opts.compression);
        summary.bytes = write_table(&opts.out, material, data, stats, encoding)?.bytes;
    }
    Ok(summary)
}

/// The summary of a DTM table present in `out` whose values are not counted again: its size
/// only.
fn present_summary(material: Material, out: &Path) -> TableSummary {
    TableSummary {
        material,
        skipped: false,
        dtm_present: true,
        positions: 0,
        wins: 0,
        draws: 0,
        losses: 0,
        longest: 0,
        seconds: 0.0,
        solve_seconds: 0.0,
        bytes: std::fs::metadata(out.join(file_name(material))).map_or(0, |m| m.len()),
        raw_bytes: 4 * IndexScheme::new(material).size(),
        dtz: None,
        examples: Vec::new(),
    }
}

/// A built DTM table: its values (white, black to move), its summary, and what its init pass
/// recorded for the DTZ50 solve.
type BuiltDtm = (ByColor<Vec<u8>>, TableSummary, Option<Records>);

/// Solves and writes the DTM table of `material`.
fn build_dtm(material: Material, opts: &BuildOptions) -> Result<BuiltDtm, BuildError> {
    let start = Instant::now();
    let sub_tables = |stage| {
        SubTables::open_for(&opts.out, material, stage).map_err(|e| SolveError::SubTable {
            material: material.name(),
            source: e.into(),
        })
    };
    let mut solver = Solver::new(material, SubTables::default());
    if let Some(r) = Records::new(opts.out.clone(), material) {
        solver = solver.with_records(r);
    }
    let mut solved = solver.solve(opts.progress.as_ref(), sub_tables)?;
    let (mut summary, stats) = summarize(
        material,
        &solved.white,
        &solved.black,
        solved.positions.white + solved.positions.black,
    );
    summary.solve_seconds = start.elapsed().as_secs_f64();
    let data = TableData {
        white: &solved.white,
        black: &solved.black,
        legal: Some([&solved.legal.white, &solved.legal.black]),
        ext: None,
    };
    let written = write_table(
        &opts.out,
        material,
        data,
        stats,
        Encoding::for_table(Metric::Dtm, material, opts.compression),
    )?;
    log::info!(
        "{}: written in {:.2} s, digit orders {:?}",
        material.name(),
        start.elapsed().as_secs_f64() - summary.solve_seconds,
        written.orders
    );
    summary.bytes = written.bytes;
    let records = solved.records.take();
    let values = ByColor {
        white: solved.white,
        black: solved.black,
    };
    Ok((values, summary, records))
}

/// Solves and writes the DTZ50 table of `material` from its DTM values `dtm` (white, black to
/// move) and the DTZ50 tables of its sub-materials; with `records` of its DTM init, from them
/// (see [`build_zeroing`]).
fn build_dtz(
    material: Material,
    opts: &BuildOptions,
    dtm: &ByColor<Vec<u8>>,
    records: Option<Records>,
) -> Result<DtzSummary, BuildError> {
    let Some(r) = records else {
        return build_zeroing::<Dtz50>(material, opts, dtm);
    };
    let start = Instant::now();
    // The captures and promotions were valued in the DTM init: only en passant captures are
    // looked up here.
    let sub = Wdl50Tables::open_stage(&opts.out, material, Stage::Retro)?;
    let dtm = dtm.as_ref().map(Vec::as_slice);
    let solved = DtzSolver::from_records(material, dtm, &sub, r).solve()?;
    write_zeroing::<Dtz50>(material, opts, &solved, start)
}

/// Solves and writes the table of the zeroing metric `M` of `material` from its DTM values
/// `dtm` (white, black to move) and the tables of `M` of its sub-materials. Only the wins and
/// losses are kept, a loss by its class ([`metric::Zeroing::table_byte`]): the file stores whatever
/// compresses best at draws and at entries that are no position.
fn build_zeroing<M: ZeroingFiles>(
    material: Material,
    opts: &BuildOptions,
    dtm: &ByColor<Vec<u8>>,
) -> Result<DtzSummary, BuildError> {
    let start = Instant::now();
    let sub = Wdl50Tables::open_stage_metric::<M>(&opts.out, material, Stage::InitBoth)?;
    let dtm = dtm.as_ref().map(Vec::as_slice);
    let solved = DtzSolver::<M>::of_metric(material, dtm, &sub).solve()?;
    write_zeroing::<M>(material, opts, &solved, start)
}

/// Writes the table of the zeroing metric `M` that a solve begun at `start` gave.
fn write_zeroing<M: ZeroingFiles>(
    material: Material,
    opts: &BuildOptions,
    solved: &DtzSolved,
    start: Instant,
) -> Result<DtzSummary, BuildError> {
    let solve_seconds = start.elapsed().as_secs_f64();
    let stats = Stats {
        longest_win: solved.longest_win,
        longest_loss: solved.longest_loss,
    };
    let written = write_table_as(
        &opts.out,
        M::FILE,
        material,
        TableData {
            white: &solved.white,
            black: &solved.black,
            legal: Some([&solved.kept.white, &solved.kept.black]),
            ext: None,
        },
        stats,
        Encoding::for_table(M::FILE, material, opts.compression),
    )?;
    log::info!(
        "{}: {:?} written in {:.2} s, digit orders {:?}",
        material.name(),
        M::FILE,
        start.elapsed().as_secs_f64() - solve_seconds,
        written.orders
    );
    Ok(DtzSummary {
        longest_win: stats.longest_win,
        longest_loss: stats.longest_loss,
        seconds: start.elapsed().as_secs_f64(),
        solve_seconds,
        bytes: written.bytes,
    })
}

/// Builds the requested materials and everything they depend on, calling `report` after each.
///
/// # Errors
/// The first table that fails.
pub fn build(
    requested: &[Material],
    opts: &BuildOptions,
    mut report: impl FnMut(&TableSummary),
) -> Result<Vec<TableSummary>, BuildError> {
    build_in_order(plan(requested), opts, &mut report)
}

/// Builds exactly `materials`, in build order, not the tables they need, which must be in
/// `opts.out` already (or among `materials`): what one job of a build spread over a cluster
/// runs.
///
/// # Errors
/// The first table that fails, a missing sub-table among them.
pub fn build_only(
    materials: &[Material],
    opts: &BuildOptions,
    mut report: impl FnMut(&TableSummary),
) -> Result<Vec<TableSummary>, BuildError> {
    let mut list: Vec<Material> = materials.iter().map(Material::canonical).collect();
    list.sort();
    list.dedup();
    retro_tables::sort_build_order(&mut list);
    build_in_order(list, opts, &mut report)
}

/// One part of a material's solve by pawn structure ([`build_structure_part`]).
#[derive(Clone, Debug)]
pub struct PartSummary {
    /// The material (canonical).
    pub material: Material,
    /// The part's number.
    pub part: usize,
    /// The material's parts.
    pub parts: usize,
    /// The part's level (0: the most advanced structures).
    pub level: usize,
    /// The material's levels.
    pub levels: usize,
    /// Whether there was nothing to do: the part, or the whole DTM table, was done already.
    pub skipped: bool,
    /// Wall time.
    pub seconds: f64,
}

impl std::fmt::Display for PartSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} structure part {} of {} (level {} of {}): {}",
            self.material,
            self.part,
            self.parts,
            self.level + 1,
            self.levels,
            if self.skipped {
                "done before".to_string()
            } else {
                format!("solved in {:.2} s", self.seconds)
            }
        )
    }
}

/// Solves part `part` of `material`'s DTM by pawn structure into the work folder of
/// `opts.out` (one task of a batch scheduler's array: [`structure_levels`] numbers the parts),
/// once the parts of the levels above it are done; the table is written by a build of the
/// material (with [`BuildOptions::by_structure`]) when every part is done. Nothing is done
/// when the part or the DTM table is there already (unless `opts.force`, for the table).
///
/// # Errors
/// A material without pawns, a part it does not have, parts above it not done, a missing
/// sub-table, or a solve error.
pub fn build_structure_part(
    material: Material,
    part: usize,
    opts: &BuildOptions,
) -> Result<PartSummary, BuildError> {
    let material = material.canonical();
    let levels = structure_levels(material);
    let parts = levels.iter().sum();
    let mut level = 0;
    let mut first = 0;
    while level < levels.len() && first + levels[level] <= part {
        first += levels[level];
        level += 1;
    }
    let mut summary = PartSummary {
        material,
        part,
        parts,
        level,
        levels: levels.len(),
        skipped: true,
        seconds: 0.0,
    };
    if level == levels.len() {
        return Err(BuildError::Solve(SolveError::NoSuchPart {
            material: material.name(),
            part,
            parts,
        }));
    }
    let path = opts.out.join(file_name(material));
    if !opts.force && Table::open(&path, Some(material)).is_ok_and(|t| t.check_blocks().is_ok()) {
        return Ok(summary);
    }
    let start = Instant::now();
    let promotes = structure::part_promotes(material, part);
    let sub = structure_sub_tables(&opts.out, material, promotes)?;
    let work = structure::work_folder(&opts.out, material);
    let before = structure_part_done(&opts.out, material, part);
    structure::solve(
        material,
        &sub,
        &work,
        opts.progress.as_ref(),
        structure::Scope::Part(part),
        None,
    )?;
    summary.skipped = before;
    summary.seconds = start.elapsed().as_secs_f64();
    Ok(summary)
}

fn build_in_order(
    list: Vec<Material>,
    opts: &BuildOptions,
    report: &mut impl FnMut(&TableSummary),
) -> Result<Vec<TableSummary>, BuildError> {
    std::fs::create_dir_all(&opts.out).map_err(|source| BuildError::OutDir {
        path: opts.out.clone(),
        source,
    })?;
    let mut out = Vec::new();
    for m in list {
        let s = build_one(m, opts)?;
        report(&s);
        out.push(s);
    }
    Ok(out)
}

/// Builds `materials` with their sub-tables into `dir`, quietly: the tables the unit tests
/// compare against.
#[cfg(test)]
pub(crate) fn build_for_test(dir: &Path, materials: &[Material]) {
    build(materials, &BuildOptions::quiet(dir.to_path_buf()), |_| {}).expect("tables build");
}

/// A temporary directory with the materials `names` and their sub-tables built into it
/// ([`build_for_test`]).
#[cfg(test)]
pub(crate) fn tables_for_test(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("dir");
    let materials: Vec<Material> = names.iter().map(|m| m.parse().expect("material")).collect();
    build_for_test(dir.path(), &materials);
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(name: &str) -> Material {
        name.parse().expect("material")
    }

    fn names(v: &[(Material, [bool; 2])]) -> Vec<(String, [bool; 2])> {
        let mut out: Vec<_> = v.iter().map(|(m, h)| (m.name(), *h)).collect();
        out.sort();
        out
    }

    #[test]
    fn each_stage_reads_the_side_its_exits_reach() {
        // White's moves in KRPvKR: captures of the black rook, and promotions (with or without
        // that capture); black is to move after them. Black's moves: captures only.
        let white = stage_successors(m("KRPvKR"), Stage::Init(Color::White));
        let want: Vec<(String, [bool; 2])> = [
            "KQRvK", "KQRvKR", "KRBvK", "KRBvKR", "KRNvK", "KRNvKR", "KRPvK", "KRRvK", "KRRvKR",
        ]
        .iter()
        .map(|n| (n.to_string(), [false, true]))
        .collect();
        assert_eq!(names(&white), want);
        // Black's captures lead to KPvKR, stored as KRvKP with the colours exchanged, so the
        // pawn side (white to move after black's move) is black there; and to KRvKR, with white
        // to move.
        let black = stage_successors(m("KRPvKR"), Stage::Init(Color::Black));
        assert_eq!(
            names(&black),
            vec![
                ("KRvKP".to_string(), [false, true]),
                ("KRvKR".to_string(), [true, false]),
            ]
        );
        // One pawn: no en passant, nothing to look up in the retrograde passes.
        assert!(stage_successors(m("KRPvKR"), Stage::Retro).is_empty());
        // With pawns on both sides, en passant captures lead to 4 pieces.
        let retro = stage_successors(m("KRPvKP"), Stage::Retro);
        assert!(retro.iter().all(|(x, _)| x.piece_count() <= 4), "{retro:?}");
        assert!(retro.iter().any(|(x, _)| x.name() == "KRPvK"));
    }

    #[test]
    fn the_init_of_both_sides_reads_what_each_side_reads() {
        // Without pawns, one init pass handles both sides: it reads the union of the two
        // sides' tables, all of fewer pieces.
        for name in ["KQRvKR", "KRRvKQ", "KBNvKN"] {
            let both = stage_successors(m(name), Stage::InitBoth);
            let mut want = stage_successors(m(name), Stage::Init(Color::White));
            for (x, h) in stage_successors(m(name), Stage::Init(Color::Black)) {
                match want.iter_mut().find(|(y, _)| *y == x) {
                    Some((_, g)) => {
                        g[0] |= h[0];
                        g[1] |= h[1];
                    }
                    None => want.push((x, h)),
                }
            }
            want.sort_by_key(|(x, _)| x.name());
            let mut got = both.clone();
            got.sort_by_key(|(x, _)| x.name());
            assert_eq!(names(&got), names(&want), "{name}");
            assert!(both.iter().all(|(x, _)| x.piece_count() < 5), "{name}");
        }
    }

    /// A build by structure stopped after its DTM table and its DTZ50 parts, its DTM parts
    /// already let go, goes on to the DTZ50 table of an uninterrupted build.
    #[test]
    fn a_build_by_structure_goes_on_from_its_dtz50_parts() {
        let k = m("KPvKP");
        let opts = |dir: &Path| BuildOptions {
            by_structure: true,
            ..BuildOptions::quiet(dir.to_path_buf())
        };
        let reference = tempfile::tempdir().expect("dir");
        build(&[k], &opts(reference.path()), |_| {}).expect("reference build");
        let dir = tempfile::tempdir().expect("dir");
        let dtz_name = Metric::Dtz.file_name(k);
        for entry in std::fs::read_dir(reference.path()).expect("reference") {
            let name = entry.expect("entry").file_name();
            if name.to_string_lossy() != dtz_name {
                std::fs::copy(reference.path().join(&name), dir.path().join(&name)).expect("copy");
            }
        }
        let work = structure::work_folder(dir.path(), k);
        let sub = SubTables::open_for(dir.path(), k, Stage::InitBoth).expect("sub-tables");
        let all = structure::Scope::Levels(0..usize::MAX);
        structure::solve(k, &sub, &work, &Silent, all, None).expect("DTM parts");
        let wdl50 = Wdl50Tables::open_for(dir.path(), k).expect("classes");
        structure::dtz::solve(k, &wdl50, &work, &Silent, 0..usize::MAX).expect("DTZ50 parts");
        structure::remove_parts(k, &work, structure::Kind::Dtm);
        assert!(!structure::dtm_parts_done(k, &work));
        let done = build(&[k], &opts(dir.path()), |_| {}).expect("the build goes on");
        let summary = done
            .iter()
            .find(|s| s.material == k)
            .expect("KPvKP's summary");
        assert!(summary.dtm_present && summary.dtz.is_some());
        let read = |d: &Path| std::fs::read(d.join(&dtz_name)).expect("DTZ50 table");
        assert!(
            read(dir.path()) == read(reference.path()),
            "the DTZ50 tables differ"
        );
        assert!(!work.exists(), "the work folder is removed");
    }
}
