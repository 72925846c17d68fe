//! The table file format (described in tables/README.md): a 96-byte header ([`header`]), then
//! the values of both sides to move, either raw (one byte per entry, index order) or in blocks
//! compressed independently with zstd behind an index of block offsets. Files are written
//! atomically ([`writer`]) and memory-mapped for probing ([`reader`]); a probe of a compressed
//! table decodes one block, as far as the entry it needs
//! (`zstd_prefix`), into the process-wide `cache`; whole
//! blocks (checks, recompression) are decompressed by libzstd. Every byte of a file is
//! untrusted. A mapped file must not be truncated or written in place while it is open: see
//! *Safety of the map* in [`Table::open`].

pub mod header;
pub mod reader;
pub mod writer;

pub use self::{
    header::{checksum, Checksum},
    reader::Table,
    writer::{
        recompress, recompress_dtz, write_table, write_table_as, write_table_by_side, SideData,
        TableData, Written,
    },
};
pub use super::error::TableError;
use super::material::Material;

/// File magic of DTM tables.
pub const MAGIC: &[u8; 8] = b"RETRODTM";
/// File magic of DTZ50 tables.
pub const MAGIC_DTZ: &[u8; 8] = b"RETRODTZ";
/// Format version this build reads and writes.
pub const VERSION: u32 = 2;
/// Header length in bytes.
pub const HEADER_LEN: usize = 96;
/// Entries per compressed block, unless the writer is told otherwise.
pub const BLOCK_LEN: u32 = 4096;
/// The zstd level of compressed blocks, unless the writer is told otherwise.
pub const ZSTD_LEVEL: i32 = 12;
/// The zstd level of the blocks of DTZ50 tables, unless the writer is told otherwise: their
/// values compress well at a low level (KRPvKR: level 12 gives 27.05 MB, level 6 27.82 MB in
/// a third of the time).
pub const DTZ_ZSTD_LEVEL: i32 = 6;
/// Largest block length a reader accepts (it sizes the buffers).
pub const MAX_BLOCK_LEN: u32 = 1 << 20;
/// File name extension of DTM table files.
pub const EXTENSION: &str = "rdtm";
/// File name extension of DTZ50 table files.
pub const EXTENSION_DTZ: &str = "rdtz";

/// What a table file holds: the same container, another magic and extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Metric {
    /// Depth to mate: one [`crate::Value`] byte per entry.
    Dtm,
    /// Distance to zeroing under the 50-move rule: per entry, the DTZ's magnitude in plies (0
    /// for draws); its sign is the DTM table's (see `crate::dtz`).
    Dtz,
}

impl Metric {
    /// Every metric, in the order a build makes them (a DTZ50 table is solved from the DTM one's
    /// wins and losses) and a reader tries their magics.
    pub const ALL: [Metric; Metric::COUNT] = [Metric::Dtm, Metric::Dtz];

    /// How many metrics there are.
    pub const COUNT: usize = 2;

    /// This metric's place in [`Metric::ALL`], for arrays indexed by metric.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The file magic.
    pub const fn magic(self) -> &'static [u8; 8] {
        match self {
            Metric::Dtm => MAGIC,
            Metric::Dtz => MAGIC_DTZ,
        }
    }

    /// The file name extension.
    pub const fn extension(self) -> &'static str {
        match self {
            Metric::Dtm => EXTENSION,
            Metric::Dtz => EXTENSION_DTZ,
        }
    }

    /// The file name of a material's table of this metric.
    pub fn file_name(self, material: Material) -> String {
        format!("{}.{}", material.name(), self.extension())
    }
}

/// Summary figures stored in a header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Longest win for the side to move, in plies.
    pub longest_win: u32,
    /// Longest loss for the side to move, in plies.
    pub longest_loss: u32,
}

/// The file name of a material's DTM table.
pub fn file_name(material: Material) -> String {
    Metric::Dtm.file_name(material)
}

/// How a table's values are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// One byte per entry, index order.
    Raw,
    /// Blocks of `block_len` entries, each a zstd frame at `level`.
    Blocks {
        /// Entries per block.
        block_len: u32,
        /// zstd compression level (1..=22).
        level: i32,
    },
}

/// Settings of compressed tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compression {
    /// Entries per block.
    pub block_len: u32,
    /// zstd level of DTM tables.
    pub level: i32,
    /// zstd level of DTZ50 tables.
    pub dtz_level: i32,
}

impl Compression {
    /// The zstd level of the tables of `metric`.
    pub const fn level_of(self, metric: Metric) -> i32 {
        match metric {
            Metric::Dtm => self.level,
            Metric::Dtz => self.dtz_level,
        }
    }
}

impl Default for Compression {
    fn default() -> Compression {
        Compression {
            block_len: BLOCK_LEN,
            level: ZSTD_LEVEL,
            dtz_level: DTZ_ZSTD_LEVEL,
        }
    }
}

impl Encoding {
    /// The encoding `build-tables` uses for a material's table of `metric`. DTM: raw up to 4
    /// pieces (small, and probed without decompression while 5-piece tables are built),
    /// compressed blocks from 5. DTZ50: compressed blocks at every size (a DTZ50 probe reads the
    /// DTM table first, and the DTZ50 files of 3 and 4 pieces compress to a tenth of their raw
    /// size). The level is the metric's ([`Compression::level_of`]).
    pub fn for_table(metric: Metric, material: Material, compression: Compression) -> Encoding {
        let blocks = match metric {
            Metric::Dtm => material.piece_count() >= 5,
            Metric::Dtz => true,
        };
        if blocks {
            Encoding::Blocks {
                block_len: compression.block_len,
                level: compression.level_of(metric),
            }
        } else {
            Encoding::Raw
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Metric;

    #[test]
    fn metric_index_is_its_place_in_all() {
        for (i, m) in Metric::ALL.into_iter().enumerate() {
            assert_eq!(m.index(), i);
        }
        let mut ext: Vec<_> = Metric::ALL.iter().map(|m| m.extension()).collect();
        ext.sort_unstable();
        ext.dedup();
        assert_eq!(ext.len(), Metric::COUNT);
    }
}
