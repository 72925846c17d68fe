//! The win/draw/loss under the 50-move rule of the tables a DTZ solve's zeroing moves lead to
//! (captures and promotions), one byte per entry in memory.

use std::{
    path::Path,
    sync::{
        atomic::{AtomicU8, Ordering::Relaxed},
        Arc,
    },
};

use rayon::prelude::*;
use shakmaty::{ByColor, Color, Role};

use crate::{
    error::DtzError,
    kernel::{
        exits::{plan_slot, ExitPlan},
        Stage,
    },
    metric::{Dtz50, Zeroing, ZeroingFiles},
    stage_successors, successors_reaching,
};
use retro_tables::{
    format::{file_name, Table},
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

    /// The DTZ50 classes of a material read from its DTM and DTZ50 tables in `dir`, for the
    /// sides to move (white, black) that `sides` asks for.
    ///
    /// # Errors
    /// A missing or invalid table, or a DTZ table that does not fit its DTM table.
    pub fn read(dir: &Path, material: Material, sides: [bool; 2]) -> Result<Wdl50Data, DtzError> {
        Wdl50Data::read_metric::<Dtz50>(dir, material, sides)
    }

    /// As [`Wdl50Data::read`], the classes of the zeroing metric `M` from its DTM table and
    /// its table of `M` ([`ZeroingFiles::FILE`]).
    ///
    /// # Errors
    /// As [`Wdl50Data::read`].
    pub(crate) fn read_metric<M: ZeroingFiles>(
        dir: &Path,
        material: Material,
        sides: [bool; 2],
    ) -> Result<Wdl50Data, DtzError> {
        let dtm = Table::open(&dir.join(file_name(material)), Some(material))?;
        let dtz = Table::open_metric(
            &dir.join(M::FILE.file_name(material)),
            Some(material),
            M::FILE,
        )?;
        let blocks = dtm.planes() > 1 || dtz.planes() > 1;
        let (dtm, dtz) = if blocks {
            // Tables with extension bytes (6 pieces) stay in their blocks, read one at a time.
            (dtm, dtz)
        } else {
            (dtm.into_memory(sides)?, dtz.into_memory(sides)?)
        };
        let side = |side: Color| -> Result<Vec<i8>, DtzError> {
            if blocks {
                return classes_from_blocks::<M>(&dtm, &dtz, side);
            }
            let (Some(m), Some(z)) = (dtm.side_in_memory(side), dtz.side_in_memory(side)) else {
                return Err(DtzError::MissingSubTable(material.name()));
            };
            // A win or loss without a distance can only be an entry that is no legal position
            // (compressed tables hold anything there), which is never looked up; the blocks'
            // checksums guard the others.
            Ok(m.par_iter()
                .zip(z.par_iter())
                .map(|(&m, &z)| class_of::<M>(m, u16::from(z)))
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

/// The class in the metric `M` (Syzygy's number) of an entry whose DTM table's first byte is
/// `dtm` and whose table of `M` stores `stored`; 0 for a win or loss without a distance, which
/// can only be an entry that is no legal position (never looked up).
fn class_of<M: Zeroing>(dtm: u8, stored: u16) -> i8 {
    Dtz::from_stored(dtm, stored).map_or(0, |d| M::class(d).to_i8())
}

/// Calls `f(idx, first, ext)` for every entry of `side` of the compressed `table`, with its
/// first byte and its extension byte (0 in a table of one plane), block by block in parallel.
fn for_each_entry(
    table: &Table,
    side: Color,
    f: impl Fn(u64, u8, u8) + Sync,
) -> Result<(), DtzError> {
    let Some((blocks, block_len)) = table.blocks() else {
        return Err(DtzError::MissingSubTable(table.material().name()));
    };
    let planes = usize::from(table.planes());
    (0..blocks).into_par_iter().try_for_each_init(
        || (Vec::new(), Vec::new()),
        |(first, ext), b| -> Result<(), DtzError> {
            table.read_block(side, 0, b, first)?;
            if planes > 1 {
                table.read_block(side, 1, b, ext)?;
            }
            let start = b * u64::from(block_len);
            for (k, &byte) in first.iter().enumerate() {
                let e = if planes > 1 {
                    ext.get(k).copied().unwrap_or(0)
                } else {
                    0
                };
                f(table.index_at(side, start + k as u64), byte, e);
            }
            Ok(())
        },
    )
}

/// The classes of `side` of a material whose tables stay in compressed blocks (those with
/// extension bytes, as 6-piece tables can be): the DTM table's first bytes are read into the
/// classes' place, then each is replaced by its class from the DTZ table's stored number. The
/// two files may order their entries differently; each pass writes every entry once.
fn classes_from_blocks<M: Zeroing>(
    dtm: &Table,
    dtz: &Table,
    side: Color,
) -> Result<Vec<i8>, DtzError> {
    let n = usize::try_from(dtm.scheme().size())
        .map_err(|_| DtzError::MissingSubTable(dtm.material().name()))?;
    let bytes: Vec<AtomicU8> = std::iter::repeat_with(|| AtomicU8::new(0))
        .take(n)
        .collect();
    let at = |idx: u64| usize::try_from(idx).ok().and_then(|i| bytes.get(i));
    for_each_entry(dtm, side, |idx, first, _| {
        if let Some(b) = at(idx) {
            b.store(first, Relaxed);
        }
    })?;
    for_each_entry(dtz, side, |idx, first, ext| {
        if let Some(b) = at(idx) {
            let stored = Dtz::stored_from_planes(first, ext);
            // The class as its byte (two's complement), read back below.
            b.store(class_of::<M>(b.load(Relaxed), stored) as u8, Relaxed);
        }
    })?;
    Ok(bytes.into_iter().map(|b| b.into_inner() as i8).collect())
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

    /// As [`Wdl50Tables::open_for`]; without `promotions`, the tables of as many pieces as
    /// `material` (those only a promotion without a capture leads to) are left out.
    ///
    /// # Errors
    /// As [`Wdl50Data::read`].
    pub(crate) fn open_reaching(
        dir: &Path,
        material: Material,
        promotions: bool,
    ) -> Result<Wdl50Tables, DtzError> {
        Wdl50Tables::read_all::<Dtz50>(
            dir,
            material,
            successors_reaching(material, Stage::InitBoth, promotions),
        )
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
        Wdl50Tables::open_stage_metric::<Dtz50>(dir, material, stage)
    }

    /// As [`Wdl50Tables::open_stage`], the classes of the zeroing metric `M` from its files.
    ///
    /// # Errors
    /// As [`Wdl50Data::read`].
    pub(crate) fn open_stage_metric<M: ZeroingFiles>(
        dir: &Path,
        material: Material,
        stage: Stage,
    ) -> Result<Wdl50Tables, DtzError> {
        Wdl50Tables::read_all::<M>(dir, material, stage_successors(material, stage))
    }

    /// The classes in the metric `M` of `tables` (materials with the sides to move to read),
    /// sub-tables of `material`.
    fn read_all<M: ZeroingFiles>(
        dir: &Path,
        material: Material,
        tables: Vec<(Material, [bool; 2])>,
    ) -> Result<Wdl50Tables, DtzError> {
        let mut out = Wdl50Tables::default();
        for (m, sides) in tables {
            let t = std::time::Instant::now();
            out.insert(Arc::new(Wdl50Data::read_metric::<M>(dir, m, sides)?));
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

#[cfg(test)]
mod tests {
    use super::*;
    use retro_tables::format::{write_table_as, Compression, Encoding, Metric, TableData};

    /// Rewrites `metric`'s table of `m` in `dir` as compressed blocks with an extension plane
    /// (all zeros: every value fits its first byte), as a 6-piece table with long values is.
    fn rewrite_with_planes(dir: &Path, metric: Metric, m: Material) {
        let path = dir.join(metric.file_name(m));
        let t = match metric {
            Metric::Dtm => Table::open(&path, Some(m)),
            Metric::Dtz => Table::open_dtz(&path, Some(m)),
        }
        .expect("table")
        .into_memory([true, true])
        .expect("in memory");
        let white = t.side_in_memory(Color::White).expect("white").to_vec();
        let black = t.side_in_memory(Color::Black).expect("black").to_vec();
        let zeros = vec![0u8; white.len()];
        let data = TableData {
            white: &white,
            black: &black,
            legal: None,
            ext: Some([&zeros, &zeros]),
        };
        let encoding = Encoding::Blocks {
            block_len: 4096,
            level: Compression::default().level,
        };
        let stats = t.stats();
        drop(t);
        write_table_as(dir, metric, m, data, stats, encoding).expect("written");
    }

    /// Classes read from tables kept in blocks with extension planes (the 6-piece sub-tables of
    /// a 6-piece table with pawns) equal those read from the same tables in memory.
    #[test]
    fn classes_from_blocks_with_extension_planes_equal_those_in_memory() {
        let m: Material = "KRvKN".parse().expect("material");
        let dir = tempfile::tempdir().expect("dir");
        crate::build_for_test(dir.path(), &[m]);
        let want = Wdl50Data::read(dir.path(), m, [true, true]).expect("classes");
        for metric in [Metric::Dtm, Metric::Dtz] {
            rewrite_with_planes(dir.path(), metric, m);
        }
        let dtm = Table::open(&dir.path().join(file_name(m)), Some(m)).expect("dtm");
        assert_eq!(
            dtm.planes(),
            2,
            "the rewritten table has an extension plane"
        );
        let got = Wdl50Data::read(dir.path(), m, [true, false]).expect("classes from blocks");
        let (Some(w), Some(g)) = (&want.sides.white, &got.sides.white) else {
            panic!("white's classes missing");
        };
        assert!(got.sides.black.is_none(), "black was not asked for");
        assert_eq!(w.len(), g.len());
        let differ = w.iter().zip(g).filter(|(a, b)| a != b).count();
        assert_eq!(differ, 0, "{differ} classes differ");
        let decided = g.iter().filter(|&&c| c != 0).count();
        assert!(decided > 1000, "only {decided} entries won or lost");
    }
}
