//! Reading table files: [`Table::open`] maps a file and checks its header, its values'
//! checksum or its block index; [`Table::get`] reads one value, decoding its block into the
//! block cache when the table is compressed.

use std::{
    cell::RefCell,
    fs::File,
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicU64, Ordering::Relaxed},
        Arc,
    },
};

use memmap2::Mmap;
use rayon::prelude::*;
use shakmaty::Color;

use super::{
    header::{block_sum, checksum, Header, STORAGE_RAW, STORAGE_ZSTD},
    Metric, Stats, HEADER_LEN, MAX_BLOCK_LEN,
};
use crate::{
    cache,
    error::FormatError,
    error::{BlockError, ProbeError, TableError},
    index::IndexScheme,
    layout::Layout,
    material::Material,
    value::Value,
    zstd_prefix::{Decoded, PrefixDecoder},
};

/// Where a table's values are.
pub(super) enum Store {
    /// The raw values in the mapped file, from [`HEADER_LEN`].
    Raw(Mmap),
    /// Compressed blocks in the mapped file.
    Blocks {
        mmap: Mmap,
        /// Blocks per side and plane.
        blocks: u64,
        /// Byte planes per side (1, or 2 with extension bytes): the file holds `2 * planes`
        /// lanes of blocks, white's and black's first bytes, then their extension bytes.
        planes: u8,
        block_len: u32,
        /// Where the data of the blocks starts.
        data_at: usize,
        layouts: Box<[Layout; 2]>,
        /// This table's number in the block cache's keys.
        uid: u64,
    },
    /// The values in memory, index order, per side to move (white, black); a side may be left
    /// out.
    Memory([Option<Vec<u8>>; 2]),
}

/// An open, validated table.
pub struct Table {
    pub(super) path: PathBuf,
    pub(super) metric: Metric,
    pub(super) scheme: IndexScheme,
    pub(super) stats: Stats,
    pub(super) store: Store,
    /// Whether the losses of a DTZ table hold their exact distance (a table rebuilt in memory by
    /// [`Table::with_exact_losses`]) rather than only their class, as files do.
    pub(super) exact_losses: bool,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("path", &self.path)
            .field("material", &self.scheme.material().name())
            .finish()
    }
}

thread_local! {
    static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { RefCell::new(None) };
}

/// Decompresses one zstd frame into `out` (replaced), which must come to exactly `len` bytes;
/// returns `len`.
pub(super) fn decompress_into(
    frame: &[u8],
    len: usize,
    out: &mut Vec<u8>,
) -> Result<usize, BlockError> {
    out.clear();
    out.reserve(len);
    DECOMPRESSOR.with(|d| {
        let mut d = d.borrow_mut();
        let d = match &mut *d {
            Some(d) => d,
            empty => empty.insert(zstd::bulk::Decompressor::new().map_err(BlockError::Zstd)?),
        };
        let got = d
            .decompress_to_buffer(frame, out)
            .map_err(BlockError::Zstd)?;
        if got != len {
            return Err(BlockError::Length { got, expected: len });
        }
        Ok(len)
    })
}

thread_local! {
    static PREFIX_DECODER: RefCell<PrefixDecoder> = RefCell::new(PrefixDecoder::new());
}

/// Decodes one zstd frame of `len` bytes into `out` as far as entry `need`; returns how many
/// bytes at the start of `out` it decoded (what follows them is left over).
fn decode_prefix(
    frame: &[u8],
    len: usize,
    need: usize,
    out: &mut Vec<u8>,
) -> Result<usize, BlockError> {
    PREFIX_DECODER.with(|d| {
        let got = d
            .borrow_mut()
            .decode(frame, out, need, len)
            .map_err(BlockError::Prefix)?;
        match got {
            Decoded::Whole(n) if n != len => Err(BlockError::Length {
                got: n,
                expected: len,
            }),
            _ if got.bytes() <= need.min(len.saturating_sub(1)) => Err(BlockError::Short {
                got: got.bytes(),
                need,
            }),
            _ => Ok(got.bytes()),
        }
    })
}

impl Table {
    /// Opens and validates a table file: magic, version, material (when `expected` is given),
    /// index scheme, sizes, the header checksum, and the checksum of the raw values or of the
    /// block index. A compressed block is checked (its checksum in the block index, and its
    /// length) each time it is decompressed. A file that fails any check is refused.
    ///
    /// # Errors
    /// [`TableError`] naming the file and what is wrong.
    ///
    /// # Safety of the map
    /// The file is memory-mapped, not read: the system reads its pages as probes touch them,
    /// and the map lasts as long as the table. This function is safe to call, but the map is
    /// sound only while the file stays as it was at open, and that is the caller's to keep:
    /// while the table is alive, no process may truncate the file or write into it. Replacing
    /// it by a rename is safe, as this crate's writer does ([`crate::write_atomic`]): the map
    /// keeps the old file. Copying another file over it (`cp new.rdtm old.rdtm`) is not: that
    /// truncates the file, then writes it.
    ///
    /// When the file is changed all the same:
    /// - A file made shorter: a read of a page past its new end raises `SIGBUS` (Linux and
    ///   other Unix systems), which ends the process; no check can catch it. A read error of
    ///   the disk or file system under the map (a failing disk, a network share gone) does the
    ///   same.
    /// - A file written in place is, strictly, undefined behaviour (the map is read as an
    ///   immutable byte slice). What the code does: the header is checked and its fields
    ///   copied at open, with the checksum of the raw values or of the block index over the
    ///   bytes of that moment. After that, a raw table reads each value straight from the map,
    ///   unchecked, so a changed byte is a wrong value. A compressed table reads a block's
    ///   offsets and checksum from the block index in the map each time it decompresses the
    ///   block, and checks that the block lies inside the map, matches its checksum and
    ///   decompresses to its length: a changed block is an error ([`ProbeError::BadTable`]
    ///   from a probe), not a value, but for a change that still passes (a 32-bit checksum
    ///   can match by chance; a whole valid table of the same length written in its place
    ///   passes every check). Blocks in the block cache are not read again while they stay
    ///   there, and keep the values they had.
    ///
    /// What limits the damage: [`Table::check_blocks`] decompresses and checks every block
    /// now, so a file damaged on disk is found before a probe needs it (not a change made
    /// later); [`Table::into_memory`] and [`Table::open_in_memory`] decompress and check every
    /// block of a compressed table and copy its values into memory, after which the file is
    /// no longer mapped and may change freely. Raw tables, and compressed ones with extension
    /// bytes (some 6-piece tables), stay mapped.
    pub fn open(path: &Path, expected: Option<Material>) -> Result<Table, TableError> {
        Table::open_as(path, expected, Some(Metric::Dtm))
    }

    /// Opens and validates a DTZ50 table file, as [`Table::open`] a DTM one.
    ///
    /// # Errors
    /// As [`Table::open`].
    ///
    /// # Safety of the map
    /// As [`Table::open`]: the file stays memory-mapped while the table is alive.
    pub fn open_dtz(path: &Path, expected: Option<Material>) -> Result<Table, TableError> {
        Table::open_as(path, expected, Some(Metric::Dtz))
    }

    /// Opens and validates a table file of `metric`, as [`Table::open`] a DTM one.
    ///
    /// # Errors
    /// As [`Table::open`], and a file of another metric.
    ///
    /// # Safety of the map
    /// As [`Table::open`]: the file stays memory-mapped while the table is alive.
    pub fn open_metric(
        path: &Path,
        expected: Option<Material>,
        metric: Metric,
    ) -> Result<Table, TableError> {
        Table::open_as(path, expected, Some(metric))
    }

    /// Opens and validates a table file of either metric.
    ///
    /// # Errors
    /// As [`Table::open`].
    ///
    /// # Safety of the map
    /// As [`Table::open`]: the file stays memory-mapped while the table is alive.
    pub fn open_any(path: &Path, expected: Option<Material>) -> Result<Table, TableError> {
        Table::open_as(path, expected, None)
    }

    fn open_as(
        path: &Path,
        expected: Option<Material>,
        metric: Option<Metric>,
    ) -> Result<Table, TableError> {
        let io = |source| TableError::Io {
            path: path.to_path_buf(),
            source,
        };
        let bad = |why: FormatError| TableError::Format {
            path: path.to_path_buf(),
            why,
        };
        let file = File::open(path).map_err(io)?;
        // SAFETY: the mapping is only read through bounds-checked slices. Table files are
        // replaced by rename, never rewritten in place, so the mapped contents do not change
        // under us; a file truncated by another program could still raise SIGBUS, which is the
        // documented limit of memory-mapped I/O.
        let mmap = unsafe { Mmap::map(&file) }.map_err(io)?;
        let header = Header::parse(&mmap, path, expected)?;
        if let Some(m) = metric {
            if header.metric != m {
                return Err(bad(FormatError::Metric {
                    found: header.metric,
                    expected: m,
                }));
            }
        }
        let store = match header.storage {
            STORAGE_RAW => raw_store(mmap, &header, path)?,
            STORAGE_ZSTD => block_store(mmap, &header, path)?,
            s => return Err(bad(FormatError::Storage(s))),
        };
        Ok(Table {
            path: path.to_path_buf(),
            metric: header.metric,
            scheme: header.scheme,
            stats: header.stats,
            store,
            exact_losses: false,
        })
    }

    /// Opens a table with every value in memory, each compressed block decompressed and checked
    /// now (for the builder's sub-tables and full checks).
    ///
    /// # Errors
    /// As [`Table::open`], and any block that fails its check.
    ///
    /// # Safety of the map
    /// The file is memory-mapped while its blocks are read (see [`Table::open`]). A
    /// compressed table of one byte plane is then in memory and its file no longer mapped; a
    /// raw table, or one with extension bytes, stays mapped as after [`Table::open`], with the
    /// same contract.
    pub fn open_in_memory(path: &Path, expected: Option<Material>) -> Result<Table, TableError> {
        Table::open_sides_in_memory(path, expected, [true, true])
    }

    /// As [`Table::open_in_memory`], with only the sides to move (white, black) marked in
    /// `sides`; a probe of the other side is an error. Raw files stay memory-mapped whole.
    ///
    /// # Errors
    /// As [`Table::open_in_memory`].
    ///
    /// # Safety of the map
    /// As [`Table::open_in_memory`].
    pub fn open_sides_in_memory(
        path: &Path,
        expected: Option<Material>,
        sides: [bool; 2],
    ) -> Result<Table, TableError> {
        Table::open(path, expected)?.into_memory(sides)
    }

    /// This table with the values of the sides to move marked in `sides` (white, black) in
    /// memory, each compressed block decompressed and checked now; a probe of the other side is
    /// an error. Raw files stay memory-mapped whole.
    ///
    /// # Errors
    /// Any block that fails its check.
    ///
    /// # Safety of the map
    /// A compressed table of one byte plane comes back with its values in memory and its map
    /// dropped: from then on its file may be changed or removed without effect on the table.
    /// A raw table, or one with extension bytes, comes back as it was, still mapped, under the
    /// contract of [`Table::open`].
    pub fn into_memory(self, sides: [bool; 2]) -> Result<Table, TableError> {
        let t = self;
        let Store::Blocks {
            block_len,
            layouts,
            planes,
            ..
        } = &t.store
        else {
            return Ok(t);
        };
        if *planes > 1 {
            // Tables with extension bytes (6 pieces) stay in their blocks: their values would
            // not fit in memory beside a build, and no build reads them as sub-tables.
            return Ok(t);
        }
        let n = t.scheme.size() as usize;
        let block_len = *block_len as usize;
        let mut halves: [Option<Vec<u8>>; 2] = [None, None];
        for side in 0..2 {
            if !sides[side] {
                continue;
            }
            // The blocks in file order, decompressed in parallel, each into its own place.
            let mut file = vec![0u8; n];
            file.par_chunks_mut(block_len.max(1))
                .enumerate()
                .try_for_each_init(Vec::new, |buf, (b, place)| {
                    t.decompress_block(side, b as u64, None, buf)?;
                    if buf.len() != place.len() {
                        return Err(TableError::Format {
                            path: t.path.clone(),
                            why: FormatError::BlockEntries {
                                block: b,
                                got: buf.len(),
                                expected: place.len(),
                            },
                        });
                    }
                    place.copy_from_slice(buf);
                    Ok(())
                })?;
            let layout = layouts[side];
            if layout.is_identity() {
                halves[side] = Some(file);
                continue;
            }
            // Then gathered into index order, in parallel parts of the index.
            let mut out = vec![0u8; n];
            let part = 1usize << 16;
            out.par_chunks_mut(part).enumerate().for_each(|(c, place)| {
                let mut k = 0;
                layout.walk_index((c * part) as u64, place.len() as u64, |pos| {
                    if let (Some(o), Some(&v)) = (place.get_mut(k), file.get(pos as usize)) {
                        *o = v;
                    }
                    k += 1;
                });
            });
            halves[side] = Some(out);
        }
        Ok(Table {
            path: t.path,
            metric: t.metric,
            scheme: t.scheme,
            stats: t.stats,
            store: Store::Memory(halves),
            exact_losses: t.exact_losses,
        })
    }

    /// Decompresses block `b` of lane `lane` (0 white to move, 1 black; 2 and 3 their
    /// extension planes) into `out`: all of it with libzstd (`out` is the block), or with
    /// `need`, a prefix holding at least entry `need` (see [`super::zstd_prefix`]; the prefix is
    /// at the start of `out`, left-over bytes after it). Returns the number of entries
    /// decompressed.
    pub(super) fn decompress_block(
        &self,
        lane: usize,
        b: u64,
        need: Option<usize>,
        out: &mut Vec<u8>,
    ) -> Result<usize, TableError> {
        let Store::Blocks {
            mmap,
            blocks,
            planes,
            block_len,
            data_at,
            ..
        } = &self.store
        else {
            return Ok(0);
        };
        let lanes = 2 * usize::from(*planes);
        let bad = |why: FormatError| TableError::Format {
            path: self.path.clone(),
            why,
        };
        if b >= *blocks || lane >= lanes {
            return Err(bad(FormatError::BlockOutOfRange(b)));
        }
        let k = lane as u64 * blocks + b;
        let off = |i: u64| {
            let at = HEADER_LEN + 8 * i as usize;
            let mut w = [0u8; 8];
            w.copy_from_slice(&mmap[at..at + 8]);
            u64::from_le_bytes(w) as usize
        };
        // The index was checked at open: offsets ascend and end at the end of the file.
        let (start, end) = (data_at + off(k), data_at + off(k + 1));
        let n = self.scheme.size();
        let len = (n - b * u64::from(*block_len)).min(u64::from(*block_len)) as usize;
        let frame = mmap
            .get(start..end)
            .ok_or_else(|| bad(FormatError::BlockOutOfRange(b)))?;
        let sums_at = HEADER_LEN + 8 * (lanes * *blocks as usize + 1) + 4 * k as usize;
        let mut sum = [0u8; 4];
        sum.copy_from_slice(&mmap[sums_at..sums_at + 4]);
        let block_error = |cause| TableError::Block {
            path: self.path.clone(),
            side: Color::from_white(lane.is_multiple_of(2)),
            block: b,
            cause,
        };
        if block_sum(frame) != u32::from_le_bytes(sum) {
            return Err(block_error(BlockError::Checksum));
        }
        let decoded = match need {
            None => decompress_into(frame, len, out),
            Some(need) => decode_prefix(frame, len, need, out),
        };
        decoded.map_err(block_error)
    }

    /// Decompresses every block, to check the whole file. It checks the file as it is now: a
    /// change made later is caught only as [`Table::open`] describes (*Safety of the map*).
    /// It does nothing for a raw table (its values were checked whole at open) or one in
    /// memory (its blocks were checked as they were read in).
    ///
    /// # Errors
    /// The first block that fails its check.
    pub fn check_blocks(&self) -> Result<(), TableError> {
        let Store::Blocks { blocks, planes, .. } = &self.store else {
            return Ok(());
        };
        (0..2 * u64::from(*planes) * blocks)
            .into_par_iter()
            .try_for_each_init(Vec::new, |buf, k| {
                self.decompress_block((k / blocks) as usize, k % blocks, None, buf)
                    .map(|_| ())
            })
    }

    /// Blocks per side and plane, and entries per block, of a compressed table.
    pub fn blocks(&self) -> Option<(u64, u32)> {
        match &self.store {
            Store::Blocks {
                blocks, block_len, ..
            } => Some((*blocks, *block_len)),
            _ => None,
        }
    }

    /// Decompresses block `b` of plane `plane` (0 the first bytes, 1 the extension bytes) of
    /// the side with `side` to move into `out`, whole: the bytes of file
    /// positions `b * block_len ..` (see [`Table::index_at`]). For passes over whole tables.
    ///
    /// # Errors
    /// A block that fails its checksum or does not decompress to its length, or a plane the
    /// table does not have.
    pub fn read_block(
        &self,
        side: Color,
        plane: usize,
        b: u64,
        out: &mut Vec<u8>,
    ) -> Result<(), TableError> {
        if plane >= usize::from(self.planes()) {
            return Err(TableError::Format {
                path: self.path.clone(),
                why: FormatError::Planes(self.planes() - 1),
            });
        }
        let lane = 2 * plane + slot(side);
        self.decompress_block(lane, b, None, out).map(|_| ())
    }

    /// The entry at file position `pos` of `side` to move (its
    /// digit order; the position itself in raw and in-memory tables).
    pub fn index_at(&self, side: Color, pos: u64) -> u64 {
        match &self.store {
            Store::Blocks { layouts, .. } => layouts[slot(side)].index_at(pos),
            _ => pos,
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The material (canonical orientation).
    pub fn material(&self) -> Material {
        self.scheme.material()
    }

    /// The index scheme.
    pub fn scheme(&self) -> &IndexScheme {
        &self.scheme
    }

    /// Figures from the header.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Whether the values are compressed blocks probed through the cache.
    pub fn is_compressed(&self) -> bool {
        matches!(self.store, Store::Blocks { .. })
    }

    /// Where entry `idx` with `side` to move is in a compressed table: the
    /// block and the entry's place in it. `None` for raw or
    /// in-memory tables and out-of-range entries.
    pub fn block_of(&self, side: Color, idx: u64) -> Option<(u64, usize)> {
        let Store::Blocks {
            block_len, layouts, ..
        } = &self.store
        else {
            return None;
        };
        if idx >= self.scheme.size() {
            return None;
        }
        let pos = layouts[slot(side)].file_position(idx);
        let len = u64::from(*block_len);
        Some((pos / len, (pos % len) as usize))
    }

    /// The value of entry `idx` of a DTM table with `side` to move.
    /// Out-of-range indices read as draws (callers pass indices from the scheme, which are in
    /// range).
    ///
    /// # Errors
    /// [`ProbeError::BadTable`] when the block holding the entry is corrupt.
    #[inline]
    pub fn get(&self, side: Color, idx: u64) -> Result<Value, ProbeError> {
        let first = self.get_byte(side, idx)?;
        if self.planes() == 1 || first == 0 {
            return Ok(Value::from_byte(first));
        }
        let ext = self.get_plane_byte(side, idx, 1)?;
        Ok(Value::from_planes(first, ext))
    }

    /// The number a DTZ50 table stores for entry `idx` with `side` to move
    /// (see [`crate::Dtz::to_stored`]): its byte, or its two bytes in a table of two planes.
    ///
    /// # Errors
    /// [`ProbeError::BadTable`] when a block holding the entry is corrupt.
    #[inline]
    pub fn get_stored(&self, side: Color, idx: u64) -> Result<u16, ProbeError> {
        let first = self.get_byte(side, idx)?;
        if self.planes() == 1 || first == 0 {
            return Ok(u16::from(first));
        }
        let ext = self.get_plane_byte(side, idx, 1)?;
        Ok(crate::Dtz::stored_from_planes(first, ext))
    }

    /// Byte planes per side: 1, or 2 when each value has an extension byte (tables whose
    /// longest value is beyond a byte, as 6-piece tables can be; see [`Value::to_planes`]).
    pub fn planes(&self) -> u8 {
        match &self.store {
            Store::Blocks { planes, .. } => *planes,
            _ => 1,
        }
    }

    /// The byte stored for entry `idx` with `side` to move (0 out of range):
    /// the value's first byte (see [`Value::to_planes`]), its whole byte in a table of one
    /// plane.
    ///
    /// # Errors
    /// [`ProbeError::BadTable`] when the block holding the entry is corrupt.
    #[inline]
    pub fn get_byte(&self, side: Color, idx: u64) -> Result<u8, ProbeError> {
        self.get_plane_byte(side, idx, 0)
    }

    /// The byte of plane `plane` (0 the first byte, 1 the extension) stored for entry `idx`
    /// (0 out of range, and for a plane the table does not have).
    ///
    /// # Errors
    /// [`ProbeError::BadTable`] when the block holding the entry is corrupt.
    #[inline]
    pub fn get_plane_byte(&self, side: Color, idx: u64, plane: usize) -> Result<u8, ProbeError> {
        if plane >= usize::from(self.planes()) {
            return Ok(0);
        }
        let n = self.scheme.size();
        if idx >= n {
            return Ok(0);
        }
        match &self.store {
            Store::Raw(mmap) => {
                let off = HEADER_LEN as u64 + slot(side) as u64 * n + idx;
                Ok(usize::try_from(off)
                    .ok()
                    .and_then(|o| mmap.get(o))
                    .map_or(0, |&b| b))
            }
            Store::Memory(halves) => match &halves[slot(side)] {
                Some(v) => Ok(usize::try_from(idx)
                    .ok()
                    .and_then(|o| v.get(o))
                    .map_or(0, |&b| b)),
                None => Err(ProbeError::BadTable(Arc::new(TableError::SideNotLoaded {
                    path: self.path.clone(),
                    side,
                }))),
            },
            Store::Blocks { blocks, uid, .. } => {
                let Some((b, k)) = self.block_of(side, idx) else {
                    return Ok(0);
                };
                let lane = 2 * plane + slot(side);
                // Blocks per lane stay below 2^30: at most 64^4 * 462 entries (6 pieces) in
                // blocks of at least 64.
                let key = (uid << 32) | ((lane as u64) << 30) | b;
                debug_assert!(b < *blocks && b < 1 << 30);
                cache::global()
                    .with(
                        key,
                        k,
                        // A second probe into a partly decoded block decodes all of it.
                        |buf, again| {
                            let need = if again { usize::MAX } else { k };
                            self.decompress_block(lane, b, Some(need), buf)
                        },
                        |data| data.get(k).map_or(0, |&v| v),
                    )
                    .map_err(|e| ProbeError::BadTable(Arc::new(e)))
            }
        }
    }

    /// The bytes of `side` to move, in index order, of a raw table or one read
    /// into memory ([`Table::into_memory`]); `None` for a side not loaded or compressed blocks.
    pub fn side_in_memory(&self, side: Color) -> Option<&[u8]> {
        match &self.store {
            Store::Memory(halves) => halves[slot(side)].as_deref(),
            Store::Raw(mmap) => {
                let n = usize::try_from(self.scheme.size()).ok()?;
                let at = HEADER_LEN + slot(side) * n;
                mmap.get(at..at + n)
            }
            Store::Blocks { .. } => None,
        }
    }

    /// What the table's values are.
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// Whether the losses of this DTZ table hold their exact distance (see
    /// [`Table::with_exact_losses`]); a DTZ file holds only their class.
    pub fn exact_losses(&self) -> bool {
        self.exact_losses
    }

    /// This table with the values `halves` (white, black to move, index order) in memory, whose
    /// losses hold their exact distance: a DTZ table completed by a pass over its losses, for
    /// passes that read every loss many times (`build-tables --verify`).
    ///
    /// # Errors
    /// When a side does not hold one value per entry.
    pub fn with_exact_losses(self, halves: [Vec<u8>; 2]) -> Result<Table, TableError> {
        let n = self.scheme.size();
        if halves.iter().any(|h| h.len() as u64 != n) {
            return Err(TableError::Format {
                path: self.path,
                why: FormatError::ValuesPerSide(n),
            });
        }
        let [white, black] = halves;
        Ok(Table {
            path: self.path,
            metric: self.metric,
            scheme: self.scheme,
            stats: self.stats,
            store: Store::Memory([Some(white), Some(black)]),
            exact_losses: true,
        })
    }
}

/// The store of a raw table: the whole file is the header and both sides' values in index
/// order, whose checksum the header holds.
fn raw_store(mmap: Mmap, header: &Header, path: &Path) -> Result<Store, TableError> {
    let bad = |why: FormatError| TableError::Format {
        path: path.to_path_buf(),
        why,
    };
    let want = HEADER_LEN as u64 + 2 * header.scheme.size();
    if mmap.len() as u64 != want {
        return Err(bad(FormatError::Length {
            len: mmap.len() as u64,
            expected: want,
        }));
    }
    if header
        .orders
        .iter()
        .any(|l| l != &Layout::identity(&header.scheme))
    {
        return Err(bad(FormatError::RawOrder));
    }
    let payload = mmap.get(HEADER_LEN..).unwrap_or(&[]);
    if checksum(payload) != header.body_sum {
        return Err(TableError::Checksum {
            path: path.to_path_buf(),
        });
    }
    Ok(Store::Raw(mmap))
}

/// The store of a compressed table: its block length in range, its block index whole, matching
/// the header's checksum, with offsets that ascend and end at the end of the file.
fn block_store(mmap: Mmap, header: &Header, path: &Path) -> Result<Store, TableError> {
    let bad = |why: FormatError| TableError::Format {
        path: path.to_path_buf(),
        why,
    };
    let block_len = header.block_len;
    if !(64..=MAX_BLOCK_LEN).contains(&block_len) {
        return Err(bad(FormatError::BlockLength(block_len)));
    }
    let blocks = header.scheme.size().div_ceil(u64::from(block_len));
    let lanes = 2 * u64::from(header.planes);
    let index_len = 8 * (lanes * blocks + 1) + 4 * lanes * blocks;
    let data_at = HEADER_LEN as u64 + index_len;
    let index = usize::try_from(data_at)
        .ok()
        .and_then(|end| mmap.get(HEADER_LEN..end))
        .ok_or_else(|| bad(FormatError::BlockIndex))?;
    if checksum(index) != header.body_sum {
        return Err(TableError::Checksum {
            path: path.to_path_buf(),
        });
    }
    let mut prev = 0u64;
    for (i, w) in index[..8 * (lanes as usize * blocks as usize + 1)]
        .chunks_exact(8)
        .enumerate()
    {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        let off = u64::from_le_bytes(b);
        if (i == 0 && off != 0) || off < prev {
            return Err(bad(FormatError::BlockOffset(i)));
        }
        prev = off;
    }
    // The offsets come from the file: a sum past 2^64 is a wrong length, not a wrapped one.
    if data_at.checked_add(prev) != Some(mmap.len() as u64) {
        return Err(bad(FormatError::Length {
            len: mmap.len() as u64,
            expected: data_at.saturating_add(prev),
        }));
    }
    static NEXT_UID: AtomicU64 = AtomicU64::new(1);
    Ok(Store::Blocks {
        mmap,
        blocks,
        planes: header.planes,
        block_len,
        data_at: data_at as usize,
        layouts: Box::new(header.orders),
        uid: NEXT_UID.fetch_add(1, Relaxed),
    })
}

/// The half of a table (and its lane within a plane) that holds `side` to move: white's first.
#[inline]
fn slot(side: Color) -> usize {
    usize::from(side.is_black())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::EXTENSION;

    /// Every block of every compressed table in `RETRO_COMPARE_TABLES` (a directory), decoded
    /// whole by libzstd and by [`PrefixDecoder`], whole and up to an entry drawn at random:
    /// the same bytes. Ignored: it reads gigabytes when pointed at all 5-piece tables.
    #[test]
    #[ignore]
    fn prefix_decoder_agrees_with_libzstd_on_every_block() {
        let Some(dir) = std::env::var_os("RETRO_COMPARE_TABLES") else {
            eprintln!("RETRO_COMPARE_TABLES not set, nothing compared");
            return;
        };
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("directory")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == EXTENSION))
            .collect();
        paths.sort();
        let (mut tables, mut blocks) = (0u64, 0u64);
        for path in paths {
            let t = Table::open(&path, None).expect("table");
            let Store::Blocks {
                mmap,
                blocks: per_side,
                block_len,
                data_at,
                ..
            } = &t.store
            else {
                continue;
            };
            let n = t.scheme.size();
            let checked: u64 = (0..2 * per_side)
                .into_par_iter()
                .map_init(
                    || (Vec::new(), Vec::new(), PrefixDecoder::new()),
                    |(whole, part, d), k| {
                        let off = |i: u64| {
                            let at = HEADER_LEN + 8 * i as usize;
                            u64::from_le_bytes(mmap[at..at + 8].try_into().expect("8 bytes"))
                                as usize
                        };
                        let frame = &mmap[data_at + off(k)..data_at + off(k + 1)];
                        let b = k % per_side;
                        let len = (n - b * u64::from(*block_len)).min(u64::from(*block_len));
                        let len = len as usize;
                        decompress_into(frame, len, whole).expect("libzstd");
                        let got = d.decode(frame, part, usize::MAX, len);
                        assert_eq!(got, Ok(Decoded::Whole(len)), "{path:?} block {k}");
                        assert!(
                            part[..len] == whole[..],
                            "{path:?} block {k}: whole block differs"
                        );
                        let need = (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize % len;
                        let n = d.decode(frame, part, need, len).expect("prefix").bytes();
                        assert!(n > need, "{path:?} block {k}: short prefix");
                        assert!(
                            part[..n] == whole[..n],
                            "{path:?} block {k}: prefix differs"
                        );
                        1
                    },
                )
                .sum();
            tables += 1;
            blocks += checked;
        }
        eprintln!("{tables} compressed tables, {blocks} blocks: prefix decoder agrees");
    }
}
