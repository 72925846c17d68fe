//! DTM of a material with pawns, solved one pawn structure at a time.
//!
//! Pawns only move forward: a pawn move, like a capture or a promotion, never comes back. The
//! table splits into **parts**, each a pawn structure with its mirror image (see
//! [`IndexScheme::split_structure`]: a move of a piece other than a pawn stays in its part), and
//! a pawn move leads from a part to one of a higher structure rank. The parts are solved from
//! the highest rank down; parts of one rank reach none of each other and run in parallel.
//!
//! Within a part it is the retrograde analysis of the whole-table solve (`solve`), with more
//! exits:
//! 1. Init: for each entry and side to move, the legal moves. Captures, promotions and pawn
//!    moves are exits: a capture or promotion is looked up in the sub-tables, a pawn move in
//!    this table's values of the parts already solved; after a double push, the opponent may
//!    take en passant (the position then has the better of its entry and the capture, for the
//!    opponent), also a sub-table. Moves of the other pieces stay in the part and are counted.
//! 2. Depth by depth, the un-moves of the pieces other than pawns: a predecessor of a loss at
//!    `d` wins at `d + 1`; a predecessor of a win has its count lowered, and when none is left
//!    and no exit saves it, it loses at the larger of `d + 1` and its longest losing exit.
//! 3. What is never decided is a draw.
//!
//! Memory: the part's cells (4 bytes an entry and side to move; a part is at most two
//! structures). The values of the whole table (a byte an entry and side to move), which each
//! part writes when it is solved, and the legal positions (a bit) are work files mapped into
//! memory, which the system keeps on disk when memory is short: after each level they are
//! written out and the level is marked done, and a solve stopped part way goes on from the
//! first level not marked.
//! Values and legal positions are those of the whole-table solve, entry for entry (tested
//! below on every table of 3 and 4 pieces with pawns).

use std::{
    fs, io,
    path::Path,
    sync::{
        atomic::{AtomicU64, AtomicU8, Ordering::Relaxed},
        Mutex,
    },
};

use rayon::prelude::*;
use shakmaty::{ByColor, Color, Role};

use crate::{
    error::{SolveError, SubTableError},
    kernel::{
        exits::{exit_plans, for_each_en_passant, probe_exit, ExitPlan, PROMOTIONS},
        king_slot,
        memory::Atomics,
        moves::{legal_targets, LegalTargets},
        unmoves::{discovery_masks, legal_origins},
        SIDES,
    },
    progress::Progress,
    solve::Solved,
};
use retro_tables::{
    index::{IndexScheme, Squares},
    pieces::{attacked, attacks_from, occupancy},
    Material, Tables, Value, Wdl,
};

/// A cell's state bits: not a legal position; decided (its value in `num`); an exit draws or
/// wins, so it is never lost. The low byte counts its moves within the part still open.
const ILLEGAL: u16 = 1 << 15;
const DECIDED: u16 = 1 << 14;
const CANT_LOSE: u16 = 1 << 13;
const OPEN: u16 = 0xFF;

/// One entry with one side to move, while its part is solved.
#[derive(Clone, Copy, Default)]
struct Cell {
    /// `ILLEGAL`, `DECIDED`, `CANT_LOSE` and the open moves.
    state: u16,
    /// Decided: the value's code. Open: the longest loss through an exit (plies, for the
    /// mover).
    num: u16,
}

/// The deepest depth (plies) a value of a byte holds.
const MAX_DEPTH: u32 = Value::MAX_BYTE_LOSS;

/// The work file that marks the levels done: `MATERIAL ENTRIES LEVELS`.
const DONE: &str = "levels.done";

/// What every part reads and writes: the material, its exits, and the values of the parts
/// solved so far.
struct Table<'a, T: Tables + Sync> {
    material: Material,
    ix: IndexScheme,
    slots: Vec<(Color, Role)>,
    n: usize,
    plans: Vec<Option<ExitPlan>>,
    sub: &'a T,
    /// Per side, the value byte of each entry (a draw until its part is solved): every value
    /// of this solve fits a byte.
    values: ByColor<Atomics<AtomicU8>>,
    /// Per side, a bit per legal entry.
    legal: ByColor<Atomics<AtomicU64>>,
    error: Mutex<Option<SolveError>>,
}

/// Solves `material` (with pawns, canonical) part by part, exits looked up in `sub` (the
/// sub-tables of both sides' moves), with its work files in `work` (resumed from there when a
/// solve stopped; the caller removes the folder when the table is written); `progress` counts
/// the parts. `stop_after` ends the solve with an error after that many levels (for tests).
///
/// # Errors
/// A sub-table that cannot be read, a mate longer than a byte holds, or a work file that cannot
/// be read or written.
pub(crate) fn solve<T: Tables + Sync>(
    material: Material,
    sub: &T,
    work: &Path,
    progress: &dyn Progress,
    stop_after: Option<usize>,
) -> Result<Solved, SolveError> {
    let ix = IndexScheme::new(material);
    let size = ix.size();
    let work_error = |e: io::Error| SolveError::Work(work.to_path_buf(), e);
    fs::create_dir_all(work).map_err(work_error)?;
    let done = levels_done(work, material, size);
    if done == 0 {
        // Nothing to go on from: start from zeroed files.
        for side in SIDES {
            for name in [values_file(side), legal_file(side)] {
                match fs::remove_file(work.join(name)) {
                    Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(work_error(e)),
                    _ => {}
                }
            }
        }
    }
    let words = size.div_ceil(64) as usize;
    let table = Table {
        material,
        slots: ix.slots().to_vec(),
        n: ix.piece_count(),
        plans: exit_plans(ix.slots()),
        sub,
        values: ByColor {
            white: Atomics::file(&work.join(values_file(Color::White)), size as usize)
                .map_err(work_error)?,
            black: Atomics::file(&work.join(values_file(Color::Black)), size as usize)
                .map_err(work_error)?,
        },
        legal: ByColor {
            white: Atomics::file(&work.join(legal_file(Color::White)), words)
                .map_err(work_error)?,
            black: Atomics::file(&work.join(legal_file(Color::Black)), words)
                .map_err(work_error)?,
        },
        error: Mutex::new(None),
        ix,
    };
    let levels = table.levels();
    let parts: u64 = levels.iter().map(|l| l.len() as u64).sum();
    progress.begin(&material.name(), "structures", Some(parts));
    progress.advance(levels.iter().take(done).map(|l| l.len() as u64).sum());
    if done > 0 {
        log::info!(
            "{}: {done} levels of structures done, going on",
            material.name()
        );
    }
    for (k, level) in levels.iter().enumerate().skip(done) {
        level.par_iter().for_each(|part| {
            if let Err(e) = Part::new(&table, part).solve() {
                table.note(e);
            }
            progress.advance(1);
        });
        table.check()?;
        for side in SIDES {
            table.values[side].flush().map_err(work_error)?;
            table.legal[side].flush().map_err(work_error)?;
        }
        let mark = format!("{} {size} {}\n", material.name(), k + 1);
        retro_tables::write_atomic(&work.join(DONE), |w| {
            io::Write::write_all(w, mark.as_bytes())
        })
        .map_err(work_error)?;
        if stop_after == Some(k + 1) {
            return Err(work_error(io::Error::other("stopped for a test")));
        }
    }
    progress.end();
    Ok(table.into_solved())
}

/// The work file of `side`'s values.
fn values_file(side: Color) -> String {
    format!("values-{side}.bin")
}

/// The work file of `side`'s legal bits.
fn legal_file(side: Color) -> String {
    format!("legal-{side}.bin")
}

/// The levels marked done in `work` for `material` with `size` entries a side (0 without a
/// mark of this material).
fn levels_done(work: &Path, material: Material, size: u64) -> usize {
    let Ok(text) = fs::read_to_string(work.join(DONE)) else {
        return 0;
    };
    let words: Vec<&str> = text.split_whitespace().collect();
    match words.as_slice() {
        [name, entries, levels] if *name == material.name() && entries.parse() == Ok(size) => {
            levels.parse().unwrap_or(0)
        }
        _ => 0,
    }
}

impl<T: Tables + Sync> Table<'_, T> {
    /// The parts (a structure and its mirror image, the smaller first), in levels of one
    /// structure rank each, the highest first.
    fn levels(&self) -> Vec<Vec<Vec<u64>>> {
        let mut by_rank: Vec<Vec<Vec<u64>>> = Vec::new();
        for s in 0..self.ix.structure_count() {
            let Some(m) = self.ix.mirrored_structure(s) else {
                continue; // two pawns on one square
            };
            if m < s {
                continue; // the part of `m`
            }
            let rank = self.ix.structure_rank(s) as usize;
            if by_rank.len() <= rank {
                by_rank.resize(rank + 1, Vec::new());
            }
            by_rank[rank].push(if m == s { vec![s] } else { vec![s, m] });
        }
        by_rank.reverse();
        by_rank.retain(|l| !l.is_empty());
        by_rank
    }

    /// Keeps the first error of a part.
    fn note(&self, e: SolveError) {
        if let Ok(mut g) = self.error.lock() {
            g.get_or_insert(e);
        }
    }

    fn check(&self) -> Result<(), SolveError> {
        match self.error.lock().map(|mut g| g.take()) {
            Ok(Some(e)) => Err(e),
            _ => Ok(()),
        }
    }

    fn sub_error(&self, source: SubTableError) -> SolveError {
        SolveError::SubTable {
            material: self.material.name(),
            source,
        }
    }

    /// The value of entry `idx` with `side` to move, in a part already solved.
    fn value(&self, side: Color, idx: u64) -> Value {
        self.values[side]
            .get(idx as usize)
            .map_or(Value::DRAW, |b| Value::from_byte(b.load(Relaxed)))
    }

    /// The value for the mover of a move into `child` (the value for the opponent, to move
    /// there).
    fn move_value(&self, child: Value) -> Result<Value, SolveError> {
        Value::byte_from_child(child).ok_or_else(|| SolveError::Overflow(self.material.name()))
    }

    /// The value for `side` (to move in `sq`) of the position after the exit that leaves out
    /// slot `skip` and promotes `promo`, for the mover.
    fn exit(
        &self,
        sq: &Squares,
        skip: usize,
        promo: Option<(usize, Role)>,
        side: Color,
    ) -> Result<Value, SolveError> {
        let (child, _) = probe_exit(&self.plans, self.sub, sq, skip, promo, side.other())
            .map_err(|e| self.sub_error(e))?;
        self.move_value(child)
    }

    /// After the pawn in slot `pawn` of `side`'s opponent pushed two squares to give `sq`: the
    /// best en passant capture for `side`, if any.
    fn en_passant(
        &self,
        sq: &Squares,
        side: Color,
        pawn: usize,
    ) -> Result<Option<Value>, SolveError> {
        let mut best: Result<Option<Value>, SolveError> = Ok(None);
        for_each_en_passant(&self.slots, sq, side, pawn, |after| {
            if let Ok(b) = &mut best {
                match self.exit(after, pawn, None, side) {
                    Ok(v) => *b = Some(b.map_or(v, |x| x.max(v))),
                    Err(e) => best = Err(e),
                }
            }
        });
        best
    }

    /// The values of both sides as bytes, and the legal positions.
    fn into_solved(self) -> Solved {
        let bytes =
            |v: &Atomics<AtomicU8>| -> Vec<u8> { v.par_iter().map(|b| b.load(Relaxed)).collect() };
        let legal: ByColor<Vec<u64>> = self
            .legal
            .map(|v| v.par_iter().map(|w| w.load(Relaxed)).collect());
        Solved {
            white: bytes(&self.values.white),
            black: bytes(&self.values.black),
            positions: legal
                .as_ref()
                .map(|v| v.iter().map(|w| u64::from(w.count_ones())).sum()),
            legal,
            records: None,
        }
    }
}

/// One part being solved.
struct Part<'t, 'a, T: Tables + Sync> {
    table: &'t Table<'a, T>,
    /// Its structures: one, or one and its mirror image.
    structures: &'t [u64],
    /// Entries per structure.
    len: u64,
    cells: ByColor<Vec<Cell>>,
    /// Per depth, the nodes decided at it (side, place in the part; `true` for a seed: a win
    /// through an exit, decided when its depth comes unless a faster win came first).
    buckets: Vec<Vec<(Color, u32, bool)>>,
}

impl<'t, 'a, T: Tables + Sync> Part<'t, 'a, T> {
    fn new(table: &'t Table<'a, T>, structures: &'t [u64]) -> Self {
        let len = table.ix.structure_len();
        let cells = structures.len() * len as usize;
        Part {
            table,
            structures,
            len,
            cells: ByColor::new_with(|_| vec![Cell::default(); cells]),
            buckets: vec![Vec::new(); MAX_DEPTH as usize + 2],
        }
    }

    /// The place in this part of entry `idx`; `None` when it is in another part.
    #[inline]
    fn place(&self, idx: u64) -> Option<usize> {
        let (s, r) = self.table.ix.split_structure(idx);
        let k = self.structures.iter().position(|&x| x == s)?;
        Some(k * self.len as usize + r as usize)
    }

    /// The entry at `place`.
    #[inline]
    fn entry(&self, place: usize) -> u64 {
        let (k, r) = (place as u64 / self.len, place as u64 % self.len);
        self.table.ix.join_structure(self.structures[k as usize], r)
    }

    /// Decides a cell at `v` and puts it in the bucket of its depth.
    fn decide(&mut self, side: Color, place: usize, v: Value) -> Result<(), SolveError> {
        let plies = v.plies();
        if plies > MAX_DEPTH {
            return Err(SolveError::Overflow(self.table.material.name()));
        }
        self.cells[side][place] = Cell {
            state: DECIDED,
            num: v.code(),
        };
        self.buckets[plies as usize].push((side, place as u32, false));
        Ok(())
    }

    fn solve(mut self) -> Result<(), SolveError> {
        let mut legal = LegalTargets::new();
        for place in 0..self.cells.white.len() {
            let idx = self.entry(place);
            let Some(sq) = self.table.ix.decode(idx) else {
                for side in SIDES {
                    self.cells[side][place].state = ILLEGAL;
                }
                continue;
            };
            for side in SIDES {
                self.init(&sq, idx, place, side, &mut legal)?;
            }
        }
        for d in 0..self.buckets.len() {
            let nodes = std::mem::take(&mut self.buckets[d]);
            for (side, place, seed) in nodes {
                let place = place as usize;
                if seed {
                    if self.cells[side][place].state & DECIDED != 0 {
                        continue; // a faster win came first
                    }
                    let v = Value::win(d as u32)
                        .ok_or_else(|| SolveError::Overflow(self.table.material.name()))?;
                    self.cells[side][place] = Cell {
                        state: DECIDED,
                        num: v.code(),
                    };
                }
                self.unmove(side, place, d as u32)?;
            }
        }
        self.store();
        Ok(())
    }

    /// The init of one entry (`sq`, `idx`, at `place`) with `side` to move.
    fn init(
        &mut self,
        sq: &Squares,
        idx: u64,
        place: usize,
        side: Color,
        legal: &mut LegalTargets,
    ) -> Result<(), SolveError> {
        let t = self.table;
        if !legal_targets(&t.slots, sq, t.n, side, legal) {
            self.cells[side][place].state = ILLEGAL;
            return Ok(());
        }
        if let Some(w) = t.legal[side].get((idx / 64) as usize) {
            w.fetch_or(1 << (idx % 64), Relaxed);
        }
        let occ = legal.occ;
        let (mut moves, mut open) = (0u32, 0u16);
        let mut best_exit: Option<Value> = None;
        let mut longest_loss = 0u32;
        let mut exit = |v: Value| {
            best_exit = Some(best_exit.map_or(v, |b| b.max(v)));
            if v.wdl() == Wdl::Loss {
                longest_loss = longest_loss.max(v.plies());
            }
        };
        for i in 0..t.n {
            let role = t.slots[i].1;
            let mut targets = legal.targets[i];
            while targets != 0 {
                let to = targets.trailing_zeros() as u8;
                targets &= targets - 1;
                let captured = if occ & (1 << to) != 0 {
                    (2..t.n).find(|&j| sq[j] == to)
                } else {
                    None
                };
                let skip = captured.unwrap_or(usize::MAX);
                let mut after = *sq;
                after[i] = to;
                moves += 1;
                if role == Role::Pawn && (to >> 3 == 7 || to >> 3 == 0) {
                    for p in PROMOTIONS {
                        exit(t.exit(&after, skip, Some((i, p)), side)?);
                    }
                } else if captured.is_some() {
                    exit(t.exit(&after, skip, None, side)?);
                } else if role == Role::Pawn {
                    let child_idx =
                        t.ix.index(&after)
                            .ok_or_else(|| SolveError::Overflow(t.material.name()))?;
                    let mut child = t.value(side.other(), child_idx);
                    if legal.double[i] & (1 << to) != 0 {
                        if let Some(ep) = t.en_passant(&after, side.other(), i)? {
                            child = child.max(ep);
                        }
                    }
                    exit(t.move_value(child)?);
                } else {
                    open += 1;
                }
            }
        }
        if moves == 0 {
            if attacked(
                &t.slots,
                sq,
                sq[king_slot(side)],
                side.other(),
                occ,
                usize::MAX,
            ) {
                self.decide(side, place, Value::MATED)?;
            }
            return Ok(()); // stalemate: a draw
        }
        match best_exit.map(Value::wdl) {
            Some(Wdl::Win) | Some(Wdl::Draw) => {
                if let Some(v) = best_exit.filter(|v| v.wdl() == Wdl::Win) {
                    self.buckets[v.plies() as usize].push((side, place as u32, true));
                }
                self.cells[side][place] = Cell {
                    state: CANT_LOSE | open,
                    num: 0,
                };
            }
            _ if open == 0 => {
                let v = Value::loss(longest_loss)
                    .ok_or_else(|| SolveError::Overflow(t.material.name()))?;
                self.decide(side, place, v)?;
            }
            _ => {
                self.cells[side][place] = Cell {
                    state: open,
                    num: longest_loss as u16,
                };
            }
        }
        Ok(())
    }

    /// The un-moves from the node at `place` with `side` to move, decided at depth `d`: the
    /// pieces other than pawns of the side that moved last, back to where they may have come
    /// from.
    fn unmove(&mut self, side: Color, place: usize, d: u32) -> Result<(), SolveError> {
        let t = self.table;
        let lost = Value::from_code(self.cells[side][place].num).map(Value::wdl) == Some(Wdl::Loss);
        let idx = self.entry(place);
        let Some(sq) = t.ix.decode(idx) else {
            return Ok(());
        };
        let mover = side.other();
        let occ = occupancy(&sq, t.n);
        let masks = discovery_masks(&t.slots, t.n, &sq, occ, side);
        for i in 0..t.n {
            let (c, role) = t.slots[i];
            if c != mover || role == Role::Pawn {
                continue;
            }
            let mut origins = attacks_from(c, role, sq[i], occ)
                & !occ
                & legal_origins(&t.slots, &sq, occ, side, i, &masks);
            while origins != 0 {
                let from = origins.trailing_zeros() as u8;
                origins &= origins - 1;
                let mut pred = sq;
                pred[i] = from;
                let Some(p) =
                    t.ix.moved(idx, &sq, i, from)
                        .or_else(|| t.ix.index(&pred))
                        .and_then(|p| self.place(p))
                else {
                    continue;
                };
                let cell = self.cells[mover][p];
                if cell.state & (ILLEGAL | DECIDED) != 0 {
                    continue;
                }
                if lost {
                    let v =
                        Value::win(d + 1).ok_or_else(|| SolveError::Overflow(t.material.name()))?;
                    self.decide(mover, p, v)?;
                } else {
                    let open = (cell.state & OPEN).saturating_sub(1);
                    self.cells[mover][p].state = (cell.state & !OPEN) | open;
                    if open == 0 && cell.state & CANT_LOSE == 0 {
                        let plies = (d + 1).max(u32::from(cell.num));
                        let v = Value::loss(plies)
                            .ok_or_else(|| SolveError::Overflow(t.material.name()))?;
                        self.decide(mover, p, v)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Writes the part's decided values into the table's.
    fn store(&self) {
        for side in SIDES {
            for (place, cell) in self.cells[side].iter().enumerate() {
                let byte = Value::from_code(cell.num).and_then(Value::to_byte);
                if let (true, Some(byte)) = (cell.state & DECIDED != 0, byte) {
                    if let Some(v) = self.table.values[side].get(self.entry(place) as usize) {
                        v.store(byte, Relaxed);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{solve::Solver, Silent, Stage, SubTables};

    /// Tables of 3 and 4 pieces with pawns: the values and legal positions of the solve by
    /// structure are those of the whole-table solve, also when the solve is stopped after a
    /// level and run again.
    #[test]
    fn the_solve_by_structure_is_the_whole_table_solve() {
        let dir = tempfile::tempdir().expect("dir");
        let dir = dir.path();
        let materials: Vec<Material> = ["KPvK", "KPvKP", "KRPvK", "KPPvK", "KNPvK", "KQvKP"]
            .iter()
            .map(|m| m.parse().expect("material"))
            .collect();
        crate::build_for_test(dir, &materials);
        for (k, m) in materials.into_iter().enumerate() {
            let m = m.canonical();
            let whole = Solver::new(m, SubTables::default())
                .solve(&Silent, |stage| {
                    SubTables::open_for(dir, m, stage).map_err(|e| SolveError::SubTable {
                        material: m.name(),
                        source: e.into(),
                    })
                })
                .expect("whole solve");
            let sub = SubTables::open_for(dir, m, Stage::InitBoth).expect("sub-tables");
            let work = dir.join(format!("work-{}", m.name()));
            // Stopped after its first levels, then to the end.
            let stopped = solve(m, &sub, &work, &Silent, Some(1 + k % 3));
            assert!(stopped.is_err(), "{}", m.name());
            assert!(levels_done(&work, m, IndexScheme::new(m).size()) > 0);
            let parts = solve(m, &sub, &work, &Silent, None).expect("solve by structure");
            assert_eq!(parts.positions, whole.positions, "{}", m.name());
            assert!(parts.legal == whole.legal, "{}: legal bits", m.name());
            for (side, (a, b)) in [
                (Color::White, (&parts.white, &whole.white)),
                (Color::Black, (&parts.black, &whole.black)),
            ] {
                let differ = a.iter().zip(b.iter()).filter(|(x, y)| x != y).count();
                assert_eq!(differ, 0, "{} {side}: {differ} values differ", m.name());
            }
        }
    }
}
