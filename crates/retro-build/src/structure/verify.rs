//! `build-tables --verify` of a DTM table with pawns too large for the general check (6 pieces
//! with pawns), pawn structure by pawn structure.
//!
//! Each position's value must be the best, for the side to move, of its moves' values: a
//! capture's, a promotion's and an en passant capture's from the sub-tables, a pawn push's
//! from this table's values of a more advanced structure, another piece's move from the
//! values of the same structure with the other side to move; mated in check without a move,
//! a draw in stalemate. A table whose every value passes is right from the mates up (see
//! [`crate::verify`]).
//!
//! The table is read in **levels** of parts ([`Plan`]: a structure and its mirror image, the
//! most advanced first). The values of a level's parts, both sides, a byte an entry, are read
//! from the file in one pass over its blocks and kept while a level that a pawn push reaches
//! them from is checked: a push raises the structure's rank by one or two, so the levels of the
//! next two ranks up are kept with the level being checked, and the others let go. For
//! KRRvKRP that is at most 12 of its 24 parts (11 GB); the promotions' tables (6 pieces) are
//! read into memory only for the levels whose pawns can promote without a capture, as the
//! build does.
//!
//! The check keeps where it has got to in `DIR/.MATERIAL.verify` after each level: run again
//! after a stop, it goes on from the next level.

use std::{
    fs,
    path::Path,
    sync::atomic::{AtomicU8, Ordering::Relaxed},
};

use rayon::prelude::*;
use shakmaty::{ByColor, Color, Role};

use super::{
    moves::{part_moves, PartMove},
    promoting_levels, Plan,
};
use crate::{
    compact::{
        resume::ProgressFile,
        verify::{finish_work, report_of, verify_work, CheckError, Tally},
        EtaLog,
    },
    kernel::{
        exits::{exit_plans, for_each_en_passant, probe_exit, ExitPlan},
        king_slot,
        memory::{Atomics, Pages},
        moves::{legal_targets, LegalTargets},
        Stage, SIDES,
    },
    metric::DtmMoves,
    progress::Progress,
    verify::VerifyReport,
    SubTables,
};
use retro_tables::{
    format::{file_name, Table},
    index::{IndexScheme, Squares},
    pieces::attacked,
    Material, Value,
};

/// The name of this check's progress file.
const CHECK: &str = "dtm-structures";

/// How far one pawn move raises a structure's rank at most (a double push).
const MAX_PUSH: u32 = 2;

/// Places checked in one task.
const CHUNK: usize = 1 << 14;

/// One part's values, both sides, [`Value::to_byte`] an entry in the part's place order.
type PartValues = ByColor<Atomics<AtomicU8>>;

/// The table being checked and what its checks read.
struct Check<'a> {
    ix: &'a IndexScheme,
    plan: &'a Plan,
    slots: &'a [(Color, Role)],
    plans: &'a [Option<ExitPlan>],
    /// The values of the parts read, by part number.
    loaded: &'a [Option<PartValues>],
}

impl Check<'_> {
    /// The value with `side` to move of entry `idx` from the parts read; `None` when its part
    /// is not read (which the window of levels rules out) or it has no part.
    #[inline]
    fn value(&self, side: Color, idx: u64) -> Option<Value> {
        let (s, r) = self.ix.split_structure(idx);
        let p = *self.plan.part_of.get(s as usize)? as usize;
        let k = self.plan.parts.get(p)?.iter().position(|&x| x == s)?;
        let place = k * self.ix.structure_len() as usize + r as usize;
        let byte = self.loaded.get(p)?.as_ref()?[side]
            .get(place)?
            .load(Relaxed);
        Some(Value::from_byte(byte))
    }

    /// The value, for the opponent of `side` (to move after it), of the exit of `side` that
    /// leaves out slot `skip` and promotes `promo`; `None` when it cannot be read.
    fn exit(
        &self,
        sub: &SubTables,
        sq: &Squares,
        skip: usize,
        promo: Option<(usize, Role)>,
        side: Color,
    ) -> Option<Value> {
        probe_exit(self.plans, sub, sq, skip, promo, side.other())
            .ok()
            .map(|(v, _)| v)
    }

    /// The best en passant capture for the opponent of `side` after `side`'s pawn in slot
    /// `pawn` pushed two squares to give `sq`, as the opponent's value; `Some(None)` without
    /// a legal one, `None` where a sub-table cannot be read.
    fn en_passant(
        &self,
        sub: &SubTables,
        sq: &Squares,
        pawn: usize,
        side: Color,
    ) -> Option<Option<Value>> {
        let (mut best, mut unread) = (None::<Value>, false);
        for_each_en_passant(self.slots, sq, side.other(), pawn, |taken| {
            match self
                .exit(sub, taken, pawn, None, side.other())
                .and_then(Value::from_child)
            {
                Some(v) => best = Some(best.map_or(v, |x| x.max(v))),
                None => unread = true,
            }
        });
        (!unread).then_some(best)
    }

    /// The value of the legal position `sq` with `side` to move (its moves in `lt`) from its
    /// children; `None` where a child cannot be valued.
    fn value_from_children(
        &self,
        sub: &SubTables,
        sq: &Squares,
        side: Color,
        lt: &LegalTargets,
    ) -> Option<Value> {
        let mut moves = DtmMoves::default();
        for m in part_moves(self.slots, sq, lt) {
            match m {
                PartMove::Promotion { after, skip, promo } => {
                    moves.add(self.exit(sub, &after, skip, Some(promo), side)?)?
                }
                PartMove::Capture { after, skip } => {
                    moves.add(self.exit(sub, &after, skip, None, side)?)?;
                }
                PartMove::Piece { after } => {
                    moves.add(self.value(side.other(), self.ix.index(&after)?)?)?;
                }
                PartMove::Push {
                    after,
                    pawn,
                    double,
                } => {
                    let mut child = self.value(side.other(), self.ix.index(&after)?)?;
                    if double {
                        if let Some(e) = self.en_passant(sub, &after, pawn, side)? {
                            child = child.max(e);
                        }
                    }
                    moves.add(child)?;
                }
            }
        }
        Some(moves.value(|| {
            let king = sq[king_slot(side)];
            attacked(self.slots, sq, king, side.other(), lt.occ, usize::MAX)
        }))
    }
}

/// Verifies the DTM table of `material` (with pawns) in `dir` structure by structure (see the
/// module docs); examples of mismatches as the general check gives them. A check stopped part
/// way goes on from the last level it finished (its progress is kept in `dir/.MATERIAL.verify`).
pub fn verify_by_structure(
    dir: &Path,
    material: Material,
    progress: &dyn Progress,
) -> VerifyReport {
    report_of(dir, material, verify_levels(dir, material, progress, None))
}

/// [`verify_by_structure`], stopping with an error after `stop_after` levels (to test
/// resuming).
pub(crate) fn verify_levels(
    dir: &Path,
    material: Material,
    progress: &dyn Progress,
    stop_after: Option<u64>,
) -> Result<VerifyReport, CheckError> {
    let path = dir.join(file_name(material));
    let table = Table::open(&path, Some(material))?;
    if table.planes() > 1 {
        return Err(CheckError::WideValues);
    }
    let ix = table.scheme().clone();
    let material = ix.material();
    let plan = Plan::new(&ix);
    let slots = ix.slots().to_vec();
    let plans = exit_plans(&slots);
    let levels = plan.levels.len() as u64;
    let promoting = promoting_levels(material) as u64;
    let work = verify_work(dir, material);
    fs::create_dir_all(&work)?;
    let file = ProgressFile::new(&work, CHECK, &[&path])?;
    let mut at = file.load().unwrap_or_default();
    if at.stage > 0 {
        log::info!(
            "{}: the check goes on from level {} ({} positions checked before)",
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
    progress.begin(&material.name(), "verify", Some(parts));
    progress.at(first_part(at.stage), "");
    let tally = Tally::resumed(&mut at);
    let mut eta =
        EtaLog::new(format!("{} verify", material.name()), parts).resumed(first_part(at.stage));
    let mut loaded: Vec<Option<PartValues>> = (0..plan.parts.len()).map(|_| None).collect();
    let mut sub: Option<(bool, SubTables)> = None;
    for k in at.stage..levels {
        if stop_after.is_some_and(|s| k - at.stage >= s) {
            return Err(CheckError::Stopped);
        }
        let level = plan.levels[k as usize].clone();
        let r = rank(k as usize);
        // The levels a pawn push of this one reaches stay; the rest go before the next read.
        for (j, l) in plan.levels.iter().enumerate() {
            if j as u64 != k && !(r + 1..=r + MAX_PUSH).contains(&rank(j)) {
                for p in l.clone() {
                    loaded[p] = None;
                }
            }
        }
        let wanted: Vec<bool> = (0..plan.parts.len())
            .map(|p| {
                loaded[p].is_none()
                    && plan
                        .level_of(p)
                        .is_some_and(|j| j as u64 == k || (r + 1..=r + MAX_PUSH).contains(&rank(j)))
            })
            .collect();
        for (p, values) in read_parts(&table, &ix, &plan, &wanted)?
            .into_iter()
            .enumerate()
        {
            if values.is_some() {
                loaded[p] = values;
            }
        }
        let promotions = k < promoting;
        if sub.as_ref().is_none_or(|(with, _)| *with != promotions) {
            drop(sub.take()); // the promotions' tables go before the next ones come
            let s = SubTables::open_reaching(dir, material, Stage::InitBoth, promotions)?;
            sub = Some((promotions, s));
        }
        let Some((_, sub)) = &sub else {
            continue;
        };
        let t = Check {
            ix: &ix,
            plan: &plan,
            slots: &slots,
            plans: &plans,
            loaded: &loaded,
        };
        for p in level {
            check_part(&t, sub, p, &tally);
            progress.advance(1);
            eta.update(p as u64 + 1);
        }
        file.save(&tally.reached(k + 1, 0))?;
    }
    progress.end();
    finish_work(&work, CHECK);
    Ok(tally.report(material))
}

/// Checks every legal position of part `p` (both sides to move), counting them and the
/// mismatches.
fn check_part(t: &Check, sub: &SubTables, p: usize, tally: &Tally) {
    let len = t.ix.structure_len() as usize;
    let structures = &t.plan.parts[p];
    let Some(own) = t.loaded[p].as_ref() else {
        return;
    };
    let places = structures.len() * len;
    let n = t.slots.len();
    (0..places.div_ceil(CHUNK))
        .into_par_iter()
        .for_each_init(LegalTargets::new, |lt, c| {
            let (mut count, mut bad) = (0u64, 0u64);
            for place in c * CHUNK..((c + 1) * CHUNK).min(places) {
                let idx =
                    t.ix.join_structure(structures[place / len], (place % len) as u64);
                let Some(sq) = t.ix.decode(idx) else {
                    continue;
                };
                for side in SIDES {
                    if !legal_targets(t.slots, &sq, n, side, lt) {
                        continue;
                    }
                    count += 1;
                    let stored = Value::from_byte(own[side][place].load(Relaxed));
                    let expect = t.value_from_children(sub, &sq, side, lt);
                    if expect == Some(stored) {
                        continue;
                    }
                    bad += 1;
                    tally.note(t.slots, &sq, side, stored, expect);
                }
            }
            tally.add(count, bad);
        });
}

/// The values (both sides) of the parts `wanted` marks, read from `table` in one pass over its
/// blocks (or its entries, when it is stored raw); `None` for the others.
fn read_parts(
    table: &Table,
    ix: &IndexScheme,
    plan: &Plan,
    wanted: &[bool],
) -> Result<Vec<Option<PartValues>>, CheckError> {
    let len = ix.structure_len() as usize;
    let out: Vec<Option<PartValues>> = plan
        .parts
        .iter()
        .zip(wanted)
        .map(|(part, &w)| {
            w.then(|| ByColor::new_with(|_| Atomics::zeroed(part.len() * len, Pages::Huge)))
        })
        .collect();
    if !wanted.contains(&true) {
        return Ok(out);
    }
    let store = |side: Color, idx: u64, byte: u8| {
        let (s, r) = ix.split_structure(idx);
        let Some(&p) = plan.part_of.get(s as usize) else {
            return;
        };
        let Some(values) = out.get(p as usize).and_then(Option::as_ref) else {
            return;
        };
        let Some(k) = plan.parts[p as usize].iter().position(|&x| x == s) else {
            return;
        };
        if let Some(v) = values[side].get(k * len + r as usize) {
            v.store(byte, Relaxed);
        }
    };
    for side in SIDES {
        each_byte(table, side, |idx, byte| store(side, idx, byte))?;
    }
    Ok(out)
}

/// Calls `f(idx, byte)` for every entry of `table` with `side` to move, in parallel: one pass
/// over its blocks, or its entries when it is stored raw.
pub(super) fn each_byte(
    table: &Table,
    side: Color,
    f: impl Fn(u64, u8) + Sync,
) -> Result<(), CheckError> {
    match table.blocks() {
        Some((blocks, block_len)) => (0..blocks).into_par_iter().try_for_each_init(
            Vec::new,
            |buf, b| -> Result<(), CheckError> {
                table.read_block(side, 0, b, buf)?;
                for (k, &byte) in buf.iter().enumerate() {
                    let pos = b * u64::from(block_len) + k as u64;
                    f(table.index_at(side, pos), byte);
                }
                Ok(())
            },
        ),
        None => {
            let size = table.scheme().size();
            (0..size.div_ceil(CHUNK as u64))
                .into_par_iter()
                .try_for_each(|c| -> Result<(), CheckError> {
                    for idx in c * CHUNK as u64..((c + 1) * CHUNK as u64).min(size) {
                        f(idx, table.get_byte(side, idx)?);
                    }
                    Ok(())
                })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{structure::tests::for_each_material, Silent};

    /// A general check, and the check by structure with a number of levels to stop after.
    type Pair = (
        fn(&Path, Material, &dyn Progress) -> VerifyReport,
        fn(&Path, Material, &dyn Progress, Option<u64>) -> Result<VerifyReport, CheckError>,
    );

    /// On tables of 3 and 4 pieces with pawns (promotions, pushes of both sides, en passant),
    /// the DTM and DTZ50 checks by structure pass what the general checks pass, with as many
    /// positions; stopped after a level and run again, they give the same report and leave no
    /// work.
    #[test]
    fn the_checks_by_structure_agree_with_the_general_checks() {
        let names = ["KPvK", "KPvKP", "KPPvK"];
        let pairs: [Pair; 2] = [
            (crate::verify::verify, verify_levels),
            (
                crate::verify::verify_dtz,
                crate::structure::verify_dtz::verify_levels,
            ),
        ];
        for_each_material(&names, |k, dir, m, _, _| {
            for (general_check, by_structure) in pairs {
                let general = general_check(dir, m, &Silent);
                assert!(general.error.is_none(), "{}: {:?}", m.name(), general.error);
                assert_eq!(general.mismatches, 0, "{}", m.name());
                let parts = report_of(dir, m, by_structure(dir, m, &Silent, None));
                assert!(parts.error.is_none(), "{}: {:?}", m.name(), parts.error);
                assert_eq!(
                    (parts.checked, parts.mismatches),
                    (general.checked, 0),
                    "{}: {:?}",
                    m.name(),
                    parts.examples
                );
                if k > 0 {
                    let stopped = by_structure(dir, m, &Silent, Some(k as u64));
                    assert!(matches!(stopped, Err(CheckError::Stopped)), "{}", m.name());
                    assert!(verify_work(dir, m).exists(), "the progress is kept");
                    let resumed = report_of(dir, m, by_structure(dir, m, &Silent, None));
                    assert_eq!(
                        (resumed.checked, resumed.mismatches),
                        (general.checked, 0),
                        "{} resumed",
                        m.name()
                    );
                }
                assert!(!verify_work(dir, m).exists(), "no work left");
            }
        });
    }
}
