//! `build-tables --verify` for tables too large for the general check (6 pieces): every position
//! of the DTM table against its children, one side to move at a time, with the other side's
//! values in memory (2 bytes an entry) and this side's read block by block from the file.
//!
//! A position's value must be the best, for the side to move, of its moves' values (a capture's
//! from the sub-table, a quiet move's from the other side's values, each one ply further), or
//! mated (in check without a move) or a draw (stalemate).

use std::{
    path::Path,
    sync::{
        atomic::{AtomicU16, AtomicU64, Ordering::Relaxed},
        Mutex,
    },
};

use indicatif::ProgressBar;
use rayon::prelude::*;
use shakmaty::{Color, Role};

use super::{capture_value, EtaLog};
use crate::{
    atomics::{Atomics, Pages},
    solve::{
        exits::{exit_plans, ExitPlan},
        moves::{legal_targets, LegalTargets},
        Stage,
    },
    verify::{entry_position, VerifyReport},
    SubTables,
};
use retro_tables::{
    format::{file_name, Table},
    index::{IndexScheme, Squares},
    pieces::attacked,
    Material, Value,
};

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
        side: usize,
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
        side: usize,
        lt: &LegalTargets,
    ) -> Option<Value> {
        let n = self.slots.len();
        let occ = lt.occ;
        let mut best: Option<Value> = None;
        let mut add = |v: Value| best = Some(best.map_or(v, |b| b.max(v)));
        for i in 0..n {
            let mut targets = lt.targets[i];
            while targets != 0 {
                let to = targets.trailing_zeros() as u8;
                targets &= targets - 1;
                let mut after = *sq;
                after[i] = to;
                if occ & (1u64 << to) != 0 {
                    let j = (2..n).find(|&j| sq[j] == to)?;
                    // A capture that cannot be valued counts as no value at all: a mismatch.
                    add(capture_value(self.plans, self.sub, &after, j, side).ok()?);
                    continue;
                }
                let child = self
                    .ix
                    .moved(idx, sq, i, to)
                    .or_else(|| self.ix.index(&after))?;
                let code = self.other.get(child as usize)?.load(Relaxed);
                add(Value::from_child(Value::from_code(code)?)?);
            }
        }
        Some(best.unwrap_or_else(|| {
            let color = if side == 0 {
                Color::Black
            } else {
                Color::White
            };
            if attacked(self.slots, sq, sq[side], color, occ, usize::MAX) {
                Value::MATED
            } else {
                Value::DRAW
            }
        }))
    }
}

/// Block `b` of one side of `table`: its first bytes into `first`, its extension bytes (when
/// the table has them) into `ext`.
fn read_planes(
    table: &Table,
    white: bool,
    b: u64,
    first: &mut Vec<u8>,
    ext: &mut Vec<u8>,
) -> Result<(), String> {
    table
        .read_block(white, 0, b, first)
        .map_err(|e| e.to_string())?;
    if table.planes() > 1 {
        table
            .read_block(white, 1, b, ext)
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The values of one side of `table` (white to move or not), index order, as codes.
fn side_codes(table: &Table, white: bool) -> Result<Atomics<AtomicU16>, String> {
    let n = table.scheme().size();
    let out = Atomics::<AtomicU16>::zeroed(n as usize, Pages::Default);
    let (blocks, block_len) = table.blocks().ok_or("not a compressed table")?;
    (0..blocks).into_par_iter().try_for_each_init(
        || (Vec::new(), Vec::new()),
        |(first, ext), b| -> Result<(), String> {
            read_planes(table, white, b, first, ext)?;
            for (k, &f) in first.iter().enumerate() {
                let pos = b * u64::from(block_len) + k as u64;
                let v = Value::from_planes(f, ext.get(k).copied().unwrap_or(0));
                if let Some(o) = out.get(table.index_at(white, pos) as usize) {
                    o.store(v.code(), Relaxed);
                }
            }
            Ok(())
        },
    )?;
    Ok(out)
}

/// Verifies the DTM table of `material` in `dir` (see the module docs); examples of mismatches
/// as the general check gives them.
pub fn verify_compact(dir: &Path, material: Material, progress: bool) -> VerifyReport {
    match verify_sides(dir, material, progress) {
        Ok(r) => r,
        Err(e) => VerifyReport::failed(material, e),
    }
}

fn verify_sides(dir: &Path, material: Material, progress: bool) -> Result<VerifyReport, String> {
    let table =
        Table::open(&dir.join(file_name(material)), Some(material)).map_err(|e| e.to_string())?;
    let sub = SubTables::open_for(dir, material, Stage::InitBoth).map_err(|e| e.to_string())?;
    let ix = table.scheme().clone();
    let slots = ix.slots().to_vec();
    let plans = exit_plans(&slots);
    let (blocks, block_len) = table.blocks().ok_or("not a compressed table")?;
    let bar = if progress {
        ProgressBar::new(2 * blocks)
    } else {
        ProgressBar::hidden()
    };
    let checked = AtomicU64::new(0);
    let mismatches = AtomicU64::new(0);
    let examples = Mutex::new(Vec::new());
    let mut eta = EtaLog::new(format!("{} verify", material.name()), 2 * blocks);
    for side in 0..2 {
        let white = side == 0;
        let other = side_codes(&table, !white)?;
        let check = Check {
            ix: &ix,
            slots: &slots,
            plans: &plans,
            sub: &sub,
            other: &other,
        };
        // In batches, so that the log shows the progress.
        let batch = (blocks / 100).max(1);
        let mut b0 = 0;
        while b0 < blocks {
            let b1 = (b0 + batch).min(blocks);
            (b0..b1).into_par_iter().try_for_each_init(
                || (Vec::new(), Vec::new(), LegalTargets::new()),
                |(first, ext, lt), b| -> Result<(), String> {
                    read_planes(&table, white, b, first, ext)?;
                    let (mut n, mut bad) = (0u64, 0u64);
                    for (k, &f) in first.iter().enumerate() {
                        let idx = table.index_at(white, b * u64::from(block_len) + k as u64);
                        let Some(sq) = ix.decode(idx) else {
                            continue;
                        };
                        let stored = Value::from_planes(f, ext.get(k).copied().unwrap_or(0));
                        match check.expected(&sq, idx, side, lt) {
                            None => continue,
                            Some(Some(e)) if e == stored => {}
                            Some(e) => {
                                bad += 1;
                                if let (Ok(mut g), Some(p)) =
                                    (examples.lock(), entry_position(&slots, &sq, white))
                                {
                                    if g.len() < 5 {
                                        let fen = shakmaty::fen::Fen::from_position(
                                            &p,
                                            shakmaty::EnPassantMode::Legal,
                                        );
                                        let e = e.map_or("no value".to_string(), |v| v.to_string());
                                        g.push((fen.to_string(), stored.to_string(), e));
                                    }
                                }
                            }
                        }
                        n += 1;
                    }
                    checked.fetch_add(n, Relaxed);
                    mismatches.fetch_add(bad, Relaxed);
                    bar.inc(1);
                    Ok(())
                },
            )?;
            b0 = b1;
            eta.update(side as u64 * blocks + b0);
        }
    }
    bar.finish_and_clear();
    Ok(VerifyReport {
        material,
        checked: checked.into_inner(),
        mismatches: mismatches.into_inner(),
        examples: examples.into_inner().unwrap_or_default(),
        error: None,
    })
}
