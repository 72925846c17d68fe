//! DTZ50 of a compact material, from the DTM solve's value logs, with one byte per entry and
//! side in memory, as Syzygy defines it (see `crate::dtz` for the rules and Syzygy's convention
//! for losses whose best move zeroes; without pawns, the zeroing moves are the captures).
//!
//! - **State**: a loser's count of quiet successors not yet decided (at most
//!   [`MAX_LOSER_COUNT`], plus [`HAS_CAPTURE`] when it has a capture, whose class is looked
//!   up again when the count runs out), [`WINNER`] (a win not yet decided), [`WIN`], [`LOSS`]
//!   and [`LOSS_ZEROES`] (decided; the last a loss whose best move zeroes, whose DTZ is one
//!   more than its depth), [`OUT`] (a draw, or no position).
//! - **Seeds**: wins by a capture into a loss (1) or a blessed loss (101), losses whose every
//!   move is a capture (at depth 0 or 100), and losses decided by a capture later than the
//!   depth that closed them, in work files by side and depth.
//! - **Values**: each depth's frontier is written as it is un-moved, wins to one log per side
//!   and losses to another, each record at the DTZ's magnitude.

use std::{
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

use super::{
    checkpoint, mark_seeds,
    passes::{self, CompactMetric, Later, Passes, Store},
    share::{self, Exchange, Share},
    sync_logs,
    worklog::{read_records, DepthLog, Run},
    Clock, Policy,
};
use crate::{
    dtz::Wdl50Tables,
    error::DtzError,
    kernel::{
        exits::{exit_plans, plan_slot, ExitPlan},
        frontier::Frontier,
        king_slot,
        memory::{Atomics, Pages},
        moves::{legal_targets, LegalTargets},
        pass::partitions,
        SIDES,
    },
    metric::{Dtz50, Zeroing},
    progress::Progress,
};
use retro_tables::{
    format::Stats,
    index::{IndexScheme, Squares},
    pieces::occupancy,
    Dtz, Material, Wdl50,
};

/// The largest count of a loser's quiet successors (below `WINNER` with `HAS_CAPTURE` added; a
/// 6-piece position has at most 116 moves).
const MAX_LOSER_COUNT: u8 = 120;
/// Added to a loser's count when it has a capture.
const HAS_CAPTURE: u8 = 128;
/// An undecided win.
const WINNER: u8 = 250;
/// A decided win.
const WIN: u8 = 251;
/// A decided loss.
const LOSS: u8 = 252;
/// A decided loss whose best move zeroes: its DTZ is one more than its depth.
const LOSS_ZEROES: u8 = 253;
/// Marks a loss before the init pass counts its moves.
const LOSER: u8 = 254;
/// A draw, or no position.
const OUT: u8 = 255;

/// What a DTZ50 solve leaves: its logs.
pub struct DtzLogs {
    material: Material,
    /// Per side, the wins by DTZ.
    wins: ByColor<PathBuf>,
    /// Per side, the losses by the magnitude of their DTZ.
    losses: ByColor<PathBuf>,
}

/// One side's DTZ50 numbers as a table stores them (see [`Dtz::to_stored`]), in two planes.
pub struct DtzPlanes {
    /// First bytes.
    pub first: Vec<u8>,
    /// Extension bytes.
    pub ext: Vec<u8>,
    /// Per entry, whether it is a win or a loss (kept in the file).
    pub kept: Vec<u64>,
    /// The longest DTZ of a win and of a loss.
    pub stats: Stats,
    /// The longest win of an entry the example filter accepts, and the first such entry.
    pub deepest_win: Option<(u32, u64)>,
}

impl DtzLogs {
    /// The logs a DTZ50 solve of `material` leaves in `work`.
    pub fn in_work(material: Material, work: &Path) -> DtzLogs {
        DtzLogs {
            material,
            wins: ByColor::new_with(|s| log_path(work, true, s)),
            losses: ByColor::new_with(|s| log_path(work, false, s)),
        }
    }

    /// Every entry's exact DTZ with `side` to move (a loss's too), draws and non-positions 0.
    #[cfg(test)]
    pub(crate) fn exact(&self, side: Color) -> io::Result<Vec<Dtz>> {
        let n = IndexScheme::new(self.material).size() as usize;
        let mut out = vec![Dtz::DRAW; n];
        for (win, path) in [(true, &self.wins[side]), (false, &self.losses[side])] {
            read_records(path, |depth, entries| {
                let d = Dtz(if win { depth as i16 } else { -(depth as i16) });
                for &i in entries {
                    if let Some(o) = out.get_mut(i as usize) {
                        *o = d;
                    }
                }
            })?;
        }
        Ok(out)
    }

    /// The stored numbers with `side` to move (see [`Dtz::stored_to_planes`]), from the logs;
    /// the longest win's example is an entry `example` accepts.
    ///
    /// # Errors
    /// A log that cannot be read, or an entry out of range.
    pub fn side_planes(&self, side: Color, example: impl Fn(u64) -> bool) -> io::Result<DtzPlanes> {
        let n = IndexScheme::new(self.material).size() as usize;
        let mut first = vec![0u8; n];
        let mut ext = vec![0u8; n];
        let mut kept = vec![0u64; n.div_ceil(64)];
        let mut stats = Stats {
            longest_win: 0,
            longest_loss: 0,
        };
        let mut bad = false;
        let mut deepest_win: Option<(u32, u64)> = None;
        for (win, path) in [(true, &self.wins[side]), (false, &self.losses[side])] {
            read_records(path, |depth, entries| {
                let dtz = Dtz(if win { depth as i16 } else { -(depth as i16) });
                let (f, e) = Dtz::stored_to_planes(dtz.to_stored());
                for &i in entries {
                    let i = i as usize;
                    match (first.get_mut(i), ext.get_mut(i), kept.get_mut(i / 64)) {
                        (Some(a), Some(b), Some(k)) => {
                            *a = f;
                            *b = e;
                            *k |= 1 << (i % 64);
                        }
                        _ => bad = true,
                    }
                }
                if win {
                    let d = u32::from(depth);
                    if deepest_win.is_none_or(|(x, _)| d > x) {
                        if let Some(&e) = entries.iter().find(|&&e| example(e)) {
                            deepest_win = Some((d, e));
                        }
                    }
                    stats.longest_win = stats.longest_win.max(u32::from(depth));
                } else {
                    stats.longest_loss = stats.longest_loss.max(u32::from(depth));
                }
            })?;
        }
        if bad {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: a DTZ50 log holds an entry out of range",
                    self.material.name()
                ),
            ));
        }
        Ok(DtzPlanes {
            first,
            ext,
            kept,
            stats,
            deepest_win,
        })
    }
}

/// The DTZ50 solver of a compact material (or, as `CompactDtz<M>`, of another [`Zeroing`]
/// metric).
pub struct CompactDtz<'a, M = Dtz50> {
    material: Material,
    ix: IndexScheme,
    slots: Vec<(Color, Role)>,
    n: usize,
    plans: Vec<Option<ExitPlan>>,
    sub: &'a Wdl50Tables,
    state: ByColor<Atomics<AtomicU8>>,
    work: PathBuf,
    error: Mutex<Option<DtzError>>,
    /// When the passes checkpoint.
    policy: Policy,
    /// The king placements this rank owns (the whole table when it is alone).
    share: Share,
    metric: PhantomData<fn() -> M>,
}

/// One rank's DTZ50 solver of a solve split over ranks ([`CompactDtz::split`]).
pub struct DtzSplit<'a, M = Dtz50> {
    solver: CompactDtz<'a, M>,
    exchange: &'a dyn Exchange,
}

impl<M: Zeroing> DtzSplit<'_, M> {
    /// Checkpoints (and, in the tests of resuming, stops) as `policy` says.
    pub(crate) fn with_policy(mut self, policy: Policy) -> Self {
        self.solver.policy = policy;
        self
    }

    /// Solves this rank's share together with the other ranks (see [`CompactDtz::solve`]);
    /// the logs are of its own entries.
    ///
    /// # Errors
    /// As [`CompactDtz::solve`], and an exchange between the ranks that failed.
    pub fn solve(self, progress: &dyn Progress) -> Result<DtzLogs, DtzError> {
        self.solver.solve_with(progress, Some(self.exchange))
    }
}

/// The kind of the DTZ50 passes' checkpoints.
pub(crate) const CKPT: &str = "dtz";

/// The log of the wins or losses of `side` (named by the side's number, `king_slot`: 0 white,
/// 1 black).
pub(crate) fn log_path(work: &Path, win: bool, side: Color) -> PathBuf {
    let kind = if win { "wins" } else { "losses" };
    work.join(format!("dtz-{kind}-{}.bin", king_slot(side)))
}

/// The seeds of the wins or losses of `side` at `depth` (named as `log_path`).
fn seed_path(work: &Path, win: bool, side: Color, depth: usize) -> PathBuf {
    let kind = if win { "w" } else { "l" };
    work.join(format!("dtz-seeds-{kind}-{}-{depth}.bin", king_slot(side)))
}

/// The log lengths a checkpoint mark holds (after its first two numbers): the wins' logs,
/// the losses' logs, the late seeds' files, each white's then black's.
#[derive(Clone, Copy)]
enum Logged {
    Wins = 0,
    Losses = 1,
    LateSeeds = 2,
}

/// The place of the length of `side`'s file of kind `what` among a mark's log lengths.
const fn mark_slot(what: Logged, side: Color) -> usize {
    2 * what as usize + king_slot(side)
}

impl<'a> CompactDtz<'a> {
    /// A solver for `material` whose DTM value logs are `dtm_logs` (per side, see
    /// [`super::Compacted`]), with its captures' classes in `sub` and its work files in
    /// `work`.
    ///
    /// # Errors
    /// A value log that cannot be read.
    pub fn new(
        material: Material,
        dtm_logs: &ByColor<PathBuf>,
        sub: &'a Wdl50Tables,
        work: &Path,
    ) -> Result<Self, DtzError> {
        Self::of_metric(material, dtm_logs, sub, work)
    }

    /// The DTZ50 solver of one rank of a solve split over ranks by king placement (see
    /// [`super::share`]; the DTM logs are the whole table's): it owns `exchange.share(..)`,
    /// keeps its work files in its own directory inside `work`, and solves together with the
    /// other ranks.
    ///
    /// # Errors
    /// As [`CompactDtz::new`].
    pub fn split(
        material: Material,
        dtm_logs: &ByColor<PathBuf>,
        sub: &'a Wdl50Tables,
        work: &Path,
        exchange: &'a dyn Exchange,
    ) -> Result<DtzSplit<'a>, DtzError> {
        Self::split_metric(material, dtm_logs, sub, work, exchange)
    }
}

impl<'a, M: Zeroing> CompactDtz<'a, M> {
    /// A solver of the metric `M`, as [`CompactDtz::new`] (the classes in `sub` are those
    /// under `M`'s rule).
    ///
    /// # Errors
    /// As [`CompactDtz::new`].
    pub(crate) fn of_metric(
        material: Material,
        dtm_logs: &ByColor<PathBuf>,
        sub: &'a Wdl50Tables,
        work: &Path,
    ) -> Result<Self, DtzError> {
        let share = Share::whole(&IndexScheme::new(material));
        Self::with_share(material, dtm_logs, sub, work, share)
    }

    /// One rank's solver of the metric `M`, as [`CompactDtz::split`].
    ///
    /// # Errors
    /// As [`CompactDtz::new`].
    pub(crate) fn split_metric(
        material: Material,
        dtm_logs: &ByColor<PathBuf>,
        sub: &'a Wdl50Tables,
        work: &Path,
        exchange: &'a dyn Exchange,
    ) -> Result<DtzSplit<'a, M>, DtzError> {
        let share = share::share_of(exchange, &IndexScheme::new(material)).map_err(|source| {
            DtzError::Exchange {
                material: material.name(),
                source,
            }
        })?;
        let work = share.work(work);
        std::fs::create_dir_all(&work).map_err(|e| DtzError::Work(work.clone(), e))?;
        Ok(DtzSplit {
            solver: Self::with_share(material, dtm_logs, sub, &work, share)?,
            exchange,
        })
    }

    fn with_share(
        material: Material,
        dtm_logs: &ByColor<PathBuf>,
        sub: &'a Wdl50Tables,
        work: &Path,
        share: Share,
    ) -> Result<Self, DtzError> {
        let ix = IndexScheme::new(material);
        let size = share.len() as usize;
        let lo = share.lo();
        let state = ByColor::new_with(|_| {
            let s = Atomics::<AtomicU8>::zeroed(size, Pages::Huge);
            s.par_iter().for_each(|b| b.store(OUT, Relaxed));
            s
        });
        for side in SIDES {
            read_records(&dtm_logs[side], |depth, entries| {
                let mark = if depth % 2 == 1 { WINNER } else { LOSER };
                entries.par_iter().for_each(|&i| {
                    if let Some(b) = state[side].get(i.wrapping_sub(lo) as usize) {
                        b.store(mark, Relaxed);
                    }
                });
            })
            .map_err(|e| DtzError::Work(dtm_logs[side].clone(), e))?;
        }
        Ok(CompactDtz {
            material,
            slots: ix.slots().to_vec(),
            n: ix.piece_count(),
            plans: exit_plans(ix.slots()),
            ix,
            sub,
            state,
            work: work.to_path_buf(),
            error: Mutex::new(None),
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

    fn note(&self, e: DtzError) {
        if let Ok(mut g) = self.error.lock() {
            g.get_or_insert(e);
        }
    }

    /// Solves: the init pass, then the passes depth by depth; returns the logs.
    ///
    /// # Errors
    /// A sub-table class that cannot be read, a work file, or a position that contradicts its
    /// DTM value.
    pub fn solve(self, progress: &dyn Progress) -> Result<DtzLogs, DtzError> {
        self.solve_with(progress, None)
    }

    /// [`CompactDtz::solve`], as one of the ranks of `exchange` when there is one.
    fn solve_with(
        self,
        progress: &dyn Progress,
        exchange: Option<&dyn Exchange>,
    ) -> Result<DtzLogs, DtzError> {
        let t = Instant::now();
        let mut resume = checkpoint::mark(&self.work, CKPT).map_err(|e| self.io(e))?;
        if let Some(x) = exchange {
            let keep = share::agree(resume.as_ref().map(|m| m.depth), x, self.share.ranks)
                .map_err(|e| self.exchange_error(e))?;
            if !keep {
                share::start_again(&self.work).map_err(|e| self.io(e))?;
                resume = None;
            }
        }
        let max_seed = match resume {
            Some(_) => 0,
            None => passes::init(&self, progress)?.1,
        };
        log::info!(
            "{}: DTZ50 init {:.1} s",
            self.material.name(),
            t.elapsed().as_secs_f64()
        );
        self.passes(progress, max_seed, (resume, t), exchange)?;
        log::info!(
            "{}: DTZ50 solved in {:.1} s",
            self.material.name(),
            t.elapsed().as_secs_f64()
        );
        Ok(DtzLogs::in_work(self.material, &self.work))
    }

    fn log_path(&self, win: bool, side: Color) -> PathBuf {
        log_path(&self.work, win, side)
    }

    /// The class, for the opponent (to move after it), of the capture of slot `skip` by
    /// `side` that leads to `after`; `None` after noting an error.
    fn capture_class(&self, after: &Squares, skip: usize, side: Color) -> Option<Wdl50> {
        let Some(Some(plan)) = self.plans.get(plan_slot(skip, None)) else {
            self.note(DtzError::MissingSubTable(format!(
                "{} (no exit plan for slot {skip})",
                self.material.name()
            )));
            return None;
        };
        match self.sub.class(plan, after, side.other()) {
            Ok(c) => Some(c),
            Err(e) => {
                self.note(e);
                None
            }
        }
    }

    /// The plies of the captures of `side` in `sq` for a winner (the fewest: 1 into a loss,
    /// 101 into a blessed loss, 0 for none) or a loser (the most: 1 into a win, 101 into a
    /// cursed win); `None` after noting an error.
    fn capture_plies(&self, sq: &Squares, lt: &LegalTargets, side: Color, winner: bool) -> u16 {
        let mut exit = 0u16;
        for i in 0..self.n {
            let mut caps = lt.targets[i] & lt.occ;
            while caps != 0 {
                let to = caps.trailing_zeros() as u8;
                caps &= caps - 1;
                let Some(j) = (2..self.n).find(|&j| sq[j] == to) else {
                    continue;
                };
                let mut after = *sq;
                after[i] = to;
                let Some(theirs) = self.capture_class(&after, j, side) else {
                    continue;
                };
                let plies = match M::exit(winner, theirs) {
                    Ok(Some(plies)) => plies,
                    Ok(None) => continue,
                    Err(c) => {
                        self.note(DtzError::Inconsistent {
                            material: self.material.name(),
                            idx: self.ix.index(sq).unwrap_or(u64::MAX),
                            side,
                            why: crate::dtz::Inconsistency::LossWithMoveTo(c),
                        });
                        continue;
                    }
                };
                exit = match (exit, winner) {
                    (0, _) => plies,
                    (e, true) => e.min(plies),
                    (e, false) => e.max(plies),
                };
            }
        }
        exit
    }

    /// The passes, depth by depth, from the seeds.
    fn passes(
        &self,
        progress: &dyn Progress,
        mut max_seed: usize,
        (resume, began): (Option<checkpoint::Mark>, Instant),
        exchange: Option<&dyn Exchange>,
    ) -> Result<(), DtzError> {
        let size = self.share.len();
        progress.begin(&self.material.name(), "DTZ50 depth", None);
        let cur = Frontier::new(size);
        let next = Frontier::new(size);
        let mut late_after = 0usize;
        let mut d = 0usize;
        // Log lengths: see `mark_slot`.
        let mut lens = [0u64; 6];
        if let Some(m) = &resume {
            checkpoint::load(&self.work, CKPT, m, &self.state, &cur).map_err(|e| self.io(e))?;
            let [ms, la, ref rest @ ..] = m.numbers[..] else {
                return Err(self.io(io::Error::other("a damaged checkpoint mark")));
            };
            if rest.len() != 6 {
                return Err(self.io(io::Error::other("a damaged checkpoint mark")));
            }
            lens.copy_from_slice(rest);
            (max_seed, late_after, d) = (ms as usize, la as usize, m.depth);
            for side in SIDES {
                let path = seed_path(&self.work, false, side, late_depth::<M>());
                if path.exists() {
                    std::fs::OpenOptions::new()
                        .write(true)
                        .open(&path)
                        .and_then(|f| f.set_len(lens[mark_slot(Logged::LateSeeds, side)]))
                        .map_err(|e| self.io(e))?;
                }
            }
        }
        let open = |win: bool, s: Color| {
            let what = if win { Logged::Wins } else { Logged::Losses };
            let keep = lens[mark_slot(what, s)];
            DepthLog::open(self.log_path(win, s), keep)
                .map(Mutex::new)
                .map_err(|e| self.io(e))
        };
        let wins = ByColor {
            white: open(true, Color::White)?,
            black: open(true, Color::Black)?,
        };
        let losses = ByColor {
            white: open(false, Color::White)?,
            black: open(false, Color::Black)?,
        };
        let passes = Passes {
            metric: self,
            progress,
            cur,
            next,
            schedule: DtzSchedule {
                max_seed,
                late_after,
            },
            logs: vec![wins, losses],
            partitions: share::own_partitions(partitions(&self.ix), &self.share),
            clock: self.policy.start(resume.as_ref(), began),
            scheduled: false,
            exchange,
        };
        passes.run(d)?;
        progress.end();
        Ok(())
    }

    /// A loser's worst capture (plies, see `capture_plies`).
    fn worst_capture(&self, idx: u64, side: Color) -> u16 {
        let Some(sq) = self.ix.decode(idx) else {
            return 0;
        };
        let mut lt = LegalTargets::new();
        if !legal_targets(&self.slots, &sq, self.n, side, &mut lt) {
            return 0;
        }
        self.capture_plies(&sq, &lt, side, false)
    }
}

/// The depth of losses whose best move is a capture into a cursed win (the metric's long
/// exit, 101 plies for DTZ50): one less.
const fn late_depth<M: Zeroing>() -> usize {
    M::LONG_EXIT as usize - 1
}

/// What the DTZ50 passes schedule for later depths, and what their checkpoints keep besides.
pub(crate) struct DtzSchedule {
    /// The deepest depth the init pass seeded.
    max_seed: usize,
    /// The depth of the late losses, once there are any.
    late_after: usize,
}

impl<M: Zeroing> CompactMetric for CompactDtz<'_, M> {
    type Error = DtzError;
    type Schedule = DtzSchedule;
    /// Two logs per side, the wins' and the losses'; a loss whose best move zeroes is
    /// recorded one ply past its depth (its DTZ's magnitude).
    const RUNS: &'static [(usize, u16)] = &[(0, 0), (1, 0), (1, 1)];
    const INIT: &'static str = "DTZ50 init";
    /// Wins or losses, the side to move, the depth.
    type Seed = (bool, Color, usize);

    /// The init of entries `start..end`: their seeds by (win, side, depth), the losses' first,
    /// each side's (white's first) by depth.
    fn init_chunk(&self, start: u64, end: u64) -> Vec<((bool, Color, usize), Vec<u64>)> {
        use std::collections::BTreeMap;
        let mut lt = LegalTargets::new();
        let mut keys: Vec<u64> = Vec::with_capacity(128);
        // Per side, by depth.
        let mut wins: ByColor<BTreeMap<usize, Vec<u64>>> = ByColor::new_with(|_| BTreeMap::new());
        let mut losses: ByColor<BTreeMap<usize, Vec<u64>>> = ByColor::new_with(|_| BTreeMap::new());
        let lo = self.share.lo();
        for idx in start..end {
            let local = (idx - lo) as usize;
            let open = ByColor::new_with(|s| {
                let b = self.state[s][local].load(Relaxed);
                b == WINNER || b == LOSER
            });
            if !open.white && !open.black {
                continue;
            }
            let Some(sq) = self.ix.decode(idx) else {
                continue;
            };
            for (side, open) in open.zip_color() {
                if !open {
                    continue;
                }
                let st = &self.state[side][local];
                let winner = st.load(Relaxed) == WINNER;
                if !legal_targets(&self.slots, &sq, self.n, side, &mut lt) {
                    st.store(OUT, Relaxed);
                    continue;
                }
                let occ = occupancy(&sq, self.n);
                if winner {
                    let exit = self.capture_plies(&sq, &lt, side, true);
                    if exit > 0 {
                        wins[side].entry(usize::from(exit)).or_default().push(idx);
                    }
                    continue;
                }
                // A loser: its quiet successors (distinct where two may coincide).
                let dedupe = self.ix.may_coincide(&sq, side.other());
                let (mut count, mut captures, mut moves) = (0usize, false, 0u32);
                keys.clear();
                for i in 0..self.n {
                    let t = lt.targets[i];
                    moves += t.count_ones();
                    captures |= t & occ != 0;
                    let mut quiet = t & !occ;
                    if !dedupe {
                        count += quiet.count_ones() as usize;
                        continue;
                    }
                    while quiet != 0 {
                        let to = quiet.trailing_zeros() as u8;
                        quiet &= quiet - 1;
                        let mut after = sq;
                        after[i] = to;
                        if let Some(k) = self
                            .ix
                            .moved(idx, &sq, i, to)
                            .or_else(|| self.ix.index(&after))
                        {
                            if !keys.contains(&k) {
                                keys.push(k);
                            }
                        }
                    }
                }
                if dedupe {
                    count = keys.len();
                }
                if moves == 0 {
                    // Checkmated: -1, at depth 0.
                    st.store(LOSS_ZEROES, Relaxed);
                    losses[side].entry(0).or_default().push(idx);
                    continue;
                }
                if count == 0 {
                    // Every move a capture: as a mate, at one ply less than its DTZ.
                    let exit = self.capture_plies(&sq, &lt, side, false);
                    if exit == 0 {
                        continue;
                    }
                    st.store(LOSS_ZEROES, Relaxed);
                    losses[side]
                        .entry(M::loss_at(0, usize::from(exit)).depth)
                        .or_default()
                        .push(idx);
                    continue;
                }
                if count > usize::from(MAX_LOSER_COUNT) {
                    self.note(DtzError::Overflow(self.material.name()));
                    continue;
                }
                st.store(
                    count as u8 | if captures { HAS_CAPTURE } else { 0 },
                    Relaxed,
                );
            }
        }
        [(false, losses), (true, wins)]
            .into_iter()
            .flat_map(|(win, by_side)| {
                by_side.zip_color().into_iter().flat_map(move |(side, m)| {
                    m.into_iter().map(move |(depth, v)| ((win, side, depth), v))
                })
            })
            .collect()
    }

    fn seed_file(&self, &(win, side, depth): &(bool, Color, usize)) -> Option<(PathBuf, usize)> {
        Some((seed_path(&self.work, win, side, depth), depth))
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
    fn node(&self, side: Color, local: u64, _d: usize) -> Option<(bool, usize)> {
        match self.state[side].get(local as usize)?.load(Relaxed) {
            WIN => Some((false, 0)),
            LOSS => Some((true, 1)),
            LOSS_ZEROES => Some((true, 2)),
            _ => None,
        }
    }

    #[inline]
    fn update_one(
        &self,
        l: u64,
        mover: Color,
        lost: bool,
        d: usize,
        next: &Frontier,
        later: &mut Vec<Later>,
    ) {
        let Some(st) = self.state[mover].get(l as usize) else {
            return;
        };
        let s = st.load(Relaxed);
        if lost {
            if s == WINNER {
                st.store(WIN, Relaxed);
                next.mark(mover, l);
            }
            return;
        }
        if s >= WINNER || s & !HAS_CAPTURE == 0 {
            return;
        }
        if s & !HAS_CAPTURE > 1 {
            st.store(s - 1, Relaxed);
            return;
        }
        let p = l + self.share.lo();
        let exit = if s & HAS_CAPTURE != 0 {
            self.worst_capture(p, mover)
        } else {
            0
        };
        if M::loss_at(d + 1, usize::from(exit)).by_exit {
            // Its best move is the capture (the long exit): one ply less than its DTZ, at
            // `late_depth`.
            st.store(LOSS_ZEROES, Relaxed);
            later.push((late_depth::<M>(), mover, p));
        } else {
            st.store(LOSS, Relaxed);
            next.mark(mover, l);
        }
    }

    fn complete(
        &self,
        d: usize,
        schedule: &mut DtzSchedule,
        cur: &Frontier,
    ) -> Result<bool, DtzError> {
        let lo = self.share.lo();
        for side in SIDES {
            for win in [true, false] {
                let path = seed_path(&self.work, win, side, d);
                mark_seeds(&path, side, cur, lo, |i| {
                    self.state[side].get((i - lo) as usize).is_some_and(|st| {
                        let v = st.load(Relaxed);
                        if win && v == WINNER {
                            st.store(WIN, Relaxed);
                            true
                        } else {
                            !win && (v == LOSS || v == LOSS_ZEROES)
                        }
                    })
                })
                .map_err(|e| self.io(e))?;
            }
        }
        Ok(d < schedule.max_seed || d < schedule.late_after)
    }

    fn hold(
        &self,
        _d: usize,
        schedule: &mut DtzSchedule,
        later: Vec<Later>,
    ) -> Result<(), DtzError> {
        // Late losses join at depth 100 (one less than their zeroing move into a cursed
        // win): one record per side, ascending.
        for side in SIDES {
            let mut mine: Vec<u64> = later
                .iter()
                .filter(|(_, x, _)| *x == side)
                .map(|&(_, _, i)| i)
                .collect();
            mine.sort_unstable();
            let mut run = Run::default();
            for i in mine {
                run.push(i);
            }
            if run.len() > 0 {
                let path = seed_path(&self.work, false, side, late_depth::<M>());
                let mut f = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&path)
                    .map_err(|e| self.io(e))?;
                run.write_to(late_depth::<M>() as u16, &mut f)
                    .map_err(|e| self.io(e))?;
                schedule.late_after = late_depth::<M>();
            }
        }
        Ok(())
    }

    fn checkpoint(
        &self,
        d: usize,
        schedule: &DtzSchedule,
        logs: &[ByColor<Mutex<DepthLog>>],
        cur: &Frontier,
        clock: &mut Clock,
    ) -> Result<(), DtzError> {
        let mut lens = [0u64; 6];
        for (what, logs) in [(Logged::Wins, &logs[0]), (Logged::Losses, &logs[1])] {
            let synced = sync_logs(logs).map_err(|e| self.io(e))?;
            for side in SIDES {
                lens[mark_slot(what, side)] = synced[side];
            }
        }
        for side in SIDES {
            let path = seed_path(&self.work, false, side, late_depth::<M>());
            lens[mark_slot(Logged::LateSeeds, side)] =
                std::fs::metadata(&path).map_or(0, |m| m.len());
        }
        let mut numbers = vec![schedule.max_seed as u64, schedule.late_after as u64];
        numbers.extend_from_slice(&lens);
        let mark = checkpoint::Mark { depth: d, numbers };
        clock
            .save(
                &format!("{} DTZ50", self.material.name()),
                (&self.work, CKPT),
                &self.state,
                cur,
                &[],
                &mark,
            )
            .map_err(|e| self.io(e))
    }

    fn describe(&self, _schedule: &mut DtzSchedule, count: u64) -> String {
        format!("DTZ50: {count} decided at this depth")
    }

    fn io(&self, e: io::Error) -> DtzError {
        DtzError::Work(self.work.clone(), e)
    }

    fn exchange_error(&self, e: share::ExchangeError) -> DtzError {
        DtzError::Exchange {
            material: self.material.name(),
            source: e,
        }
    }

    fn overflow(&self) -> DtzError {
        DtzError::Overflow(self.material.name())
    }

    fn check(&self) -> Result<(), DtzError> {
        match self.error.lock().ok().and_then(|mut g| g.take()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
