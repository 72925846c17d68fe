//! The network file: a header, then the integer weights, little-endian. Version 1 has one
//! output bucket; version 2 says how many (1 or `OUTPUT_BUCKETS`); version 3 also has king
//! buckets (mirrored, with a bucket map). A network without king buckets is written as version 2
//! (as version 1 when it has one output bucket), so that older builds read it.
//!
//! ```text
//! offset size  field
//!      0    8  magic "RETRONN\0"
//!      8    4  version (1, 2 or 3)
//!     12    4  inputs (768)
//!     16    4  hidden (HIDDEN)
//!     20    4  QA (255)
//!     24    4  QB (64)
//!     28    4  SCALE (400)
//!  version 1:
//!     32    8  FNV-1a 64 checksum of the payload
//!     40       payload
//!  version 2:
//!     32    4  output buckets B (1 or OUTPUT_BUCKETS)
//!     36    4  reserved, 0
//!     40    8  FNV-1a 64 checksum of the payload
//!     48       payload
//!  version 3:
//!     32    8  FNV-1a 64 checksum of everything from offset 40 to the end
//!     40    4  output buckets B (1 or OUTPUT_BUCKETS)
//!     44    4  king buckets K (1 to MAX_KING_BUCKETS)
//!     48   32  king bucket map: the bucket (below K) of each square of files a-d of the own
//!              king seen from its side, rank * 4 + file
//!     80       payload
//!
//! payload: ft_weights i16[K][INPUTS][HIDDEN] (K = 1 before version 3), ft_bias i16[HIDDEN],
//!          out_weights i16[B][2*HIDDEN] (each within ±127), out_bias i32[B]
//! ```
//!
//! A file is read whole and checked before use: its size must be exactly the header's plus the
//! payload's, every header field must match this build, the checksum must match. (The one
//! exception: `Network::load_widened`, for the start of a training, reads a network of fewer
//! neurons, the ones it lacks zero.)

use std::path::Path;

use super::{
    kings::HALF_BOARD, KingBucketError, KingBuckets, Network, HIDDEN, INPUTS, MAX_OUTPUT_WEIGHT,
    OUTPUT_BUCKETS, QA, QB, SCALE,
};

/// The first 8 bytes of a network file.
pub const FILE_MAGIC: [u8; 8] = *b"RETRONN\0";
/// The newest format version, which this build reads (as it reads versions 1 and 2) and writes
/// for a network with king buckets.
pub const FILE_VERSION: u32 = 3;

/// Bytes of a version's header.
const fn header_bytes(version: u32) -> usize {
    match version {
        1 => 40,
        2 => 48,
        _ => 80,
    }
}

/// Where a version's checksum is and where the bytes it covers start.
const fn checksum_at(version: u32) -> (usize, usize) {
    match version {
        1 => (32, 40),
        2 => (40, 48),
        _ => (32, 40),
    }
}

/// Bytes of the payload of a network of `buckets` output buckets and `kings` king buckets.
const fn payload_bytes(buckets: usize, kings: usize) -> usize {
    payload_bytes_of(buckets, kings, HIDDEN)
}

/// Bytes of the payload of a network of `hidden` neurons a side, `buckets` output buckets and
/// `kings` king buckets.
const fn payload_bytes_of(buckets: usize, kings: usize, hidden: usize) -> usize {
    2 * (kings * INPUTS * hidden + hidden + buckets * 2 * hidden) + 4 * buckets
}

/// The neuron counts a build of [`HIDDEN`] widens from (`Network::load_widened`): from 1 to
/// its own.
const fn widens_from(hidden: u32) -> bool {
    hidden > 0 && hidden as usize <= HIDDEN
}

/// Why a network file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    /// The file could not be read.
    #[error("cannot read the network file: {0}")]
    Io(#[from] std::io::Error),
    /// The file does not begin with the magic bytes.
    #[error("not a Retro network file (bad magic)")]
    Magic,
    /// The file is of another format version.
    #[error("network format version {found}, this build reads versions 1 to {FILE_VERSION}")]
    Version {
        /// The version in the file.
        found: u32,
    },
    /// The header describes another architecture.
    #[error("network architecture {field} = {found}, this build needs {expected}")]
    Architecture {
        /// The header field.
        field: &'static str,
        /// Its value in the file.
        found: u32,
        /// The value this build needs.
        expected: u32,
    },
    /// The file ends before its payload does.
    #[error("network file truncated: {found} bytes, {expected} expected")]
    Truncated {
        /// The file's size.
        found: usize,
        /// The size expected.
        expected: usize,
    },
    /// The file goes on after its payload.
    #[error("network file too long: {found} bytes, {expected} expected")]
    Oversized {
        /// The file's size.
        found: usize,
        /// The size expected.
        expected: usize,
    },
    /// The payload's checksum does not match the header's: the file is corrupted.
    #[error("network file corrupted: checksum {found:016x}, header says {expected:016x}")]
    Checksum {
        /// The payload's checksum.
        found: u64,
        /// The header's.
        expected: u64,
    },
    /// An output weight outside ±[`MAX_OUTPUT_WEIGHT`].
    #[error("network output weight {found} out of range (at most ±{MAX_OUTPUT_WEIGHT})")]
    OutputWeight {
        /// The weight.
        found: i16,
    },
    /// A version 2 header's number of output buckets is neither 1 nor `OUTPUT_BUCKETS`.
    #[error("network output buckets {found}: this build reads 1 or {OUTPUT_BUCKETS}")]
    OutputBuckets {
        /// The number in the file.
        found: u32,
    },
    /// A version 2 header's reserved field is not 0.
    #[error("network header field at offset 36 is {found}, reserved and 0 in this version")]
    Reserved {
        /// The field's value.
        found: u32,
    },
    /// A version 3 header's king buckets or bucket map cannot be used.
    #[error("network {0}")]
    KingBuckets(#[from] KingBucketError),
    /// Floating-point weights of the wrong number.
    #[error("weights of the wrong shape for a {INPUTS}x{HIDDEN} network")]
    Shape,
}

/// FNV-1a, 64 bits.
fn fnv1a(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes
        .iter()
        .fold(OFFSET, |h, &b| (h ^ u64::from(b)).wrapping_mul(PRIME))
}

/// A file of `version` (1; 2 with `buckets` in its header; 3 with `buckets` and `kings`)
/// around `payload`, with its checksum.
pub(super) fn file_bytes(
    version: u32,
    buckets: u32,
    kings: &KingBuckets,
    payload: &[u8],
) -> Vec<u8> {
    file_bytes_of(version, HIDDEN as u32, buckets, kings, payload)
}

/// [`file_bytes`] of a network of `hidden` neurons a side.
pub(super) fn file_bytes_of(
    version: u32,
    hidden: u32,
    buckets: u32,
    kings: &KingBuckets,
    payload: &[u8],
) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(header_bytes(version) + payload.len());
    bytes.extend_from_slice(&FILE_MAGIC);
    for v in [
        version,
        INPUTS as u32,
        hidden,
        QA as u32,
        QB as u32,
        SCALE as u32,
    ] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    match version {
        1 => {}
        2 => {
            bytes.extend_from_slice(&buckets.to_le_bytes());
            bytes.extend_from_slice(&0u32.to_le_bytes());
        }
        _ => {
            bytes.extend_from_slice(&[0; 8]);
            bytes.extend_from_slice(&buckets.to_le_bytes());
            bytes.extend_from_slice(&(kings.count() as u32).to_le_bytes());
            bytes.extend_from_slice(&kings.map());
        }
    }
    if version != 3 {
        bytes.extend_from_slice(&[0; 8]);
    }
    bytes.extend_from_slice(payload);
    let (at, from) = checksum_at(version);
    let sum = fnv1a(&bytes[from..]);
    bytes[at..at + 8].copy_from_slice(&sum.to_le_bytes());
    bytes
}

impl Network {
    /// Reads a network file.
    ///
    /// # Errors
    /// [`NetworkError`]: the file cannot be read, or is not a network of this build's shape.
    pub fn load(path: &Path) -> Result<Network, NetworkError> {
        Network::from_bytes(&std::fs::read(path)?)
    }

    /// The network in `bytes`, a network file's contents.
    ///
    /// # Errors
    /// [`NetworkError`] when the bytes are not a network of this build's shape.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        Network::parse(bytes, false).map(|(net, _)| net)
    }

    /// Reads a network file of at most [`HIDDEN`] neurons a side into a network of `HIDDEN`,
    /// with the neurons the file lacks all zero, so that it evaluates every position as the
    /// file's network does: the start of a wider network's training. Returns the network and the
    /// file's number of neurons a side.
    ///
    /// # Errors
    /// As [`Network::load`], but a file of fewer neurons is read.
    pub fn load_widened(path: &Path) -> Result<(Network, usize), NetworkError> {
        Network::from_bytes_widened(&std::fs::read(path)?)
    }

    /// [`Network::load_widened`] of a file's contents.
    ///
    /// # Errors
    /// As [`Network::from_bytes`], but a network of fewer neurons is read.
    pub fn from_bytes_widened(bytes: &[u8]) -> Result<(Network, usize), NetworkError> {
        Network::parse(bytes, true)
    }

    /// The network in `bytes` and the file's neurons a side: exactly [`HIDDEN`], or with
    /// `widen` fewer, the rest zero.
    fn parse(bytes: &[u8], widen: bool) -> Result<(Network, usize), NetworkError> {
        if bytes.len() < 8 || bytes[..8] != FILE_MAGIC {
            return Err(NetworkError::Magic);
        }
        // The shortest header, which holds the version.
        let least = header_bytes(1) + payload_bytes(1, 1);
        if bytes.len() < header_bytes(1) {
            return Err(NetworkError::Truncated {
                found: bytes.len(),
                expected: least,
            });
        }
        let u32_at =
            |o: usize| u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
        let version = u32_at(8);
        if !(1..=FILE_VERSION).contains(&version) {
            return Err(NetworkError::Version { found: version });
        }
        let header = header_bytes(version);
        if bytes.len() < header {
            // Shorter than its header: the size it needs at least.
            return Err(NetworkError::Truncated {
                found: bytes.len(),
                expected: header,
            });
        }
        let buckets = match version {
            1 => 1,
            2 => u32_at(32),
            _ => u32_at(40),
        };
        if !(buckets == 1 || buckets == OUTPUT_BUCKETS as u32) {
            return Err(NetworkError::OutputBuckets { found: buckets });
        }
        if version == 2 && u32_at(36) != 0 {
            return Err(NetworkError::Reserved { found: u32_at(36) });
        }
        let kings = if version == 3 {
            let mut map = [0u8; HALF_BOARD];
            map.copy_from_slice(&bytes[48..48 + HALF_BOARD]);
            KingBuckets::mirrored(u32_at(44), map)?
        } else {
            KingBuckets::NONE
        };
        let buckets = buckets as usize;
        let hidden = if widen && widens_from(u32_at(16)) {
            u32_at(16) as usize
        } else {
            HIDDEN
        };
        let expected = header + payload_bytes_of(buckets, kings.count(), hidden);
        for (field, offset, value) in [
            ("inputs", 12, INPUTS as u32),
            ("hidden", 16, hidden as u32),
            ("QA", 20, QA as u32),
            ("QB", 24, QB as u32),
            ("SCALE", 28, SCALE as u32),
        ] {
            let found = u32_at(offset);
            if found != value {
                return Err(NetworkError::Architecture {
                    field,
                    found,
                    expected: value,
                });
            }
        }
        if bytes.len() < expected {
            return Err(NetworkError::Truncated {
                found: bytes.len(),
                expected,
            });
        }
        if bytes.len() > expected {
            return Err(NetworkError::Oversized {
                found: bytes.len(),
                expected,
            });
        }
        let (at, from) = checksum_at(version);
        let mut sum = [0u8; 8];
        sum.copy_from_slice(&bytes[at..at + 8]);
        let header_sum = u64::from_le_bytes(sum);
        let found = fnv1a(&bytes[from..]);
        if found != header_sum {
            return Err(NetworkError::Checksum {
                found,
                expected: header_sum,
            });
        }
        let payload = &bytes[header..];
        let mut words = payload
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut net = Network::zero_with(kings);
        // The payload's length was checked: every `next` below has a word to give.
        let mut next = || words.next().unwrap_or(0);
        for row in net.ft_weights.iter_mut() {
            for w in &mut row[..hidden] {
                *w = next();
            }
        }
        for b in &mut net.ft_bias[..hidden] {
            *b = next();
        }
        net.buckets = buckets;
        for bucket in &mut net.out_weights[..buckets] {
            // The side to move's neurons, then the other side's, each `hidden` in the file.
            let (us, them) = bucket.split_at_mut(HIDDEN);
            for w in us[..hidden].iter_mut().chain(&mut them[..hidden]) {
                *w = next();
                // (`abs` would overflow on i16::MIN.)
                if !(-MAX_OUTPUT_WEIGHT..=MAX_OUTPUT_WEIGHT).contains(w) {
                    return Err(NetworkError::OutputWeight { found: *w });
                }
            }
        }
        let biases = &payload[payload.len() - 4 * buckets..];
        for (b, c) in net.out_bias.iter_mut().zip(biases.chunks_exact(4)) {
            *b = i32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        Ok((net, hidden))
    }

    /// The weights as a file's payload.
    fn payload(&self) -> Vec<u8> {
        let mut payload = Vec::with_capacity(payload_bytes(self.buckets, self.kings.count()));
        let words = self
            .ft_weights
            .iter()
            .flatten()
            .chain(&self.ft_bias)
            .chain(self.out_weights[..self.buckets].iter().flatten());
        for w in words {
            payload.extend_from_slice(&w.to_le_bytes());
        }
        for b in &self.out_bias[..self.buckets] {
            payload.extend_from_slice(&b.to_le_bytes());
        }
        payload
    }

    /// The file version of this network: 3 with king buckets, else 2 for several output
    /// buckets, else 1.
    fn version(&self) -> u32 {
        if self.kings.by_king() {
            3
        } else if self.buckets == 1 {
            1
        } else {
            2
        }
    }

    /// The network as a file's contents (version 3 with king buckets, else 2 for several
    /// output buckets, else 1).
    pub fn to_bytes(&self) -> Vec<u8> {
        file_bytes(
            self.version(),
            self.buckets as u32,
            &self.kings,
            &self.payload(),
        )
    }

    /// The checksum of the network's file (the header's).
    pub fn checksum(&self) -> u64 {
        let bytes = self.to_bytes();
        let (at, _) = checksum_at(self.version());
        let mut sum = [0u8; 8];
        sum.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(sum)
    }
}
