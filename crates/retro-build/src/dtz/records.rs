//! What the DTM solve's init pass records for the DTZ50 solve of the same material, so that the
//! DTZ50 init generates no moves again: the DTM init already generates every legal move of every
//! position and looks its captures and promotions up in the sub-tables, and the DTZ50 init needs
//! the same moves, only valued by the 50-move rule.
//!
//! Per entry and side to move, two bytes (the DTZ50 solve then uses the same memory for its
//! cells):
//! - bits 0..7: the distinct successors by quiet moves of pieces other than pawns (at most 89 in
//!   a 5-piece position), which a loser's counter starts from;
//! - bits 7..10: 0 for an entry that is no position, 1 for a position without a capture or
//!   promotion, else 4 plus the mover's best class ([`Wdl50::to_i8`]) after one;
//! - bits 10..16: the mover's legal pawn pushes that do not promote, for its first three pawns
//!   in slot order: bit `10 + k` the single push of pawn `k`, bit `13 + k` its double push.
//!   Their value comes from this table's own more advanced pawn structures, solved later.

use std::{path::PathBuf, sync::atomic::AtomicU16, sync::atomic::Ordering::Relaxed};

use shakmaty::{ByColor, Color, Role};

use crate::{
    error::DtzError,
    kernel::{
        memory::{Atomics, Pages},
        Stage,
    },
    stage_successors,
};
use retro_tables::{
    format::{file_name, Metric, Table},
    index::IndexScheme,
    Dtz, Material, Value, Wdl, Wdl50, RULE_PLIES,
};

const QUIET: u16 = 0x7F;
const CLASS_SHIFT: u32 = 7;
const PUSH_SHIFT: u32 = 10;

/// The most pawns of one side whose pushes a record holds.
pub const MAX_RECORDED_PAWNS: usize = 3;

/// The bit of [`Record::pushes`] for the push of a side's pawn `k` (in slot order) by one
/// square, or by two (`double`).
#[inline]
pub(crate) const fn push_bit(k: u8, double: bool) -> u8 {
    1 << (k + if double { 3 } else { 0 })
}

/// One entry's record, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Record {
    /// Distinct successors by quiet moves of pieces other than pawns.
    pub(crate) quiet: u16,
    /// The mover's best class after a capture or promotion.
    pub(crate) best: Option<Wdl50>,
    /// Bit `k`: single push of the mover's pawn `k`; bit `3 + k`: its double push.
    pub(crate) pushes: u8,
}

impl Record {
    /// The two bytes of a record.
    pub(crate) fn encode(self) -> u16 {
        let class = self.best.map_or(1, |c| (4 + c.to_i8()) as u16);
        (self.quiet.min(QUIET)) | (class << CLASS_SHIFT) | (u16::from(self.pushes) << PUSH_SHIFT)
    }

    /// The record in two bytes; `None` for an entry that is no position.
    pub(crate) fn decode(cell: u16) -> Option<Record> {
        let class = (cell >> CLASS_SHIFT) & 7;
        (class != 0).then(|| Record {
            quiet: cell & QUIET,
            best: (class >= 2).then(|| Wdl50::from_i8(class as i8 - 4)),
            pushes: (cell >> PUSH_SHIFT) as u8,
        })
    }
}

/// The records of one material, filled by the DTM init pass (see the module docs), with what
/// it needs to class the positions its captures and promotions lead to.
pub struct Records {
    dir: PathBuf,
    material: Material,
    /// The DTZ50 tables of the current stage's sub-tables whose mates may be longer than the
    /// rule allows (see [`Records::class`]), each with its material's key and colour-swapped key,
    /// in memory for the sides to move the stage reaches.
    long: Vec<(u64, u64, Table)>,
    /// Per side to move, a record per entry (zero: no position).
    pub(crate) cells: ByColor<Atomics<AtomicU16>>,
    /// Per slot, the index of its pawn among the pawns of its side (for the push bits).
    pawn_of: Vec<u8>,
}

impl Records {
    /// Empty records of `material`, whose sub-tables' DTM and DTZ50 files are in `dir`; `None`
    /// when a side has more pawns than a record holds.
    pub fn new(dir: PathBuf, material: Material) -> Option<Records> {
        let ix = IndexScheme::new(material);
        let slots = ix.slots();
        let pawn_of: Vec<u8> = (0..slots.len())
            .map(|i| (0..i).filter(|&j| slots[j] == slots[i]).count() as u8)
            .collect();
        let too_many = [Color::White, Color::Black]
            .iter()
            .any(|&c| usize::from(material.count(c, Role::Pawn)) > MAX_RECORDED_PAWNS);
        if too_many {
            return None;
        }
        let size = ix.size() as usize;
        let mk = || Atomics::<AtomicU16>::zeroed(size, Pages::Default);
        Some(Records {
            dir,
            material,
            long: Vec::new(),
            cells: ByColor::new_with(|_| mk()),
            pawn_of,
        })
    }

    /// Loads the classes of the sub-tables of `stage` (the previous stage's are dropped first).
    ///
    /// # Errors
    /// A sub-table that is missing or cannot be read.
    pub(crate) fn load_stage(&mut self, stage: Stage) -> Result<(), DtzError> {
        self.long.clear();
        for (m, sides) in stage_successors(self.material, stage) {
            let dtm = Table::open(&self.dir.join(file_name(m)), Some(m))?;
            let stats = dtm.stats();
            if stats.longest_win.max(stats.longest_loss) <= RULE_PLIES {
                continue;
            }
            let t = std::time::Instant::now();
            let dtz = Table::open_dtz(&self.dir.join(Metric::Dtz.file_name(m)), Some(m))?
                .into_memory(sides)?;
            log::debug!(
                "{}: DTZ50 values of {} read in {:.2} s",
                self.material.name(),
                m.name(),
                t.elapsed().as_secs_f64()
            );
            self.long.push((m.key(), m.swapped().key(), dtz));
        }
        Ok(())
    }

    /// Drops the current stage's sub-tables.
    pub(crate) fn release_stage(&mut self) {
        self.long.clear();
    }

    /// The class under the rule of entry `idx` (`side` to move, in the table's own
    /// orientation) of the sub-table of material key `key`, whose DTM value there is `v`.
    ///
    /// After a zeroing move the clock is 0, so a mate within 100 plies is within the rule: the
    /// winner's fastest mate reaches it, and every zeroing move on the way leads to a mate
    /// nearer still. Only a longer one needs the DTZ50 table.
    #[inline]
    pub(crate) fn class(
        &self,
        key: u64,
        idx: u64,
        side: Color,
        v: Value,
    ) -> Result<Wdl50, DtzError> {
        let within = v.plies() <= RULE_PLIES;
        match v.wdl() {
            Wdl::Draw => return Ok(Wdl50::Draw),
            Wdl::Win if within => return Ok(Wdl50::Win),
            Wdl::Loss if within => return Ok(Wdl50::Loss),
            _ => {}
        }
        let Some((_, _, t)) = self.long.iter().find(|(k, s, _)| *k == key || *s == key) else {
            return Err(DtzError::MissingSubTable(
                Material::from_key(key).canonical().name(),
            ));
        };
        let stored = t.get_byte(side, idx)?;
        Dtz::from_tables(v.to_planes().0, stored)
            .map(Dtz::wdl50)
            .ok_or_else(|| DtzError::NotIndexable(t.material().name()))
    }

    /// The push bit of the pawn in `slot` (`double`: two squares).
    #[inline]
    pub(crate) fn push_bit(&self, slot: usize, double: bool) -> u8 {
        push_bit(self.pawn_of.get(slot).copied().unwrap_or(0), double)
    }

    /// Stores the record of entry `idx` with `side` to move.
    #[inline]
    pub(crate) fn store(&self, side: Color, idx: u64, record: Record) {
        if let Some(c) = self.cells[side].get(idx as usize) {
            c.store(record.encode(), Relaxed);
        }
    }

    /// The cells, for the DTZ50 solve.
    pub(crate) fn into_cells(self) -> ByColor<Atomics<AtomicU16>> {
        self.cells
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let classes = [
            None,
            Some(Wdl50::Loss),
            Some(Wdl50::BlessedLoss),
            Some(Wdl50::Draw),
            Some(Wdl50::CursedWin),
            Some(Wdl50::Win),
        ];
        for best in classes {
            for quiet in [0, 1, 37, 89, 127] {
                for pushes in [0u8, 1, 0b10_0101, 0x3F] {
                    let r = Record {
                        quiet,
                        best,
                        pushes,
                    };
                    assert_eq!(Record::decode(r.encode()), Some(r));
                }
            }
        }
        assert_eq!(Record::decode(0), None);
    }
}
