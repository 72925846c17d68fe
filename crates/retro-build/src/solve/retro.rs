//! The retrograde passes: depth by depth, the un-moves from the nodes decided at one depth
//! decide their predecessors (see the module docs of `solve`).

use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;
use shakmaty::{ByColor, Color};

use super::{
    cell::{decided_cell, is_decided},
    init::Seeds,
    item::{item, item_idx, item_of_seed, item_side, Item},
    unmoves::Preds,
    SolveError, Solver, MAX_DEPTH,
};
use crate::kernel::{
    depths::{by_depth, Depths},
    frontier::Frontier,
    pass::{partitions, run_pass, Access, Pipelined, Unmove},
    SIDES,
};
use crate::{metric::Mating, progress::Progress};
use retro_tables::{Material, Tables, Value, Wdl};

/// The un-moves of one task of a pass from the nodes decided at depth `d`, with what their
/// updates gather; run as a software pipeline ([`Pipelined`]).
struct DtmUnmoves<'a, T: Tables + Sync + Default, M: Mating> {
    solver: &'a Solver<T, M>,
    d: usize,
    next: &'a Frontier,
    /// Predecessors newly marked in `next`.
    fresh: u64,
    /// Work done, for the logs.
    tally: Tally,
    /// Losses that their exits make longer, with their depth.
    later: Vec<(usize, Item)>,
    /// What this task alone touches during the pass (see `partitions`).
    access: Access,
}

impl<T: Tables + Sync + Default, M: Mating> Unmove for DtmUnmoves<'_, T, M> {
    type Node = Item;
    type Found = Preds;

    fn node(side: Color, idx: u64) -> Item {
        item(idx, side, 0)
    }

    #[inline]
    fn find(&mut self, it: Item, found: &mut Preds) {
        self.solver.predecessors(it, self.d, found);
        self.tally.nodes += 1;
        self.tally.generated += found.generated as u64;
        self.tally.updated += (found.np + found.nep) as u64;
    }

    #[inline]
    fn update(&mut self, found: &Preds) {
        self.solver.update_all(
            found,
            self.d,
            self.next,
            &mut self.fresh,
            &mut self.later,
            self.access,
        );
    }
}

/// A task of a DTM pass.
type Pipeline<'a, T, M> = Pipelined<DtmUnmoves<'a, T, M>>;

/// A task of the pass from depth `d`, marking what it decides at `d + 1` in `next`.
fn pipeline<'a, T: Tables + Sync + Default, M: Mating>(
    solver: &'a Solver<T, M>,
    d: usize,
    next: &'a Frontier,
    access: Access,
) -> Pipeline<'a, T, M> {
    let unmoves = DtmUnmoves {
        solver,
        d,
        next,
        fresh: 0,
        tally: Tally::default(),
        later: Vec::new(),
        access,
    };
    Pipelined::new(unmoves, [Preds::new(), Preds::new()])
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

/// What is decided at depths after the current one, by depth.
struct Schedule {
    /// Losses decided late by their exits (they join the frontier at their depth).
    late: Vec<Vec<Item>>,
    /// Per side, the seeds of the init pass (see `Seeds`).
    seeds: ByColor<Vec<Vec<u32>>>,
    /// En passant nodes decided by their capture.
    ep: Vec<Vec<Item>>,
}

impl Schedule {
    /// The schedule of the init pass's seeds, and its mates.
    fn new(seeds: Seeds) -> (Schedule, Vec<Item>) {
        let mut ep = vec![Vec::new(); MAX_DEPTH + 2];
        for (d, it) in seeds.ep {
            if d <= MAX_DEPTH {
                ep[d].push(it);
            }
        }
        let schedule = Schedule {
            late: vec![Vec::new(); MAX_DEPTH + 2],
            seeds: seeds.buckets,
            ep,
        };
        (schedule, seeds.mates)
    }

    /// Whether anything is scheduled after depth `d`.
    fn after(&self, d: usize) -> bool {
        self.late[d + 1..].iter().any(|b| !b.is_empty())
            || self
                .seeds
                .iter()
                .any(|s| s[d + 1..].iter().any(|b| !b.is_empty()))
            || self.ep[d + 1..].iter().any(|b| !b.is_empty())
    }

    /// Schedules late losses at their depths; `false` if one is past the deepest.
    fn defer(&mut self, later: Vec<(usize, Item)>) -> bool {
        for (l, it) in later {
            if l > MAX_DEPTH {
                return false;
            }
            self.late[l].push(it);
        }
        true
    }
}

/// Time and work of the retrograde passes, for the logs.
#[derive(Default)]
struct PassLog {
    /// Wall time of the completion of each depth.
    completion: std::time::Duration,
    /// Wall time of the un-move passes from losses (index 0: predecessors win) and from wins (1:
    /// their counters are lowered).
    unmoves: [std::time::Duration; 2],
    /// Work of those passes.
    tallies: [Tally; 2],
}

impl PassLog {
    fn log(&self, material: &Material) {
        log::debug!(
            "{}: retrograde passes: completion {:.2} s, un-moves {:.2} s",
            material.name(),
            self.completion.as_secs_f64(),
            (self.unmoves[0] + self.unmoves[1]).as_secs_f64()
        );
        for (k, what) in ["from losses", "from wins"].iter().enumerate() {
            let t = &self.tallies[k];
            log::debug!(
                "{}: un-moves {what}: {:.2} s, {} nodes, {} predecessors generated, {} updated",
                material.name(),
                self.unmoves[k].as_secs_f64(),
                t.nodes,
                t.generated,
                t.updated
            );
        }
    }
}

/// The DTM solve with cells in memory, depth by depth (see `kernel::depths`).
struct DtmDepths<'s, T: Tables + Sync + Default, M: Mating> {
    solver: &'s Solver<T, M>,
    progress: &'s dyn Progress,
    schedule: Schedule,
    /// The entries decided at the current depth (`cur`) and the next (`next`), as bitmaps: a
    /// pass reads `cur` in index order, so that neighbouring nodes have neighbouring
    /// predecessors and the cell updates hit the same cache lines and pages, and a node
    /// decided twice at the same depth is still one node.
    cur: Frontier,
    next: Frontier,
    /// How many entries `cur` holds.
    cur_count: u64,
    /// The en passant nodes of the current depth.
    ep_items: Vec<Item>,
    partitions: Vec<(Color, Vec<u64>)>,
    access: Access,
    log: PassLog,
}

impl<T: Tables + Sync + Default, M: Mating> Depths for DtmDepths<'_, T, M> {
    type Error = SolveError;

    fn complete(&mut self, d: usize) -> Result<u64, SolveError> {
        let t0 = std::time::Instant::now();
        let s = self.solver;
        self.cur_count += s.complete_depth(d, &mut self.schedule, &self.cur, self.access)?;
        self.ep_items = s.ep_nodes_at(d, &mut self.schedule);
        self.log.completion += t0.elapsed();
        Ok(self.cur_count + self.ep_items.len() as u64)
    }

    fn scheduled_after(&self, d: usize) -> bool {
        self.schedule.after(d)
    }

    fn pass(&mut self, d: usize, count: u64) -> Result<(), SolveError> {
        let s = self.solver;
        if d >= MAX_DEPTH - 1 {
            return Err(SolveError::Overflow(s.material.name()));
        }
        self.progress
            .at(d as u64, &format!("{count} positions decided"));
        let t1 = std::time::Instant::now();
        let (next_count, later, tally) = s.unmove_pass(
            d,
            &self.cur,
            &self.next,
            &self.partitions,
            &self.ep_items,
            self.access,
        );
        s.check_errors()?;
        if !self.schedule.defer(later) {
            return Err(SolveError::Overflow(s.material.name()));
        }
        self.log.unmoves[d % 2] += t1.elapsed();
        self.log.tallies[d % 2] += tally;
        std::mem::swap(&mut self.cur, &mut self.next);
        self.cur_count = next_count;
        Ok(())
    }
}

impl<T: Tables + Sync + Default, M: Mating> Solver<T, M> {
    /// The retrograde passes (see the module docs), depth by depth from the init pass's
    /// `seeds`, until nothing is decided or scheduled any more; returns the number of depths.
    pub(super) fn retrograde(
        &self,
        progress: &dyn Progress,
        seeds: Seeds,
    ) -> Result<usize, SolveError> {
        progress.begin(&self.material.name(), "retro depth", None);
        let size = self.ix.size();
        let (schedule, mates) = Schedule::new(seeds);
        let cur = Frontier::new(size);
        let mut cur_count = 0u64;
        for it in mates {
            cur_count += u64::from(cur.mark(item_side(it), item_idx(it)));
        }
        // A bitmap word holds 64 entries: one partition's alone when placements start on words.
        let access = Access::of_partitions(&self.ix);
        let mut depths = DtmDepths {
            solver: self,
            progress,
            schedule,
            cur,
            next: Frontier::new(size),
            cur_count,
            ep_items: Vec::new(),
            partitions: self.partitions(),
            access,
            log: PassLog::default(),
        };
        let d = by_depth(&mut depths, 0)?;
        depths.log.log(&self.material);
        Ok(d)
    }

    /// Completes the frontier of depth `d` in `cur`: entries decided late by their exits
    /// (losses) and seeds (wins through exits, losses with exits only). At one depth they are
    /// all wins or all losses, and each entry comes once. Returns how many newly joined it.
    fn complete_depth(
        &self,
        d: usize,
        schedule: &mut Schedule,
        cur: &Frontier,
        access: Access,
    ) -> Result<u64, SolveError> {
        let late = std::mem::take(&mut schedule.late[d]);
        let seeded = SIDES.map(|side| std::mem::take(&mut schedule.seeds[side][d]));
        let v = if d.is_multiple_of(2) {
            Value::byte_loss(d as u32)
        } else {
            Value::byte_win(d as u32)
        };
        // A depth past what the format stores is an overflow only if something is decided
        // there (after a loss in 254 plies, KPPvKP's longest, the pass finds only faster wins
        // and depth 255 stays empty).
        let v = match v {
            Some(v) => v,
            None if late.is_empty() && seeded.iter().all(Vec::is_empty) => return Ok(0),
            None => return Err(SolveError::Overflow(self.material.name())),
        };
        // The late losses were decided when their counter ran out; they only join the frontier
        // now.
        let mut count = late
            .par_iter()
            .map(|&it| u64::from(cur.mark(item_side(it), item_idx(it))))
            .sum::<u64>();
        for side_seeds in &seeded {
            count += self.complete_seeds(side_seeds, d, v, cur, access);
        }
        Ok(count)
    }

    /// The en passant nodes that their capture decides at depth `d`, unless their table entry
    /// was as good already.
    fn ep_nodes_at(&self, d: usize, schedule: &mut Schedule) -> Vec<Item> {
        let mut ep_items = std::mem::take(&mut schedule.ep[d]);
        ep_items.retain(|&it| {
            let (side, idx) = (item_side(it), item_idx(it) as usize);
            let q = self.value(side, idx);
            if d % 2 == 1 {
                !(q.wdl() == Wdl::Win && q.plies() as usize <= d)
            } else {
                q.wdl() == Wdl::Loss && (q.plies() as usize) < d
            }
        });
        ep_items
    }

    /// The un-moves from the nodes decided at depth `d` (`cur`, then the en passant nodes
    /// `ep_items`), marking what they decide at `d + 1` in `next`. One task per partition,
    /// each the only one to touch its predecessors; the threads take them largest first (by a
    /// sample of this depth's nodes), so that the pass ends with small ones. Returns how many
    /// were newly marked, the losses decided for later depths, and the work done.
    fn unmove_pass(
        &self,
        d: usize,
        cur: &Frontier,
        next: &Frontier,
        partitions: &[(Color, Vec<u64>)],
        ep_items: &[Item],
        access: Access,
    ) -> (u64, Vec<(usize, Item)>, Tally) {
        let tasks = run_pass(cur, partitions, self.ix.king_stride(), || {
            pipeline(self, d, next, access)
        });
        let (mut next_count, mut later, mut tally) = (0, Vec::new(), Tally::default());
        let mut gather = |pipe: Pipeline<'_, T, M>| {
            let u = pipe.finish();
            next_count += u.fresh;
            later.extend(u.later);
            tally += u.tally;
        };
        tasks.into_iter().for_each(&mut gather);
        // The en passant nodes: their predecessors may be another task's, so shared updates.
        ep_items
            .par_chunks(64)
            .map(|chunk| {
                let mut pipe = pipeline(self, d, next, Access::Shared);
                for &it in chunk {
                    pipe.push(it);
                }
                pipe
            })
            .collect::<Vec<_>>()
            .into_iter()
            .for_each(gather);
        (next_count, later, tally)
    }

    /// The tasks of a retrograde pass: (side to move in the nodes, king placements
    /// whose entries the task un-moves). A predecessor differs from its node only in a piece of
    /// the side that moved, so it has the kings of the side to move in the node on the same
    /// square, up to the symmetry its index applies; the tasks split the nodes by the class of
    /// that king's square (see `IndexScheme::square_class`), so no two touch the same
    /// predecessor and each may update them without atomic exchanges.
    fn partitions(&self) -> Vec<(Color, Vec<u64>)> {
        partitions(&self.ix)
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

    /// Updates predecessor `p` (`side` to move) of a node decided at depth `d`: a predecessor
    /// of a loss becomes a win in `d + 1`, a predecessor of a win has its counter lowered and is
    /// lost when it reaches zero; what is decided in `d + 1` is marked in `next` (counted in
    /// `fresh`), a loss its exits make longer goes to `later`. `access`: what no other thread
    /// touches during this pass.
    #[allow(clippy::too_many_arguments)]
    fn update(
        &self,
        p: u64,
        side: Color,
        child_lost: bool,
        d: usize,
        next: &Frontier,
        fresh: &mut u64,
        later: &mut Vec<(usize, Item)>,
        access: Access,
    ) {
        let pi = p as usize;
        if child_lost {
            let Some(w) = Value::byte_win(M::win_at(d) as u32) else {
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
                let at = M::loss_at(d + 1, exit);
                let Some(v) = Value::byte_loss(at.depth as u32) else {
                    self.overflow.store(true, Relaxed);
                    return;
                };
                if !at.by_exit {
                    *fresh += u64::from(self.decide_and_mark(side, p, v, next, access));
                } else {
                    // Its value is final now (no move of it is left to count down, and a
                    // lost entry is no predecessor of a loss), so it is decided at once, here
                    // where the stores are cheap; only its un-moves wait for depth `l`.
                    self.decide_in_pass(side, p, v, access);
                    later.push((at.depth, item(p, side, 0)));
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
    fn decide_in_pass(&self, side: Color, p: u64, v: Value, access: Access) {
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
        side: Color,
        p: u64,
        v: Value,
        next: &Frontier,
        access: Access,
    ) -> bool {
        self.decide_in_pass(side, p, v, access);
        next.mark_in_pass(side, p, access == Access::CellsAndBits)
    }
}
