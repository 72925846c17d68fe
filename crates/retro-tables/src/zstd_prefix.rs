//! A zstd frame decoder that stops once the byte it is asked for is out.
//!
//! A probe of a compressed table needs one value of a block of 4096, and libzstd decodes the
//! whole block before it returns. This decoder, written from RFC 8878 (Zstandard), executes the
//! block's sequences in order and stops after the one that writes the wanted byte: on average
//! half of a block's sequences are left undone. It reads every frame without a dictionary
//! (raw, RLE and compressed blocks; raw, RLE, Huffman and treeless literals; predefined, RLE,
//! FSE and repeated sequence tables). Whole blocks (checks, recompression) are still decoded by
//! libzstd, and the tests compare the two on every block of the tables they build.
//!
//! Corrupt input gives a [`DecodeError`], never a panic: every length, offset and symbol is
//! checked before it is used, and the bit readers read zeros past the start of their stream.

use std::fmt;

/// Why a frame could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeError(&'static str);

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for DecodeError {}

type Result<T> = std::result::Result<T, DecodeError>;

/// Frame magic number.
const MAGIC: u32 = 0xFD2F_B528;
/// Largest block content (RFC 8878, Block_Maximum_Size).
const MAX_BLOCK: usize = 128 * 1024;
/// Bytes past the end of the output and literal buffers that copies in chunks of 16 may
/// overwrite.
const SLACK: usize = 32;

/// Literal length codes: baseline and extra bits.
const LL_BASE: [u32; 36] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 20, 22, 24, 28, 32, 40, 48, 64,
    128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536,
];
const LL_BITS: [u8; 36] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11,
    12, 13, 14, 15, 16,
];
/// Match length codes: baseline and extra bits.
const ML_BASE: [u32; 53] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
    28, 29, 30, 31, 32, 33, 34, 35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027,
    2051, 4099, 8195, 16387, 32771, 65539,
];
const ML_BITS: [u8; 53] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
];
/// Predefined distributions (RFC 8878, 3.1.1.3.2.2).
const LL_DEFAULT: [i16; 36] = [
    4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1,
    -1, -1, -1, -1,
];
const ML_DEFAULT: [i16; 53] = [
    1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1,
];
const OF_DEFAULT: [i16; 29] = [
    1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1,
];

fn corrupt(why: &'static str) -> DecodeError {
    DecodeError(why)
}

/// Index of the highest set bit (`x > 0`).
#[inline]
fn high_bit(x: u32) -> u32 {
    31 - x.leading_zeros()
}

/// Eight little-endian bytes at `at` (zeros past the end).
#[inline]
fn load(s: &[u8], at: usize) -> u64 {
    match s.get(at..at + 8) {
        Some(b) => {
            let mut w = [0u8; 8];
            w.copy_from_slice(b);
            u64::from_le_bytes(w)
        }
        None => {
            let mut w = [0u8; 8];
            for (i, x) in w.iter_mut().enumerate() {
                *x = s.get(at + i).copied().unwrap_or(0);
            }
            u64::from_le_bytes(w)
        }
    }
}

/// A forward little-endian bit reader (FSE table descriptions).
struct ForwardBits<'a> {
    s: &'a [u8],
    bit: usize,
}

impl ForwardBits<'_> {
    fn peek(&self, n: u32) -> u32 {
        let w = load(self.s, self.bit / 8) >> (self.bit % 8);
        (w & ((1u64 << n) - 1)) as u32
    }

    fn read(&mut self, n: u32) -> u32 {
        let v = self.peek(n);
        self.bit += n as usize;
        v
    }

    fn bytes(&self) -> usize {
        self.bit.div_ceil(8)
    }
}

/// A backward bit reader (RFC 8878, 4.1: Huffman streams and the sequences' bitstream). It
/// reads zeros past the start of its stream; [`BackBits::overflowed`] tells when it did. Reads
/// do not reload: a caller reads at most 64 bits after each [`BackBits::reload`] (more read
/// zeros, which only a corrupt stream needs).
struct BackBits<'a> {
    s: &'a [u8],
    /// Byte position in the stream of the eight bytes loaded last.
    ptr: usize,
    /// `ptr` at the start.
    ptr0: usize,
    /// The loaded bytes without the `used` bits consumed: the next bit is the top one.
    bits: u64,
    /// Bits consumed of the loaded bytes, from their top.
    used: u32,
    total: u64,
}

impl<'a> BackBits<'a> {
    fn new(s: &'a [u8]) -> Result<BackBits<'a>> {
        let last = *s.last().ok_or(corrupt("empty bitstream"))?;
        if last == 0 {
            return Err(corrupt("bitstream without its end mark"));
        }
        let (ptr, acc) = if s.len() >= 8 {
            (s.len() - 8, load(s, s.len() - 8))
        } else {
            let mut w = [0u8; 8];
            w[8 - s.len()..].copy_from_slice(s);
            (0, u64::from_le_bytes(w))
        };
        let used = last.leading_zeros() + 1;
        Ok(BackBits {
            s,
            ptr,
            ptr0: ptr,
            bits: acc << used,
            used,
            total: 8 * s.len() as u64,
        })
    }

    /// Loads the bytes after those consumed, as far as the stream goes.
    #[inline(always)]
    fn reload(&mut self) {
        if self.ptr == 0 {
            return;
        }
        let k = ((self.used >> 3) as usize).min(self.ptr);
        self.ptr -= k;
        self.used -= 8 * k as u32;
        let acc = load(self.s, self.ptr);
        self.bits = if self.used < 64 { acc << self.used } else { 0 };
    }

    /// The next `n` (1 to 63) bits, without consuming them.
    #[inline(always)]
    fn peek(&self, n: u32) -> u64 {
        self.bits >> (64 - n)
    }

    /// Consumes `n` (at most 63) bits.
    #[inline(always)]
    fn skip(&mut self, n: u32) {
        self.bits <<= n;
        self.used += n;
    }

    /// Reads `n` bits (0 to 32).
    #[inline(always)]
    fn read(&mut self, n: u32) -> u32 {
        let v = (self.bits >> 1) >> (63 - n);
        self.skip(n);
        v as u32
    }

    fn consumed(&self) -> u64 {
        8 * (self.ptr0 - self.ptr) as u64 + u64::from(self.used)
    }

    fn overflowed(&self) -> bool {
        self.consumed() > self.total
    }

    fn finished(&self) -> bool {
        self.consumed() == self.total
    }
}

/// Reads an FSE table description (normalized counts) into `norm`; returns the accuracy log
/// and the bytes it took.
fn read_counts(
    src: &[u8],
    max_symbol: usize,
    max_log: u32,
    norm: &mut Vec<i16>,
) -> Result<(u32, usize)> {
    let mut r = ForwardBits { s: src, bit: 0 };
    let log = r.read(4) + 5;
    if log > max_log {
        return Err(corrupt("FSE accuracy too high"));
    }
    norm.clear();
    let mut remaining: i32 = (1 << log) + 1;
    let mut threshold: i32 = 1 << log;
    let mut nbits = log + 1;
    while remaining > 1 {
        if norm.len() > max_symbol {
            return Err(corrupt("FSE symbol out of range"));
        }
        // The value takes nbits - 1 bits when they read below `max`, else nbits (written
        // without branches: which one is taken is a coin toss).
        let max = (2 * threshold - 1) - remaining;
        let v = r.peek(nbits) as i32;
        let low = v & (threshold - 1);
        let short = low < max;
        let long = v - if v >= threshold { max } else { 0 };
        let value = if short { low } else { long };
        r.bit += (nbits - u32::from(short)) as usize;
        let count = value - 1;
        remaining -= count.abs();
        if remaining < 1 {
            return Err(corrupt("FSE counts too large"));
        }
        norm.push(count as i16);
        if count == 0 {
            loop {
                let rep = r.read(2);
                for _ in 0..rep {
                    if norm.len() > max_symbol {
                        return Err(corrupt("FSE symbol out of range"));
                    }
                    norm.push(0);
                }
                if rep != 3 {
                    break;
                }
            }
        }
        while remaining < threshold {
            nbits -= 1;
            threshold >>= 1;
        }
    }
    if r.bytes() > src.len() {
        return Err(corrupt("FSE table description cut short"));
    }
    Ok((log, r.bytes()))
}

/// One state of an FSE decoding table.
#[derive(Clone, Copy, Default)]
struct FseState {
    symbol: u8,
    nbits: u8,
    base: u16,
}

/// Builds the decoding table of `norm` (sum of counts `1 << log`, `log` at most 9): calls
/// `emit(state, symbol, bits, base)` for every state, in order.
fn build_fse(norm: &[i16], log: u32, mut emit: impl FnMut(usize, u8, u8, u16)) -> Result<()> {
    let size = 1usize << log;
    let mut symbols = [0u8; MAX_SEQ_TABLE];
    if size > symbols.len() {
        return Err(corrupt("FSE accuracy too high"));
    }
    // At most 53 symbols (match lengths); Huffman weights have 13.
    let mut next = [0u32; 64];
    if norm.len() > next.len() {
        return Err(corrupt("FSE alphabet too large"));
    }
    let mut high = size;
    for (s, &c) in norm.iter().enumerate() {
        if c == -1 {
            high = high.checked_sub(1).ok_or(corrupt("FSE table overfull"))?;
            symbols[high] = s as u8;
            next[s] = 1;
        } else {
            next[s] = c.max(0) as u32;
        }
    }
    let step = (size >> 1) + (size >> 3) + 3;
    let mask = size - 1;
    let mut pos = 0usize;
    if high == size {
        // No "less than one" symbols: every position takes a symbol. The symbols are first
        // written in order, eight at a time (a loop per symbol of varying length would be
        // mispredicted at every symbol), then spread.
        let mut run = [0u8; MAX_SEQ_TABLE + 8];
        let mut placed = 0usize;
        for (s, &c) in norm.iter().enumerate() {
            let c = c.max(0) as usize;
            if placed + c > size {
                return Err(corrupt("FSE table overfull"));
            }
            let mut k = 0;
            loop {
                run[placed + k..placed + k + 8].fill(s as u8);
                k += 8;
                if k >= c {
                    break;
                }
            }
            placed += c;
        }
        // Two positions at a time (size is even): half the chain of additions.
        for pair in run[..size].chunks_exact(2) {
            symbols[pos & (MAX_SEQ_TABLE - 1)] = pair[0];
            symbols[(pos + step) & mask & (MAX_SEQ_TABLE - 1)] = pair[1];
            pos = (pos + 2 * step) & mask;
        }
    } else {
        for (s, &c) in norm.iter().enumerate() {
            for _ in 0..c.max(0) {
                if pos >= high {
                    return Err(corrupt("FSE table overfull"));
                }
                symbols[pos & (MAX_SEQ_TABLE - 1)] = s as u8;
                pos = (pos + step) & mask;
                while pos >= high {
                    pos = (pos + step) & mask;
                }
            }
        }
    }
    if pos != 0 {
        return Err(corrupt("FSE counts do not fill the table"));
    }
    for (u, &sym) in symbols[..size].iter().enumerate() {
        let x = next[usize::from(sym) & 63];
        next[usize::from(sym) & 63] += 1;
        if x == 0 {
            return Err(corrupt("FSE state without count"));
        }
        let nb = log - high_bit(x);
        emit(u, sym, nb as u8, ((x << nb) as usize - size) as u16);
    }
    Ok(())
}

/// One state of a sequence decoding table: the FSE transition and what its code means.
#[derive(Clone, Copy, Default)]
struct SeqState {
    /// Value of the code without its extra bits.
    value: u32,
    /// Extra bits of the code.
    extra: u8,
    /// Bits for the next state.
    nbits: u8,
    /// Next state before its bits.
    base: u16,
}

/// Which symbols a sequence table decodes.
#[derive(Clone, Copy)]
enum Field {
    Literals,
    Offsets,
    Matches,
}

impl Field {
    fn max_symbol(self) -> usize {
        match self {
            Field::Literals => 35,
            Field::Offsets => 31,
            Field::Matches => 52,
        }
    }

    fn max_log(self) -> u32 {
        match self {
            Field::Literals | Field::Matches => 9,
            Field::Offsets => 8,
        }
    }

    fn code(self, symbol: u8) -> (u32, u8) {
        let s = usize::from(symbol);
        match self {
            Field::Literals => (LL_BASE[s], LL_BITS[s]),
            Field::Matches => (ML_BASE[s], ML_BITS[s]),
            Field::Offsets => (1u32 << s, symbol),
        }
    }
}

/// States of the largest sequence table (accuracy log 9).
const MAX_SEQ_TABLE: usize = 512;
/// Entries of the largest Huffman table (11-bit codes).
const MAX_HUFFMAN: usize = 2048;

/// A sequence decoding table (its first `1 << log` states) and its accuracy log.
struct SeqTable {
    states: Box<[SeqState; MAX_SEQ_TABLE]>,
    log: u32,
}

impl Default for SeqTable {
    fn default() -> SeqTable {
        SeqTable {
            states: Box::new([SeqState::default(); MAX_SEQ_TABLE]),
            log: 0,
        }
    }
}

impl SeqTable {
    /// Builds the table of `field` from its normalized counts.
    fn build(&mut self, field: Field, norm: &[i16], log: u32) -> Result<()> {
        let states = &mut self.states;
        build_fse(norm, log, |u, symbol, nbits, base| {
            let (value, extra) = field.code(symbol);
            states[u & (MAX_SEQ_TABLE - 1)] = SeqState {
                value,
                extra,
                nbits,
                base,
            };
        })?;
        self.log = log;
        Ok(())
    }

    /// The table of one symbol (RLE mode).
    fn single(&mut self, field: Field, symbol: u8) {
        let (value, extra) = field.code(symbol);
        self.states[0] = SeqState {
            value,
            extra,
            nbits: 0,
            base: 0,
        };
        self.log = 0;
    }
}

/// A Huffman decoding table: entry = symbol | bits << 8, indexed by the next `log` bits (the
/// first `1 << log` entries).
struct Huffman {
    table: Box<[u16; MAX_HUFFMAN]>,
    log: u32,
}

impl Default for Huffman {
    fn default() -> Huffman {
        Huffman {
            table: Box::new([0; MAX_HUFFMAN]),
            log: 1,
        }
    }
}

/// Reusable decoding state and buffers; one per thread.
#[derive(Default)]
pub struct PrefixDecoder {
    literals: Vec<u8>,
    huffman: Huffman,
    has_huffman: bool,
    tables: [SeqTable; 3],
    /// Per field, the table in use (kept for the repeat mode).
    in_use: [InUse; 3],
    /// The predefined tables, built on first use.
    predefined: Option<Box<[SeqTable; 3]>>,
    norm: Vec<i16>,
    weights: Vec<u8>,
}

/// Which table a field of the sequences uses.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum InUse {
    /// None yet in this frame.
    #[default]
    Nothing,
    /// The predefined one.
    Predefined,
    /// The field's own (RLE or FSE), in [`PrefixDecoder::tables`].
    Own,
}

/// What a decode produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoded {
    /// The whole frame, of this many bytes.
    Whole(usize),
    /// A prefix of this many bytes, past the byte asked for.
    Prefix(usize),
}

impl Decoded {
    /// The number of bytes decoded.
    pub fn bytes(self) -> usize {
        match self {
            Decoded::Whole(n) | Decoded::Prefix(n) => n,
        }
    }
}

impl PrefixDecoder {
    /// A decoder.
    pub fn new() -> PrefixDecoder {
        PrefixDecoder::default()
    }

    /// Decodes `frame` into `out` until it holds byte `need` (or to the end when `need` is past
    /// it): the first [`Decoded::bytes`] bytes of `out` are then the frame's, and what follows
    /// them is left over (`out` is not shortened, so that the next decode into it need not
    /// clear it). The frame must state its content size, at most `max_len`.
    ///
    /// # Errors
    /// A frame that is not a valid zstd frame without a dictionary, or whose content is larger
    /// than `max_len`.
    pub fn decode(
        &mut self,
        frame: &[u8],
        out: &mut Vec<u8>,
        need: usize,
        max_len: usize,
    ) -> Result<Decoded> {
        let got = self.decode_frame(frame, out, need, max_len);
        if got.is_err() {
            out.clear();
        }
        got
    }

    /// [`PrefixDecoder::decode`], leaving `out` as it is on errors.
    fn decode_frame(
        &mut self,
        frame: &[u8],
        out: &mut Vec<u8>,
        need: usize,
        max_len: usize,
    ) -> Result<Decoded> {
        if frame.len() < 6 || load(frame, 0) as u32 != MAGIC {
            return Err(corrupt("not a zstd frame"));
        }
        let fhd = frame[4];
        if fhd & 0x08 != 0 {
            return Err(corrupt("reserved frame header bit set"));
        }
        if fhd & 3 != 0 {
            return Err(corrupt("frame needs a dictionary"));
        }
        let single = fhd & 0x20 != 0;
        let mut at = 5 + usize::from(!single);
        let fcs_len = match fhd >> 6 {
            0 => usize::from(single),
            1 => 2,
            2 => 4,
            _ => 8,
        };
        if fcs_len == 0 {
            return Err(corrupt("frame without its content size"));
        }
        let raw = load(frame, at) & (u64::MAX >> (64 - 8 * fcs_len));
        let content = if fcs_len == 2 { raw + 256 } else { raw };
        at += fcs_len;
        if content > max_len as u64 {
            return Err(corrupt("frame content too large"));
        }
        let end = content as usize;
        // Whatever the buffer held is overwritten before it is read: only bytes the frame
        // wrote are kept.
        if out.len() < end + SLACK {
            out.resize(end + SLACK, 0);
        }
        self.in_use = [InUse::Nothing; 3];
        self.has_huffman = false;
        let mut rep = [1usize, 4, 8];
        let mut pos = 0usize;
        loop {
            let h = frame
                .get(at..at + 3)
                .ok_or(corrupt("block header cut short"))?;
            let h = u32::from(h[0]) | u32::from(h[1]) << 8 | u32::from(h[2]) << 16;
            at += 3;
            let (last, kind, size) = (h & 1 == 1, (h >> 1) & 3, (h >> 3) as usize);
            match kind {
                0 => {
                    let src = frame
                        .get(at..at + size)
                        .ok_or(corrupt("raw block cut short"))?;
                    if size > end - pos {
                        return Err(corrupt("block past the content size"));
                    }
                    out[pos..pos + size].copy_from_slice(src);
                    pos += size;
                    at += size;
                }
                1 => {
                    let b = *frame.get(at).ok_or(corrupt("RLE block cut short"))?;
                    if size > end - pos || size > MAX_BLOCK {
                        return Err(corrupt("block past the content size"));
                    }
                    out[pos..pos + size].fill(b);
                    pos += size;
                    at += 1;
                }
                2 => {
                    let src = frame
                        .get(at..at + size)
                        .ok_or(corrupt("compressed block cut short"))?;
                    if size > MAX_BLOCK {
                        return Err(corrupt("block too large"));
                    }
                    let stop = self.block(src, out, &mut pos, end, need, &mut rep)?;
                    at += size;
                    if stop {
                        return Ok(Decoded::Prefix(pos));
                    }
                }
                _ => return Err(corrupt("reserved block type")),
            }
            if pos > need && !last {
                return Ok(Decoded::Prefix(pos));
            }
            if last {
                break;
            }
        }
        if pos != end {
            return Err(corrupt("frame content shorter than its size"));
        }
        Ok(Decoded::Whole(pos))
    }

    /// Decodes the literals section at the start of `src` into `self.literals`; returns their
    /// number and the bytes the section took.
    fn literals(&mut self, src: &[u8]) -> Result<(usize, usize)> {
        let b = |i: usize| src.get(i).copied().map(usize::from);
        let b0 = b(0).ok_or(corrupt("literals section missing"))?;
        let (kind, format) = (b0 & 3, (b0 >> 2) & 3);
        if kind < 2 {
            let (regen, head) = match format {
                0 | 2 => (b0 >> 3, 1),
                1 => (
                    (b0 >> 4) + (b(1).ok_or(corrupt("literals header cut short"))? << 4),
                    2,
                ),
                _ => {
                    let (b1, b2) = (b(1), b(2));
                    let (Some(b1), Some(b2)) = (b1, b2) else {
                        return Err(corrupt("literals header cut short"));
                    };
                    ((b0 >> 4) + (b1 << 4) + (b2 << 12), 3)
                }
            };
            if regen > MAX_BLOCK {
                return Err(corrupt("too many literals"));
            }
            self.reserve_literals(regen);
            if kind == 0 {
                let s = src
                    .get(head..head + regen)
                    .ok_or(corrupt("raw literals cut short"))?;
                self.literals[..regen].copy_from_slice(s);
                return Ok((regen, head + regen));
            }
            let v = *src.get(head).ok_or(corrupt("RLE literals cut short"))?;
            self.literals[..regen].fill(v);
            return Ok((regen, head + 1));
        }
        let head = [3, 3, 4, 5][format];
        let bytes = src
            .get(..head)
            .ok_or(corrupt("literals header cut short"))?;
        let mut v = 0u64;
        for (i, &x) in bytes.iter().enumerate() {
            v |= u64::from(x) << (8 * i);
        }
        let bits = [10, 10, 14, 18][format];
        let regen = ((v >> 4) & ((1 << bits) - 1)) as usize;
        let size = ((v >> (4 + bits)) & ((1 << bits) - 1)) as usize;
        let streams = if format == 0 { 1 } else { 4 };
        if regen > MAX_BLOCK {
            return Err(corrupt("too many literals"));
        }
        let mut data = src
            .get(head..head + size)
            .ok_or(corrupt("compressed literals cut short"))?;
        if kind == 2 {
            let used = self.read_huffman(data)?;
            data = &data[used..];
            self.has_huffman = true;
        } else if !self.has_huffman {
            return Err(corrupt("treeless literals without a previous table"));
        }
        self.reserve_literals(regen);
        if streams == 1 {
            decode_stream(&self.huffman, data, &mut self.literals[..regen])?;
        } else {
            let jump = data.get(..6).ok_or(corrupt("jump table cut short"))?;
            let s1 = usize::from(jump[0]) | usize::from(jump[1]) << 8;
            let s2 = usize::from(jump[2]) | usize::from(jump[3]) << 8;
            let s3 = usize::from(jump[4]) | usize::from(jump[5]) << 8;
            let rest = &data[6..];
            if s1 + s2 + s3 > rest.len() {
                return Err(corrupt("jump table past the literals"));
            }
            let seg = regen.div_ceil(4);
            if regen < 3 * seg {
                return Err(corrupt("too few literals for four streams"));
            }
            let (a, rest) = rest.split_at(s1);
            let (b2, rest) = rest.split_at(s2);
            let (c, d) = rest.split_at(s3);
            decode_four(
                &self.huffman,
                [a, b2, c, d],
                seg,
                &mut self.literals[..regen],
            )?;
        }
        Ok((regen, head + size))
    }

    /// Makes room for `n` literals and the slack after them (earlier contents stay until
    /// overwritten).
    fn reserve_literals(&mut self, n: usize) {
        if self.literals.len() < n + SLACK {
            self.literals.resize(n + SLACK, 0);
        }
    }

    /// Reads a Huffman tree description; returns the bytes it took.
    fn read_huffman(&mut self, src: &[u8]) -> Result<usize> {
        let h = usize::from(*src.first().ok_or(corrupt("Huffman header missing"))?);
        self.weights.clear();
        let used = if h < 128 {
            let data = src
                .get(1..1 + h)
                .ok_or(corrupt("Huffman weights cut short"))?;
            let (log, n) = read_counts(data, 12, 6, &mut self.norm)?;
            // Accuracy log at most 6: 64 states.
            let mut fse = [FseState::default(); 64];
            build_fse(&self.norm, log, |u, symbol, nbits, base| {
                fse[u & 63] = FseState {
                    symbol,
                    nbits,
                    base,
                };
            })?;
            let mut br = BackBits::new(&data[n..])?;
            let mut s1 = br.read(log) as usize & 63;
            let mut s2 = br.read(log) as usize & 63;
            loop {
                // Two symbols of at most 6 bits each per reload.
                br.reload();
                let e = fse[s1];
                self.weights.push(e.symbol);
                s1 = (usize::from(e.base) + br.read(u32::from(e.nbits)) as usize) & 63;
                if br.overflowed() {
                    self.weights.push(fse[s2].symbol);
                    break;
                }
                let e = fse[s2];
                self.weights.push(e.symbol);
                s2 = (usize::from(e.base) + br.read(u32::from(e.nbits)) as usize) & 63;
                if br.overflowed() {
                    self.weights.push(fse[s1].symbol);
                    break;
                }
                if self.weights.len() > 255 {
                    return Err(corrupt("too many Huffman weights"));
                }
            }
            1 + h
        } else {
            let n = h - 127;
            let data = src
                .get(1..1 + n.div_ceil(2))
                .ok_or(corrupt("Huffman weights cut short"))?;
            for i in 0..n {
                let byte = data[i / 2];
                self.weights
                    .push(if i % 2 == 0 { byte >> 4 } else { byte & 15 });
            }
            1 + n.div_ceil(2)
        };
        if self.weights.len() > 255 {
            return Err(corrupt("too many Huffman weights"));
        }
        // Counts per weight, in two halves (one counter bumped again and again would wait for
        // its own last store).
        let mut halves = [[0u32; 16]; 2];
        for pair in self.weights.chunks(2) {
            for (h, &w) in halves.iter_mut().zip(pair) {
                h[usize::from(w) & 15] += 1;
            }
        }
        let mut count = [0u32; 13];
        let mut total = 0u32;
        for w in 0..16 {
            let c = halves[0][w] + halves[1][w];
            if w > 11 && c > 0 {
                return Err(corrupt("Huffman weight too large"));
            }
            if w > 0 && w <= 11 {
                count[w] = c;
                total += c << (w - 1);
            }
        }
        if total == 0 {
            return Err(corrupt("Huffman weights all zero"));
        }
        let log = high_bit(total) + 1;
        if log > 11 {
            return Err(corrupt("Huffman codes too long"));
        }
        let left = (1u32 << log) - total;
        if !left.is_power_of_two() {
            return Err(corrupt("Huffman weights do not complete a tree"));
        }
        let last = high_bit(left) + 1;
        self.weights.push(last as u8);
        count[last as usize] += 1;
        let mut start = [0u32; 13];
        let mut next = 0;
        for w in 1..=log as usize {
            start[w] = next;
            next += count[w] << (w - 1);
        }
        // Symbols sorted by weight (stable), so that the fills of one weight, all of the same
        // length, follow each other.
        let mut order = [0u8; 256];
        let mut first = [0usize; 13];
        let mut k = 0;
        for w in 1..=log as usize {
            first[w] = k;
            k += count[w] as usize;
        }
        for (s, &w) in self.weights.iter().enumerate() {
            let w = usize::from(w);
            if w > 0 {
                order[first[w] & 255] = s as u8;
                first[w] += 1;
            }
        }
        let t = &mut self.huffman.table;
        let mut i = 0;
        for w in 1..=log as usize {
            let len = 1usize << (w - 1);
            let bits = (log as u16 + 1 - w as u16) << 8;
            let mut at = start[w] as usize;
            for &s in &order[i..i + count[w] as usize] {
                t[at..at + len].fill(u16::from(s) | bits);
                at += len;
            }
            i += count[w] as usize;
        }
        self.huffman.log = log;
        Ok(used)
    }

    /// Sets up the table of `field` for `mode`, reading its description from `src`; returns the
    /// bytes it took.
    fn seq_table(&mut self, field: Field, mode: usize, src: &[u8]) -> Result<usize> {
        let i = field as usize;
        match mode {
            0 => {
                self.build_predefined()?;
                self.in_use[i] = InUse::Predefined;
                Ok(0)
            }
            1 => {
                let s = *src.first().ok_or(corrupt("RLE table cut short"))?;
                if usize::from(s) > field.max_symbol() {
                    return Err(corrupt("RLE symbol out of range"));
                }
                self.tables[i].single(field, s);
                self.in_use[i] = InUse::Own;
                Ok(1)
            }
            2 => {
                let (log, n) =
                    read_counts(src, field.max_symbol(), field.max_log(), &mut self.norm)?;
                self.tables[i].build(field, &self.norm, log)?;
                self.in_use[i] = InUse::Own;
                Ok(n)
            }
            _ => {
                if self.in_use[i] == InUse::Nothing {
                    return Err(corrupt("repeated table without a previous one"));
                }
                Ok(0)
            }
        }
    }

    /// Builds the predefined tables, unless built already.
    fn build_predefined(&mut self) -> Result<()> {
        if self.predefined.is_none() {
            let mut p: Box<[SeqTable; 3]> = Box::default();
            for (field, norm, log) in [
                (Field::Literals, &LL_DEFAULT[..], 6),
                (Field::Offsets, &OF_DEFAULT[..], 5),
                (Field::Matches, &ML_DEFAULT[..], 6),
            ] {
                p[field as usize].build(field, norm, log)?;
            }
            self.predefined = Some(p);
        }
        Ok(())
    }

    /// The table in use for field `i`.
    fn table(&self, i: usize) -> &SeqTable {
        match (self.in_use[i], &self.predefined) {
            (InUse::Predefined, Some(p)) => &p[i],
            _ => &self.tables[i],
        }
    }

    /// Decodes one compressed block into `out` from `*pos` (the content ends at `end`);
    /// returns whether it stopped early, past byte `need`.
    fn block(
        &mut self,
        src: &[u8],
        out: &mut [u8],
        pos: &mut usize,
        end: usize,
        need: usize,
        rep: &mut [usize; 3],
    ) -> Result<bool> {
        let (nlit, used) = self.literals(src)?;
        let src = &src[used.min(src.len())..];
        let b = |i: usize| src.get(i).copied().map(usize::from);
        let b0 = b(0).ok_or(corrupt("sequences section missing"))?;
        let (nseq, mut at) = if b0 < 128 {
            (b0, 1)
        } else if b0 < 255 {
            (
                ((b0 - 128) << 8) + b(1).ok_or(corrupt("sequence count cut short"))?,
                2,
            )
        } else {
            let (Some(b1), Some(b2)) = (b(1), b(2)) else {
                return Err(corrupt("sequence count cut short"));
            };
            (b1 + (b2 << 8) + 0x7F00, 3)
        };
        let lits = &self.literals;
        if nseq == 0 {
            if nlit > end - *pos {
                return Err(corrupt("literals past the content size"));
            }
            out[*pos..*pos + nlit].copy_from_slice(&lits[..nlit]);
            *pos += nlit;
            return Ok(false);
        }
        let modes = b(at).ok_or(corrupt("sequence modes missing"))?;
        at += 1;
        if modes & 3 != 0 {
            return Err(corrupt("reserved sequence mode bits set"));
        }
        for (field, shift) in [
            (Field::Literals, 6),
            (Field::Offsets, 4),
            (Field::Matches, 2),
        ] {
            let rest = src.get(at..).unwrap_or(&[]);
            at += self.seq_table(field, (modes >> shift) & 3, rest)?;
        }
        let (llt, oft, mlt) = (self.table(0), self.table(1), self.table(2));
        let lits = &self.literals;
        let mut br = BackBits::new(src.get(at..).unwrap_or(&[]))?;
        let mut sll = br.read(llt.log) as usize;
        let mut sof = br.read(oft.log) as usize;
        let mut sml = br.read(mlt.log) as usize;
        let mut lp = 0usize;
        let mut p = *pos;
        let [mut r0, mut r1, mut r2] = *rep;
        for i in 0..nseq {
            // States are below their table's size by construction; the masks only spare the
            // bounds checks.
            let le = llt.states[sll & (MAX_SEQ_TABLE - 1)];
            let oe = oft.states[sof & (MAX_SEQ_TABLE - 1)];
            let me = mlt.states[sml & (MAX_SEQ_TABLE - 1)];
            // At most 31 + 16 + 16 extra bits and 26 state bits: reloads keep every read
            // within the 64 bits loaded.
            br.reload();
            let ofv = oe.value as usize + br.read(u32::from(oe.extra)) as usize;
            if br.used > 32 {
                br.reload();
            }
            let ml = me.value as usize + br.read(u32::from(me.extra)) as usize;
            let ll = le.value as usize + br.read(u32::from(le.extra)) as usize;
            // Offset values 1 to 3 name a repeated offset (one further on when there are no
            // literals; RFC 8878, 3.1.1.5); the code tells them apart from new offsets.
            // Values 1 to 3 name a repeated offset, one further on without literals: the
            // first, second, third, or the first less one (RFC 8878, 3.1.1.5). Written as
            // selections rather than branches, which would be mispredicted half the time.
            let new = oe.extra > 1;
            let which = (ofv + usize::from(ll == 0)).wrapping_sub(1) & 3;
            let repeated = [r0, r1, r2, r0.wrapping_sub(1)][which];
            let offset = if new { ofv - 3 } else { repeated };
            let keep = !new && which == 0;
            let third = if keep || (!new && which == 1) { r2 } else { r1 };
            let second = if keep { r1 } else { r0 };
            (r0, r1, r2) = (offset, second, third);
            if i + 1 < nseq {
                if br.used > 38 {
                    br.reload();
                }
                sll = usize::from(le.base) + br.read(u32::from(le.nbits)) as usize;
                sml = usize::from(me.base) + br.read(u32::from(me.nbits)) as usize;
                sof = usize::from(oe.base) + br.read(u32::from(oe.nbits)) as usize;
            }
            if ll > nlit - lp || ll + ml > end - p {
                return Err(corrupt("sequence past the literals or the content"));
            }
            if offset == 0 || offset > p + ll {
                return Err(corrupt("match offset before the start"));
            }
            // Literals, in chunks of 16 (the buffers have slack for the last one).
            if ll <= 16 {
                out[p..p + 16].copy_from_slice(&lits[lp..lp + 16]);
            } else {
                out[p..p + ll].copy_from_slice(&lits[lp..lp + ll]);
            }
            p += ll;
            lp += ll;
            copy_match(out, p, offset, ml);
            p += ml;
            if p > need {
                *pos = p;
                return Ok(true);
            }
        }
        *rep = [r0, r1, r2];
        if !br.finished() {
            return Err(corrupt("sequence bitstream not consumed exactly"));
        }
        let rest = nlit - lp;
        if rest > end - p {
            return Err(corrupt("literals past the content size"));
        }
        out[p..p + rest].copy_from_slice(&lits[lp..nlit]);
        *pos = p + rest;
        Ok(false)
    }
}

/// Copies `len` bytes from `offset` back to `at` (the source may overlap the destination);
/// `out` has [`SLACK`] bytes past `at + len`, and `offset <= at`.
#[inline(always)]
fn copy_match(out: &mut [u8], at: usize, offset: usize, len: usize) {
    let from = at - offset;
    if offset >= 16 {
        let mut w = [0u8; 16];
        w.copy_from_slice(&out[from..from + 16]);
        out[at..at + 16].copy_from_slice(&w);
        let mut k = 16;
        while k < len {
            w.copy_from_slice(&out[from + k..from + k + 16]);
            out[at + k..at + k + 16].copy_from_slice(&w);
            k += 16;
        }
    } else if offset == 1 {
        // A run: chunks of 16 copies of the byte (a call to memset costs more for short runs).
        let w = [out[from]; 16];
        out[at..at + 16].copy_from_slice(&w);
        let mut k = 16;
        while k < len {
            out[at + k..at + k + 16].copy_from_slice(&w);
            k += 16;
        }
    } else {
        // Two chunks of the pattern, built from its first `offset` bytes, then chunks of 16
        // from a multiple of the offset back.
        let mut src = [0u8; 16];
        src.copy_from_slice(&out[from..from + 16]);
        let (first, second) = (&PATTERN[0][offset], &PATTERN[1][offset]);
        let mut w = [0u8; 16];
        for (x, &i) in w.iter_mut().zip(first) {
            *x = src[usize::from(i)];
        }
        out[at..at + 16].copy_from_slice(&w);
        if len > 16 {
            for (x, &i) in w.iter_mut().zip(second) {
                *x = src[usize::from(i)];
            }
            out[at + 16..at + 32].copy_from_slice(&w);
            let back = usize::from(BACK[offset]);
            let mut k = 32;
            while k < len {
                let mut c = [0u8; 16];
                c.copy_from_slice(&out[at + k - back..at + k - back + 16]);
                out[at + k..at + k + 16].copy_from_slice(&c);
                k += 16;
            }
        }
    }
}

/// For each offset below 16, its least multiple of at least 16.
const BACK: [u8; 16] = {
    let mut t = [16u8; 16];
    let mut o = 1;
    while o < 16 {
        t[o] = (o * 16usize.div_ceil(o)) as u8;
        o += 1;
    }
    t
};

/// For each offset below 16, where each byte of the first two chunks of 16 of a match comes
/// from among the match's first `offset` source bytes.
const PATTERN: [[[u8; 16]; 16]; 2] = {
    let mut t = [[[0u8; 16]; 16]; 2];
    let mut o = 1;
    while o < 16 {
        let mut i = 0;
        while i < 16 {
            t[0][o][i] = (i % o) as u8;
            t[1][o][i] = ((i + 16) % o) as u8;
            i += 1;
        }
        o += 1;
    }
    t
};

/// Decodes one Huffman stream into `out`, which it must fill exactly.
fn decode_stream(h: &Huffman, src: &[u8], out: &mut [u8]) -> Result<()> {
    let mut br = BackBits::new(src)?;
    let log = h.log;
    for o in out.iter_mut() {
        if br.used + log > 64 {
            br.reload();
        }
        let e = h.table[br.peek(log) as usize & (MAX_HUFFMAN - 1)];
        *o = e as u8;
        br.skip(u32::from(e >> 8));
    }
    if !br.finished() {
        return Err(corrupt("Huffman stream not consumed exactly"));
    }
    Ok(())
}

/// Decodes four Huffman streams, `seg` symbols each but the last, interleaved.
fn decode_four(h: &Huffman, src: [&[u8]; 4], seg: usize, out: &mut [u8]) -> Result<()> {
    let (mut b0, mut b1, mut b2, mut b3) = (
        BackBits::new(src[0])?,
        BackBits::new(src[1])?,
        BackBits::new(src[2])?,
        BackBits::new(src[3])?,
    );
    let log = h.log;
    let last = out.len() - 3 * seg;
    let (o0, rest) = out.split_at_mut(seg);
    let (o1, rest) = rest.split_at_mut(seg);
    let (o2, o3) = rest.split_at_mut(seg);
    let t = &h.table;
    let mask = MAX_HUFFMAN - 1;
    // Four symbols per stream between reloads: 4 * 11 bits fit after a reload.
    let common = last.min(seg) / 4 * 4;
    let chunks = o0[..common]
        .chunks_exact_mut(4)
        .zip(o1[..common].chunks_exact_mut(4))
        .zip(o2[..common].chunks_exact_mut(4))
        .zip(o3[..common].chunks_exact_mut(4));
    for (((c0, c1), c2), c3) in chunks {
        b0.reload();
        b1.reload();
        b2.reload();
        b3.reload();
        for j in 0..4 {
            let e0 = t[b0.peek(log) as usize & mask];
            let e1 = t[b1.peek(log) as usize & mask];
            let e2 = t[b2.peek(log) as usize & mask];
            let e3 = t[b3.peek(log) as usize & mask];
            c0[j] = e0 as u8;
            c1[j] = e1 as u8;
            c2[j] = e2 as u8;
            c3[j] = e3 as u8;
            b0.skip(u32::from(e0 >> 8));
            b1.skip(u32::from(e1 >> 8));
            b2.skip(u32::from(e2 >> 8));
            b3.skip(u32::from(e3 >> 8));
        }
    }
    for (b, o) in [&mut b0, &mut b1, &mut b2, &mut b3]
        .into_iter()
        .zip([o0, o1, o2, o3])
    {
        for x in o[common..].iter_mut() {
            if b.used + log > 64 {
                b.reload();
            }
            let e = t[b.peek(log) as usize & mask];
            *x = e as u8;
            b.skip(u32::from(e >> 8));
        }
        if !b.finished() {
            return Err(corrupt("Huffman stream not consumed exactly"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Data like a table's: runs of a few values, repeats at a period, some noise.
    fn sample(rng: &mut fastrand::Rng, len: usize, kind: u64) -> Vec<u8> {
        let mut v = Vec::with_capacity(len);
        let alphabet = 1 + rng.u64(..) % 40;
        while v.len() < len {
            match (rng.u64(..) % 4, kind) {
                (_, 0) => v.push(rng.u64(..) as u8),
                (0, _) => {
                    let b = (rng.u64(..) % alphabet) as u8;
                    let n = 1 + rng.u64(..) % 30;
                    v.extend(std::iter::repeat_n(b, n as usize));
                }
                (1, _) if v.len() > 64 => {
                    let back = 1 + (rng.u64(..) % 64) as usize;
                    let n = 3 + rng.u64(..) % 40;
                    for _ in 0..n {
                        v.push(v[v.len() - back]);
                    }
                }
                _ => v.push((rng.u64(..) % alphabet) as u8),
            }
        }
        v.truncate(len);
        v
    }

    #[test]
    fn decodes_what_libzstd_writes_and_stops_past_the_byte_asked() {
        let mut rng = fastrand::Rng::with_seed(0x1234_5678_9ABC_DEF1);
        let mut d = PrefixDecoder::new();
        let mut out = Vec::new();
        for round in 0..600 {
            let len = match round % 5 {
                0 => 1 + (rng.u64(..) % 300) as usize,
                1 => 4096,
                2 => 1 + (rng.u64(..) % 9000) as usize,
                3 => 200_000 + (rng.u64(..) % 100_000) as usize,
                _ => 2048,
            };
            let data = sample(&mut rng, len, round % 7);
            let level = [1, 3, 6, 12, 19, -5][round as usize % 6];
            let mut c = zstd::bulk::Compressor::new(level).expect("compressor");
            c.include_contentsize(true).expect("param");
            c.include_checksum(round % 3 == 0).expect("param");
            let frame = c.compress(&data).expect("compress");
            let got = d.decode(&frame, &mut out, usize::MAX, 1 << 20);
            assert_eq!(got, Ok(Decoded::Whole(len)), "round {round} level {level}");
            assert!(out[..len] == data, "round {round}: whole frame differs");
            for _ in 0..4 {
                let need = (rng.u64(..) % len as u64) as usize;
                let got = d.decode(&frame, &mut out, need, 1 << 20);
                let n = got.map_or(0, Decoded::bytes);
                assert!(n > need, "round {round}: stopped before {need}: {got:?}");
                assert!(out[..n] == data[..n], "round {round}: prefix differs");
            }
        }
    }

    #[test]
    fn corrupt_frames_give_errors_not_panics() {
        let mut rng = fastrand::Rng::with_seed(0xDEAD_BEEF_0BAD_F00D);
        let mut d = PrefixDecoder::new();
        let mut out = Vec::new();
        let mut errors = 0;
        for round in 0..3000 {
            let data = sample(&mut rng, 4096, 1 + round % 5);
            let frame =
                zstd::bulk::compress(&data, [3, 12, 19][round as usize % 3]).expect("compress");
            let mut bad = frame.clone();
            for _ in 0..1 + rng.u64(..) % 4 {
                let i = (rng.u64(..) % bad.len() as u64) as usize;
                bad[i] ^= 1 << (rng.u64(..) % 8);
            }
            if rng.u64(..).is_multiple_of(8) {
                bad.truncate((rng.u64(..) % bad.len() as u64) as usize);
            }
            let need = (rng.u64(..) % 4096) as usize;
            match d.decode(&bad, &mut out, need, 4096) {
                Ok(got) => assert!(got.bytes() <= 4096 && got.bytes() <= out.len()),
                Err(_) => errors += 1,
            }
        }
        // Most flips are caught by the format's own checks.
        assert!(errors > 1000, "{errors} errors");
        // A decoder that saw corrupt frames still decodes good ones.
        let data = sample(&mut rng, 4096, 2);
        let frame = zstd::bulk::compress(&data, 12).expect("compress");
        assert_eq!(
            d.decode(&frame, &mut out, usize::MAX, 4096),
            Ok(Decoded::Whole(4096))
        );
        assert!(out[..4096] == data);
    }
}
