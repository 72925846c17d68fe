//! The compact solve: retrograde analysis of a pawnless material with one byte per entry and side
//! in memory, for tables too large for the cells of `solve` (6 pieces: up to 7.75e9 entries a
//! side, and mates beyond 255 plies).
//!
//! - **State**, one byte per entry and side: an undecided position's count of in-table
//!   successors not yet known to be won by the opponent (at most [`MAX_COUNT`], plus [`LOSSY`]
//!   when a capture loses), or [`CANT_LOSE`] (an exit that draws or wins, or stalemate),
//!   [`DECIDED`] or [`UNUSED`] (no legal position). A decided entry's value is not kept in memory: it is the depth at which it
//!   joined the frontier, and the frontier of each depth is written to a work file per side
//!   (`worklog::DepthLog`) as it is un-moved. The values are put together from those files at the
//!   end, one side at a time.
//! - **Losing exits**: when a position's count runs out, its loss is as long as the longest of
//!   its in-table moves and of its losing captures; the captures of a position marked
//!   [`LOSSY`] are valued again then, from the sub-tables, instead of keeping their length in
//!   memory.
//! - **Seeds** (wins through captures, losses whose every move is a losing capture): written
//!   by the init pass to a work file per side and depth, and read when the passes reach it.
//! - **Frontier**: a bitmap per side of the entries decided at the current depth and one of
//!   the next.
//!
//! The passes split their nodes by the square class of the king of the side to move, as `solve`
//! does, so a task is the only one to touch its predecessors' state bytes (plain loads and
//! stores); the frontier bits are set atomically.
//!
//! Memory: `2 N` bytes of state, `N / 2` bytes of frontier bitmaps, with `N` the entries of a
//! side: 9.5 GB for KRNvKNN (3.81e9 entries a side), 19.4 GB for the largest pawnless tables
//! (7.75e9), besides the sub-tables. The values are assembled in `2 N` bytes after the state is
//! released.

pub(crate) mod checkpoint;
pub mod dtz;
#[cfg(feature = "mpi")]
pub mod mpi_exchange;
mod passes;
pub(crate) mod resume;
pub mod share;
pub mod verify;
pub mod verify_dtz;
pub(crate) mod worklog;

use std::{
    collections::BTreeMap,
    io,
    marker::PhantomData,
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicU8, Ordering::Relaxed},
        Mutex,
    },
    time::Instant,
};

use rayon::prelude::*;
use shakmaty::{ByColor, Color, Role};

use self::{
    passes::{CompactMetric, Later, Passes, Store},
    share::{encode, Exchange, Post, Share, BATCH},
    worklog::{read_records, DepthLog, Run},
};
use crate::{
    error::{SolveError, SubTableError},
    kernel::{
        exits::{exit_plans, plan_slot, ExitPlan},
        frontier::Frontier,
        king_slot,
        memory::{Atomics, Pages},
        moves::{legal_targets, LegalTargets},
        pass::partitions,
        unmoves::{discovery_masks, legal_origins},
        SIDES,
    },
    metric::{Dtm, Mating},
    progress::Progress,
};
use retro_tables::{
    format::Stats,
    index::{IndexScheme, Squares},
    pieces::{attacked, attacks_from, occupancy},
    Material, ProbeError, Tables, Value, Wdl,
};

/// The largest count of in-table successors a state byte holds (a 6-piece position has at most
/// 116 moves: four queens and a king).
pub(crate) const MAX_COUNT: u8 = 124;
/// Added to an undecided position's count when one of its captures loses (see the module
/// docs).
pub(crate) const LOSSY: u8 = 128;
/// Undecided, and never lost: an exit draws or wins, or the position is stalemate.
pub(crate) const CANT_LOSE: u8 = 253;
/// Decided (its depth is in the value log, or will be when it joins the frontier).
pub(crate) const DECIDED: u8 = 254;
/// No legal position.
pub(crate) const UNUSED: u8 = 255;

/// Entries per task of the init pass.
const CHUNK: u64 = 1 << 16;

/// A run of a value log is written out once it takes this many bytes.
const RUN_BYTES: usize = 64 << 20;

/// Whether `build-tables` solves `material` with the compact solve: 6 pieces without pawns.
pub fn applies(material: Material) -> bool {
    material.piece_count() >= 6 && !material.has_pawns()
}

/// Whether `material` is solved and checked by the compact solve: always for 6 pieces without
/// pawns ([`applies`]), and for any material without pawns when `asked` (`--compact`). The one
/// place the build and the check make this choice.
pub fn chosen(material: Material, asked: bool) -> bool {
    applies(material) || (asked && !material.has_pawns())
}

/// What the compact build of a material needs (see [`needs`]).
#[derive(Clone, Copy, Debug)]
pub struct Needs {
    /// Entries per side.
    pub entries: u64,
    /// Peak memory in bytes: the state (2 bytes an entry), the bitmaps (4 bits an entry) and
    /// the sub-tables (1 byte an entry and side) during the passes; then one side's first and
    /// extension bytes and both sides' legal bits while the file is written.
    pub memory: u64,
    /// Work files at most, in bytes: the seeds and the value logs, at most 2 bytes a position
    /// (an entry a varint of its distance from the one before, mostly 1 byte).
    pub work_disk: u64,
}

/// What the compact build of `material` needs, before it starts.
pub fn needs(material: Material) -> Needs {
    let n = IndexScheme::new(material).size();
    let sub: u64 = material
        .successors()
        .iter()
        .map(|m| 2 * IndexScheme::new(m.canonical()).size())
        .sum();
    let passes = 2 * n + 4 * n / 8 + sub;
    let write = 2 * n + 2 * n / 8;
    Needs {
        entries: n,
        memory: passes.max(write),
        work_disk: 4 * n,
    }
}

/// The machine's memory in bytes (`MemTotal` of `/proc/meminfo`), where it can be read.
pub fn machine_memory() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = s.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// What a compact solve leaves: the value logs and figures.
pub struct Compacted {
    /// The material.
    pub material: Material,
    /// Legal positions per side to move.
    pub positions: ByColor<u64>,
    /// Per side, a bit per entry (bit `i % 64` of word `i / 64`) set when it is a legal
    /// position.
    pub legal: ByColor<Vec<u64>>,
    /// Per side, the value log (see the module docs).
    pub logs: ByColor<PathBuf>,
    /// Depths the passes went through.
    pub depths: usize,
}

impl Compacted {
    /// The values with `side` to move as first bytes and extension bytes (see
    /// [`Value::to_planes`]), index order; the wins and losses it counted, and the longest of
    /// each. The deepest example is the deepest entry `example` accepts.
    ///
    /// # Errors
    /// A value log that cannot be read.
    pub fn side_planes(
        &self,
        side: Color,
        example: impl Fn(u64) -> bool,
    ) -> io::Result<SidePlanes> {
        let n = IndexScheme::new(self.material).size() as usize;
        let mut first = vec![0u8; n];
        let mut ext = vec![0u8; n];
        let (mut wins, mut losses) = (0u64, 0u64);
        let mut stats = Stats {
            longest_win: 0,
            longest_loss: 0,
        };
        let mut out_of_range = false;
        let mut deepest: Option<(u32, u64)> = None;
        read_records(&self.logs[side], |depth, entries| {
            let d = u32::from(depth);
            let v = if d % 2 == 0 {
                Value::loss(d)
            } else {
                Value::win(d)
            };
            let Some(v) = v else {
                out_of_range = true;
                return;
            };
            let (f, e) = v.to_planes();
            for &i in entries {
                if let (Some(a), Some(b)) = (first.get_mut(i as usize), ext.get_mut(i as usize)) {
                    *a = f;
                    *b = e;
                } else {
                    out_of_range = true;
                }
            }
            if deepest.is_none_or(|(x, _)| d > x) {
                if let Some(&e) = entries.iter().find(|&&e| example(e)) {
                    deepest = Some((d, e));
                }
            }
            if d % 2 == 0 {
                losses += entries.len() as u64;
                stats.longest_loss = stats.longest_loss.max(d);
            } else {
                wins += entries.len() as u64;
                stats.longest_win = stats.longest_win.max(d);
            }
        })?;
        if out_of_range {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{:?}: an entry or depth out of range", self.logs[side]),
            ));
        }
        Ok(SidePlanes {
            first,
            ext,
            wins,
            losses,
            stats,
            deepest,
        })
    }
}

/// One side's values (see [`Compacted::side_planes`]).
pub struct SidePlanes {
    /// The first byte of each value.
    pub first: Vec<u8>,
    /// The extension byte of each value.
    pub ext: Vec<u8>,
    /// Wins of the side to move.
    pub wins: u64,
    /// Losses of the side to move.
    pub losses: u64,
    /// The longest win and loss.
    pub stats: Stats,
    /// The deepest depth with an entry the example filter accepts, and the first such entry.
    pub deepest: Option<(u32, u64)>,
}

/// The compact solver of one pawnless material (see the module docs), in DTM or another metric
/// of its family (`M`, see [`Mating`]).
pub struct CompactSolver<'a, T: Tables + Sync, M: Mating = Dtm> {
    material: Material,
    ix: IndexScheme,
    slots: Vec<(Color, Role)>,
    n: usize,
    plans: Vec<Option<ExitPlan>>,
    sub: &'a T,
    /// The state bytes of the entries this rank owns (`share.lo()..share.hi()`), per side.
    state: ByColor<Atomics<AtomicU8>>,
    work: PathBuf,
    sub_error: Mutex<Option<SubTableError>>,
    too_many_moves: std::sync::atomic::AtomicBool,
    /// When the passes checkpoint.
    policy: Policy,
    /// The king placements this rank owns (the whole table when it is alone).
    share: Share,
    metric: PhantomData<fn() -> M>,
}

/// One rank's solver of a solve split over ranks ([`CompactSolver::split`]): the solver and
/// how it talks to the other ranks, which only the thread that calls [`Split::solve`] uses.
pub struct Split<'a, T: Tables + Sync> {
    solver: CompactSolver<'a, T>,
    exchange: &'a dyn Exchange,
}

impl<T: Tables + Sync> Split<'_, T> {
    /// Checkpoints (and, in the tests of resuming, stops) as `policy` says.
    pub(crate) fn with_policy(mut self, policy: Policy) -> Self {
        self.solver.policy = policy;
        self
    }

    /// Solves this rank's share together with the other ranks (see [`CompactSolver::solve`]):
    /// the value logs are of its own entries, the legal bits of its share (bit `i` of entry
    /// `share.lo() + i`).
    ///
    /// # Errors
    /// As [`CompactSolver::solve`], and an exchange between the ranks that failed.
    pub fn solve(self, progress: &dyn Progress) -> Result<Compacted, SolveError> {
        self.solver.solve_with(progress, Some(self.exchange))
    }
}

/// Wall time between checkpoints of the passes by default (a checkpoint of KRNvKNN writes
/// 8.6 GB).
pub const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_secs(600);

/// When the passes of a solve checkpoint.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Policy {
    /// Wall time between checkpoints.
    pub(crate) every: std::time::Duration,
    /// For tests: stop (with an error) before completing this depth, as a killed build would.
    pub(crate) stop_at: Option<usize>,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            every: CHECKPOINT_EVERY,
            stop_at: None,
        }
    }
}

impl Policy {
    /// The clock of a run of passes, from the checkpoint it resumed from; `began` is when
    /// the solve began, its init included, so that a checkpoint is due at the first depth
    /// when the init alone took longer than [`Policy::every`] (a 6-piece init is half an hour
    /// on one thread, lost if the build is stopped before the passes' first checkpoint).
    fn start(&self, resumed: Option<&checkpoint::Mark>, began: Instant) -> Clock {
        Clock {
            every: self.every,
            since: began,
            generation: resumed.map(|m| m.depth),
        }
    }
}

/// When the next checkpoint is due, and the generation of the last.
struct Clock {
    every: std::time::Duration,
    since: Instant,
    generation: Option<usize>,
}

impl Clock {
    /// Whether a checkpoint is due before completing depth `d`.
    fn due(&self, d: usize) -> bool {
        d > 0 && self.since.elapsed() >= self.every && self.generation != Some(d)
    }

    /// A checkpoint of depth `d` is written.
    fn saved(&mut self, d: usize) {
        self.since = Instant::now();
        self.generation = Some(d);
    }

    /// Saves a checkpoint of a solve's passes before depth `mark.depth` (`kind`'s files in
    /// `work`: the state bytes, the frontier `cur`, `extra`, `mark`), replacing the previous
    /// one, and notes it; `what` names the solve in the log.
    fn save(
        &mut self,
        what: &str,
        ckpt: (&Path, &str),
        state: &ByColor<Atomics<AtomicU8>>,
        cur: &Frontier,
        extra: &[u8],
        mark: &checkpoint::Mark,
    ) -> io::Result<()> {
        let t = Instant::now();
        let (work, kind) = ckpt;
        checkpoint::save(work, kind, state, cur, extra, mark, self.generation)?;
        log::info!(
            "{what}: checkpoint at depth {} in {:.1} s",
            mark.depth,
            t.elapsed().as_secs_f64()
        );
        self.saved(mark.depth);
        Ok(())
    }
}

/// Syncs the value log of each side to disk and returns its length (white's first): what a
/// checkpoint records of the logs, so that a resumed solve cuts them back to it.
fn sync_logs(logs: &ByColor<Mutex<DepthLog>>) -> io::Result<ByColor<u64>> {
    let mut lens = ByColor::new_with(|_| 0u64);
    for side in SIDES {
        if let Ok(mut g) = logs[side].lock() {
            lens[side] = g.sync()?;
        }
    }
    Ok(lens)
}

/// Marks in `cur` (whose first entry is `lo`) each entry of `side` in the seed file `path` (none when it is absent) that
/// `take` accepts; `take` may decide the entry's state byte on the way. How both compact
/// solves join a depth's seeds to its frontier.
fn mark_seeds(
    path: &Path,
    side: Color,
    cur: &Frontier,
    lo: u64,
    take: impl Fn(u64) -> bool,
) -> io::Result<()> {
    read_records(path, |_, entries| {
        for &i in entries {
            if take(i) {
                cur.mark(side, i - lo);
            }
        }
    })
}

/// A long loop's progress in the log (at info, every 5%), with the time it has left at the rate
/// so far: the progress bar's figures where there is no terminal.
pub(crate) struct EtaLog {
    what: String,
    start: Instant,
    total: u64,
    next: u64,
    /// The steps done before this run (a resumed loop's rate counts only its own).
    from: u64,
}

impl EtaLog {
    /// A loop of `total` steps, named `what` in the log.
    pub(crate) fn new(what: String, total: u64) -> EtaLog {
        EtaLog {
            what,
            start: Instant::now(),
            total: total.max(1),
            next: 1,
            from: 0,
        }
    }

    /// The same loop resumed with `done` steps done before.
    pub(crate) fn resumed(mut self, done: u64) -> EtaLog {
        self.from = done.min(self.total);
        self.next = 100 * self.from / self.total / 5 + 1;
        self
    }

    /// `done` steps are done.
    pub(crate) fn update(&mut self, done: u64) {
        let pct = 100 * done / self.total;
        if pct < 5 * self.next {
            return;
        }
        self.next = pct / 5 + 1;
        let spent = self.start.elapsed().as_secs_f64();
        let ran = done.saturating_sub(self.from).max(1);
        let left = spent * (self.total - done.min(self.total)) as f64 / ran as f64;
        log::info!(
            "{}: {pct}% in {spent:.0} s, about {left:.0} s left",
            self.what
        );
    }
}

/// The entries marked in a frontier, both sides.
fn marked(cur: &Frontier) -> u64 {
    cur.bits
        .iter()
        .map(|b| {
            b.par_iter()
                .map(|w| u64::from(w.load(Relaxed).count_ones()))
                .sum::<u64>()
        })
        .sum()
}

/// The kind of the DTM passes' checkpoints.
pub(crate) const CKPT: &str = "dtm";

/// The value log of `side` in `work` (named by the side's number, `king_slot`: 0 white, 1
/// black).
pub(crate) fn value_log_path(work: &Path, side: Color) -> PathBuf {
    work.join(format!("values-{}.bin", king_slot(side)))
}

/// Per side and depth, the file of the seeds of the init pass (named by the side's number,
/// `king_slot`: 0 white, 1 black).
fn seed_path(work: &Path, side: Color, depth: usize) -> PathBuf {
    work.join(format!("seeds-{}-{depth}.bin", king_slot(side)))
}

/// What one chunk of the init pass found: per side and depth, the seeds (ascending entries).
type ChunkSeeds = Vec<((Color, usize), Vec<u64>)>;

/// The moves of one position as the init pass sums them up.
struct Summary {
    /// Distinct in-table successors.
    count: usize,
    keys: [u64; 256],
    /// Legal moves.
    moves: usize,
    best_exit: Option<Value>,
    longest_losing_exit: u32,
}

impl<'a, T: Tables + Sync> CompactSolver<'a, T> {
    /// A DTM solver for `material` (canonical, without pawns) that looks captures up in `sub`
    /// and keeps its work files in `work` (created if need be).
    ///
    /// # Errors
    /// A material with pawns, or a work directory that cannot be made.
    pub fn new(material: Material, sub: &'a T, work: &Path) -> Result<Self, SolveError> {
        CompactSolver::of_metric(material, sub, work)
    }

    /// The solver of one rank of a solve split over ranks by king placement (see [`share`]):
    /// it owns `exchange.share(..)` of the table, keeps its work files in its own directory
    /// inside `work` ([`Share::work`]), and solves together with the other ranks, which call
    /// the same methods in the same order. The value logs of all ranks together are the whole
    /// table's.
    ///
    /// # Errors
    /// As [`CompactSolver::new`].
    pub fn split(
        material: Material,
        sub: &'a T,
        work: &Path,
        exchange: &'a dyn Exchange,
    ) -> Result<Split<'a, T>, SolveError> {
        let ix = IndexScheme::new(material);
        let share = share::share_of(exchange, &ix).map_err(|source| SolveError::Exchange {
            material: material.name(),
            source,
        })?;
        Ok(Split {
            solver: Self::with_share(material, sub, &share.work(work), share)?,
            exchange,
        })
    }
}

impl<'a, T: Tables + Sync, M: Mating> CompactSolver<'a, T, M> {
    /// As [`CompactSolver::new`], in the metric `M`.
    ///
    /// # Errors
    /// As [`CompactSolver::new`].
    pub(crate) fn of_metric(
        material: Material,
        sub: &'a T,
        work: &Path,
    ) -> Result<Self, SolveError> {
        let ix = IndexScheme::new(material);
        let share = Share::whole(&ix);
        Self::with_share(material, sub, work, share)
    }

    fn with_share(
        material: Material,
        sub: &'a T,
        work: &Path,
        share: Share,
    ) -> Result<Self, SolveError> {
        if material.has_pawns() {
            return Err(SolveError::Pawns(material.name()));
        }
        std::fs::create_dir_all(work).map_err(|e| SolveError::Work(work.to_path_buf(), e))?;
        let ix = IndexScheme::new(material);
        let size = share.len();
        let state = || Atomics::<AtomicU8>::zeroed(size as usize, Pages::Huge);
        Ok(CompactSolver {
            material,
            slots: ix.slots().to_vec(),
            n: ix.piece_count(),
            plans: exit_plans(ix.slots()),
            ix,
            sub,
            state: ByColor::new_with(|_| state()),
            work: work.to_path_buf(),
            sub_error: Mutex::new(None),
            too_many_moves: std::sync::atomic::AtomicBool::new(false),
            policy: Policy::default(),
            share,
            metric: PhantomData,
        })
    }

    /// Checkpoints (and, in the tests of resuming, stops) as `policy` says.
    pub(crate) fn with_policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    fn note_sub_error(&self, e: SubTableError) {
        if let Ok(mut g) = self.sub_error.lock() {
            if g.is_none() {
                *g = Some(e);
            }
        }
    }

    /// The checkpoint to resume from: this rank's own, when every rank has one of the same
    /// depth; else none, and the work of an earlier start is cleared (ranks stopped between
    /// their checkpoints start again together).
    fn agree_on(
        &self,
        mark: Option<checkpoint::Mark>,
        exchange: Option<&dyn Exchange>,
    ) -> Result<Option<checkpoint::Mark>, SolveError> {
        let Some(x) = exchange else {
            return Ok(mark);
        };
        let keep = share::agree(mark.as_ref().map(|m| m.depth), x, self.share.ranks)
            .map_err(|e| self.exchange_error(e))?;
        if keep {
            return Ok(mark);
        }
        share::start_again(&self.work).map_err(|e| self.io(e))?;
        Ok(None)
    }

    /// Solves the material (see the module docs); `progress` shows the passes.
    ///
    /// # Errors
    /// A sub-table that cannot be read, a work file that cannot be written or read, a mate
    /// longer than the passes go.
    pub fn solve(self, progress: &dyn Progress) -> Result<Compacted, SolveError> {
        self.solve_with(progress, None)
    }

    /// [`CompactSolver::solve`], as one of the ranks of `exchange` when there is one.
    fn solve_with(
        self,
        progress: &dyn Progress,
        exchange: Option<&dyn Exchange>,
    ) -> Result<Compacted, SolveError> {
        let started = Instant::now();
        let resume = checkpoint::mark(&self.work, CKPT).map_err(|e| self.io(e))?;
        let resume = self.agree_on(resume, exchange)?;
        let (mates, max_seed) = match &resume {
            Some(m) => {
                log::info!(
                    "{}: resuming the passes at depth {} from {}",
                    self.material.name(),
                    m.depth,
                    self.work.display()
                );
                (Vec::new(), 0)
            }
            None => {
                let (kept, max_seed) = passes::init(&self, progress)?;
                let mates = kept
                    .into_iter()
                    .flat_map(|((side, _), entries)| entries.into_iter().map(move |i| (side, i)))
                    .collect();
                (mates, max_seed)
            }
        };
        log::info!(
            "{}: init {:.1} s, {}",
            self.material.name(),
            started.elapsed().as_secs_f64(),
            crate::kernel::memory_in_use()
        );
        let depths = self.retrograde(progress, mates, max_seed, (resume, started), exchange)?;
        let legal = self.legal_bits();
        let positions = legal
            .as_ref()
            .map(|l| l.iter().map(|w| u64::from(w.count_ones())).sum());
        log::info!(
            "{}: solved, {depths} depths, {:.1} s, {}",
            self.material.name(),
            started.elapsed().as_secs_f64(),
            crate::kernel::memory_in_use()
        );
        Ok(Compacted {
            material: self.material,
            positions,
            legal,
            logs: ByColor::new_with(|s| self.log_path(s)),
            depths,
        })
    }

    fn log_path(&self, side: Color) -> PathBuf {
        value_log_path(&self.work, side)
    }

    /// Per side, a bit per legal entry, from the state bytes.
    fn legal_bits(&self) -> ByColor<Vec<u64>> {
        ByColor::new_with(|side| {
            self.state[side]
                .par_chunks(64)
                .map(|c| {
                    c.iter().enumerate().fold(0u64, |w, (k, s)| {
                        w | (u64::from(s.load(Relaxed) != UNUSED) << k)
                    })
                })
                .collect()
        })
    }

    /// The value of the capture of `side` to `after` (the piece in slot `skip` taken), for
    /// the mover; `None` after noting an error.
    fn exit_move_value(&self, after: &Squares, skip: usize, side: Color) -> Option<Value> {
        capture_value::<M, T>(&self.plans, self.sub, after, skip, side)
            .map_err(|e| self.note_sub_error(e))
            .ok()
    }

    /// The moves of `side` in `sq` (entry `idx`): exits valued, in-table successors counted
    /// (as distinct entries where two may coincide). `false` if the position is not legal.
    fn summarize(
        &self,
        sq: &Squares,
        idx: u64,
        side: Color,
        lt: &mut LegalTargets,
        out: &mut Summary,
    ) -> bool {
        if !legal_targets(&self.slots, sq, self.n, side, lt) {
            return false;
        }
        let occ = lt.occ;
        let dedupe = self.ix.may_coincide(sq, side.other());
        out.count = 0;
        out.moves = 0;
        out.best_exit = None;
        out.longest_losing_exit = 0;
        for i in 0..self.n {
            let mut targets = lt.targets[i];
            if targets == 0 {
                continue;
            }
            if !dedupe {
                let quiet = targets & !occ;
                out.count += quiet.count_ones() as usize;
                out.moves += quiet.count_ones() as usize;
                targets &= occ;
            }
            while targets != 0 {
                let to = targets.trailing_zeros() as u8;
                targets &= targets - 1;
                out.moves += 1;
                let mut after = *sq;
                after[i] = to;
                if occ & (1u64 << to) != 0 {
                    let Some(j) = (2..self.n).find(|&j| sq[j] == to) else {
                        continue;
                    };
                    if let Some(v) = self.exit_move_value(&after, j, side) {
                        out.best_exit = Some(out.best_exit.map_or(v, |b| b.max(v)));
                        if v.wdl() == Wdl::Loss {
                            out.longest_losing_exit = out.longest_losing_exit.max(v.plies());
                        }
                    }
                    continue;
                }
                let child = self
                    .ix
                    .moved(idx, sq, i, to)
                    .or_else(|| self.ix.index(&after));
                if let Some(c) = child {
                    if !out.keys[..out.count].contains(&c) && out.count < out.keys.len() {
                        out.keys[out.count] = c;
                        out.count += 1;
                    }
                }
            }
        }
        true
    }

    /// The longest losing capture of `side` in entry `idx`, in plies (0 if none).
    fn longest_losing_exit(&self, idx: u64, side: Color) -> u32 {
        let Some(sq) = self.ix.decode(idx) else {
            return 0;
        };
        let mut lt = LegalTargets::new();
        if !legal_targets(&self.slots, &sq, self.n, side, &mut lt) {
            return 0;
        }
        let mut longest = 0;
        for i in 0..self.n {
            let mut caps = lt.targets[i] & lt.occ;
            while caps != 0 {
                let to = caps.trailing_zeros() as u8;
                caps &= caps - 1;
                let Some(j) = (2..self.n).find(|&j| sq[j] == to) else {
                    continue;
                };
                let mut after = sq;
                after[i] = to;
                if let Some(v) = self.exit_move_value(&after, j, side) {
                    if v.wdl() == Wdl::Loss {
                        longest = longest.max(v.plies());
                    }
                }
            }
        }
        longest
    }

    /// The depth-by-depth passes from the mates and the seeds; returns the number of depths.
    fn retrograde(
        &self,
        progress: &dyn Progress,
        mates: Vec<(Color, u64)>,
        mut max_seed: usize,
        (resume, began): (Option<checkpoint::Mark>, Instant),
        exchange: Option<&dyn Exchange>,
    ) -> Result<usize, SolveError> {
        let size = self.share.len();
        let lo = self.share.lo();
        progress.begin(&self.material.name(), "depth", None);
        let cur = Frontier::new(size);
        let next = Frontier::new(size);
        for (side, idx) in mates {
            cur.mark(side, idx - lo);
        }
        let mut late: BTreeMap<usize, Vec<(Color, u64)>> = BTreeMap::new();
        let mut d = 0usize;
        let mut decided_total = 0u64;
        let mut lens = ByColor::new_with(|_| 0u64);
        if let Some(m) = &resume {
            let extra =
                checkpoint::load(&self.work, CKPT, m, &self.state, &cur).map_err(|e| self.io(e))?;
            let triples = checkpoint::unpack_triples(&extra)
                .ok_or_else(|| self.io(io::Error::other("a damaged checkpoint")))?;
            for (l, side, i) in triples {
                late.entry(l).or_default().push((side, i));
            }
            let [ms, dt, l0, l1] = m.numbers[..] else {
                return Err(self.io(io::Error::other("a damaged checkpoint mark")));
            };
            let l = ByColor {
                white: l0,
                black: l1,
            };
            (max_seed, decided_total, lens, d) = (ms as usize, dt, l, m.depth);
        }
        let open = |s: Color| {
            DepthLog::open(self.log_path(s), lens[s])
                .map(Mutex::new)
                .map_err(|e| self.io(e))
        };
        let logs = ByColor {
            white: open(Color::White)?,
            black: open(Color::Black)?,
        };
        let passes = Passes {
            metric: self,
            progress,
            cur,
            next,
            schedule: DtmSchedule {
                max_seed,
                late,
                decided_total,
            },
            logs: vec![logs],
            partitions: self.partitions(),
            clock: self.policy.start(resume.as_ref(), began),
            scheduled: false,
            exchange,
        };
        let (d, _) = passes.run(d)?;
        progress.end();
        Ok(d)
    }

    /// The partitions of a pass over this rank's king placements (see
    /// [`kernel::pass::partitions`]), numbered from its first placement.
    fn partitions(&self) -> Vec<(Color, Vec<u64>)> {
        share::own_partitions(partitions(&self.ix), &self.share)
    }
}

/// The predecessors a task found that other ranks own, batched per rank.
struct Outbox<'p> {
    post: Option<&'p Post>,
    share: Share,
    bufs: Vec<Vec<u64>>,
}

impl<'p> Outbox<'p> {
    fn new(share: Share, post: Option<&'p Post>) -> Outbox<'p> {
        Outbox {
            post,
            share,
            bufs: vec![Vec::new(); if post.is_some() { share.ranks } else { 0 }],
        }
    }

    /// Adds predecessor `p` (`mover` to move; `flag`, see [`share::encode`]) for its rank,
    /// sending a full batch.
    #[inline]
    fn push(&mut self, mover: Color, p: u64, flag: bool) {
        let Some(post) = self.post else {
            return;
        };
        let r = self.share.owner(p);
        if let Some(b) = self.bufs.get_mut(r) {
            b.push(encode(mover, p, flag));
            if b.len() >= BATCH {
                post.send(r, std::mem::take(b));
            }
        }
    }

    /// Sends what is left.
    fn flush(&mut self) {
        let Some(post) = self.post else {
            return;
        };
        for (r, b) in self.bufs.iter_mut().enumerate() {
            if !b.is_empty() {
                post.send(r, std::mem::take(b));
            }
        }
    }
}

/// The value, for the mover `side`, of its capture of the piece in slot `skip` that leads to
/// `after`: the sub-table's value of `after` as the metric `M` values an exit
/// ([`Mating::exit_child`]), one ply further.
///
/// # Errors
/// No plan for the capture, or a sub-table that cannot be probed.
pub(crate) fn capture_value<M: Mating, T: Tables>(
    plans: &[Option<ExitPlan>],
    sub: &T,
    after: &Squares,
    skip: usize,
    side: Color,
) -> Result<Value, SubTableError> {
    let Some(Some(plan)) = plans.get(plan_slot(skip, None)) else {
        return Err(SubTableError::NoExitPlan {
            slot: skip,
            promotion: None,
        });
    };
    if plan.key() == 0 {
        return Ok(Value::DRAW);
    }
    let (table, swap) = sub.table_by_key(plan.key())?;
    let idx = table
        .scheme()
        .index(&plan.map(after, swap))
        .ok_or_else(|| ProbeError::NotIndexable(table.material().name()))?;
    // The opponent is to move after the capture; in the table's own orientation, the colours
    // are exchanged when `swap`.
    let child_side = if swap { side } else { side.other() };
    let child = table.get(child_side, idx)?;
    Value::from_child(M::exit_child(child)).ok_or(SubTableError::Probe(ProbeError::Overflow))
}

/// Appends `run` to `log` as a record of `depth`, keeping the first error in `failed`.
fn flush_run(log: &Mutex<DepthLog>, depth: u16, run: &mut Run, failed: &Mutex<Option<io::Error>>) {
    if run.len() == 0 {
        return;
    }
    let r = match log.lock() {
        Ok(mut g) => g.append(depth, run),
        Err(_) => Err(io::Error::other("a work file's lock was poisoned")),
    };
    if let Err(e) = r {
        if let Ok(mut f) = failed.lock() {
            f.get_or_insert(e);
        }
    }
}

/// What the DTM passes schedule for later depths, and what their checkpoints keep.
pub(crate) struct DtmSchedule {
    /// The deepest depth the init pass seeded.
    max_seed: usize,
    /// Losses decided before their depth, by depth: (side, entry).
    late: BTreeMap<usize, Vec<(Color, u64)>>,
    /// Entries decided so far.
    decided_total: u64,
}

impl<T: Tables + Sync, M: Mating> CompactMetric for CompactSolver<'_, T, M> {
    type Error = SolveError;
    type Schedule = DtmSchedule;
    /// One value log per side; a node's depth is its DTM.
    const RUNS: &'static [(usize, u16)] = &[(0, 0)];
    const INIT: &'static str = "init";
    /// The side to move and the depth.
    type Seed = (Color, usize);

    fn init_chunk(&self, start: u64, end: u64) -> ChunkSeeds {
        let mut lt = LegalTargets::new();
        let mut sum = Summary {
            count: 0,
            keys: [0; 256],
            moves: 0,
            best_exit: None,
            longest_losing_exit: 0,
        };
        // Per side, by depth.
        let mut seeds: ByColor<BTreeMap<usize, Vec<u64>>> = ByColor::new_with(|_| BTreeMap::new());
        let lo = self.share.lo();
        for idx in start..end {
            let local = (idx - lo) as usize;
            let Some(sq) = self.ix.decode(idx) else {
                for st in &self.state {
                    st[local].store(UNUSED, Relaxed);
                }
                continue;
            };
            for side in SIDES {
                let st = &self.state[side][local];
                if !self.summarize(&sq, idx, side, &mut lt, &mut sum) {
                    st.store(UNUSED, Relaxed);
                    continue;
                }
                if sum.moves == 0 {
                    let occ = occupancy(&sq, self.n);
                    if attacked(
                        &self.slots,
                        &sq,
                        sq[king_slot(side)],
                        side.other(),
                        occ,
                        usize::MAX,
                    ) {
                        st.store(DECIDED, Relaxed);
                        seeds[side].entry(0).or_default().push(idx);
                    } else {
                        st.store(CANT_LOSE, Relaxed);
                    }
                    continue;
                }
                match sum.best_exit {
                    Some(v) if v.wdl() == Wdl::Win => {
                        st.store(CANT_LOSE, Relaxed);
                        seeds[side].entry(v.plies() as usize).or_default().push(idx);
                        continue;
                    }
                    Some(v) if v.wdl() == Wdl::Draw => {
                        st.store(CANT_LOSE, Relaxed);
                        continue;
                    }
                    _ => {}
                }
                if sum.count == 0 {
                    // Every move a losing capture: lost as late as the longest.
                    st.store(CANT_LOSE, Relaxed);
                    seeds[side]
                        .entry(sum.longest_losing_exit as usize)
                        .or_default()
                        .push(idx);
                    continue;
                }
                if sum.count > usize::from(MAX_COUNT) {
                    self.too_many_moves.store(true, Relaxed);
                    continue;
                }
                let lossy = if sum.longest_losing_exit > 0 {
                    LOSSY
                } else {
                    0
                };
                st.store(sum.count as u8 | lossy, Relaxed);
            }
        }
        // White's first, each side's by depth.
        seeds
            .zip_color()
            .into_iter()
            .flat_map(|(side, m)| m.into_iter().map(move |(depth, v)| ((side, depth), v)))
            .collect()
    }

    fn seed_file(&self, &(side, depth): &(Color, usize)) -> Option<(PathBuf, usize)> {
        // The mates start the passes.
        (depth > 0).then(|| (seed_path(&self.work, side, depth), depth))
    }

    fn store(&self) -> Store<'_> {
        Store {
            material: self.material,
            ix: &self.ix,
            slots: &self.slots,
            state: &self.state,
            share: self.share,
            work: &self.work,
            policy: self.policy,
        }
    }

    #[inline]
    fn node(&self, _side: Color, _local: u64, d: usize) -> Option<(bool, usize)> {
        Some((d.is_multiple_of(2), 0))
    }

    #[inline]
    fn update_one(
        &self,
        l: u64,
        mover: Color,
        _lost: bool,
        d: usize,
        next: &Frontier,
        later: &mut Vec<Later>,
    ) {
        let Some(st) = self.state[mover].get(l as usize) else {
            return;
        };
        let s = st.load(Relaxed);
        if d.is_multiple_of(2) {
            if s < DECIDED {
                st.store(DECIDED, Relaxed);
                next.mark(mover, l);
            }
        } else if s < CANT_LOSE {
            // A count (never 0: a position is decided when its count runs out).
            if s & !LOSSY > 1 {
                st.store(s - 1, Relaxed);
                return;
            }
            st.store(DECIDED, Relaxed);
            let exit = if s & LOSSY != 0 {
                self.longest_losing_exit(l + self.share.lo(), mover) as usize
            } else {
                0
            };
            let at = M::loss_at(d + 1, exit);
            if at.by_exit {
                later.push((at.depth, mover, l));
            } else {
                next.mark(mover, l);
            }
        }
    }

    fn complete(
        &self,
        d: usize,
        schedule: &mut DtmSchedule,
        cur: &Frontier,
    ) -> Result<bool, SolveError> {
        // Seeds of this depth, losses decided earlier for it.
        let lo = self.share.lo();
        for side in SIDES {
            mark_seeds(&seed_path(&self.work, side, d), side, cur, lo, |i| {
                self.state[side].get((i - lo) as usize).is_some_and(|st| {
                    let fresh = st.load(Relaxed) != DECIDED;
                    if fresh {
                        st.store(DECIDED, Relaxed);
                    }
                    fresh
                })
            })
            .map_err(|e| self.io(e))?;
        }
        for (side, i) in schedule.late.remove(&d).unwrap_or_default() {
            cur.mark(side, i);
        }
        Ok(d < schedule.max_seed || !schedule.late.is_empty())
    }

    fn hold(
        &self,
        _d: usize,
        schedule: &mut DtmSchedule,
        later: Vec<Later>,
    ) -> Result<(), SolveError> {
        for (l, side, i) in later {
            schedule.late.entry(l).or_default().push((side, i));
        }
        Ok(())
    }

    fn checkpoint(
        &self,
        d: usize,
        schedule: &DtmSchedule,
        logs: &[ByColor<Mutex<DepthLog>>],
        cur: &Frontier,
        clock: &mut Clock,
    ) -> Result<(), SolveError> {
        let lens = sync_logs(&logs[0]).map_err(|e| self.io(e))?;
        let extra = checkpoint::pack_triples(
            schedule
                .late
                .iter()
                .flat_map(|(&l, v)| v.iter().map(move |&(side, i)| (l, side, i))),
        );
        let mark = checkpoint::Mark {
            depth: d,
            numbers: vec![
                schedule.max_seed as u64,
                schedule.decided_total,
                lens.white,
                lens.black,
            ],
        };
        clock
            .save(
                &self.material.name(),
                (&self.work, CKPT),
                &self.state,
                cur,
                &extra,
                &mark,
            )
            .map_err(|e| self.io(e))
    }

    fn describe(&self, schedule: &mut DtmSchedule, count: u64) -> String {
        schedule.decided_total += count;
        format!(
            "{count} decided at this depth, {} in all",
            schedule.decided_total
        )
    }

    fn io(&self, e: io::Error) -> SolveError {
        SolveError::Work(self.work.clone(), e)
    }

    fn exchange_error(&self, e: share::ExchangeError) -> SolveError {
        SolveError::Exchange {
            material: self.material.name(),
            source: e,
        }
    }

    fn overflow(&self) -> SolveError {
        SolveError::Overflow(self.material.name())
    }

    fn check(&self) -> Result<(), SolveError> {
        if self.too_many_moves.load(Relaxed) {
            return Err(SolveError::TooManyMoves(self.material.name()));
        }
        if let Ok(mut g) = self.sub_error.lock() {
            if let Some(source) = g.take() {
                return Err(SolveError::SubTable {
                    material: self.material.name(),
                    source,
                });
            }
        }
        Ok(())
    }
}

/// The predecessors of node `idx` of a pawnless material (`side` to move) into `out`: the
/// entries, with the other side to move, from which a move of one of its pieces capturing
/// nothing leads to it; distinct where two un-moves may reach the same entry. Origins from which
/// the piece (or a piece it uncovers) would attack the king of `side` give no position and are
/// left out.
fn predecessors(
    ix: &IndexScheme,
    slots: &[(Color, Role)],
    idx: u64,
    side: Color,
    out: &mut Vec<u64>,
) {
    out.clear();
    let Some(sq) = ix.decode(idx) else {
        return;
    };
    let n = slots.len();
    let mc = side.other();
    let occ = occupancy(&sq, n);
    let dedupe = ix.may_coincide(&sq, side);
    let discovered = discovery_masks(slots, n, &sq, occ, side);
    for (i, &(c, role)) in slots.iter().enumerate() {
        if c != mc {
            continue;
        }
        let to = sq[i];
        let mut origins = attacks_from(c, role, to, occ)
            & !occ
            & legal_origins(slots, &sq, occ, side, i, &discovered);
        while origins != 0 {
            let from = origins.trailing_zeros() as u8;
            origins &= origins - 1;
            let p = ix.moved(idx, &sq, i, from).or_else(|| {
                let mut p = sq;
                p[i] = from;
                ix.index(&p)
            });
            if let Some(p) = p {
                if !dedupe || !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
