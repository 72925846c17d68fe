//! The init pass: every entry of both sides to move, its legal moves generated once: checkmates,
//! seeds (wins through exits, losses with exits only, en passant nodes) and the counters of the
//! other entries.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;
use shakmaty::{ByColor, Color, Role};

use super::{
    cell::{decided_cell, open_cell, CANT_LOSE},
    item::{item, item_side, seed, seed32, Item},
    moves::MoveSummary,
    SolveError, Solver, SubTableError, MAX_DEPTH,
};
use crate::metric::Mating;
use crate::{
    kernel::{frontier::zeroed_bits, memory::Atomics, Stage, SIDES},
    progress::Progress,
};
use retro_tables::{index::Squares, pieces::occupancy, Material, Tables, Value, Wdl};

/// The most in-table successors a position may count, so that `CANT_LOSE` plus the count stays
/// below `DECIDED` (a 5-piece position has at most 89 moves: three queens and a king).
const MAX_KEYS: usize = 126;

/// Entries per parallel task in the init pass.
const CHUNK: u64 = 1 << 14;

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
    legal: ByColor<u64>,
    /// Per side to move, a bit per legal entry of the chunk.
    bits: ByColor<[u64; (CHUNK / 64) as usize]>,
    summary: MoveSummary,
}

impl InitFound {
    pub(super) fn new(start: u64) -> InitFound {
        InitFound {
            start,
            mates: Vec::new(),
            seeds: Vec::new(),
            ep_seeds: Vec::new(),
            legal: ByColor::new_with(|_| 0),
            bits: ByColor::new_with(|_| [0; (CHUNK / 64) as usize]),
            summary: MoveSummary::new(),
        }
    }
}

/// What the init pass decides for the retrograde passes.
pub(super) struct Seeds {
    /// Checkmates: the losses in 0 plies.
    pub(super) mates: Vec<Item>,
    /// Per side and depth: wins through exits and losses with exits only (as `seed32`). The
    /// init passes go through the entries in order, so each bucket is sorted.
    pub(super) buckets: ByColor<Vec<Vec<u32>>>,
    /// En passant nodes decided by their capture, with the capture's depth.
    pub(super) ep: Vec<(usize, Item)>,
}

impl Seeds {
    fn new() -> Seeds {
        Seeds {
            mates: Vec::new(),
            buckets: ByColor::new_with(|_| vec![Vec::new(); MAX_DEPTH + 2]),
            ep: Vec::new(),
        }
    }

    /// Sorts what chunks of the init pass found into the buckets.
    fn merge(&mut self, parts: Vec<InitPart>, material: &Material) -> Result<(), SolveError> {
        for (m, seeds, eps) in parts {
            self.mates.extend(m);
            for p in seeds {
                let d = (p >> 48) as usize;
                if d > MAX_DEPTH {
                    return Err(SolveError::Overflow(material.name()));
                }
                self.buckets[item_side(p)][d].push(seed32(p));
            }
            self.ep.extend(eps);
        }
        Ok(())
    }
}

/// The legal positions the init pass finds.
pub(super) struct Legal {
    /// Legal positions per side to move.
    pub(super) positions: ByColor<u64>,
    /// Per side, a bit per legal entry.
    pub(super) bits: ByColor<Atomics<AtomicU64>>,
}

impl<T: Tables + Sync + Default, M: Mating> Solver<T, M> {
    /// The init pass over every entry (see the module docs), with the sub-tables of its stages
    /// from `stage`. Without pawns every exit leads to a table of fewer pieces (small enough to
    /// hold both sides' at once), and one pass handles both sides to move of each entry: it is
    /// decoded once. With pawns, promotions lead to tables as large as this one: one pass per
    /// side, with only that side's exits loaded.
    pub(super) fn init(
        &mut self,
        progress: &dyn Progress,
        stage: &mut impl FnMut(Stage) -> Result<T, SolveError>,
    ) -> Result<(Seeds, Legal), SolveError> {
        let size = self.ix.size();
        progress.begin(
            &self.material.name(),
            "init",
            Some(2 * size.div_ceil(CHUNK)),
        );
        let positions = ByColor::new_with(|_| AtomicU64::new(0));
        let bits = ByColor::new_with(|_| zeroed_bits(size));
        // Seeds keep entry numbers in 31 bits (see `seed32`).
        if size >= 1 << 31 {
            return Err(SolveError::Overflow(self.material.name()));
        }
        let mut seeds = Seeds::new();
        let passes: &[&[Color]] = if self.material.has_pawns() {
            &[&[Color::White], &[Color::Black]]
        } else {
            &[&SIDES]
        };
        for &sides in passes {
            // Release the previous pass's tables first.
            self.sub = T::default();
            let st = match sides {
                [side] => Stage::Init(*side),
                _ => Stage::InitBoth,
            };
            self.sub = stage(st)?;
            if let Some(r) = self.records.as_mut() {
                r.load_stage(st).map_err(|e| SolveError::SubTable {
                    material: self.material.name(),
                    source: SubTableError::Dtz50(Box::new(e)),
                })?;
            }
            self.init_pass(sides, progress, &positions, &bits, &mut seeds)?;
        }
        let legal = Legal {
            positions: positions.map(AtomicU64::into_inner),
            bits,
        };
        Ok((seeds, legal))
    }

    /// One init pass over the entries with `sides` to move, in parallel chunks. The chunks run
    /// in batches, and the results of one batch are sorted into the buckets while the next
    /// batch runs, so that the seeds of one batch at most are held twice.
    fn init_pass(
        &self,
        sides: &[Color],
        progress: &dyn Progress,
        positions: &ByColor<AtomicU64>,
        bits: &ByColor<Atomics<AtomicU64>>,
        seeds: &mut Seeds,
    ) -> Result<(), SolveError> {
        let chunks = self.ix.size().div_ceil(CHUNK);
        let mut pending: Vec<InitPart> = Vec::new();
        let mut c0 = 0;
        while c0 < chunks {
            let c1 = (c0 + 256).min(chunks);
            let done = std::mem::take(&mut pending);
            let (parts, merged) = rayon::join(
                || {
                    (c0..c1)
                        .into_par_iter()
                        .map(|c| {
                            let part = self.init_chunk(c, sides, positions, bits);
                            progress.advance(sides.len() as u64);
                            part
                        })
                        .collect()
                },
                || seeds.merge(done, &self.material),
            );
            merged?;
            pending = parts;
            c0 = c1;
        }
        seeds.merge(pending, &self.material)?;
        self.check_errors()
    }

    /// Initializes the entries of chunk `c` with `sides` to move: their cells, their legal bits
    /// and counts; returns their mates and seeds.
    fn init_chunk(
        &self,
        c: u64,
        sides: &[Color],
        positions: &ByColor<AtomicU64>,
        bits: &ByColor<Atomics<AtomicU64>>,
    ) -> InitPart {
        let start = c * CHUNK;
        let end = (start + CHUNK).min(self.ix.size());
        let mut found = InitFound::new(start);
        self.ix.for_each_used(start, end, |idx, sq| {
            for &side in sides {
                self.init_entry(sq, idx, side, &mut found);
            }
        });
        for &side in sides {
            positions[side].fetch_add(found.legal[side], Relaxed);
            // CHUNK is a multiple of 64, so this chunk owns its words.
            for (k, &w) in found.bits[side].iter().enumerate() {
                if let Some(cell) = bits[side].get((start / 64) as usize + k) {
                    cell.store(w, Relaxed);
                }
            }
        }
        (found.mates, found.seeds, found.ep_seeds)
    }
    /// Seeds the en passant nodes of entry `idx` (`side` to move) whose capture decides them:
    /// for each pawn of the other side that may just have pushed two squares, the node with the
    /// capture available, at the capture's depth, unless the capture draws.
    fn seed_ep_nodes(
        &self,
        sq: &Squares,
        occ: u64,
        idx: u64,
        side: Color,
        out: &mut Vec<(usize, Item)>,
    ) {
        if self.material.pawn_count() < 2 {
            return;
        }
        let other = side.other();
        for i in 0..self.n {
            if self.slots[i] != (other, Role::Pawn) {
                continue;
            }
            let s = sq[i];
            let (rank4, back1, back2) = if other.is_white() {
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

    /// Initializes entry `idx` (position `sq`) with `side` to move: its cell, or a seed or a
    /// mate in `found`, from its moves; nothing when the position is illegal.
    fn init_entry(&self, sq: &Squares, idx: u64, side: Color, found: &mut InitFound) {
        let summary = &mut found.summary;
        if !self.summarize(sq, idx, side, self.keys_mode(sq, side), summary) {
            return; // the side not to move is in check
        }
        found.legal[side] += 1;
        found.bits[side][((idx - found.start) / 64) as usize] |= 1 << (idx % 64);
        if let Some(r) = &self.records {
            r.store(side, idx, summary.record);
        }
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
}
