//! `build-tables --verify` of a DTZ50 table too large for the general check (6 pieces): every
//! position against its children by Syzygy's rules (as [`crate::verify::dtz_from_children`]),
//! with one side to move's values in memory (2 bytes an entry) and the other side read block by
//! block.
//!
//! A DTZ50 file holds a loss's class only; its distance is one more than the longest of its
//! moves into wins. So the check runs in three passes, each holding one side's values:
//! 1. white's wins in memory; each of black's losses is recomputed from its moves (its class
//!    checked) and its distance written to a work file;
//! 2. black's values in memory (wins from the table, losses from that file); every white
//!    position is checked, and white's loss distances written out the same way;
//! 3. white's values in memory; black's wins and draws are checked.
//!
//! A loss is kept as the depth its parents see: its DTZ, less one where its best move zeroes
//! (Syzygy's convention; mate counts as zeroing). A table loss that its moves do not make a
//! loss counts as a mismatch and is kept as a loss at depth 0, so that the mismatches past it
//! may count differently from the general check's; a correct table gives 0 either way.
//!
//! The loss distances and where the check has got to are kept in `DIR/.MATERIAL.verify` after
//! each batch of blocks: run again after a stop, the check goes on from there.

use std::{
    fs,
    io::{BufWriter, Write},
    os::unix::fs::FileExt,
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicU16, AtomicU64, Ordering::Relaxed},
        Mutex,
    },
};

use rayon::prelude::*;
use shakmaty::{Color, Role};

use super::{
    resume::{ProgressFile, Reached},
    verify::{finish_work, for_each_move, read_planes, report_of, verify_work, CheckError, Step},
    EtaLog,
};
use crate::{
    dtz::Wdl50Tables,
    kernel::{
        exits::{exit_plans, plan_slot, ExitPlan},
        king_slot,
        memory::{Atomics, Pages},
        moves::{legal_targets, LegalTargets},
        SIDES,
    },
    metric::{Dtz50Moves, Recomputed},
    progress::Progress,
    verify::{entry_position, VerifyReport},
};
use retro_tables::{
    format::{Metric, Table},
    index::{IndexScheme, Squares},
    pieces::attacked,
    Dtz, Material, Value, Wdl,
};

/// The name of this check's progress file.
const CHECK: &str = "dtz";
/// Marks a loss in the in-memory values (the rest of the code is its depth as parents see it).
const LOSS_BIT: u16 = 0x8000;
/// Marks a win whose DTZ is not read yet (while a side is loaded).
const WIN_MARK: u16 = 1;
/// The class of a loss beyond the rule (a blessed loss) in the file starts above this.
const RULE: u16 = retro_tables::RULE_PLIES as u16;

/// What a pass checks of the side it reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Only the losses (their distances written out).
    Losses,
    /// Everything (losses' distances written out).
    All,
    /// The wins and draws (the losses were checked before).
    NotLosses,
}

/// The code a loss is kept as: its depth for the parents.
fn loss_code(r: Recomputed) -> u16 {
    LOSS_BIT | r.loss_depth()
}

/// The tables and what the recomputation needs.
struct Check<'a> {
    ix: &'a IndexScheme,
    slots: &'a [(Color, Role)],
    plans: &'a [Option<ExitPlan>],
    sub: &'a Wdl50Tables,
    /// The other side to move's values: 0 a draw, a win's DTZ, or [`LOSS_BIT`] with a loss's
    /// depth.
    other: &'a [AtomicU16],
}

impl Check<'_> {
    /// The value of the legal position `sq` (`idx`) with `side` to move from its children;
    /// `None` where a child cannot be valued.
    fn recompute(
        &self,
        sq: &Squares,
        idx: u64,
        side: Color,
        lt: &LegalTargets,
    ) -> Option<Recomputed> {
        let mut moves = Dtz50Moves::default();
        for_each_move(self.ix, self.slots.len(), sq, idx, lt, |step| {
            match step {
                Step::Capture(after, j) => {
                    let Some(Some(plan)) = self.plans.get(plan_slot(j, None)) else {
                        return None;
                    };
                    moves.zeroing(self.sub.class(plan, after, side.other()).ok()?);
                }
                Step::Quiet(child) => match self.other.get(child as usize)?.load(Relaxed) {
                    0 => moves.quiet_to_draw(),
                    c if c & LOSS_BIT != 0 => moves.quiet_to_loss(c & !LOSS_BIT),
                    w => moves.quiet_to_win(w),
                },
            }
            Some(())
        })?;
        moves.value(|| {
            let king = sq[king_slot(side)];
            attacked(self.slots, sq, king, side.other(), lt.occ, usize::MAX)
        })
    }
}

/// One side's wins and losses by the DTM table, as bitmaps.
struct Classes {
    wins: Atomics<AtomicU64>,
    losses: Atomics<AtomicU64>,
}

impl Classes {
    fn of(&self, idx: u64) -> Wdl {
        let (w, b) = ((idx / 64) as usize, 1u64 << (idx % 64));
        let has = |bits: &Atomics<AtomicU64>| bits.get(w).is_some_and(|x| x.load(Relaxed) & b != 0);
        if has(&self.wins) {
            Wdl::Win
        } else if has(&self.losses) {
            Wdl::Loss
        } else {
            Wdl::Draw
        }
    }
}

/// Calls `f(idx, class)` for every entry of the DTM table with `side` to move, in parallel.
fn for_each_class(dtm: &Table, side: Color, f: impl Fn(u64, Wdl) + Sync) -> Result<(), CheckError> {
    let (blocks, block_len) = dtm.blocks().ok_or(CheckError::NotCompressed)?;
    (0..blocks)
        .into_par_iter()
        .try_for_each_init(Vec::new, |first, b| -> Result<(), CheckError> {
            dtm.read_block(side, 0, b, first)?;
            for (k, &byte) in first.iter().enumerate() {
                f(
                    dtm.index_at(side, b * u64::from(block_len) + k as u64),
                    Value::from_byte(byte).wdl(),
                );
            }
            Ok(())
        })
}

/// The loss depths a pass wrote for one side: a file of `u16`s in the DTZ table's order, and
/// where each block's start.
struct LossFile {
    path: PathBuf,
    /// Per block, the number of losses before it (and the total at the end).
    starts: Vec<u64>,
}

impl LossFile {
    /// The files of `side`'s losses (named by the side's number, `king_slot`: 0 white, 1
    /// black).
    fn paths(work: &Path, side: Color) -> (PathBuf, PathBuf) {
        let k = king_slot(side);
        (
            work.join(format!("losses-{k}.bin")),
            work.join(format!("starts-{k}.bin")),
        )
    }

    /// The file a finished pass wrote for `side` (`blocks` blocks).
    fn read(work: &Path, side: Color, blocks: u64) -> Result<LossFile, CheckError> {
        let (path, starts_path) = LossFile::paths(work, side);
        let bytes = fs::read(&starts_path)?;
        let mut starts = vec![0u64];
        starts.extend(
            bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])),
        );
        let len = fs::metadata(&path)?.len();
        let whole = starts.len() as u64 == blocks + 1
            && starts.windows(2).all(|w| w[0] <= w[1])
            && starts.last().and_then(|&n| n.checked_mul(2)) == Some(len);
        if !whole {
            return Err(CheckError::PartialLosses(path));
        }
        Ok(LossFile { path, starts })
    }
}

/// Opens a work file for appending, cut to `len` bytes (what the last saved batch left; a file
/// shorter than that is an error, not to be filled with zeros).
fn append_at(path: &Path, len: u64) -> Result<BufWriter<fs::File>, CheckError> {
    let f = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    let have = f.metadata()?.len();
    if have < len {
        return Err(CheckError::ShortWork {
            path: path.to_path_buf(),
            have,
            need: len,
        });
    }
    f.set_len(len)?;
    Ok(BufWriter::new(f))
}

/// Flushes a work file to the disk.
fn sync(w: &mut BufWriter<fs::File>) -> Result<(), CheckError> {
    w.flush()?;
    Ok(w.get_ref().sync_all()?)
}

/// The tables of the check and its work directory.
struct Verifier<'a> {
    dtm: &'a Table,
    dtz: &'a Table,
    ix: IndexScheme,
    slots: Vec<(Color, Role)>,
    plans: Vec<Option<ExitPlan>>,
    sub: Wdl50Tables,
    work: PathBuf,
    progress: ProgressFile,
    /// Batches run so far, and after how many to stop (to test resuming).
    batches: AtomicU64,
    stop_after: Option<u64>,
    checked: AtomicU64,
    mismatches: AtomicU64,
    examples: Mutex<Vec<(String, String, String)>>,
}

impl Verifier<'_> {
    /// One side's values (see [`Check::other`]); losses from `losses`, or [`LOSS_BIT`] alone
    /// without it.
    fn load(
        &self,
        side: Color,
        losses: Option<&LossFile>,
    ) -> Result<Atomics<AtomicU16>, CheckError> {
        let n = self.ix.size() as usize;
        let out = Atomics::<AtomicU16>::zeroed(n, Pages::Huge);
        for_each_class(self.dtm, side, |idx, c| {
            if let Some(o) = out.get(idx as usize) {
                o.store(
                    match c {
                        Wdl::Win => WIN_MARK,
                        Wdl::Loss => LOSS_BIT,
                        Wdl::Draw => 0,
                    },
                    Relaxed,
                );
            }
        })?;
        let file = match losses {
            Some(l) => Some(fs::File::open(&l.path)?),
            None => None,
        };
        let (blocks, block_len) = self.dtz.blocks().ok_or(CheckError::NotCompressed)?;
        (0..blocks).into_par_iter().try_for_each_init(
            || (Vec::new(), Vec::new(), Vec::new()),
            |(first, ext, depths), b| -> Result<(), CheckError> {
                read_planes(self.dtz, side, b, first, ext)?;
                depths.clear();
                if let (Some(f), Some(l)) = (&file, losses) {
                    let (s, e) = (l.starts[b as usize], l.starts[b as usize + 1]);
                    let mut bytes = vec![0u8; 2 * (e - s) as usize];
                    f.read_exact_at(&mut bytes, 2 * s)?;
                    depths.extend(
                        bytes
                            .chunks_exact(2)
                            .map(|c| u16::from_le_bytes([c[0], c[1]])),
                    );
                }
                let mut next = depths.iter();
                for (k, &f) in first.iter().enumerate() {
                    let idx = self.dtz.index_at(side, b * u64::from(block_len) + k as u64);
                    let Some(o) = out.get(idx as usize) else {
                        continue;
                    };
                    match o.load(Relaxed) {
                        WIN_MARK => o.store(
                            Dtz::stored_from_planes(f, ext.get(k).copied().unwrap_or(0)),
                            Relaxed,
                        ),
                        LOSS_BIT if losses.is_some() => {
                            let d = next.next().ok_or(CheckError::LossCount(b))?;
                            o.store(*d, Relaxed);
                        }
                        _ => {}
                    }
                }
                if next.next().is_some() {
                    return Err(CheckError::LossCount(b));
                }
                Ok(())
            },
        )?;
        Ok(out)
    }

    /// The classes with `side` to move by the DTM table.
    fn classes(&self, side: Color) -> Result<Classes, CheckError> {
        let words = self.ix.size().div_ceil(64) as usize;
        let c = Classes {
            wins: Atomics::zeroed(words, Pages::Huge),
            losses: Atomics::zeroed(words, Pages::Huge),
        };
        for_each_class(self.dtm, side, |idx, wdl| {
            let (w, b) = ((idx / 64) as usize, 1u64 << (idx % 64));
            let bits = match wdl {
                Wdl::Win => &c.wins,
                Wdl::Loss => &c.losses,
                Wdl::Draw => return,
            };
            if let Some(x) = bits.get(w) {
                x.fetch_or(b, Relaxed);
            }
        })?;
        Ok(c)
    }

    fn note(&self, sq: &Squares, side: Color, stored: String, expected: Option<Recomputed>) {
        self.mismatches.fetch_add(1, Relaxed);
        if let (Ok(mut g), Some(p)) = (self.examples.lock(), entry_position(&self.slots, sq, side))
        {
            if g.len() < 5 {
                let fen = shakmaty::fen::Fen::from_position(&p, shakmaty::EnPassantMode::Legal);
                let e = expected.map_or("no value".to_string(), |r| r.dtz.to_string());
                g.push((fen.to_string(), stored, e));
            }
        }
    }

    /// Reads the entries with `side` to move block by block against `other` (the other side's values),
    /// checking what `pass` (stage `stage`) says from block `from` on (`written` losses
    /// written before it); returns the losses' depths written out when it checks them.
    #[allow(clippy::too_many_arguments)]
    fn pass(
        &self,
        side: Color,
        other: &[AtomicU16],
        pass: Pass,
        (stage, from, written): (u64, u64, u64),
        eta: &mut EtaLog,
        bar: &dyn Progress,
    ) -> Result<Option<LossFile>, CheckError> {
        let classes = self.classes(side)?;
        let check = Check {
            ix: &self.ix,
            slots: &self.slots,
            plans: &self.plans,
            sub: &self.sub,
            other,
        };
        let (blocks, block_len) = self.dtz.blocks().ok_or(CheckError::NotCompressed)?;
        let (path, starts_path) = LossFile::paths(&self.work, side);
        let mut writers = if pass == Pass::NotLosses {
            None
        } else {
            Some((
                append_at(&path, 2 * written)?,
                append_at(&starts_path, 8 * from)?,
            ))
        };
        let mut total = written;
        let batch = (blocks / 100).max(1);
        let mut b0 = from;
        while b0 < blocks {
            if self
                .stop_after
                .is_some_and(|s| self.batches.load(Relaxed) >= s)
            {
                return Err(CheckError::Stopped);
            }
            let b1 = (b0 + batch).min(blocks);
            let parts: Vec<Vec<u16>> = (b0..b1)
                .into_par_iter()
                .map_init(
                    || (Vec::new(), Vec::new(), LegalTargets::new()),
                    |(first, ext, lt), b| {
                        self.block(
                            side,
                            b,
                            block_len,
                            &check,
                            &classes,
                            pass,
                            (first, ext, lt),
                            bar,
                        )
                    },
                )
                .collect::<Result<_, CheckError>>()?;
            if let Some((w, st)) = writers.as_mut() {
                for part in parts {
                    total += part.len() as u64;
                    st.write_all(&total.to_le_bytes())?;
                    for d in part {
                        w.write_all(&d.to_le_bytes())?;
                    }
                }
                sync(w)?;
                sync(st)?;
            }
            b0 = b1;
            self.batches.fetch_add(1, Relaxed);
            eta.update(stage * blocks + b0);
            let (stage, next) = if b0 == blocks {
                (stage + 1, 0)
            } else {
                (stage, b0)
            };
            let saved = Reached {
                stage,
                next,
                checked: self.checked.load(Relaxed),
                mismatches: self.mismatches.load(Relaxed),
                extra: if next == 0 { 0 } else { total },
                examples: self.examples.lock().map(|g| g.clone()).unwrap_or_default(),
            };
            self.progress.save(&saved)?;
        }
        match writers {
            Some(_) => LossFile::read(&self.work, side, blocks).map(Some),
            None => Ok(None),
        }
    }

    /// Checks block `b` of one side (see [`Verifier::pass`]); the depths of its losses when
    /// the pass checks them.
    #[allow(clippy::too_many_arguments)]
    fn block(
        &self,
        side: Color,
        b: u64,
        block_len: u32,
        check: &Check,
        classes: &Classes,
        pass: Pass,
        (first, ext, lt): (&mut Vec<u8>, &mut Vec<u8>, &mut LegalTargets),
        bar: &dyn Progress,
    ) -> Result<Vec<u16>, CheckError> {
        read_planes(self.dtz, side, b, first, ext)?;
        let mut depths = Vec::new();
        let mut n = 0u64;
        for (k, &f) in first.iter().enumerate() {
            let idx = self.dtz.index_at(side, b * u64::from(block_len) + k as u64);
            let class = classes.of(idx);
            let stored = Dtz::stored_from_planes(f, ext.get(k).copied().unwrap_or(0));
            let checks = match class {
                Wdl::Loss => pass != Pass::NotLosses,
                _ => pass != Pass::Losses,
            };
            let sq = self.ix.decode(idx);
            let legal =
                sq.is_some_and(|sq| legal_targets(&self.slots, &sq, self.slots.len(), side, lt));
            let got = match sq.filter(|_| legal && checks) {
                Some(sq) => {
                    n += 1;
                    let got = check.recompute(&sq, idx, side, lt);
                    if !agrees(class, stored, got) {
                        self.note(&sq, side, shown(class, stored), got);
                    }
                    got
                }
                None => None,
            };
            if class == Wdl::Loss && pass != Pass::NotLosses {
                depths.push(got.filter(|r| r.dtz.0 < 0).map_or(LOSS_BIT, loss_code));
            }
        }
        self.checked.fetch_add(n, Relaxed);
        bar.advance(1);
        Ok(depths)
    }
}

/// A stored number of class `c` as the value it stands for (a loss as its class).
fn shown(c: Wdl, stored: u16) -> String {
    let d = i16::try_from(stored).unwrap_or(i16::MAX);
    match c {
        Wdl::Win => Dtz(d).to_string(),
        Wdl::Loss => Dtz(-d).to_string(),
        Wdl::Draw => Dtz::DRAW.to_string(),
    }
}

/// Whether a stored number of class `class` agrees with the value recomputed from the
/// children: a win's DTZ exactly, a loss's class (within the rule or beyond it), a draw.
fn agrees(class: Wdl, stored: u16, got: Option<Recomputed>) -> bool {
    let Some(r) = got else {
        return false;
    };
    match class {
        Wdl::Win => r.dtz.0 > 0 && r.dtz.0.unsigned_abs() == stored,
        Wdl::Loss => {
            r.dtz.0 < 0 && stored != 0 && (r.dtz.0.unsigned_abs() > RULE) == (stored > RULE)
        }
        Wdl::Draw => r.dtz.0 == 0,
    }
}

/// Verifies the DTZ50 table of `material` in `dir` (with its DTM table; see the module docs).
pub fn verify_compact_dtz(dir: &Path, material: Material, progress: &dyn Progress) -> VerifyReport {
    report_of(dir, material, verify_passes(dir, material, progress, None))
}

/// [`verify_compact_dtz`], stopping with an error after `stop_after` batches (to test
/// resuming).
pub(crate) fn verify_passes(
    dir: &Path,
    material: Material,
    progress: &dyn Progress,
    stop_after: Option<u64>,
) -> Result<VerifyReport, CheckError> {
    let paths = [Metric::Dtm, Metric::Dtz].map(|m| dir.join(m.file_name(material)));
    let open = |path: &Path| Table::open_any(path, Some(material));
    let (dtm, dtz) = (open(&paths[0])?, open(&paths[1])?);
    if dtm.scheme().size() != dtz.scheme().size() {
        return Err(CheckError::DifferentIndex);
    }
    let work = verify_work(dir, material);
    fs::create_dir_all(&work)?;
    let file = ProgressFile::new(&work, CHECK, &[&paths[0], &paths[1]])?;
    let mut at = file.load().unwrap_or_default();
    if at.stage > 0 || at.next > 0 {
        log::info!(
            "{}: the DTZ50 check goes on from pass {}, block {} ({} positions checked before)",
            material.name(),
            at.stage + 1,
            at.next,
            at.checked
        );
    }
    let ix = dtz.scheme().clone();
    let slots = ix.slots().to_vec();
    let v = Verifier {
        dtm: &dtm,
        dtz: &dtz,
        plans: exit_plans(&slots),
        sub: Wdl50Tables::open_for(dir, material)?,
        ix,
        slots,
        work: work.clone(),
        progress: file,
        batches: AtomicU64::new(0),
        stop_after,
        checked: AtomicU64::new(at.checked),
        mismatches: AtomicU64::new(at.mismatches),
        examples: Mutex::new(std::mem::take(&mut at.examples)),
    };
    let (blocks, _) = dtz.blocks().ok_or(CheckError::NotCompressed)?;
    let bar = progress;
    let before = at.stage * blocks + at.next;
    bar.begin(&material.name(), "verify DTZ50", Some(3 * blocks));
    bar.at(before, "");
    let mut eta =
        EtaLog::new(format!("{} verify DTZ50", material.name()), 3 * blocks).resumed(before);
    // Pass `p` starts at `at`'s block when it is the pass the check stopped in.
    let start = |p: u64| {
        if p == at.stage {
            (p, at.next, at.extra)
        } else {
            (p, 0, 0)
        }
    };
    let (white, black) = (Color::White, Color::Black);
    if at.stage == 0 {
        let white_wins = v.load(white, None)?;
        v.pass(black, &white_wins, Pass::Losses, start(0), &mut eta, bar)?;
    }
    if at.stage <= 1 {
        let black_values = v.load(black, Some(&LossFile::read(&work, black, blocks)?))?;
        v.pass(white, &black_values, Pass::All, start(1), &mut eta, bar)?;
    }
    if at.stage <= 2 {
        let white_values = v.load(white, Some(&LossFile::read(&work, white, blocks)?))?;
        v.pass(
            black,
            &white_values,
            Pass::NotLosses,
            start(2),
            &mut eta,
            bar,
        )?;
    }
    bar.end();
    for side in SIDES {
        let (a, b) = LossFile::paths(&work, side);
        let _ = (fs::remove_file(a), fs::remove_file(b));
    }
    finish_work(&work, CHECK);
    Ok(VerifyReport {
        material,
        checked: v.checked.into_inner(),
        mismatches: v.mismatches.into_inner(),
        examples: v.examples.into_inner().unwrap_or_default(),
        error: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loss(d: i16, zeroes: bool) -> Option<Recomputed> {
        Some(Recomputed {
            dtz: Dtz(d),
            zeroes,
        })
    }

    /// Both 6-piece checks, stopped after a number of batches and run again, report what one
    /// run does, and leave no work files.
    #[test]
    fn a_stopped_check_goes_on_where_it_stopped() {
        let m: Material = "KQvKR".parse().expect("material");
        let dir = tempfile::tempdir().expect("dir");
        // The compact build writes compressed blocks, as the 6-piece build does.
        let opts = crate::BuildOptions {
            compact: true,
            ..crate::BuildOptions::quiet(dir.path().to_path_buf())
        };
        crate::build(&[m], &opts, |_| {}).expect("built");
        let whole = verify_passes(dir.path(), m, &crate::Silent, None).expect("checked");
        assert!(whole.checked > 1_000_000, "{}", whole.checked);
        assert_eq!(whole.mismatches, 0);
        let general = crate::verify::verify_dtz(dir.path(), m, &crate::Silent);
        assert_eq!(general.checked, whole.checked);
        let (blocks, _) = Table::open_any(&dir.path().join(Metric::Dtz.file_name(m)), Some(m))
            .expect("table")
            .blocks()
            .expect("blocks");
        let batches = blocks.min(100);
        for stop in [1, batches + 3, 2 * batches + batches / 2] {
            assert!(verify_passes(dir.path(), m, &crate::Silent, Some(stop)).is_err());
            assert!(verify_work(dir.path(), m).join("dtz.progress").exists());
            let again = verify_passes(dir.path(), m, &crate::Silent, None).expect("checked");
            assert_eq!(
                (again.checked, again.mismatches),
                (whole.checked, 0),
                "stop {stop}"
            );
            assert!(!verify_work(dir.path(), m).exists(), "stop {stop}");
        }
        let dtm =
            super::super::verify::verify_sides(dir.path(), m, &crate::Silent, None).expect("dtm");
        for stop in [1, batches + 2] {
            let stopped =
                super::super::verify::verify_sides(dir.path(), m, &crate::Silent, Some(stop));
            assert!(stopped.is_err());
            let again = super::super::verify::verify_sides(dir.path(), m, &crate::Silent, None)
                .expect("dtm");
            assert_eq!(
                (again.checked, again.mismatches),
                (dtm.checked, 0),
                "stop {stop}"
            );
        }
    }

    #[test]
    fn a_loss_is_kept_as_the_depth_its_parents_see() {
        assert_eq!(loss(-1, true).map(loss_code), Some(LOSS_BIT));
        assert_eq!(loss(-7, false).map(loss_code), Some(LOSS_BIT | 7));
        assert_eq!(loss(-101, true).map(loss_code), Some(LOSS_BIT | 100));
    }

    #[test]
    fn classes_and_numbers_agree_as_the_file_keeps_them() {
        assert!(agrees(Wdl::Win, 12, loss(12, false)));
        assert!(!agrees(Wdl::Win, 12, loss(13, false)));
        assert!(!agrees(Wdl::Win, 12, None));
        assert!(agrees(Wdl::Loss, 1, loss(-57, false)));
        assert!(!agrees(Wdl::Loss, 101, loss(-57, false)));
        assert!(agrees(Wdl::Loss, 101, loss(-130, false)));
        assert!(!agrees(Wdl::Loss, 0, loss(-3, false)));
        assert!(agrees(Wdl::Draw, 0, loss(0, false)));
        assert!(!agrees(Wdl::Draw, 0, loss(-3, false)));
    }
}
