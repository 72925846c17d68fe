//! The errors of the tablebase layer, in one place below the files that raise them (as
//! shakmaty-syzygy keeps its errors): [`TableError`] for a table file that cannot be opened,
//! written or decoded, and [`ProbeError`] for a position the tables give no value for.

use std::{io, path::PathBuf, sync::Arc};

use shakmaty::Color;

use super::{
    dtz::Wdl50,
    format::{Metric, VERSION},
    material::{Material, MaterialError, MAX_PIECES},
    zstd_prefix::DecodeError as PrefixError,
};

/// An error opening or writing a table file. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The file is not a Retro table, is cut short, or contradicts itself.
    #[error("{path}: not a Retro table ({why})")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: FormatError,
    },
    /// The file has another format version.
    #[error("{path}: format version {found}, this build reads version {VERSION}")]
    Version {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u32,
    },
    /// The file's contents do not match its checksum.
    #[error(
        "{path}: checksum mismatch, the file is corrupted (rebuild it with build-tables --force)"
    )]
    Checksum {
        /// The file.
        path: PathBuf,
    },
    /// A compressed block cannot be read.
    #[error("{path}: not a Retro table (block {block} ({side} to move) {cause})")]
    Block {
        /// The file.
        path: PathBuf,
        /// The side to move of the block.
        side: Color,
        /// The block's number within its side.
        block: u64,
        /// What is wrong with it.
        cause: BlockError,
    },
    /// A table opened with one side to move in memory was probed for the other.
    #[error("{path}: the {side} to move values are not loaded")]
    SideNotLoaded {
        /// The file.
        path: PathBuf,
        /// The side probed.
        side: Color,
    },
}

/// What is wrong with a file that is not a valid Retro table ([`TableError::Format`]).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// The file is shorter than the header.
    #[error("{len} bytes, shorter than the header")]
    ShorterThanHeader {
        /// The file's length.
        len: usize,
    },
    /// The file starts with neither table magic.
    #[error("wrong magic")]
    Magic,
    /// The header states another header length.
    #[error("unexpected header length")]
    HeaderLength,
    /// The header's material name is not text.
    #[error("material name")]
    MaterialText,
    /// The header's material name is no material.
    #[error("material name: {0}")]
    MaterialName(MaterialError),
    /// The header's material is not the canonical side of its pair.
    #[error("material {0} is not in canonical orientation")]
    NotCanonical(Material),
    /// The file holds another material than the one asked for.
    #[error("holds {found}, expected {expected}")]
    OtherMaterial {
        /// The file's material.
        found: Material,
        /// The material asked for.
        expected: Material,
    },
    /// A side's digit order is not padded as the material's digits require.
    #[error("digit order does not match the material")]
    DigitOrder,
    /// A side's digit order is not a permutation of the index's digits.
    #[error("digit order is no permutation")]
    NoPermutation,
    /// The header's index scheme is not the material's.
    #[error("index scheme does not match the material")]
    Scheme,
    /// The header states another number of entries than the material has.
    #[error("{found} entries per side, {expected} expected")]
    Entries {
        /// Entries the header states.
        found: u64,
        /// Entries the material has.
        expected: u64,
    },
    /// A DTM file where a DTZ50 file is expected, or the other way round.
    #[error("a {found:?} table where a {expected:?} table is expected")]
    Metric {
        /// The file's metric.
        found: Metric,
        /// The metric asked for.
        expected: Metric,
    },
    /// The header names a storage this build does not know.
    #[error("unknown storage {0}")]
    Storage(u8),
    /// The header's count of extension planes is neither 0 nor 1, or extension planes in a
    /// raw table.
    #[error("{0} extension planes (0, or 1 in a compressed table)")]
    Planes(u8),
    /// Values to write with an extension plane of the wrong length.
    #[error("an extension plane of {got} values, {expected} expected")]
    ExtensionPlane {
        /// Its length.
        got: usize,
        /// The entries per side.
        expected: u64,
    },
    /// The file's length is not what its header makes it.
    #[error("{len} bytes, {expected} expected (truncated or padded)")]
    Length {
        /// The file's length.
        len: u64,
        /// The length its header makes it.
        expected: u64,
    },
    /// A raw table in another order than the index order.
    #[error("a raw table is stored in index order")]
    RawOrder,
    /// A compressed table's block length out of range.
    #[error("block length {0}")]
    BlockLength(u32),
    /// The block index is cut short.
    #[error("truncated block index")]
    BlockIndex,
    /// The block index's offsets do not ascend from 0.
    #[error("block offset {0} out of order")]
    BlockOffset(usize),
    /// A block past the table's blocks.
    #[error("block {0} out of range")]
    BlockOutOfRange(u64),
    /// A block decoded to another number of entries than it holds.
    #[error("block {block} holds {got} entries, not {expected}")]
    BlockEntries {
        /// The block.
        block: usize,
        /// Entries decoded.
        got: usize,
        /// Entries it holds.
        expected: usize,
    },
    /// A side decoded to another number of values than the table has entries.
    #[error("{got} values, {expected} expected")]
    Values {
        /// Values decoded.
        got: usize,
        /// Entries per side.
        expected: u64,
    },
    /// Values given for a side are not one per entry.
    #[error("{0} values per side expected")]
    ValuesPerSide(u64),
    /// Values to write are not one per entry.
    #[error("{white} and {black} values to write, {expected} expected")]
    ValuesToWrite {
        /// White-to-move values given.
        white: usize,
        /// Black-to-move values given.
        black: usize,
        /// Entries per side.
        expected: usize,
    },
    /// Recompression of a raw table.
    #[error("not a compressed table (3- and 4-piece tables are kept raw)")]
    NotCompressed,
    /// A DTZ50 win longer than the file's byte holds.
    #[error("entry {0} holds a win longer than 255 plies")]
    LongWin(usize),
    /// A value of the table (or of the DTM table beside it) could not be read.
    #[error("{0}")]
    Unreadable(ProbeError),
    /// A DTZ50 entry without a distance where the DTM table has a win or a loss.
    #[error("entry {0} holds no distance where the DTM table has a win or loss")]
    NoDistance(u64),
    /// A DTZ50 loss whose moves give it another class than the one stored.
    #[error("entry {entry} is stored as a {stored} but its moves make it a {searched}")]
    LossClass {
        /// The entry.
        entry: u64,
        /// The class stored.
        stored: Wdl50,
        /// The class its moves give.
        searched: Wdl50,
    },
    /// The searches of lost positions nest without end.
    #[error("the searches of lost positions do not end")]
    EndlessLossSearch,
    /// A position the table has lost has a move that does not lose.
    #[error("a lost position ({fen}) has a move that does not lose")]
    LossWithEscape {
        /// The position.
        fen: String,
    },
}

/// What is wrong with a compressed block.
#[derive(Debug, thiserror::Error)]
pub enum BlockError {
    /// The block's bytes do not match the checksum in the block index.
    #[error("fails its checksum, the file is corrupted (rebuild it with build-tables --force)")]
    Checksum,
    /// libzstd refused the frame.
    #[error("is corrupt: {0}")]
    Zstd(io::Error),
    /// Retro's prefix decoder refused the frame.
    #[error("is corrupt: {0}")]
    Prefix(PrefixError),
    /// The frame decoded to another number of values than the block holds.
    #[error("is corrupt: {got} values, {expected} expected")]
    Length {
        /// Values decoded.
        got: usize,
        /// Values the block holds.
        expected: usize,
    },
    /// The frame ended before the entry wanted.
    #[error("is corrupt: {got} values, entry {need} wanted")]
    Short {
        /// Values decoded.
        got: usize,
        /// The entry wanted.
        need: usize,
    },
    /// The decoded values differ from those they were to replace (recompression).
    #[error("does not decompress to its values")]
    Differs,
}

impl PartialEq for TableError {
    /// The same kind of error about the same file (I/O errors by their kind, block errors by
    /// their block and message).
    fn eq(&self, other: &TableError) -> bool {
        use TableError::*;
        match (self, other) {
            (Io { path: a, source: x }, Io { path: b, source: y }) => {
                a == b && x.kind() == y.kind()
            }
            (Format { path: a, why: x }, Format { path: b, why: y }) => a == b && x == y,
            (Version { path: a, found: x }, Version { path: b, found: y }) => a == b && x == y,
            (Checksum { path: a }, Checksum { path: b }) => a == b,
            (SideNotLoaded { path: a, side: x }, SideNotLoaded { path: b, side: y }) => {
                a == b && x == y
            }
            (
                Block {
                    path: a,
                    side: s,
                    block: k,
                    cause: x,
                },
                Block {
                    path: b,
                    side: t,
                    block: l,
                    cause: y,
                },
            ) => a == b && s == t && k == l && x.to_string() == y.to_string(),
            _ => false,
        }
    }
}

impl Eq for TableError {}

/// Why a position could not be probed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    /// Tables hold positions without castling rights only.
    #[error("castling rights are present")]
    Castling,
    /// More pieces than any table has.
    #[error("{0} pieces, tables hold at most {MAX_PIECES}")]
    TooManyPieces(usize),
    /// No table of this material is loaded.
    #[error("no table for {0}")]
    MissingTable(String),
    /// The table exists but was refused, or a block of it cannot be read.
    #[error("table refused: {0}")]
    BadTable(Arc<TableError>),
    /// The pieces do not form a position a table holds.
    #[error("position not in its table ({0})")]
    NotIndexable(String),
    /// A mate longer than a value can hold.
    #[error("mate distance out of range")]
    Overflow,
}
