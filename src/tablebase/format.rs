//! The table file format (described in tables/README.md): a 96-byte header, then the values of
//! both sides to move, either raw (one byte per entry, index order) or in blocks compressed
//! independently with zstd behind an index of block offsets. Files are written atomically and
//! memory-mapped for probing; a probe of a compressed table decodes one block, as far as the
//! entry it needs ([`zstd_prefix`](super::zstd_prefix)), into the process-wide
//! [`cache`](super::cache); whole blocks (checks, recompression) are decompressed by libzstd.
//! Every byte of a file is untrusted.

use std::{
    cell::RefCell,
    fs::{self, File},
    io::{self, BufWriter, Write},
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering::Relaxed},
};

use memmap2::Mmap;
use rayon::prelude::*;

use super::{
    cache,
    index::IndexScheme,
    layout::{all_orders, Layout, MAX_DIGITS},
    material::Material,
    probe::ProbeError,
    value::Value,
    zstd_prefix::{Decoded, PrefixDecoder},
};

/// File magic.
pub const MAGIC: &[u8; 8] = b"RETRODTM";
/// Format version this build reads and writes.
pub const VERSION: u32 = 2;
/// Header length in bytes.
pub const HEADER_LEN: usize = 96;
/// Entries per compressed block, unless the writer is told otherwise.
pub const BLOCK_LEN: u32 = 4096;
/// The zstd level of compressed blocks, unless the writer is told otherwise.
pub const ZSTD_LEVEL: i32 = 12;
/// Largest block length a reader accepts (it sizes the buffers).
pub const MAX_BLOCK_LEN: u32 = 1 << 20;
/// File name extension of table files.
pub const EXTENSION: &str = "rdtm";

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
}

/// Summary figures stored in a header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Longest win for the side to move, in plies.
    pub longest_win: u32,
    /// Longest loss for the side to move, in plies.
    pub longest_loss: u32,
}

/// A 64-bit checksum of a byte string: words of 8 little-endian bytes (the last one padded with
/// zeros) mixed by rotate, xor and multiply (a bijection per step, so any change of one word
/// changes the result), then a final avalanche.
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut c = Checksum::new(bytes.len() as u64);
    c.update(bytes);
    c.finish()
}

/// [`checksum`] over a byte string given in parts (the total length is known in advance).
pub struct Checksum {
    h: u64,
    pending: [u8; 8],
    npending: usize,
}

impl Checksum {
    /// A checksum of `len` bytes to come.
    pub fn new(len: u64) -> Checksum {
        Checksum {
            h: 0x9E37_79B9_7F4A_7C15 ^ len,
            pending: [0; 8],
            npending: 0,
        }
    }

    fn word(&mut self, w: [u8; 8]) {
        self.h =
            (self.h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(0x517C_C1B7_2722_0A95);
    }

    /// Adds the next part.
    pub fn update(&mut self, mut bytes: &[u8]) {
        if self.npending > 0 {
            let take = (8 - self.npending).min(bytes.len());
            self.pending[self.npending..self.npending + take].copy_from_slice(&bytes[..take]);
            self.npending += take;
            bytes = &bytes[take..];
            if self.npending < 8 {
                return;
            }
            self.word(self.pending);
            self.npending = 0;
        }
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.word(w);
        }
        let rest = chunks.remainder();
        self.pending[..rest.len()].copy_from_slice(rest);
        self.npending = rest.len();
    }

    /// The checksum.
    pub fn finish(mut self) -> u64 {
        if self.npending > 0 {
            let mut w = [0u8; 8];
            w[..self.npending].copy_from_slice(&self.pending[..self.npending]);
            self.word(w);
        }
        let mut h = self.h;
        h ^= h >> 33;
        h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        h ^ (h >> 33)
    }
}

/// The file name of a material's table.
pub fn file_name(material: Material) -> String {
    format!("{}.{}", material.name(), EXTENSION)
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
    /// zstd level.
    pub level: i32,
}

impl Default for Compression {
    fn default() -> Compression {
        Compression {
            block_len: BLOCK_LEN,
            level: ZSTD_LEVEL,
        }
    }
}

impl Encoding {
    /// The encoding `build-tables` uses for a material: raw up to 4 pieces (small, and probed
    /// without decompression while 5-piece tables are built), compressed blocks from 5.
    pub fn for_material(material: Material, compression: Compression) -> Encoding {
        if material.piece_count() >= 5 {
            Encoding::Blocks {
                block_len: compression.block_len,
                level: compression.level,
            }
        } else {
            Encoding::Raw
        }
    }
}

/// The values to write.
#[derive(Clone, Copy)]
pub struct TableData<'a> {
    /// One byte per entry with white to move.
    pub white: &'a [u8],
    /// One byte per entry with black to move.
    pub black: &'a [u8],
    /// Per side, a bit per entry (bit `i % 64` of word `i / 64`) set for entries that are legal
    /// positions. The other entries are never probed, so a compressed file stores whatever
    /// compresses best there. `None`: every entry is kept.
    pub legal: Option<[&'a [u64]; 2]>,
}

/// What was written.
#[derive(Clone, Debug)]
pub struct Written {
    /// The file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// The digit order of each side's values in the file.
    pub orders: [Vec<u8>; 2],
}

const STORAGE_RAW: u8 = 0;
const STORAGE_ZSTD: u8 = 1;

/// The fields of a header.
struct Header {
    material: Material,
    scheme: IndexScheme,
    stats: Stats,
    storage: u8,
    block_len: u32,
    orders: [Layout; 2],
    body_sum: u64,
}

impl Header {
    fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..8].copy_from_slice(MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12..16].copy_from_slice(&(HEADER_LEN as u32).to_le_bytes());
        let name = self.material.name();
        let n = name.len().min(16);
        h[16..16 + n].copy_from_slice(&name.as_bytes()[..n]);
        h[32] = self.scheme.scheme() as u8;
        h[33] = 2;
        h[34..36].copy_from_slice(&(self.stats.longest_win.min(65535) as u16).to_le_bytes());
        h[36..38].copy_from_slice(&(self.stats.longest_loss.min(65535) as u16).to_le_bytes());
        h[38] = self.storage;
        h[40..48].copy_from_slice(&self.scheme.size().to_le_bytes());
        h[48..52].copy_from_slice(&self.block_len.to_le_bytes());
        for (side, at) in [(0, 56), (1, 64)] {
            let o = self.orders[side].order();
            h[at..at + 8].fill(0xFF);
            h[at..at + o.len()].copy_from_slice(o);
        }
        h[72..80].copy_from_slice(&self.body_sum.to_le_bytes());
        let hs = checksum(&h[..88]);
        h[88..96].copy_from_slice(&hs.to_le_bytes());
        h
    }
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, synced, then renamed.
fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> Result<u64, TableError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp.{}", std::process::id()));
    let result = (|| {
        let mut f = BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        write(&mut f)?;
        let f = f.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        let len = f.metadata()?.len();
        drop(f);
        fs::rename(&tmp, path)?;
        Ok(len)
    })();
    result.map_err(|source| {
        let _ = fs::remove_file(&tmp);
        TableError::Io {
            path: path.to_path_buf(),
            source,
        }
    })
}

/// "white" or "black" for a side to move (0 or 1), for messages.
fn side_name(side: usize) -> &'static str {
    if side == 0 {
        "white"
    } else {
        "black"
    }
}

/// The checksum of a compressed block as stored in the block index: the low 32 bits of
/// [`checksum`].
fn block_sum(frame: &[u8]) -> u32 {
    checksum(frame) as u32
}

/// Whether entry `i` is to be kept.
#[inline]
fn is_legal(legal: Option<&[u64]>, i: u64) -> bool {
    legal.is_none_or(|l| {
        l.get((i / 64) as usize)
            .is_some_and(|w| (w >> (i % 64)) & 1 == 1)
    })
}

/// Fills `out` with the values at file positions `start..start + len` in `layout`. Entries that
/// are no position repeat the last kept value before them (the first kept value of the block for
/// those at its start), so they lengthen runs instead of breaking them.
fn assemble(
    layout: &Layout,
    values: &[u8],
    legal: Option<&[u64]>,
    start: u64,
    len: u64,
    out: &mut Vec<u8>,
) {
    out.clear();
    let mut last: Option<u8> = None;
    let mut leading = 0usize;
    layout.walk(start, len, |i| {
        let v = values.get(i as usize).copied().unwrap_or(0);
        if is_legal(legal, i) {
            if last.is_none() {
                out[..leading].fill(v);
            }
            last = Some(v);
            out.push(v);
        } else {
            if last.is_none() {
                leading += 1;
            }
            out.push(last.unwrap_or(0));
        }
    });
}

/// Blocks compressed to compare digit orders.
const SAMPLE_BLOCKS: u64 = 256;

/// The digit order whose sample blocks compress smallest.
fn choose_order(
    scheme: &IndexScheme,
    values: &[u8],
    legal: Option<&[u64]>,
    block_len: u32,
    level: i32,
) -> Layout {
    let n = scheme.size();
    let blocks = n.div_ceil(u64::from(block_len));
    // Blocks drawn by a fixed pseudo-random sequence: evenly spaced samples would line up with
    // the digits and see the same piece placements again and again.
    let samples: Vec<u64> = (0..blocks.min(SAMPLE_BLOCKS))
        .map(|k| {
            let mut x = (k + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            x ^= x >> 31;
            x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
            (x ^ (x >> 29)) % blocks
        })
        .collect();
    let orders = all_orders(scheme.radices().len());
    if orders.len() <= 1 || samples.is_empty() {
        return Layout::identity(scheme);
    }
    let scored: Vec<(usize, Layout)> = orders
        .par_iter()
        .filter_map(|o| Layout::new(scheme, o))
        .map(|layout| {
            let mut buf = Vec::with_capacity(block_len as usize);
            let mut total = 0usize;
            for &b in &samples {
                let start = b * u64::from(block_len);
                let len = u64::from(block_len).min(n - start);
                assemble(&layout, values, legal, start, len, &mut buf);
                total += zstd::bulk::compress(&buf, level).map_or(buf.len(), |c| c.len());
            }
            (total, layout)
        })
        .collect();
    scored
        .into_iter()
        .min_by_key(|(size, layout)| (*size, layout.order().to_vec()))
        .map_or_else(|| Layout::identity(scheme), |(_, l)| l)
}

/// Compresses one side: its blocks in file order.
fn compress_side(
    scheme: &IndexScheme,
    layout: &Layout,
    values: &[u8],
    legal: Option<&[u64]>,
    block_len: u32,
    level: i32,
) -> io::Result<Vec<Vec<u8>>> {
    let n = scheme.size();
    compress_blocks(n, block_len, level, |start, len, buf| {
        assemble(layout, values, legal, start, len, buf);
    })
}

/// Compresses the `n` values of one side in blocks of `block_len`, in parallel; `fill` writes
/// the values at file positions `start..start + len` into the (cleared) buffer.
fn compress_blocks(
    n: u64,
    block_len: u32,
    level: i32,
    fill: impl Fn(u64, u64, &mut Vec<u8>) + Sync,
) -> io::Result<Vec<Vec<u8>>> {
    let blocks = n.div_ceil(u64::from(block_len));
    (0..blocks)
        .into_par_iter()
        .map_init(
            || {
                let c = zstd::bulk::Compressor::new(level).and_then(|mut c| {
                    // The block index holds a checksum of each frame; zstd's own is not needed.
                    c.include_checksum(false)?;
                    c.include_contentsize(true)?;
                    Ok(c)
                });
                (c, Vec::with_capacity(block_len as usize))
            },
            |(c, buf), b| {
                let start = b * u64::from(block_len);
                let len = u64::from(block_len).min(n - start);
                buf.clear();
                fill(start, len, buf);
                match c {
                    Ok(c) => c.compress(buf),
                    Err(e) => Err(io::Error::new(e.kind(), e.to_string())),
                }
            },
        )
        .collect()
}

/// Writes a compressed table atomically: header, block index and `sides` (each side's frames
/// in file order).
fn write_frames(
    path: PathBuf,
    material: Material,
    stats: Stats,
    block_len: u32,
    layouts: [Layout; 2],
    sides: &[Vec<Vec<u8>>],
) -> Result<Written, TableError> {
    let total = sides.iter().map(Vec::len).sum::<usize>();
    let mut offsets = Vec::with_capacity(8 * (total + 1) + 4 * total);
    let mut at = 0u64;
    offsets.extend_from_slice(&at.to_le_bytes());
    for b in sides.iter().flatten() {
        at += b.len() as u64;
        offsets.extend_from_slice(&at.to_le_bytes());
    }
    for b in sides.iter().flatten() {
        offsets.extend_from_slice(&block_sum(b).to_le_bytes());
    }
    let h = Header {
        material,
        scheme: IndexScheme::new(material),
        stats,
        storage: STORAGE_ZSTD,
        block_len,
        orders: layouts,
        body_sum: checksum(&offsets),
    };
    let bytes = write_atomic(&path, |f| {
        f.write_all(&h.to_bytes())?;
        f.write_all(&offsets)?;
        for b in sides.iter().flatten() {
            f.write_all(b)?;
        }
        Ok(())
    })?;
    Ok(Written {
        path,
        bytes,
        orders: [layouts[0].order().to_vec(), layouts[1].order().to_vec()],
    })
}

/// Rewrites the compressed table at `path` with `compression` (zstd level and entries per
/// block), keeping its values, digit orders and statistics: each side's blocks are
/// decompressed in file order (and checked), cut again and compressed. Atomic, like every
/// table write.
///
/// # Errors
/// A file that is not a valid compressed table, or an I/O or compression error, naming the
/// file.
pub fn recompress(path: &Path, compression: Compression) -> Result<Written, TableError> {
    let table = Table::open(path, None)?;
    let bad = |why: String| TableError::Format {
        path: path.to_path_buf(),
        why,
    };
    let Store::Blocks {
        blocks, layouts, ..
    } = &table.store
    else {
        return Err(bad(
            "not a compressed table (3- and 4-piece tables are kept raw)".into(),
        ));
    };
    let block_len = compression.block_len.clamp(64, MAX_BLOCK_LEN);
    let n = table.scheme.size();
    let mut sides: Vec<Vec<Vec<u8>>> = Vec::with_capacity(2);
    for side in 0..2 {
        // One side in memory at a time, in file order.
        let mut values = Vec::with_capacity(n as usize);
        let mut buf = Vec::new();
        for b in 0..*blocks {
            table.decompress_block(side, b, None, &mut buf)?;
            values.extend_from_slice(&buf);
        }
        if values.len() as u64 != n {
            return Err(bad(format!("{} values, {n} expected", values.len())));
        }
        let frames = compress_blocks(n, block_len, compression.level, |start, len, out| {
            out.extend_from_slice(&values[start as usize..(start + len) as usize]);
        })
        .map_err(|source| TableError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        // Nothing is written unless every new block decompresses to the values it replaces.
        frames
            .par_iter()
            .enumerate()
            .try_for_each_init(Vec::new, |buf, (b, frame)| {
                let start = b * block_len as usize;
                let want = &values[start..(start + block_len as usize).min(values.len())];
                decompress_into(frame, want.len(), buf)?;
                if buf.as_slice() == want {
                    Ok(())
                } else {
                    Err(format!("block {b} does not decompress to its values"))
                }
            })
            .map_err(|e| bad(format!("recompressed {} to move: {e}", side_name(side))))?;
        sides.push(frames);
    }
    let (material, stats, layouts) = (table.scheme.material(), table.stats, **layouts);
    drop(table);
    write_frames(
        path.to_path_buf(),
        material,
        stats,
        block_len,
        layouts,
        &sides,
    )
}

/// Writes a table atomically in `encoding`.
///
/// # Errors
/// Any I/O or compression error, naming the file.
pub fn write_table(
    dir: &Path,
    material: Material,
    data: TableData<'_>,
    stats: Stats,
    encoding: Encoding,
) -> Result<Written, TableError> {
    let scheme = IndexScheme::new(material);
    let path = dir.join(file_name(material));
    let n = scheme.size() as usize;
    if data.white.len() != n || data.black.len() != n {
        return Err(TableError::Format {
            path,
            why: format!(
                "{} and {} values to write, {n} expected",
                data.white.len(),
                data.black.len()
            ),
        });
    }
    let identity = Layout::identity(&scheme);
    match encoding {
        Encoding::Raw => {
            let mut sum = Checksum::new(2 * n as u64);
            sum.update(data.white);
            sum.update(data.black);
            let h = Header {
                material,
                scheme: scheme.clone(),
                stats,
                storage: STORAGE_RAW,
                block_len: 0,
                orders: [identity, identity],
                body_sum: sum.finish(),
            };
            let bytes = write_atomic(&path, |f| {
                f.write_all(&h.to_bytes())?;
                f.write_all(data.white)?;
                f.write_all(data.black)
            })?;
            let o = identity.order().to_vec();
            Ok(Written {
                path,
                bytes,
                orders: [o.clone(), o],
            })
        }
        Encoding::Blocks { block_len, level } => {
            let block_len = block_len.clamp(64, MAX_BLOCK_LEN);
            let io_err = |source| TableError::Io {
                path: path.clone(),
                source,
            };
            let mut layouts = [identity, identity];
            let mut sides: Vec<Vec<Vec<u8>>> = Vec::new();
            for (side, values) in [data.white, data.black].into_iter().enumerate() {
                let legal = data.legal.map(|l| l[side]);
                layouts[side] = choose_order(&scheme, values, legal, block_len, level);
                sides.push(
                    compress_side(&scheme, &layouts[side], values, legal, block_len, level)
                        .map_err(io_err)?,
                );
            }
            write_frames(path, material, stats, block_len, layouts, &sides)
        }
    }
}

/// Where a table's values are.
enum Store {
    /// The raw values in the mapped file, from [`HEADER_LEN`].
    Raw(Mmap),
    /// Compressed blocks in the mapped file.
    Blocks {
        mmap: Mmap,
        /// Blocks per side.
        blocks: u64,
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
    path: PathBuf,
    scheme: IndexScheme,
    stats: Stats,
    store: Store,
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
fn decompress_into(frame: &[u8], len: usize, out: &mut Vec<u8>) -> Result<usize, String> {
    out.clear();
    out.reserve(len);
    DECOMPRESSOR.with(|d| {
        let mut d = d.borrow_mut();
        if d.is_none() {
            *d = Some(zstd::bulk::Decompressor::new().map_err(|e| e.to_string())?);
        }
        let Some(d) = d.as_mut() else {
            return Err("no decompressor".to_string());
        };
        let got = d
            .decompress_to_buffer(frame, out)
            .map_err(|e| e.to_string())?;
        if got != len {
            return Err(format!("{got} values, {len} expected"));
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
) -> Result<usize, String> {
    PREFIX_DECODER.with(|d| {
        let got = d
            .borrow_mut()
            .decode(frame, out, need, len)
            .map_err(|e| e.to_string())?;
        match got {
            Decoded::Whole(n) if n != len => Err(format!("{n} values, {len} expected")),
            _ if got.bytes() <= need.min(len.saturating_sub(1)) => {
                Err(format!("{} values, entry {need} wanted", got.bytes()))
            }
            _ => Ok(got.bytes()),
        }
    })
}

impl Table {
    /// Opens and validates a table file: magic, version, material (when `expected` is given),
    /// index scheme, sizes, the header checksum, and the checksum of the raw values or of the
    /// block index. A compressed block is checked (zstd's checksum of its contents, and its
    /// length) when it is first decompressed. A file that fails any check is refused.
    ///
    /// # Errors
    /// [`TableError`] naming the file and what is wrong.
    pub fn open(path: &Path, expected: Option<Material>) -> Result<Table, TableError> {
        let io = |source| TableError::Io {
            path: path.to_path_buf(),
            source,
        };
        let bad = |why: String| TableError::Format {
            path: path.to_path_buf(),
            why,
        };
        let file = File::open(path).map_err(io)?;
        // SAFETY: the mapping is only read through bounds-checked slices. Table files are
        // replaced by rename, never rewritten in place, so the mapped contents do not change
        // under us; a file truncated by another program could still raise SIGBUS, which is the
        // documented limit of memory-mapped I/O.
        let mmap = unsafe { Mmap::map(&file) }.map_err(io)?;
        let h = mmap
            .get(..HEADER_LEN)
            .ok_or_else(|| bad(format!("{} bytes, shorter than the header", mmap.len())))?;
        if &h[0..8] != MAGIC {
            return Err(bad("wrong magic".into()));
        }
        let u32_at = |o: usize| u32::from_le_bytes([h[o], h[o + 1], h[o + 2], h[o + 3]]);
        let u64_at = |o: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&h[o..o + 8]);
            u64::from_le_bytes(b)
        };
        let version = u32_at(8);
        if version != VERSION {
            return Err(TableError::Version {
                path: path.to_path_buf(),
                found: version,
            });
        }
        if checksum(&h[..88]) != u64_at(88) {
            return Err(TableError::Checksum {
                path: path.to_path_buf(),
            });
        }
        if u32_at(12) as usize != HEADER_LEN {
            return Err(bad("unexpected header length".into()));
        }
        let name_bytes: Vec<u8> = h[16..32].iter().copied().take_while(|&b| b != 0).collect();
        let name = String::from_utf8(name_bytes).map_err(|_| bad("material name".into()))?;
        let material: Material = name
            .parse()
            .map_err(|e| bad(format!("material name: {e}")))?;
        if !material.is_canonical() {
            return Err(bad(format!(
                "material {name} is not in canonical orientation"
            )));
        }
        if let Some(m) = expected {
            if m != material {
                return Err(bad(format!("holds {name}, expected {}", m.name())));
            }
        }
        let scheme = IndexScheme::new(material);
        if h[32] != scheme.scheme() as u8 || h[33] != 2 {
            return Err(bad("index scheme does not match the material".into()));
        }
        let entries = u64_at(40);
        if entries != scheme.size() {
            return Err(bad(format!(
                "{entries} entries per side, {} expected",
                scheme.size()
            )));
        }
        let stats = Stats {
            longest_win: u32::from(u16::from_le_bytes([h[34], h[35]])),
            longest_loss: u32::from(u16::from_le_bytes([h[36], h[37]])),
        };
        let digits = scheme.radices().len();
        let mut layouts = [Layout::identity(&scheme); 2];
        for (side, at) in [(0, 56), (1, 64)] {
            let order = &h[at..at + 8];
            if digits > MAX_DIGITS || order[digits..].iter().any(|&b| b != 0xFF) {
                return Err(bad("digit order does not match the material".into()));
            }
            layouts[side] = Layout::new(&scheme, &order[..digits])
                .ok_or_else(|| bad("digit order is no permutation".into()))?;
        }
        let body_sum = u64_at(72);
        let store = match h[38] {
            STORAGE_RAW => {
                let want = HEADER_LEN as u64 + 2 * entries;
                if mmap.len() as u64 != want {
                    return Err(bad(format!(
                        "{} bytes, {want} expected (truncated or padded)",
                        mmap.len()
                    )));
                }
                if layouts.iter().any(|l| l != &Layout::identity(&scheme)) {
                    return Err(bad("a raw table is stored in index order".into()));
                }
                let payload = mmap.get(HEADER_LEN..).unwrap_or(&[]);
                if checksum(payload) != body_sum {
                    return Err(TableError::Checksum {
                        path: path.to_path_buf(),
                    });
                }
                Store::Raw(mmap)
            }
            STORAGE_ZSTD => {
                let block_len = u32_at(48);
                if !(64..=MAX_BLOCK_LEN).contains(&block_len) {
                    return Err(bad(format!("block length {block_len}")));
                }
                let blocks = entries.div_ceil(u64::from(block_len));
                let index_len = 8 * (2 * blocks + 1) + 4 * 2 * blocks;
                let data_at = HEADER_LEN as u64 + index_len;
                let index = usize::try_from(data_at)
                    .ok()
                    .and_then(|end| mmap.get(HEADER_LEN..end))
                    .ok_or_else(|| bad("truncated block index".into()))?;
                if checksum(index) != body_sum {
                    return Err(TableError::Checksum {
                        path: path.to_path_buf(),
                    });
                }
                let mut prev = 0u64;
                for (i, w) in index[..8 * (2 * blocks as usize + 1)]
                    .chunks_exact(8)
                    .enumerate()
                {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(w);
                    let off = u64::from_le_bytes(b);
                    if (i == 0 && off != 0) || off < prev {
                        return Err(bad(format!("block offset {i} out of order")));
                    }
                    prev = off;
                }
                if data_at + prev != mmap.len() as u64 {
                    return Err(bad(format!(
                        "{} bytes, {} expected (truncated or padded)",
                        mmap.len(),
                        data_at + prev
                    )));
                }
                static NEXT_UID: AtomicU64 = AtomicU64::new(1);
                Store::Blocks {
                    mmap,
                    blocks,
                    block_len,
                    data_at: data_at as usize,
                    layouts: Box::new(layouts),
                    uid: NEXT_UID.fetch_add(1, Relaxed),
                }
            }
            s => return Err(bad(format!("unknown storage {s}"))),
        };
        Ok(Table {
            path: path.to_path_buf(),
            scheme,
            stats,
            store,
        })
    }

    /// Opens a table with every value in memory, each compressed block decompressed and checked
    /// now (for the builder's sub-tables and full checks).
    ///
    /// # Errors
    /// As [`Table::open`], and any block that fails its check.
    pub fn open_in_memory(path: &Path, expected: Option<Material>) -> Result<Table, TableError> {
        Table::open_sides_in_memory(path, expected, [true, true])
    }

    /// As [`Table::open_in_memory`], with only the sides to move (white, black) marked in
    /// `sides`; a probe of the other side is an error. Raw files stay memory-mapped whole.
    ///
    /// # Errors
    /// As [`Table::open_in_memory`].
    pub fn open_sides_in_memory(
        path: &Path,
        expected: Option<Material>,
        sides: [bool; 2],
    ) -> Result<Table, TableError> {
        let t = Table::open(path, expected)?;
        let Store::Blocks {
            blocks,
            block_len,
            layouts,
            ..
        } = &t.store
        else {
            return Ok(t);
        };
        let n = t.scheme.size();
        let mut halves: [Option<Vec<u8>>; 2] = [None, None];
        for side in 0..2 {
            if !sides[side] {
                continue;
            }
            let mut out = vec![0u8; n as usize];
            let layout = layouts[side];
            // Decompress blocks in parallel, then scatter them in index order.
            let chunk = 256u64;
            for g in 0..blocks.div_ceil(chunk) {
                let range = g * chunk..((g + 1) * chunk).min(*blocks);
                let decoded: Vec<Result<Vec<u8>, TableError>> = range
                    .clone()
                    .into_par_iter()
                    .map(|b| {
                        let mut buf = Vec::new();
                        t.decompress_block(side, b, None, &mut buf)?;
                        Ok(buf)
                    })
                    .collect();
                for (b, block) in range.zip(decoded) {
                    let block = block?;
                    let mut k = 0;
                    layout.walk(b * u64::from(*block_len), block.len() as u64, |i| {
                        if let (Some(o), Some(&v)) = (out.get_mut(i as usize), block.get(k)) {
                            *o = v;
                        }
                        k += 1;
                    });
                }
            }
            halves[side] = Some(out);
        }
        Ok(Table {
            path: t.path,
            scheme: t.scheme,
            stats: t.stats,
            store: Store::Memory(halves),
        })
    }

    /// Decompresses block `b` of `side` (0 white to move) into `out`: all of it with libzstd
    /// (`out` is the block), or with `need`, a prefix holding at least entry `need` (see
    /// [`super::zstd_prefix`]; the prefix is at the start of `out`, left-over bytes after it).
    /// Returns the number of entries decompressed.
    fn decompress_block(
        &self,
        side: usize,
        b: u64,
        need: Option<usize>,
        out: &mut Vec<u8>,
    ) -> Result<usize, TableError> {
        let Store::Blocks {
            mmap,
            blocks,
            block_len,
            data_at,
            ..
        } = &self.store
        else {
            return Ok(0);
        };
        let bad = |why: String| TableError::Format {
            path: self.path.clone(),
            why,
        };
        if b >= *blocks {
            return Err(bad(format!("block {b} out of range")));
        }
        let k = side as u64 * blocks + b;
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
            .ok_or_else(|| bad(format!("block {b} out of range")))?;
        let sums_at = HEADER_LEN + 8 * (2 * *blocks as usize + 1) + 4 * k as usize;
        let mut sum = [0u8; 4];
        sum.copy_from_slice(&mmap[sums_at..sums_at + 4]);
        if block_sum(frame) != u32::from_le_bytes(sum) {
            return Err(bad(format!(
                "block {b} ({} to move) fails its checksum, the file is corrupted (rebuild it with build-tables --force)",
                side_name(side)
            )));
        }
        let decoded = match need {
            None => decompress_into(frame, len, out),
            Some(need) => decode_prefix(frame, len, need, out),
        };
        decoded.map_err(|e| {
            bad(format!(
                "block {b} ({} to move) is corrupt: {e}",
                side_name(side)
            ))
        })
    }

    /// Decompresses every block, to check the whole file.
    ///
    /// # Errors
    /// The first block that fails its check.
    pub fn check_blocks(&self) -> Result<(), TableError> {
        let Store::Blocks { blocks, .. } = &self.store else {
            return Ok(());
        };
        (0..2 * blocks)
            .into_par_iter()
            .try_for_each_init(Vec::new, |buf, k| {
                self.decompress_block((k / blocks) as usize, k % blocks, None, buf)
                    .map(|_| ())
            })
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

    /// Where entry `idx` with white (`true`) or black to move is in a compressed table: the
    /// side (0 white to move), the block and the entry's place in it. `None` for raw or
    /// in-memory tables and out-of-range entries.
    pub fn block_of(&self, white_to_move: bool, idx: u64) -> Option<(usize, u64, usize)> {
        let Store::Blocks {
            block_len, layouts, ..
        } = &self.store
        else {
            return None;
        };
        if idx >= self.scheme.size() {
            return None;
        }
        let side = usize::from(!white_to_move);
        let pos = layouts[side].to_file(idx);
        let len = u64::from(*block_len);
        Some((side, pos / len, (pos % len) as usize))
    }

    /// The value of entry `idx` with white (`true`) or black to move. Out-of-range indices read
    /// as draws (callers pass indices from the scheme, which are in range).
    ///
    /// # Errors
    /// [`ProbeError::BadTable`] when the block holding the entry is corrupt.
    #[inline]
    pub fn get(&self, white_to_move: bool, idx: u64) -> Result<Value, ProbeError> {
        let n = self.scheme.size();
        let side = usize::from(!white_to_move);
        match &self.store {
            Store::Raw(mmap) => {
                let off = HEADER_LEN as u64 + side as u64 * n + idx;
                Ok(usize::try_from(off)
                    .ok()
                    .and_then(|o| mmap.get(o))
                    .map_or(Value::DRAW, |&b| Value::from_byte(b)))
            }
            Store::Memory(halves) => match &halves[side] {
                Some(v) => Ok(usize::try_from(idx)
                    .ok()
                    .and_then(|o| v.get(o))
                    .map_or(Value::DRAW, |&b| Value::from_byte(b))),
                None => Err(ProbeError::BadTable(format!(
                    "{}: the {} to move values are not loaded",
                    self.path.display(),
                    side_name(side)
                ))),
            },
            Store::Blocks { blocks, uid, .. } => {
                let Some((side, b, k)) = self.block_of(white_to_move, idx) else {
                    return Ok(Value::DRAW);
                };
                let key = (uid << 32) | ((side as u64) << 31) | b;
                debug_assert!(b < *blocks);
                cache::global()
                    .with(
                        key,
                        k,
                        // A second probe into a partly decoded block decodes all of it.
                        |buf, again| {
                            let need = if again { usize::MAX } else { k };
                            self.decompress_block(side, b, Some(need), buf)
                        },
                        |data| data.get(k).map_or(Value::DRAW, |&v| Value::from_byte(v)),
                    )
                    .map_err(|e| ProbeError::BadTable(e.to_string()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn checksum_in_parts_equals_checksum_in_one() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        for split in [0, 1, 3, 7, 8, 9, 500, 999, 1000] {
            for split2 in [split, (split + 5).min(1000), 1000] {
                let mut c = Checksum::new(data.len() as u64);
                c.update(&data[..split]);
                c.update(&data[split..split2]);
                c.update(&data[split2..]);
                assert_eq!(c.finish(), checksum(&data), "{split} {split2}");
            }
        }
        // Any single flipped bit changes the sum.
        let base = checksum(&data);
        for i in (0..data.len()).step_by(37) {
            let mut d = data.clone();
            d[i] ^= 0x10;
            assert_ne!(checksum(&d), base, "byte {i}");
        }
    }
}
