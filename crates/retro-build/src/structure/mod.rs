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
//! structures). Each part solved is a **work file** of its own in the work folder
//! (`part-S.bin`, S its first structure: its value bytes and legal bits, both sides), written
//! whole under another name and renamed into place, so that a file present is a part done.
//! The parts a part's pawn moves reach are read from their files, mapped into memory. A solve
//! stopped part way goes on from the parts whose files are there; a part can also be solved
//! on its own ([`Scope::Part`]: one task of a batch scheduler's array per part), once the
//! parts of the levels above it are done. At the end, the table's values are gathered from
//! the files.
//! Values and legal positions are those of the whole-table solve, entry for entry (tested
//! below on every table of 3 and 4 pieces with pawns).

pub(crate) mod dtz;
mod moves;
mod part;
pub(crate) mod verify;
pub(crate) mod verify_dtz;

use std::{
    fs::{self, File},
    io::{self, Write},
    marker::PhantomData,
    ops::Range,
    path::{Path, PathBuf},
};

use memmap2::{Mmap, MmapMut};
use rayon::prelude::*;
use shakmaty::{ByColor, Color, Role};

use self::{
    moves::PartMove,
    part::{Buckets, Joins, PartMetric},
};
use crate::{
    error::{SolveError, SubTableError},
    kernel::{
        exits::{exit_plans, for_each_en_passant, probe_exit, ExitPlan},
        king_slot,
        moves::{legal_targets, LegalTargets},
        FirstError, SIDES,
    },
    metric::{Dtm, Mating},
    progress::Progress,
    solve::Solved,
};
use retro_tables::{
    index::{IndexScheme, Squares},
    pieces::attacked,
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

/// The length of a part file's header: a magic (by [`Kind`]), the table's entries a side, the
/// part's two structures (the second `u64::MAX` when it has one), the entries per structure
/// (each a little-endian `u64`), the material's name (zero-padded to 16 bytes), and the part's
/// longest win and loss (two little-endian `u32`: DTZ50 parts only, else 0).
const PART_HEADER: usize = 64;
/// Where the material's name starts in the header.
const PART_NAME_AT: usize = 40;
/// Where the longest win and loss start in the header: what comes before identifies the part.
const PART_STATS_AT: usize = 56;

/// What a part file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// DTM value bytes ([`Value::to_byte`]) and legal bits.
    Dtm,
    /// DTZ50 table bytes ([`retro_tables::Dtz::to_table_byte`]) and the bits of the wins and
    /// losses.
    Dtz,
}

impl Kind {
    fn magic(self) -> &'static [u8; 8] {
        match self {
            Kind::Dtm => b"RETROPRT",
            Kind::Dtz => b"RETROPRZ",
        }
    }

    /// The metric's name, for the log.
    fn name(self) -> &'static str {
        match self {
            Kind::Dtm => "DTM",
            Kind::Dtz => "DTZ50",
        }
    }

    /// The file of the part whose first structure is `s`.
    fn file(self, s: u64) -> String {
        match self {
            Kind::Dtm => format!("part-{s}.bin"),
            Kind::Dtz => format!("dtz-{s}.bin"),
        }
    }
}

/// What a solve by structure does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Every part not yet done, then the table's values gathered in memory (for tests).
    #[cfg(test)]
    All,
    /// Every part not yet done of the levels in this range (numbered as
    /// [`structure_levels`] lists them; the values stay in the parts' files: [`gathered`]).
    /// The levels before it must be done.
    Levels(Range<usize>),
    /// The one part of this number (parts are numbered level after level, as
    /// [`structure_levels`] counts them), which needs the parts of the levels before its own.
    Part(usize),
}

/// The parts of a material with pawns, level by level: how many parts each level has, the
/// most advanced level first. Parts are numbered in this order from 0; the parts of one level
/// can be solved at once ([`Scope::Part`]), each level after the ones before it. Empty for a
/// material without pawns.
pub fn structure_levels(material: Material) -> Vec<usize> {
    if !material.has_pawns() {
        return Vec::new();
    }
    let plan = Plan::new(&IndexScheme::new(material.canonical()));
    plan.levels.iter().map(|l| l.len()).collect()
}

/// The parts of a table: each one structure, or one and its mirror image, numbered level by
/// level.
struct Plan {
    /// The structures of each part, by number.
    parts: Vec<Vec<u64>>,
    /// The part numbers of each level, the highest structure rank first.
    levels: Vec<Range<usize>>,
    /// The part number of each structure (`u32::MAX`: a structure with no entry).
    part_of: Vec<u32>,
}

impl Plan {
    fn new(ix: &IndexScheme) -> Plan {
        let mut by_rank: Vec<Vec<Vec<u64>>> = Vec::new();
        for s in 0..ix.structure_count() {
            let Some(m) = ix.mirrored_structure(s) else {
                continue; // two pawns on one square
            };
            if m < s {
                continue; // the part of `m`
            }
            let rank = ix.structure_rank(s) as usize;
            if by_rank.len() <= rank {
                by_rank.resize(rank + 1, Vec::new());
            }
            by_rank[rank].push(if m == s { vec![s] } else { vec![s, m] });
        }
        let mut plan = Plan {
            parts: Vec::new(),
            levels: Vec::new(),
            part_of: vec![u32::MAX; ix.structure_count() as usize],
        };
        for level in by_rank.into_iter().rev().filter(|l| !l.is_empty()) {
            let first = plan.parts.len();
            for part in level {
                for &s in &part {
                    plan.part_of[s as usize] = plan.parts.len() as u32;
                }
                plan.parts.push(part);
            }
            plan.levels.push(first..plan.parts.len());
        }
        plan
    }

    /// The level of part `p`.
    fn level_of(&self, p: usize) -> Option<usize> {
        self.levels.iter().position(|l| l.contains(&p))
    }

    /// Whether a pawn of part `p` stands on its seventh rank, so that a move of it (not a
    /// capture) promotes into a table of as many pieces as this one.
    /// The number of levels, from the first, with a part that can promote without a capture.
    fn promoting_levels(&self, ix: &IndexScheme) -> usize {
        self.levels
            .iter()
            .rposition(|l| l.clone().any(|p| self.promotes(ix, p)))
            .map_or(0, |k| k + 1)
    }

    fn promotes(&self, ix: &IndexScheme, p: usize) -> bool {
        let seventh = |i: usize, sq: &Squares| match ix.slots()[i] {
            (Color::White, Role::Pawn) => sq[i] >> 3 == 6,
            (Color::Black, Role::Pawn) => sq[i] >> 3 == 1,
            _ => false,
        };
        self.parts[p].iter().any(|&s| {
            ix.structure_squares(s)
                .is_some_and(|sq| (0..ix.piece_count()).any(|i| seventh(i, &sq)))
        })
    }
}

/// How many levels of `material` (with pawns, canonical), from the first, reach the tables a
/// promotion without a capture leads to (of as many pieces): up to the last level with a part
/// whose pawn can promote. The levels after them read only smaller tables, so a build by
/// structure can let those go (a 6-piece table's promotions are 6-piece tables of gigabytes).
pub(crate) fn promoting_levels(material: Material) -> usize {
    let ix = IndexScheme::new(material);
    Plan::new(&ix).promoting_levels(&ix)
}

/// Whether part `part` of `material` (with pawns, canonical) has a pawn that can promote
/// without a capture ([`promoting_levels`]); `false` for a part it does not have.
pub(crate) fn part_promotes(material: Material, part: usize) -> bool {
    let ix = IndexScheme::new(material);
    let plan = Plan::new(&ix);
    part < plan.parts.len() && plan.promotes(&ix, part)
}

/// The parts' work files of a table.
struct PartFiles {
    material: Material,
    ix: IndexScheme,
    plan: Plan,
    /// The work folder.
    work: PathBuf,
    kind: Kind,
}

/// Where the entries of one part are: its structures (one, or one and its mirror image), each
/// a run of `len` places in index order.
#[derive(Clone, Copy)]
struct Places<'t> {
    ix: &'t IndexScheme,
    structures: &'t [u64],
    /// Entries per structure.
    len: u64,
}

impl Places<'_> {
    /// The entries of the part (per side).
    fn count(&self) -> usize {
        self.structures.len() * self.len as usize
    }

    /// The place in this part of entry `idx`; `None` when it is in another part.
    #[inline]
    fn place(&self, idx: u64) -> Option<usize> {
        let (s, r) = self.ix.split_structure(idx);
        let k = self.structures.iter().position(|&x| x == s)?;
        Some(k * self.len as usize + r as usize)
    }

    /// The entry at `place`.
    #[inline]
    fn entry(&self, place: usize) -> u64 {
        let (k, r) = (place as u64 / self.len, place as u64 % self.len);
        self.ix.join_structure(self.structures[k as usize], r)
    }
}

/// What every part reads: the material, its exits and the parts' files; the metric `M`.
struct Table<'a, T: Tables + Sync, M> {
    material: Material,
    ix: IndexScheme,
    slots: Vec<(Color, Role)>,
    n: usize,
    plans: Vec<Option<ExitPlan>>,
    sub: &'a T,
    files: PartFiles,
    metric: PhantomData<fn() -> M>,
}

/// A table's values gathered from its parts ([`PartFiles::gather_mapped`]).
pub(crate) struct Gathered {
    /// Per side, a byte an entry (DTM: [`Value::to_byte`]; DTZ50: the table byte), in a work
    /// file mapped into memory.
    pub(crate) values: ByColor<MmapMut>,
    /// Per side, a bit an entry: the legal positions (DTM), the wins and losses (DTZ50).
    pub(crate) bits: ByColor<Vec<u64>>,
    /// The longest win and loss (DTZ50 only, else 0).
    pub(crate) stats: [u32; 2],
    /// The work files, removed with it.
    files: Vec<PathBuf>,
}

impl Drop for Gathered {
    fn drop(&mut self) {
        for f in &self.files {
            if let Err(e) = fs::remove_file(f) {
                log::warn!("cannot remove {}: {e}", f.display());
            }
        }
    }
}

/// The values of `kind` of `material` (canonical, with pawns) gathered from its parts in the
/// work folder `work`, every one done.
///
/// # Errors
/// A part not done, or a work file that cannot be made.
pub(crate) fn gathered(
    material: Material,
    work: &Path,
    kind: Kind,
) -> Result<Gathered, SolveError> {
    PartFiles::new(material, work, kind).gather_mapped()
}

/// The parts done so far, their files mapped (by part number).
struct Done {
    maps: Vec<Option<Mmap>>,
}

/// Solves `material` (with pawns, canonical) part by part, exits looked up in `sub` (the
/// sub-tables of both sides' moves), with its work files in `work` (the caller removes the
/// folder when the table is written): every part not done yet, then the table's values
/// (`Scope::All`, which returns them), the parts of some levels (`Scope::Levels`), or one part
/// (`Scope::Part`; these two return `None`).
/// `progress` counts the parts. `stop_after` ends the solve with an error after that many
/// levels (for tests).
///
/// # Errors
/// A sub-table that cannot be read, a mate longer than a byte holds, a work file that cannot
/// be read or written, a part that does not exist or whose levels above are not done.
pub(crate) fn solve<T: Tables + Sync>(
    material: Material,
    sub: &T,
    work: &Path,
    progress: &dyn Progress,
    scope: Scope,
    stop_after: Option<usize>,
) -> Result<Option<Solved>, SolveError> {
    solve_metric::<Dtm, T>(material, sub, work, progress, scope, stop_after)
}

/// As [`solve`], in the metric `M` of the DTM family.
///
/// # Errors
/// As [`solve`].
pub(crate) fn solve_metric<M: Mating, T: Tables + Sync>(
    material: Material,
    sub: &T,
    work: &Path,
    progress: &dyn Progress,
    scope: Scope,
    stop_after: Option<usize>,
) -> Result<Option<Solved>, SolveError> {
    let ix = IndexScheme::new(material);
    fs::create_dir_all(work).map_err(|e| SolveError::Work(work.to_path_buf(), e))?;
    let table = Table {
        material,
        slots: ix.slots().to_vec(),
        n: ix.piece_count(),
        plans: exit_plans(ix.slots()),
        sub,
        files: PartFiles::new(material, work, Kind::Dtm),
        ix,
        metric: PhantomData::<fn() -> M>,
    };
    let parts = table.files.plan.parts.len();
    let mut done = Done {
        maps: (0..parts).map(|_| None).collect(),
    };
    if let Scope::Part(p) = &scope {
        let p = *p;
        let level = table.files.plan.level_of(p).ok_or(SolveError::NoSuchPart {
            material: material.name(),
            part: p,
            parts,
        })?;
        let above = 0..table.files.plan.levels[level].start;
        table.files.map_done(&mut done, above.clone());
        let missing = done.maps[above].iter().filter(|m| m.is_none()).count();
        if missing > 0 {
            return Err(SolveError::PartsMissing {
                material: material.name(),
                part: p,
                missing,
            });
        }
        if table.files.open_part(p).is_none() {
            progress.begin(&material.name(), &format!("structure part {p}"), Some(1));
            Part::new(&table, &done, p).solve()?;
            progress.advance(1);
            progress.end();
        }
        return Ok(None);
    }
    let levels = match &scope {
        Scope::Levels(r) => r.clone(),
        _ => 0..usize::MAX,
    };
    progress.begin(&material.name(), "structures", Some(parts as u64));
    table.files.run_levels(
        &mut done,
        levels,
        crate::jobs::parts_limit(material, Kind::Dtm),
        progress,
        |level, _, missing| SolveError::PartsMissing {
            material: material.name(),
            part: level.start,
            missing,
        },
        |done, p| Part::new(&table, done, p).solve(),
        |k| match stop_after == Some(k + 1) {
            true => Err(SolveError::Work(
                work.to_path_buf(),
                io::Error::other("stopped for a test"),
            )),
            false => Ok(()),
        },
    )?;
    progress.end();
    match scope {
        #[cfg(test)]
        Scope::All => table.files.gather(&done).map(Some),
        _ => Ok(None),
    }
}

/// The work folder of `material`'s solve by structure in the table folder `out`.
pub(crate) fn work_folder(out: &Path, material: Material) -> PathBuf {
    out.join(format!(".{}.structures", material.canonical().name()))
}

/// Whether part `part` of `material`'s solve by structure into the table folder `out` is
/// done (numbered as [`structure_levels`] counts them).
pub fn structure_part_done(out: &Path, material: Material, part: usize) -> bool {
    part_done(material.canonical(), &work_folder(out, material), part)
}

/// Whether every DTM part of `material` (canonical, with pawns) is done in the work folder
/// `work`.
pub(crate) fn dtm_parts_done(material: Material, work: &Path) -> bool {
    levels_done(material, work, Kind::Dtm, 0..usize::MAX)
}

/// Whether every part of `kind` of the levels `levels` of `material` (canonical, with pawns;
/// levels numbered as [`structure_levels`] lists them) is done in the work folder `work`.
pub(crate) fn levels_done(
    material: Material,
    work: &Path,
    kind: Kind,
    levels: Range<usize>,
) -> bool {
    let files = PartFiles::new(material, work, kind);
    let plan = &files.plan;
    let end = levels.end.min(plan.levels.len());
    (levels.start.min(end)..end)
        .flat_map(|k| plan.levels[k].clone())
        .all(|p| files.open_part(p).is_some())
}

/// Removes the part files of `kind` of `material` (canonical, with pawns) from the work
/// folder `work` (a file that cannot be removed is logged and left).
pub(crate) fn remove_parts(material: Material, work: &Path, kind: Kind) {
    let files = PartFiles::new(material, work, kind);
    for part in &files.plan.parts {
        let path = work.join(kind.file(part[0]));
        match fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => log::warn!("cannot remove {}: {e}", path.display()),
        }
    }
}

/// Whether part `part` of `material` (canonical) is done in the work folder `work`.
fn part_done(material: Material, work: &Path, part: usize) -> bool {
    let files = PartFiles::new(material, work, Kind::Dtm);
    part < files.plan.parts.len() && files.open_part(part).is_some()
}

impl PartFiles {
    /// The part files of `kind` of `material` (canonical) in the work folder `work`.
    fn new(material: Material, work: &Path, kind: Kind) -> PartFiles {
        let ix = IndexScheme::new(material);
        PartFiles {
            material,
            plan: Plan::new(&ix),
            ix,
            work: work.to_path_buf(),
            kind,
        }
    }

    /// The values of both sides as bytes, and the legal positions, gathered from the parts'
    /// files (every part done).
    #[cfg(test)]
    fn gather(&self, done: &Done) -> Result<Solved, SolveError> {
        let size = self.ix.size() as usize;
        let mut values: ByColor<Vec<u8>> = ByColor::new_with(|_| vec![0u8; size]);
        let mut legal: ByColor<Vec<u64>> = ByColor::new_with(|_| vec![0u64; size.div_ceil(64)]);
        for side in SIDES {
            self.gather_side(done, side, &mut values[side], &mut legal[side])?;
        }
        Ok(Solved {
            positions: legal
                .as_ref()
                .map(|v| v.iter().map(|w| u64::from(w.count_ones())).sum()),
            white: values.white,
            black: values.black,
            legal,
            records: None,
        })
    }

    /// `side`'s values and bits gathered from the parts' files (every part done) into
    /// `values` and `bits` (the table's length, zeroed).
    fn gather_side(
        &self,
        done: &Done,
        side: Color,
        values: &mut [u8],
        bits: &mut [u64],
    ) -> Result<(), SolveError> {
        const CHUNK: usize = 1 << 16;
        values
            .par_chunks_mut(CHUNK)
            .zip(bits.par_chunks_mut(CHUNK / 64))
            .enumerate()
            .try_for_each(|(c, (bytes, words))| {
                for (j, b) in bytes.iter_mut().enumerate() {
                    let idx = (c * CHUNK + j) as u64;
                    let Some((p, place)) = self.locate(idx) else {
                        continue; // two pawns on a square: no position
                    };
                    let (byte, is_legal) = self
                        .read(done, side, p, place)
                        .ok_or_else(|| self.missing(idx))?;
                    *b = byte;
                    if is_legal {
                        words[j / 64] |= 1 << (j % 64);
                    }
                }
                Ok(())
            })
    }

    /// The values of the table gathered from the parts' files (every part done) into work
    /// files mapped into memory, which the system keeps on disk when memory is short, and its
    /// bits in memory (an eighth of the values).
    fn gather_mapped(&self) -> Result<Gathered, SolveError> {
        let parts = self.plan.parts.len();
        let mut done = Done {
            maps: (0..parts).map(|_| None).collect(),
        };
        self.map_done(&mut done, 0..parts);
        let size = self.ix.size() as usize;
        let work_error = |path: &Path, e| SolveError::Work(path.to_path_buf(), e);
        let mut files = Vec::new();
        let mut maps = Vec::new();
        for side in SIDES {
            let path = self
                .work
                .join(format!("gathered-{:?}-{side}.bin", self.kind));
            let f = fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&path)
                .map_err(|e| work_error(&path, e))?;
            f.set_len(size as u64).map_err(|e| work_error(&path, e))?;
            files.push(path.clone());
            // SAFETY: a work file this build just created and sized, mapped once, and removed
            // when the map is dropped (`Gathered`); nothing else writes or truncates it.
            let map = unsafe { MmapMut::map_mut(&f) }.map_err(|e| work_error(&path, e))?;
            maps.push(map);
        }
        let (Some(mut black), Some(mut white)) = (maps.pop(), maps.pop()) else {
            return Err(work_error(&self.work, io::Error::other("no map")));
        };
        let mut bits: ByColor<Vec<u64>> = ByColor::new_with(|_| vec![0u64; size.div_ceil(64)]);
        self.gather_side(&done, Color::White, &mut white, &mut bits.white)?;
        self.gather_side(&done, Color::Black, &mut black, &mut bits.black)?;
        let stats = done
            .maps
            .iter()
            .flatten()
            .map(PartFiles::stats)
            .fold([0, 0], |a, b| [a[0].max(b[0]), a[1].max(b[1])]);
        Ok(Gathered {
            values: ByColor { white, black },
            bits,
            stats,
            files,
        })
    }

    /// The header of part `p`'s file, with its longest win and loss `stats`.
    fn header(&self, p: usize, stats: [u32; 2]) -> [u8; PART_HEADER] {
        let part = &self.plan.parts[p];
        let mut h = [0u8; PART_HEADER];
        h[..8].copy_from_slice(self.kind.magic());
        let words = [
            self.ix.size(),
            part[0],
            part.get(1).copied().unwrap_or(u64::MAX),
            self.ix.structure_len(),
        ];
        for (k, w) in words.iter().enumerate() {
            h[8 + 8 * k..16 + 8 * k].copy_from_slice(&w.to_le_bytes());
        }
        let name = self.material.name();
        let name = &name.as_bytes()[..name.len().min(PART_STATS_AT - PART_NAME_AT)];
        h[PART_NAME_AT..PART_NAME_AT + name.len()].copy_from_slice(name);
        h[PART_STATS_AT..PART_STATS_AT + 4].copy_from_slice(&stats[0].to_le_bytes());
        h[PART_STATS_AT + 4..].copy_from_slice(&stats[1].to_le_bytes());
        h
    }

    /// The longest win and loss in part `p`'s file (mapped).
    fn stats(map: &Mmap) -> [u32; 2] {
        let word = |at: usize| {
            map.get(at..at + 4)
                .and_then(|b| b.try_into().ok())
                .map_or(0, u32::from_le_bytes)
        };
        [word(PART_STATS_AT), word(PART_STATS_AT + 4)]
    }

    /// Where the entries of part `p` are.
    fn places(&self, p: usize) -> Places<'_> {
        Places {
            ix: &self.ix,
            structures: &self.plan.parts[p],
            len: self.ix.structure_len(),
        }
    }

    /// The entries (per side) of part `p`.
    fn part_len(&self, p: usize) -> usize {
        self.places(p).count()
    }

    /// Where part `p`'s legal bits start in its file, and the file's length.
    fn part_layout(&self, p: usize) -> (usize, usize) {
        let n = self.part_len(p);
        let bits_at = (PART_HEADER + 2 * n).next_multiple_of(8);
        (bits_at, bits_at + 2 * 8 * n.div_ceil(64))
    }

    /// Writes part `p`'s file (atomically): its header with its longest win and loss
    /// `stats`, the value bytes of each side (white's first, `fill` appending those of a run
    /// of places), zeros to a multiple of 8 bytes, and the bits of each side (little-endian
    /// words: the legal positions of a DTM part, the wins and losses of a DTZ50 part).
    ///
    /// # Errors
    /// The file that cannot be written, with its path.
    fn write_part(
        &self,
        p: usize,
        stats: [u32; 2],
        mut fill: impl FnMut(Color, Range<usize>, &mut Vec<u8>),
        bits: &ByColor<Vec<u64>>,
    ) -> Result<(), (PathBuf, io::Error)> {
        const CHUNK: usize = 1 << 16;
        let path = self.work.join(self.kind.file(self.plan.parts[p][0]));
        let n = self.part_len(p);
        let (bits_at, _) = self.part_layout(p);
        let mut buf = Vec::with_capacity(CHUNK);
        retro_tables::write_atomic(&path, |w| {
            w.write_all(&self.header(p, stats))?;
            for side in SIDES {
                for start in (0..n).step_by(CHUNK) {
                    buf.clear();
                    fill(side, start..(start + CHUNK).min(n), &mut buf);
                    w.write_all(&buf)?;
                }
            }
            w.write_all(&[0u8; 8][..bits_at - (PART_HEADER + 2 * n)])?;
            for side in SIDES {
                for words in bits[side].chunks(CHUNK / 8) {
                    buf.clear();
                    buf.extend(words.iter().flat_map(|w| w.to_le_bytes()));
                    w.write_all(&buf)?;
                }
            }
            Ok::<(), io::Error>(())
        })
        .map(|_| ())
        .map_err(|e| (path.clone(), e))
    }

    /// Part `p`'s file mapped, when it is there whole and of this table.
    fn open_part(&self, p: usize) -> Option<Mmap> {
        let path = self.work.join(self.kind.file(self.plan.parts[p][0]));
        let file = File::open(&path).ok()?;
        let len = file.metadata().ok()?.len();
        if len != self.part_layout(p).1 as u64 {
            log::warn!("{}: {len} bytes, not a part of this table", path.display());
            return None;
        }
        // SAFETY: a part file is written whole under a temporary name and renamed into place,
        // never written in place: a part solved again replaces it by a rename, which leaves
        // this map on the old contents. Its length was checked above, and every read of the
        // map is bounds-checked; the work folder is the build's own, which nothing else
        // truncates while the build runs.
        let map = unsafe { Mmap::map(&file) }.ok()?;
        if map.get(..PART_STATS_AT) != Some(&self.header(p, [0, 0])[..PART_STATS_AT]) {
            log::warn!("{}: another table's part", path.display());
            return None;
        }
        Some(map)
    }

    /// Solves level by level the parts of the levels numbered `levels` (from 0) that are not
    /// done yet, a level's parts in parallel (`solve`, given the parts done so far, mapped;
    /// `at_once` parts at a time at most, as memory allows: [`parts_at_once`]), `after`
    /// called with the number of each level done; `progress` counts the parts.
    ///
    /// # Errors
    /// A level before `levels` with parts not done (`missing`: the level, its first part not
    /// done and how many are not), the first error of a level's parts, or `after`'s.
    #[allow(clippy::too_many_arguments)]
    fn run_levels<E: Send>(
        &self,
        done: &mut Done,
        levels: Range<usize>,
        at_once: impl Fn(bool) -> usize,
        progress: &dyn Progress,
        missing: impl Fn(&Range<usize>, usize, usize) -> E,
        solve: impl Fn(&Done, usize) -> Result<(), E> + Sync,
        mut after: impl FnMut(usize) -> Result<(), E>,
    ) -> Result<(), E> {
        let first = FirstError::new();
        let promoting = self.plan.promoting_levels(&self.ix);
        for (k, level) in self.plan.levels.iter().enumerate() {
            if k >= levels.end {
                break;
            }
            self.map_done(done, level.clone());
            let todo: Vec<usize> = level.clone().filter(|&p| done.maps[p].is_none()).collect();
            if k < levels.start {
                if let Some(&p) = todo.first() {
                    return Err(missing(level, p, todo.len()));
                }
                progress.advance(level.len() as u64);
                continue;
            }
            progress.advance((level.len() - todo.len()) as u64);
            if todo.len() < level.len() {
                log::info!(
                    "{}: {} level {}: {} of {} parts done before, going on",
                    self.material.name(),
                    self.kind.name(),
                    k + 1,
                    level.len() - todo.len(),
                    level.len()
                );
            }
            let shared: &Done = done;
            let one = |p: usize| {
                if let Err(e) = solve(shared, p) {
                    first.note(e);
                }
                progress.advance(1);
            };
            let n = at_once(k < promoting);
            if n <= 1 {
                // One at a time, stopping at the first error (hours of a 6-piece part).
                for &p in &todo {
                    one(p);
                    if first.failed() {
                        break;
                    }
                }
            } else if n >= rayon::current_num_threads() {
                todo.par_iter().for_each(|&p| one(p));
            } else {
                log::info!(
                    "{}: {} level {}: {n} parts at a time (memory)",
                    self.material.name(),
                    self.kind.name(),
                    k + 1
                );
                // A pool of fewer threads; where it cannot be made, one part at a time.
                match rayon::ThreadPoolBuilder::new().num_threads(n).build() {
                    Ok(pool) => pool.install(|| todo.par_iter().for_each(|&p| one(p))),
                    Err(_) => todo.iter().for_each(|&p| one(p)),
                }
            }
            first.check()?;
            self.map_done(done, level.clone());
            after(k)?;
        }
        Ok(())
    }

    /// Maps the files of the parts in `range` that are done and not mapped yet.
    fn map_done(&self, done: &mut Done, range: Range<usize>) {
        for p in range {
            if done.maps[p].is_none() {
                done.maps[p] = self.open_part(p);
            }
        }
    }

    /// The part of entry `idx`, and its place in the part.
    #[inline]
    fn locate(&self, idx: u64) -> Option<(usize, usize)> {
        let (s, r) = self.ix.split_structure(idx);
        let p = *self.plan.part_of.get(s as usize)? as usize;
        let k = self.plan.parts.get(p)?.iter().position(|&x| x == s)?;
        Some((p, k * self.ix.structure_len() as usize + r as usize))
    }

    /// The value byte with `side` to move at `place` in part `p`, and whether it is a legal
    /// position, from the part's file; `None` when the part is not done.
    #[inline]
    fn read(&self, done: &Done, side: Color, p: usize, place: usize) -> Option<(u8, bool)> {
        let map = done.maps.get(p)?.as_ref()?;
        let n = self.part_len(p);
        let s = match side {
            Color::White => 0,
            Color::Black => 1,
        };
        let byte = *map.get(PART_HEADER + s * n + place)?;
        let at = self.part_layout(p).0 + 8 * (s * n.div_ceil(64) + place / 64);
        let word = u64::from_le_bytes(map.get(at..at + 8)?.try_into().ok()?);
        Some((byte, word >> (place % 64) & 1 != 0))
    }

    /// The error for entry `idx`, whose part is not done.
    fn missing(&self, idx: u64) -> SolveError {
        let (s, _) = self.ix.split_structure(idx);
        SolveError::PartsMissing {
            material: self.material.name(),
            part: self
                .plan
                .part_of
                .get(s as usize)
                .map_or(usize::MAX, |&p| p as usize),
            missing: 1,
        }
    }
}

impl<T: Tables + Sync, M: Mating> Table<'_, T, M> {
    /// The value of entry `idx` with `side` to move, in a part done.
    fn value(&self, done: &Done, side: Color, idx: u64) -> Result<Value, SolveError> {
        match self
            .files
            .locate(idx)
            .and_then(|(p, place)| self.files.read(done, side, p, place))
        {
            Some((byte, _)) => Ok(Value::from_byte(byte)),
            None => Err(self.files.missing(idx)),
        }
    }

    /// Keeps the first error of a part.
    /// Decides `cell` at `v`: the depth it joins at.
    fn decide_cell(&self, cell: &mut Cell, v: Value) -> Result<usize, SolveError> {
        let plies = v.plies();
        if plies > MAX_DEPTH {
            return Err(self.overflow());
        }
        *cell = Cell {
            state: DECIDED,
            num: v.code(),
        };
        Ok(plies as usize)
    }

    fn sub_error(&self, source: SubTableError) -> SolveError {
        SolveError::SubTable {
            material: self.material.name(),
            source,
        }
    }

    /// The value for the mover of a move into `child` (the value for the opponent, to move
    /// there).
    fn move_value(&self, child: Value) -> Result<Value, SolveError> {
        Value::byte_from_child(child).ok_or_else(|| SolveError::Overflow(self.material.name()))
    }

    /// The value for `side` (to move in `sq`) of the position after the exit that leaves out
    /// slot `skip` and promotes `promo`, for the mover, as the metric values an exit
    /// ([`Mating::exit_child`]).
    fn exit(
        &self,
        sq: &Squares,
        skip: usize,
        promo: Option<(usize, Role)>,
        side: Color,
    ) -> Result<Value, SolveError> {
        let (child, _) = probe_exit(&self.plans, self.sub, sq, skip, promo, side.other())
            .map_err(|e| self.sub_error(e))?;
        self.move_value(M::exit_child(child))
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
}

/// The DTM rules of a part's passes: a cell holds its state and its value's code.
impl<T: Tables + Sync, M: Mating> PartMetric for Table<'_, T, M> {
    type Cell = Cell;
    type Error = SolveError;
    // The init counts moves, and the un-moves come once per move.
    const DISTINCT: bool = false;
    // A seed may come one past the deepest value (and overflows when it joins).
    const DEPTHS: usize = MAX_DEPTH as usize + 2;

    fn overflow(&self) -> SolveError {
        SolveError::Overflow(self.material.name())
    }

    fn join_seed(&self, cell: &mut Cell, d: usize) -> Result<bool, SolveError> {
        if cell.state & DECIDED != 0 {
            return Ok(false); // a faster win came first
        }
        let v = Value::win(d as u32).ok_or_else(|| self.overflow())?;
        *cell = Cell {
            state: DECIDED,
            num: v.code(),
        };
        Ok(true)
    }

    fn lost(&self, cell: Cell) -> bool {
        Value::from_code(cell.num).map(Value::wdl) == Some(Wdl::Loss)
    }

    fn update(
        &self,
        cell: &mut Cell,
        lost: bool,
        d: usize,
        _at: (u64, Color),
    ) -> Result<Option<usize>, SolveError> {
        if cell.state & (ILLEGAL | DECIDED) != 0 {
            return Ok(None);
        }
        if lost {
            let v = Value::win(M::win_at(d) as u32).ok_or_else(|| self.overflow())?;
            return self.decide_cell(cell, v).map(Some);
        }
        let open = (cell.state & OPEN).saturating_sub(1);
        cell.state = (cell.state & !OPEN) | open;
        if open == 0 && cell.state & CANT_LOSE == 0 {
            let plies = M::loss_at(d + 1, usize::from(cell.num)).depth;
            let v = Value::loss(plies as u32).ok_or_else(|| self.overflow())?;
            return self.decide_cell(cell, v).map(Some);
        }
        Ok(None)
    }
}

/// One part being solved.
struct Part<'t, 'a, T: Tables + Sync, M> {
    table: &'t Table<'a, T, M>,
    /// The parts of the levels above, which its pawn moves reach.
    done: &'t Done,
    /// Its number.
    number: usize,
    /// Where its entries are.
    places: Places<'t>,
    cells: ByColor<Vec<Cell>>,
    /// Per side, a bit per place set for a legal position.
    legal: ByColor<Vec<u64>>,
    /// The nodes by the depth they join at.
    buckets: Buckets,
}

impl<'t, 'a, T: Tables + Sync, M: Mating> Part<'t, 'a, T, M> {
    fn new(table: &'t Table<'a, T, M>, done: &'t Done, number: usize) -> Self {
        let places = table.files.places(number);
        let cells = places.count();
        Part {
            table,
            done,
            number,
            places,
            cells: ByColor::new_with(|_| vec![Cell::default(); cells]),
            legal: ByColor::new_with(|_| vec![0u64; cells.div_ceil(64)]),
            buckets: Buckets::new(<Table<'a, T, M> as PartMetric>::DEPTHS),
        }
    }

    /// Decides a cell at `v` and puts it in the bucket of its depth.
    fn decide(&mut self, side: Color, place: usize, v: Value) -> Result<(), SolveError> {
        let t = self.table;
        let d = t.decide_cell(&mut self.cells[side][place], v)?;
        self.buckets.add(t, (side, place), d, Joins::Decided)
    }

    fn solve(mut self) -> Result<(), SolveError> {
        let mut legal = LegalTargets::new();
        for place in 0..self.cells.white.len() {
            let idx = self.places.entry(place);
            let Some(sq) = self.table.ix.decode(idx) else {
                for side in SIDES {
                    self.cells[side][place].state = ILLEGAL;
                }
                continue;
            };
            for side in SIDES {
                self.init(&sq, place, side, &mut legal)?;
            }
        }
        let scope = part::Scope {
            ix: &self.table.ix,
            slots: &self.table.slots,
            places: self.places,
        };
        part::passes(self.table, &scope, &mut self.cells, &mut self.buckets)?;
        self.write()
    }

    /// The init of one entry (`sq`, at `place`) with `side` to move.
    fn init(
        &mut self,
        sq: &Squares,
        place: usize,
        side: Color,
        legal: &mut LegalTargets,
    ) -> Result<(), SolveError> {
        let t = self.table;
        if !legal_targets(&t.slots, sq, t.n, side, legal) {
            self.cells[side][place].state = ILLEGAL;
            return Ok(());
        }
        if let Some(w) = self.legal[side].get_mut(place / 64) {
            *w |= 1 << (place % 64);
        }
        let occ = legal.occ;
        let (mut any, mut open) = (false, 0u16);
        let mut best_exit: Option<Value> = None;
        let mut longest_loss = 0u32;
        let mut exit = |v: Value| {
            best_exit = Some(best_exit.map_or(v, |b| b.max(v)));
            if v.wdl() == Wdl::Loss {
                longest_loss = longest_loss.max(v.plies());
            }
        };
        for m in moves::part_moves(&t.slots, sq, legal) {
            any = true;
            match m {
                PartMove::Promotion { after, skip, promo } => {
                    exit(t.exit(&after, skip, Some(promo), side)?)
                }
                PartMove::Capture { after, skip } => exit(t.exit(&after, skip, None, side)?),
                PartMove::Push {
                    after,
                    pawn,
                    double,
                } => {
                    let child_idx =
                        t.ix.index(&after)
                            .ok_or_else(|| SolveError::Overflow(t.material.name()))?;
                    let mut child = t.value(self.done, side.other(), child_idx)?;
                    if double {
                        if let Some(ep) = t.en_passant(&after, side.other(), pawn)? {
                            child = child.max(ep);
                        }
                    }
                    exit(t.move_value(child)?);
                }
                PartMove::Piece { .. } => open += 1,
            }
        }
        if !any {
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
                    self.buckets
                        .add(t, (side, place), v.plies() as usize, Joins::Seed)?;
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

    /// Writes the part's file ([`PartFiles::write_part`]): a decided cell's value byte, 0 for
    /// a draw; the legal bits.
    fn write(&self) -> Result<(), SolveError> {
        let cells = &self.cells;
        let fill = |side: Color, run: Range<usize>, buf: &mut Vec<u8>| {
            buf.extend(cells[side][run].iter().map(|cell| {
                let value = Value::from_code(cell.num).and_then(Value::to_byte);
                match value {
                    Some(byte) if cell.state & DECIDED != 0 => byte,
                    _ => 0, // a draw
                }
            }));
        };
        self.table
            .files
            .write_part(self.number, [0, 0], fill, &self.legal)
            .map_err(|(path, e)| SolveError::Work(path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{solve::Solver, Silent, Stage, SubTables};

    /// Builds `names` with their sub-tables into a temporary folder, then calls `each` per
    /// material (its number, the folder, the canonical material, the sub-tables of a part's
    /// init, a work folder of its own).
    pub(super) fn for_each_material(
        names: &[&str],
        mut each: impl FnMut(usize, &Path, Material, &SubTables, &Path),
    ) {
        let dir = tempfile::tempdir().expect("dir");
        let dir = dir.path();
        let materials: Vec<Material> = names.iter().map(|m| m.parse().expect("material")).collect();
        crate::build_for_test(dir, &materials);
        for (k, m) in materials.into_iter().enumerate() {
            let m = m.canonical();
            let sub = SubTables::open_for(dir, m, Stage::InitBoth).expect("sub-tables");
            each(k, dir, m, &sub, &dir.join(format!("work-{}", m.name())));
        }
    }

    /// A level's parts run at most as many at a time as `at_once` says for it (asked whether
    /// the level's parts promote), every part once, on a pool of more threads.
    #[test]
    fn a_level_runs_no_more_parts_at_once_than_asked() {
        use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
        use std::sync::Mutex;
        let m: Material = "KPvKP".parse().expect("material");
        let dir = tempfile::tempdir().expect("dir");
        let files = PartFiles::new(m, dir.path(), Kind::Dtm);
        let parts = files.plan.parts.len();
        let promoting = promoting_levels(m);
        assert!(promoting > 0 && promoting < files.plan.levels.len());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .expect("a pool");
        for limit in [1, 2, 4] {
            let (running, peak, solved) = (
                AtomicUsize::new(0),
                AtomicUsize::new(0),
                AtomicUsize::new(0),
            );
            let asked = Mutex::new(Vec::new());
            let mut done = Done {
                maps: (0..parts).map(|_| None).collect(),
            };
            let r: Result<(), ()> = pool.install(|| {
                files.run_levels(
                    &mut done,
                    0..usize::MAX,
                    |promotes| {
                        asked.lock().expect("lock").push(promotes);
                        limit
                    },
                    &Silent,
                    |_, _, _| (),
                    |_, _| {
                        let now = running.fetch_add(1, SeqCst) + 1;
                        peak.fetch_max(now, SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(1));
                        running.fetch_sub(1, SeqCst);
                        solved.fetch_add(1, SeqCst);
                        Ok(())
                    },
                    |_| Ok(()),
                )
            });
            assert_eq!(r, Ok(()));
            assert_eq!(solved.load(SeqCst), parts);
            assert!(peak.load(SeqCst) <= limit, "{limit}: {}", peak.load(SeqCst));
            let asked = asked.into_inner().expect("lock");
            let levels = files.plan.levels.len();
            let want: Vec<bool> = (0..levels).map(|k| k < promoting).collect();
            assert_eq!(asked, want);
        }
        // One at a time, a failed part ends the solve before the next starts.
        let tried = AtomicUsize::new(0);
        let mut done = Done {
            maps: (0..parts).map(|_| None).collect(),
        };
        let r = files.run_levels(
            &mut done,
            0..usize::MAX,
            |_| 1,
            &Silent,
            |_, _, _| "missing",
            |_, _| {
                tried.fetch_add(1, SeqCst);
                Err("failed")
            },
            |_| Ok(()),
        );
        assert_eq!((r, tried.load(SeqCst)), (Err("failed"), 1));
    }

    /// The whole-table solve of `m`, its sub-tables in `dir`.
    fn whole_solve(dir: &Path, m: Material) -> Solved {
        Solver::new(m, SubTables::default())
            .solve(&Silent, |stage| {
                SubTables::open_for(dir, m, stage).map_err(|e| SolveError::SubTable {
                    material: m.name(),
                    source: e.into(),
                })
            })
            .expect("whole solve")
    }

    /// Tables of 3 and 4 pieces with pawns: the values and legal positions of the solve by
    /// structure are those of the whole-table solve, also when the solve is stopped after a
    /// level and run again.
    #[test]
    fn the_solve_by_structure_is_the_whole_table_solve() {
        let names = ["KPvK", "KPvKP", "KRPvK", "KPPvK", "KNPvK", "KQvKP"];
        for_each_material(&names, |k, dir, m, sub, work| {
            let whole = whole_solve(dir, m);
            let files = |w: &Path| fs::read_dir(w).map_or(0, |d| d.count());
            if k % 2 == 0 {
                // Stopped after its first levels, then to the end.
                let stopped = solve(m, sub, work, &Silent, Scope::All, Some(1 + k % 3));
                assert!(stopped.is_err(), "{}", m.name());
                assert!(files(work) > 0, "{}: no part done", m.name());
            } else {
                // Part by part, as the tasks of a batch scheduler's array: each level's parts
                // in reverse order; a part before the levels above it is refused.
                let levels = structure_levels(m);
                if levels.len() > 1 {
                    let early = solve(m, sub, work, &Silent, Scope::Part(levels[0]), None);
                    assert!(
                        matches!(early, Err(SolveError::PartsMissing { .. })),
                        "{}",
                        m.name()
                    );
                }
                let mut first = 0;
                for len in levels {
                    for p in (first..first + len).rev() {
                        let one = solve(m, sub, work, &Silent, Scope::Part(p), None);
                        assert!(one.expect("part").is_none());
                        assert!(part_done(m, work, p), "{} part {p}", m.name());
                    }
                    first += len;
                }
                let beyond = solve(m, sub, work, &Silent, Scope::Part(first), None);
                assert!(matches!(beyond, Err(SolveError::NoSuchPart { .. })));
                assert_eq!(files(work), first, "{}: a file a part", m.name());
                // A part file cut short is not a part done: it is solved again.
                let path = work.join(Kind::Dtm.file(IndexScheme::new(m).structure_count() - 1));
                let path = if path.exists() {
                    path
                } else {
                    fs::read_dir(work)
                        .expect("work")
                        .next()
                        .expect("a part")
                        .expect("entry")
                        .path()
                };
                let len = fs::metadata(&path).expect("part").len();
                File::options()
                    .write(true)
                    .open(&path)
                    .and_then(|f| f.set_len(len - 1))
                    .expect("cut");
            }
            let parts = solve(m, sub, work, &Silent, Scope::All, None)
                .expect("solve by structure")
                .expect("values");
            assert_eq!(parts.positions, whole.positions, "{}", m.name());
            assert!(parts.legal == whole.legal, "{}: legal bits", m.name());
            for (side, (a, b)) in [
                (Color::White, (&parts.white, &whole.white)),
                (Color::Black, (&parts.black, &whole.black)),
            ] {
                let differ = a.iter().zip(b.iter()).filter(|(x, y)| x != y).count();
                assert_eq!(differ, 0, "{} {side}: {differ} values differ", m.name());
            }
        });
    }

    /// The levels whose pawns can promote come first; the others are solved from sub-tables
    /// without the promotions' tables, and the values are those of the whole-table solve. The
    /// promoting levels without those tables fail.
    #[test]
    fn levels_past_the_promotions_need_no_promotion_tables() {
        let names = ["KPvK", "KPvKP", "KRPvK", "KPPvK"];
        for_each_material(&names, |_, dir, m, sub, work| {
            let ix = IndexScheme::new(m);
            let plan = Plan::new(&ix);
            let split = promoting_levels(m);
            assert!(
                split >= 1 && split < plan.levels.len(),
                "{}: {split}",
                m.name()
            );
            for (k, level) in plan.levels.iter().enumerate() {
                let promoting = level.clone().filter(|&p| part_promotes(m, p)).count();
                if k >= split {
                    assert_eq!(promoting, 0, "{} level {k}", m.name());
                }
                if k + 1 == split {
                    assert!(promoting > 0, "{} level {k}", m.name());
                }
            }
            let lean = SubTables::open_reaching(dir, m, Stage::InitBoth, false).expect("lean");
            let refused = solve(m, &lean, work, &Silent, Scope::Levels(0..split), None);
            assert!(
                matches!(refused, Err(SolveError::SubTable { .. })),
                "{}: the promoting levels need the promotions' tables",
                m.name()
            );
            let _ = fs::remove_dir_all(work);
            solve(m, sub, work, &Silent, Scope::Levels(0..split), None).expect("promoting");
            assert!(levels_done(m, work, Kind::Dtm, 0..split));
            assert!(!levels_done(m, work, Kind::Dtm, split..usize::MAX));
            solve(
                m,
                &lean,
                work,
                &Silent,
                Scope::Levels(split..usize::MAX),
                None,
            )
            .expect("rest");
            assert!(levels_done(m, work, Kind::Dtm, 0..usize::MAX));
            let parts = solve(m, &SubTables::default(), work, &Silent, Scope::All, None)
                .expect("every part done")
                .expect("values");
            let whole = whole_solve(dir, m);
            assert!(parts.legal == whole.legal, "{}: legal bits", m.name());
            assert!(parts.white == whole.white, "{}: white's values", m.name());
            assert!(parts.black == whole.black, "{}: black's values", m.name());
        });
    }
}
