//! The order of values inside a compressed table file.
//!
//! An index is a mixed-radix number whose digits are the king placement and one digit per run
//! of identical pieces ([`IndexScheme::radices`]). A compressed file may store its values with
//! the digits in another order of significance, one order per side to move, chosen at build
//! time as the order whose sample blocks compress best. Runs of equal values are longer when
//! the fastest-changing digit is a piece that rarely changes the result.

use super::{index::IndexScheme, material::MAX_PIECES};

/// Most digits an index has: the kings and one per other piece.
pub const MAX_DIGITS: usize = MAX_PIECES - 1;

/// A digit order: which index digit is most significant in the file, then the next, and so on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Radix of each index digit, index order (most significant first).
    radix: [u64; MAX_DIGITS],
    /// Number of digits.
    len: usize,
    /// The order, most significant first, as index digit numbers.
    order: [u8; MAX_DIGITS],
    /// Step in the file per unit of each index digit.
    stride: [u64; MAX_DIGITS],
    /// Step in the index per unit of each index digit.
    istride: [u64; MAX_DIGITS],
    /// Whether the order is the index order (the file order is the index).
    identity: bool,
}

impl Layout {
    /// The layout with `order` (index digit numbers, most significant first) for `scheme`;
    /// `None` unless `order` is a permutation of the scheme's digits.
    pub fn new(scheme: &IndexScheme, order: &[u8]) -> Option<Layout> {
        let radices = scheme.radices();
        let len = radices.len();
        if order.len() != len || len > MAX_DIGITS {
            return None;
        }
        let mut seen = [false; MAX_DIGITS];
        for &d in order {
            let d = usize::from(d);
            if d >= len || seen[d] {
                return None;
            }
            seen[d] = true;
        }
        let mut radix = [1u64; MAX_DIGITS];
        radix[..len].copy_from_slice(&radices);
        let mut o = [0u8; MAX_DIGITS];
        o[..len].copy_from_slice(order);
        let mut stride = [0u64; MAX_DIGITS];
        let mut s = 1u64;
        for &d in order.iter().rev() {
            stride[usize::from(d)] = s;
            s *= radix[usize::from(d)];
        }
        let mut istride = [0u64; MAX_DIGITS];
        let mut s = 1u64;
        for d in (0..len).rev() {
            istride[d] = s;
            s *= radix[d];
        }
        let identity = order.iter().enumerate().all(|(i, &d)| usize::from(d) == i);
        Some(Layout {
            radix,
            len,
            order: o,
            stride,
            istride,
            identity,
        })
    }

    /// The index order itself.
    pub fn identity(scheme: &IndexScheme) -> Layout {
        let order: Vec<u8> = (0..scheme.radices().len() as u8).collect();
        // A permutation of the scheme's own digits is always accepted.
        Layout::new(scheme, &order).unwrap_or(Layout {
            radix: [1; MAX_DIGITS],
            len: 0,
            order: [0; MAX_DIGITS],
            stride: [0; MAX_DIGITS],
            istride: [0; MAX_DIGITS],
            identity: true,
        })
    }

    /// Whether the file order is the index order.
    pub fn is_identity(&self) -> bool {
        self.identity
    }

    /// The order, most significant first.
    pub fn order(&self) -> &[u8] {
        &self.order[..self.len]
    }

    /// The position in the file order of index `idx`.
    #[inline]
    pub fn file_position(&self, idx: u64) -> u64 {
        if self.identity {
            return idx;
        }
        let mut rem = idx;
        let mut out = 0;
        for d in (1..self.len).rev() {
            let r = self.radix[d];
            out += (rem % r) * self.stride[d];
            rem /= r;
        }
        out + rem * self.stride[0]
    }

    /// The index at position `pos` of the file order.
    #[inline]
    pub fn index_at(&self, pos: u64) -> u64 {
        if self.identity {
            return pos;
        }
        let mut digits = [0u64; MAX_DIGITS];
        let mut rem = pos;
        for &d in self.order[..self.len].iter().rev() {
            let r = self.radix[usize::from(d)];
            digits[usize::from(d)] = rem % r;
            rem /= r;
        }
        self.radix[..self.len]
            .iter()
            .zip(&digits)
            .fold(0, |idx, (&r, &d)| idx * r + d)
    }
}

impl Layout {
    /// Calls `f` with the index of each file position `start..start + len`, in file order
    /// (an odometer over the digits, no division per entry).
    pub fn walk(&self, start: u64, len: u64, f: impl FnMut(u64)) {
        self.odometer(&self.order, &self.istride, start, len, f);
    }

    /// The length of the regions of the file order that [`Layout::walk_region`] visits: the
    /// product of the radices of the fastest file digits, times a divisor of the next digit's
    /// radix, the largest such at most `max` that is a multiple of `multiple_of`; `None` for the
    /// index order itself or when there is none. A region must take at least 8 values of the
    /// fastest index digit, so that reading it in index order reads runs of neighbouring
    /// entries (else the file order reads no worse).
    pub fn region_len(&self, max: u64, multiple_of: u64) -> Option<u64> {
        if self.identity || multiple_of == 0 || self.len == 0 {
            return None;
        }
        let last = (self.len - 1) as u8;
        let mut r = 1u64;
        let mut best = None;
        let mut has_last = false;
        for &d in self.order[..self.len].iter().rev() {
            let radix = self.radix[usize::from(d)];
            for m in (1..=radix).filter(|m| radix.is_multiple_of(*m)) {
                let len = r.saturating_mul(m);
                let runs = has_last || (d == last && m >= 8);
                if runs && len <= max && len.is_multiple_of(multiple_of) {
                    best = best.max(Some(len));
                }
            }
            has_last |= d == last;
            r = r.saturating_mul(radix);
            if r > max {
                break;
            }
        }
        best
    }

    /// Calls `f` with the index and the offset from `start` of each file position of the region
    /// `start..start + len` (`len` from [`Layout::region_len`], `start` a multiple of it), in
    /// index order: the region's entries are read in the order they lie in memory, and only the
    /// writes, within the region, are scattered.
    pub fn walk_region(&self, start: u64, len: u64, mut f: impl FnMut(u64, usize)) {
        // The fastest file digits, whose radices make up `len`, the last of them perhaps only
        // in part: `len` is their product times a divisor of the next one's radix.
        let mut fast = [(0usize, 0u64); MAX_DIGITS]; // (digit, values taken)
        let mut nf = 0;
        let mut r = 1u64;
        for &d in self.order[..self.len].iter().rev() {
            if r >= len {
                break;
            }
            let d = usize::from(d);
            let take = if len.is_multiple_of(r * self.radix[d]) {
                self.radix[d]
            } else {
                len / r
            };
            fast[nf] = (d, take);
            nf += 1;
            r *= take;
        }
        if nf == 0 || r != len || !start.is_multiple_of(len) {
            return;
        }
        // Every digit's value at `start`, in file order.
        let mut base = 0u64;
        let mut rem = start;
        for &d in self.order[..self.len].iter().rev() {
            let d = usize::from(d);
            base += (rem % self.radix[d]) * self.istride[d];
            rem /= self.radix[d];
        }
        // An odometer over the fast digits in index order (index digit 0 most significant).
        let fast = &mut fast[..nf];
        fast.sort_unstable();
        let mut dig = [0u64; MAX_DIGITS];
        let (mut idx, mut off) = (base, 0u64);
        for _ in 0..len {
            f(idx, off as usize);
            let mut p = nf - 1;
            loop {
                let (d, take) = fast[p];
                dig[p] += 1;
                idx += self.istride[d];
                off += self.stride[d];
                if dig[p] < take || p == 0 {
                    break;
                }
                idx -= take * self.istride[d];
                off -= take * self.stride[d];
                dig[p] = 0;
                p -= 1;
            }
        }
    }

    /// The two digits of a blocked transpose from the index order to the file order (see
    /// [`Layout::walk_tile`]): the fastest index digit, read in runs, and the fastest file digit,
    /// written in runs; `None` for the index order or when they are one digit.
    pub fn tile_digits(&self) -> Option<(usize, usize)> {
        let fast_index = self.len.checked_sub(1)?;
        let fast_file = usize::from(self.order[fast_index]);
        (!self.identity && fast_file != fast_index).then_some((fast_index, fast_file))
    }

    /// The number of tiles of [`Layout::walk_tile`] (0 without tile digits).
    pub fn tiles(&self) -> u64 {
        match self.tile_digits() {
            Some((l, f)) => {
                let n: u64 = self.radix[..self.len].iter().product();
                n / (self.radix[l] * self.radix[f])
            }
            None => 0,
        }
    }

    /// Calls `f` with the index and the file position of each entry of tile `t` (below
    /// [`Layout::tiles`]): the entries that share every digit but the two of
    /// [`Layout::tile_digits`], whose other digits are `t` counted in index order. They are
    /// visited in runs of neighbouring indices (the fastest index digit), and their file
    /// positions form runs of neighbouring positions (the fastest file digit), so a tile reads
    /// and writes whole cache lines: the tiles together transpose the table from index order
    /// to file order.
    pub fn walk_tile(&self, t: u64, mut f: impl FnMut(u64, u64)) {
        let Some((l, fd)) = self.tile_digits() else {
            return;
        };
        let (mut base_i, mut base_f) = (0u64, 0u64);
        let mut rem = t;
        for d in (0..self.len).rev().filter(|&d| d != l && d != fd) {
            let v = rem % self.radix[d];
            rem /= self.radix[d];
            base_i += v * self.istride[d];
            base_f += v * self.stride[d];
        }
        if rem != 0 {
            return; // past the last tile
        }
        for b in 0..self.radix[fd] {
            let (i0, f0) = (base_i + b * self.istride[fd], base_f + b * self.stride[fd]);
            for a in 0..self.radix[l] {
                f(i0 + a * self.istride[l], f0 + a * self.stride[l]);
            }
        }
    }

    /// Calls `f` with the file position of each index `start..start + len`, in index order
    /// (the inverse of [`Layout::walk`]: an odometer over the index digits).
    pub fn walk_index(&self, start: u64, len: u64, f: impl FnMut(u64)) {
        let index_order: [u8; MAX_DIGITS] = std::array::from_fn(|d| d as u8);
        self.odometer(&index_order, &self.stride, start, len, f);
    }

    /// Counts `start..start + len` in the mixed radix whose digits, most significant first, are
    /// the index digits `order`, and calls `f` with each count's value in the other order: the
    /// sum of its digits times `step` (per index digit).
    fn odometer(
        &self,
        order: &[u8; MAX_DIGITS],
        step: &[u64; MAX_DIGITS],
        start: u64,
        len: u64,
        mut f: impl FnMut(u64),
    ) {
        if self.identity || self.len == 0 {
            (start..start + len).for_each(f);
            return;
        }
        let order = &order[..self.len];
        let mut dig = [0u64; MAX_DIGITS];
        let mut rem = start;
        for p in (0..self.len).rev() {
            let r = self.radix[usize::from(order[p])];
            dig[p] = rem % r;
            rem /= r;
        }
        let mut out: u64 = (0..self.len)
            .map(|p| dig[p] * step[usize::from(order[p])])
            .sum();
        for _ in 0..len {
            f(out);
            let mut p = self.len - 1;
            loop {
                let d = usize::from(order[p]);
                dig[p] += 1;
                out += step[d];
                if dig[p] < self.radix[d] || p == 0 {
                    break;
                }
                out -= self.radix[d] * step[d];
                dig[p] = 0;
                p -= 1;
            }
        }
    }
}

/// Every order of `n` digits (n! of them), index order first.
pub fn all_orders(n: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut cur: Vec<u8> = (0..n as u8).collect();
    permute(&mut cur, 0, &mut out);
    out.sort();
    out
}

fn permute(cur: &mut Vec<u8>, k: usize, out: &mut Vec<Vec<u8>>) {
    if k == cur.len() {
        out.push(cur.clone());
        return;
    }
    for i in k..cur.len() {
        cur.swap(k, i);
        permute(cur, k + 1, out);
        cur.swap(k, i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Material;

    #[test]
    fn orders_are_bijections() {
        for name in ["KQvK", "KRRvK", "KQRvKR", "KPPvKP", "KRPvKR"] {
            let m: Material = name.parse().expect("material");
            let ix = IndexScheme::new(m);
            let n = ix.radices().len();
            let orders = all_orders(n);
            assert_eq!(orders.len(), (1..=n).product::<usize>(), "{name}");
            assert_eq!(orders[0], (0..n as u8).collect::<Vec<_>>());
            for order in orders {
                let l = Layout::new(&ix, &order).expect("permutation");
                let step = (ix.size() / 5000).max(1) | 1;
                let mut i = 0;
                while i < ix.size() {
                    let f = l.file_position(i);
                    assert!(f < ix.size(), "{name} {order:?} {i}");
                    assert_eq!(l.index_at(f), i, "{name} {order:?} {i}");
                    i += step;
                }
                // Walking the file order visits the indices of each position.
                for start in [0, 1, ix.size() / 3, ix.size() - 700] {
                    let mut pos = start;
                    l.walk(start, 700, |i| {
                        assert_eq!(l.file_position(i), pos, "{name} {order:?} walk {start}");
                        pos += 1;
                    });
                    assert_eq!(pos, start + 700);
                    // And walking the index order visits the file position of each index.
                    let mut i = start;
                    l.walk_index(start, 700, |f| {
                        assert_eq!(l.file_position(i), f, "{name} {order:?} walk_index {start}");
                        i += 1;
                    });
                    assert_eq!(i, start + 700);
                }
            }
        }
    }

    #[test]
    fn a_region_visits_each_of_its_file_positions_once_with_its_index() {
        for name in ["KQvK", "KRvKN", "KPPvKP", "KRPvKR"] {
            let m: Material = name.parse().expect("material");
            let ix = IndexScheme::new(m);
            for order in all_orders(ix.radices().len()).into_iter().skip(1) {
                let l = Layout::new(&ix, &order).expect("permutation");
                for block in [64, 4096] {
                    let Some(len) = l.region_len(1 << 16, block) else {
                        continue;
                    };
                    assert_eq!(len % block, 0);
                    assert_eq!(ix.size() % len, 0, "{name} {order:?}");
                    let regions = ix.size() / len;
                    for k in [0, regions / 2, regions - 1] {
                        let mut seen = vec![false; len as usize];
                        let mut visits = 0;
                        l.walk_region(k * len, len, |i, off| {
                            assert_eq!(
                                l.file_position(i),
                                k * len + off as u64,
                                "{name} {order:?}"
                            );
                            assert!(!seen[off]);
                            seen[off] = true;
                            visits += 1;
                        });
                        assert_eq!(visits, len, "{name} {order:?} region {k}");
                    }
                }
            }
            let identity = Layout::identity(&ix);
            assert_eq!(identity.region_len(1 << 16, 64), None);
        }
    }

    #[test]
    fn the_tiles_visit_every_file_position_once_with_its_index() {
        for name in ["KQvK", "KRvKN", "KPvKP", "KNPvK", "KBBvK"] {
            let m: Material = name.parse().expect("material");
            let ix = IndexScheme::new(m);
            let n = ix.size();
            let mut tiled = 0;
            for order in all_orders(ix.radices().len()) {
                let l = Layout::new(&ix, &order).expect("permutation");
                let Some((fast_index, fast_file)) = l.tile_digits() else {
                    assert!(l.is_identity() || order.last() == Some(&(order.len() as u8 - 1)));
                    assert_eq!(l.tiles(), 0);
                    continue;
                };
                assert_ne!(fast_index, fast_file);
                tiled += 1;
                let mut seen = vec![false; n as usize];
                let mut visits = 0u64;
                for t in 0..l.tiles() {
                    l.walk_tile(t, |i, pos| {
                        assert_eq!(l.file_position(i), pos, "{name} {order:?} tile {t}");
                        assert!(!seen[pos as usize], "{name} {order:?} {pos} twice");
                        seen[pos as usize] = true;
                        visits += 1;
                    });
                }
                assert_eq!(visits, n, "{name} {order:?}");
                // Past the last tile, nothing.
                l.walk_tile(l.tiles(), |_, _| visits += 1);
                assert_eq!(visits, n);
            }
            assert!(tiled > 0, "{name}");
        }
    }

    #[test]
    fn last_digit_of_the_order_varies_fastest() {
        let m: Material = "KQRvKR".parse().expect("material");
        let ix = IndexScheme::new(m);
        let l = Layout::new(&ix, &[1, 0, 2, 3]).expect("permutation");
        // Index digits (kings, Q, R, r): kings 5, queen 7, rook 9, black rook 11.
        let idx = ((5 * 64 + 7) * 64 + 9) * 64 + 11;
        assert_eq!(l.file_position(idx), ((7 * 462 + 5) * 64 + 9) * 64 + 11);
        assert_eq!(l.file_position(idx + 1), l.file_position(idx) + 1);
        assert!(Layout::new(&ix, &[0, 0, 1, 2]).is_none());
        assert!(Layout::new(&ix, &[0, 1, 2]).is_none());
    }
}
