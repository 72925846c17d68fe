//! The errors of the tablebase layer, in one place below the files that raise them (as
//! shakmaty-syzygy keeps its errors): [`TableError`] for a table file that cannot be opened,
//! written or decoded, and [`ProbeError`] for a position the tables give no value for.

use std::{fmt, io, path::PathBuf, sync::Arc};

use super::{format::VERSION, material::MAX_PIECES, zstd_prefix::DecodeError as PrefixError};

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
    /// The file is not a Retro table or is cut short.
    #[error("{path}: not a Retro table ({why})")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
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
        side: Side,
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
        side: Side,
    },
}

/// A side to move, as messages name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// White to move.
    White,
    /// Black to move.
    Black,
}

impl Side {
    /// The side of index `side` (0 white, 1 black).
    pub fn of(side: usize) -> Side {
        if side == 0 {
            Side::White
        } else {
            Side::Black
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::White => "white",
            Side::Black => "black",
        })
    }
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
