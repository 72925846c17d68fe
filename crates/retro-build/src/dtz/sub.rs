//! The win/draw/loss under the 50-move rule of the tables a DTZ solve's zeroing moves lead to
//! (captures and promotions), one byte per entry in memory.

use std::{path::Path, sync::Arc};

use rayon::prelude::*;
use shakmaty::{ByColor, Color, Role};

use crate::{
    error::DtzError,
    kernel::{
        exits::{plan_slot, ExitPlan},
        Stage,
    },
    stage_successors,
};
use retro_tables::{
    format::{file_name, Metric, Table},
    index::{IndexScheme, Squares},
    Dtz, Material, Wdl50,
};

/// One material's [`Wdl50`] classes (as Syzygy's numbers, -2 to 2), per side to move; a side
/// may be left out.
pub struct Wdl50Data {
    scheme: IndexScheme,
    sides: ByColor<Option<Vec<i8>>>,
}

impl Wdl50Data {
    /// Classes given directly (for tables read from files), `None` for a side not loaded.
    pub fn from_classes(material: Material, sides: ByColor<Option<Vec<i8>>>) -> Wdl50Data {
        Wdl50Data {
            scheme: IndexScheme::new(material),
            sides,
        }
    }

    /// The classes of a material read from its DTM and DTZ tables in `dir`, for the sides to
    /// move (white, black) that `sides` asks for.
    ///
    /// # Errors
    /// A missing or invalid table, or a DTZ table that does not fit its DTM table.
    pub fn read(dir: &Path, material: Material, sides: [bool; 2]) -> Result<Wdl50Data, DtzError> {
        let dtm =
            Table::open(&dir.join(file_name(material)), Some(material))?.into_memory(sides)?;
        let dtz = Table::open_dtz(&dir.join(Metric::Dtz.file_name(material)), Some(material))?
            .into_memory(sides)?;
        let side = |side: Color| -> Result<Vec<i8>, DtzError> {
            let (Some(m), Some(z)) = (dtm.side_in_memory(side), dtz.side_in_memory(side)) else {
                return Err(DtzError::MissingSubTable(material.name()));
            };
            // A win or loss without a distance can only be an entry that is no legal position
            // (compressed tables hold anything there), which is never looked up; the blocks'
            // checksums guard the others.
            Ok(m.par_iter()
                .zip(z.par_iter())
                .map(|(&m, &z)| Dtz::from_tables(m, z).map_or(0, |d| d.wdl50().to_i8()))
                .collect())
        };
        let white = if sides[0] {
            Some(side(Color::White)?)
        } else {
            None
        };
        let black = if sides[1] {
            Some(side(Color::Black)?)
        } else {
            None
        };
        Ok(Wdl50Data::from_classes(material, ByColor { white, black }))
    }

    /// The material.
    pub fn material(&self) -> Material {
        self.scheme.material()
    }
}

/// The sub-tables of a solve, by material key in either orientation.
#[derive(Default, Clone)]
pub struct Wdl50Tables {
    tables: Vec<(u64, u64, Arc<Wdl50Data>)>,
}

impl Wdl50Tables {
    /// The classes of every table a zeroing move of `material` leads to, read from `dir`:
    /// of each, only the side to move that such a move leaves (half the memory and the reading
    /// of both).
    ///
    /// # Errors
    /// As [`Wdl50Data::read`].
    pub fn open_for(dir: &Path, material: Material) -> Result<Wdl50Tables, DtzError> {
        Wdl50Tables::open_stage(dir, material, Stage::InitBoth)
    }

    /// The classes of the tables one stage of solving `material` looks up (see
    /// [`crate::SubTables::open_for`]), of each only the sides to move it reaches.
    ///
    /// # Errors
    /// As [`Wdl50Data::read`].
    pub fn open_stage(
        dir: &Path,
        material: Material,
        stage: Stage,
    ) -> Result<Wdl50Tables, DtzError> {
        let mut out = Wdl50Tables::default();
        for (m, sides) in stage_successors(material, stage) {
            let t = std::time::Instant::now();
            out.insert(Arc::new(Wdl50Data::read(dir, m, sides)?));
            log::debug!(
                "{}: WDL50 classes of {} read in {:.2} s",
                material.name(),
                m.name(),
                t.elapsed().as_secs_f64()
            );
        }
        Ok(out)
    }

    /// Adds (or replaces) a material's classes.
    pub fn insert(&mut self, data: Arc<Wdl50Data>) {
        let m = data.material();
        self.tables.retain(|(k, _, _)| *k != m.key());
        self.tables.push((m.key(), m.swapped().key(), data));
    }

    /// The class, for `side` to move, of the position `sq` (in the slot order of `material`,
    /// the table being solved, whose exit plans are `plans`) after the exit that leaves out
    /// slot `skip` and promotes `promo`.
    ///
    /// # Errors
    /// No plan for that exit, or its sub-table missing or not indexing the position.
    pub(crate) fn exit_class(
        &self,
        material: Material,
        plans: &[Option<ExitPlan>],
        sq: &Squares,
        skip: usize,
        promo: Option<(usize, Role)>,
        side: Color,
    ) -> Result<Wdl50, DtzError> {
        let Some(Some(plan)) = plans.get(plan_slot(skip, promo)) else {
            return Err(DtzError::MissingSubTable(format!(
                "{} (no exit plan for slot {skip})",
                material.name()
            )));
        };
        self.class(plan, sq, side)
    }

    /// The class, for `side` to move, of the position `sq` (in the solved table's
    /// slot order) after the exit `plan`.
    #[inline]
    pub(crate) fn class(
        &self,
        plan: &ExitPlan,
        sq: &Squares,
        side: Color,
    ) -> Result<Wdl50, DtzError> {
        if plan.key() == 0 {
            return Ok(Wdl50::Draw); // bare kings
        }
        let Some((data, swap)) = self.tables.iter().find_map(|(own, swapped, t)| {
            (*own == plan.key())
                .then_some((t, false))
                .or_else(|| (*swapped == plan.key()).then_some((t, true)))
        }) else {
            return Err(DtzError::MissingSubTable(
                Material::from_key(plan.key()).canonical().name(),
            ));
        };
        let mapped = plan.map(sq, swap);
        // The side to move in the table's own orientation.
        let plane = if swap { side.other() } else { side };
        let idx = data
            .scheme
            .index(&mapped)
            .ok_or_else(|| DtzError::NotIndexable(data.material().name()))?;
        data.class(idx, plane)
    }
}

impl Wdl50Data {
    /// The class of entry `idx` with `side` to move.
    #[inline]
    fn class(&self, idx: u64, side: Color) -> Result<Wdl50, DtzError> {
        let values = self.sides[side]
            .as_ref()
            .ok_or_else(|| DtzError::MissingSubTable(self.material().name()))?;
        let v = values
            .get(idx as usize)
            .ok_or_else(|| DtzError::NotIndexable(self.material().name()))?;
        Ok(Wdl50::from_i8(*v))
    }
}
