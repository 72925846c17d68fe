//! `build-tables`: generates Retro's depth-to-mate tables by retrograde analysis, verifies
//! them (`--verify`), or compresses 5-piece tables again at another level or block length
//! (`--recompress`).

use std::{path::PathBuf, process::ExitCode, time::Instant};

use clap::Parser;
use retro::{
    build::{self, verify::verify, BuildOptions},
    tablebase::{
        format::{self, Compression},
        Material, Tablebase,
    },
};

#[derive(Parser)]
#[command(
    name = "build-tables",
    version,
    about = "Generates Retro's depth-to-mate endgame tables by retrograde analysis"
)]
struct Args {
    /// Materials to build (e.g. KQvKR), each with the tables it needs; all up to --max-pieces
    /// when none are given.
    materials: Vec<String>,
    /// Output directory (also where sub-tables are read from).
    #[arg(long, default_value = "tables")]
    out: PathBuf,
    /// Rebuild tables that are already present and valid.
    #[arg(long)]
    force: bool,
    /// Check the tables instead of building them: every position against its children.
    #[arg(long)]
    verify: bool,
    /// Compress present 5-piece tables again with --level and --block-len instead of building
    /// (the values and their order stay; no solving).
    #[arg(long, conflicts_with = "verify")]
    recompress: bool,
    /// Largest number of pieces (kings included) when no material is named: 5 builds all 110
    /// five-piece materials too.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(3..=5))]
    max_pieces: u8,
    /// zstd level of the compressed (5-piece) tables.
    #[arg(long, default_value_t = format::ZSTD_LEVEL, value_parser = clap::value_parser!(i32).range(1..=22))]
    level: i32,
    /// Entries per compressed block (smaller blocks probe faster, larger ones compress better).
    #[arg(long, default_value_t = format::BLOCK_LEN, value_parser = clap::value_parser!(u32).range(1024..=65536))]
    block_len: u32,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// No progress bars.
    #[arg(long, short)]
    quiet: bool,
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let args = Args::parse();
    if let Some(n) = args.threads {
        if n == 0 {
            eprintln!("build-tables: --threads must be at least 1");
            return ExitCode::from(2);
        }
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
        {
            eprintln!("build-tables: cannot start {n} threads: {e}");
            return ExitCode::from(2);
        }
    }
    let mut materials = Vec::new();
    for name in &args.materials {
        match name.parse::<Material>() {
            Ok(m) if (3..=5).contains(&m.piece_count()) => materials.push(m.canonical()),
            Ok(m) => {
                eprintln!(
                    "build-tables: {name}: {} pieces; this version builds tables of 3 to 5 pieces",
                    m.piece_count()
                );
                return ExitCode::from(2);
            }
            Err(e) => {
                eprintln!("build-tables: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let progress = !args.quiet;
    if args.verify {
        return run_verify(&args, materials, progress);
    }
    if args.recompress {
        return run_recompress(&args, materials);
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
        },
    };
    let start = Instant::now();
    let mut built = 0;
    let mut bytes = 0;
    let mut raw = 0;
    let result = build::build(&materials, &opts, |s| {
        println!("{s}");
        if !s.skipped {
            built += 1;
        }
        bytes += s.bytes;
        raw += s.raw_bytes;
    });
    match result {
        Ok(all) => {
            println!(
                "{} tables in {} ({} built, {} present), {} bytes ({} uncompressed), {:.2} s",
                all.len(),
                args.out.display(),
                built,
                all.len() - built,
                bytes,
                raw,
                start.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("build-tables: {e}");
            ExitCode::from(1)
        }
    }
}

/// The tables to check or rewrite: the named ones, else every table present in `--out` that
/// `keep` accepts.
fn present(
    args: &Args,
    mut materials: Vec<Material>,
    what: &str,
    keep: impl Fn(&Material) -> bool,
) -> Result<Vec<Material>, ExitCode> {
    if materials.is_empty() {
        match Tablebase::open(&args.out) {
            Ok(tb) => materials = tb.materials(),
            Err(e) => {
                eprintln!("build-tables: {e}");
                return Err(ExitCode::from(2));
            }
        }
        materials.retain(keep);
    }
    if materials.is_empty() {
        eprintln!(
            "build-tables: no tables to {what} in {}",
            args.out.display()
        );
        return Err(ExitCode::from(1));
    }
    Ok(materials)
}

fn run_recompress(args: &Args, materials: Vec<Material>) -> ExitCode {
    // Only 5-piece tables are compressed.
    let materials = match present(args, materials, "recompress", |m| m.piece_count() >= 5) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let compression = Compression {
        block_len: args.block_len,
        level: args.level,
    };
    let start = Instant::now();
    let (mut before, mut after, mut failed) = (0u64, 0u64, 0usize);
    for m in materials.into_iter().filter(|m| m.piece_count() >= 5) {
        let path = args.out.join(format::file_name(m));
        let old = std::fs::metadata(&path).map(|md| md.len()).unwrap_or(0);
        let t = Instant::now();
        match format::recompress(&path, compression) {
            Ok(w) => {
                println!(
                    "{:<8} {old:>11} -> {:>11} bytes ({:+.1}%)  {:.2} s",
                    m.name(),
                    w.bytes,
                    100.0 * (w.bytes as f64 / old.max(1) as f64 - 1.0),
                    t.elapsed().as_secs_f64()
                );
                before += old;
                after += w.bytes;
            }
            Err(e) => {
                println!("{:<8} recompress failed: {e}", m.name());
                failed += 1;
            }
        }
    }
    println!(
        "recompressed: {before} -> {after} bytes, {failed} failed, level {} blocks of {}, {:.2} s",
        args.level,
        args.block_len,
        start.elapsed().as_secs_f64()
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn run_verify(args: &Args, materials: Vec<Material>, progress: bool) -> ExitCode {
    let max = usize::from(args.max_pieces);
    let materials = match present(args, materials, "verify", |m| m.piece_count() <= max) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let start = Instant::now();
    let (mut checked, mut mismatches, mut failed) = (0u64, 0u64, 0usize);
    for m in materials {
        let t = Instant::now();
        let r = verify(&args.out, m, progress);
        if let Some(e) = &r.error {
            println!("{:<8} verify failed: {e}", m.name());
            failed += 1;
            continue;
        }
        println!(
            "{:<8} checked {:>10} positions, {} mismatches  {:.2} s",
            m.name(),
            r.checked,
            r.mismatches,
            t.elapsed().as_secs_f64()
        );
        for (fen, stored, expect) in &r.examples {
            println!("    {fen}: table says {stored}, children say {expect}");
        }
        checked += r.checked;
        mismatches += r.mismatches;
    }
    println!(
        "verified {checked} positions: {mismatches} mismatches, {failed} tables not checked, {:.2} s",
        start.elapsed().as_secs_f64()
    );
    if mismatches == 0 && failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
