//! Writing table files: the values of both sides, raw or in zstd blocks (each side in the
//! digit order whose sample compresses best), written atomically; and recompressing a table
//! that exists.

use std::{
    fs::File,
    io::{self, BufWriter, Write},
    path::{Path, PathBuf},
    sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::Relaxed},
};

use rayon::prelude::*;
use shakmaty::Color;

use super::{
    header::{block_sum, checksum, Checksum, Header, STORAGE_RAW, STORAGE_ZSTD},
    reader::{decompress_into, Store, Table},
    Compression, Encoding, Metric, Stats, MAX_BLOCK_LEN,
};
use crate::{
    dtz::Dtz,
    error::FormatError,
    error::{BlockError, TableError},
    index::IndexScheme,
    layout::{all_orders, Layout},
    material::Material,
    value::{Value, Wdl},
};

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
    /// The extension bytes of white's and black's values (see [`Value::to_planes`]), for a
    /// table whose values do not all fit a byte (`white` and `black` then hold the first
    /// bytes). Compressed tables only; each plane is stored in its side's digit order.
    pub ext: Option<[&'a [u8]; 2]>,
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

/// Writes the file `path` through `write` atomically ([`crate::write_atomic`]); an I/O error
/// names the file.
fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> Result<u64, TableError> {
    crate::write_atomic(path, write).map_err(|source| TableError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Whether entry `i` is to be kept.
#[inline]
fn is_legal(legal: Option<&[u64]>, i: u64) -> bool {
    legal.is_none_or(|l| {
        l.get((i / 64) as usize)
            .is_some_and(|w| (w >> (i % 64)) & 1 == 1)
    })
}

/// Makes one block's bytes from its entries in file order: an entry that is no position
/// repeats the last kept value before it (the first kept value of the block for those at its
/// start, 0 when none is kept), so it lengthens a run instead of breaking it.
struct BlockFill<'a> {
    out: &'a mut Vec<u8>,
    last: Option<u8>,
    /// Entries before the first kept one.
    leading: usize,
}

impl<'a> BlockFill<'a> {
    fn new(out: &'a mut Vec<u8>) -> BlockFill<'a> {
        out.clear();
        BlockFill {
            out,
            last: None,
            leading: 0,
        }
    }

    #[inline]
    fn push(&mut self, v: u8, kept: bool) {
        if kept {
            if self.last.is_none() {
                self.out[..self.leading].fill(v);
            }
            self.last = Some(v);
            self.out.push(v);
        } else {
            if self.last.is_none() {
                self.leading += 1;
            }
            self.out.push(self.last.unwrap_or(0));
        }
    }
}

/// Fills `out` with the bytes of file positions `start..start + len` in `layout` (see
/// `BlockFill`), each value gathered from its index.
fn assemble(
    layout: &Layout,
    values: &[u8],
    legal: Option<&[u64]>,
    start: u64,
    len: u64,
    out: &mut Vec<u8>,
) {
    let mut fill = BlockFill::new(out);
    layout.walk(start, len, |i| {
        fill.push(
            values.get(i as usize).copied().unwrap_or(0),
            is_legal(legal, i),
        );
    });
}

/// The zstd level of the screen that every digit order goes through (or the table's own level
/// where that is lower), on `SCREEN_BLOCKS` sample blocks; the best `FINALISTS` are then
/// compressed at the table's own level on `FINAL_BLOCKS` blocks, and the smallest is kept.
///
/// The final round alone is what the writer once did for every order (24 orders for 5 pieces):
/// 1.2 to 1.7 s a side on the large 5-piece DTM tables. A screen on its own ranks the orders
/// roughly alike but not always where orders are close: level 3 on 128 blocks alone chose DTM
/// orders up to 4.7% larger (KBNPvK) and level 6 on 64 blocks DTZ50 orders up to 6.5% larger
/// (KQNNvK, KBNvKQ +5.5%). With the final round the files were exactly as large as with the
/// full trials on all 10 DTM tables checked (KBNPvK, KRNvKN, KRBvKR, KBNvKN, KQNNvK, KBNvKQ,
/// KBNNvK, KBBvKN, KBBvKQ, KBBvKR) and on 6 of the 7 DTZ50 tables (KBNvKN: 0.2% smaller).
const SCREEN_LEVEL: i32 = 3;

/// Sample blocks of the screen (see `SCREEN_LEVEL`).
const SCREEN_BLOCKS: u64 = 128;

/// Orders kept from the screen for the final round (see `SCREEN_LEVEL`).
const FINALISTS: usize = 4;

/// Sample blocks of the final round (see `SCREEN_LEVEL`).
const FINAL_BLOCKS: u64 = 256;

/// The sample blocks of a side of `blocks` blocks: `count` (at most `blocks`) drawn by a fixed
/// pseudo-random sequence (evenly spaced samples would line up with the digits and see the same
/// piece placements again and again).
fn sample_blocks(blocks: u64, count: u64) -> Vec<u64> {
    (0..blocks.min(count))
        .map(|k| {
            let mut x = (k + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            x ^= x >> 31;
            x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
            (x ^ (x >> 29)) % blocks
        })
        .collect()
}

/// The digit order whose sample blocks compress smallest (see `SCREEN_LEVEL`).
fn choose_order(
    scheme: &IndexScheme,
    values: &[u8],
    legal: Option<&[u64]>,
    block_len: u32,
    level: i32,
) -> Layout {
    let n = scheme.size();
    let blocks = n.div_ceil(u64::from(block_len));
    let orders = all_orders(scheme.radices().len());
    if orders.len() <= 1 || blocks == 0 {
        return Layout::identity(scheme);
    }
    // The sampled blocks' compressed size under each layout, smallest first.
    let rank = |layouts: Vec<Layout>, level: i32, samples: &[u64]| -> Vec<(usize, Layout)> {
        let mut scored: Vec<(usize, Layout)> = layouts
            .into_par_iter()
            .map(|layout| {
                let mut buf = Vec::with_capacity(block_len as usize);
                let mut total = 0usize;
                let mut c = compressor(level).ok();
                for &b in samples {
                    let start = b * u64::from(block_len);
                    let len = u64::from(block_len).min(n - start);
                    assemble(&layout, values, legal, start, len, &mut buf);
                    total += c
                        .as_mut()
                        .and_then(|c| c.compress(&buf).ok())
                        .map_or(buf.len(), |z| z.len());
                }
                (total, layout)
            })
            .collect();
        scored.sort_by(|a, b| (a.0, a.1.order()).cmp(&(b.0, b.1.order())));
        scored
    };
    let layouts = orders
        .iter()
        .filter_map(|o| Layout::new(scheme, o))
        .collect();
    let screen = sample_blocks(blocks, SCREEN_BLOCKS);
    let mut ranked = rank(layouts, SCREEN_LEVEL.min(level), &screen);
    ranked.truncate(FINALISTS);
    let finalists = ranked.into_iter().map(|(_, l)| l).collect();
    rank(finalists, level, &sample_blocks(blocks, FINAL_BLOCKS))
        .into_iter()
        .next()
        .map_or_else(|| Layout::identity(scheme), |(_, l)| l)
}

/// The most entries a side may have for `compress_side` to transpose it whole (every 5-piece
/// table has fewer; a 6-piece one more).
const MAX_TRANSPOSED: u64 = 1 << 31;

/// Largest region of the file order whose values one task gathers at once (see
/// `compress_side`): 4 MB, within the caches.
const MAX_REGION: u64 = 1 << 22;

/// Compresses one side: its blocks in file order. Where the file order is not the index order,
/// the blocks are made region by region: a region's values are read in index order (in the order
/// they lie in memory) into a buffer in file order, and its blocks are cut from that buffer,
/// where gathering each block's values in file order would touch a cache line, and often a page,
/// per value. Where no region applies and the fastest file digit is not the fastest index digit,
/// the side is transposed tile by tile (`transpose`). Every way gives the same blocks.
fn compress_side(
    scheme: &IndexScheme,
    layout: &Layout,
    values: &[u8],
    legal: Option<&[u64]>,
    block_len: u32,
    level: i32,
) -> io::Result<Vec<Vec<u8>>> {
    let n = scheme.size();
    // At least eight regions, so that every thread has work.
    let region = layout
        .region_len(MAX_REGION.min(n / 8), u64::from(block_len))
        .filter(|&r| r > 0 && n.is_multiple_of(r));
    let Some(region) = region else {
        // The transposed copy takes 2 bytes an entry: beyond 5 pieces, where that is gigabytes
        // beside the values themselves, each block gathers its values instead.
        if layout.tiles() > 0 && n <= MAX_TRANSPOSED {
            let (file, kept) = transpose(n, layout, values, legal)?;
            return compress_blocks(n, block_len, level, |start, len, buf| {
                let mut fill = BlockFill::new(buf);
                let range = start as usize..(start + len) as usize;
                let (v, k) = (file.get(range.clone()), kept.get(range));
                for (v, k) in v.unwrap_or(&[]).iter().zip(k.unwrap_or(&[])) {
                    fill.push(v.load(Relaxed), k.load(Relaxed));
                }
            });
        }
        return compress_blocks(n, block_len, level, |start, len, buf| {
            assemble(layout, values, legal, start, len, buf);
        });
    };
    let parts: Vec<io::Result<Vec<Vec<u8>>>> = (0..n / region)
        .into_par_iter()
        .map_init(
            || {
                (
                    compressor(level),
                    vec![0u8; region as usize],
                    vec![false; region as usize],
                    Vec::with_capacity(block_len as usize),
                )
            },
            |(c, vals, keep, buf), k| {
                let mut visited = 0u64;
                layout.walk_region(k * region, region, |idx, off| {
                    vals[off] = values.get(idx as usize).copied().unwrap_or(0);
                    keep[off] = is_legal(legal, idx);
                    visited += 1;
                });
                if visited != region {
                    // Never with a length from `region_len`; no block from a stale buffer.
                    return Err(io::Error::other(format!(
                        "a region of {region} file positions visited {visited}"
                    )));
                }
                let c = c
                    .as_mut()
                    .map_err(|e| io::Error::new(e.kind(), e.to_string()))?;
                vals.chunks(block_len as usize)
                    .zip(keep.chunks(block_len as usize))
                    .map(|(v, kept)| {
                        let mut fill = BlockFill::new(buf);
                        for (&v, &k) in v.iter().zip(kept) {
                            fill.push(v, k);
                        }
                        c.compress(buf).map(exact)
                    })
                    .collect()
            },
        )
        .collect();
    let mut frames = Vec::with_capacity(n.div_ceil(u64::from(block_len)) as usize);
    for p in parts {
        frames.extend(p?);
    }
    Ok(frames)
}

/// The values of one side and whether each entry is kept, in file order: transposed whole from
/// the index order tile by tile (see [`Layout::walk_tile`]: each tile reads runs of neighbouring
/// entries and writes runs of neighbouring file positions), for `compress_side` where the file
/// order has no regions (its fastest digits hold too few values of the fastest index digit).
/// Gathering each block's values in file order instead touches a cache line, often a page, per
/// value.
fn transpose(
    n: u64,
    layout: &Layout,
    values: &[u8],
    legal: Option<&[u64]>,
) -> io::Result<(Vec<AtomicU8>, Vec<AtomicBool>)> {
    let file: Vec<AtomicU8> = (0..n).into_par_iter().map(|_| AtomicU8::new(0)).collect();
    let kept: Vec<AtomicBool> = (0..n)
        .into_par_iter()
        .map(|_| AtomicBool::new(false))
        .collect();
    let visited = AtomicU64::new(0);
    // The tiles write disjoint file positions: the atomics only let them share the copy.
    (0..layout.tiles()).into_par_iter().for_each(|t| {
        let mut count = 0u64;
        layout.walk_tile(t, |idx, pos| {
            if let (Some(v), Some(k)) = (file.get(pos as usize), kept.get(pos as usize)) {
                v.store(values.get(idx as usize).copied().unwrap_or(0), Relaxed);
                k.store(is_legal(legal, idx), Relaxed);
                count += 1;
            }
        });
        visited.fetch_add(count, Relaxed);
    });
    let visited = visited.into_inner();
    if visited != n {
        // Never with the tiles of a valid layout; no block from an incomplete copy.
        return Err(io::Error::other(format!(
            "the tiles of {n} file positions visited {visited}"
        )));
    }
    Ok((file, kept))
}

/// A compressed frame with no spare capacity: the compressor allocates zstd's bound for the
/// block (4 KB and more), and a 6-piece side keeps a million frames until the file is written.
fn exact(mut frame: Vec<u8>) -> Vec<u8> {
    frame.shrink_to_fit();
    frame
}

/// A zstd compressor for blocks at `level`: the block index holds a checksum of each frame, so
/// zstd's own is not needed.
fn compressor(level: i32) -> io::Result<zstd::bulk::Compressor<'static>> {
    let mut c = zstd::bulk::Compressor::new(level)?;
    c.include_checksum(false)?;
    c.include_contentsize(true)?;
    Ok(c)
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
            || (compressor(level), Vec::with_capacity(block_len as usize)),
            |(c, buf), b| {
                let start = b * u64::from(block_len);
                let len = u64::from(block_len).min(n - start);
                buf.clear();
                fill(start, len, buf);
                match c {
                    Ok(c) => c.compress(buf).map(exact),
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
    metric: Metric,
    material: Material,
    stats: Stats,
    block_len: u32,
    layouts: [Layout; 2],
    sides: &[Vec<Vec<u8>>],
) -> Result<Written, TableError> {
    // White's and black's first bytes, then their extension bytes when there are four lanes.
    let planes = if sides.len() == 4 { 2 } else { 1 };
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
        metric,
        material,
        scheme: IndexScheme::new(material),
        stats,
        storage: STORAGE_ZSTD,
        block_len,
        orders: layouts,
        body_sum: checksum(&offsets),
        planes,
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
///
/// # Safety of the map
/// The file is memory-mapped while it is read ([`Table::open`], *Safety of the map*): no
/// other process may truncate it or write into it during the call. The new file replaces it
/// by a rename, which the map does not see.
pub fn recompress(path: &Path, compression: Compression) -> Result<Written, TableError> {
    let table = Table::open_any(path, None)?;
    let bad = |why: FormatError| TableError::Format {
        path: path.to_path_buf(),
        why,
    };
    let Store::Blocks {
        blocks,
        layouts,
        planes,
        ..
    } = &table.store
    else {
        return Err(bad(FormatError::NotCompressed));
    };
    if *planes != 1 {
        return Err(bad(FormatError::Planes(*planes - 1)));
    }
    let block_len = compression.block_len.clamp(64, MAX_BLOCK_LEN);
    let n = table.scheme.size();
    let mut sides: Vec<Vec<Vec<u8>>> = Vec::with_capacity(2);
    for (lane, side) in [Color::White, Color::Black].into_iter().enumerate() {
        // One side in memory at a time, in file order.
        let mut values = Vec::with_capacity(n as usize);
        let mut buf = Vec::new();
        for b in 0..*blocks {
            table.decompress_block(lane, b, None, &mut buf)?;
            values.extend_from_slice(&buf);
        }
        if values.len() as u64 != n {
            return Err(bad(FormatError::Values {
                got: values.len(),
                expected: n,
            }));
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
                let block_error = |cause| TableError::Block {
                    path: path.to_path_buf(),
                    side,
                    block: b as u64,
                    cause,
                };
                decompress_into(frame, want.len(), buf).map_err(block_error)?;
                if buf.as_slice() == want {
                    Ok(())
                } else {
                    Err(block_error(BlockError::Differs))
                }
            })?;
        sides.push(frames);
    }
    let (metric, material, stats, layouts) = (
        table.metric,
        table.scheme.material(),
        table.stats,
        **layouts,
    );
    drop(table);
    write_frames(
        path.to_path_buf(),
        metric,
        material,
        stats,
        block_len,
        layouts,
        &sides,
    )
}

/// Rewrites the DTZ50 table at `path`, beside its DTM table, as `build-tables` writes one now:
/// compressed with `compression`, keeping only the wins and losses of the DTM table, each loss
/// by its class ([`Dtz::to_table_byte`]). A table written with the exact distance of its
/// losses (as files were before) comes out smaller, with the same probes. Atomic, like every
/// table write.
///
/// # Errors
/// A DTZ50 or DTM table that is not valid, or an I/O or compression error, naming the file.
///
/// # Safety of the map
/// As [`recompress`], for the DTZ50 file and for the DTM file beside it.
pub fn recompress_dtz(path: &Path, compression: Compression) -> Result<Written, TableError> {
    let dtz = Table::open_dtz(path, None)?;
    let material = dtz.scheme().material();
    let dtm_path = path.with_extension(Metric::Dtm.extension());
    let dtm = Table::open(&dtm_path, Some(material))?.into_memory([true, true])?;
    let dtz = dtz.into_memory([true, true])?;
    let scheme = dtz.scheme().clone();
    let n = scheme.size() as usize;
    let bad = |idx: usize| TableError::Format {
        path: path.to_path_buf(),
        why: FormatError::LongWin(idx),
    };
    // Per entry: the byte to write and whether it is kept (a win or loss at an entry that
    // decodes to a placement; the DTM file holds anything at the others).
    let entry = |side: Color, idx: usize| -> Result<(u8, bool), TableError> {
        let read = |t: &Table| {
            t.get_byte(side, idx as u64)
                .map_err(|e| TableError::Format {
                    path: path.to_path_buf(),
                    why: FormatError::Unreadable(e),
                })
        };
        let (m, z) = (read(&dtm)?, read(&dtz)?);
        if Value::from_byte(m).wdl() == Wdl::Draw || scheme.decode(idx as u64).is_none() {
            return Ok((z, false));
        }
        // A win or loss without a distance can only be an entry that is no legal position (a
        // side not to move in check), which is never probed: kept as it is, not kept.
        match Dtz::from_tables(m, z) {
            Some(d) => Ok((d.to_table_byte().ok_or_else(|| bad(idx))?, true)),
            None => Ok((z, false)),
        }
    };
    let mut values: Vec<Vec<u8>> = Vec::with_capacity(2);
    let mut kept: Vec<Vec<u64>> = Vec::with_capacity(2);
    for side in Color::ALL {
        let words: Vec<(Vec<u8>, u64)> = (0..n.div_ceil(64))
            .into_par_iter()
            .map(|w| {
                let mut bytes = Vec::with_capacity(64);
                let mut bits = 0u64;
                for (i, idx) in (w * 64..(w * 64 + 64).min(n)).enumerate() {
                    let (b, keep) = entry(side, idx)?;
                    bytes.push(b);
                    bits |= u64::from(keep) << i;
                }
                Ok((bytes, bits))
            })
            .collect::<Result<_, TableError>>()?;
        values.push(words.iter().flat_map(|(b, _)| b.iter().copied()).collect());
        kept.push(words.iter().map(|&(_, k)| k).collect());
    }
    let stats = dtz.stats();
    drop((dtm, dtz));
    let dir = path.parent().unwrap_or(Path::new("."));
    write_table_as(
        dir,
        Metric::Dtz,
        material,
        TableData {
            white: &values[0],
            black: &values[1],
            legal: Some([&kept[0], &kept[1]]),
            ext: None,
        },
        stats,
        Encoding::for_table(Metric::Dtz, material, compression),
    )
}

/// One side's values for [`write_table_by_side`].
pub struct SideData {
    /// One byte per entry: the first byte of each value (see [`Value::to_planes`]).
    pub first: Vec<u8>,
    /// The extension byte of each value, for a table whose values do not all fit a byte.
    pub ext: Option<Vec<u8>>,
    /// A bit per entry set for the legal positions (see [`TableData::legal`]).
    pub legal: Option<Vec<u64>>,
    /// The longest win and loss of this side.
    pub stats: Stats,
}

/// Writes a compressed table atomically with one side's values in memory at a time: `side`
/// gives white's (0), then black's (1), and each is compressed (first bytes, then extension
/// bytes in the same digit order) and dropped before the next. For tables whose two sides do
/// not fit in memory at once (6 pieces). Both sides must agree on having extension bytes.
///
/// # Errors
/// Any error of `side`, values of the wrong length, or an I/O or compression error, naming
/// the file.
pub fn write_table_by_side(
    dir: &Path,
    metric: Metric,
    material: Material,
    compression: Compression,
    mut side: impl FnMut(Color) -> Result<SideData, TableError>,
) -> Result<(Written, Stats), TableError> {
    let scheme = IndexScheme::new(material);
    let path = dir.join(metric.file_name(material));
    let n = scheme.size() as usize;
    let block_len = compression.block_len.clamp(64, MAX_BLOCK_LEN);
    let level = compression.level_of(metric);
    let io_err = |source| TableError::Io {
        path: path.clone(),
        source,
    };
    let mut layouts = [Layout::identity(&scheme); 2];
    let mut first: Vec<Vec<Vec<u8>>> = Vec::new();
    let mut ext: Vec<Vec<Vec<u8>>> = Vec::new();
    let mut stats = Stats {
        longest_win: 0,
        longest_loss: 0,
    };
    for (s, color) in [Color::White, Color::Black].into_iter().enumerate() {
        let d = side(color)?;
        let lens = [Some(d.first.len()), d.ext.as_ref().map(Vec::len)];
        if let Some(&Some(got)) = lens.iter().find(|l| l.is_some_and(|l| l != n)) {
            return Err(TableError::Format {
                path,
                why: FormatError::ExtensionPlane {
                    got,
                    expected: n as u64,
                },
            });
        }
        // One side's values may all fit a byte while the other's do not: its extension
        // bytes are then zeros.
        let zeros = || vec![0u8; n];
        let d = match (s, d.ext.is_some(), ext.is_empty()) {
            (1, false, false) => SideData {
                ext: Some(zeros()),
                ..d
            },
            (1, true, true) => {
                // White's had none: zeros for white, in white's order, come first.
                let z = zeros();
                ext.push(
                    compress_side(&scheme, &layouts[0], &z, None, block_len, level)
                        .map_err(io_err)?,
                );
                d
            }
            _ => d,
        };
        stats.longest_win = stats.longest_win.max(d.stats.longest_win);
        stats.longest_loss = stats.longest_loss.max(d.stats.longest_loss);
        let legal = d.legal.as_deref();
        let layout = choose_order(&scheme, &d.first, legal, block_len, level);
        layouts[s] = layout;
        first.push(
            compress_side(&scheme, &layout, &d.first, legal, block_len, level).map_err(io_err)?,
        );
        if let Some(e) = &d.ext {
            ext.push(compress_side(&scheme, &layout, e, legal, block_len, level).map_err(io_err)?);
        }
    }
    first.extend(ext);
    let w = write_frames(path, metric, material, stats, block_len, layouts, &first)?;
    Ok((w, stats))
}

/// Writes a DTM table atomically in `encoding`.
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
    write_table_as(dir, Metric::Dtm, material, data, stats, encoding)
}

/// Writes a table of `metric` atomically in `encoding`, into the file named for both.
///
/// # Errors
/// Any I/O or compression error, naming the file.
pub fn write_table_as(
    dir: &Path,
    metric: Metric,
    material: Material,
    data: TableData<'_>,
    stats: Stats,
    encoding: Encoding,
) -> Result<Written, TableError> {
    let scheme = IndexScheme::new(material);
    let path = dir.join(metric.file_name(material));
    let n = scheme.size() as usize;
    if let Some(ext) = data.ext {
        if let Some(e) = ext.iter().find(|e| e.len() != n) {
            return Err(TableError::Format {
                path,
                why: FormatError::ExtensionPlane {
                    got: e.len(),
                    expected: n as u64,
                },
            });
        }
        if encoding == Encoding::Raw {
            return Err(TableError::Format {
                path,
                why: FormatError::Planes(1),
            });
        }
    }
    if data.white.len() != n || data.black.len() != n {
        return Err(TableError::Format {
            path,
            why: FormatError::ValuesToWrite {
                white: data.white.len(),
                black: data.black.len(),
                expected: n,
            },
        });
    }
    let identity = Layout::identity(&scheme);
    match encoding {
        Encoding::Raw => {
            let mut sum = Checksum::new(2 * n as u64);
            sum.update(data.white);
            sum.update(data.black);
            let h = Header {
                metric,
                material,
                scheme: scheme.clone(),
                stats,
                storage: STORAGE_RAW,
                block_len: 0,
                orders: [identity, identity],
                body_sum: sum.finish(),
                planes: 1,
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
                let t = std::time::Instant::now();
                layouts[side] = choose_order(&scheme, values, legal, block_len, level);
                let chosen = t.elapsed().as_secs_f64();
                sides.push(
                    compress_side(&scheme, &layouts[side], values, legal, block_len, level)
                        .map_err(io_err)?,
                );
                log::debug!(
                    "{}: side {side}: digit order chosen in {chosen:.2} s, compressed in {:.2} s",
                    metric.file_name(material),
                    t.elapsed().as_secs_f64() - chosen
                );
            }
            if let Some(ext) = data.ext {
                // The extension bytes in the order chosen for the first bytes, kept where
                // they are.
                for (side, values) in ext.into_iter().enumerate() {
                    let legal = data.legal.map(|l| l[side]);
                    sides.push(
                        compress_side(&scheme, &layouts[side], values, legal, block_len, level)
                            .map_err(io_err)?,
                    );
                }
            }
            write_frames(path, metric, material, stats, block_len, layouts, &sides)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Material;
    use std::fs;

    /// The blocks cut from regions gathered in index order, and from a copy transposed tile by
    /// tile, are those gathered block by block in file order, for every digit order, with
    /// entries kept and not.
    #[test]
    fn region_blocks_equal_blocks_gathered_in_file_order() {
        let m: Material = "KRvKN".parse().expect("material");
        let ix = IndexScheme::new(m);
        let n = ix.size();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        // Runs of values, as tables have, and about a third of the entries not kept.
        let values: Vec<u8> = (0..n).map(|i| ((i / 5) % 7) as u8).collect();
        let legal: Vec<u64> = (0..n.div_ceil(64)).map(|_| next() | next()).collect();
        let (mut regions, mut transposed) = (0, 0);
        for (order, block_len) in all_orders(ix.radices().len())
            .into_iter()
            .flat_map(|o| [(o.clone(), 64), (o, 4096)])
        {
            let layout = Layout::new(&ix, &order).expect("permutation");
            let by_block = compress_blocks(n, block_len, 1, |start, len, buf| {
                assemble(&layout, &values, Some(&legal), start, len, buf);
            })
            .expect("compressed");
            let side = compress_side(&ix, &layout, &values, Some(&legal), block_len, 1)
                .expect("compressed");
            assert_eq!(side, by_block, "{order:?}");
            let region = layout.region_len(MAX_REGION.min(n / 8), u64::from(block_len));
            regions += usize::from(region.is_some());
            transposed += usize::from(region.is_none() && layout.tiles() > 0);
        }
        // Orders with regions and orders transposed by tiles: the test compares the paths.
        assert!(regions >= 4, "{regions}");
        assert!(transposed >= 2, "{transposed}");
    }

    /// A table with extension bytes (values beyond a byte) reads back every value it was
    /// written with, in blocks; a raw table with extension bytes is refused, and a file whose
    /// header claims more planes than it has is refused when opened.
    #[test]
    fn extension_planes_round_trip() {
        let m: Material = "KRvKN".parse().expect("material");
        let ix = IndexScheme::new(m);
        let n = ix.size() as usize;
        let value = |i: usize, plane: usize| -> Value {
            let h = ((i * 7 + plane * 3) / 11 % 600) as u32;
            match (i + plane) % 3 {
                0 => Value::DRAW,
                1 => Value::loss(2 * h).unwrap_or(Value::DRAW),
                _ => Value::win(2 * h + 1).unwrap_or(Value::DRAW),
            }
        };
        let planes: Vec<(Vec<u8>, Vec<u8>)> = (0..2)
            .map(|plane| (0..n).map(|i| value(i, plane).to_planes()).unzip())
            .collect();
        let dir = std::env::temp_dir().join(format!("retro-planes-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("dir");
        let data = TableData {
            white: &planes[0].0,
            black: &planes[1].0,
            legal: None,
            ext: Some([&planes[0].1, &planes[1].1]),
        };
        let stats = Stats {
            longest_win: 1199,
            longest_loss: 1198,
        };
        let enc = Encoding::Blocks {
            block_len: 256,
            level: 3,
        };
        let w = write_table(&dir, m, data, stats, enc).expect("written");
        let t = Table::open(&w.path, Some(m)).expect("opened");
        assert_eq!(t.planes(), 2);
        t.check_blocks().expect("blocks");
        for i in (0..n).step_by(7) {
            for plane in 0..2 {
                let got = t.get(Color::ALL[plane], i as u64).expect("probe");
                assert_eq!(got, value(i, plane), "entry {i} plane {plane}");
            }
        }
        // In memory it stays in its blocks and reads the same.
        let t = t.into_memory([true, true]).expect("memory");
        assert_eq!(t.get(Color::White, 12345).expect("probe"), value(12345, 0));
        assert!(recompress(&w.path, Compression::default()).is_err());
        // Raw with extension bytes: refused.
        assert!(write_table(&dir, m, data, stats, Encoding::Raw).is_err());
        // A header that claims extension bytes for a table written without: refused, as its
        // block index is too short for four lanes.
        let one = TableData { ext: None, ..data };
        let w = write_table(&dir, m, one, stats, enc).expect("written");
        let mut bytes = fs::read(&w.path).expect("read");
        bytes[39] = 1;
        let sum = checksum(&bytes[..88]);
        bytes[88..96].copy_from_slice(&sum.to_le_bytes());
        fs::write(&w.path, &bytes).expect("write");
        assert!(Table::open(&w.path, Some(m)).is_err());
        bytes[39] = 7;
        let sum = checksum(&bytes[..88]);
        bytes[88..96].copy_from_slice(&sum.to_le_bytes());
        fs::write(&w.path, &bytes).expect("write");
        assert!(Table::open(&w.path, Some(m)).is_err());
        let _ = fs::remove_dir_all(&dir);
    }

    /// Written one side at a time, a table whose black values need extension bytes and whose
    /// white values do not reads back every value (white's extension bytes are zeros).
    /// An entry past the table's end reads as 0 in every store (found by the `table_file`
    /// fuzz target: a raw table read the other side's entries there).
    #[test]
    fn entries_out_of_range_read_zero_in_every_store() {
        let m: Material = "KBvK".parse().expect("material");
        let n = IndexScheme::new(m).size() as usize;
        let white: Vec<u8> = (0..n).map(|i| (i % 200) as u8 + 1).collect();
        let black: Vec<u8> = (0..n).map(|i| (i % 100) as u8 + 1).collect();
        let dir = std::env::temp_dir().join(format!("retro-range-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("dir");
        let data = TableData {
            white: &white,
            black: &black,
            legal: None,
            ext: None,
        };
        let stats = Stats {
            longest_win: 1,
            longest_loss: 1,
        };
        for enc in [
            Encoding::Raw,
            Encoding::Blocks {
                block_len: 256,
                level: 3,
            },
        ] {
            let w = write_table(&dir, m, data, stats, enc).expect("written");
            let mapped = Table::open(&w.path, Some(m)).expect("opened");
            let whole = Table::open_in_memory(&w.path, Some(m)).expect("opened");
            for t in [&mapped, &whole] {
                assert_eq!(t.get_byte(Color::White, n as u64 - 1), Ok(white[n - 1]));
                for idx in [n as u64, n as u64 + 1, 2 * n as u64, u64::MAX] {
                    assert_eq!(t.get_byte(Color::White, idx), Ok(0), "{enc:?} entry {idx}");
                    assert_eq!(t.get_byte(Color::Black, idx), Ok(0), "{enc:?} entry {idx}");
                }
            }
        }
        let _ = fs::remove_dir_all(&dir);
    }

    /// A block index whose last offset would take the file's length past 2^64 is refused as a
    /// wrong length (the `table_file` fuzz target found the sum overflowing; its input is in
    /// `fuzz/corpus/table_file`, replayed where overflows are checked).
    #[test]
    fn a_last_offset_past_two_to_the_64_is_refused() {
        let m: Material = "KBvK".parse().expect("material");
        let n = IndexScheme::new(m).size() as usize;
        let values: Vec<u8> = (0..n).map(|i| (i % 7) as u8).collect();
        let dir = std::env::temp_dir().join(format!("retro-wrap-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("dir");
        let data = TableData {
            white: &values,
            black: &values,
            legal: None,
            ext: None,
        };
        let stats = Stats {
            longest_win: 1,
            longest_loss: 1,
        };
        let enc = Encoding::Blocks {
            block_len: 4096,
            level: 3,
        };
        let w = write_table(&dir, m, data, stats, enc).expect("written");
        let mut bytes = fs::read(&w.path).expect("read");
        let keys = 2 * n.div_ceil(4096);
        let header = crate::format::HEADER_LEN;
        let data_at = header + 8 * (keys + 1) + 4 * keys;
        let last = header + 8 * keys;
        bytes[last..last + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        let body = checksum(&bytes[header..data_at]);
        bytes[72..80].copy_from_slice(&body.to_le_bytes());
        let sum = checksum(&bytes[..88]);
        bytes[88..96].copy_from_slice(&sum.to_le_bytes());
        fs::write(&w.path, &bytes).expect("write");
        assert!(matches!(
            Table::open(&w.path, Some(m)),
            Err(TableError::Format {
                why: crate::FormatError::Length { .. },
                ..
            })
        ));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn sides_written_one_at_a_time_read_back() {
        let m: Material = "KRvKN".parse().expect("material");
        let n = IndexScheme::new(m).size() as usize;
        let value = |i: usize, side: Color| -> Value {
            // White's mates fit a byte (at most 199 plies), black's do not.
            let h = (i / 7 % side.fold_wb(100, 300)) as u32;
            if i.is_multiple_of(2) {
                Value::loss(2 * h).unwrap_or(Value::DRAW)
            } else {
                Value::win(2 * h + 1).unwrap_or(Value::DRAW)
            }
        };
        let dir = std::env::temp_dir().join(format!("retro-by-side-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("dir");
        let (w, stats) =
            write_table_by_side(&dir, Metric::Dtm, m, Compression::default(), |side| {
                let (first, ext): (Vec<u8>, Vec<u8>) =
                    (0..n).map(|i| value(i, side).to_planes()).unzip();
                let wide = ext.iter().any(|&e| e != 0);
                Ok(SideData {
                    first,
                    ext: wide.then_some(ext),
                    legal: None,
                    stats: Stats {
                        longest_win: 0,
                        longest_loss: 0,
                    },
                })
            })
            .expect("written");
        assert_eq!(stats.longest_win, 0);
        let t = Table::open(&w.path, Some(m)).expect("opened");
        assert_eq!(t.planes(), 2);
        for i in (0..n).step_by(5) {
            for side in Color::ALL {
                assert_eq!(t.get(side, i as u64).expect("probe"), value(i, side));
            }
        }
        let _ = fs::remove_dir_all(&dir);
    }
}
