//! `build-tables` for the materials of the compact solve (6 pieces without pawns): the DTM solve,
//! the DTZ50 solve from its value logs, and both files written one side at a time. Each phase
//! leaves a mark in the work directory, so that a build that is stopped starts again at the
//! phase it was in; the work directory goes when both files are written.

use std::{
    fs,
    io::{self, Read, Write},
    path::{Path, PathBuf},
    time::Instant,
};

use shakmaty::{ByColor, Color};

use crate::{
    compact::{
        self,
        dtz::CompactDtz,
        share::{Exchange, Share},
        value_log_path, CompactSolver, Compacted, Policy,
    },
    dtz::Wdl50Tables,
    error::{DtzError, SolveError},
    kernel::{king_slot, Stage, SIDES},
    BuildError, BuildOptions, DtzSummary, SubTables, TableSummary,
};
use retro_tables::{
    format::{write_table_by_side, Metric, SideData, TableError},
    index::IndexScheme,
    Material, Value,
};

/// The work directory of a compact build of `material` in `out`: its seeds, value logs and
/// phase marks (see [`crate::compact`]), removed when the tables are written.
pub fn work_dir(out: &Path, material: Material) -> PathBuf {
    out.join(format!(".{}.work", material.name()))
}

/// The mark of a finished DTM solve: positions per side and depths, with the legal bits in
/// `legal-0.bin` and `legal-1.bin`.
const DTM_DONE: &str = "dtm.done";
/// The mark of a finished DTZ50 solve.
const DTZ_DONE: &str = "dtz.done";

fn work_error(work: &Path, e: io::Error) -> BuildError {
    BuildError::Solve(SolveError::Work(work.to_path_buf(), e))
}

/// Writes `bytes` to `path` atomically ([`retro_tables::write_atomic`]).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    retro_tables::write_atomic(path, |f| f.write_all(bytes)).map(|_| ())
}

/// The legal bits of `side` that a finished DTM solve keeps in `work` (named by the side's
/// number, `king_slot`: 0 white, 1 black).
fn legal_path(work: &Path, side: Color) -> PathBuf {
    work.join(format!("legal-{}.bin", king_slot(side)))
}

/// Keeps what a DTM solve leaves, for a build that resumes after it.
fn save_dtm(work: &Path, c: &Compacted) -> io::Result<()> {
    for side in SIDES {
        let bytes: Vec<u8> = c.legal[side].iter().flat_map(|w| w.to_le_bytes()).collect();
        write_atomic(&legal_path(work, side), &bytes)?;
    }
    let mark = format!("{} {} {}\n", c.positions.white, c.positions.black, c.depths);
    write_atomic(&work.join(DTM_DONE), mark.as_bytes())
}

/// Removes the checkpoints of a finished phase (`kind`) from `work`.
fn discard_checkpoints(work: &Path, kind: &str) -> Result<(), BuildError> {
    compact::checkpoint::discard(work, kind).map_err(|e| work_error(work, e))
}

/// What a finished DTM solve left in `work`, if it did.
fn load_dtm(work: &Path, material: Material) -> io::Result<Option<Compacted>> {
    load_dtm_of(work, material, IndexScheme::new(material).size())
}

/// What a finished DTM solve of `entries` entries a side (a rank's share, or the whole table)
/// left in `work`, if it did.
fn load_dtm_of(work: &Path, material: Material, entries: u64) -> io::Result<Option<Compacted>> {
    let Ok(mark) = fs::read_to_string(work.join(DTM_DONE)) else {
        return Ok(None);
    };
    let bad = || io::Error::new(io::ErrorKind::InvalidData, format!("{:?}: bad mark", work));
    let nums: Vec<u64> = mark
        .split_whitespace()
        .map(|t| t.parse().map_err(|_| bad()))
        .collect::<io::Result<_>>()?;
    let [p0, p1, depths] = nums[..] else {
        return Err(bad());
    };
    let words = entries.div_ceil(64) as usize;
    let mut legal = ByColor::new_with(|_| Vec::new());
    for side in SIDES {
        let l = &mut legal[side];
        let mut bytes = Vec::with_capacity(8 * words);
        fs::File::open(legal_path(work, side))?.read_to_end(&mut bytes)?;
        if bytes.len() != 8 * words {
            return Err(bad());
        }
        *l = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect();
    }
    Ok(Some(Compacted {
        material,
        positions: ByColor {
            white: p0,
            black: p1,
        },
        legal,
        logs: ByColor::new_with(|s| value_log_path(work, s)),
        depths: depths as usize,
    }))
}

/// Builds a material of the compact solve: DTM, then DTZ50 (see the module docs). With
/// `have_dtm` (a valid DTM file present) and no work left from a build, both are solved again:
/// the DTZ50 solve reads the DTM solve's logs, not its file.
pub(crate) fn build_compact(
    material: Material,
    opts: &BuildOptions,
    have_dtm: bool,
) -> Result<TableSummary, BuildError> {
    let start = Instant::now();
    let work = work_dir(&opts.out, material);
    fs::create_dir_all(&work).map_err(|e| work_error(&work, e))?;
    let bar = opts.progress.as_ref();
    let policy = Policy {
        every: opts.checkpoint_every,
        stop_at: None,
    };
    let solved = match load_dtm(&work, material).map_err(|e| work_error(&work, e))? {
        Some(c) => {
            log::info!("{}: DTM solve found in {}", material.name(), work.display());
            // A build stopped between the mark and the discard below left them.
            discard_checkpoints(&work, compact::CKPT)?;
            c
        }
        None => {
            let sub = SubTables::open_for(&opts.out, material, Stage::InitBoth).map_err(|e| {
                SolveError::SubTable {
                    material: material.name(),
                    source: e.into(),
                }
            })?;
            let c = CompactSolver::new(material, &sub, &work)?
                .with_policy(policy)
                .solve(bar)?;
            save_dtm(&work, &c).map_err(|e| work_error(&work, e))?;
            discard_checkpoints(&work, compact::CKPT)?;
            c
        }
    };
    let solve_seconds = start.elapsed().as_secs_f64();
    let dtz_start = Instant::now();
    if !work.join(DTZ_DONE).exists() {
        let sub = Wdl50Tables::open_for(&opts.out, material)?;
        CompactDtz::new(material, &solved.logs, &sub, &work)?
            .with_policy(policy)
            .solve(bar)?;
        write_atomic(&work.join(DTZ_DONE), b"done\n")
            .map_err(|e| BuildError::Dtz(DtzError::Work(work.clone(), e)))?;
    }
    discard_checkpoints(&work, compact::dtz::CKPT)?;
    let dtz_logs = crate::compact::dtz::DtzLogs::in_work(material, &work);
    let dtz_solve_seconds = dtz_start.elapsed().as_secs_f64();
    // The DTM file (kept when present and valid).
    let mut counts = [0u64; 2];
    let mut examples: Vec<(String, String)> = Vec::new();
    let scheme = IndexScheme::new(material);
    let fen_of = |side: Color, idx: u64| {
        scheme
            .decode(idx)
            .and_then(|sq| crate::verify::entry_position(scheme.slots(), &sq, side))
            .map(|p| {
                shakmaty::fen::Fen::from_position(&p, shakmaty::EnPassantMode::Legal).to_string()
            })
    };
    // Examples are taken among positions without an impossible check (see
    // `entry_is_valid_position`); the table's longest may lie in one.
    let example = |side: Color| {
        let scheme = &scheme;
        move |idx: u64| {
            scheme
                .decode(idx)
                .is_some_and(|sq| crate::verify::entry_is_valid_position(scheme.slots(), &sq, side))
        }
    };
    let mut deepest_mate: Option<(u32, Color, u64)> = None;
    let mut deepest_dtz: Option<(u32, Color, u64)> = None;
    let (dtm_bytes, dtm_stats) = if have_dtm {
        let path = opts.out.join(Metric::Dtm.file_name(material));
        let t = retro_tables::format::Table::open(&path, Some(material))?;
        (fs::metadata(&path).map(|m| m.len()).unwrap_or(0), t.stats())
    } else {
        let (w, stats) =
            write_table_by_side(&opts.out, Metric::Dtm, material, opts.compression, |side| {
                let planes =
                    solved
                        .side_planes(side, example(side))
                        .map_err(|e| TableError::Io {
                            path: solved.logs[side].clone(),
                            source: e,
                        })?;
                counts[0] += planes.wins;
                counts[1] += planes.losses;
                if let Some((d, i)) = planes.deepest {
                    if deepest_mate.is_none_or(|(x, _, _)| d > x) {
                        deepest_mate = Some((d, side, i));
                    }
                }
                let longest = planes.stats.longest_win.max(planes.stats.longest_loss);
                let wide = longest > Value::MAX_BYTE_WIN;
                Ok(SideData {
                    first: planes.first,
                    ext: wide.then_some(planes.ext),
                    legal: Some(solved.legal[side].clone()),
                    stats: planes.stats,
                })
            })?;
        (w.bytes, stats)
    };
    let dtz_write = Instant::now();
    let (dtz_written, dtz_stats) =
        write_table_by_side(&opts.out, Metric::Dtz, material, opts.compression, |side| {
            let planes = dtz_logs
                .side_planes(side, example(side))
                .map_err(|e| TableError::Io {
                    path: work.clone(),
                    source: e,
                })?;
            if let Some((d, i)) = planes.deepest_win {
                if deepest_dtz.is_none_or(|(x, _, _)| d > x) {
                    deepest_dtz = Some((d, side, i));
                }
            }
            // Wins beyond 255 plies (cursed) need the extension bytes.
            let wide = planes.stats.longest_win > 255;
            Ok(SideData {
                first: planes.first,
                ext: wide.then_some(planes.ext),
                legal: Some(planes.kept),
                stats: planes.stats,
            })
        })?;
    fs::remove_dir_all(&work).map_err(|e| work_error(&work, e))?;
    for (what, found) in [
        ("longest mate", deepest_mate),
        ("longest DTZ50 of a win", deepest_dtz),
    ] {
        if let Some((d, side, idx)) = found {
            if let Some(fen) = fen_of(side, idx) {
                let kind = example_kind(what.contains("DTZ"), d);
                let longest = if what.contains("DTZ") {
                    dtz_stats.longest_win
                } else {
                    dtm_stats.longest_win.max(dtm_stats.longest_loss)
                };
                let what = if d < longest {
                    format!("{what} without an impossible check (the table's: {longest} plies)")
                } else {
                    what.to_string()
                };
                examples.push((format!("{what} ({kind} in {d} plies)"), fen));
            }
        }
    }
    let positions = solved.positions.white + solved.positions.black;
    let summary = TableSummary {
        material,
        skipped: false,
        dtm_present: have_dtm,
        positions,
        wins: counts[0],
        draws: if have_dtm {
            0
        } else {
            positions.saturating_sub(counts[0] + counts[1])
        },
        losses: counts[1],
        longest: dtm_stats.longest_win.max(dtm_stats.longest_loss),
        seconds: start.elapsed().as_secs_f64(),
        solve_seconds,
        bytes: dtm_bytes + dtz_written.bytes,
        raw_bytes: 4 * IndexScheme::new(material).size(),
        dtz: Some(DtzSummary {
            longest_win: dtz_stats.longest_win,
            longest_loss: dtz_stats.longest_loss,
            seconds: dtz_solve_seconds + dtz_write.elapsed().as_secs_f64(),
            solve_seconds: dtz_solve_seconds,
            bytes: dtz_written.bytes,
        }),
        examples,
    };
    log::info!(
        "{}: built in {:.1} s (DTM solve {:.1} s, DTZ50 solve {:.1} s)",
        material.name(),
        summary.seconds,
        solve_seconds,
        dtz_solve_seconds
    );
    Ok(summary)
}

/// Sets in `dst` (bits of the whole table) the `len` bits of `src` (bits of a rank's share),
/// from bit `offset` on.
fn or_bits_at(dst: &mut [u64], src: &[u64], offset: u64, len: u64) {
    let (base, shift) = ((offset / 64) as usize, offset % 64);
    for (k, &w) in src.iter().enumerate() {
        let bits = len.saturating_sub(64 * k as u64);
        let w = if bits < 64 {
            w & ((1u64 << bits) - 1)
        } else {
            w
        };
        if w == 0 {
            continue;
        }
        if let Some(d) = dst.get_mut(base + k) {
            *d |= w << shift;
        }
        if shift > 0 {
            if let Some(d) = dst.get_mut(base + k + 1) {
                *d |= w >> (64 - shift);
            }
        }
    }
}

/// Whether both files of `material` are in `opts.out` and valid (and not to be rebuilt).
fn tables_present(opts: &BuildOptions, material: Material) -> bool {
    let present = |p: PathBuf, dtz: bool| {
        let t = if dtz {
            retro_tables::format::Table::open_dtz(&p, Some(material))
        } else {
            retro_tables::format::Table::open(&p, Some(material))
        };
        !opts.force && t.is_ok_and(|t| t.check_blocks().is_ok())
    };
    present(opts.out.join(Metric::Dtm.file_name(material)), false)
        && present(opts.out.join(Metric::Dtz.file_name(material)), true)
}

/// Concatenates, per side, the files `path(dir)` of the ranks' directories into `path(work)`
/// (written atomically).
fn concatenate(work: &Path, shares: &[Share], path: impl Fn(&Path) -> PathBuf) -> io::Result<()> {
    retro_tables::write_atomic(&path(work), |f| -> io::Result<()> {
        for share in shares {
            let mut part = fs::File::open(path(&share.work(work)))?;
            io::copy(&mut part, f)?;
        }
        Ok(())
    })
    .map(|_| ())
}

/// Puts the DTZ50 solves of `ranks` ranks in `work` together: each log of wins and losses the
/// ranks' one after another, the mark of a finished DTZ50 solve; then removes the ranks'
/// directories.
fn merge_dtz_ranks(work: &Path, material: Material, ranks: usize) -> io::Result<()> {
    let ix = IndexScheme::new(material);
    let shares: Vec<Share> = (0..ranks)
        .map(|r| Share::of(&ix, r, ranks))
        .collect::<Option<_>>()
        .ok_or_else(|| io::Error::other("more ranks than king placements"))?;
    for side in SIDES {
        for win in [true, false] {
            concatenate(work, &shares, |d| compact::dtz::log_path(d, win, side))?;
        }
    }
    write_atomic(&work.join(DTZ_DONE), b"done\n")?;
    for share in &shares {
        fs::remove_dir_all(share.work(work))?;
    }
    Ok(())
}

/// Puts the DTM solves of `ranks` ranks in `work` together into the one of the whole table:
/// the legal bits, the value logs one after another (each rank's holds its own entries), the
/// mark of a finished DTM solve; then removes the ranks' directories.
fn merge_ranks(work: &Path, material: Material, ranks: usize) -> io::Result<()> {
    let ix = IndexScheme::new(material);
    let words = ix.size().div_ceil(64) as usize;
    let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_string());
    let mut legal = ByColor::new_with(|_| vec![0u64; words]);
    let mut positions = ByColor::new_with(|_| 0u64);
    let mut depths = 0;
    let mut shares = Vec::with_capacity(ranks);
    for r in 0..ranks {
        let share = Share::of(&ix, r, ranks).ok_or_else(|| bad("more ranks than placements"))?;
        let c = load_dtm_of(&share.work(work), material, share.len())?
            .ok_or_else(|| bad("a rank's DTM solve is not finished"))?;
        for side in SIDES {
            or_bits_at(&mut legal[side], &c.legal[side], share.lo(), share.len());
            positions[side] += c.positions[side];
        }
        depths = depths.max(c.depths);
        shares.push(share);
    }
    for side in SIDES {
        concatenate(work, &shares, |d| value_log_path(d, side))?;
    }
    let whole = Compacted {
        material,
        positions,
        legal,
        logs: ByColor::new_with(|s| value_log_path(work, s)),
        depths,
    };
    save_dtm(work, &whole)?;
    for share in &shares {
        fs::remove_dir_all(share.work(work))?;
    }
    Ok(())
}

/// Builds a material without pawns with its DTM solve split over ranks by king placement
/// ([`compact::share`]): every rank calls this with the same options and its own `exchange`.
/// The ranks solve the DTM together, each its share; rank 0 puts their logs together and
/// builds the rest (the DTZ50 solve and both files) as `build-tables` does, and returns its
/// summary; the other ranks return `None`. A build stopped part way resumes from the ranks'
/// last common checkpoint, or from the finished DTM solve. Its sub-tables must be in
/// `opts.out` already.
///
/// # Errors
/// A material with pawns, a missing sub-table, a solve or exchange error, an I/O error.
pub fn build_split(
    material: Material,
    opts: &BuildOptions,
    exchange: &dyn Exchange,
) -> Result<Option<TableSummary>, BuildError> {
    let material = material.canonical();
    if material.has_pawns() {
        return Err(SolveError::Pawns(material.name()).into());
    }
    let ix = IndexScheme::new(material);
    let share = compact::share::share_of(exchange, &ix).map_err(|source| SolveError::Exchange {
        material: material.name(),
        source,
    })?;
    let work = work_dir(&opts.out, material);
    let exchange_error = |source| {
        BuildError::Solve(SolveError::Exchange {
            material: material.name(),
            source,
        })
    };
    let sum = |v: &mut [u64]| exchange.sum(v).map_err(exchange_error);
    // Rank 0 decides whether a phase is needed: not when both files are there, nor when the
    // phase's finished solve (its mark) waits in the work directory.
    let needed = |mark: &str| -> Result<bool, BuildError> {
        let mut skip = [0u64];
        if share.rank == 0 {
            skip[0] = u64::from(tables_present(opts, material) || work.join(mark).exists());
        }
        sum(&mut skip)?;
        Ok(skip[0] == 0)
    };
    // Whether every rank has finished its part of a phase.
    let all_done = |done: bool| -> Result<bool, BuildError> {
        let mut all = [u64::from(done)];
        sum(&mut all)?;
        Ok(all[0] == share.ranks as u64)
    };
    let policy = Policy {
        every: opts.checkpoint_every,
        stop_at: None,
    };
    if needed(DTM_DONE)? {
        let mine = share.work(&work);
        fs::create_dir_all(&mine).map_err(|e| work_error(&mine, e))?;
        let done = load_dtm_of(&mine, material, share.len())
            .map_err(|e| work_error(&mine, e))?
            .is_some();
        if !all_done(done)? {
            // The ranks solve together, from their last common checkpoint.
            let _ = fs::remove_file(mine.join(DTM_DONE));
            let sub = SubTables::open_for(&opts.out, material, Stage::InitBoth).map_err(|e| {
                SolveError::SubTable {
                    material: material.name(),
                    source: e.into(),
                }
            })?;
            let c = CompactSolver::split(material, &sub, &work, exchange)?
                .with_policy(policy)
                .solve(opts.progress.as_ref())?;
            save_dtm(&mine, &c).map_err(|e| work_error(&mine, e))?;
        }
        exchange.wait_all().map_err(exchange_error)?;
        if share.rank == 0 {
            merge_ranks(&work, material, share.ranks).map_err(|e| work_error(&work, e))?;
        }
        exchange.wait_all().map_err(exchange_error)?;
    }
    // The DTZ50 solve, split the same way, from the DTM solve's merged logs.
    if needed(DTZ_DONE)? {
        let mine = share.work(&work);
        let dtz_error = |e: io::Error| BuildError::Dtz(DtzError::Work(mine.clone(), e));
        fs::create_dir_all(&mine).map_err(dtz_error)?;
        if !all_done(mine.join(DTZ_DONE).exists())? {
            let _ = fs::remove_file(mine.join(DTZ_DONE));
            let sub = Wdl50Tables::open_for(&opts.out, material)?;
            let dtm_logs = ByColor::new_with(|s| value_log_path(&work, s));
            CompactDtz::split(material, &dtm_logs, &sub, &work, exchange)?
                .with_policy(policy)
                .solve(opts.progress.as_ref())?;
            write_atomic(&mine.join(DTZ_DONE), b"done\n").map_err(dtz_error)?;
        }
        exchange.wait_all().map_err(exchange_error)?;
        if share.rank == 0 {
            merge_dtz_ranks(&work, material, share.ranks)
                .map_err(|e| BuildError::Dtz(DtzError::Work(work.clone(), e)))?;
        }
        exchange.wait_all().map_err(exchange_error)?;
    }
    if share.rank != 0 {
        return Ok(None);
    }
    let opts = BuildOptions {
        compact: true,
        ..opts.clone()
    };
    crate::build_one(material, &opts).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact::share::Threads;

    #[test]
    fn bits_land_at_their_offset() {
        for (offset, len) in [(0u64, 130u64), (5, 64), (64, 1), (63, 70), (100, 200)] {
            let src: Vec<u64> = (0..len.div_ceil(64))
                .map(|k| !0u64 ^ (k * 0x9E37))
                .collect();
            let mut dst = vec![0u64; (offset + len).div_ceil(64) as usize + 1];
            or_bits_at(&mut dst, &src, offset, len);
            for i in 0..64 * dst.len() as u64 {
                let want = i >= offset
                    && i < offset + len
                    && src[((i - offset) / 64) as usize] >> ((i - offset) % 64) & 1 == 1;
                assert_eq!(dst[(i / 64) as usize] >> (i % 64) & 1 == 1, want, "bit {i}");
            }
        }
    }

    /// The build of a material split over 1, 2 and 3 ranks (threads here, processes under
    /// MPI) writes the files of the compact build, byte for byte, and leaves no work behind.
    #[test]
    fn a_split_build_writes_the_files_of_the_compact_build() {
        let m: Material = "KQvKR".parse().expect("material");
        let reference = tempfile::tempdir().expect("dir");
        let opts = BuildOptions {
            compact: true,
            ..BuildOptions::quiet(reference.path().to_path_buf())
        };
        crate::build(&[m], &opts, |_| {}).expect("reference build");
        let names = [Metric::Dtm.file_name(m), Metric::Dtz.file_name(m)];
        for ranks in [1, 2, 3] {
            let dir = tempfile::tempdir().expect("dir");
            for f in fs::read_dir(reference.path()).expect("listing").flatten() {
                let name = f.file_name().to_string_lossy().into_owned();
                if !names.contains(&name) {
                    fs::copy(f.path(), dir.path().join(&name)).expect("copy");
                }
            }
            let opts = BuildOptions::quiet(dir.path().to_path_buf());
            let group = Threads::group(ranks);
            let results: Vec<bool> = crate::compact::share::on_ranks(&group, |x| {
                build_split(m, &opts, x).expect("split build").is_some()
            });
            assert_eq!(results.iter().filter(|&&r| r).count(), 1, "one summary");
            assert!(results[0], "rank 0 writes the tables");
            let received: u64 = group.iter().map(Threads::received).sum();
            assert_eq!(
                received > 0,
                ranks > 1,
                "{received} sent between {ranks} ranks"
            );
            for name in &names {
                let want = fs::read(reference.path().join(name)).expect("reference file");
                let got = fs::read(dir.path().join(name)).expect("split file");
                assert!(want == got, "{name} with {ranks} ranks differs");
            }
            assert!(!work_dir(dir.path(), m).exists(), "work left");
        }
    }
}

/// What the build summary calls its deepest example of `plies`: a mate's length (DTM, odd for
/// a win) or a win's DTZ50 (`dtz`), a cursed win beyond the rule's plies (a draw under it).
fn example_kind(dtz: bool, plies: u32) -> &'static str {
    if dtz && plies > retro_tables::RULE_PLIES {
        "cursed win"
    } else if dtz || plies % 2 == 1 {
        "win"
    } else {
        "loss"
    }
}

#[cfg(test)]
mod example_tests {
    use super::example_kind;

    /// KRRvKRB's and KRRvKRN's deepest DTZ50 wins (107 and 145 plies) are cursed; KQRvKRR's
    /// longest mate (112 plies) is a loss.
    #[test]
    fn a_dtz50_beyond_the_rule_is_a_cursed_win() {
        assert_eq!(example_kind(true, 107), "cursed win");
        assert_eq!(example_kind(true, 100), "win");
        assert_eq!(example_kind(true, 67), "win");
        assert_eq!(example_kind(false, 133), "win");
        assert_eq!(example_kind(false, 112), "loss");
    }
}
