//! `build-tables --verify` for tables too large for the general check (6 pieces): every position
//! of the DTM table against its children, one side to move at a time, with the other side's
//! values in memory (2 bytes an entry) and this side's read block by block from the file.
//!
//! A position's value must be the best, for the side to move, of its moves' values (a capture's
//! from the sub-table, a quiet move's from the other side's values, each one ply further), or
//! mated (in check without a move) or a draw (stalemate).
//!
//! The check keeps where it has got to in `DIR/.MATERIAL.verify` after each batch of blocks (a
//! hundredth of a side): run again after a stop, it goes on from there.

use std::{
    fs,
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicU16, AtomicU64, Ordering::Relaxed},
        Mutex,
    },
};

use rayon::prelude::*;
use shakmaty::{Color, Role};

use super::{
    capture_value,
    resume::{ProgressFile, Reached},
    EtaLog,
};
use crate::{
    kernel::{
        exits::{exit_plans, ExitPlan},
        king_slot,
        memory::{Atomics, Pages},
        moves::{legal_targets, LegalTargets},
        Stage, SIDES,
    },
    metric::{Dtm, DtmMoves},
    progress::Progress,
    verify::{entry_position, VerifyReport},
    SubTables,
};
use retro_tables::{
    format::{file_name, Table},
    index::{IndexScheme, Squares},
    pieces::attacked,
    Material, Value,
};

/// The name of this check's progress file.
const CHECK: &str = "dtm";

/// What one side's check needs.
struct Check<'a> {
    ix: &'a IndexScheme,
    slots: &'a [(Color, Role)],
    plans: &'a [Option<ExitPlan>],
    sub: &'a SubTables,
    /// The values of the other side to move, as [`Value::code`]s, index order.
    other: &'a [AtomicU16],
}

impl Check<'_> {
    /// The value of entry `sq` (`idx`) with `side` to move recomputed from its children
    /// (`None` where a child cannot be valued); `None` for no legal position.
    fn expected(
        &self,
        sq: &Squares,
        idx: u64,
        side: Color,
        lt: &mut LegalTargets,
    ) -> Option<Option<Value>> {
        let n = self.slots.len();
        if !legal_targets(self.slots, sq, n, side, lt) {
            return None;
        }
        Some(self.value_from_children(sq, idx, side, lt))
    }

    /// [`Check::expected`] of a legal position.
    fn value_from_children(
        &self,
        sq: &Squares,
        idx: u64,
        side: Color,
        lt: &LegalTargets,
    ) -> Option<Value> {
        let mut moves = DtmMoves::default();
        for_each_move(self.ix, self.slots.len(), sq, idx, lt, |step| {
            match step {
                // A capture that cannot be valued counts as no value at all: a mismatch.
                Step::Capture(after, j) => {
                    moves.add_own(
                        capture_value::<Dtm, _>(self.plans, self.sub, after, j, side).ok()?,
                    );
                }
                Step::Quiet(child) => {
                    let code = self.other.get(child as usize)?.load(Relaxed);
                    moves.add(Value::from_code(code)?)?;
                }
            }
            Some(())
        })?;
        Some(moves.value(|| {
            attacked(
                self.slots,
                sq,
                sq[king_slot(side)],
                side.other(),
                lt.occ,
                usize::MAX,
            )
        }))
    }
}

/// A move of a position in a check: a capture (the squares after it, the captured slot) or a
/// quiet move (the child's entry on the other side to move).
pub(super) enum Step<'a> {
    Capture(&'a Squares, usize),
    Quiet(u64),
}

/// Calls `f` for every move of the legal position `sq` (entry `idx`, its moves in `lt`, `n`
/// pieces), in the order of the slots; `None` as soon as `f` gives it, or where a move's child
/// has no entry.
pub(super) fn for_each_move(
    ix: &IndexScheme,
    n: usize,
    sq: &Squares,
    idx: u64,
    lt: &LegalTargets,
    mut f: impl FnMut(Step) -> Option<()>,
) -> Option<()> {
    for i in 0..n {
        let mut targets = lt.targets[i];
        while targets != 0 {
            let to = targets.trailing_zeros() as u8;
            targets &= targets - 1;
            let mut after = *sq;
            after[i] = to;
            if lt.occ & (1u64 << to) != 0 {
                let j = (2..n).find(|&j| sq[j] == to)?;
                f(Step::Capture(&after, j))?;
                continue;
            }
            let child = ix.moved(idx, sq, i, to).or_else(|| ix.index(&after))?;
            f(Step::Quiet(child))?;
        }
    }
    Some(())
}

/// Block `b` of `table` with `side` to move: its first bytes into `first`, its extension bytes
/// (when the table has them; else none) into `ext`.
pub(super) fn read_planes(
    table: &Table,
    side: Color,
    b: u64,
    first: &mut Vec<u8>,
    ext: &mut Vec<u8>,
) -> Result<(), CheckError> {
    table.read_block(side, 0, b, first)?;
    ext.clear();
    if table.planes() > 1 {
        table.read_block(side, 1, b, ext)?;
    }
    Ok(())
}

/// The values of `table` with `side` to move, index order, as codes.
fn side_codes(table: &Table, side: Color) -> Result<Atomics<AtomicU16>, CheckError> {
    let n = table.scheme().size();
    let out = Atomics::<AtomicU16>::zeroed(n as usize, Pages::Huge);
    let (blocks, block_len) = table.blocks().ok_or(CheckError::NotCompressed)?;
    (0..blocks).into_par_iter().try_for_each_init(
        || (Vec::new(), Vec::new()),
        |(first, ext), b| -> Result<(), CheckError> {
            read_planes(table, side, b, first, ext)?;
            for (k, &f) in first.iter().enumerate() {
                let pos = b * u64::from(block_len) + k as u64;
                let v = Value::from_planes(f, ext.get(k).copied().unwrap_or(0));
                if let Some(o) = out.get(table.index_at(side, pos) as usize) {
                    o.store(v.code(), Relaxed);
                }
            }
            Ok(())
        },
    )?;
    Ok(out)
}

/// What a check has found so far: positions checked, mismatches, the first five examples.
pub(crate) struct Tally {
    checked: AtomicU64,
    mismatches: AtomicU64,
    examples: Mutex<Vec<(String, String, String)>>,
}

impl Tally {
    /// The tally saved in `at` (its examples taken).
    pub(crate) fn resumed(at: &mut Reached) -> Tally {
        Tally {
            checked: AtomicU64::new(at.checked),
            mismatches: AtomicU64::new(at.mismatches),
            examples: Mutex::new(std::mem::take(&mut at.examples)),
        }
    }

    /// Counts `checked` positions, `bad` of them mismatches.
    pub(crate) fn add(&self, checked: u64, bad: u64) {
        self.checked.fetch_add(checked, Relaxed);
        self.mismatches.fetch_add(bad, Relaxed);
    }

    /// Keeps a mismatch of the position `sq` with `side` to move (the stored value, and the one
    /// its children give, `None` when a child could not be valued) among the first five.
    pub(crate) fn note(
        &self,
        slots: &[(Color, Role)],
        sq: &Squares,
        side: Color,
        stored: Value,
        expect: Option<Value>,
    ) {
        let e = expect.map_or("no value".to_string(), |v| v.to_string());
        self.note_text(slots, sq, side, stored.to_string(), e);
    }

    /// [`Tally::note`] with the stored and the recomputed value as text.
    pub(crate) fn note_text(
        &self,
        slots: &[(Color, Role)],
        sq: &Squares,
        side: Color,
        stored: String,
        expect: String,
    ) {
        if let (Ok(mut g), Some(p)) = (self.examples.lock(), entry_position(slots, sq, side)) {
            if g.len() < 5 {
                let fen = shakmaty::fen::Fen::from_position(&p, shakmaty::EnPassantMode::Legal);
                g.push((fen.to_string(), stored, expect));
            }
        }
    }

    /// The progress to save: the tally so far at `stage`, `next`.
    pub(crate) fn reached(&self, stage: u64, next: u64) -> Reached {
        Reached {
            stage,
            next,
            checked: self.checked.load(Relaxed),
            mismatches: self.mismatches.load(Relaxed),
            extra: 0,
            examples: self.examples.lock().map(|g| g.clone()).unwrap_or_default(),
        }
    }

    /// The report of a finished check of `material`.
    pub(crate) fn report(self, material: Material) -> VerifyReport {
        VerifyReport {
            material,
            checked: self.checked.into_inner(),
            mismatches: self.mismatches.into_inner(),
            examples: self.examples.into_inner().unwrap_or_default(),
            error: None,
        }
    }
}

/// Why a check of a compact table stopped before its end (mismatches are no error: they are
/// counted in the report).
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// A table could not be opened or read.
    #[error(transparent)]
    Table(#[from] retro_tables::TableError),
    /// The sub-tables' classes under the 50-move rule could not be read.
    #[error(transparent)]
    Dtz(#[from] crate::error::DtzError),
    /// A work file could not be written or read.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The table is stored raw: the compact checks read compressed blocks.
    #[error("not a compressed table")]
    NotCompressed,
    /// The DTM and DTZ50 tables of the material do not index the same positions.
    #[error("the DTM and DTZ50 tables index different positions")]
    DifferentIndex,
    /// A work file holding a pass's loss distances is not whole.
    #[error("{0}: not a whole pass's losses")]
    PartialLosses(PathBuf),
    /// A work file is shorter than the saved progress says.
    #[error("{}: {have} bytes, the saved progress needs {need} (delete {} to start over)", .path.display(), .path.parent().map_or(.path.as_path(), |p| p).display())]
    ShortWork {
        /// The work file.
        path: PathBuf,
        /// Its length.
        have: u64,
        /// The length the progress file needs.
        need: u64,
    },
    /// The loss distances of a block do not match its losses in the table.
    #[error("block {0}: the loss file holds a different number of losses than the table")]
    LossCount(u64),
    /// A value of a table stored raw could not be read.
    #[error(transparent)]
    Probe(#[from] retro_tables::ProbeError),
    /// The table's values take more than a byte: the check by structure reads tables of one
    /// byte an entry (as a build by structure writes them).
    #[error("values beyond a byte: the check by structure reads tables of one byte an entry")]
    WideValues,
    /// Stopped after the number of batches a test asked for.
    #[error("stopped")]
    Stopped,
}

/// The work directory of the checks of `material`'s tables in `dir` (their progress files and
/// the DTZ50 check's loss distances).
pub(crate) fn verify_work(dir: &Path, material: Material) -> PathBuf {
    dir.join(format!(".{}.verify", material.name()))
}

/// Removes the check's progress file `name` and the work directory if nothing else is left.
pub(crate) fn finish_work(work: &Path, name: &str) {
    let _ = fs::remove_file(work.join(format!("{name}.progress")));
    let _ = fs::remove_dir(work);
}

/// Verifies the DTM table of `material` in `dir` (see the module docs); examples of mismatches
/// as the general check gives them. A check stopped part way goes on from the last batch of
/// blocks it finished (its progress is kept in `dir/.MATERIAL.verify`).
pub fn verify_compact(dir: &Path, material: Material, progress: &dyn Progress) -> VerifyReport {
    report_of(dir, material, verify_sides(dir, material, progress, None))
}

/// The report of a 6-piece check of `material` in `dir` that ended with `r`: on an error, the
/// work directory goes only if it is empty (a stopped check's progress stays).
pub(crate) fn report_of(
    dir: &Path,
    material: Material,
    r: Result<VerifyReport, CheckError>,
) -> VerifyReport {
    r.unwrap_or_else(|e| {
        let _ = fs::remove_dir(verify_work(dir, material));
        VerifyReport::failed(material, e.to_string())
    })
}

/// [`verify_compact`], stopping with an error after `stop_after` batches (to test resuming).
pub(crate) fn verify_sides(
    dir: &Path,
    material: Material,
    progress: &dyn Progress,
    stop_after: Option<u64>,
) -> Result<VerifyReport, CheckError> {
    let path = dir.join(file_name(material));
    let table = Table::open(&path, Some(material))?;
    let sub = SubTables::open_for(dir, material, Stage::InitBoth)?;
    let ix = table.scheme().clone();
    let slots = ix.slots().to_vec();
    let plans = exit_plans(&slots);
    let (blocks, block_len) = table.blocks().ok_or(CheckError::NotCompressed)?;
    let work = verify_work(dir, material);
    fs::create_dir_all(&work)?;
    let file = ProgressFile::new(&work, CHECK, &[&path])?;
    let mut at = file.load().unwrap_or_default();
    if at.stage > 0 || at.next > 0 {
        log::info!(
            "{}: the check goes on from side {}, block {} ({} positions checked before)",
            material.name(),
            at.stage,
            at.next,
            at.checked
        );
    }
    let bar = progress;
    let before = at.stage * blocks + at.next;
    bar.begin(&material.name(), "verify", Some(2 * blocks));
    bar.at(before, "");
    let tally = Tally::resumed(&mut at);
    let mut eta = EtaLog::new(format!("{} verify", material.name()), 2 * blocks).resumed(before);
    let mut batches = 0u64;
    // The progress file's stage is the side being checked (`king_slot`: 0 white, 1 black),
    // 2 when both are done.
    for side in SIDES.into_iter().skip(at.stage as usize) {
        let stage = king_slot(side) as u64;
        let other = side_codes(&table, side.other())?;
        let check = Check {
            ix: &ix,
            slots: &slots,
            plans: &plans,
            sub: &sub,
            other: &other,
        };
        // In batches, so that the log shows the progress and a stopped check resumes.
        let batch = (blocks / 100).max(1);
        let mut b0 = if stage == at.stage { at.next } else { 0 };
        while b0 < blocks {
            if stop_after.is_some_and(|s| batches >= s) {
                return Err(CheckError::Stopped);
            }
            let b1 = (b0 + batch).min(blocks);
            (b0..b1).into_par_iter().try_for_each_init(
                || (Vec::new(), Vec::new(), LegalTargets::new()),
                |(first, ext, lt), b| -> Result<(), CheckError> {
                    read_planes(&table, side, b, first, ext)?;
                    let (mut n, mut bad) = (0u64, 0u64);
                    for (k, &f) in first.iter().enumerate() {
                        let pos = b * u64::from(block_len) + k as u64;
                        let idx = table.index_at(side, pos);
                        let Some(sq) = ix.decode(idx) else {
                            continue;
                        };
                        let stored = Value::from_planes(f, ext.get(k).copied().unwrap_or(0));
                        match check.expected(&sq, idx, side, lt) {
                            None => continue,
                            Some(Some(e)) if e == stored => {}
                            Some(e) => {
                                bad += 1;
                                tally.note(&slots, &sq, side, stored, e);
                            }
                        }
                        n += 1;
                    }
                    tally.add(n, bad);
                    bar.advance(1);
                    Ok(())
                },
            )?;
            b0 = b1;
            batches += 1;
            eta.update(stage * blocks + b0);
            let (stage, next) = if b0 == blocks {
                (stage + 1, 0)
            } else {
                (stage, b0)
            };
            file.save(&tally.reached(stage, next))?;
        }
    }
    bar.end();
    finish_work(&work, CHECK);
    Ok(tally.report(material))
}
