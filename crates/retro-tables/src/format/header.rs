//! The header of a table file: its 96 bytes written ([`Header::to_bytes`]) and read back with
//! every field checked ([`Header::parse`]), and the checksums of the header, the values and the
//! blocks.

use std::path::Path;

use super::{Metric, Stats, HEADER_LEN, VERSION};
use crate::{
    error::FormatError,
    error::TableError,
    index::IndexScheme,
    layout::{Layout, MAX_DIGITS},
    material::Material,
};

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

/// The storage byte of a raw table.
pub const STORAGE_RAW: u8 = 0;
/// The storage byte of a table in compressed blocks.
pub const STORAGE_ZSTD: u8 = 1;

/// The fields of a header.
pub struct Header {
    /// What the values are.
    pub metric: Metric,
    /// The material.
    pub material: Material,
    /// Its index scheme.
    pub scheme: IndexScheme,
    /// The longest win and loss.
    pub stats: Stats,
    /// [`STORAGE_RAW`] or [`STORAGE_ZSTD`].
    pub storage: u8,
    /// Entries per block (compressed tables).
    pub block_len: u32,
    /// The digit order of each side's values in the file.
    pub orders: [Layout; 2],
    /// The checksum of the raw values or of the block index.
    pub body_sum: u64,
    /// Byte planes per side: 1, or 2 when each value has an extension byte (see
    /// [`crate::Value::to_planes`]).
    pub planes: u8,
}

impl Header {
    /// The header's bytes, its own checksum last.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..8].copy_from_slice(self.metric.magic());
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
        h[39] = self.planes.saturating_sub(1);
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

    /// Reads the header at the start of `file` (the file at `path`, for messages), checking
    /// the magic, the version, its checksum, its length, the material (canonical, and
    /// `expected` when given), the index scheme, the number of entries and the digit orders.
    ///
    /// # Errors
    /// [`TableError`] naming the file and the first field that is wrong.
    pub fn parse(
        file: &[u8],
        path: &Path,
        expected: Option<Material>,
    ) -> Result<Header, TableError> {
        let bad = |why: FormatError| TableError::Format {
            path: path.to_path_buf(),
            why,
        };
        let h = file
            .get(..HEADER_LEN)
            .ok_or_else(|| bad(FormatError::ShorterThanHeader { len: file.len() }))?;
        let metric = Metric::ALL
            .into_iter()
            .find(|m| &h[0..8] == m.magic())
            .ok_or_else(|| bad(FormatError::Magic))?;
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
            return Err(bad(FormatError::HeaderLength));
        }
        let material = read_material(h, expected).map_err(bad)?;
        let scheme = IndexScheme::new(material);
        if h[32] != scheme.scheme() as u8 || h[33] != 2 {
            return Err(bad(FormatError::Scheme));
        }
        let entries = u64_at(40);
        if entries != scheme.size() {
            return Err(bad(FormatError::Entries {
                found: entries,
                expected: scheme.size(),
            }));
        }
        let stats = Stats {
            longest_win: u32::from(u16::from_le_bytes([h[34], h[35]])),
            longest_loss: u32::from(u16::from_le_bytes([h[36], h[37]])),
        };
        let orders = read_orders(h, &scheme).map_err(bad)?;
        if h[39] > 1 || (h[39] == 1 && h[38] == STORAGE_RAW) {
            return Err(bad(FormatError::Planes(h[39])));
        }
        Ok(Header {
            planes: h[39] + 1,
            metric,
            material,
            scheme,
            stats,
            storage: h[38],
            block_len: u32_at(48),
            orders,
            body_sum: u64_at(72),
        })
    }
}

/// The material named in header `h`: canonical, and `expected` when given.
fn read_material(h: &[u8], expected: Option<Material>) -> Result<Material, FormatError> {
    let name_bytes: Vec<u8> = h[16..32].iter().copied().take_while(|&b| b != 0).collect();
    let name = String::from_utf8(name_bytes).map_err(|_| FormatError::MaterialText)?;
    let material: Material = name.parse().map_err(FormatError::MaterialName)?;
    if !material.is_canonical() {
        return Err(FormatError::NotCanonical(material));
    }
    if let Some(m) = expected {
        if m != material {
            return Err(FormatError::OtherMaterial {
                found: material,
                expected: m,
            });
        }
    }
    Ok(material)
}

/// The digit orders of both sides in header `h`: permutations of `scheme`'s digits, padded
/// with 0xFF.
fn read_orders(h: &[u8], scheme: &IndexScheme) -> Result<[Layout; 2], FormatError> {
    let digits = scheme.radices().len();
    let mut layouts = [Layout::identity(scheme); 2];
    for (side, at) in [(0, 56), (1, 64)] {
        let order = &h[at..at + 8];
        if digits > MAX_DIGITS || order[digits..].iter().any(|&b| b != 0xFF) {
            return Err(FormatError::DigitOrder);
        }
        layouts[side] = Layout::new(scheme, &order[..digits]).ok_or(FormatError::NoPermutation)?;
    }
    Ok(layouts)
}

/// The checksum of a compressed block as stored in the block index: the low 32 bits of
/// [`checksum`].
pub fn block_sum(frame: &[u8]) -> u32 {
    checksum(frame) as u32
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
