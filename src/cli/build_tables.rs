//! `build-tables`: generates Retro's depth-to-mate tables by retrograde analysis, verifies
//! them (`--verify`), or compresses 5-piece tables again at another level or block length
//! (`--recompress`); `src/bin/build_tables.rs` parses the command line into
//! [`BuildTablesArgs`] and runs it.

use std::{path::PathBuf, sync::Arc, time::Instant};

use clap::Parser;
use retro_build::{
    verify::{verify, verify_dtz},
    BuildOptions, Progress,
};
use retro_tables::{
    format::{self, Compression, Metric},
    material::MaterialError,
    Material, TableError, Tablebase,
};

use super::{bars::Bars, say};

/// The command line of `build-tables`.
#[derive(Debug, Parser)]
#[command(
    name = "build-tables",
    version,
    about = "Generates Retro's depth-to-mate endgame tables by retrograde analysis"
)]
pub struct BuildTablesArgs {
    /// Materials to build (e.g. KQvKR), each with the tables it needs; all up to --max-pieces
    /// when none are given.
    materials: Vec<String>,
    /// Output directory (also where sub-tables are read from) [default: table_path of
    /// engine.toml, else `retro/tables` in the platform's data folder, where the engine looks]
    #[arg(long = "out", value_name = "OUT")]
    out_given: Option<PathBuf>,
    /// The table directory: `--out`, else [`default_out`] (read only when `--out` is absent).
    #[arg(skip)]
    out: PathBuf,
    /// Rebuild tables that are already present and valid.
    #[arg(long)]
    force: bool,
    /// Check the tables instead of building them: every position against its children. A
    /// 6-piece check stopped part way goes on from where it was when run again.
    #[arg(long)]
    verify: bool,
    /// Compress present tables again with --level, --dtz-level and --block-len instead of building (the
    /// 5-piece DTM tables, whose values stay, and every DTZ50 table, whose losses are stored by
    /// class as a build writes them; no solving).
    #[arg(long, conflicts_with = "verify")]
    recompress: bool,
    /// Print the longest mate and the longest DTZ50 win of the tables named (or all present),
    /// each with a position that has it, instead of building: one pass over each table. The
    /// positions are taken among those without an impossible check (a check no move could have
    /// given), which tables hold but no game reaches; the table's longest over all its entries
    /// is given beside when it differs.
    #[arg(long, conflicts_with_all = ["verify", "recompress", "slurm"])]
    longest: bool,
    /// With --verify or --recompress: only the DTZ50 tables.
    #[arg(long)]
    dtz_only: bool,
    /// Largest number of pieces (kings included) when no material is named: 5 builds all 110
    /// five-piece materials too.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(3..=5))]
    max_pieces: u8,
    /// zstd level of the compressed DTM tables (5 pieces).
    #[arg(long, default_value_t = format::ZSTD_LEVEL, value_parser = clap::value_parser!(i32).range(1..=22))]
    level: i32,
    /// zstd level of the DTZ50 tables (all compressed).
    #[arg(long, default_value_t = format::DTZ_ZSTD_LEVEL, value_parser = clap::value_parser!(i32).range(1..=22))]
    dtz_level: i32,
    /// Entries per compressed block (smaller blocks probe faster, larger ones compress better).
    #[arg(long, default_value_t = format::BLOCK_LEN, value_parser = clap::value_parser!(u32).range(1024..=65536))]
    block_len: u32,
    /// Print every material of this many pieces (6: without pawns, the ones this version
    /// builds) with its entries and the memory and disk its build takes, and exit.
    #[arg(long, value_name = "PIECES", value_parser = clap::value_parser!(u8).range(3..=6))]
    list: Option<u8>,
    /// Solve every material without pawns with the compact solve (one byte an entry in memory,
    /// values in work files on disk), as the 6-piece materials always are; with --verify, check
    /// DTM and DTZ50 tables as 6-piece tables are checked (one side in memory at a time).
    #[arg(long)]
    compact: bool,
    /// Seconds between the checkpoints of a compact solve (6 pieces, or --compact), from
    /// which a stopped build resumes.
    #[arg(long, default_value_t = retro_build::compact::CHECKPOINT_EVERY.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    checkpoint_secs: u64,
    /// Solve the DTM and DTZ50 of materials with pawns one pawn structure at a time, from the
    /// most advanced: the solves' memory is set by the largest structure, not by the table.
    /// The tables are the same. With --verify, the DTM tables of materials with pawns are
    /// checked the same way, a level of structures at a time (6 pieces with pawns need it).
    #[arg(long)]
    by_structure: bool,
    /// With --by-structure and --only, one material: solve only this part of its pawn
    /// structures (numbered from the most advanced level; one task of a job array), once the
    /// parts of the levels above it are done. The build of the material then gathers the
    /// parts into its table.
    #[arg(long, value_name = "N", requires_all = ["by_structure", "only"])]
    structure_part: Option<usize>,
    /// Worker threads (default: one per core; with --slurm, the CPUs of each job, default 1).
    #[arg(long)]
    threads: Option<usize>,
    /// Build only the named materials, not the tables they need, which must be present in
    /// --out already: what one job of a cluster build runs.
    #[arg(long, conflicts_with_all = ["verify", "recompress", "slurm"])]
    only: bool,
    /// Submit the build to Slurm instead of running it: one batch job per material still
    /// missing from --out (which every node must see), each after the jobs of the tables it
    /// reads; running the same command again submits what is still missing and not queued.
    #[arg(long, conflicts_with_all = ["verify", "recompress"])]
    slurm: bool,
    /// With --slurm: the CPUs of each material's own job, where it differs from --threads (a
    /// 6-piece material with pawns solved by structure runs its DTZ50 parts that many at a
    /// time where its memory allows)
    #[arg(long, value_name = "N", requires = "slurm")]
    table_threads: Option<usize>,
    /// With --slurm: wait for the jobs, then say which tables were not built.
    #[arg(long, requires = "slurm")]
    wait: bool,
    /// With --slurm: a further argument for every sbatch (e.g. `--sbatch-arg=--partition=big`).
    #[arg(
        long = "sbatch-arg",
        value_name = "ARG",
        requires = "slurm",
        allow_hyphen_values = true
    )]
    sbatch_args: Vec<String>,
    /// Run as one process of an MPI job (`mpirun -np N build-tables --mpi MATERIAL...`): each
    /// named material without pawns is solved by all the processes together, split by king
    /// placement; the tables they need, and materials with pawns, are built by the first
    /// process alone. Needs a build with the cargo feature `mpi`.
    #[arg(
        long,
        conflicts_with_all = ["verify", "recompress", "slurm", "structure_part", "list"]
    )]
    mpi: bool,
    /// No progress bars.
    #[arg(long, short)]
    quiet: bool,
}

/// What ends `build-tables` with an error.
#[derive(Debug, thiserror::Error)]
pub enum BuildTablesError {
    /// `--threads 0`.
    #[error("--threads and --table-threads must be at least 1")]
    NoThreads,
    /// The thread pool could not be started.
    #[error("cannot start {threads} threads: {source}")]
    Threads {
        /// The threads asked for.
        threads: usize,
        /// Why not.
        source: rayon::ThreadPoolBuildError,
    },
    /// A material of a size this version does not build.
    #[error(
        "{name}: {pieces} pieces; this version builds tables of 3 to 5 pieces, of 6 without \
         pawns, and of 6 with pawns by structure (--by-structure)"
    )]
    Size {
        /// The material as given.
        name: String,
        /// Its pieces.
        pieces: usize,
    },
    /// A material that cannot be read.
    #[error(transparent)]
    Material(#[from] MaterialError),
    /// The table directory cannot be opened.
    #[error(transparent)]
    Tables(#[from] TableError),
    /// Nothing to verify or recompress.
    #[error("no tables to {what} in {}", .dir.display())]
    Nothing {
        /// `verify` or `recompress`.
        what: &'static str,
        /// The table directory.
        dir: PathBuf,
    },
    /// `--structure-part` without exactly one material.
    #[error("--structure-part solves a part of one material, not of {0}")]
    OnePart(usize),
    /// The build failed.
    #[error(transparent)]
    Build(#[from] retro_build::BuildError),
    /// The Slurm submission failed.
    #[error(transparent)]
    Slurm(#[from] super::slurm::SlurmError),
    /// `--mpi` in a build without MPI.
    #[error("this build-tables has no MPI: build it with `cargo build --release --features mpi`")]
    NoMpi,
    /// MPI could not be started.
    #[error(transparent)]
    Mpi(#[from] retro_build::compact::share::ExchangeError),
    /// Standard output could not be written.
    #[error("writing the output: {0}")]
    Output(#[from] std::io::Error),
    /// Some tables failed their check or their recompression (reported above).
    #[error("{0}")]
    Failed(String),
}

impl BuildTablesError {
    /// 2 for bad arguments (nothing was done), 1 for a failure while working.
    pub fn exit_code(&self) -> u8 {
        match self {
            BuildTablesError::NoThreads
            | BuildTablesError::Threads { .. }
            | BuildTablesError::Size { .. }
            | BuildTablesError::OnePart(_)
            | BuildTablesError::NoMpi
            | BuildTablesError::Material(_)
            | BuildTablesError::Tables(_) => 2,
            BuildTablesError::Nothing { .. }
            | BuildTablesError::Output(_)
            | BuildTablesError::Build(_)
            | BuildTablesError::Slurm(_)
            | BuildTablesError::Mpi(_)
            | BuildTablesError::Failed(_) => 1,
        }
    }
}

/// The engine's table directory: engine.toml's `table_path` (beside the binary or in the
/// working directory), else the platform's data folder.
fn default_out() -> PathBuf {
    match retro_engine::config::Config::load(None) {
        Ok((config, _)) => config.table_path,
        Err(e) => {
            eprintln!("build-tables: {e}; using the data folder's tables");
            retro_engine::config::default_table_path()
        }
    }
}

impl BuildTablesArgs {
    /// Builds, verifies or recompresses as the arguments say, in `--out` (else engine.toml's
    /// table directory, else the platform's data folder's).
    ///
    /// # Errors
    /// A [`BuildTablesError`]: bad arguments, or a build, check or recompression that failed.
    pub fn run(mut self) -> Result<(), BuildTablesError> {
        self.out = self.out_given.take().unwrap_or_else(default_out);
        run(&self)
    }
}

/// Builds, verifies or recompresses as `args` say.
fn run(args: &BuildTablesArgs) -> Result<(), BuildTablesError> {
    if args.threads == Some(0) || args.table_threads == Some(0) {
        return Err(BuildTablesError::NoThreads);
    }
    if let Some(n) = args.threads.filter(|_| !args.slurm) {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|source| BuildTablesError::Threads { threads: n, source })?;
    }
    let mut materials = Vec::new();
    for name in &args.materials {
        let m: Material = name.parse()?;
        // A 6-piece table with pawns is built only part by part (a part is at most 1/24 of it);
        // one built is read whole by --longest.
        let six = m.piece_count() == 6 && (!m.has_pawns() || args.by_structure || args.longest);
        if !(3..=5).contains(&m.piece_count()) && !six {
            return Err(BuildTablesError::Size {
                name: name.clone(),
                pieces: m.piece_count(),
            });
        }
        materials.push(m.canonical());
    }
    if let Some(pieces) = args.list {
        // A reader that stops early (`| head`) ends the listing, not with an error.
        return match list(pieces, &args.out, &mut std::io::stdout().lock()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
            _ => Ok(()),
        };
    }
    let progress = Arc::new(Bars::new(!args.quiet));
    if args.verify {
        return run_verify(args, materials, progress.as_ref());
    }
    if args.recompress {
        return run_recompress(args, materials);
    }
    if args.longest {
        return run_longest(args, materials);
    }
    if materials.is_empty() {
        materials = Material::all(usize::from(args.max_pieces));
    }
    let opts = BuildOptions {
        out: args.out.clone(),
        force: args.force,
        progress,
        compression: Compression {
            block_len: args.block_len,
            level: args.level,
            dtz_level: args.dtz_level,
        },
        compact: args.compact,
        checkpoint_every: std::time::Duration::from_secs(args.checkpoint_secs),
        by_structure: args.by_structure,
    };
    if args.slurm {
        return run_slurm(args, &materials);
    }
    if args.mpi {
        return run_mpi(args, &materials, opts);
    }
    if let Some(part) = args.structure_part {
        let [m] = materials[..] else {
            return Err(BuildTablesError::OnePart(materials.len()));
        };
        let s = retro_build::build_structure_part(m, part, &opts)?;
        say(&s.to_string());
        return Ok(());
    }
    let start = Instant::now();
    let mut built = 0;
    let mut bytes = 0;
    let mut raw = 0;
    let report = |s: &retro_build::TableSummary| {
        say(&s.to_string());
        if !s.skipped {
            built += 1;
        }
        bytes += s.bytes;
        raw += s.raw_bytes;
    };
    let all = if args.only {
        retro_build::build_only(&materials, &opts, report)?
    } else {
        retro_build::build(&materials, &opts, report)?
    };
    say(&format!(
        "{} tables in {} ({} built, {} present), {} bytes ({} uncompressed), {:.2} s",
        all.len(),
        args.out.display(),
        built,
        all.len() - built,
        bytes,
        raw,
        start.elapsed().as_secs_f64()
    ));
    Ok(())
}

/// `--slurm`: the materials still missing become Slurm jobs; with `--wait`, followed to
/// their end.
fn run_slurm(args: &BuildTablesArgs, materials: &[Material]) -> Result<(), BuildTablesError> {
    let out = std::path::absolute(&args.out)?;
    std::fs::create_dir_all(&out)?;
    // Both files open with their headers and sizes right (a job writes each atomically).
    let whole = |m: Material| {
        use retro_tables::format::Table;
        Table::open(&out.join(Metric::Dtm.file_name(m)), Some(m)).is_ok()
            && Table::open_dtz(&out.join(Metric::Dtz.file_name(m)), Some(m)).is_ok()
    };
    let jobs = retro_build::jobs::job_graph(materials, |m| !args.force && whole(m));
    if jobs.is_empty() {
        say(&format!(
            "every table asked for is in {}; nothing to submit",
            out.display()
        ));
        return Ok(());
    }
    let mut build_args = vec![
        "--level".to_string(),
        args.level.to_string(),
        "--dtz-level".to_string(),
        args.dtz_level.to_string(),
        "--block-len".to_string(),
        args.block_len.to_string(),
        "--checkpoint-secs".to_string(),
        args.checkpoint_secs.to_string(),
    ];
    if args.compact {
        build_args.push("--compact".to_string());
    }
    if args.by_structure {
        build_args.push("--by-structure".to_string());
    }
    if args.force {
        build_args.push("--force".to_string());
    }
    let sub = super::slurm::Submission {
        out: out.clone(),
        build_args,
        cpus: args.threads.unwrap_or(1),
        table_cpus: args.table_threads.or(args.threads).unwrap_or(1),
        sbatch_args: args.sbatch_args.clone(),
        by_structure: args.by_structure,
    };
    let submitted = super::slurm::submit(&jobs, &sub)?;
    let waves = retro_build::jobs::waves(&jobs);
    let reused = submitted.iter().filter(|s| s.reused).count();
    say(&format!(
        "{} jobs for {} ({} submitted, {} still queued from before), in {} waves; logs in {}",
        submitted.len(),
        out.display(),
        submitted.len() - reused,
        reused,
        waves.len(),
        out.join(".slurm").display()
    ));
    for s in &submitted {
        if s.arrays > 0 {
            say(&format!(
                "{} job {}, after {} job arrays of {} structure parts",
                s.material, s.id, s.arrays, s.tasks
            ));
        } else {
            say(&format!("{} job {}", s.material, s.id));
        }
    }
    if !args.wait {
        return Ok(());
    }
    super::slurm::wait(&submitted, std::time::Duration::from_secs(2))?;
    let failed: Vec<String> = submitted
        .iter()
        .filter(|s| !whole(s.material))
        .map(|s| {
            format!(
                "{} (job {}, log {}/.slurm/{}-{}.log)",
                s.material,
                s.id,
                out.display(),
                s.material,
                s.id
            )
        })
        .collect();
    if failed.is_empty() {
        say(&format!(
            "all {} tables built in {}",
            submitted.len(),
            out.display()
        ));
        Ok(())
    } else {
        for f in &failed {
            say(&format!("not built: {f}"));
        }
        Err(BuildTablesError::Failed(format!(
            "{} of {} tables not built",
            failed.len(),
            submitted.len()
        )))
    }
}

/// `--list`: every material of `pieces` pieces (without pawns at 6) with its entries per side
/// and the memory and work-file disk its build needs, and whether its table is in `out`.
fn list(pieces: u8, out: &std::path::Path, w: &mut impl std::io::Write) -> std::io::Result<()> {
    let mut all: Vec<Material> = Material::all(usize::from(pieces))
        .into_iter()
        .filter(|m| m.piece_count() == usize::from(pieces) && (pieces < 6 || !m.has_pawns()))
        .collect();
    all.sort_by_key(|m| (retro_tables::index::IndexScheme::new(*m).size(), m.name()));
    let gb = |b: f64| b / 1e9;
    let total_mem = retro_build::compact::machine_memory();
    writeln!(
        w,
        "{:<9} {:>14} {:>10} {:>10} {:>9}  present",
        "material", "entries/side", "memory GB", "work GB", "fits"
    )?;
    for m in &all {
        let need = retro_build::compact::needs(*m);
        let present = out.join(format::file_name(*m)).exists();
        writeln!(
            w,
            "{:<9} {:>14} {:>10.1} {:>10.1} {:>9}  {}",
            m.name(),
            need.entries,
            gb(need.memory as f64),
            gb(need.work_disk as f64),
            match total_mem {
                Some(t) if need.memory <= t => "yes",
                Some(_) => "no",
                None => "?",
            },
            if present { "yes" } else { "" }
        )?;
    }
    writeln!(
        w,
        "{} materials; memory: peak of the build (state, bitmaps and sub-tables in the passes, \
         the values of one side when written), on a machine of {} GB; work: seeds and value \
         logs at most",
        all.len(),
        total_mem.map_or_else(|| "?".to_string(), |t| format!("{:.1}", gb(t as f64)))
    )
}

/// The tables to check or rewrite: the named ones, else every table present in `--out` that
/// `keep` accepts.
fn present(
    args: &BuildTablesArgs,
    mut materials: Vec<Material>,
    what: &'static str,
    keep: impl Fn(&Material) -> bool,
) -> Result<Vec<Material>, BuildTablesError> {
    if materials.is_empty() {
        materials = Tablebase::open(&args.out)?.materials();
        materials.retain(keep);
    }
    if materials.is_empty() {
        return Err(BuildTablesError::Nothing {
            what,
            dir: args.out.clone(),
        });
    }
    Ok(materials)
}

/// `--recompress`: the tables named (or all present) compressed again: the DTM tables of 5
/// pieces, and every DTZ50 table (with its losses by class, as `build-tables` writes them).
fn run_recompress(
    args: &BuildTablesArgs,
    materials: Vec<Material>,
) -> Result<(), BuildTablesError> {
    let materials = present(args, materials, "recompress", |_| true)?;
    let compression = Compression {
        block_len: args.block_len,
        level: args.level,
        dtz_level: args.dtz_level,
    };
    let start = Instant::now();
    let (mut before, mut after, mut failed) = (0u64, 0u64, 0usize);
    for m in materials {
        let dtm = args.out.join(format::file_name(m));
        let dtz = args.out.join(Metric::Dtz.file_name(m));
        type Rewrite =
            fn(&std::path::Path, Compression) -> Result<format::Written, format::TableError>;
        let mut jobs: Vec<(&std::path::Path, &str, Rewrite)> = Vec::new();
        // 3- and 4-piece DTM tables stay raw.
        if m.piece_count() >= 5 && !args.dtz_only {
            jobs.push((&dtm, "", format::recompress));
        }
        if dtz.exists() {
            jobs.push((&dtz, " DTZ50", format::recompress_dtz));
        }
        for (path, label, rewrite) in jobs {
            let old = std::fs::metadata(path).map(|md| md.len()).unwrap_or(0);
            let t = Instant::now();
            match rewrite(path, compression) {
                Ok(w) => {
                    say(&format!(
                        "{:<8}{label:<6} {old:>11} -> {:>11} bytes ({:+.1}%)  {:.2} s",
                        m.name(),
                        w.bytes,
                        100.0 * (w.bytes as f64 / old.max(1) as f64 - 1.0),
                        t.elapsed().as_secs_f64()
                    ));
                    before += old;
                    after += w.bytes;
                }
                Err(e) => {
                    say(&format!("{:<8}{label} recompress failed: {e}", m.name()));
                    failed += 1;
                }
            }
        }
    }
    say(&format!(
        "recompressed: {before} -> {after} bytes, {failed} failed, level {} (DTZ50 {}) blocks of {}, {:.2} s",
        args.level,
        args.dtz_level,
        args.block_len,
        start.elapsed().as_secs_f64()
    ));
    if failed == 0 {
        Ok(())
    } else {
        Err(BuildTablesError::Failed(format!("{failed} tables failed")))
    }
}

/// `--longest`: the longest mate and DTZ50 win of the tables named (or all present), each with
/// a position.
fn run_longest(args: &BuildTablesArgs, materials: Vec<Material>) -> Result<(), BuildTablesError> {
    let materials = present(args, materials, "scan", |_| true)?;
    let mut failed = 0usize;
    for m in materials {
        let t = Instant::now();
        let l = match retro_build::longest::longest(&args.out, m) {
            Ok(l) => l,
            Err(e) => {
                say(&format!("{:<8} not read: {e}", m.name()));
                failed += 1;
                continue;
            }
        };
        let line = |what: &str, d: &Option<retro_build::longest::Deepest>, any: Option<u32>| {
            let Some(d) = d else {
                return format!("    {what}: none");
            };
            // A DTZ50 beyond the rule's 100 plies is a cursed win (a draw under the rule).
            let kind = match (d.win, what.contains("DTZ50") && d.plies > 100) {
                (true, true) => "cursed win",
                (true, false) => "win",
                (false, _) => "loss",
            };
            let beside = match any {
                Some(a) if a > d.plies => {
                    format!(" (over all entries {a}, in positions with an impossible check)")
                }
                _ => String::new(),
            };
            format!("    {what}: {kind} in {} plies{beside}: {}", d.plies, d.fen)
        };
        say(&format!(
            "{:<8} {:.2} s",
            m.name(),
            t.elapsed().as_secs_f64()
        ));
        say(&line("longest mate", &l.mate, Some(l.mate_of_any_entry)));
        if l.dtz_win_of_any_entry.is_some() {
            say(&line(
                "longest DTZ50 win",
                &l.dtz_win,
                l.dtz_win_of_any_entry,
            ));
        } else {
            say("    no DTZ50 table");
        }
    }
    if failed == 0 {
        Ok(())
    } else {
        Err(BuildTablesError::Failed(format!(
            "{failed} tables not read"
        )))
    }
}

/// `--verify`: every position of the tables named (or all present) against its children.
fn run_verify(
    args: &BuildTablesArgs,
    materials: Vec<Material>,
    progress: &dyn Progress,
) -> Result<(), BuildTablesError> {
    let max = usize::from(args.max_pieces);
    let materials = present(args, materials, "verify", |m| {
        m.piece_count() <= max
            || retro_build::compact::applies(*m)
            || (args.by_structure && m.has_pawns())
    })?;
    let start = Instant::now();
    let (mut checked, mut mismatches, mut failed) = (0u64, 0u64, 0usize);
    for m in materials {
        let dtz_present = args.out.join(Metric::Dtz.file_name(m)).exists();
        for (metric, label) in [(Metric::Dtm, ""), (Metric::Dtz, " DTZ50")] {
            if metric == Metric::Dtm && args.dtz_only {
                continue;
            }
            if metric == Metric::Dtz && !dtz_present {
                say(&format!(
                    "{:<8} DTZ50 table missing (build-tables builds it)",
                    m.name()
                ));
                failed += 1;
                continue;
            }
            let t = Instant::now();
            // The compact checks know no pawns (no promotions, no en passant); a table with
            // pawns of 6 pieces is checked structure by structure.
            let compact = retro_build::compact::chosen(m, args.compact);
            let by_structure = args.by_structure && m.has_pawns();
            // The loop above names the two metrics checked: DTM, else DTZ50.
            let r = match (metric == Metric::Dtm, by_structure, compact) {
                (true, true, _) => retro_build::verify_by_structure(&args.out, m, progress),
                (true, false, true) => {
                    retro_build::compact::verify::verify_compact(&args.out, m, progress)
                }
                (true, false, false) => verify(&args.out, m, progress),
                (false, true, _) => retro_build::verify_dtz_by_structure(&args.out, m, progress),
                (false, false, true) => {
                    retro_build::compact::verify_dtz::verify_compact_dtz(&args.out, m, progress)
                }
                (false, false, false) => verify_dtz(&args.out, m, progress),
            };
            if let Some(e) = &r.error {
                say(&format!("{:<8}{label} verify failed: {e}", m.name()));
                failed += 1;
                continue;
            }
            say(&format!(
                "{:<8}{label} checked {:>10} positions, {} mismatches  {:.2} s",
                m.name(),
                r.checked,
                r.mismatches,
                t.elapsed().as_secs_f64()
            ));
            for (fen, stored, expect) in &r.examples {
                say(&format!(
                    "    {fen}: table says {stored}, children say {expect}"
                ));
            }
            checked += r.checked;
            mismatches += r.mismatches;
        }
    }
    say(&format!(
        "verified {checked} positions: {mismatches} mismatches, {failed} tables not checked, {:.2} s",
        start.elapsed().as_secs_f64()
    ));
    if mismatches == 0 && failed == 0 {
        Ok(())
    } else {
        Err(BuildTablesError::Failed(format!(
            "{mismatches} mismatches, {failed} tables not checked"
        )))
    }
}

/// `--mpi` without the feature: refused.
#[cfg(not(feature = "mpi"))]
fn run_mpi(
    _args: &BuildTablesArgs,
    _materials: &[Material],
    _opts: BuildOptions,
) -> Result<(), BuildTablesError> {
    Err(BuildTablesError::NoMpi)
}

/// `--mpi`: this process is one rank of an MPI job (see the option). An error on any rank ends
/// the whole job (`MPI_Abort`), since the others would wait for it in vain.
#[cfg(feature = "mpi")]
fn run_mpi(
    args: &BuildTablesArgs,
    materials: &[Material],
    opts: BuildOptions,
) -> Result<(), BuildTablesError> {
    use retro_build::compact::{mpi_exchange::Mpi, share::Exchange};
    let x = Mpi::init()?;
    let (rank, ranks) = (x.rank(), x.ranks());
    // The folder the tables go to, made once (the ranks share it).
    let made = if rank == 0 {
        std::fs::create_dir_all(&args.out)
    } else {
        Ok(())
    };
    x.wait_all()?;
    if let Err(e) = made {
        eprintln!("build-tables: rank 0: {}: {e}", args.out.display());
        x.abort(i32::from(BuildTablesError::from(e).exit_code()));
    }
    let opts = if rank == 0 {
        opts
    } else {
        BuildOptions {
            progress: Arc::new(retro_build::Silent),
            ..opts
        }
    };
    let start = Instant::now();
    let split = |m: &Material| !m.has_pawns() && materials.contains(m);
    let list = if args.only {
        let mut l = materials.to_vec();
        l.sort();
        l.dedup();
        retro_tables::sort_build_order(&mut l);
        l
    } else {
        retro_build::plan(materials)
    };
    let result = (|| -> Result<(), BuildTablesError> {
        for m in &list {
            let t = Instant::now();
            if split(m) {
                let before = x.sent();
                let summary = retro_build::build_split(*m, &opts, &x)?;
                let mut sent = [x.sent() - before];
                x.sum(&mut sent)?;
                if let Some(s) = summary {
                    say(&s.to_string());
                    let entries = 2 * retro_tables::index::IndexScheme::new(*m).size();
                    say(&format!(
                        "{m}: {ranks} MPI ranks, {:.2} s; {} predecessors sent between ranks, \
                         {} bytes ({:.3} bytes an entry)",
                        t.elapsed().as_secs_f64(),
                        sent[0],
                        8 * sent[0],
                        8.0 * sent[0] as f64 / entries as f64
                    ));
                }
            } else if rank == 0 {
                let s = retro_build::build_one(*m, &opts)?;
                say(&s.to_string());
            }
            // The others wait (asleep) for a table rank 0 builds alone.
            x.wait_all()?;
        }
        Ok(())
    })();
    match result {
        Ok(()) => {
            log::info!("rank {rank}: sent {} predecessors in all", x.sent());
            if rank == 0 {
                say(&format!(
                    "{} tables in {} over {ranks} MPI ranks, {:.2} s",
                    list.len(),
                    args.out.display(),
                    start.elapsed().as_secs_f64()
                ));
            }
            Ok(())
        }
        Err(e) => {
            eprintln!("build-tables: rank {rank}: {e}");
            x.abort(i32::from(e.exit_code()))
        }
    }
}
