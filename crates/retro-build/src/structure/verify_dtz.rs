//! `build-tables --verify --by-structure` of a DTZ50 table with pawns (with its DTM table),
//! a level of pawn structures at a time: every position against its children by Syzygy's rules
//! (as [`crate::verify::dtz_from_children`]).
//!
//! In a table with pawns every pawn move zeroes the clock, as captures and promotions do: it
//! is valued by its class under the rule alone, from a sub-table or from the parts of a more
//! advanced structure. The moves of the other pieces stay in the part. So a part is checked
//! with its own values in memory (2 bytes an entry and side) and the classes of the parts its
//! pawn pushes reach (a byte an entry and side: the levels of the next two structure ranks,
//! read as in [`super::verify`]). A DTZ50 file holds a loss's class only; its distance is one
//! more than the longest of its moves into wins, which the part holds. So each level is
//! checked in three steps: White's losses recomputed from Black's wins (their classes
//! checked, their distances kept), Black's from White's, then every win and draw.
//!
//! A loss is kept as the depth its parents see: its DTZ, less one where its best move zeroes
//! (Syzygy's convention; mate counts as zeroing). A table loss that its moves do not make a
//! loss of its class counts as a mismatch and is kept at depth 0, so that the mismatches past
//! it may count differently from the general check's; a correct table gives 0 either way.
//!
//! The check keeps where it has got to in `DIR/.MATERIAL.verify` after each level.

use std::{
    fs,
    path::Path,
    sync::atomic::{AtomicU16, AtomicU8, Ordering::Relaxed},
};

use rayon::prelude::*;
use shakmaty::{ByColor, Color, Role};

use super::{
    moves::{part_moves, PartMove},
    promoting_levels,
    verify::each_byte,
    Plan,
};
use crate::{
    compact::{
        resume::ProgressFile,
        verify::{finish_work, report_of, verify_work, CheckError, Tally},
        EtaLog,
    },
    dtz::Wdl50Tables,
    kernel::{
        exits::{exit_plans, for_each_en_passant, ExitPlan},
        king_slot,
        memory::{Atomics, Pages},
        moves::{legal_targets, LegalTargets},
        SIDES,
    },
    metric::{Dtz50Moves, Recomputed},
    progress::Progress,
    verify::VerifyReport,
};
use retro_tables::{
    format::{file_name, Metric, Table},
    index::{IndexScheme, Squares},
    pieces::attacked,
    Dtz, Material, Value, Wdl, Wdl50,
};

/// The name of this check's progress file.
const CHECK: &str = "dtz-structures";
/// How far one pawn move raises a structure's rank at most (a double push).
const MAX_PUSH: u32 = 2;
/// Places checked in one task.
const CHUNK: usize = 1 << 14;
/// In a part's codes: a loss (the rest its class as stored, 1 or 101, then its depth for the
/// parents once recomputed). A win's code is its DTZ, a draw's 0.
const LOSS_BIT: u16 = 0x8000;
/// In a part's codes: a DTM and DTZ50 pair that is no value (a win or loss stored as 0).
const BAD: u16 = 0x4000;
/// A class byte of no class (see [`BAD`]).
const NO_CLASS: u8 = 0xFF;
/// A class byte's mark of the DTM's class while the DTZ50 file is not read yet.
const MARK: u8 = 0x10;

/// A part's values, both sides, in its place order.
struct Loaded {
    /// The class under the rule of every entry ([`class_byte`]).
    class: ByColor<Atomics<AtomicU8>>,
    /// The codes (see [`LOSS_BIT`]): only for the level being checked.
    codes: Option<ByColor<Atomics<AtomicU16>>>,
}

/// The byte of a class.
fn class_byte(c: Wdl50) -> u8 {
    (c.to_i8() + 2) as u8
}

/// The class of a class byte; `None` for [`NO_CLASS`] and the marks.
fn byte_class(b: u8) -> Option<Wdl50> {
    (b <= 4).then(|| Wdl50::from_i8(b as i8 - 2))
}

/// What the checks of a level read.
struct Check<'a> {
    material: Material,
    ix: &'a IndexScheme,
    plan: &'a Plan,
    slots: &'a [(Color, Role)],
    plans: &'a [Option<ExitPlan>],
    sub: &'a Wdl50Tables,
    loaded: &'a [Option<Loaded>],
}

impl Check<'_> {
    /// The part of entry `idx` (when read) and its place there.
    #[inline]
    fn locate(&self, idx: u64) -> Option<(&Loaded, usize)> {
        let (s, r) = self.ix.split_structure(idx);
        let p = *self.plan.part_of.get(s as usize)? as usize;
        let k = self.plan.parts.get(p)?.iter().position(|&x| x == s)?;
        let place = k * self.ix.structure_len() as usize + r as usize;
        Some((self.loaded.get(p)?.as_ref()?, place))
    }

    /// The class of entry `idx` with `side` to move, from the parts read.
    fn class(&self, side: Color, idx: u64) -> Option<Wdl50> {
        let (part, place) = self.locate(idx)?;
        byte_class(part.class[side].get(place)?.load(Relaxed))
    }

    /// The code of entry `idx` with `side` to move, in a part of the level being checked.
    fn code(&self, side: Color, idx: u64) -> Option<u16> {
        let (part, place) = self.locate(idx)?;
        Some(part.codes.as_ref()?[side].get(place)?.load(Relaxed))
    }

    /// A sub-table's class, for `side` to move, of `sq` without slot `skip` and with `promo`.
    fn sub_class(
        &self,
        sq: &Squares,
        skip: usize,
        promo: Option<(usize, Role)>,
        side: Color,
    ) -> Option<Wdl50> {
        self.sub
            .exit_class(self.material, self.plans, sq, skip, promo, side)
            .ok()
    }

    /// The value of the legal position `sq` with `side` to move (its moves in `lt`) from its
    /// children; `None` where a child cannot be valued.
    fn recompute(&self, sq: &Squares, side: Color, lt: &LegalTargets) -> Option<Recomputed> {
        let mut moves = Dtz50Moves::default();
        for m in part_moves(self.slots, sq, lt) {
            match m {
                PartMove::Promotion { after, skip, promo } => {
                    moves.zeroing(self.sub_class(&after, skip, Some(promo), side.other())?)
                }
                PartMove::Capture { after, skip } => {
                    moves.zeroing(self.sub_class(&after, skip, None, side.other())?);
                }
                PartMove::Push {
                    after,
                    pawn,
                    double,
                } => {
                    let mut c = self.class(side.other(), self.ix.index(&after)?)?;
                    if double {
                        // The opponent may take en passant: the better of the two for it.
                        let mut unread = false;
                        for_each_en_passant(self.slots, &after, side.other(), pawn, |taken| {
                            match self.sub_class(taken, pawn, None, side) {
                                Some(theirs) => c = c.max(theirs.flip()),
                                None => unread = true,
                            }
                        });
                        if unread {
                            return None;
                        }
                    }
                    moves.zeroing(c);
                }
                PartMove::Piece { after } => {
                    match self.code(side.other(), self.ix.index(&after)?)? {
                        0 => moves.quiet_to_draw(),
                        BAD => return None,
                        c if c & LOSS_BIT != 0 => moves.quiet_to_loss(c & !LOSS_BIT),
                        w => moves.quiet_to_win(w),
                    }
                }
            }
        }
        moves.value(|| {
            let king = sq[king_slot(side)];
            attacked(self.slots, sq, king, side.other(), lt.occ, usize::MAX)
        })
    }
}

/// The stored value of a code of a level being checked (a loss as its class); `None` for
/// [`BAD`].
fn stored_of(code: u16) -> Option<Dtz> {
    match code {
        BAD => None,
        c if c & LOSS_BIT != 0 => Some(Dtz(-((c & !LOSS_BIT) as i16))),
        w => Some(Dtz(w as i16)),
    }
}

/// Verifies the DTZ50 table of `material` (with pawns) in `dir`, with its DTM table, structure
/// by structure (see the module docs). A check stopped part way goes on from the last level it
/// finished (its progress is kept in `dir/.MATERIAL.verify`).
pub fn verify_dtz_by_structure(
    dir: &Path,
    material: Material,
    progress: &dyn Progress,
) -> VerifyReport {
    report_of(dir, material, verify_levels(dir, material, progress, None))
}

/// [`verify_dtz_by_structure`], stopping with an error after `stop_after` levels (to test
/// resuming).
pub(crate) fn verify_levels(
    dir: &Path,
    material: Material,
    progress: &dyn Progress,
    stop_after: Option<u64>,
) -> Result<VerifyReport, CheckError> {
    let dtm_path = dir.join(file_name(material));
    let dtz_path = dir.join(Metric::Dtz.file_name(material));
    let dtm = Table::open(&dtm_path, Some(material))?;
    let dtz = Table::open_dtz(&dtz_path, Some(material))?;
    if dtm.planes() > 1 || dtz.planes() > 1 {
        return Err(CheckError::WideValues);
    }
    if dtm.scheme().size() != dtz.scheme().size() {
        return Err(CheckError::DifferentIndex);
    }
    let ix = dtm.scheme().clone();
    let material = ix.material();
    let plan = Plan::new(&ix);
    let slots = ix.slots().to_vec();
    let plans = exit_plans(&slots);
    let levels = plan.levels.len() as u64;
    let promoting = promoting_levels(material) as u64;
    let work = verify_work(dir, material);
    fs::create_dir_all(&work)?;
    let file = ProgressFile::new(&work, CHECK, &[&dtm_path, &dtz_path])?;
    let mut at = file.load().unwrap_or_default();
    if at.stage > 0 {
        log::info!(
            "{}: the DTZ50 check goes on from level {} ({} positions checked before)",
            material.name(),
            at.stage + 1,
            at.checked
        );
    }
    let rank = |k: usize| {
        plan.parts[plan.levels[k].start]
            .first()
            .map_or(0, |&s| ix.structure_rank(s))
    };
    let parts = plan.parts.len() as u64;
    let first_part = |k: u64| {
        plan.levels
            .get(k as usize)
            .map_or(parts, |l| l.start as u64)
    };
    progress.begin(&material.name(), "verify DTZ50", Some(parts));
    progress.at(first_part(at.stage), "");
    let tally = Tally::resumed(&mut at);
    let mut eta = EtaLog::new(format!("{} verify DTZ50", material.name()), parts)
        .resumed(first_part(at.stage));
    let mut loaded: Vec<Option<Loaded>> = (0..plan.parts.len()).map(|_| None).collect();
    let mut sub: Option<(bool, Wdl50Tables)> = None;
    for k in at.stage..levels {
        if stop_after.is_some_and(|s| k - at.stage >= s) {
            return Err(CheckError::Stopped);
        }
        let level = plan.levels[k as usize].clone();
        let r = rank(k as usize);
        let in_window = |j: usize| (r + 1..=r + MAX_PUSH).contains(&rank(j));
        for (j, l) in plan.levels.iter().enumerate() {
            for p in l.clone() {
                if j as u64 != k && !in_window(j) {
                    loaded[p] = None;
                } else if let Some(part) = &mut loaded[p] {
                    part.codes = None; // a level checked before: its classes are enough
                }
            }
        }
        let wanted: Vec<Option<bool>> = (0..plan.parts.len())
            .map(|p| {
                let j = plan.level_of(p)?;
                if j as u64 == k {
                    Some(true)
                } else {
                    (loaded[p].is_none() && in_window(j)).then_some(false)
                }
            })
            .collect();
        for (p, part) in read_parts(&dtm, &dtz, &ix, &plan, &wanted)?
            .into_iter()
            .enumerate()
        {
            if part.is_some() {
                loaded[p] = part;
            }
        }
        let promotions = k < promoting;
        if sub.as_ref().is_none_or(|(with, _)| *with != promotions) {
            drop(sub.take()); // the promotions' tables go before the next ones come
            let s = Wdl50Tables::open_reaching(dir, material, promotions)?;
            sub = Some((promotions, s));
        }
        let Some((_, sub)) = &sub else {
            continue;
        };
        let t = Check {
            material,
            ix: &ix,
            plan: &plan,
            slots: &slots,
            plans: &plans,
            sub,
            loaded: &loaded,
        };
        for side in SIDES {
            for p in level.clone() {
                complete_losses(&t, p, side, &tally);
            }
        }
        for p in level {
            check_part(&t, p, &tally);
            progress.advance(1);
            eta.update(p as u64 + 1);
        }
        file.save(&tally.reached(k + 1, 0))?;
    }
    progress.end();
    finish_work(&work, CHECK);
    Ok(tally.report(material))
}

/// Calls `f(place, sq)` for every entry of part `p` that is a position, in parallel, with a
/// [`LegalTargets`] of its own.
fn for_each_entry(
    t: &Check,
    p: usize,
    f: impl Fn(usize, &Squares, &mut LegalTargets) -> (u64, u64) + Sync,
    tally: &Tally,
) {
    let len = t.ix.structure_len() as usize;
    let structures = &t.plan.parts[p];
    let places = structures.len() * len;
    (0..places.div_ceil(CHUNK))
        .into_par_iter()
        .for_each_init(LegalTargets::new, |lt, c| {
            let (mut count, mut bad) = (0u64, 0u64);
            for place in c * CHUNK..((c + 1) * CHUNK).min(places) {
                let idx =
                    t.ix.join_structure(structures[place / len], (place % len) as u64);
                if let Some(sq) = t.ix.decode(idx) {
                    let (n, b) = f(place, &sq, lt);
                    count += n;
                    bad += b;
                }
            }
            tally.add(count, bad);
        });
}

/// Recomputes the losses of part `p` with `side` to move from their moves: each must be a loss
/// of its stored class (else a mismatch, kept at depth 0); its code becomes the depth its
/// parents see.
fn complete_losses(t: &Check, p: usize, side: Color, tally: &Tally) {
    let Some(codes) = t.loaded[p].as_ref().and_then(|l| l.codes.as_ref()) else {
        return;
    };
    for_each_entry(
        t,
        p,
        |place, sq, lt| {
            let Some(cell) = codes[side].get(place) else {
                return (0, 0);
            };
            let stored = cell.load(Relaxed);
            if stored & LOSS_BIT == 0 || stored == BAD {
                return (0, 0);
            }
            if !legal_targets(t.slots, sq, t.slots.len(), side, lt) {
                return (0, 0);
            }
            let class = stored_of(stored).map(Dtz::wdl50);
            let got = t.recompute(sq, side, lt);
            match got {
                Some(r) if r.dtz.0 < 0 && Some(r.dtz.wdl50()) == class => {
                    cell.store(LOSS_BIT | r.loss_depth(), Relaxed);
                    (0, 0)
                }
                _ => {
                    cell.store(LOSS_BIT, Relaxed);
                    tally.note_text(
                        t.slots,
                        sq,
                        side,
                        class.map_or("no value".into(), |c| c.to_string()),
                        got.map_or("no value".into(), |r| r.dtz.to_string()),
                    );
                    (0, 1)
                }
            }
        },
        tally,
    );
}

/// Checks every legal position of part `p` (both sides to move): the wins and draws against
/// their recomputed values (the losses were checked by [`complete_losses`]); counts them all.
fn check_part(t: &Check, p: usize, tally: &Tally) {
    let Some(codes) = t.loaded[p].as_ref().and_then(|l| l.codes.as_ref()) else {
        return;
    };
    for_each_entry(
        t,
        p,
        |place, sq, lt| {
            let (mut n, mut bad) = (0, 0);
            for side in SIDES {
                if !legal_targets(t.slots, sq, t.slots.len(), side, lt) {
                    continue;
                }
                n += 1;
                let code = codes[side].get(place).map_or(BAD, |c| c.load(Relaxed));
                if code & LOSS_BIT != 0 && code != BAD {
                    continue;
                }
                let stored = stored_of(code);
                let got = t.recompute(sq, side, lt);
                if got.map(|r| r.dtz) != stored || stored.is_none() {
                    bad += 1;
                    tally.note_text(
                        t.slots,
                        sq,
                        side,
                        stored.map_or("no value".into(), |d| d.to_string()),
                        got.map_or("no value".into(), |r| r.dtz.to_string()),
                    );
                }
            }
            (n, bad)
        },
        tally,
    );
}

/// The values of the parts `wanted` marks (`Some(true)`: codes and classes, `Some(false)`:
/// classes), read from the DTM and DTZ50 tables, each in one pass over its blocks (or its
/// entries, when stored raw); `None` for the others.
fn read_parts(
    dtm: &Table,
    dtz: &Table,
    ix: &IndexScheme,
    plan: &Plan,
    wanted: &[Option<bool>],
) -> Result<Vec<Option<Loaded>>, CheckError> {
    let len = ix.structure_len() as usize;
    let out: Vec<Option<Loaded>> = plan
        .parts
        .iter()
        .zip(wanted)
        .map(|(part, w)| {
            let n = part.len() * len;
            w.map(|codes| Loaded {
                class: ByColor::new_with(|_| Atomics::zeroed(n, Pages::Huge)),
                codes: codes.then(|| ByColor::new_with(|_| Atomics::zeroed(n, Pages::Huge))),
            })
        })
        .collect();
    if wanted.iter().all(Option::is_none) {
        return Ok(out);
    }
    let at = |idx: u64| -> Option<(&Loaded, usize)> {
        let (s, r) = ix.split_structure(idx);
        let p = *plan.part_of.get(s as usize)? as usize;
        let k = plan.parts.get(p)?.iter().position(|&x| x == s)?;
        Some((out.get(p)?.as_ref()?, k * len + r as usize))
    };
    // The DTM's class first, as a mark in the class byte.
    for side in SIDES {
        each_byte(dtm, side, |idx, byte| {
            if let Some((part, place)) = at(idx) {
                let mark = match Value::from_byte(byte).wdl() {
                    Wdl::Draw => 0,
                    Wdl::Win => 1,
                    Wdl::Loss => 2,
                };
                if let Some(c) = part.class[side].get(place) {
                    c.store(MARK | mark, Relaxed);
                }
            }
        })?;
    }
    for side in SIDES {
        each_byte(dtz, side, |idx, z| {
            let Some((part, place)) = at(idx) else {
                return;
            };
            let Some(c) = part.class[side].get(place) else {
                return;
            };
            let (code, class) = match c.load(Relaxed) {
                m if m == MARK => (0, Some(Wdl50::Draw)),
                _ if z == 0 => (BAD, None),
                m if m == MARK | 1 => {
                    let d = Dtz(i16::from(z));
                    (u16::from(z), Some(d.wdl50()))
                }
                m if m == MARK | 2 => {
                    let d = Dtz(-i16::from(z));
                    (LOSS_BIT | u16::from(z), Some(d.wdl50()))
                }
                _ => (BAD, None),
            };
            c.store(class.map_or(NO_CLASS, class_byte), Relaxed);
            if let Some(codes) = &part.codes {
                if let Some(x) = codes[side].get(place) {
                    x.store(code, Relaxed);
                }
            }
        })?;
    }
    Ok(out)
}
