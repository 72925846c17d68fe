//! The retrograde passes of a compact solve, for either metric: the frontier by depth
//! (`kernel::depths`) over the state bytes, each pass's tasks un-moving their nodes as a
//! software pipeline, logging them by depth and handing the predecessors other ranks own to
//! them, with a checkpoint when one is due. What differs between the metrics (what a node of the
//! frontier is, what becomes of a predecessor, what joins a depth's frontier, what a
//! checkpoint keeps) is a [`CompactMetric`].

use std::{
    io,
    path::{Path, PathBuf},
    sync::{atomic::AtomicU8, Mutex},
    time::Instant,
};

use rayon::prelude::*;
use shakmaty::{ByColor, Color, Role};

use super::{
    flush_run, marked, predecessors,
    share::{self, Exchange, ExchangeError, Post, Share},
    worklog::{DepthLog, Run, SeedFiles},
    Clock, EtaLog, Outbox, Policy, CHUNK, RUN_BYTES,
};
use crate::{
    kernel::{
        depths::{by_depth, Depths},
        frontier::Frontier,
        memory::Atomics,
        pass::{run_pass, PassTask},
        prefetch,
    },
    progress::Progress,
};
use retro_tables::{index::IndexScheme, Material};

/// The deepest depth of a compact solve: a 6-piece mate, or a cursed win, is at most a few
/// hundred plies.
pub(crate) const MAX_DEPTH: usize = 4000;

/// A decided entry the passes hold back for a later depth (that depth, the side to move, the
/// entry as the metric numbers it).
pub(crate) type Later = (usize, Color, u64);

/// What the passes read of a compact solver's store.
pub(crate) struct Store<'s> {
    pub(crate) material: Material,
    pub(crate) ix: &'s IndexScheme,
    pub(crate) slots: &'s [(Color, Role)],
    /// The state bytes of the entries this rank owns, per side.
    pub(crate) state: &'s ByColor<Atomics<AtomicU8>>,
    /// The king placements this rank owns.
    pub(crate) share: Share,
    pub(crate) work: &'s Path,
    pub(crate) policy: Policy,
}

/// What a metric brings to the compact passes.
pub(crate) trait CompactMetric: Sync {
    /// Why a solve fails.
    type Error;
    /// What the metric schedules for later depths, and what else its checkpoints keep.
    type Schedule;
    /// The runs a task logs its nodes into: per run, the log (an index into the passes'
    /// logs) and the depth recorded, past the pass's own.
    const RUNS: &'static [(usize, u16)];
    /// What the init pass names in the progress and the log.
    const INIT: &'static str;
    /// What a seed of the init pass is decided as, its depth among it.
    type Seed: Send;

    /// The init pass over entries `start..end`: each entry's state, and the seeds by kind
    /// (each kind's entries ascending).
    fn init_chunk(&self, start: u64, end: u64) -> Vec<(Self::Seed, Vec<u64>)>;

    /// The work file and depth of a kind of seed; `None` for seeds the passes start from,
    /// kept in memory (the DTM solve's mates; the DTZ50 solve writes every seed to a file).
    fn seed_file(&self, seed: &Self::Seed) -> Option<(PathBuf, usize)>;

    /// The store the passes work on.
    fn store(&self) -> Store<'_>;

    /// Whether node `local` (`side` to move) of depth `d`'s frontier is lost, and the run it
    /// is logged in; `None` when it is no node to un-move.
    fn node(&self, side: Color, local: u64, d: usize) -> Option<(bool, usize)>;

    /// Updates predecessor `l` (local, `mover` to move) of a node decided at depth `d`, lost
    /// or not: what it decides for `d + 1` is marked in `next`, what it decides for a later
    /// depth goes to `later`.
    fn update_one(
        &self,
        l: u64,
        mover: Color,
        lost: bool,
        d: usize,
        next: &Frontier,
        later: &mut Vec<Later>,
    );

    /// Joins to `cur` what is decided for depth `d` (seeds, and what the passes held back);
    /// returns whether this rank has anything scheduled after `d`.
    ///
    /// # Errors
    /// A work file that cannot be read.
    fn complete(
        &self,
        d: usize,
        schedule: &mut Self::Schedule,
        cur: &Frontier,
    ) -> Result<bool, Self::Error>;

    /// What the pass from depth `d` held back, into the schedule.
    ///
    /// # Errors
    /// A work file that cannot be written.
    fn hold(
        &self,
        d: usize,
        schedule: &mut Self::Schedule,
        later: Vec<Later>,
    ) -> Result<(), Self::Error>;

    /// Saves a checkpoint of the passes before depth `d` (frontier `cur`, value logs `logs`)
    /// with `clock`.
    ///
    /// # Errors
    /// A work file that cannot be written.
    fn checkpoint(
        &self,
        d: usize,
        schedule: &Self::Schedule,
        logs: &[ByColor<Mutex<DepthLog>>],
        cur: &Frontier,
        clock: &mut Clock,
    ) -> Result<(), Self::Error>;

    /// What the progress shows of depth `d`'s `count` nodes.
    fn describe(&self, schedule: &mut Self::Schedule, count: u64) -> String;

    /// A work file's error.
    fn io(&self, e: io::Error) -> Self::Error;
    /// An exchange's error.
    fn exchange_error(&self, e: ExchangeError) -> Self::Error;
    /// A depth past [`MAX_DEPTH`].
    fn overflow(&self) -> Self::Error;
    /// The first error the tasks noted.
    ///
    /// # Errors
    /// That error.
    fn check(&self) -> Result<(), Self::Error>;
}

/// The seeds an init pass keeps in memory, by kind.
pub(crate) type Kept<M> = Vec<(<M as CompactMetric>::Seed, Vec<u64>)>;

/// The init pass over the entries this rank owns, in chunks taken by the threads in batches:
/// every entry's state and the seeds, written to their files (in chunk order, so that each
/// file's entries ascend). Returns the seeds kept in memory and the deepest seed written.
///
/// # Errors
/// The first error of a chunk, a seed file that cannot be written, or a seed past
/// [`MAX_DEPTH`].
pub(crate) fn init<M: CompactMetric>(
    m: &M,
    progress: &dyn Progress,
) -> Result<(Kept<M>, usize), M::Error> {
    let store = m.store();
    let (lo, hi) = (store.share.lo(), store.share.hi());
    let chunks = (hi - lo).div_ceil(CHUNK);
    let name = store.material.name();
    progress.begin(&name, M::INIT, Some(chunks));
    let mut files = SeedFiles::default();
    let mut eta = EtaLog::new(format!("{name} {}", M::INIT), chunks);
    let mut kept = Vec::new();
    let mut max_seed = 0;
    let mut c0 = 0;
    let batch = 64 * rayon::current_num_threads() as u64;
    while c0 < chunks {
        let c1 = (c0 + batch).min(chunks);
        let parts: Vec<_> = (c0..c1)
            .into_par_iter()
            .map(|c| {
                let part = m.init_chunk(lo + c * CHUNK, (lo + (c + 1) * CHUNK).min(hi));
                progress.advance(1);
                part
            })
            .collect();
        m.check()?;
        for part in parts {
            for (seed, entries) in part {
                let Some((path, depth)) = m.seed_file(&seed) else {
                    kept.push((seed, entries));
                    continue;
                };
                if depth > MAX_DEPTH {
                    return Err(m.overflow());
                }
                max_seed = max_seed.max(depth);
                files
                    .push(path, depth as u16, &entries)
                    .map_err(|e| m.io(e))?;
            }
        }
        c0 = c1;
        eta.update(c0);
    }
    files.finish().map_err(|e| m.io(e))?;
    progress.end();
    Ok((kept, max_seed))
}

/// The passes of one compact solve, depth by depth.
pub(crate) struct Passes<'s, M: CompactMetric> {
    pub(crate) metric: &'s M,
    pub(crate) progress: &'s dyn Progress,
    /// The entries decided at the current depth and at the next.
    pub(crate) cur: Frontier,
    pub(crate) next: Frontier,
    pub(crate) schedule: M::Schedule,
    /// The value logs, per side ([`CompactMetric::RUNS`] name them).
    pub(crate) logs: Vec<ByColor<Mutex<DepthLog>>>,
    pub(crate) partitions: Vec<(Color, Vec<u64>)>,
    pub(crate) clock: Clock,
    /// Whether any rank has something scheduled after the depth last completed.
    pub(crate) scheduled: bool,
    /// The other ranks, when the solve is split.
    pub(crate) exchange: Option<&'s dyn Exchange>,
}

impl<M: CompactMetric> Passes<'_, M> {
    /// Runs the passes from depth `first` until nothing is left; returns the depth they ended
    /// at, with the value logs synced to disk.
    ///
    /// # Errors
    /// The first error of a pass, a completion or a checkpoint.
    pub(crate) fn run(mut self, first: usize) -> Result<(usize, M::Schedule), M::Error> {
        let d = by_depth(&mut self, first)?;
        for log in self.logs.iter().flat_map(|l| l.iter()) {
            if let Ok(mut g) = log.lock() {
                g.sync().map_err(|e| self.metric.io(e))?;
                log::debug!(
                    "{}: value log {:?}",
                    self.metric.store().material.name(),
                    g.path()
                );
            }
        }
        Ok((d, self.schedule))
    }

    /// Sums `values` over the ranks (nothing to do alone).
    fn sum(&self, values: &mut [u64]) -> Result<(), M::Error> {
        match self.exchange {
            Some(x) => x.sum(values).map_err(|e| self.metric.exchange_error(e)),
            None => Ok(()),
        }
    }

    /// Un-moves from the nodes of depth `d` in `cur`, writing them to the value logs and
    /// deciding predecessors at `d + 1` into `next`; with other ranks, the predecessors they
    /// own are sent to them and those they send are applied here after the pass. Returns what
    /// was held back for later depths.
    fn unmove_pass(&self, d: usize) -> Result<Vec<Later>, M::Error> {
        let m = self.metric;
        let store = m.store();
        let king_stride = store.ix.king_stride();
        let failed = Mutex::new(None::<io::Error>);
        let (cur, next, parts, logs) = (&self.cur, &self.next, &self.partitions, &self.logs[..]);
        let mut later: Vec<Later> = match self.exchange {
            None => run_pass(cur, parts, king_stride, || {
                Task::new(m, d, next, logs, &failed, None)
            })
            .into_iter()
            .flat_map(|t| t.later)
            .collect(),
            Some(x) => {
                let mut theirs = Vec::new();
                let (mut later, received) = share::split_pass(
                    x,
                    &store.share,
                    store.work.join("inbox.bin"),
                    |post| {
                        let tasks = run_pass(cur, parts, king_stride, || {
                            Task::new(m, d, next, logs, &failed, Some(post))
                        });
                        let mut later = Vec::new();
                        for mut t in tasks {
                            t.out.flush();
                            later.append(&mut t.later);
                        }
                        later
                    },
                    |mover, l, lost| m.update_one(l, mover, lost, d, next, &mut theirs),
                )
                .map_err(|e| m.exchange_error(e))?;
                later.append(&mut theirs);
                log::debug!(
                    "{} rank {}: depth {d}: {received} predecessors received",
                    store.material.name(),
                    store.share.rank
                );
                later
            }
        };
        if let Some(e) = failed.into_inner().ok().flatten() {
            return Err(m.io(e));
        }
        m.check()?;
        later.shrink_to_fit();
        Ok(later)
    }
}

impl<M: CompactMetric> Depths for Passes<'_, M> {
    type Error = M::Error;

    fn complete(&mut self, d: usize) -> Result<u64, M::Error> {
        let m = self.metric;
        // Every rank checkpoints at the same depth: when any is due.
        let mut due = [u64::from(self.clock.due(d))];
        self.sum(&mut due)?;
        if due[0] > 0 {
            m.checkpoint(d, &self.schedule, &self.logs, &self.cur, &mut self.clock)?;
        }
        if m.store().policy.stop_at == Some(d) {
            return Err(m.io(io::Error::other("stopped for a test")));
        }
        let more = m.complete(d, &mut self.schedule, &self.cur)?;
        // The frontier of all ranks, and whether any has more to come.
        let mut v = [marked(&self.cur), u64::from(more)];
        self.sum(&mut v)?;
        self.scheduled = v[1] > 0;
        Ok(v[0])
    }

    fn scheduled_after(&self, _d: usize) -> bool {
        self.scheduled
    }

    fn pass(&mut self, d: usize, count: u64) -> Result<(), M::Error> {
        let m = self.metric;
        if d >= MAX_DEPTH {
            return Err(m.overflow());
        }
        let note = m.describe(&mut self.schedule, count);
        self.progress.at(d as u64, &note);
        let t = Instant::now();
        let later = self.unmove_pass(d)?;
        log::info!(
            "{}: depth {d}: {note}, pass {:.1} s, {}",
            m.store().material.name(),
            t.elapsed().as_secs_f64(),
            crate::kernel::memory_in_use()
        );
        m.hold(d, &mut self.schedule, later)?;
        std::mem::swap(&mut self.cur, &mut self.next);
        Ok(())
    }
}

/// A task of a pass: logs each node, generates its predecessors and updates those of the node
/// before (a software pipeline: the state bytes of one node's predecessors are prefetched
/// while the previous node's are updated).
struct Task<'s, M: CompactMetric> {
    metric: &'s M,
    store: Store<'s>,
    d: usize,
    next: &'s Frontier,
    logs: &'s [ByColor<Mutex<DepthLog>>],
    failed: &'s Mutex<Option<io::Error>>,
    preds: [Vec<u64>; 2],
    k: usize,
    /// The side to move and whether it lost, of the node whose predecessors wait in
    /// `preds[1 - k]`.
    pending: Option<(Color, bool)>,
    /// The nodes of the current partition, by run ([`CompactMetric::RUNS`]).
    runs: Vec<Run>,
    later: Vec<Later>,
    /// The predecessors of other ranks.
    out: Outbox<'s>,
}

impl<'s, M: CompactMetric> Task<'s, M> {
    fn new(
        metric: &'s M,
        d: usize,
        next: &'s Frontier,
        logs: &'s [ByColor<Mutex<DepthLog>>],
        failed: &'s Mutex<Option<io::Error>>,
        post: Option<&'s Post>,
    ) -> Self {
        let store = metric.store();
        let out = Outbox::new(store.share, post);
        Task {
            metric,
            store,
            d,
            next,
            logs,
            failed,
            preds: [Vec::with_capacity(256), Vec::with_capacity(256)],
            k: 0,
            pending: None,
            runs: M::RUNS.iter().map(|_| Run::default()).collect(),
            later: Vec::new(),
            out,
        }
    }

    /// Updates the predecessors waiting in `preds[1 - k]`, if a node left them there; those
    /// of other ranks go to the outbox.
    fn update_pending(&mut self) {
        let Some((side, lost)) = self.pending else {
            return;
        };
        let mover = side.other();
        let (lo, len) = (self.store.share.lo(), self.store.share.len());
        for &p in &self.preds[1 - self.k] {
            let l = p.wrapping_sub(lo);
            if l < len {
                self.metric
                    .update_one(l, mover, lost, self.d, self.next, &mut self.later);
            } else {
                self.out.push(mover, p, lost);
            }
        }
    }

    /// Appends the runs of `side` to their logs: all of them, or those grown large.
    fn flush(&mut self, side: Color, all: bool) {
        for (run, &(log, past)) in self.runs.iter_mut().zip(M::RUNS) {
            if all || run.bytes() > RUN_BYTES {
                let depth = self.d as u16 + past;
                flush_run(&self.logs[log][side], depth, run, self.failed);
            }
        }
    }
}

impl<M: CompactMetric> PassTask for Task<'_, M> {
    fn node(&mut self, side: Color, local: u64) {
        let Some((lost, run)) = self.metric.node(side, local, self.d) else {
            return;
        };
        let lo = self.store.share.lo();
        let idx = local + lo;
        self.runs[run].push(idx);
        let k = self.k;
        predecessors(
            self.store.ix,
            self.store.slots,
            idx,
            side,
            &mut self.preds[k],
        );
        for &p in &self.preds[k] {
            prefetch(&self.store.state[side.other()], p.wrapping_sub(lo) as usize);
        }
        self.update_pending();
        self.pending = Some((side, lost));
        self.k = 1 - k;
        self.flush(side, false);
    }

    fn end_partition(&mut self, side: Color) {
        self.update_pending();
        self.pending = None;
        self.flush(side, true);
    }
}
