//! The symmetry-reduced index of a table: position (squares in slot order) to entry number and
//! back. Shared by the generator and the prober.
//!
//! Layout of an index, most significant part first:
//! 1. the two kings: one of the 462 placements for pawnless material (white king in the
//!    a1-d1-d4 triangle, black king on or below the a1-h8 diagonal when the white king is on it),
//!    or one of 1806 placements with the white king on files a-d when there are pawns;
//! 2. each group of identical pieces (same colour and role), in slot order: a combination index
//!    over 64 squares (48 for pawns, ranks 2-7), so identical pieces are indexed once.
//!
//! Entries whose pieces overlap, and pawnless entries that are not the canonical one of their
//! symmetry class (both kings on the diagonal), are unused and hold a draw.

use std::sync::LazyLock;

use shakmaty::{Bitboard, Color, Role};

use super::material::{Material, MAX_PIECES};

/// Squares of the pieces in slot order (see [`Material::slots`]), 0 = a1 ... 63 = h8.
pub type Squares = [u8; MAX_PIECES];

/// Which symmetry an index uses (stored in table headers).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub enum Scheme {
    /// Pawnless: 8 symmetries, 462 king placements.
    Pawnless = 0,
    /// With pawns: left-right mirroring, white king on files a-d.
    Pawns = 1,
}

/// Applies symmetry `t` (bit 0: mirror files, bit 1: mirror ranks, bit 2: flip on a1-h8,
/// applied in that order) to a square.
#[inline]
pub const fn transform(t: u8, sq: u8) -> u8 {
    TRANSFORMS[(t & 7) as usize][(sq & 63) as usize]
}

/// Computes `transform` (a table lookup is faster than the branches in the hot loops).
const fn transform_slow(t: u8, sq: u8) -> u8 {
    let mut s = sq;
    if t & 1 != 0 {
        s ^= 7;
    }
    if t & 2 != 0 {
        s ^= 56;
    }
    if t & 4 != 0 {
        s = ((s & 7) << 3) | (s >> 3);
    }
    s
}

/// `transform` of every symmetry and square.
const TRANSFORMS: [[u8; 64]; 8] = {
    let mut table = [[0u8; 64]; 8];
    let mut t = 0;
    while t < 8 {
        let mut sq = 0;
        while sq < 64 {
            table[t][sq] = transform_slow(t as u8, sq as u8);
            sq += 1;
        }
        t += 1;
    }
    table
};

const fn on_diagonal(sq: u8) -> bool {
    sq & 7 == sq >> 3
}

const fn above_diagonal(sq: u8) -> bool {
    (sq >> 3) > (sq & 7)
}

/// Whether two squares are equal or adjacent.
pub const fn kings_touch(a: u8, b: u8) -> bool {
    let df = (a & 7) as i8 - (b & 7) as i8;
    let dr = (a >> 3) as i8 - (b >> 3) as i8;
    df.abs() <= 1 && dr.abs() <= 1
}

/// The symmetry that brings a white king into the a1-d1-d4 triangle.
const fn triangle_transform(sq: u8) -> u8 {
    let mut t = 0;
    if sq & 7 >= 4 {
        t |= 1;
    }
    if sq >> 3 >= 4 {
        t |= 2;
    }
    if above_diagonal(transform(t, sq)) {
        t |= 4;
    }
    t
}

/// Placements of the two kings, numbered. Fixed arrays, not vectors: the solvers look
/// placements up for every king move they make or take back, and a vector's buffer would add a
/// dependent load to each.
pub struct KingTable {
    index: [u16; 64 * 64],
    squares: [(u8, u8); MAX_PLACEMENTS],
    len: usize,
}

/// The most king placements a table has (with pawns: 1806).
const MAX_PLACEMENTS: usize = 1806;

const NO_KINGS: u16 = u16::MAX;

impl KingTable {
    fn new(keep: impl Fn(u8, u8) -> bool) -> KingTable {
        let mut index = [NO_KINGS; 64 * 64];
        let mut squares = [(0, 0); MAX_PLACEMENTS];
        let mut len = 0;
        for wk in 0..64u8 {
            for bk in 0..64u8 {
                if !kings_touch(wk, bk) && keep(wk, bk) {
                    if let Some(slot) = squares.get_mut(len) {
                        index[wk as usize * 64 + bk as usize] = len as u16;
                        *slot = (wk, bk);
                        len += 1;
                    }
                }
            }
        }
        KingTable {
            index,
            squares,
            len,
        }
    }

    /// Number of placements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none (never).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The placements, in their numbering.
    fn squares(&self) -> &[(u8, u8)] {
        &self.squares[..self.len]
    }

    #[inline]
    fn get(&self, wk: u8, bk: u8) -> Option<u64> {
        match self.index[(wk as usize & 63) * 64 + (bk as usize & 63)] {
            NO_KINGS => None,
            i => Some(u64::from(i)),
        }
    }
}

/// The 462 king placements of pawnless tables.
pub static KINGS_PAWNLESS: LazyLock<KingTable> = LazyLock::new(|| {
    KingTable::new(|wk, bk| triangle_transform(wk) == 0 && !(on_diagonal(wk) && above_diagonal(bk)))
});

/// The 1806 king placements of tables with pawns.
pub static KINGS_PAWNS: LazyLock<KingTable> = LazyLock::new(|| KingTable::new(|wk, _| wk & 7 < 4));

/// Binomial coefficients C(n, k) for n < 65, k < 5.
const BINOM: [[u64; 5]; 65] = {
    let mut t = [[0u64; 5]; 65];
    let mut n = 0;
    while n < 65 {
        t[n][0] = 1;
        let mut k = 1;
        while k < 5 {
            if n > 0 {
                t[n][k] = t[n - 1][k - 1] + t[n - 1][k];
            }
            k += 1;
        }
        n += 1;
    }
    t
};

/// A run of identical pieces in the slot list.
#[derive(Clone, Copy, Debug)]
struct Group {
    start: usize,
    len: usize,
    pawn: bool,
    size: u64,
    /// Product of the sizes of the groups after this one.
    stride: u64,
}

/// The index digit of one group of identical pawns (see [`IndexScheme::pawn_digits`]).
#[derive(Clone, Debug)]
pub struct PawnDigit {
    /// Index step per digit value.
    pub stride: u64,
    /// Digit values.
    pub size: u64,
    /// Per digit value, the sum of the group's pawns' ranks counted from their own side.
    pub ranks: Vec<u8>,
}

/// Position to index and back for one material.
#[derive(Clone)]
pub struct IndexScheme {
    material: Material,
    /// Colour and role of each slot (the first `n`): inline, as the groups, so that the index
    /// arithmetic of a move reads them without a load of a vector's buffer first.
    slots: [(Color, Role); MAX_PIECES],
    n: usize,
    scheme: Scheme,
    /// The groups (the first `ngroups`).
    groups: [Group; MAX_PIECES],
    ngroups: usize,
    size: u64,
    /// Index step per square for a piece alone in its group (0 for kings and identical pieces).
    strides: [u64; MAX_PIECES],
    /// Index step per king placement.
    king_stride: u64,
    /// The king placements of its scheme.
    kings: &'static KingTable,
}

impl IndexScheme {
    /// The index of a material (in the orientation given).
    pub fn new(material: Material) -> IndexScheme {
        let slots = material.slots();
        let scheme = if material.has_pawns() {
            Scheme::Pawns
        } else {
            Scheme::Pawnless
        };
        let mut groups: Vec<Group> = Vec::new();
        for (i, &(color, role)) in slots.iter().enumerate().skip(2) {
            match groups.last_mut() {
                Some(g) if slots[g.start] == (color, role) => g.len += 1,
                _ => groups.push(Group {
                    start: i,
                    len: 1,
                    pawn: role == Role::Pawn,
                    size: 0,
                    stride: 0,
                }),
            }
        }
        let mut size = match scheme {
            Scheme::Pawnless => KINGS_PAWNLESS.len() as u64,
            Scheme::Pawns => KINGS_PAWNS.len() as u64,
        };
        for g in &mut groups {
            let domain = if g.pawn { 48 } else { 64 };
            g.size = BINOM[domain][g.len];
            size *= g.size;
        }
        let mut stride = 1;
        for g in groups.iter_mut().rev() {
            g.stride = stride;
            stride *= g.size;
        }
        let mut strides = [0u64; MAX_PIECES];
        for g in &groups {
            if g.len == 1 {
                strides[g.start] = g.stride;
            }
        }
        let mut slot_array = [(Color::White, Role::King); MAX_PIECES];
        for (a, &s) in slot_array.iter_mut().zip(&slots) {
            *a = s;
        }
        let mut group_array = [Group {
            start: 0,
            len: 0,
            pawn: false,
            size: 1,
            stride: 0,
        }; MAX_PIECES];
        for (a, &g) in group_array.iter_mut().zip(&groups) {
            *a = g;
        }
        IndexScheme {
            strides,
            king_stride: stride,
            kings: match scheme {
                Scheme::Pawnless => &KINGS_PAWNLESS,
                Scheme::Pawns => &KINGS_PAWNS,
            },
            material,
            n: slots.len().min(MAX_PIECES),
            slots: slot_array,
            scheme,
            ngroups: groups.len().min(MAX_PIECES),
            groups: group_array,
            size,
        }
    }

    /// The material.
    pub fn material(&self) -> Material {
        self.material
    }

    /// Colour and role of each slot.
    pub fn slots(&self) -> &[(Color, Role)] {
        &self.slots[..self.n]
    }

    /// The groups of identical pieces, in slot order.
    #[inline]
    fn groups(&self) -> &[Group] {
        &self.groups[..self.ngroups]
    }

    /// Number of pieces.
    pub fn piece_count(&self) -> usize {
        self.n
    }

    /// Which symmetry is used.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// Entries per side to move.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The radix of each digit of an index, most significant first: the king placements, then
    /// one per run of identical pieces.
    pub fn radices(&self) -> Vec<u64> {
        let mut v = vec![self.kings().len() as u64];
        v.extend(self.groups().iter().map(|g| g.size));
        v
    }

    /// The king placements, numbered as in the index's most significant digit: placement `k`
    /// holds the entries `k * king_stride() .. (k + 1) * king_stride()`.
    pub fn king_placements(&self) -> &'static [(u8, u8)] {
        self.kings().squares()
    }

    /// Index step per square of each slot's piece when it is alone in its group (its digit is
    /// its square, minus 8 for a pawn); 0 for kings and identical pieces.
    pub fn strides(&self) -> &[u64; MAX_PIECES] {
        &self.strides
    }

    /// Entries per king placement.
    pub fn king_stride(&self) -> u64 {
        self.king_stride
    }

    /// The index digits of the pawns, one per group of identical pawns: the digit of entry
    /// `idx` is `idx / stride % size`, and `ranks[digit]` the sum of the group's pawns' ranks,
    /// each counted from its own side (1 on its second rank, 6 on its seventh). Empty without
    /// pawns.
    pub fn pawn_digits(&self) -> Vec<PawnDigit> {
        self.groups()
            .iter()
            .filter(|g| g.pawn)
            .map(|g| {
                let color = self.slots[g.start].0;
                let ranks = (0..g.size)
                    .map(|gi| {
                        let mut sq = [0u8; MAX_PIECES];
                        decode_group(g, gi, &mut sq);
                        sq[g.start..g.start + g.len]
                            .iter()
                            .map(|&s| {
                                let rank = s >> 3;
                                if color == Color::White {
                                    rank
                                } else {
                                    7 - rank
                                }
                            })
                            .sum()
                    })
                    .collect();
                PawnDigit {
                    stride: g.stride,
                    size: g.size,
                    ranks,
                }
            })
            .collect()
    }

    /// The square that stands for `sq`'s class under the index's symmetries: two squares have
    /// the same class exactly when a symmetry of the scheme maps one onto the other (10 classes
    /// for pawnless material, 32 with pawns).
    pub fn square_class(&self, sq: u8) -> u8 {
        match self.scheme {
            Scheme::Pawnless => transform(triangle_transform(sq), sq),
            Scheme::Pawns => {
                if sq & 7 >= 4 {
                    sq ^ 7
                } else {
                    sq & 63
                }
            }
        }
    }

    #[inline]
    fn kings(&self) -> &'static KingTable {
        self.kings
    }

    /// For a move of the piece in `slot` from a decoded (canonical) position `sq`, the amount the
    /// index changes per square moved, when the new index is `idx + (to - from) * stride`.
    /// `None` when it must be computed in full: kings (the symmetry may change), identical pieces,
    /// and pawnless positions with both kings on the a1-h8 diagonal.
    #[inline]
    pub fn stride(&self, sq: &Squares, slot: usize) -> Option<u64> {
        let st = self.strides[slot];
        if st == 0 || (self.scheme == Scheme::Pawnless && on_diagonal(sq[0]) && on_diagonal(sq[1]))
        {
            None
        } else {
            Some(st)
        }
    }

    /// The index after the piece in `slot` of the decoded (canonical) position `sq`, entry
    /// `idx`, moves to the empty square `to`, when it can be had without computing it in full
    /// (the symmetry stays the same); `None` otherwise.
    #[inline]
    pub fn moved(&self, idx: u64, sq: &Squares, slot: usize, to: u8) -> Option<u64> {
        if to > 63 {
            return None;
        }
        if slot >= 2 {
            if self.slots[slot].1 == Role::Pawn && !(8..56).contains(&to) {
                return None;
            }
            if self.strides[slot] == 0 {
                return self.moved_in_group(idx, sq, slot, to);
            }
            let st = self.stride(sq, slot)?;
            return Some((idx + u64::from(to) * st) - u64::from(sq[slot]) * st);
        }
        let (wk, bk) = if slot == 0 { (to, sq[1]) } else { (sq[0], to) };
        if self.scheme == Scheme::Pawnless && on_diagonal(wk) && on_diagonal(bk) {
            return None;
        }
        let kings = self.kings();
        let old = kings.get(sq[0], sq[1])?;
        let new = kings.get(wk, bk)?;
        Some((idx + new * self.king_stride) - old * self.king_stride)
    }

    /// `moved` for a piece with identical companions: only their group's digit changes (the
    /// combination index of their squares), as long as the symmetry stays the same.
    fn moved_in_group(&self, idx: u64, sq: &Squares, slot: usize, to: u8) -> Option<u64> {
        if self.scheme == Scheme::Pawnless && on_diagonal(sq[0]) && on_diagonal(sq[1]) {
            return None;
        }
        let g = self
            .groups()
            .iter()
            .find(|g| (g.start..g.start + g.len).contains(&slot))?;
        let offset = if g.pawn { 8 } else { 0 };
        let at = |k: usize| usize::from(sq[g.start + k] - offset);
        let to = usize::from(to - offset);
        let (old, new) = if g.len == 2 {
            // The common case, without sorting: the other piece and the moved one.
            let (a, b) = (at(0), at(1));
            let other = if g.start == slot { b } else { a };
            let pair = |x: usize, y: usize| BINOM[x.min(y)][1] + BINOM[x.max(y)][2];
            (pair(a, b), pair(other, to))
        } else {
            let digit = |vals: &mut [usize]| -> u64 {
                vals.sort_unstable();
                vals.iter().enumerate().map(|(i, &v)| BINOM[v][i + 1]).sum()
            };
            let mut before = [0usize; MAX_PIECES];
            let mut after = [0usize; MAX_PIECES];
            for k in 0..g.len {
                before[k] = at(k);
                after[k] = if g.start + k == slot { to } else { at(k) };
            }
            (digit(&mut before[..g.len]), digit(&mut after[..g.len]))
        };
        Some((idx + new * g.stride) - old * g.stride)
    }

    /// Whether two moves (or two un-moves) of the side other than `fixed` (whose king therefore
    /// stays on its square) can lead from `sq` to the same entry. Two positions share an entry only when a symmetry of the
    /// index maps one onto the other; both keep that king on its square, so the symmetry is the
    /// reflection through the long diagonal it stands on (pawnless tables only). If `σ` maps `P1
    /// = P - x + a` onto `P2 = P - y + b`, then `σ(P)` and `P` differ in at most two pieces; so
    /// when more than two pieces have no piece of their kind on their mirror square, every move
    /// leads to an entry of its own.
    pub fn may_coincide(&self, sq: &Squares, fixed: Color) -> bool {
        if self.scheme != Scheme::Pawnless {
            return false;
        }
        // The kings are in slots 0 (white) and 1 (black).
        let king = fixed.fold_wb(sq[0], sq[1]);
        let Some(t) = diagonal_reflection(king) else {
            return false;
        };
        // A piece whose image square is empty is unmatched: most placements have more than two,
        // which the occupancy and its image tell at once.
        let occ = super::pieces::occupancy(sq, self.n);
        let image = if t == 4 {
            Bitboard(occ).flip_diagonal()
        } else {
            Bitboard(occ).flip_anti_diagonal()
        };
        if (occ & !image.0).count_ones() > 2 {
            return false;
        }
        let mut unmatched = 0;
        for i in 0..self.n {
            let image = transform(t, sq[i]);
            let kind = self.slots[i];
            if !(0..self.n).any(|j| sq[j] == image && self.slots[j] == kind) {
                unmatched += 1;
                if unmatched > 2 {
                    return false;
                }
            }
        }
        true
    }

    /// The index of a position given by its squares in slot order, in any orientation. `None`
    /// if the kings touch, a pawn stands on the first or last rank, or a square is off the
    /// board. Overlapping pieces are not detected here.
    #[inline]
    pub fn index(&self, sq: &Squares) -> Option<u64> {
        match self.scheme {
            Scheme::Pawns => {
                let t = if sq[0] & 7 >= 4 { 1 } else { 0 };
                self.index_with(t, sq)
            }
            Scheme::Pawnless => {
                let mut t = triangle_transform(sq[0] & 63);
                let wk = transform(t, sq[0]);
                let bk = transform(t, sq[1] & 63);
                if on_diagonal(wk) {
                    if above_diagonal(bk) {
                        t ^= 4;
                    } else if on_diagonal(bk) {
                        let a = self.index_with(t, sq)?;
                        let b = self.index_with(t ^ 4, sq)?;
                        return Some(a.min(b));
                    }
                }
                self.index_with(t, sq)
            }
        }
    }

    #[inline]
    fn index_with(&self, t: u8, sq: &Squares) -> Option<u64> {
        let mut idx = self
            .kings()
            .get(transform(t, sq[0] & 63), transform(t, sq[1] & 63))?;
        for g in self.groups() {
            let mut vals = [0u8; MAX_PIECES];
            for k in 0..g.len {
                let s = sq[g.start + k];
                if s > 63 {
                    return None;
                }
                let s = transform(t, s);
                vals[k] = if g.pawn {
                    if !(8..56).contains(&s) {
                        return None;
                    }
                    s - 8
                } else {
                    s
                };
            }
            idx = idx * g.size + group_digit(g, &mut vals[..g.len]);
        }
        Some(idx)
    }

    /// The position of an index, in its canonical orientation; `None` for an unused entry
    /// (pieces overlap, index out of range, or not the canonical member of its class).
    pub fn decode(&self, idx: u64) -> Option<Squares> {
        if idx >= self.size {
            return None;
        }
        let mut sq = [0u8; MAX_PIECES];
        let rem = self.decode_groups(idx, self.groups(), &mut sq);
        let (wk, bk) = *self.kings().squares().get(rem as usize)?;
        sq[0] = wk;
        sq[1] = bk;
        if !no_overlap(&sq[..self.n]) {
            return None;
        }
        if self.scheme == Scheme::Pawnless
            && on_diagonal(wk)
            && on_diagonal(bk)
            && self.index(&sq) != Some(idx)
        {
            return None;
        }
        Some(sq)
    }

    /// Calls `f` with every used entry of `start..end` and its position (as `decode` gives
    /// it), in index order. Faster than `decode` one by one: the pieces before the last group
    /// are decoded once per run of the last group's digit.
    pub fn for_each_used(&self, start: u64, end: u64, mut f: impl FnMut(u64, &Squares)) {
        let end = end.min(self.size);
        let Some((last, head)) = self.groups().split_last() else {
            for idx in start..end {
                if let Some(sq) = self.decode(idx) {
                    f(idx, &sq);
                }
            }
            return;
        };
        let radix = last.size;
        let n = self.n;
        let mut idx = start;
        while idx < end {
            let run = idx / radix;
            let run_end = ((run + 1) * radix).min(end);
            let first = idx;
            idx = run_end;
            let mut sq = [0u8; MAX_PIECES];
            let rem = self.decode_groups(run, head, &mut sq);
            let Some(&(wk, bk)) = self.kings().squares().get(rem as usize) else {
                continue;
            };
            sq[0] = wk;
            sq[1] = bk;
            if !no_overlap(&sq[..last.start]) {
                continue;
            }
            let both_on_diagonal =
                self.scheme == Scheme::Pawnless && on_diagonal(wk) && on_diagonal(bk);
            for i in first..run_end {
                decode_group(last, i - run * radix, &mut sq);
                if !no_overlap(&sq[..n]) {
                    continue;
                }
                if both_on_diagonal && self.index(&sq) != Some(i) {
                    continue;
                }
                f(i, &sq);
            }
        }
    }

    /// Decodes the digits of `groups` (the last ones of an index) from the low end of `rem`
    /// into `sq`; returns what is left of `rem` above them.
    #[inline]
    fn decode_groups(&self, mut rem: u64, groups: &[Group], sq: &mut Squares) -> u64 {
        for g in groups.iter().rev() {
            // The common radices as constants, so that the division becomes a shift or a
            // multiplication.
            let (gi, next) = match g.size {
                64 => (rem & 63, rem >> 6),
                48 => (rem % 48, rem / 48),
                s => (rem % s, rem / s),
            };
            rem = next;
            decode_group(g, gi, sq);
        }
        rem
    }
}

/// Pawn structures: an index with pawns seen as one part per placement of the pawns.
///
/// The pawns' digits of an entry make its **structure** (numbered by those digits in slot
/// order); the other digits (the kings, then the other pieces) its place within the structure.
/// A move of a piece other than a pawn keeps the pawns where they are, so it leads to an entry
/// of the same structure or, when the white king crosses to the e-h files and the index mirrors
/// the board, of the mirrored one: a structure and its mirror image form a closed part of the
/// table. Pawn moves raise the structure's [`IndexScheme::structure_rank`].
impl IndexScheme {
    /// The number of pawn structures: the product of the pawn digits' sizes (1 without pawns).
    pub fn structure_count(&self) -> u64 {
        self.groups()
            .iter()
            .filter(|g| g.pawn)
            .map(|g| g.size)
            .product()
    }

    /// Entries per structure: the king placements times the other pieces' digits.
    pub fn structure_len(&self) -> u64 {
        self.size / self.structure_count()
    }

    /// The structure of entry `idx` and its place in it (`idx` below [`IndexScheme::size`]).
    #[inline]
    pub fn split_structure(&self, idx: u64) -> (u64, u64) {
        let (mut rem, mut s, mut s_mul, mut r, mut r_mul) = (idx, 0, 1, 0, 1);
        for g in self.groups().iter().rev() {
            let d = rem % g.size;
            rem /= g.size;
            if g.pawn {
                s += d * s_mul;
                s_mul *= g.size;
            } else {
                r += d * r_mul;
                r_mul *= g.size;
            }
        }
        (s, r + rem * r_mul)
    }

    /// The entry of place `r` in structure `s`: the inverse of
    /// [`IndexScheme::split_structure`].
    #[inline]
    pub fn join_structure(&self, s: u64, r: u64) -> u64 {
        let mut digits = [0u64; MAX_PIECES];
        let (mut s, mut r) = (s, r);
        for (k, g) in self.groups().iter().enumerate().rev() {
            let from = if g.pawn { &mut s } else { &mut r };
            digits[k] = *from % g.size;
            *from /= g.size;
        }
        // What is left of `r` is the king placement.
        self.groups()
            .iter()
            .zip(digits)
            .fold(r, |idx, (g, d)| idx * g.size + d)
    }

    /// The squares of structure `s`'s pawns, in their slots (the other slots 0); `None` when two
    /// pawns share a square or `s` is out of range.
    pub fn structure_squares(&self, s: u64) -> Option<Squares> {
        if s >= self.structure_count() {
            return None;
        }
        let mut sq = [0u8; MAX_PIECES];
        let mut rest = s;
        let mut occ = 0u64;
        for g in self.groups().iter().rev().filter(|g| g.pawn) {
            decode_group(g, rest % g.size, &mut sq);
            rest /= g.size;
            for &p in &sq[g.start..g.start + g.len] {
                if occ & (1 << p) != 0 {
                    return None;
                }
                occ |= 1 << p;
            }
        }
        Some(sq)
    }

    /// The structure whose pawns are those of `s` with the files mirrored (a-h, b-g, ...):
    /// where the pawns of `s` stand when the index mirrors the board for the white king.
    /// `None` when `s` has no entry ([`IndexScheme::structure_squares`]).
    pub fn mirrored_structure(&self, s: u64) -> Option<u64> {
        let sq = self.structure_squares(s)?;
        let mut m = 0;
        for g in self.groups().iter().filter(|g| g.pawn) {
            let mut vals = [0u8; MAX_PIECES];
            for (k, v) in vals.iter_mut().enumerate().take(g.len) {
                *v = (sq[g.start + k] ^ 7) - 8;
            }
            m = m * g.size + group_digit(g, &mut vals[..g.len]);
        }
        Some(m)
    }

    /// How far the pawns of structure `s` have advanced: the sum of their ranks, each counted
    /// from its own side (1 on its second rank). Every pawn move raises it; mirroring keeps it.
    pub fn structure_rank(&self, s: u64) -> u32 {
        let Some(sq) = self.structure_squares(s) else {
            return 0;
        };
        (2..self.n)
            .filter(|&i| self.slots[i].1 == Role::Pawn)
            .map(|i| {
                let rank = u32::from(sq[i] >> 3);
                match self.slots[i].0 {
                    Color::White => rank,
                    Color::Black => 7 - rank,
                }
            })
            .sum()
    }
}

/// The digit of a group whose pieces stand on `vals` (squares, less 8 for pawns): the square of
/// a lone piece, the combination index of several.
#[inline]
fn group_digit(g: &Group, vals: &mut [u8]) -> u64 {
    if g.len == 1 {
        u64::from(vals[0])
    } else {
        vals.sort_unstable();
        vals.iter()
            .enumerate()
            .map(|(i, &v)| BINOM[v as usize][i + 1])
            .sum()
    }
}

/// The reflection of the board through the long diagonal that holds `sq` (a1-h8 or a8-h1), as a
/// symmetry of `transform`; `None` when `sq` is on neither.
#[inline]
const fn diagonal_reflection(sq: u8) -> Option<u8> {
    let (f, r) = (sq & 7, sq >> 3);
    if f == r {
        Some(4)
    } else if f + r == 7 {
        Some(7)
    } else {
        None
    }
}

/// Whether the squares are all different.
#[inline]
fn no_overlap(squares: &[u8]) -> bool {
    let mut occ = 0u64;
    for &s in squares {
        let bit = 1u64 << (s & 63);
        if occ & bit != 0 {
            return false;
        }
        occ |= bit;
    }
    true
}

/// Writes the squares of group `g` with digit `gi` into `sq`.
#[inline]
fn decode_group(g: &Group, mut gi: u64, sq: &mut Squares) {
    let domain: u8 = if g.pawn { 48 } else { 64 };
    let offset = if g.pawn { 8 } else { 0 };
    if g.len == 1 {
        sq[g.start] = gi as u8 + offset;
    } else {
        let mut v = domain;
        for i in (0..g.len).rev() {
            v -= 1;
            while BINOM[v as usize][i + 1] > gi {
                v -= 1;
            }
            gi -= BINOM[v as usize][i + 1];
            sq[g.start + i] = v + offset;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry is its structure and its place in it, and back; a structure's mirror image
    /// has the same pawns on mirrored files and the same rank; the kings and pieces keep
    /// their digits.
    #[test]
    fn structures_split_and_join_every_entry() {
        for name in ["KPvK", "KPvKP", "KRPvKR", "KPPvKP", "KNPvKP"] {
            let ix = IndexScheme::new(name.parse().expect("material"));
            let (count, len) = (ix.structure_count(), ix.structure_len());
            assert_eq!(count * len, ix.size(), "{name}");
            let mut crossed = 0;
            for idx in (0..ix.size()).step_by(997) {
                let (s, r) = ix.split_structure(idx);
                assert!(s < count && r < len, "{name} {idx}");
                assert_eq!(ix.join_structure(s, r), idx, "{name} {idx}");
                if let Some(sq) = ix.decode(idx) {
                    let pawns = ix.structure_squares(s).expect("structure of an entry");
                    for i in 2..ix.piece_count() {
                        if ix.slots()[i].1 == Role::Pawn {
                            assert_eq!(sq[i], pawns[i], "{name} {idx}");
                        }
                    }
                    // The mirrored structure has the pawns on mirrored files and their rank.
                    let m = ix.mirrored_structure(s).expect("mirror");
                    let mirrored = ix.structure_squares(m).expect("mirrored squares");
                    // Identical pawns may change order: compare each colour's pawns as a set.
                    let set = |sq: &Squares, color: Color, flip: u8| -> u64 {
                        (2..ix.piece_count())
                            .filter(|&i| ix.slots()[i] == (color, Role::Pawn))
                            .fold(0, |b, i| b | 1 << (sq[i] ^ flip))
                    };
                    for color in Color::ALL {
                        assert_eq!(set(&mirrored, color, 0), set(&pawns, color, 7), "{name}");
                    }
                    assert_eq!(ix.structure_rank(m), ix.structure_rank(s), "{name} {idx}");
                    // The white king from the d file to the e file: the index mirrors the
                    // board, and the entry is in the mirrored structure.
                    let to = sq[0] + 1;
                    let free = (0..ix.piece_count()).all(|i| sq[i] != to);
                    if sq[0] & 7 == 3 && free && !kings_touch(to, sq[1]) {
                        let mut moved = sq;
                        moved[0] = to;
                        let (after, _) = ix.split_structure(ix.index(&moved).expect("index"));
                        assert_eq!(after, m, "{name} {idx}");
                        crossed += 1;
                    }
                }
            }
            assert!(
                crossed > 10,
                "{name}: {crossed} king moves across the middle"
            );
            for s in 0..count {
                if let Some(m) = ix.mirrored_structure(s) {
                    assert_eq!(ix.mirrored_structure(m), Some(s), "{name} {s}");
                }
            }
        }
        let pawnless = IndexScheme::new("KQvKR".parse().expect("material"));
        assert_eq!(pawnless.structure_count(), 1);
        assert_eq!(pawnless.split_structure(12345), (0, 12345));
    }

    #[test]
    fn a_pawn_move_raises_the_structure_rank() {
        let ix = IndexScheme::new("KPvKP".parse().expect("material"));
        // Slots: white king, black king, white pawn, black pawn.
        let sq = |wp: u8, bp: u8| -> Squares { [4, 60, wp, bp, 0, 0] };
        let rank = |wp, bp| {
            let idx = ix.index(&sq(wp, bp)).expect("index");
            ix.structure_rank(ix.split_structure(idx).0)
        };
        // e2 (rank 1 for white) and d7 (rank 1 for black).
        assert_eq!(rank(12, 51), 2);
        assert_eq!(rank(28, 51), 4); // e4
        assert_eq!(rank(28, 35), 6); // d5: three ranks from black's side
    }

    #[test]
    fn king_table_sizes() {
        assert_eq!(KINGS_PAWNLESS.len(), 462);
        assert_eq!(KINGS_PAWNS.len(), 1806);
    }

    #[test]
    fn square_classes_are_the_orbits_of_the_symmetries() {
        for (name, symmetries, classes) in [("KQvK", 0..8u8, 10), ("KPvK", 0..2u8, 32)] {
            let ix = IndexScheme::new(name.parse().expect("material"));
            let mut seen = std::collections::HashSet::new();
            for sq in 0..64u8 {
                let c = ix.square_class(sq);
                seen.insert(c);
                for t in symmetries.clone() {
                    assert_eq!(ix.square_class(transform(t, sq)), c, "{name} {sq} {t}");
                }
            }
            assert_eq!(seen.len(), classes, "{name}");
            // The white king of a placement is its own class's square.
            for &(wk, _) in ix.king_placements() {
                assert_eq!(ix.square_class(wk), wk, "{name}");
            }
            let kings = ix.king_placements().len() as u64;
            assert_eq!(kings * ix.king_stride(), ix.size(), "{name}");
        }
    }

    #[test]
    fn binomials() {
        assert_eq!(BINOM[64][2], 2016);
        assert_eq!(BINOM[48][2], 1128);
        assert_eq!(BINOM[64][3], 41664);
    }

    #[test]
    fn sizes() {
        let s = |n: &str| IndexScheme::new(n.parse().expect("material")).size();
        assert_eq!(s("KQvK"), 462 * 64);
        assert_eq!(s("KQQvK"), 462 * 2016);
        assert_eq!(s("KPvKP"), 1806 * 48 * 48);
        assert_eq!(s("KPPvK"), 1806 * 1128);
    }

    /// `for_each_used` visits exactly the entries `decode` accepts, with the same squares.
    #[test]
    fn for_each_used_agrees_with_decode() {
        for name in [
            "KQvK", "KRRvK", "KBvKN", "KPvKP", "KNPvK", "KPPvK", "KQRvKR",
        ] {
            let ix = IndexScheme::new(name.parse().expect("material"));
            let n = ix.piece_count();
            // Runs that start and end inside a run of the last digit, and one that ends past
            // the table.
            let starts = [0, 1, 63, 100_003, ix.size() / 2 + 5, ix.size() - 3000];
            for &start in &starts {
                let end = start + 2_500;
                let mut seen = Vec::new();
                ix.for_each_used(start, end, |i, sq| seen.push((i, sq[..n].to_vec())));
                let want: Vec<_> = (start..end.min(ix.size()))
                    .filter_map(|i| ix.decode(i).map(|sq| (i, sq[..n].to_vec())))
                    .collect();
                assert_eq!(seen, want, "{name} from {start}");
            }
        }
    }

    /// Every used entry decodes to a position whose index is the entry again, and every
    /// symmetric image of a decoded position has the same index.
    #[test]
    fn round_trip_and_symmetry() {
        for name in ["KQvK", "KRRvK", "KBvKN", "KPvKP", "KNPvK", "KPPvK"] {
            let m: Material = name.parse().expect("material");
            let ix = IndexScheme::new(m);
            let n = ix.piece_count();
            let mut used = 0u64;
            let step = (ix.size() / 20_000).max(1);
            let mut i = 0;
            while i < ix.size() {
                if let Some(sq) = ix.decode(i) {
                    used += 1;
                    assert_eq!(ix.index(&sq), Some(i), "{name} entry {i}");
                    let ts: &[u8] = if m.has_pawns() {
                        &[1]
                    } else {
                        &[1, 2, 3, 4, 5, 6, 7]
                    };
                    for &t in ts {
                        let mut img = sq;
                        for s in img.iter_mut().take(n) {
                            *s = transform(t, *s);
                        }
                        assert_eq!(ix.index(&img), Some(i), "{name} entry {i} under {t}");
                    }
                    // Incremental indices agree with full ones, kings included.
                    for slot in 0..n {
                        for to in 0..64u8 {
                            let mut moved = sq;
                            moved[slot] = to;
                            if sq[..n].contains(&to) {
                                continue;
                            }
                            if let Some(fast) = ix.moved(i, &sq, slot, to) {
                                assert_eq!(
                                    ix.index(&moved),
                                    Some(fast),
                                    "{name} entry {i} slot {slot} to {to}"
                                );
                            }
                        }
                    }
                    // Moving a lone piece changes the index by its stride.
                    for slot in 2..n {
                        if let Some(st) = ix.stride(&sq, slot) {
                            let mut moved = sq;
                            let to = if sq[slot] >= 16 && sq[slot] < 48 {
                                sq[slot] + 8
                            } else {
                                sq[slot]
                            };
                            moved[slot] = to;
                            let want =
                                (i as i64 + (to as i64 - sq[slot] as i64) * st as i64) as u64;
                            assert_eq!(
                                ix.index(&moved),
                                Some(want),
                                "{name} entry {i} slot {slot}"
                            );
                        }
                    }
                    // Identical pieces in another order.
                    let mut swapped = sq;
                    if n >= 4 && ix.slots()[2] == ix.slots()[3] {
                        swapped.swap(2, 3);
                        assert_eq!(ix.index(&swapped), Some(i));
                    }
                }
                i += step;
            }
            assert!(used > 0, "{name}");
        }
    }

    /// A small deterministic generator for the random tests (xorshift64*).
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) % n
        }
    }

    /// Whether `b` is `a` under the symmetry `t`, identical pieces in any order.
    fn is_image(ix: &IndexScheme, a: &Squares, b: &Squares, t: u8) -> bool {
        let kings = (0..2).all(|k| transform(t, a[k]) == b[k]);
        kings
            && ix.groups().iter().all(|g| {
                let range = g.start..g.start + g.len;
                let mut x: Vec<u8> = a[range.clone()].iter().map(|&s| transform(t, s)).collect();
                let mut y = b[range].to_vec();
                x.sort_unstable();
                y.sort_unstable();
                x == y
            })
    }

    /// The 6-piece index (identical pieces among them): random entries decode to positions
    /// whose index, in every orientation, is the entry again; and random placements (every
    /// placement of the pieces on distinct squares with the kings apart, so every legal
    /// position among them) have an index, which decodes to an image of the placement.
    #[test]
    fn six_piece_index_round_trips_on_random_positions() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for name in ["KRNvKNN", "KQRvKQR", "KBBvKNN", "KRRvKRR", "KQQQvKR"] {
            let m: Material = name.parse().expect("material");
            let ix = IndexScheme::new(m);
            let n = ix.piece_count();
            assert_eq!(n, 6, "{name}");
            let mut used = 0;
            for _ in 0..20_000 {
                let i = rng.below(ix.size());
                let Some(sq) = ix.decode(i) else { continue };
                used += 1;
                for t in 0..8 {
                    let mut img = sq;
                    for s in img.iter_mut().take(n) {
                        *s = transform(t, *s);
                    }
                    assert_eq!(ix.index(&img), Some(i), "{name} entry {i} under {t}");
                }
            }
            assert!(used > 10_000, "{name}: {used} of 20,000 entries used");
            let mut placed = 0;
            while placed < 20_000 {
                let mut sq = [0u8; MAX_PIECES];
                for s in sq.iter_mut().take(n) {
                    *s = rng.below(64) as u8;
                }
                if !no_overlap(&sq[..n]) || kings_touch(sq[0], sq[1]) {
                    continue;
                }
                placed += 1;
                let i = ix
                    .index(&sq)
                    .unwrap_or_else(|| panic!("{name}: no index for {sq:?}"));
                assert!(i < ix.size(), "{name}");
                let back = ix
                    .decode(i)
                    .unwrap_or_else(|| panic!("{name}: entry {i} of {sq:?} unused"));
                assert!(
                    (0..8).any(|t| is_image(&ix, &sq, &back, t)),
                    "{name}: {sq:?} came back as {back:?}"
                );
            }
        }
    }
}
