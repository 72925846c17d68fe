//! The table file format (described in tables/README.md): a 64-byte header, then one byte per
//! entry for white to move and one byte per entry for black to move. Files are written
//! atomically and memory-mapped for probing; every byte of a file is untrusted.

use std::{
    fs::{self, File},
    io::{self, Write},
    path::{Path, PathBuf},
};

use memmap2::Mmap;

use super::{index::IndexScheme, material::Material, value::Value};

/// File magic.
pub const MAGIC: &[u8; 8] = b"RETRODTM";
/// Format version this build reads and writes.
pub const VERSION: u32 = 1;
/// Header length in bytes.
pub const HEADER_LEN: usize = 64;
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

fn header(material: Material, scheme: &IndexScheme, stats: Stats, payload_sum: u64) -> [u8; 64] {
    let mut h = [0u8; HEADER_LEN];
    h[0..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&(HEADER_LEN as u32).to_le_bytes());
    let name = material.name();
    let n = name.len().min(16);
    h[16..16 + n].copy_from_slice(&name.as_bytes()[..n]);
    h[32] = scheme.scheme() as u8;
    h[33] = 2;
    h[34..36].copy_from_slice(&(stats.longest_win.min(65535) as u16).to_le_bytes());
    h[36..38].copy_from_slice(&(stats.longest_loss.min(65535) as u16).to_le_bytes());
    h[40..48].copy_from_slice(&scheme.size().to_le_bytes());
    h[48..56].copy_from_slice(&payload_sum.to_le_bytes());
    let hs = checksum(&h[..56]);
    h[56..64].copy_from_slice(&hs.to_le_bytes());
    h
}

/// Writes a table atomically: into a temporary file beside the target, synced, then renamed.
///
/// # Errors
/// Any I/O error, naming the file.
pub fn write_table(
    dir: &Path,
    material: Material,
    white: &[u8],
    black: &[u8],
    stats: Stats,
) -> Result<PathBuf, TableError> {
    let scheme = IndexScheme::new(material);
    let path = dir.join(file_name(material));
    let tmp = dir.join(format!(
        ".{}.tmp.{}",
        file_name(material),
        std::process::id()
    ));
    let io_err = |p: &Path| {
        let p = p.to_path_buf();
        move |source| TableError::Io { path: p, source }
    };
    let mut sum = Checksum::new((white.len() + black.len()) as u64);
    sum.update(white);
    sum.update(black);
    let h = header(material, &scheme, stats, sum.finish());
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(&h)?;
        f.write_all(white)?;
        f.write_all(black)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, &path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(io_err(&path)(e));
    }
    Ok(path)
}

/// An open, validated, memory-mapped table.
pub struct Table {
    path: PathBuf,
    scheme: IndexScheme,
    stats: Stats,
    mmap: Mmap,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("path", &self.path)
            .field("material", &self.scheme.material().name())
            .finish()
    }
}

impl Table {
    /// Opens and validates a table file: magic, version, material (when `expected` is given),
    /// index scheme, size and both checksums. A file that fails any check is refused.
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
        if checksum(&h[..56]) != u64_at(56) {
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
        let want = HEADER_LEN as u64 + 2 * entries;
        if mmap.len() as u64 != want {
            return Err(bad(format!(
                "{} bytes, {want} expected (truncated or padded)",
                mmap.len()
            )));
        }
        let payload = mmap.get(HEADER_LEN..).unwrap_or(&[]);
        if checksum(payload) != u64_at(48) {
            return Err(TableError::Checksum {
                path: path.to_path_buf(),
            });
        }
        let stats = Stats {
            longest_win: u32::from(u16::from_le_bytes([h[34], h[35]])),
            longest_loss: u32::from(u16::from_le_bytes([h[36], h[37]])),
        };
        Ok(Table {
            path: path.to_path_buf(),
            scheme,
            stats,
            mmap,
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

    /// The value of entry `idx` with white (`true`) or black to move. Out-of-range indices read
    /// as draws (callers pass indices from the scheme, which are in range).
    #[inline]
    pub fn get(&self, white_to_move: bool, idx: u64) -> Value {
        let side = if white_to_move { 0 } else { self.scheme.size() };
        let off = HEADER_LEN as u64 + side + idx;
        usize::try_from(off)
            .ok()
            .and_then(|o| self.mmap.get(o))
            .map_or(Value::DRAW, |&b| Value::from_byte(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
