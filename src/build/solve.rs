//! Retrograde analysis of one material.
//!
//! 1. Init, one parallel pass over every entry of both sides to move: unused entries and
//!    positions whose side not to move is in check are skipped; for the others the legal moves
//!    are generated once. Captures and promotions leave the material and are looked up in the
//!    sub-tables ("exits"); the other moves stay in the table and are counted (as distinct
//!    successor entries). Checkmates are losses in 0; a winning exit seeds a win at its depth; a
//!    drawing exit (or stalemate) means the position can never be lost.
//! 2. Depth by depth, from the positions decided at depth `d` only, un-moves generate the
//!    predecessors: a predecessor of a loss is a win in `d + 1`; a predecessor of a win has its
//!    counter lowered, and when it reaches zero the predecessor is lost in
//!    `max(d, longest losing exit) + 1`. A loss later than `d + 1` is decided at once (its value
//!    is final) and joins the frontier at its depth (kept in a bucket till then).
//! 3. What is never decided is a draw.
//!
//! Speed: the positions decided at one depth are a bitmap per side, read in index order, so
//! that neighbouring nodes have neighbouring predecessors (the same cache lines and pages). A
//! node's predecessors are generated and their cells prefetched before the previous node's are
//! updated (a software pipeline), and a bitmap of decided entries, small enough to stay in the
//! processor's cache, drops most predecessors of a loss (they are mostly faster wins already)
//! before their cells are touched; for a piece whose un-moves reach entries far apart, a second
//! bitmap of the same bits by lines of that piece (`LineBits`) drops them all with one load. The
//! passes split their nodes by the square class of the king of the side to move, whose
//! predecessors no other task touches, so cells and bits are updated with plain stores, without
//! the atomic read-modify-write operations that stall a thread's outstanding cache misses; the
//! seeds of a depth are completed the same way, in runs split at king placements.
//!
//! En passant: a double push that allows an en passant capture leads to a virtual node, the
//! position with the capture available, worth the better (for the side to move) of the table
//! entry and the capture. It is no entry of its own; its value is propagated at the right depth
//! either with its table entry (when that is at least as good as the capture) or from a seed at
//! the capture's depth.

#![allow(clippy::needless_range_loop)] // slots index several parallel arrays

use std::sync::{
    atomic::{AtomicBool, AtomicU16, AtomicU64, AtomicUsize, Ordering::Relaxed},
    Mutex,
};

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use shakmaty::{attacks, Color, Role};

use super::atomics::{Atomics, Pages};
use crate::tablebase::{
    index::{transform, IndexScheme, Scheme, Squares},
    material::{key_of_piece, Material, MAX_PIECES},
    pieces::{attacked, attacks_from, occupancy, slot_key, square},
    probe::probe_in,
    Tables, Value, Wdl,
};

/// Added to a counter when the position has a non-losing exit, so it never reaches zero.
const CANT_LOSE: u8 = 128;

/// The low byte of a decided entry's cell (no counter takes this value: see `MAX_KEYS`).
const DECIDED: u8 = 0xFF;

/// The most in-table successors a position may count, so that `CANT_LOSE` plus the count stays
/// below `DECIDED` (a 5-piece position has at most 89 moves: three queens and a king).
const MAX_KEYS: usize = 126;

/// Entries per parallel task in the init pass.
const CHUNK: u64 = 1 << 14;

/// A decided node: entry index, side to move (bit 40) and, for an en passant node, the file of
/// the pawn that can be taken plus one (bits 41..45).
type Item = u64;

const fn item(idx: u64, side: usize, ep: u8) -> Item {
    idx | ((side as u64) << 40) | ((ep as u64) << 41)
}

const fn item_idx(it: Item) -> u64 {
    it & ((1 << 40) - 1)
}

const fn item_side(it: Item) -> usize {
    ((it >> 40) & 1) as usize
}

const fn item_ep(it: Item) -> u8 {
    ((it >> 41) & 15) as u8
}

/// A seed while the init pass runs: the item of entry `idx` (below 2^31) and side, with the
/// depth in bits 48...
#[inline]
fn seed(plies: u32, idx: u64, side: usize) -> u64 {
    (u64::from(plies) << 48) | item(idx, side, 0)
}

/// A seed as kept in its depth's bucket: the entry, and the side in bit 31.
#[inline]
fn seed32(p: u64) -> u32 {
    (item_idx(p & ((1 << 48) - 1)) as u32 & 0x7FFF_FFFF) | ((item_side(p) as u32) << 31)
}

/// The item of a bucketed seed.
#[inline]
fn item_of_seed(s: u32) -> Item {
    item(u64::from(s & 0x7FFF_FFFF), (s >> 31) as usize, 0)
}

/// What the init pass finds in one chunk: mates, seeds (with their depth in bits 48..) and
/// en passant seeds.
type InitPart = (Vec<Item>, Vec<u64>, Vec<(usize, Item)>);

/// What the init pass gathers over one chunk of entries (from `start`).
struct InitFound {
    start: u64,
    mates: Vec<Item>,
    /// Seeds with their depth in bits 48...
    seeds: Vec<u64>,
    ep_seeds: Vec<(usize, Item)>,
    /// Legal positions per side to move.
    legal: [u64; 2],
    /// Per side to move, a bit per legal entry of the chunk.
    bits: [[u64; (CHUNK / 64) as usize]; 2],
    summary: MoveSummary,
}

impl InitFound {
    fn new(start: u64) -> InitFound {
        InitFound {
            start,
            mates: Vec::new(),
            seeds: Vec::new(),
            ep_seeds: Vec::new(),
            legal: [0; 2],
            bits: [[0; (CHUNK / 64) as usize]; 2],
            summary: MoveSummary::new(),
        }
    }
}

/// A bitmap of `entries` bits, all clear (the larger tables need tens of MB: see `Atomics`).
fn zeroed_bits(entries: u64) -> Atomics<AtomicU64> {
    Atomics::zeroed(entries.div_ceil(64) as usize, Pages::Huge)
}

/// The decided bits of one side's entries again, arranged so that one word holds the 64
/// entries that differ only in the square of one piece (a lone piece other than a king or pawn,
/// whose index digit is its square): the predecessors of a lost node by un-moves of that piece
/// all lie in one word, and one load tells which of them are still undecided, where the decided
/// bitmap would take a load per predecessor, each in a cache line of its own.
struct LineBits {
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
    fn new(ix: &IndexScheme, slot: usize) -> Option<LineBits> {
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

    /// Sets the bit of decided entry `idx`, atomically.
    #[inline]
    fn set(&self, idx: u64) {
        let (w, bit) = self.locate(idx);
        if let Some(word) = self.bits.get(w) {
            word.fetch_or(bit, Relaxed);
        }
    }

    /// Sets the bit of decided entry `idx` by a plain store: only for a caller that alone
    /// touches the line's entries (a line lies within one king placement: see `partitions`).
    #[inline]
    fn set_owned(&self, idx: u64) {
        let (w, bit) = self.locate(idx);
        if let Some(word) = self.bits.get(w) {
            word.store(word.load(Relaxed) | bit, Relaxed);
        }
    }

    /// The squares whose entries on `idx`'s line are decided, as far as the bits go.
    #[inline]
    fn decided_squares(&self, idx: u64) -> u64 {
        let (w, _) = self.locate(idx);
        self.bits.get(w).map_or(0, |word| word.load(Relaxed))
    }
}

/// Division of entry numbers (below 2^31, see `solve`) by a fixed divisor, as a multiplication:
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

/// The entries decided at one depth: a bit per entry and side to move.
struct Frontier {
    bits: [Atomics<AtomicU64>; 2],
}

impl Frontier {
    fn new(size: u64) -> Frontier {
        Frontier {
            bits: [zeroed_bits(size), zeroed_bits(size)],
        }
    }

    /// Marks entry `idx` of `side`; `true` if it was not marked yet.
    #[inline]
    fn mark(&self, side: usize, idx: u64) -> bool {
        let bit = 1u64 << (idx % 64);
        self.bits[side][(idx / 64) as usize].fetch_or(bit, Relaxed) & bit == 0
    }

    /// About how many entries of `side` in `first..last` are marked: the marks in one word of
    /// every 16, times 16.
    fn sample(&self, side: usize, first: u64, last: u64) -> u64 {
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
    /// word shared with a neighbouring range, by an atomic `and`.
    fn take_range(&self, side: usize, first: u64, last: u64, mut f: impl FnMut(u64)) {
        let Some(bits) = self.bits[side].get(..last.div_ceil(64) as usize) else {
            return;
        };
        for wi in first / 64..last.div_ceil(64) {
            let base = wi * 64;
            let lo = first.max(base) - base;
            let hi = last.min(base + 64) - base;
            let mask = (!0u64 >> (64 - (hi - lo))) << lo;
            let w = &bits[wi as usize];
            let mut word = w.load(Relaxed) & mask;
            if word == 0 {
                continue;
            }
            if mask == !0 {
                w.store(0, Relaxed);
            } else {
                w.fetch_and(!mask, Relaxed);
            }
            while word != 0 {
                let b = u64::from(word.trailing_zeros());
                word &= word - 1;
                f(base + b);
            }
        }
    }
}

/// The resident memory of this process, for the logs.
pub fn memory_in_use() -> String {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or_else(
            || "resident memory unknown".to_string(),
            |pages| format!("{} MB resident", pages * 4096 / 1_000_000),
        )
}

const fn color_of(side: usize) -> Color {
    if side == 0 {
        Color::White
    } else {
        Color::Black
    }
}

/// Why a material could not be solved.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// A sub-table could not be read during the build.
    #[error("while solving {material}: {source}")]
    SubTable {
        /// The material being solved.
        material: String,
        /// What went wrong with the sub-table.
        source: SubTableError,
    },
    /// A mate longer than the value byte holds.
    #[error("{0}: a mate is longer than 254 plies, which the format cannot store")]
    Overflow(String),
}

/// What went wrong with a sub-table during a solve.
#[derive(Debug, thiserror::Error)]
pub enum SubTableError {
    /// It could not be opened.
    #[error(transparent)]
    Open(#[from] crate::tablebase::TableError),
    /// A probe of it failed.
    #[error(transparent)]
    Probe(#[from] crate::tablebase::ProbeError),
    /// No plan maps positions of this kind of exit to a sub-table.
    #[error("no exit plan for slot {slot} and {promotion:?}")]
    NoExitPlan {
        /// The slot of the piece captured (`usize::MAX` for none).
        slot: usize,
        /// The promoting pawn's slot and the piece it becomes.
        promotion: Option<(usize, Role)>,
    },
}

/// A stage of a solve, for which the caller supplies the sub-tables (so that only what a stage
/// needs is in memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The init pass over the entries with white (0) or black (1) to move: exits are moves of
    /// that side, to tables with the other side to move.
    Init(usize),
    /// The init pass over the entries with either side to move, for material without pawns:
    /// exits are moves of either side.
    InitBoth,
    /// The retrograde passes: exits are en passant captures only.
    Retro,
}

/// The result of solving a material.
pub struct Solved {
    /// Values with white to move, one byte per entry.
    pub white: Vec<u8>,
    /// Values with black to move.
    pub black: Vec<u8>,
    /// Legal positions per side to move.
    pub positions: [u64; 2],
    /// Per side, a bit per entry (bit `i % 64` of word `i / 64`) set when it is a legal position.
    pub legal: [Vec<u64>; 2],
}

/// How a position's in-table moves are counted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keys {
    /// One per move.
    Count,
    /// One per distinct successor entry.
    Dedupe,
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

/// Asks the processor to start loading `cells[i]` into the cache.
#[inline]
fn prefetch(cells: &[AtomicU16], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(c) = cells.get(i) {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE, which the intrinsic needs, is part of every x86_64 processor; a prefetch
        // is a hint that neither reads into the program nor faults, and the address is that of a
        // live element.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((c as *const AtomicU16).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (cells, i);
}

/// A decided entry's cell: its value in the high byte, `DECIDED` in the low byte.
#[inline]
const fn decided_cell(v: Value) -> u16 {
    ((v.to_byte() as u16) << 8) | DECIDED as u16
}

/// An undecided entry's cell: half the plies of its longest losing exit in the high byte (0
/// when it cannot lose), its counter in the low byte.
#[inline]
const fn open_cell(half_exit_loss: u8, counter: u8) -> u16 {
    ((half_exit_loss as u16) << 8) | counter as u16
}

/// Whether a cell holds a decided entry.
#[inline]
const fn is_decided(cell: u16) -> bool {
    cell & 0xFF == DECIDED as u16
}

/// The value of a cell: a draw while undecided.
#[inline]
const fn cell_value(cell: u16) -> Value {
    if is_decided(cell) {
        Value::from_byte((cell >> 8) as u8)
    } else {
        Value::DRAW
    }
}

/// Summary of one position's moves.
struct MoveSummary {
    /// Number of legal moves.
    moves: u32,
    /// Best value of a move leaving the table.
    best_exit: Option<Value>,
    /// Longest loss through an exit (plies, for the mover).
    longest_losing_exit: u32,
    /// Distinct in-table successors.
    keys: [u64; 128],
    nkeys: usize,
}

impl MoveSummary {
    fn new() -> MoveSummary {
        MoveSummary {
            moves: 0,
            best_exit: None,
            longest_losing_exit: 0,
            keys: [0; 128],
            nkeys: 0,
        }
    }
}

/// The predecessors of one decided node, before their cells are updated.
struct Preds {
    /// Predecessor entries (distinct when they could coincide).
    preds: [u64; 160],
    np: usize,
    /// Predecessors through an en passant node.
    ep_preds: [u64; 8],
    nep: usize,
    /// The side to move in the predecessors.
    mover: usize,
    /// Predecessors generated, before those known to be decided were dropped.
    generated: usize,
}

impl Preds {
    fn new() -> Preds {
        Preds {
            preds: [0; 160],
            np: 0,
            ep_preds: [0; 8],
            nep: 0,
            mover: 0,
            generated: 0,
        }
    }
}

/// Un-moves from nodes decided at one depth, as a software pipeline: the predecessors of one
/// node are generated (and their cells prefetched) before those of the node before it are
/// updated.
struct Pipeline<'a, T: Tables + Sync + Default> {
    solver: &'a Solver<T>,
    d: usize,
    next: &'a Frontier,
    found: [Preds; 2],
    k: usize,
    pending: bool,
    /// Predecessors newly marked in `next`.
    fresh: u64,
    /// Work done, for the logs.
    tally: Tally,
    /// Losses that their exits make longer, with their depth.
    later: Vec<(usize, Item)>,
    /// What this task alone touches during the pass (see `partitions`).
    access: Access,
}

/// What one task of a retrograde pass may update without atomic read-modify-write operations,
/// which on this hardware stall the thread's outstanding cache misses.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Access {
    /// Nothing: other tasks may update the same predecessors.
    Shared,
    /// The cells of the predecessors it updates.
    Cells,
    /// Those cells and their bits in the decided and frontier bitmaps.
    CellsAndBits,
}

impl<'a, T: Tables + Sync + Default> Pipeline<'a, T> {
    fn new(solver: &'a Solver<T>, d: usize, next: &'a Frontier, access: Access) -> Self {
        Pipeline {
            solver,
            d,
            next,
            found: [Preds::new(), Preds::new()],
            k: 0,
            pending: false,
            fresh: 0,
            tally: Tally::default(),
            later: Vec::new(),
            access,
        }
    }

    #[inline]
    fn push(&mut self, it: Item) {
        let k = self.k;
        self.solver.retro(it, self.d, &mut self.found[k]);
        let f = &self.found[k];
        self.tally.nodes += 1;
        self.tally.generated += f.generated as u64;
        self.tally.updated += (f.np + f.nep) as u64;
        if self.pending {
            self.update(1 - k);
        }
        self.pending = true;
        self.k = 1 - k;
    }

    /// Updates the predecessors in `found[k]`.
    #[inline]
    fn update(&mut self, k: usize) {
        self.solver.update_all(
            &self.found[k],
            self.d,
            self.next,
            &mut self.fresh,
            &mut self.later,
            self.access,
        );
    }

    /// Updates what is still pending; the marked count, the late losses and the work done.
    fn finish(mut self) -> (u64, Vec<(usize, Item)>, Tally) {
        if self.pending {
            self.update(1 - self.k);
        }
        (self.fresh, self.later, self.tally)
    }
}

/// Work of the retrograde passes, for the logs.
#[derive(Clone, Copy, Default)]
struct Tally {
    /// Decided nodes un-moved.
    nodes: u64,
    /// Predecessors generated.
    generated: u64,
    /// Predecessors updated (not known to be decided when generated).
    updated: u64,
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, o: Tally) {
        self.nodes += o.nodes;
        self.generated += o.generated;
        self.updated += o.updated;
    }
}

/// The roles a pawn promotes to, in the order of `plan_slot`.
const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

/// Where the plan of an exit is kept: capture of slot `skip` (`usize::MAX`: none) and the
/// promotion `promo`.
#[inline]
fn plan_slot(skip: usize, promo: Option<(usize, Role)>) -> usize {
    let s = skip.min(MAX_PIECES);
    let p = match promo {
        None => 0,
        Some((slot, role)) => {
            let r = PROMOTIONS.iter().position(|&x| x == role).unwrap_or(0);
            1 + slot.min(MAX_PIECES - 1) * 4 + r
        }
    };
    s * (1 + 4 * MAX_PIECES) + p
}

/// How the pieces after one kind of exit map onto its sub-table: the sub-table's material key,
/// and for each of its slots the slot of this table the piece comes from, in the sub-table's
/// orientation (`order[0]`) and in the colour-swapped one (`order[1]`).
#[derive(Clone, Copy)]
struct ExitPlan {
    key: u64,
    len: usize,
    order: [[u8; MAX_PIECES]; 2],
}

impl ExitPlan {
    fn new(slots: &[(Color, Role)], skip: usize, promo: Option<(usize, Role)>) -> ExitPlan {
        let pieces: Vec<(usize, Color, Role)> = slots
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != skip)
            .map(|(i, &(c, r))| match promo {
                Some((slot, role)) if slot == i => (i, c, role),
                _ => (i, c, r),
            })
            .collect();
        let key = pieces.iter().map(|&(_, c, r)| key_of_piece(c, r)).sum();
        let mut order = [[0u8; MAX_PIECES]; 2];
        for (swap, o) in order.iter_mut().enumerate() {
            let mut sorted = pieces.clone();
            // Stable, as `to_slots` is: identical pieces keep their order.
            sorted.sort_by_key(|&(_, c, r)| slot_key(if swap == 1 { c.other() } else { c }, r));
            for (k, &(i, _, _)) in sorted.iter().enumerate() {
                o[k] = i as u8;
            }
        }
        ExitPlan {
            key,
            len: pieces.len(),
            order,
        }
    }
}

/// The plans of every exit of a material, by `plan_slot` (`None` where no exit is).
fn exit_plans(slots: &[(Color, Role)]) -> Vec<Option<ExitPlan>> {
    let n = slots.len();
    let mut plans = vec![None; plan_slot(MAX_PIECES, Some((MAX_PIECES - 1, Role::Knight))) + 1];
    for skip in (2..n).chain([usize::MAX]) {
        plans[plan_slot(skip, None)] = Some(ExitPlan::new(slots, skip, None));
        for (i, &(_, r)) in slots.iter().enumerate() {
            if r != Role::Pawn || i == skip {
                continue;
            }
            for role in PROMOTIONS {
                let promo = Some((i, role));
                plans[plan_slot(skip, promo)] = Some(ExitPlan::new(slots, skip, promo));
            }
        }
    }
    plans
}

/// Solves materials into byte tables.
pub struct Solver<T: Tables + Sync + Default> {
    material: Material,
    ix: IndexScheme,
    slots: Vec<(Color, Role)>,
    n: usize,
    /// The tables exits are looked up in, for the current stage.
    sub: T,
    /// Per entry, two bytes. Undecided: the count of in-table successors not yet known to be
    /// won by the opponent (low byte, plus `CANT_LOSE` when an exit saves the position) and half
    /// the plies of the longest losing exit (high byte). Decided: `DECIDED` (low byte) and the
    /// value (high byte).
    cells: [Atomics<AtomicU16>; 2],
    /// Per side, a bit per decided entry: 16 times smaller than `cells`, so that it mostly
    /// stays in the processor's cache and most predecessors that need no update cost no memory
    /// access.
    decided: [Atomics<AtomicU64>; 2],
    /// Per side, per slot of a piece of that side, the decided bits by lines of that piece
    /// (see `LineBits`), for the passes from losses, whose predecessors are mostly decided.
    lines: [Vec<Option<LineBits>>; 2],
    /// How each kind of exit is looked up (see `exit_plans`).
    plans: Vec<Option<ExitPlan>>,
    sub_error: Mutex<Option<SubTableError>>,
    overflow: AtomicBool,
}

impl<T: Tables + Sync + Default> Solver<T> {
    /// A solver for `material` (canonical) that looks exits up in `sub`.
    pub fn new(material: Material, sub: T) -> Solver<T> {
        let ix = IndexScheme::new(material);
        let size = ix.size() as usize;
        let mk16 = || {
            // Default pages: on the virtual machine this was measured on, faulting in the cells
            // as huge pages cost more than the TLB misses they save in the passes (KQRvKR
            // solve, interleaved: 12.03-12.24 s with them, 11.66-11.97 s without).
            let cells = Atomics::<AtomicU16>::zeroed(size, Pages::Default);
            cells
                .par_iter()
                .for_each(|c| c.store(open_cell(0, CANT_LOSE), Relaxed));
            cells
        };
        let lines = [0, 1].map(|side| {
            (0..ix.piece_count())
                .map(|slot| {
                    (ix.slots()[slot].0 == color_of(side))
                        .then(|| LineBits::new(&ix, slot))
                        .flatten()
                })
                .collect()
        });
        Solver {
            material,
            slots: ix.slots().to_vec(),
            plans: exit_plans(ix.slots()),
            n: ix.piece_count(),
            ix,
            sub,
            cells: [mk16(), mk16()],
            decided: [zeroed_bits(size as u64), zeroed_bits(size as u64)],
            lines,
            sub_error: Mutex::new(None),
            overflow: AtomicBool::new(false),
        }
    }

    /// Keeps the first sub-table error, for [`Solver::check_errors`] to report.
    fn note_sub_error(&self, e: SubTableError) {
        if let Ok(mut g) = self.sub_error.lock() {
            if g.is_none() {
                *g = Some(e);
            }
        }
    }

    /// The value of a position outside this table, for the side to move (`side`): the position
    /// `sq` without the piece in slot `skip` (`usize::MAX` for none) and with the pawn in
    /// `promo.0` promoted to `promo.1`. Probed as [`crate::tablebase::lookup`] does, with the
    /// sub-table's material and slot order worked out once per kind of exit (see `ExitPlan`).
    fn exit_value(
        &self,
        sq: &Squares,
        skip: usize,
        promo: Option<(usize, Role)>,
        side: usize,
    ) -> Value {
        let Some(Some(plan)) = self.plans.get(plan_slot(skip, promo)) else {
            self.note_sub_error(SubTableError::NoExitPlan {
                slot: skip,
                promotion: promo,
            });
            return Value::DRAW;
        };
        if plan.key == 0 {
            return Value::DRAW; // bare kings
        }
        let probed = self.sub.table_by_key(plan.key).and_then(|(table, swap)| {
            let order = &plan.order[usize::from(swap)];
            let mut mapped = [0u8; MAX_PIECES];
            for k in 0..plan.len {
                let s = sq[usize::from(order[k])];
                mapped[k] = if swap { s ^ 56 } else { s };
            }
            probe_in(table, &mapped, (side == 0) ^ swap)
        });
        match probed {
            Ok(v) => v,
            Err(e) => {
                self.note_sub_error(e.into());
                Value::DRAW
            }
        }
    }

    /// The value of the move to a child outside the table, for the mover.
    fn exit_move_value(&self, child: Value) -> Value {
        match Value::from_child(child) {
            Some(v) => v,
            None => {
                self.overflow.store(true, Relaxed);
                Value::DRAW
            }
        }
    }

    /// Whether the king of `side` is attacked in `sq` with `occ`, ignoring slot `skip`.
    #[inline]
    fn in_check(&self, sq: &Squares, side: usize, occ: u64, skip: usize) -> bool {
        attacked(&self.slots, sq, sq[side], color_of(1 - side), occ, skip)
    }

    /// En passant after `side`'s opponent pushed the pawn in slot `pawn` two squares: `None` if
    /// no legal capture exists, else the best capture's value for `side` (to move).
    fn ep_value(&self, sq: &Squares, side: usize, pawn: usize) -> Option<Value> {
        let to = sq[pawn];
        let target = if side == 0 { to + 8 } else { to - 8 };
        let occ = occupancy(sq, self.n);
        let mut best: Option<Value> = None;
        for i in 0..self.n {
            let (c, r) = self.slots[i];
            if c != color_of(side) || r != Role::Pawn {
                continue;
            }
            let from = sq[i];
            if from >> 3 != to >> 3 || (from & 7).abs_diff(to & 7) != 1 {
                continue;
            }
            let mut after = *sq;
            after[i] = target;
            let occ2 = (occ & !(1u64 << from) & !(1u64 << to)) | (1u64 << target);
            if self.in_check(&after, side, occ2, pawn) {
                continue;
            }
            let child = self.exit_value(&after, pawn, None, 1 - side);
            let v = self.exit_move_value(child);
            best = Some(best.map_or(v, |b| b.max(v)));
        }
        best
    }

    /// Seeds the en passant nodes of entry `idx` (`side` to move) whose capture decides them:
    /// for each pawn of the other side that may just have pushed two squares, the node with the
    /// capture available, at the capture's depth, unless the capture draws.
    fn seed_ep_nodes(
        &self,
        sq: &Squares,
        occ: u64,
        idx: u64,
        side: usize,
        out: &mut Vec<(usize, Item)>,
    ) {
        if self.material.pawn_count() < 2 {
            return;
        }
        let other = 1 - side;
        for i in 0..self.n {
            if self.slots[i] != (color_of(other), Role::Pawn) {
                continue;
            }
            let s = sq[i];
            let (rank4, back1, back2) = if other == 0 {
                (3, s.wrapping_sub(8), s.wrapping_sub(16))
            } else {
                (4, s + 8, s + 16)
            };
            if s >> 3 != rank4 || occ & ((1u64 << back1) | (1u64 << back2)) != 0 {
                continue;
            }
            if let Some(v) = self.ep_value(sq, side, i) {
                if v.wdl() != Wdl::Draw {
                    out.push((v.plies() as usize, item(idx, side, (s & 7) + 1)));
                }
            }
        }
    }

    /// Generates the legal moves of `side` in the decoded position `sq` (entry `idx`): exits
    /// are valued; in-table moves are counted (`Keys::Count`) or recorded as distinct entries
    /// (`Keys::Dedupe`). `false`, with `out` untouched, when the position is no legal one (the
    /// king of the side not to move is attacked): the mover's attacks are computed once, for
    /// that test and for the moves.
    fn summarize(
        &self,
        sq: &Squares,
        idx: u64,
        side: usize,
        keys: Keys,
        out: &mut MoveSummary,
    ) -> bool {
        let me = color_of(side);
        let occ = occupancy(sq, self.n);
        let their_king = 1u64 << sq[1 - side];
        let mut own = 0u64;
        let mut own_attacks = [0u64; MAX_PIECES];
        for i in 0..self.n {
            let (c, r) = self.slots[i];
            if c == me {
                own |= 1u64 << sq[i];
                let a = attacks_from(c, r, sq[i], occ);
                if a & their_king != 0 {
                    return false;
                }
                own_attacks[i] = a;
            }
        }
        out.moves = 0;
        out.best_exit = None;
        out.longest_losing_exit = 0;
        out.nkeys = 0;
        let king = side; // slot of the mover's king
        let ksq = sq[king];
        let kbit = 1u64 << ksq;
        // Squares the enemy attacks with our king lifted, and pinned pieces with their lines.
        let mut danger = 0u64;
        let mut pinned = 0u64;
        let mut pin_lines = [0u64; MAX_PIECES];
        // The squares a move other than the king's must reach when in check: the checker's, or
        // one between it and the king; none in double check.
        let mut evasions = !0u64;
        let mut checkers = 0u32;
        for j in 0..self.n {
            let (c, r) = self.slots[j];
            if c == me {
                continue;
            }
            // With the king lifted, a piece attacks its square exactly when it gives check.
            let a = attacks_from(c, r, sq[j], occ & !kbit);
            danger |= a;
            let (ks, js) = (square(ksq), square(sq[j]));
            if a & kbit != 0 {
                checkers += 1;
                evasions = if checkers == 1 {
                    (1u64 << sq[j]) | attacks::between(ks, js).0
                } else {
                    0
                };
            }
            let lines = match r {
                Role::Rook => ks.file() == js.file() || ks.rank() == js.rank(),
                Role::Bishop => ks.file() != js.file() && ks.rank() != js.rank(),
                Role::Queen => true,
                _ => false,
            };
            if lines && attacks::ray(ks, js).any() {
                let between = attacks::between(ks, js).0;
                let blockers = between & occ;
                if blockers.count_ones() == 1 && blockers & own != 0 {
                    pinned |= blockers;
                    let slot = (0..self.n).find(|&k| sq[k] == blockers.trailing_zeros() as u8);
                    if let Some(k) = slot {
                        pin_lines[k] = between | (1u64 << sq[j]);
                    }
                }
            }
        }
        for i in 0..self.n {
            let (c, role) = self.slots[i];
            if c != me {
                continue;
            }
            let from = sq[i];
            let mut targets;
            let mut double = 0u64;
            if role == Role::Pawn {
                let (fwd, start_rank): (i8, u8) = if side == 0 { (8, 1) } else { (-8, 6) };
                let one = (from as i8 + fwd) as u8;
                targets = own_attacks[i] & occ & !own;
                if occ & (1u64 << one) == 0 {
                    targets |= 1u64 << one;
                    if from >> 3 == start_rank {
                        let two = (one as i8 + fwd) as u8;
                        if occ & (1u64 << two) == 0 {
                            double = 1u64 << two;
                            targets |= double;
                        }
                    }
                }
            } else {
                targets = own_attacks[i] & !own;
            }
            if i == king {
                targets &= !danger;
            } else {
                targets &= evasions;
                if pinned & (1u64 << from) != 0 {
                    targets &= pin_lines[i];
                }
            }
            if keys == Keys::Count {
                // Every target is legal here: count the quiet moves at once and enumerate only
                // the captures and promotions.
                let promo_ranks = if role == Role::Pawn {
                    0xFF00_0000_0000_00FFu64
                } else {
                    0
                };
                let quiet = targets & !occ & !promo_ranks;
                let n = quiet.count_ones();
                out.moves += n;
                out.nkeys += n as usize;
                targets &= !quiet;
            }
            while targets != 0 {
                let to = targets.trailing_zeros() as u8;
                targets &= targets - 1;
                let to_bit = 1u64 << to;
                let captured = if occ & to_bit != 0 {
                    (0..self.n).find(|&j| sq[j] == to)
                } else {
                    None
                };
                if let Some(j) = captured {
                    if j < 2 {
                        continue; // a king cannot be taken in a legal position
                    }
                }
                let mut after = *sq;
                after[i] = to;
                let skip = captured.unwrap_or(usize::MAX);
                out.moves += 1;
                let promotes = role == Role::Pawn && (to >> 3 == 7 || to >> 3 == 0);
                if promotes {
                    for p in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                        let child = self.exit_value(&after, skip, Some((i, p)), 1 - side);
                        self.add_exit(out, self.exit_move_value(child));
                    }
                    out.moves += 3;
                } else if captured.is_some() {
                    let child = self.exit_value(&after, skip, None, 1 - side);
                    self.add_exit(out, self.exit_move_value(child));
                } else {
                    match keys {
                        Keys::Count => out.nkeys += 1,
                        Keys::Dedupe => {
                            let child = self
                                .ix
                                .moved(idx, sq, i, to)
                                .or_else(|| self.ix.index(&after));
                            let Some(child) = child else {
                                continue;
                            };
                            let mut key = child;
                            if double & to_bit != 0 && self.ep_value(&after, 1 - side, i).is_some()
                            {
                                key = item(child, 0, (to & 7) + 1);
                            }
                            if !out.keys[..out.nkeys].contains(&key) && out.nkeys < out.keys.len() {
                                out.keys[out.nkeys] = key;
                                out.nkeys += 1;
                            }
                        }
                    }
                }
            }
        }
        true
    }

    /// Initializes entry `idx` (position `sq`) with `side` to move: its cell, or a seed or a
    /// mate in `found`, from its moves; nothing when the position is illegal.
    fn init_entry(&self, sq: &Squares, idx: u64, side: usize, found: &mut InitFound) {
        let summary = &mut found.summary;
        if !self.summarize(sq, idx, side, self.keys_mode(sq, side), summary) {
            return; // the side not to move is in check
        }
        found.legal[side] += 1;
        found.bits[side][((idx - found.start) / 64) as usize] |= 1 << (idx % 64);
        let occ = occupancy(sq, self.n);
        // Before anything else: the entry may be checkmate or stalemate without the capture (a
        // double push that checks, with the capture as the only reply), and its node still
        // needs its seed.
        self.seed_ep_nodes(sq, occ, idx, side, &mut found.ep_seeds);
        let cell = &self.cells[side][idx as usize];
        if summary.moves == 0 {
            if self.in_check(sq, side, occ, usize::MAX) {
                cell.store(decided_cell(Value::MATED), Relaxed);
                self.note_decided(side, idx as usize);
                found.mates.push(item(idx, side, 0));
            }
            return;
        }
        if summary.nkeys > MAX_KEYS {
            self.overflow.store(true, Relaxed);
            return;
        }
        match summary.best_exit.map(Value::wdl) {
            Some(Wdl::Win) | Some(Wdl::Draw) => {
                if let Some(v) = summary.best_exit.filter(|v| v.wdl() == Wdl::Win) {
                    found.seeds.push(seed(v.plies(), idx, side));
                }
                cell.store(open_cell(0, CANT_LOSE + summary.nkeys as u8), Relaxed);
            }
            _ => {
                if summary.nkeys == 0 && summary.best_exit.is_some() {
                    found
                        .seeds
                        .push(seed(summary.longest_losing_exit, idx, side));
                } else {
                    // A losing exit takes at most 254 plies: the half fits a byte.
                    let half = (summary.longest_losing_exit / 2).min(127) as u8;
                    cell.store(open_cell(half, summary.nkeys as u8), Relaxed);
                }
            }
        }
    }

    /// How in-table moves from `sq` (with `side` to move) must be counted: as distinct entries
    /// only where two of them may reach the same one (see `may_coincide`).
    fn keys_mode(&self, sq: &Squares, side: usize) -> Keys {
        if self.may_coincide(sq, 1 - side) {
            Keys::Dedupe
        } else {
            Keys::Count
        }
    }

    /// Whether two moves (or two un-moves) of the side whose king is not in slot `fixed` can lead
    /// from `sq` to the same entry. Two positions share an entry only when a symmetry of the
    /// index maps one onto the other; both keep that king on its square, so the symmetry is the
    /// reflection through the long diagonal it stands on (pawnless tables only). If `σ` maps `P1
    /// = P - x + a` onto `P2 = P - y + b`, then `σ(P)` and `P` differ in at most two pieces; so
    /// when more than two pieces have no piece of their kind on their mirror square, every move
    /// leads to an entry of its own.
    fn may_coincide(&self, sq: &Squares, fixed: usize) -> bool {
        if self.ix.scheme() != Scheme::Pawnless {
            return false;
        }
        let Some(t) = diagonal_reflection(sq[fixed]) else {
            return false;
        };
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

    fn add_exit(&self, out: &mut MoveSummary, v: Value) {
        out.best_exit = Some(out.best_exit.map_or(v, |b| b.max(v)));
        if v.wdl() == Wdl::Loss {
            out.longest_losing_exit = out.longest_losing_exit.max(v.plies());
        }
    }

    /// Solves the material. `progress` shows the passes; `stage` supplies the sub-tables of
    /// each stage (the previous stage's are dropped first).
    ///
    /// # Errors
    /// A sub-table that cannot be read, or a mate longer than 254 plies.
    pub fn solve(
        mut self,
        progress: &ProgressBar,
        mut stage: impl FnMut(Stage) -> Result<T, SolveError>,
    ) -> Result<Solved, SolveError> {
        let started = std::time::Instant::now();
        let size = self.ix.size();
        let max_depth = 256usize;
        // Init.
        progress.set_style(
            ProgressStyle::with_template("{prefix:>8} {msg:<14} [{bar:30}] {pos}/{len}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        progress.set_prefix(self.material.name());
        progress.set_message("init");
        let chunks = size.div_ceil(CHUNK);
        progress.set_length(2 * chunks);
        progress.set_position(0);
        let positions = [AtomicU64::new(0), AtomicU64::new(0)];
        let legal_bits = [zeroed_bits(size), zeroed_bits(size)];
        // Seeds: wins through exits and losses with no in-table move, as items with their depth
        // in bits 48.., sorted into 4-byte buckets by depth; en passant seeds as (depth, item).
        // The chunks run in batches so that the seeds of one batch at most are held twice.
        if size >= 1 << 31 {
            return Err(SolveError::Overflow(self.material.name()));
        }
        let mut mates: Vec<Item> = Vec::new();
        // Per side: the init passes go through the entries in order, so each bucket is sorted.
        let mut seed_buckets: [Vec<Vec<u32>>; 2] = [
            vec![Vec::new(); max_depth + 2],
            vec![Vec::new(); max_depth + 2],
        ];
        let mut ep_seeds: Vec<(usize, Item)> = Vec::new();
        // Without pawns every exit leads to a table of fewer pieces (small enough to hold both
        // sides' at once), and one pass handles both sides to move of each entry: it is decoded
        // once. With pawns, promotions lead to tables as large as this one: one pass per side,
        // with only that side's exits loaded.
        let passes: &[&[usize]] = if self.material.has_pawns() {
            &[&[0], &[1]]
        } else {
            &[&[0, 1]]
        };
        for &sides in passes {
            // Release the previous pass's tables first.
            self.sub = T::default();
            self.sub = stage(match sides {
                [side] => Stage::Init(*side),
                _ => Stage::InitBoth,
            })?;
            let this = &self;
            let init_chunk = |c: u64| {
                let start = c * CHUNK;
                let end = (start + CHUNK).min(size);
                let mut found = InitFound::new(start);
                this.ix.for_each_used(start, end, |idx, sq| {
                    for &side in sides {
                        this.init_entry(sq, idx, side, &mut found);
                    }
                });
                for &side in sides {
                    positions[side].fetch_add(found.legal[side], Relaxed);
                    // CHUNK is a multiple of 64, so this chunk owns its words.
                    for (k, &w) in found.bits[side].iter().enumerate() {
                        if let Some(cell) = legal_bits[side].get((start / 64) as usize + k) {
                            cell.store(w, Relaxed);
                        }
                    }
                }
                progress.inc(sides.len() as u64);
                (found.mates, found.seeds, found.ep_seeds)
            };
            let name = self.material.name();
            // The results of one batch are sorted into the buckets while the next batch runs.
            let mut merge = |parts: Vec<InitPart>| -> Result<(), SolveError> {
                for (m, seeds, eps) in parts {
                    mates.extend(m);
                    for p in seeds {
                        let d = (p >> 48) as usize;
                        if d > max_depth {
                            return Err(SolveError::Overflow(name.clone()));
                        }
                        seed_buckets[item_side(p)][d].push(seed32(p));
                    }
                    ep_seeds.extend(eps);
                }
                Ok(())
            };
            let mut pending: Vec<InitPart> = Vec::new();
            let mut c0 = 0;
            while c0 < chunks {
                let c1 = (c0 + 256).min(chunks);
                let done = std::mem::take(&mut pending);
                let (parts, merged) = rayon::join(
                    || (c0..c1).into_par_iter().map(init_chunk).collect(),
                    || merge(done),
                );
                merged?;
                pending = parts;
                c0 = c1;
            }
            merge(pending)?;
            this.check_errors()?;
        }
        log::info!("{}: after init, {}", self.material.name(), memory_in_use());
        self.sub = T::default();
        self.sub = stage(Stage::Retro)?;
        log::info!(
            "{}: init {:.2} s",
            self.material.name(),
            started.elapsed().as_secs_f64()
        );
        let mut buckets: Vec<Vec<Item>> = vec![Vec::new(); max_depth + 2];
        let mut ep_buckets: Vec<Vec<Item>> = vec![Vec::new(); max_depth + 2];
        for (d, it) in ep_seeds {
            if d <= max_depth {
                ep_buckets[d].push(it);
            }
        }
        // Retrograde passes.
        progress.set_style(
            ProgressStyle::with_template("{prefix:>8} retro depth {pos:>3}: {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        progress.set_position(0);
        let deferred = Mutex::new(Vec::<(usize, Item)>::new());
        // The entries decided at depth d (`cur`) and d + 1 (`next`), as bitmaps: a pass reads
        // `cur` in index order, so that neighbouring nodes have neighbouring predecessors and
        // the cell updates hit the same cache lines and pages, and a node decided twice at the
        // same depth is still one node.
        let mut cur = Frontier::new(size);
        let mut next = Frontier::new(size);
        let mut cur_count = 0u64;
        for it in std::mem::take(&mut mates) {
            cur_count += u64::from(cur.mark(item_side(it), item_idx(it)));
        }
        let partitions = self.partitions();
        let king_stride = self.ix.king_stride();
        // A bitmap word holds 64 entries: one partition's alone when placements start on words.
        let access = if king_stride.is_multiple_of(64) {
            Access::CellsAndBits
        } else {
            Access::Cells
        };
        let mut d = 0usize;
        // Wall time of the completion of each depth and of the un-move passes.
        let mut times = [std::time::Duration::ZERO; 2];
        // Work of the passes from losses (index 0: predecessors win) and from wins (1: their
        // counters are lowered).
        let tallies = Mutex::new([Tally::default(); 2]);
        let mut pass_times = [std::time::Duration::ZERO; 2];
        loop {
            let t0 = std::time::Instant::now();
            // Complete the frontier of depth d: entries decided late by their exits (losses) and
            // seeds (wins through exits, losses with exits only). At one depth they are all wins
            // or all losses, and each entry comes once.
            let late = std::mem::take(&mut buckets[d]);
            let seeded = [0, 1].map(|side| std::mem::take(&mut seed_buckets[side][d]));
            let v = if d.is_multiple_of(2) {
                Value::loss(d as u32)
            } else {
                Value::win(d as u32)
            };
            // A depth past what the format stores is an overflow only if something is decided
            // there (after a loss in 254 plies, KPPvKP's longest, the pass finds only faster
            // wins and depth 255 stays empty).
            let v = match v {
                Some(v) => v,
                None if late.is_empty() && seeded.iter().all(Vec::is_empty) => Value::DRAW,
                None => return Err(SolveError::Overflow(self.material.name())),
            };
            let cur_ref = &cur;
            // The late losses were decided when their counter ran out; they only join the
            // frontier now.
            cur_count += late
                .par_iter()
                .map(|&it| u64::from(cur_ref.mark(item_side(it), item_idx(it))))
                .sum::<u64>();
            for side_seeds in &seeded {
                cur_count += self.complete_seeds(side_seeds, d, v, &cur, access);
            }
            drop((late, seeded));
            // En passant nodes decided by their capture at this depth.
            let mut ep_items = std::mem::take(&mut ep_buckets[d]);
            ep_items.retain(|&it| {
                let (side, idx) = (item_side(it), item_idx(it) as usize);
                let q = self.value(side, idx);
                if d % 2 == 1 {
                    !(q.wdl() == Wdl::Win && q.plies() as usize <= d)
                } else {
                    q.wdl() == Wdl::Loss && (q.plies() as usize) < d
                }
            });
            let later = buckets[d + 1..].iter().any(|b| !b.is_empty())
                || seed_buckets
                    .iter()
                    .any(|s| s[d + 1..].iter().any(|b| !b.is_empty()))
                || ep_buckets[d + 1..].iter().any(|b| !b.is_empty());
            if cur_count == 0 && ep_items.is_empty() && !later {
                break;
            }
            if d >= max_depth - 1 {
                return Err(SolveError::Overflow(self.material.name()));
            }
            progress.set_position(d as u64);
            progress.set_message(format!(
                "{} positions decided",
                cur_count + ep_items.len() as u64
            ));
            let t1 = std::time::Instant::now();
            times[0] += t1 - t0;
            let (cur_ref, next_ref, deferred_ref) = (&cur, &next, &deferred);
            let this = &self;
            let tallies_ref = &tallies;
            let pass = |pipe: Pipeline<'_, T>| -> u64 {
                let (fresh, later, tally) = pipe.finish();
                if !later.is_empty() {
                    if let Ok(mut g) = deferred_ref.lock() {
                        g.extend(later);
                    }
                }
                if let Ok(mut t) = tallies_ref.lock() {
                    t[d % 2] += tally;
                }
                fresh
            };
            // One task per partition, each the only one to touch its predecessors; the
            // threads take them largest first (by a sample of this depth's nodes), so that the
            // pass ends with small ones.
            let mut order: Vec<(u64, usize)> = partitions
                .iter()
                .enumerate()
                .map(|(t, (side, placements))| {
                    let w = placements
                        .iter()
                        .map(|&k| cur_ref.sample(*side, k * king_stride, (k + 1) * king_stride))
                        .sum::<u64>();
                    (w, t)
                })
                .collect();
            order.sort_unstable_by(|a, b| b.cmp(a));
            let taken = AtomicUsize::new(0);
            let fresh_total = AtomicU64::new(0);
            rayon::broadcast(|_| {
                let mut fresh = 0;
                while let Some(&(_, t)) = order.get(taken.fetch_add(1, Relaxed)) {
                    let Some((side, placements)) = partitions.get(t) else {
                        break;
                    };
                    let mut pipe = Pipeline::new(this, d, next_ref, access);
                    for &k in placements {
                        let first = k * king_stride;
                        cur_ref.take_range(*side, first, first + king_stride, |idx| {
                            pipe.push(item(idx, *side, 0));
                        });
                    }
                    fresh += pass(pipe);
                }
                fresh_total.fetch_add(fresh, Relaxed);
            });
            let mut next_count = fresh_total.into_inner();
            next_count += ep_items
                .par_chunks(64)
                .map(|chunk| {
                    let mut pipe = Pipeline::new(this, d, next_ref, Access::Shared);
                    for &it in chunk {
                        pipe.push(it);
                    }
                    pass(pipe)
                })
                .sum::<u64>();
            self.check_errors()?;
            if let Ok(mut g) = deferred.lock() {
                for (l, it) in g.drain(..) {
                    if l > max_depth {
                        return Err(SolveError::Overflow(self.material.name()));
                    }
                    buckets[l].push(it);
                }
            }
            times[1] += t1.elapsed();
            pass_times[d % 2] += t1.elapsed();
            std::mem::swap(&mut cur, &mut next);
            cur_count = next_count;
            d += 1;
        }
        log::debug!(
            "{}: retrograde passes: completion {:.2} s, un-moves {:.2} s",
            self.material.name(),
            times[0].as_secs_f64(),
            times[1].as_secs_f64()
        );
        if let Ok(t) = tallies.lock() {
            for (k, (what, t)) in ["from losses", "from wins"]
                .iter()
                .zip(t.iter())
                .enumerate()
            {
                log::debug!(
                    "{}: un-moves {what}: {:.2} s, {} nodes, {} predecessors generated, {} updated",
                    self.material.name(),
                    pass_times[k].as_secs_f64(),
                    t.nodes,
                    t.generated,
                    t.updated
                );
            }
        }
        progress.finish_and_clear();
        log::info!(
            "{}: solved, {d} depths, {:.2} s, {}",
            self.material.name(),
            started.elapsed().as_secs_f64(),
            memory_in_use()
        );
        let into_bytes = |v: Atomics<AtomicU16>| {
            v.par_iter()
                .map(|c| cell_value(c.load(Relaxed)).to_byte())
                .collect::<Vec<u8>>()
        };
        let [w, b] = self.cells;
        Ok(Solved {
            white: into_bytes(w),
            black: into_bytes(b),
            positions: [positions[0].load(Relaxed), positions[1].load(Relaxed)],
            legal: legal_bits.map(|v| v.par_iter().map(|w| w.load(Relaxed)).collect()),
        })
    }

    /// The value of an entry (a draw while undecided).
    #[inline]
    fn value(&self, side: usize, idx: usize) -> Value {
        cell_value(self.cells[side][idx].load(Relaxed))
    }

    /// Decides an entry that no other thread can decide or count down at the same time (a
    /// loss).
    #[inline]
    fn decide(&self, side: usize, idx: usize, v: Value) {
        self.cells[side][idx].store(decided_cell(v), Relaxed);
        self.note_decided(side, idx);
    }

    /// Sets the bit of a decided entry in `decided` (after its cell is stored).
    #[inline]
    fn note_decided(&self, side: usize, idx: usize) {
        if let Some(w) = self.decided[side].get(idx / 64) {
            w.fetch_or(1 << (idx % 64), Relaxed);
        }
        for l in self.lines[side].iter().flatten() {
            l.set(idx as u64);
        }
    }

    /// The squares of the piece in `slot` whose entries, with the other pieces as in entry
    /// `idx`, are known to be decided with `side` to move: one load, from the piece's line
    /// bitmap, or for the lowest digit of a piece other than a pawn from the decided bitmap
    /// (its lines are those words); none known for other pieces.
    #[inline]
    fn decided_on_line(&self, side: usize, slot: usize, idx: u64) -> u64 {
        match &self.lines[side][slot] {
            Some(l) => l.decided_squares(idx),
            None if self.ix.strides()[slot] == 1 && self.slots[slot].1 != Role::Pawn => self
                .decided[side]
                .get((idx / 64) as usize)
                .map_or(0, |w| w.load(Relaxed)),
            None => 0,
        }
    }

    /// Whether the bit of a decided entry is set: `false` may still be a decided entry.
    #[inline]
    fn known_decided(&self, side: usize, idx: u64) -> bool {
        self.decided[side]
            .get((idx / 64) as usize)
            .is_some_and(|w| w.load(Relaxed) & (1 << (idx % 64)) != 0)
    }

    fn check_errors(&self) -> Result<(), SolveError> {
        if let Ok(mut g) = self.sub_error.lock() {
            if let Some(source) = g.take() {
                return Err(SolveError::SubTable {
                    material: self.material.name(),
                    source,
                });
            }
        }
        if self.overflow.load(Relaxed) {
            return Err(SolveError::Overflow(self.material.name()));
        }
        Ok(())
    }

    /// The predecessors of a node decided at depth `d`, into `found`: those not known to be
    /// decided, with their cells prefetched for `update_all`.
    fn retro(&self, it: Item, d: usize, found: &mut Preds) {
        found.np = 0;
        found.nep = 0;
        let (side, idx, ep) = (item_side(it), item_idx(it), item_ep(it));
        found.mover = 1 - side;
        let Some(sq) = self.ix.decode(idx) else {
            return;
        };
        let mover = 1 - side; // the side that just moved, to move in the predecessors
        let mc = color_of(mover);
        // Predecessors of a loss that are decided already (mostly faster wins) need no update
        // and are left out. Predecessors of a win are rarely decided (KQRvKR: 0.6%), so there
        // the bitmap would cost a cache miss for nothing: the update reads the cell anyway.
        let lost = d.is_multiple_of(2);
        let occ = occupancy(&sq, self.n);
        let child_value = if lost {
            Value::loss(d as u32)
        } else {
            Value::win(d as u32)
        };
        let Some(child_value) = child_value else {
            return;
        };
        // Predecessors can coincide only in nearly symmetric pawnless positions (see
        // `may_coincide`).
        let dedupe = self.may_coincide(&sq, side);
        let discovered = self.discovery_masks(&sq, occ, side);
        let Preds {
            preds,
            np,
            ep_preds,
            nep,
            ..
        } = found;
        for i in 0..self.n {
            let (c, role) = self.slots[i];
            if c != mc {
                continue;
            }
            let to = sq[i];
            if ep != 0 {
                // An en passant node has one predecessor: the double push of its pawn.
                if role != Role::Pawn || (to & 7) + 1 != ep {
                    continue;
                }
            }
            let mut origins;
            let mut double_from = 64u8;
            if role == Role::Pawn {
                let back: i8 = if mover == 0 { -8 } else { 8 };
                let one = (to as i8 + back) as u8;
                let home_rank = if mover == 0 { 1 } else { 6 };
                origins = 0;
                // A pawn on its second rank has no square behind it to come from.
                let on_second = to >> 3 == home_rank;
                if !on_second && occ & (1u64 << one) == 0 {
                    if ep == 0 {
                        origins |= 1u64 << one;
                    }
                    let fourth = if mover == 0 { 3 } else { 4 };
                    if to >> 3 == fourth {
                        let two = (one as i8 + back) as u8;
                        if occ & (1u64 << two) == 0 {
                            double_from = two;
                        }
                    }
                }
            } else {
                origins = attacks_from(c, role, to, occ) & !occ;
            }
            let allowed = self.legal_origins(&sq, occ, side, i, &discovered);
            origins &= allowed;
            if allowed & (1u64 << double_from.min(63)) == 0 {
                double_from = 64;
            }
            let emit = |from: u8, list: &mut [u64], count: &mut usize, dedupe: bool| {
                let pi = match self.ix.moved(idx, &sq, i, from) {
                    Some(pi) => pi,
                    None => {
                        let mut p = sq;
                        p[i] = from;
                        match self.ix.index(&p) {
                            Some(pi) => pi,
                            None => return,
                        }
                    }
                };
                if (!dedupe || !list[..*count].contains(&pi)) && *count < list.len() {
                    list[*count] = pi;
                    *count += 1;
                }
            };
            match self.ix.stride(&sq, i) {
                // A lone piece other than a king: the index moves by its stride per square.
                Some(st) if !dedupe => {
                    if lost {
                        origins &= !self.decided_on_line(mover, i, idx);
                    }
                    let base = idx - u64::from(to) * st;
                    while origins != 0 && *np < preds.len() {
                        let from = u64::from(origins.trailing_zeros());
                        origins &= origins - 1;
                        preds[*np] = base + from * st;
                        *np += 1;
                    }
                }
                _ => {
                    while origins != 0 {
                        let from = origins.trailing_zeros() as u8;
                        origins &= origins - 1;
                        emit(from, preds, np, dedupe);
                    }
                }
            }
            if double_from < 64 {
                if ep != 0 {
                    emit(double_from, ep_preds, nep, false);
                } else {
                    match self.ep_value(&sq, side, i) {
                        None => emit(double_from, preds, np, dedupe),
                        Some(e) => {
                            // The node with the capture available is worth the better of its
                            // entry and the capture; it is decided now if that is the entry.
                            if child_value >= e {
                                emit(double_from, ep_preds, nep, false);
                            }
                        }
                    }
                }
            }
        }
        // Drop the predecessors of a loss known to be decided, and start loading the cells of
        // the others now: the caller updates them after it has generated the next node's
        // predecessors, so that the cache misses overlap that work.
        found.generated = *np + *nep;
        if lost {
            let mut keep = 0;
            for k in 0..*np {
                let p = preds[k];
                if !self.known_decided(mover, p) {
                    prefetch(&self.cells[mover], p as usize);
                    preds[keep] = p;
                    keep += 1;
                }
            }
            *np = keep;
        } else {
            for &p in preds[..*np].iter() {
                prefetch(&self.cells[mover], p as usize);
            }
        }
        for &p in ep_preds[..*nep].iter() {
            prefetch(&self.cells[mover], p as usize);
        }
    }

    /// The tasks of a retrograde pass: (side to move in the nodes, king placements
    /// whose entries the task un-moves). A predecessor differs from its node only in a piece of
    /// the side that moved, so it has the kings of the side to move in the node on the same
    /// square, up to the symmetry its index applies; the tasks split the nodes by the class of
    /// that king's square (see `IndexScheme::square_class`), so no two touch the same
    /// predecessor and each may update them without atomic exchanges.
    fn partitions(&self) -> Vec<(usize, Vec<u64>)> {
        let mut parts: Vec<(usize, Vec<u64>)> = Vec::new();
        for side in 0..2 {
            let mut by_class: Vec<Vec<u64>> = vec![Vec::new(); 64];
            for (k, &(wk, bk)) in self.ix.king_placements().iter().enumerate() {
                let king = if side == 0 { wk } else { bk };
                by_class[usize::from(self.ix.square_class(king))].push(k as u64);
            }
            parts.extend(
                by_class
                    .into_iter()
                    .filter(|v| !v.is_empty())
                    .map(|v| (side, v)),
            );
        }
        parts
    }

    /// Updates the predecessors `found` of a node decided at depth `d` (see `update`).
    fn update_all(
        &self,
        found: &Preds,
        d: usize,
        next: &Frontier,
        fresh: &mut u64,
        later: &mut Vec<(usize, Item)>,
        access: Access,
    ) {
        let lost = d.is_multiple_of(2);
        for &p in found.preds[..found.np]
            .iter()
            .chain(found.ep_preds[..found.nep].iter())
        {
            self.update(p, found.mover, lost, d, next, fresh, later, access);
        }
    }

    /// Squares the piece in slot `i` (of the side not to move in `sq`) may have come from
    /// without leaving the king of `side` (to move in `sq`) in check before its move: not a square
    /// from which it attacks that king itself, and within `discovered[i]` (see
    /// `discovery_masks`).
    fn legal_origins(
        &self,
        sq: &Squares,
        occ: u64,
        side: usize,
        i: usize,
        discovered: &[u64; MAX_PIECES],
    ) -> u64 {
        let ksq = sq[side];
        let (ic, ir) = self.slots[i];
        let lifted = occ & !(1u64 << sq[i]);
        // A piece of role `ir` on any of these squares would attack the king.
        let attackers = if ir == Role::Pawn {
            attacks_from(color_of(side), Role::Pawn, ksq, lifted)
        } else {
            attacks_from(ic.other(), ir, ksq, lifted)
        };
        !attackers & discovered[i]
    }

    /// For each piece of the side not to move in `sq`, the squares it may have come from as far
    /// as the other pieces of its side go: where one of them attacks the king of `side` once
    /// that piece is lifted, the piece must have blocked the attack, from a square between
    /// them (there is none for a knight, pawn or king). Computed once per node for all pieces:
    /// a slider attacks the king with one piece lifted only if that piece is the one blocker
    /// between them, or there is none.
    fn discovery_masks(&self, sq: &Squares, occ: u64, side: usize) -> [u64; MAX_PIECES] {
        let ksq = sq[side];
        let mover = color_of(1 - side);
        let mut masks = [!0u64; MAX_PIECES];
        for j in 0..self.n {
            let (c, r) = self.slots[j];
            // On an empty board, does this piece reach the king's square at all?
            if c != mover || attacks_from(c, r, sq[j], 0) & (1u64 << ksq) == 0 {
                continue;
            }
            let line = match r {
                Role::Bishop | Role::Rook | Role::Queen => {
                    attacks::between(square(sq[j]), square(ksq)).0
                }
                _ => 0,
            };
            let blockers = line & occ;
            if blockers == 0 {
                for (i, m) in masks.iter_mut().enumerate().take(self.n) {
                    if i != j && self.slots[i].0 == mover {
                        *m &= line;
                    }
                }
            } else if blockers.count_ones() == 1 {
                let b = blockers.trailing_zeros() as u8;
                if let Some(i) = (0..self.n).find(|&i| sq[i] == b && self.slots[i].0 == mover) {
                    masks[i] &= line;
                }
            }
        }
        masks
    }

    /// Updates predecessor `p` (`side` to move) of a node decided at depth `d`: a predecessor
    /// of a loss becomes a win in `d + 1`, a predecessor of a win has its counter lowered and is
    /// lost when it reaches zero; what is decided in `d + 1` is marked in `next` (counted in
    /// `fresh`), a loss its exits make longer goes to `later`. `access`: what no other thread
    /// touches during this pass.
    #[allow(clippy::too_many_arguments)]
    fn update(
        &self,
        p: u64,
        side: usize,
        child_lost: bool,
        d: usize,
        next: &Frontier,
        fresh: &mut u64,
        later: &mut Vec<(usize, Item)>,
        access: Access,
    ) {
        let pi = p as usize;
        if child_lost {
            let Some(w) = Value::win(d as u32 + 1) else {
                // A predecessor of a loss in 254 plies would win in 255, which the format cannot
                // store; but every win of at most 253 plies is decided by now, so a decided
                // predecessor is a faster win and nothing overflows (KPPvKP has such losses).
                if !is_decided(self.cells[side][pi].load(Relaxed)) {
                    self.overflow.store(true, Relaxed);
                }
                return;
            };
            // Every update of this pass decides wins in d + 1 and nothing else: a plain store
            // is enough, and a predecessor decided by two threads at once is marked once.
            if !is_decided(self.cells[side][pi].load(Relaxed)) {
                *fresh += u64::from(self.decide_and_mark(side, p, w, next, access));
            }
        } else {
            let cell = &self.cells[side][pi];
            // A decided predecessor (a win) needs no count. The counter never goes below zero
            // (it is lowered once per distinct successor), so the subtraction never reaches the
            // high byte; the exchange leaves a cell decided meanwhile alone.
            let mut old = cell.load(Relaxed);
            if access != Access::Shared {
                if is_decided(old) {
                    return;
                }
                cell.store(old - 1, Relaxed);
            } else {
                loop {
                    if is_decided(old) {
                        return;
                    }
                    match cell.compare_exchange_weak(old, old - 1, Relaxed, Relaxed) {
                        Ok(_) => break,
                        Err(now) => old = now,
                    }
                }
            }
            if old & 0xFF == 1 {
                // Lost: as late as the longest of the in-table children and the exits.
                let exit = 2 * usize::from((old >> 8) as u8);
                let l = (d + 1).max(exit);
                let Some(v) = Value::loss(l as u32) else {
                    self.overflow.store(true, Relaxed);
                    return;
                };
                if l == d + 1 {
                    *fresh += u64::from(self.decide_and_mark(side, p, v, next, access));
                } else {
                    // Its value is final now (no move of it is left to count down, and a
                    // lost entry is no predecessor of a loss), so it is decided at once, here
                    // where the stores are cheap; only its un-moves wait for depth `l`.
                    self.decide_in_pass(side, p, v, access);
                    later.push((l, item(p, side, 0)));
                }
            }
        }
    }

    /// Decides the seeds of depth `d` (entries of one side, as bucketed) as `v` and marks them in
    /// `cur`; returns how many were newly marked. A win may have been decided already, by a
    /// faster one. Each entry comes once and no pass runs meanwhile, so its cell is the task's
    /// own; when the seeds ascend and placements own their bitmap words (`access`), they are
    /// split into runs at king placements, whose bits no other run touches either, and each run
    /// is done with plain stores.
    fn complete_seeds(
        &self,
        seeds: &[u32],
        d: usize,
        v: Value,
        cur: &Frontier,
        access: Access,
    ) -> u64 {
        let win = d % 2 == 1;
        let complete = |s: u32, access: Access| {
            let it = item_of_seed(s);
            let (side, idx) = (item_side(it), item_idx(it));
            if win && is_decided(self.cells[side][idx as usize].load(Relaxed)) {
                return 0;
            }
            u64::from(self.decide_and_mark(side, idx, v, cur, access))
        };
        if access != Access::CellsAndBits || !seeds.par_windows(2).all(|w| w[0] < w[1]) {
            return seeds.par_iter().map(|&s| complete(s, Access::Cells)).sum();
        }
        let king_stride = self.ix.king_stride();
        let placement = |s: u32| u64::from(s & 0x7FFF_FFFF) / king_stride;
        let runs = 16 * rayon::current_num_threads();
        let mut cuts = vec![0];
        for k in 1..runs {
            let mut at = (seeds.len() * k / runs).max(cuts[cuts.len() - 1]);
            while at > 0 && at < seeds.len() && placement(seeds[at]) == placement(seeds[at - 1]) {
                at += 1;
            }
            if at > cuts[cuts.len() - 1] && at < seeds.len() {
                cuts.push(at);
            }
        }
        cuts.push(seeds.len());
        cuts.par_windows(2)
            .map(|w| {
                seeds[w[0]..w[1]]
                    .iter()
                    .map(|&s| complete(s, access))
                    .sum::<u64>()
            })
            .sum()
    }

    /// Decides entry `p` of `side` as `v`, by plain stores where `access` allows.
    #[inline]
    fn decide_in_pass(&self, side: usize, p: u64, v: Value, access: Access) {
        if access != Access::CellsAndBits {
            self.decide(side, p as usize, v);
            return;
        }
        self.cells[side][p as usize].store(decided_cell(v), Relaxed);
        if let Some(word) = self.decided[side].get((p / 64) as usize) {
            word.store(word.load(Relaxed) | 1u64 << (p % 64), Relaxed);
        }
        for l in self.lines[side].iter().flatten() {
            l.set_owned(p);
        }
    }

    /// Decides entry `p` of `side` as `v` and marks it in `next`; `true` if newly marked.
    #[inline]
    fn decide_and_mark(
        &self,
        side: usize,
        p: u64,
        v: Value,
        next: &Frontier,
        access: Access,
    ) -> bool {
        self.decide_in_pass(side, p, v, access);
        if access != Access::CellsAndBits {
            return next.mark(side, p);
        }
        let (w, bit) = ((p / 64) as usize, 1u64 << (p % 64));
        match next.bits[side].get(w) {
            Some(word) => {
                let old = word.load(Relaxed);
                word.store(old | bit, Relaxed);
                old & bit == 0
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::SubTables;

    /// The multiplication gives the quotient for every divisor the line bitmaps use and
    /// entries up to 2^31, including the divisor's multiples and their neighbours.
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

    /// `may_coincide` is what lets the init pass count moves and the retrograde passes list
    /// predecessors without looking for repeats: where it says no, the moves (and the un-moves)
    /// of a position must reach distinct entries. Checked on pawnless materials with identical
    /// pieces, against the entries themselves; and the repeats it guards against do occur.
    #[test]
    fn moves_reach_distinct_entries_unless_nearly_symmetric() {
        for name in ["KRRvK", "KQvKR", "KBBvK", "KNvKB"] {
            let m: Material = name.parse().expect("material");
            let solver = Solver::new(m, SubTables::default());
            let (mut checked, mut guarded, mut repeats) = (0u64, 0u64, 0u64);
            let mut found = Preds::new();
            for idx in (0..solver.ix.size()).step_by(5) {
                let Some(sq) = solver.ix.decode(idx) else {
                    continue;
                };
                let occ = occupancy(&sq, solver.n);
                for side in 0..2 {
                    if solver.in_check(&sq, 1 - side, occ, usize::MAX) {
                        continue;
                    }
                    // Moves of `side`: every distinct entry against every move.
                    let mut distinct = MoveSummary::new();
                    assert!(solver.summarize(&sq, idx, side, Keys::Dedupe, &mut distinct));
                    let mut all = MoveSummary::new();
                    assert!(solver.summarize(&sq, idx, side, Keys::Count, &mut all));
                    if solver.may_coincide(&sq, 1 - side) {
                        guarded += 1;
                        repeats += u64::from(distinct.nkeys < all.nkeys);
                    } else {
                        assert_eq!(distinct.nkeys, all.nkeys, "{name} entry {idx} side {side}");
                    }
                    // Un-moves into `side`'s position (the other side moved last).
                    solver.retro(item(idx, side, 0), 1, &mut found);
                    if !solver.may_coincide(&sq, side) {
                        let mut p = found.preds[..found.np].to_vec();
                        p.sort_unstable();
                        p.dedup();
                        assert_eq!(p.len(), found.np, "{name} entry {idx} side {side} un-moves");
                    }
                    checked += 1;
                }
            }
            assert!(checked > 1000 && guarded > 0, "{name}: {checked} {guarded}");
            if name == "KRRvK" || name == "KBBvK" {
                assert!(repeats > 0, "{name}: no repeated entries among {guarded}");
            }
        }
    }
}
