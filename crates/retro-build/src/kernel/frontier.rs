//! The bitmaps of the solve: the frontier of one depth (`Frontier`) and the decided entries by
//! lines of one piece (`LineBits`), with a division by multiplication (`Divisor`).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use shakmaty::{ByColor, Color, Role};

use super::{
    memory::{Atomics, Pages},
    SIDES,
};
use retro_tables::index::IndexScheme;

/// A bitmap of `entries` bits, all clear (the larger tables need tens of MB: see `Atomics`).
pub(crate) fn zeroed_bits(entries: u64) -> Atomics<AtomicU64> {
    Atomics::zeroed(entries.div_ceil(64) as usize, Pages::Huge)
}

/// The decided bits of one side's entries again, arranged so that one word holds the 64
/// entries that differ only in the square of one piece (a lone piece other than a king or pawn,
/// whose index digit is its square): the predecessors of a lost node by un-moves of that piece
/// all lie in one word, and one load tells which of them are still undecided, where the decided
/// bitmap would take a load per predecessor, each in a cache line of its own.
pub(crate) struct LineBits {
    /// Index step per square of the piece.
    stride: u64,
    /// `log2(stride)`, when `stride` is a power of two.
    shift: Option<u32>,
    /// Otherwise, division by `stride` and by `64 * stride` as multiplications.
    by_stride: Divisor,
    by_line: Divisor,
    /// One word per line, bit `square` set when that entry is decided.
    bits: Atomics<AtomicU64>,
}

impl LineBits {
    /// The line bitmap of the piece in `slot`, for a lone piece other than a king or pawn
    /// whose digit is not the lowest (whose lines are the words of the decided bitmap). Pawn
    /// digits (48 squares) are left out: on KRPvKR, their line bitmap cost more to keep than
    /// it saved.
    pub(crate) fn new(ix: &IndexScheme, slot: usize) -> Option<LineBits> {
        let stride = ix.strides()[slot];
        if stride < 2 || ix.slots()[slot].1 == Role::Pawn {
            return None;
        }
        Some(LineBits {
            stride,
            shift: stride.is_power_of_two().then(|| stride.trailing_zeros()),
            by_stride: Divisor::new(stride),
            by_line: Divisor::new(64 * stride),
            bits: Atomics::zeroed(ix.size().div_ceil(64) as usize, Pages::Huge),
        })
    }

    /// Per side, per slot, the line bitmap of each piece of that side that has one (see `new`).
    pub(crate) fn by_side(ix: &IndexScheme) -> ByColor<Vec<Option<LineBits>>> {
        ByColor::new_with(|side| {
            (0..ix.piece_count())
                .map(|slot| {
                    (ix.slots()[slot].0 == side)
                        .then(|| LineBits::new(ix, slot))
                        .flatten()
                })
                .collect()
        })
    }

    /// The squares of the piece in `slot` whose entries, with the other pieces as in entry
    /// `idx`, have their bit set, as one word: from the piece's line bitmap in `lines`, or for
    /// the lowest digit of a piece other than a pawn from `bits`, the bitmap by entry, whose
    /// words are its lines; `None` for other pieces.
    #[inline]
    pub(crate) fn word_on_line(
        lines: &[Option<LineBits>],
        bits: &[AtomicU64],
        ix: &IndexScheme,
        slot: usize,
        idx: u64,
    ) -> Option<u64> {
        match lines.get(slot) {
            Some(Some(l)) => Some(l.squares(idx)),
            _ if ix.strides()[slot] == 1 && ix.slots()[slot].1 != Role::Pawn => {
                bits.get((idx / 64) as usize).map(|w| w.load(Relaxed))
            }
            _ => None,
        }
    }

    /// The word of entry `idx`'s line and the entry's bit in it.
    #[inline]
    fn locate(&self, idx: u64) -> (usize, u64) {
        let (line, square) = match self.shift {
            Some(s) => (
                ((idx >> (s + 6)) << s) | (idx & (self.stride - 1)),
                (idx >> s) & 63,
            ),
            None => {
                let (hi, q) = (self.by_line.div(idx), self.by_stride.div(idx));
                (hi * self.stride + (idx - q * self.stride), q - 64 * hi)
            }
        };
        (line as usize, 1u64 << square)
    }

    /// Sets the bit of entry `idx`, atomically.
    #[inline]
    pub(crate) fn set(&self, idx: u64) {
        let (w, bit) = self.locate(idx);
        if let Some(word) = self.bits.get(w) {
            word.fetch_or(bit, Relaxed);
        }
    }

    /// Sets the bit of decided entry `idx` by a plain store: only for a caller that alone
    /// touches the line's entries (a line lies within one king placement: see `Solver::partitions`).
    #[inline]
    pub(crate) fn set_owned(&self, idx: u64) {
        let (w, bit) = self.locate(idx);
        if let Some(word) = self.bits.get(w) {
            word.store(word.load(Relaxed) | bit, Relaxed);
        }
    }

    /// Clears the bit of entry `idx`, atomically.
    #[inline]
    pub(crate) fn clear(&self, idx: u64) {
        let (w, bit) = self.locate(idx);
        if let Some(word) = self.bits.get(w) {
            word.fetch_and(!bit, Relaxed);
        }
    }

    /// Clears the bit of entry `idx` by a plain store: only for a caller that alone touches
    /// the line's entries (as `set_owned`).
    #[inline]
    pub(crate) fn clear_owned(&self, idx: u64) {
        let (w, bit) = self.locate(idx);
        if let Some(word) = self.bits.get(w) {
            word.store(word.load(Relaxed) & !bit, Relaxed);
        }
    }

    /// The squares whose entries on `idx`'s line have their bit set (in the DTM solve: are
    /// decided, as far as the bits go).
    #[inline]
    pub(crate) fn squares(&self, idx: u64) -> u64 {
        let (w, _) = self.locate(idx);
        self.bits.get(w).map_or(0, |word| word.load(Relaxed))
    }
}

/// Division of entry numbers (below 2^31: see `Solver::init`) by a fixed divisor, as a multiplication:
/// with `m = ceil(2^64 / d)`, `x * m / 2^64` exceeds `x / d` by less than `x / 2^64 < 2^-32 <=
/// 1/d`, too little to reach the next integer, for any `x < 2^32` and `d <= 2^32`.
#[derive(Clone, Copy)]
struct Divisor {
    m: u128,
}

impl Divisor {
    fn new(d: u64) -> Divisor {
        Divisor {
            m: (1u128 << 64).div_ceil(u128::from(d.max(1))),
        }
    }

    #[inline]
    fn div(self, x: u64) -> u64 {
        debug_assert!(x < 1 << 32);
        ((u128::from(x) * self.m) >> 64) as u64
    }
}

/// Words of a frontier's bitmap per bit of its block summary.
const BLOCK_WORDS: u64 = 64;

/// The entries decided at one depth: a bit per entry and side to move, with a summary of which
/// blocks of words may hold one, so that a pass over a sparse frontier (a DTZ50 solve's pawn
/// structure rank is a small share of every king placement) skips the empty blocks unread.
pub(crate) struct Frontier {
    pub(crate) bits: ByColor<Atomics<AtomicU64>>,
    /// Per side, a bit per `BLOCK_WORDS` words of `bits`, set whenever one of them holds a mark
    /// (a mark into an empty word sets it; `take_range` clears it once the block is empty).
    blocks: ByColor<Vec<AtomicU64>>,
}

impl Frontier {
    pub(crate) fn new(size: u64) -> Frontier {
        let blocks = size.div_ceil(64).div_ceil(BLOCK_WORDS).div_ceil(64) as usize;
        Frontier {
            bits: ByColor::new_with(|_| zeroed_bits(size)),
            blocks: ByColor::new_with(|_| (0..blocks).map(|_| AtomicU64::new(0)).collect()),
        }
    }

    /// Notes that word `w` of `side` holds a mark.
    #[inline]
    fn note_block(&self, side: Color, w: u64) {
        let b = w / BLOCK_WORDS;
        if let Some(s) = self.blocks[side].get((b / 64) as usize) {
            let bit = 1u64 << (b % 64);
            if s.load(Relaxed) & bit == 0 {
                s.fetch_or(bit, Relaxed);
            }
        }
    }

    /// Sets the block summary again from the words, after they were written directly (a
    /// checkpoint read back).
    pub(crate) fn summarize(&self) {
        for side in SIDES {
            for s in &self.blocks[side] {
                s.store(0, Relaxed);
            }
            for (w, word) in self.bits[side].iter().enumerate() {
                if word.load(Relaxed) != 0 {
                    self.note_block(side, w as u64);
                }
            }
        }
    }

    /// Marks entry `idx` of `side`; `true` if it was not marked yet.
    #[inline]
    pub(crate) fn mark(&self, side: Color, idx: u64) -> bool {
        let bit = 1u64 << (idx % 64);
        let w = idx / 64;
        let old = self.bits[side][w as usize].fetch_or(bit, Relaxed);
        if old == 0 {
            self.note_block(side, w);
        }
        old & bit == 0
    }

    /// Marks entry `idx` of `side` in a pass, by a plain store when the task `owns` the word
    /// (see `pass::Access`); `true` if it was not marked yet.
    #[inline]
    pub(crate) fn mark_in_pass(&self, side: Color, idx: u64, owns: bool) -> bool {
        if !owns {
            return self.mark(side, idx);
        }
        let bit = 1u64 << (idx % 64);
        let w = idx / 64;
        match self.bits[side].get(w as usize) {
            Some(word) => {
                let old = word.load(Relaxed);
                word.store(old | bit, Relaxed);
                if old == 0 {
                    self.note_block(side, w);
                }
                old & bit == 0
            }
            None => false,
        }
    }

    /// About how many entries of `side` in `first..last` are marked: the marks in one word of
    /// every 16, times 16.
    pub(crate) fn sample(&self, side: Color, first: u64, last: u64) -> u64 {
        let words = self.bits[side].get(first.div_ceil(64) as usize..(last / 64) as usize);
        words.map_or(0, |w| {
            w.iter()
                .step_by(16)
                .map(|x| u64::from(x.load(Relaxed).count_ones()))
                .sum::<u64>()
                * 16
        })
    }

    /// Calls `f` on each marked entry of `side` in `first..last`, in order, and clears them.
    /// Only the caller reads or clears these entries during the pass (nodes decided meanwhile
    /// go to the other frontier), so a word wholly in the range is cleared by a plain store; a
    /// word shared with a neighbouring range, by an atomic `and`. Blocks of words the summary
    /// says are empty are skipped; a block left empty is cleared in the summary (nothing marks
    /// this frontier during the pass, so a block seen empty stays empty).
    pub(crate) fn take_range(&self, side: Color, first: u64, last: u64, mut f: impl FnMut(u64)) {
        let Some(bits) = self.bits[side].get(..last.div_ceil(64) as usize) else {
            return;
        };
        let blocks = &self.blocks[side];
        let (w0, w1) = (first / 64, last.div_ceil(64));
        let mut wi = w0;
        while wi < w1 {
            let b = wi / BLOCK_WORDS;
            let block_end = ((b + 1) * BLOCK_WORDS).min(w1);
            let (summary, bit) = (blocks.get((b / 64) as usize), 1u64 << (b % 64));
            if summary.is_some_and(|s| s.load(Relaxed) & bit == 0) {
                wi = block_end;
                continue;
            }
            for w in wi..block_end {
                let base = w * 64;
                let lo = first.max(base) - base;
                let hi = last.min(base + 64) - base;
                let mask = (!0u64 >> (64 - (hi - lo))) << lo;
                let word = &bits[w as usize];
                let mut marks = word.load(Relaxed) & mask;
                if marks == 0 {
                    continue;
                }
                if mask == !0 {
                    word.store(0, Relaxed);
                } else {
                    word.fetch_and(!mask, Relaxed);
                }
                while marks != 0 {
                    let k = u64::from(marks.trailing_zeros());
                    marks &= marks - 1;
                    f(base + k);
                }
            }
            // The block's words out of the range belong to a neighbour's range: it is empty
            // only when they are too.
            let whole = b * BLOCK_WORDS * 64 >= first && ((b + 1) * BLOCK_WORDS * 64) <= last;
            let all = self.bits[side].get((b * BLOCK_WORDS) as usize..);
            let empty = whole
                || all.is_some_and(|ws| {
                    ws.iter()
                        .take(BLOCK_WORDS as usize)
                        .all(|x| x.load(Relaxed) == 0)
                });
            if let (true, Some(s)) = (empty, summary) {
                s.fetch_and(!bit, Relaxed);
            }
            wi = block_end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_tables::Material;

    /// Marks come back once each, in order, from ranges cut anywhere (inside words and blocks);
    /// the blocks they leave empty are cleared in the summary, and a block marked again is
    /// read again.
    #[test]
    fn a_frontier_gives_its_marks_back_by_ranges_and_skips_empty_blocks() {
        let n = 1_000_000u64;
        let f = Frontier::new(n);
        let marks: Vec<u64> = (0..n)
            .filter(|i| i % 9973 == 5 || (200_000..200_100).contains(i))
            .collect();
        for &m in &marks {
            assert!(f.mark(Color::Black, m));
        }
        assert!(!f.mark(Color::Black, marks[3]));
        let cuts = [0, 77, 64 * 64 * 64 - 3, 300_001, 600_000, n];
        let mut got = Vec::new();
        for w in cuts.windows(2) {
            f.take_range(Color::Black, w[0], w[1], |i| got.push(i));
        }
        assert_eq!(got, marks);
        assert!(f.bits.black.iter().all(|w| w.load(Relaxed) == 0));
        assert!(f.blocks.black.iter().all(|b| b.load(Relaxed) == 0));
        assert!(f.mark_in_pass(Color::Black, 5, true));
        assert!(f.mark_in_pass(Color::Black, 999_999, false));
        let mut again = Vec::new();
        f.take_range(Color::Black, 0, n, |i| again.push(i));
        assert_eq!(again, vec![5, 999_999]);
    }

    #[test]
    fn divisor_divides() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for d in [
            1u64,
            3,
            48,
            64,
            3072,
            3 * 4096,
            64 * 3072,
            64 * 48 * 64 * 64,
            (1 << 31) - 1,
        ] {
            let div = Divisor::new(d);
            for k in [0u64, 1, 2, 1000, (1 << 31) / d] {
                for v in [k * d, (k * d).saturating_sub(1), k * d + 1] {
                    if v < 1 << 31 {
                        assert_eq!(div.div(v), v / d, "{v} / {d}");
                    }
                }
            }
            for _ in 0..100_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let v = x % (1 << 31);
                assert_eq!(div.div(v), v / d, "{v} / {d}");
            }
        }
    }

    /// A line word holds exactly the entries that differ in its piece's square, each at the bit
    /// of that square: the words and bits of all entries are a one-to-one map, for a stride that
    /// is a power of two (KQRvKR's queen) and one that is not (KRPvKR's rook, above a pawn).
    #[test]
    fn line_words_hold_the_squares_of_one_piece() {
        for (name, slot) in [("KQRvKR", 2), ("KQRvKR", 3), ("KRPvKR", 2)] {
            let m: Material = name.parse().expect("material");
            let ix = IndexScheme::new(m);
            let Some(lines) = LineBits::new(&ix, slot) else {
                panic!("{name}: no line bitmap for slot {slot}");
            };
            let st = ix.strides()[slot];
            let mut seen = vec![0u64; lines.bits.len()];
            // Whole king placements, first and last, with every entry of each.
            let ks = ix.king_stride();
            for idx in (0..2 * ks).chain(ix.size() - ks..ix.size()) {
                let (w, bit) = lines.locate(idx);
                assert_eq!(bit, 1 << ((idx / st) % 64), "{name} entry {idx}");
                assert_eq!(seen[w] & bit, 0, "{name}: entry {idx} shares its bit");
                seen[w] |= bit;
                let first = idx - ((idx / st) % 64) * st;
                assert_eq!(lines.locate(first).0, w, "{name} entry {idx}");
            }
            assert!(
                seen.iter().all(|&b| b == 0 || b == !0),
                "{name}: partial lines"
            );
        }
        // The lowest digit and pawns keep none.
        let ix = IndexScheme::new("KQRvKR".parse().expect("material"));
        assert!(LineBits::new(&ix, 4).is_none() && LineBits::new(&ix, 0).is_none());
        let ix = IndexScheme::new("KRPvKR".parse().expect("material"));
        assert!(LineBits::new(&ix, 3).is_none());
    }
}
