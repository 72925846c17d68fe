//! The search: iterative deepening with principal-variation alpha-beta, aspiration windows,
//! quiescence search (with the transposition table: cutoffs, stored results, its move first), a
//! shared transposition table, move ordering (hash move, captures by MVV-LVA with static exchange
//! evaluation, killers, history kept from search to search), null-move pruning, late-move
//! reductions, late-move and futility pruning of quiet moves, reverse futility pruning, pruning
//! by static exchange (captures and quiet moves that lose material), internal iterative
//! reduction, check extensions, draw detection and exact scores from the endgame tables.
//! Several threads search the same tree through the shared table (lazy SMP).

use std::{
    sync::{
        atomic::{AtomicBool, AtomicU64, Ordering},
        Arc, Condvar, Mutex,
    },
    time::{Duration, Instant},
};

use shakmaty::{
    attacks,
    zobrist::{Zobrist64, ZobristValue},
    Bitboard, Board, CastlingSide, Chess, Color, EnPassantMode, Move, MoveList, Position, Role,
};

use super::rule50::{self, Outcome};
use super::tunables::*;
use super::{
    captures::captures,
    eval::{evaluate, piece_value, Evaluator},
    heuristics::{piece_to, Heuristics, HeuristicsPool, CONT_HISTORY, PIECE_TO},
    movepick::{first_best, history_index, see, MovePicker, QuietOrder, MAX_MOVES},
    nnue::{Accumulator, Delta, Network, RefreshCache, HIDDEN},
    report::{Score, SearchInfo},
    strength::Strength,
    time::{Budget, SearchLimits},
    tt::{Bound, Entry, TranspositionTable},
    vocab::{
        encode_move, hash_of, is_mate_score, mate_in, mated_in, moves_to_mate, score_from_tt,
        score_to_tt, tb_loss_in, tb_win_in, MATE_BOUND, TB_BOUND,
    },
    winrate as wdl,
};
use retro_tables::{Syzygy, Tablebase, Wdl, Wdl50};

const INF: i32 = 32_500;
/// [`PlyEntry::moved`] of a null move, or of none.
const NO_PIECE_TO: u16 = u16::MAX;
/// The bound of a continuation history's value (it fits an `i16`).
const CONT_HISTORY_LIMIT: i32 = 32_000;
/// Whether the search extends singular moves (the cargo feature `exp-singular`, an experiment
/// awaiting its SPRT): a hash move whose alternatives, searched at half the depth, all fall
/// short of its score by a margin is searched a ply deeper; where they reach beta anyway, the
/// node is cut (multi-cut).
const SINGULAR: bool = cfg!(feature = "exp-singular");
/// The deepest ply the search reaches.
pub const MAX_PLY: usize = 128;

/// Iterations a `go mate N` search runs beyond the 2N plies of a mate in N moves (reductions
/// may hide a mate from the iteration of its own length) before it ends without one.
const MATE_SEARCH_SLACK: u32 = 4;

/// State shared by the search threads and the protocol thread.
#[derive(Debug)]
pub struct SearchControl {
    /// Set to end the search.
    pub stop: AtomicBool,
    /// Set while pondering: no time limit applies until `ponderhit` clears it.
    pub pondering: AtomicBool,
    start: Instant,
    /// Milliseconds from `start` to the moment the clock started (ponderhit).
    clock_offset_ms: AtomicU64,
    nodes: AtomicU64,
    tbhits: AtomicU64,
    /// Wakes [`SearchControl::wait_for_release`] on `stop` and `ponderhit`.
    release: (Mutex<()>, Condvar),
}

impl SearchControl {
    /// A control for a search starting now.
    pub fn new(pondering: bool) -> SearchControl {
        SearchControl {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(pondering),
            start: Instant::now(),
            clock_offset_ms: AtomicU64::new(0),
            nodes: AtomicU64::new(0),
            tbhits: AtomicU64::new(0),
            release: (Mutex::new(()), Condvar::new()),
        }
    }

    /// The opponent played the expected move: the clock starts now.
    pub fn ponderhit(&self) {
        let ms = self.start.elapsed().as_millis() as u64;
        self.clock_offset_ms.store(ms, Ordering::Relaxed);
        self.pondering.store(false, Ordering::Relaxed);
        self.wake();
    }

    /// Asks the search to end.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
        self.wake();
    }

    /// Wakes the waiters of [`SearchControl::wait_for_release`]. The flags are set before the
    /// lock is taken and read under it, so no wake-up is lost.
    fn wake(&self) {
        let _guard = self
            .release
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        self.release.1.notify_all();
    }

    /// Blocks until a finished search may give its move: at once for a bounded search that is
    /// not pondering; else (`unbounded`: `go infinite`, or pondering) until `stop`, or until
    /// `ponderhit` ends the pondering of a bounded search.
    pub fn wait_for_release(&self, unbounded: bool) {
        let mut guard = self
            .release
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        while (unbounded || self.pondering.load(Ordering::Relaxed)) && !self.stopped() {
            guard = self
                .release
                .1
                .wait(guard)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    /// Whether the search was asked to end.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Time since the search started.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Time on the clock used by this move (zero while pondering).
    fn clock_elapsed(&self) -> Duration {
        let off = Duration::from_millis(self.clock_offset_ms.load(Ordering::Relaxed));
        self.start.elapsed().saturating_sub(off)
    }

    /// Nodes searched so far by all threads.
    pub fn nodes(&self) -> u64 {
        self.nodes.load(Ordering::Relaxed)
    }

    /// Counts `n` table probes made outside the search threads.
    pub fn add_tbhits(&self, n: u64) {
        self.tbhits.fetch_add(n, Ordering::Relaxed);
    }

    /// Table probes that gave a value, all threads.
    pub fn tbhits(&self) -> u64 {
        self.tbhits.load(Ordering::Relaxed)
    }
}

/// One search request.
#[derive(Clone, Debug)]
pub struct SearchParams {
    /// The root position.
    pub pos: Chess,
    /// Zobrist keys of the earlier positions of the game, oldest first (for repetitions).
    pub history: Vec<u64>,
    /// The limits of `go`.
    pub limits: SearchLimits,
    /// Time kept back per move (Move Overhead).
    pub overhead: Duration,
    /// Search threads.
    pub threads: usize,
    /// Only these root moves (all when empty).
    pub root_moves: Vec<Move>,
    /// Print `info` lines.
    pub report: bool,
    /// A limited playing strength (`UCI_LimitStrength`): a node budget and random offsets
    /// on the root moves' scores.
    pub strength: Option<Strength>,
    /// Table positions under the 50-move rule (`Syzygy50MoveRule`), else by pure DTM.
    pub rule50: bool,
    /// Syzygy tables for positions beyond Retro's own (`SyzygyPath`).
    pub syzygy: Option<Arc<Syzygy>>,
    /// The most pieces a position may have to be probed in them (`SyzygyProbeLimit`).
    pub syzygy_limit: usize,
    /// Principal variations to report (`MultiPV`): the best root moves, each searched with
    /// the ones before it left out. 1 searches for the best move alone.
    pub multipv: usize,
    /// Win, draw and loss chances in `info` lines (`UCI_ShowWDL`).
    pub show_wdl: bool,
    /// The evaluation (`Use NNUE`, `EvalFile`).
    pub eval: Evaluator,
}

impl Default for SearchParams {
    /// A one-thread search of the starting position without game history, limits or output:
    /// every root move, the best line only, table positions under the 50-move rule, no Syzygy
    /// tables, the hand-written evaluation, full strength.
    fn default() -> SearchParams {
        SearchParams {
            pos: Chess::default(),
            history: Vec::new(),
            limits: SearchLimits::default(),
            overhead: Duration::ZERO,
            threads: 1,
            root_moves: Vec::new(),
            report: false,
            strength: None,
            rule50: true,
            syzygy: None,
            syzygy_limit: 0,
            multipv: 1,
            show_wdl: false,
            eval: Evaluator::default(),
        }
    }
}

impl SearchParams {
    /// A one-thread search of `pos` to `depth` plies, without game history or output.
    pub fn fixed_depth(pos: Chess, depth: u32) -> SearchParams {
        SearchParams {
            pos,
            limits: SearchLimits {
                depth: Some(depth),
                ..SearchLimits::default()
            },
            ..SearchParams::default()
        }
    }
}

/// What a search found.
#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    /// The move to play (`None` only without legal moves).
    pub best: Option<Move>,
    /// The expected reply.
    pub ponder: Option<Move>,
    /// Score in centipawns, or a mate (beyond [`MATE_BOUND`]; see
    /// [`Score::from_search`](crate::Score::from_search)) or a table win.
    pub score: i32,
    /// The last completed depth.
    pub depth: u32,
    /// Nodes searched by all threads.
    pub nodes: u64,
}

/// The late-move reduction of a move searched after `moves` others at `depth` (both from 1).
fn lmr_formula(depth: usize, moves: usize) -> i32 {
    let base = f64::from(LMR_BASE_CENTI()) / 100.0;
    let divisor = f64::from(LMR_DIVISOR_CENTI()) / 100.0;
    (base + (depth as f64).ln() * (moves as f64).ln() / divisor) as i32
}

#[cfg(not(feature = "tune"))]
static LMR: std::sync::LazyLock<[[i32; 64]; 64]> = std::sync::LazyLock::new(|| {
    let mut t = [[0; 64]; 64];
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            *r = lmr_formula(d, m);
        }
    }
    t
});

/// The late-move reduction at `depth` after `searched` moves (each at most 63): from the table,
/// or in a `tune` build from the formula with the options' values.
#[inline]
fn lmr(depth: usize, searched: usize) -> i32 {
    #[cfg(not(feature = "tune"))]
    return LMR[depth][searched];
    #[cfg(feature = "tune")]
    return if depth == 0 || searched == 0 {
        0
    } else {
        lmr_formula(depth, searched)
    };
}

/// Searches `params.pos` with `params.threads` threads and returns the best move found. Calls
/// `report` with the state after each iteration of the main thread (when `params.report`).
/// Each thread takes its move-ordering statistics from `heuristics` and puts them back, as
/// this search leaves them, for the next.
pub fn search(
    params: &SearchParams,
    tt: &TranspositionTable,
    heuristics: &HeuristicsPool,
    tables: Option<&Tablebase>,
    control: &SearchControl,
    report: &(dyn Fn(SearchInfo) + Sync),
) -> SearchResult {
    tt.new_search();
    let budget = params.limits.budget(params.pos.turn(), params.overhead);
    let threads = params.threads.max(1);
    let mut taken = heuristics.take(threads).into_iter();
    let main_heuristics = taken.next().unwrap_or_default();
    std::thread::scope(|s| {
        let helpers: Vec<_> = taken
            .enumerate()
            .map(|(i, h)| {
                s.spawn(move || {
                    let mut w = Worker::new(i + 1, params, tt, tables, control, budget, h);
                    w.iterate(&params.pos, |_| {});
                    w.heur
                })
            })
            .collect();
        let mut main = Worker::new(0, params, tt, tables, control, budget, main_heuristics);
        let result = main.iterate(&params.pos, report);
        control.stop();
        let mut back = vec![main.heur];
        back.extend(joined(helpers));
        heuristics.put_back(back);
        result
    })
}

/// The results of the helper threads `handles`, each joined: a helper that panicked loses only
/// its own result (its statistics; the next search starts it afresh), the others' are kept.
fn joined<T>(handles: Vec<std::thread::ScopedJoinHandle<'_, T>>) -> Vec<T> {
    handles.into_iter().filter_map(|h| h.join().ok()).collect()
}

/// One search that carries nothing over and reports nothing: a fresh history, no tables, no
/// `info` (`retro bench`, and searches of single positions).
pub fn search_alone(params: &SearchParams, tt: &TranspositionTable) -> SearchResult {
    let control = SearchControl::new(false);
    search(params, tt, &HeuristicsPool::new(), None, &control, &|_| {})
}

/// One search thread: the main thread (`id` 0), which ends the search and reports it, or a
/// helper.
struct Worker<'a> {
    id: usize,
    tt: &'a TranspositionTable,
    /// The endgame tables the search probes.
    tables: TableProbe<'a>,
    control: &'a SearchControl,
    limits: &'a SearchLimits,
    /// The limits and the reporting, which only the main thread acts on.
    main: MainDuties,
    /// The root's moves and lines.
    root: RootMoves<'a>,
    /// Nodes searched by this thread, and how many of them are counted in `control`.
    nodes: u64,
    flushed: u64,
    seldepth: usize,
    stopped: bool,
    /// The keys of the positions before the current node: the game's, then the line's, oldest
    /// first (for repetitions).
    hashes: Vec<u64>,
    /// What the search keeps for each ply of the current line, the root's at 0.
    stack: Vec<PlyEntry>,
    /// The statistics kept from search to search (history).
    heur: Heuristics,
    /// The network, when it evaluates (else the hand-written evaluation).
    net: Option<&'a Network>,
    /// Whether the network's updates need the board after each move (king buckets).
    net_board: bool,
    /// The network's sums by king bucket, from which a king move changing bucket starts.
    refresh: Option<RefreshCache>,
}

/// The endgame tables a search probes, and how.
struct TableProbe<'a> {
    /// Retro's own tables, and the most pieces they hold.
    own: Option<&'a Tablebase>,
    own_max: usize,
    /// Table positions under the 50-move rule.
    rule50: bool,
    /// Syzygy tables, and the most pieces probed in them.
    syzygy: Option<&'a Syzygy>,
    syzygy_limit: usize,
    /// Probes that gave a value, not yet counted in the [`SearchControl`].
    hits: u64,
}

/// What only the main thread (`id` 0) does: end the search at its node and time limits, and
/// report it. The helpers hold the same values and never consult them.
struct MainDuties {
    /// The node limit of `go nodes` or of a limited strength, whichever is less.
    node_limit: Option<u64>,
    /// The time for this move.
    budget: Option<Budget>,
    /// Whether to report `info` lines.
    report_info: bool,
    /// Whether `info` lines carry win, draw and loss chances.
    show_wdl: bool,
}

/// The root's moves: those searched, their offsets at a limited strength, and the lines the
/// search finds among them.
struct RootMoves<'a> {
    /// Only these root moves (all when empty).
    filter: &'a [Move],
    /// Offsets added to the scores of root moves at a limited strength.
    noise: Vec<(Move, i32)>,
    /// Principal variations the main thread searches (`MultiPV`; 1 in helpers).
    multipv: usize,
    /// Root moves left out of the current search: the first moves of the better lines.
    excluded: Vec<Move>,
    /// The best root move of the unfinished iteration and its expected reply.
    best: Option<(Move, Option<Move>)>,
}

impl RootMoves<'_> {
    /// The offset of root move `m` at a limited strength (0 at full strength).
    fn noise_of(&self, m: &Move) -> i32 {
        self.noise
            .iter()
            .find(|(r, _)| r == m)
            .map_or(0, |&(_, n)| n)
    }
}

impl TableProbe<'_> {
    /// The exact score of a position the tables cover: by DTM, or under the 50-move rule by
    /// its DTZ50 and the clock (a mate score where the DTM mate comes within the rule, a
    /// [`TB_WIN`](crate::vocab::TB_WIN) score where only the DTZ says it wins in time, a draw
    /// where the rule saves it). Positions whose DTZ50 table is missing are scored by DTM.
    fn probe(&mut self, pos: &Chess, ply: usize) -> Option<i32> {
        let pieces = pos.board().occupied().count();
        let own = self
            .own
            .filter(|_| pieces <= self.own_max && !pos.castles().any())
            .and_then(|tb| tb.probe(pos).ok().map(|v| (tb, v)));
        let Some((tb, v)) = own else {
            return self.probe_syzygy(pos, ply, pieces);
        };
        self.hits += 1;
        let d = ply as i32 + v.plies() as i32;
        let mate = match v.wdl() {
            Wdl::Win => mate_in(d),
            Wdl::Loss => mated_in(d),
            Wdl::Draw => 0,
        };
        if !self.rule50 || v.wdl() == Wdl::Draw {
            return Some(mate);
        }
        let clock = pos.halfmoves();
        if rule50::mate_fits(v, clock) {
            // A mate within the rule bounds the DTZ (|DTZ| <= DTM), so the outcome is the
            // mate's: no DTZ probe (a loss's would search its moves).
            return Some(mate);
        }
        let Ok(dtz) = tb.probe_dtz(pos) else {
            return Some(mate);
        };
        let far = ply as i32 + dtz.plies() as i32;
        Some(match rule50::outcome(dtz, clock) {
            Outcome::Draw => 0,
            _ if rule50::mate_fits(v, clock) => mate,
            Outcome::Win => tb_win_in(far),
            Outcome::Loss => tb_loss_in(far),
        })
    }

    /// The score of a position beyond Retro's own tables from the Syzygy tables: only just
    /// after a zeroing move (the clock at 0), by its class under the 50-move rule (a
    /// [`TB_WIN`](crate::vocab::TB_WIN) score for a win, a draw for a cursed win or blessed
    /// loss); `None` elsewhere.
    fn probe_syzygy(&mut self, pos: &Chess, ply: usize, pieces: usize) -> Option<i32> {
        let sz = self.syzygy?;
        if pieces > self.syzygy_limit || pos.halfmoves() != 0 {
            return None;
        }
        let class = sz.probe_wdl(pos)?;
        self.hits += 1;
        let ply = ply as i32;
        Some(match class {
            Wdl50::Win => tb_win_in(ply),
            Wdl50::Loss => tb_loss_in(ply),
            _ => 0,
        })
    }
}

/// What the search keeps for one ply of the current line.
struct PlyEntry {
    /// The principal variation from the node.
    pv: Vec<Move>,
    /// Two quiet moves that caused cutoffs at this ply (encoded; 0 for none).
    killers: [u16; 2],
    /// The move a singular search at this ply leaves out (encoded; 0 when none).
    excluded: u16,
    /// The move being searched from this ply, by [`piece_to`] ([`NO_PIECE_TO`] for a null
    /// move): the continuation histories' row of the plies below.
    moved: u16,
    /// The static evaluation of the node (`-INF` in check).
    eval: i32,
    /// The change to the board from the node above (for the network's sums).
    delta: Delta,
    /// The node's board, kept where the network's update needs it (king buckets).
    board: Board,
    /// Whether `acc` holds the node's sums.
    acc_valid: bool,
    /// The network's first-layer sums of the node, when it evaluates and `acc_valid` says
    /// so; the others are made when needed from the ply above and `delta` (lazily: a node
    /// whose evaluation comes from the hash table never needs its own).
    acc: Accumulator,
}

impl PlyEntry {
    /// An entry with nothing known (room for a principal variation as long as the deepest
    /// line).
    fn empty() -> PlyEntry {
        PlyEntry {
            pv: Vec::with_capacity(MAX_PLY),
            killers: [0; 2],
            moved: NO_PIECE_TO,
            excluded: 0,
            eval: -INF,
            delta: Delta::NONE,
            board: Board::empty(),
            acc_valid: false,
            acc: Accumulator {
                values: [[0; HIDDEN]; 2],
            },
        }
    }
}

impl<'a> Worker<'a> {
    fn new(
        id: usize,
        params: &'a SearchParams,
        tt: &'a TranspositionTable,
        tables: Option<&'a Tablebase>,
        control: &'a SearchControl,
        budget: Option<Budget>,
        heur: Heuristics,
    ) -> Worker<'a> {
        let mut hashes = params.history.clone();
        hashes.reserve(MAX_PLY + 2);
        let strength_nodes = params.strength.map(Strength::nodes);
        let node_limit = match (params.limits.nodes, strength_nodes) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let root_noise = params
            .strength
            .map(|s| s.root_noise(&params.pos.legal_moves()))
            .unwrap_or_default();
        Worker {
            id,
            tt,
            tables: TableProbe {
                own: tables,
                own_max: tables.map_or(0, Tablebase::max_pieces),
                rule50: params.rule50,
                syzygy: params.syzygy.as_deref(),
                syzygy_limit: params.syzygy_limit,
                hits: 0,
            },
            control,
            limits: &params.limits,
            main: MainDuties {
                node_limit,
                budget,
                report_info: params.report,
                show_wdl: params.show_wdl,
            },
            root: RootMoves {
                filter: &params.root_moves,
                noise: root_noise,
                multipv: if id == 0 { params.multipv.max(1) } else { 1 },
                excluded: Vec::new(),
                best: None,
            },
            nodes: 0,
            flushed: 0,
            seldepth: 0,
            stopped: false,
            hashes,
            stack: (0..MAX_PLY + 2).map(|_| PlyEntry::empty()).collect(),
            heur,
            net: match &params.eval {
                Evaluator::Classic => None,
                Evaluator::Network(n) => Some(n),
            },
            net_board: match &params.eval {
                Evaluator::Classic => false,
                Evaluator::Network(n) => n.needs_board(),
            },
            refresh: match &params.eval {
                Evaluator::Network(n) if n.needs_board() => Some(n.refresh_cache()),
                _ => None,
            },
        }
    }

    /// The static evaluation of the node `pos` at `ply`, for the side to move.
    fn evaluate(&mut self, pos: &Chess, ply: usize) -> i32 {
        let Some(net) = self.net else {
            return evaluate(pos);
        };
        let mut from = ply;
        while from > 0 && !self.stack[from].acc_valid {
            from -= 1;
        }
        if !self.stack[from].acc_valid {
            // Nothing above is known (the root's sums are made when the search starts, so only
            // a node outside a search gets here): from scratch.
            self.stack[ply].acc = net.refresh(pos.board());
            self.stack[ply].acc_valid = true;
            from = ply;
        }
        for p in from + 1..=ply {
            let (above, below) = self.stack.split_at_mut(p);
            let node = &mut below[0];
            node.acc.clone_from(&above[p - 1].acc);
            net.apply(
                &mut node.acc,
                &node.delta,
                &node.board,
                self.refresh.as_mut(),
            );
            node.acc_valid = true;
        }
        net.evaluate(
            &self.stack[ply].acc,
            pos.turn(),
            pos.board().occupied().count(),
        )
    }

    /// Records that the node at `ply + 1`, whose board is `board`, is its parent's with `delta`
    /// applied.
    #[inline]
    fn child_made(&mut self, ply: usize, delta: Delta, board: &Board) {
        if self.net.is_some() && ply + 1 < self.stack.len() {
            let child = &mut self.stack[ply + 1];
            child.delta = delta;
            child.acc_valid = false;
            if self.net_board {
                child.board.clone_from(board);
            }
        }
    }

    fn flush_counts(&mut self) {
        self.control
            .nodes
            .fetch_add(self.nodes - self.flushed, Ordering::Relaxed);
        self.flushed = self.nodes;
        self.control
            .tbhits
            .fetch_add(std::mem::take(&mut self.tables.hits), Ordering::Relaxed);
    }

    /// Counts a node and tells whether the search must end.
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.stopped {
            return true;
        }
        if self.id == 0 {
            if let Some(n) = self.main.node_limit {
                if self.control.nodes() + self.nodes - self.flushed >= n {
                    self.control.stop();
                }
            }
        }
        if self.nodes & 255 == 0 {
            self.flush_counts();
            if self.id == 0 && !self.control.pondering.load(Ordering::Relaxed) {
                if let Some(b) = self.main.budget {
                    if self.control.clock_elapsed() >= b.hard {
                        self.control.stop();
                    }
                }
            }
        }
        if self.control.stopped() {
            self.stopped = true;
        }
        self.stopped
    }

    fn iterate(&mut self, root: &Chess, report: impl Fn(SearchInfo)) -> SearchResult {
        let root_hash = hash_of(root);
        if let Some(net) = self.net {
            self.stack[0].acc = net.refresh(root.board());
            self.stack[0].acc_valid = true;
        }
        // `go mate N` without a depth ends after the iterations that can find such a mate.
        let mate_depth = self
            .limits
            .mate
            .map(|n| n.saturating_mul(2).saturating_add(MATE_SEARCH_SLACK));
        let max_depth = self
            .limits
            .depth
            .or(mate_depth)
            .unwrap_or(MAX_PLY as u32 - 1)
            .clamp(1, MAX_PLY as u32 - 1);
        let mut result = SearchResult::default();
        let mut moves = root.legal_moves();
        if !self.root.filter.is_empty() {
            moves.retain(|m| self.root.filter.contains(m));
        }
        result.best = moves.first().copied();
        let single_reply = moves.len() == 1;
        let wanted = self.root.multipv.clamp(1, moves.len().max(1));
        let mut prev = vec![0; wanted];
        let mut mate_streak = 0;
        for depth in 1..=max_depth {
            // Helper threads search some iterations one ply deeper to spread the work.
            let d = depth as i32 + i32::from(self.id % 2 == 1 && depth > 1);
            self.seldepth = 0;
            let mut lines: Vec<(i32, Vec<Move>)> = Vec::with_capacity(wanted);
            self.root.excluded.clear();
            for &guess in &prev {
                self.root.best = None;
                let score = self.aspiration(root, root_hash, d, depth, guess);
                if self.stopped {
                    break;
                }
                let Some(&first) = self.stack[0].pv.first() else {
                    break;
                };
                self.root.excluded.push(first);
                lines.push((score, self.stack[0].pv.clone()));
            }
            self.root.excluded.clear();
            if self.stopped {
                if !lines.is_empty() {
                    // The first lines of this iteration were complete (MultiPV): the best of
                    // them is played, and they are reported, so that line 1 shows it.
                    lines.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
                    if let Some((_, pv)) = lines.first() {
                        result.best = pv.first().copied();
                        result.ponder = pv.get(1).copied();
                    }
                    if self.main.report_info && self.id == 0 {
                        for (k, (score, pv)) in lines.into_iter().enumerate() {
                            let seen = score - pv.first().map_or(0, |m| self.root.noise_of(m));
                            report(self.info(depth, k + 1, seen, pv, root));
                        }
                    }
                } else if let Some((m, reply)) = self.root.best {
                    // A move that beat the previous best in the unfinished iteration, with
                    // its own expected reply.
                    result.best = Some(m);
                    result.ponder = reply;
                }
                break;
            }
            // The lines best first (a later line may have found more than an earlier one).
            lines.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
            for (k, (score, _)) in lines.iter().enumerate() {
                prev[k] = *score;
            }
            // The scores as the engine sees them, without the offsets of a limited strength.
            for (score, pv) in &mut lines {
                if let Some(m) = pv.first() {
                    *score -= self.root.noise_of(m);
                }
            }
            let Some((score, pv)) = lines.first() else {
                break;
            };
            let score = *score;
            result.best = pv.first().copied();
            result.ponder = pv.get(1).copied();
            result.score = score;
            result.depth = depth;
            self.flush_counts();
            if self.main.report_info && self.id == 0 {
                for (k, (score, pv)) in lines.into_iter().enumerate() {
                    report(self.info(depth, k + 1, score, pv, root));
                }
            }
            if self.id != 0 {
                continue;
            }
            // Stop conditions of the main thread.
            if let Some(n) = self.limits.mate {
                if score >= MATE_BOUND && moves_to_mate(score) <= n as i32 {
                    break;
                }
            }
            mate_streak = if is_mate_score(score) {
                mate_streak + 1
            } else {
                0
            };
            let timed = self.main.budget.is_some()
                || self.main.node_limit.is_some()
                || self.limits.soft_nodes.is_some();
            if timed
                && !self.limits.infinite
                && (mate_streak >= MATE_STREAK_STOP || (single_reply && depth >= 2))
            {
                break;
            }
            if let Some(b) = self.main.budget {
                if !self.control.pondering.load(Ordering::Relaxed)
                    && self.control.clock_elapsed() >= b.soft
                {
                    break;
                }
            }
            if let Some(n) = self.limits.soft_nodes {
                if self.control.nodes() + self.nodes - self.flushed >= n {
                    break;
                }
            }
        }
        self.flush_counts();
        result.nodes = self.control.nodes();
        result
    }

    /// One root search to depth `d` (iteration `depth`) with an aspiration window around
    /// `guess`, the score of the same line in the previous iteration, widened until the score
    /// falls inside it; the root moves in `excluded` are left out.
    fn aspiration(&mut self, root: &Chess, root_hash: u64, d: i32, depth: u32, guess: i32) -> i32 {
        let mut delta = ASPIRATION_DELTA();
        let (mut alpha, mut beta) = if depth >= ASPIRATION_MIN_DEPTH {
            (guess - delta, guess + delta)
        } else {
            (-INF, INF)
        };
        loop {
            let s = self.negamax(root, root_hash, alpha, beta, d, 0, true);
            if self.stopped {
                return s;
            }
            if s <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (s - delta).max(-INF);
            } else if s >= beta {
                beta = (s + delta).min(INF);
            } else {
                return s;
            }
            delta *= 2;
        }
    }

    /// The search state after iteration `depth`: line `multipv` (1 the best) of `score`
    /// and principal variation `pv` from `root`.
    fn info(
        &self,
        depth: u32,
        multipv: usize,
        score: i32,
        pv: Vec<Move>,
        root: &Chess,
    ) -> SearchInfo {
        let elapsed = self.control.elapsed();
        let nodes = self.control.nodes();
        SearchInfo {
            depth,
            seldepth: self.seldepth.max(depth as usize) as u32,
            multipv: multipv as u32,
            score: Score::from_search(score),
            wdl: self.main.show_wdl.then(|| wdl::of_search(score, root)),
            nodes,
            nps: (nodes as f64 / elapsed.as_secs_f64().max(1e-3)) as u64,
            hashfull: self.tt.hashfull(),
            tbhits: self.control.tbhits(),
            time: elapsed,
            pv,
        }
    }

    fn is_repetition(&self, hash: u64, halfmoves: u32) -> bool {
        let n = self.hashes.len();
        let mut back = 4;
        while back <= halfmoves as usize && back <= n {
            if self.hashes[n - back] == hash {
                return true;
            }
            back += 2;
        }
        false
    }

    /// The key of the position after `m` (from `pos`, key `hash`) where it can be updated
    /// incrementally, its hash bucket prefetched while the move is played.
    fn prefetch_child(&self, pos: &Chess, hash: u64, m: Move) -> Option<u64> {
        let key = child_key(pos, hash, m);
        if let Some(k) = key {
            self.tt.prefetch(k);
        }
        key
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.stack.split_at_mut(ply + 1);
        let line = &mut head[ply].pv;
        line.clear();
        line.push(m);
        line.extend_from_slice(&tail[0].pv);
    }

    /// Principal-variation alpha-beta search of `pos` to `depth` plies, then quiescence: the
    /// node's early ends (draws, mate distance, tables), the hash table's cutoff, pruning before
    /// any move is searched, then the moves in order, and the result stored in the hash table.
    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        pos: &Chess,
        hash: u64,
        mut alpha: i32,
        mut beta: i32,
        depth: i32,
        ply: usize,
        null_ok: bool,
    ) -> i32 {
        if depth <= 0 {
            return self.qsearch(pos, hash, alpha, beta, ply);
        }
        self.stack[ply].pv.clear();
        if self.tick() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let pv = beta - alpha > 1;
        let in_check = pos.is_check();
        if ply > 0 {
            if let Some(s) = self.ends_early(pos, hash, in_check, &mut alpha, &mut beta, ply) {
                return s;
            }
        }

        let entry = self.tt.probe(hash);
        let tt_move = entry.map_or(0, |e| e.mv);
        // A singular search of this node (the hash move left out) neither takes nor leaves
        // the node's own hash entry.
        let excluded = self.stack[ply].excluded;
        if !pv && ply > 0 && excluded == 0 {
            if let Some(s) = entry.and_then(|e| tt_cutoff(&e, depth, alpha, beta, ply)) {
                return s;
            }
        }
        // Internal iterative reduction: a node without a hash move is searched a ply less
        // deep; its next visit finds the move this search stores.
        let depth = if depth >= 4 && tt_move == 0 {
            depth - 1
        } else {
            depth
        };
        let static_eval = if in_check {
            -INF
        } else {
            match entry {
                Some(e) => i32::from(e.eval),
                None => self.evaluate(pos, ply),
            }
        };
        self.stack[ply].eval = static_eval;
        let mut node = Node {
            hash,
            depth,
            ply,
            pv,
            in_check,
            static_eval,
            improving: self.improving(ply, static_eval),
            extend: 0,
        };
        if !pv && !in_check && ply > 0 && excluded == 0 && !is_mate_score(beta) {
            if let Some(s) = self.prune_node(pos, &node, beta, null_ok) {
                return s;
            }
        }
        if SINGULAR && ply > 0 && excluded == 0 {
            if let Some(e) = entry {
                let singular = self.singular(pos, &e, &node, beta);
                if self.stopped {
                    return 0;
                }
                match singular {
                    Singular::Extend => node.extend = e.mv,
                    Singular::Cut(s) => return s,
                    Singular::No => {}
                }
            }
        }

        let mut moves = pos.legal_moves();
        if ply == 0 && !self.root.filter.is_empty() {
            moves.retain(|m| self.root.filter.contains(m));
        }
        if ply == 0 && !self.root.excluded.is_empty() {
            moves.retain(|m| !self.root.excluded.contains(m));
        }
        if excluded != 0 {
            moves.retain(|m| encode_move(m) != excluded);
            if moves.is_empty() {
                // The hash move is the only move: singular.
                return alpha;
            }
        }
        if moves.is_empty() {
            return if in_check { mated_in(ply as i32) } else { 0 };
        }
        let order = QuietOrder {
            killers: self.stack[ply].killers,
            history: &self.heur.history[..],
            cont: [1, 2].map(|back| match self.cont_row(ply, back) {
                Some(row) => &self.heur.cont[row..row + PIECE_TO],
                None => &[],
            }),
        };
        let mut picker = MovePicker::new(pos, &mut moves, tt_move, order);
        let Some((best, best_move)) = self.search_moves(pos, &node, alpha, beta, &mut picker)
        else {
            return 0;
        };
        // A root searched without its better moves (MultiPV) is not the position's value, nor
        // a node searched without its hash move.
        if (ply > 0 || self.root.excluded.is_empty()) && excluded == 0 {
            self.store_node(&node, best, best_move, beta);
        }
        best
    }

    /// The singular search of a node whose hash entry `e` holds a move and a lower bound (or
    /// exact score) searched nearly as deep: the node without that move, at half the depth,
    /// against a bound a margin below the entry's score.
    fn singular(&mut self, pos: &Chess, e: &Entry, node: &Node, beta: i32) -> Singular {
        let depth = node.depth;
        let tt_score = score_from_tt(i32::from(e.score), node.ply);
        if e.mv == 0
            || depth < SINGULAR_MIN_DEPTH
            || i32::from(e.depth) < depth - SINGULAR_TT_DEPTH_SLACK
            || e.bound == Bound::Upper
            || is_mate_score(tt_score)
        {
            return Singular::No;
        }
        let singular_beta = tt_score - SINGULAR_MARGIN_PER_PLY * depth;
        self.stack[node.ply].excluded = e.mv;
        let s = self.negamax(
            pos,
            node.hash,
            singular_beta - 1,
            singular_beta,
            (depth - 1) / 2,
            node.ply,
            false,
        );
        self.stack[node.ply].excluded = 0;
        // The line the search without the hash move found is not the node's.
        self.stack[node.ply].pv.clear();
        if s < singular_beta {
            Singular::Extend
        } else if singular_beta >= beta {
            Singular::Cut(singular_beta)
        } else {
            Singular::No
        }
    }

    /// Where the continuation history's row of the move `back` plies before the node at `ply`
    /// starts, if there was such a move (not a null move) and continuation histories are on.
    fn cont_row(&self, ply: usize, back: usize) -> Option<usize> {
        if !CONT_HISTORY || ply < back {
            return None;
        }
        let moved = self.stack[ply - back].moved;
        (moved != NO_PIECE_TO).then(|| usize::from(moved) * PIECE_TO)
    }

    /// Whether the static evaluation `eval` at `ply` is above that of our previous node on the
    /// line (two plies up, or four when that one was in check); true where none is known.
    fn improving(&self, ply: usize, eval: i32) -> bool {
        if eval == -INF {
            return false;
        }
        let mut before = if ply >= 2 {
            self.stack[ply - 2].eval
        } else {
            -INF
        };
        if before == -INF && ply >= 4 {
            before = self.stack[ply - 4].eval;
        }
        before == -INF || eval > before
    }

    /// The score of a node (not the root) that ends before its moves are searched: a draw by
    /// the 50-move rule, repetition or bare kings, a table position, the deepest ply. Narrows
    /// the window to the mate distances still possible (mate-distance pruning), which may end
    /// the node too.
    fn ends_early(
        &mut self,
        pos: &Chess,
        hash: u64,
        in_check: bool,
        alpha: &mut i32,
        beta: &mut i32,
        ply: usize,
    ) -> Option<i32> {
        if pos.halfmoves() >= 100 && (!in_check || !pos.legal_moves().is_empty()) {
            return Some(0);
        }
        if self.is_repetition(hash, pos.halfmoves()) {
            return Some(0);
        }
        if pos.board().occupied().count() <= 4 && pos.is_insufficient_material() {
            return Some(0);
        }
        *alpha = (*alpha).max(mated_in(ply as i32));
        *beta = (*beta).min(mate_in(ply as i32 + 1));
        if *alpha >= *beta {
            return Some(*alpha);
        }
        if let Some(s) = self.tables.probe(pos, ply) {
            return Some(s);
        }
        if ply >= MAX_PLY - 1 {
            return Some(self.evaluate(pos, ply));
        }
        None
    }

    /// Pruning of a non-PV node not in check before its moves: reverse futility (the static
    /// evaluation beats beta by a margin) and the null move (passing still beats beta).
    fn prune_node(&mut self, pos: &Chess, node: &Node, beta: i32, null_ok: bool) -> Option<i32> {
        let depth = node.depth;
        if depth <= RFP_MAX_DEPTH()
            && node.static_eval - RFP_MARGIN_PER_PLY() * (depth - i32::from(node.improving)) >= beta
        {
            return Some(node.static_eval);
        }
        if !(null_ok && depth >= NMP_MIN_DEPTH && node.static_eval >= beta && has_pieces(pos)) {
            return None;
        }
        let r = NMP_BASE_REDUCTION() + depth / NMP_DEPTH_DIVISOR();
        let child = pos.clone().swap_turn().ok()?;
        let child_hash = null_key(pos, node.hash);
        self.child_made(node.ply, Delta::NONE, child.board());
        self.stack[node.ply].moved = NO_PIECE_TO;
        self.hashes.push(node.hash);
        let s = -self.negamax(
            &child,
            child_hash,
            -beta,
            -beta + 1,
            depth - 1 - r,
            node.ply + 1,
            false,
        );
        self.hashes.pop();
        if self.stopped {
            return Some(0);
        }
        null_move_result(s, beta)
    }

    /// Searches the moves of a node in order (late quiet moves pruned, the first searched with
    /// the full window, the others with a null window and reductions), updating the principal
    /// variation, the killers and the history. The best score and the move that raised alpha,
    /// or `None` when the search was stopped.
    fn search_moves(
        &mut self,
        pos: &Chess,
        node: &Node,
        mut alpha: i32,
        beta: i32,
        picker: &mut MovePicker<'_>,
    ) -> Option<(i32, Option<Move>)> {
        let ply = node.ply;
        let us = pos.turn();
        let mut best = -INF;
        let mut best_move: Option<Move> = None;
        let mut searched = 0;
        let mut quiets: [u16; 64] = [0; 64];
        // The same quiet moves by piece and target, for the continuation histories.
        let mut quiet_moves: [u16; 64] = [0; 64];
        let mut n_quiets = 0;
        while let Some(m) = picker.next(pos) {
            let quiet = !m.is_capture() && !m.is_promotion();
            let gives_check = gives_check(pos, &m);
            let plain = quiet && !node.in_check && !gives_check;
            if ply > 0 && best > -MATE_BOUND && searched > 0 {
                if plain && prunes_late_quiet(node, searched, alpha) {
                    continue;
                }
                if !node.in_check
                    && !gives_check
                    && loses_material(picker, pos, &m, quiet, node.depth)
                {
                    continue;
                }
            }
            let key = self.prefetch_child(pos, node.hash, m);
            let mut child = pos.clone();
            child.play_unchecked(m);
            self.child_made(ply, Delta::of_move(us, &m), child.board());
            if CONT_HISTORY {
                self.stack[ply].moved = piece_to(us, &m);
            }
            let child_hash = key.unwrap_or_else(|| played_key(pos, node.hash, m, &child));
            let singular = node.extend != 0 && encode_move(&m) == node.extend;
            let ext = i32::from((gives_check || singular) && ply < MAX_PLY / 2);
            let new_depth = node.depth - 1 + ext;
            self.hashes.push(node.hash);
            // At a limited strength a root move's score has its offset added: the window is
            // shifted by it, so the search still finds the best move of the offset scores.
            let noise = if ply == 0 { self.root.noise_of(&m) } else { 0 };
            let (a, b) = (alpha - noise, beta - noise);
            let score = noise
                + if searched == 0 {
                    -self.negamax(&child, child_hash, -b, -a, new_depth, ply + 1, true)
                } else {
                    let r = if node.depth >= LMR_MIN_DEPTH && searched >= LMR_MIN_SEARCHED && plain
                    {
                        self.reduction(node, us, &m, searched, new_depth)
                    } else {
                        0
                    };
                    self.search_later(&child, child_hash, a, b, new_depth, r, ply)
                };
            self.hashes.pop();
            if self.stopped {
                return None;
            }
            searched += 1;
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(m);
                    self.update_pv(ply, m);
                    if ply == 0 {
                        self.root.best = Some((m, self.stack[0].pv.get(1).copied()));
                    }
                    if score >= beta {
                        if quiet {
                            self.reward_quiet(us, &m, ply, node.depth, &quiets[..n_quiets]);
                            if CONT_HISTORY {
                                self.reward_cont(us, &m, ply, node.depth, &quiet_moves[..n_quiets]);
                            }
                        }
                        break;
                    }
                }
            }
            if quiet && n_quiets < quiets.len() {
                quiets[n_quiets] = encode_move(&m);
                if CONT_HISTORY {
                    quiet_moves[n_quiets] = piece_to(us, &m);
                }
                n_quiets += 1;
            }
        }
        Some((best, best_move))
    }

    /// The late-move reduction of the `searched`-th quiet move `m`: from the table, one less in
    /// a PV node, for a killer and for a move with a good history, leaving at least one ply.
    fn reduction(&self, node: &Node, us: Color, m: &Move, searched: i32, new_depth: i32) -> i32 {
        let mut r = lmr(node.depth.min(63) as usize, searched.min(63) as usize);
        if node.pv {
            r -= 1;
        }
        if !node.improving {
            r += 1;
        }
        let code = encode_move(m);
        if self.stack[node.ply].killers.contains(&code) {
            r -= 1;
        }
        if self.heur.history[history_index(us, code)] > LMR_GOOD_HISTORY() {
            r -= 1;
        }
        r.clamp(0, new_depth - 1)
    }

    /// A move after the first: a null-window search reduced by `r`, again unreduced when it
    /// beats alpha, and with the full window when it lands inside it.
    #[allow(clippy::too_many_arguments)]
    fn search_later(
        &mut self,
        child: &Chess,
        child_hash: u64,
        alpha: i32,
        beta: i32,
        new_depth: i32,
        r: i32,
        ply: usize,
    ) -> i32 {
        let mut s = -self.negamax(
            child,
            child_hash,
            -alpha - 1,
            -alpha,
            new_depth - r,
            ply + 1,
            true,
        );
        if s > alpha && r > 0 {
            s = -self.negamax(
                child,
                child_hash,
                -alpha - 1,
                -alpha,
                new_depth,
                ply + 1,
                true,
            );
        }
        if s > alpha && s < beta {
            s = -self.negamax(child, child_hash, -beta, -alpha, new_depth, ply + 1, true);
        }
        s
    }

    /// Stores a searched node: a lower bound after a cutoff, exact when a move raised alpha,
    /// else an upper bound.
    fn store_node(&self, node: &Node, best: i32, best_move: Option<Move>, beta: i32) {
        let bound = if best >= beta {
            Bound::Lower
        } else if best_move.is_some() {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(
            node.hash,
            Entry {
                mv: best_move.map_or(0, |m| encode_move(&m)),
                score: score_to_tt(best, node.ply) as i16,
                eval: node.static_eval.clamp(-30_000, 30_000) as i16,
                depth: node.depth.clamp(0, 255) as u8,
                bound,
            },
        );
    }

    fn reward_quiet(&mut self, us: Color, m: &Move, ply: usize, depth: i32, tried: &[u16]) {
        let code = encode_move(m);
        let k = &mut self.stack[ply].killers;
        if k[0] != code {
            k[1] = k[0];
            k[0] = code;
        }
        let bonus = (depth * depth).min(HISTORY_MAX_BONUS());
        let h = &mut self.heur.history[history_index(us, code)];
        *h = history_step(*h, bonus, 1);
        for &t in tried {
            let h = &mut self.heur.history[history_index(us, t)];
            *h = history_step(*h, bonus, -1);
        }
    }

    /// The continuation histories of a quiet move `m` that caused a cutoff at `ply` after the
    /// moves one and two plies before: a bonus for it and a malus for the quiet moves `tried`
    /// before it (by [`piece_to`]), with the history's bonus and gravity.
    fn reward_cont(&mut self, us: Color, m: &Move, ply: usize, depth: i32, tried: &[u16]) {
        let bonus = (depth * depth).min(HISTORY_MAX_BONUS());
        let good = usize::from(piece_to(us, m));
        for back in [1, 2] {
            let Some(row) = self.cont_row(ply, back) else {
                continue;
            };
            let update = |h: &mut i16, sign: i32| {
                let v = history_step(i32::from(*h), bonus, sign);
                *h = v.clamp(-CONT_HISTORY_LIMIT, CONT_HISTORY_LIMIT) as i16;
            };
            update(&mut self.heur.cont[row + good], 1);
            for &t in tried {
                update(&mut self.heur.cont[row + usize::from(t)], -1);
            }
        }
    }

    /// Quiescence search: captures and queen promotions (every move in check) until the
    /// position is quiet, with the static evaluation as the score of standing pat. Probes the
    /// hash table (a cutoff outside PV nodes, its static evaluation, its move first) and stores
    /// its result there at depth 0, below every entry of the main search.
    fn qsearch(&mut self, pos: &Chess, hash: u64, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.stack[ply].pv.clear();
        if self.tick() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if ply > 0 {
            if let Some(s) = self.tables.probe(pos, ply) {
                return s;
            }
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluate(pos, ply);
        }
        let pv = beta - alpha > 1;
        let entry = self.tt.probe(hash);
        if !pv {
            if let Some(s) = entry.and_then(|e| tt_cutoff(&e, 0, alpha, beta, ply)) {
                return s;
            }
        }
        let tt_move = entry.map_or(0, |e| e.mv);
        let in_check = pos.is_check();
        let mut best;
        let stand;
        let mut moves;
        if in_check {
            moves = pos.legal_moves();
            if moves.is_empty() {
                return mated_in(ply as i32);
            }
            best = -INF;
            stand = -INF;
        } else {
            stand = match entry {
                Some(e) => i32::from(e.eval),
                None => self.evaluate(pos, ply),
            };
            if stand >= beta {
                self.store_quiet(hash, stand, None, stand, beta, ply);
                return stand;
            }
            alpha = alpha.max(stand);
            best = stand;
            moves = MoveList::new();
            captures(pos, &mut moves);
            // Quiet queen promotions, generated only when a pawn stands on the seventh rank.
            let seventh = shakmaty::Bitboard::from_rank(
                pos.turn()
                    .fold_wb(shakmaty::Rank::Seventh, shakmaty::Rank::Second),
            );
            if (pos.our(Role::Pawn) & seventh).any() {
                for p in pos.promotion_moves() {
                    if !p.is_capture() && p.promotion() == Some(Role::Queen) {
                        moves.push(p);
                    }
                }
            }
        }
        let mut scores = [0; MAX_MOVES];
        for (score, m) in scores.iter_mut().zip(moves.iter()) {
            *score = if tt_move != 0 && encode_move(m) == tt_move {
                ORDER_HASH_MOVE
            } else {
                m.capture()
                    .map_or(0, |v| MVV_FACTOR * piece_value(v) - piece_value(m.role()))
                    + m.promotion().map_or(0, piece_value)
            };
        }
        let mut best_move = None;
        for i in 0..moves.len() {
            let first = i + first_best(&scores[i..moves.len()]);
            moves.swap(i, first);
            scores.swap(i, first);
            let m = moves[i];
            if !in_check && !m.is_promotion() {
                if let Some(victim) = m.capture() {
                    if stand + piece_value(victim) + DELTA_MARGIN() <= alpha {
                        continue;
                    }
                    if see(pos, &m) < 0 {
                        continue;
                    }
                }
            }
            let key = self.prefetch_child(pos, hash, m);
            let mut child = pos.clone();
            child.play_unchecked(m);
            self.child_made(ply, Delta::of_move(pos.turn(), &m), child.board());
            let child_hash = key.unwrap_or_else(|| played_key(pos, hash, m, &child));
            let score = -self.qsearch(&child, child_hash, -beta, -alpha, ply + 1);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(m);
                    self.update_pv(ply, m);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        self.store_quiet(hash, best, best_move, stand, beta, ply);
        best
    }

    /// Stores a quiescence result at depth 0 (see `store_node` for the bound).
    fn store_quiet(
        &self,
        hash: u64,
        best: i32,
        best_move: Option<Move>,
        eval: i32,
        beta: i32,
        ply: usize,
    ) {
        let node = Node {
            hash,
            depth: 0,
            ply,
            pv: false,
            in_check: false,
            static_eval: eval,
            improving: false,
            extend: 0,
        };
        self.store_node(&node, best, best_move, beta);
    }
}

/// What a node of the main search knows before its moves are searched.
struct Node {
    hash: u64,
    depth: i32,
    ply: usize,
    /// A principal-variation node (a window wider than a null window).
    pv: bool,
    in_check: bool,
    /// The static evaluation (`-INF` in check).
    static_eval: i32,
    /// The static evaluation is above that of our previous node on the line (two plies up,
    /// or four when that one was in check); true where none is known.
    improving: bool,
    /// The hash move when a singular search found it singular (encoded; 0 for none): it is
    /// searched a ply deeper.
    extend: u16,
}

/// What a singular search says of a node.
enum Singular {
    /// Nothing: search the node as it is.
    No,
    /// The hash move is singular: extend it.
    Extend,
    /// Other moves beat beta too: the node fails high with this score (multi-cut).
    Cut(i32),
}

/// The score of a hash entry that settles a node searched to `depth` in the window
/// (`alpha`, `beta`): deep enough, and exact or a bound on the right side of the window.
fn tt_cutoff(e: &Entry, depth: i32, alpha: i32, beta: i32, ply: usize) -> Option<i32> {
    if i32::from(e.depth) < depth {
        return None;
    }
    let s = score_from_tt(i32::from(e.score), ply);
    let cut = match e.bound {
        Bound::Exact => true,
        Bound::Lower => s >= beta,
        Bound::Upper => s <= alpha,
    };
    cut.then_some(s)
}

/// Whether a quiet move after the first (no check given or escaped) is pruned in a non-PV node:
/// late-move pruning by count at depth 7 and below (half as many moves when not improving),
/// futility at depth 5 and below.
fn prunes_late_quiet(node: &Node, searched: i32, alpha: i32) -> bool {
    let depth = node.depth;
    let late = (LMP_BASE() + LMP_FACTOR() * depth * depth) / (2 - i32::from(node.improving));
    !node.pv
        && ((depth <= LMP_MAX_DEPTH && searched >= late)
            || (depth <= FUTILITY_MAX_DEPTH
                && node.static_eval + FUTILITY_BASE() + FUTILITY_PER_PLY() * depth <= alpha))
}

/// The key of the position reached from `pos` (key `hash`) by `m`, updated incrementally; `None`
/// where shakmaty cannot update it (the search then computes it afresh).
fn child_key(pos: &Chess, hash: u64, m: Move) -> Option<u64> {
    pos.update_zobrist_hash::<Zobrist64>(Zobrist64(hash), m, EnPassantMode::Legal)
        .map(|z| z.0)
}

/// The key of `child`, the position after `m` from `pos` (key `hash`), from the parent's: for
/// the moves [`child_key`] leaves out (king moves, castling, moves from or to a square that
/// holds a castling right, double pawn pushes, any move from a position with an en passant
/// square), whose key would otherwise be computed whole.
fn played_key(pos: &Chess, hash: u64, m: Move, child: &Chess) -> u64 {
    let mut key = Zobrist64(hash) ^ Zobrist64::zobrist_for_white_turn();
    for (piece, sq) in Delta::of_move(pos.turn(), &m).pieces() {
        key ^= Zobrist64::zobrist_for_piece(sq, piece);
    }
    let (before, after) = (pos.castles(), child.castles());
    for color in Color::ALL {
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            if before.has(color, side) != after.has(color, side) {
                key ^= Zobrist64::zobrist_for_castling_right(color, side);
            }
        }
    }
    for sq in [pos, child]
        .into_iter()
        .filter_map(|p| p.ep_square(EnPassantMode::Legal))
    {
        key ^= Zobrist64::zobrist_for_en_passant_file(sq.file());
    }
    key.0
}

/// The key of the position after a null move from `pos` (key `hash`): the other side to move,
/// and no en passant square (a null move forfeits the capture).
fn null_key(pos: &Chess, hash: u64) -> u64 {
    let mut key = Zobrist64(hash) ^ Zobrist64::zobrist_for_white_turn();
    if let Some(ep) = pos.ep_square(EnPassantMode::Legal) {
        key ^= Zobrist64::zobrist_for_en_passant_file(ep.file());
    }
    key.0
}

/// Whether the legal move `m` gives check, without playing it: the moved (or promoted) piece
/// attacks the enemy king from its new square, or leaving its old square opens a line of one of
/// our sliders to it. Castling and en passant are played on a copy.
fn gives_check(pos: &Chess, m: &Move) -> bool {
    let Move::Normal {
        role,
        from,
        to,
        promotion,
        ..
    } = *m
    else {
        let mut child = pos.clone();
        child.play_unchecked(*m);
        return child.is_check();
    };
    let board = pos.board();
    let us = pos.turn();
    let Some(king) = board.king_of(!us) else {
        return false;
    };
    let occupied = (board.occupied() & !Bitboard::from_square(from)) | Bitboard::from_square(to);
    let piece = promotion.unwrap_or(role).of(us);
    if attacks::attacks(to, piece, occupied).contains(king) {
        return true;
    }
    let ours = board.by_color(us) & !Bitboard::from_square(from);
    let diagonal = (board.bishops() | board.queens()) & attacks::bishop_attacks(king, occupied);
    let straight = (board.rooks() | board.queens()) & attacks::rook_attacks(king, occupied);
    ((diagonal | straight) & ours).any()
}

fn has_pieces(pos: &Chess) -> bool {
    let b = pos.board();
    (pos.us() & !b.pawns() & !b.kings()).any()
}

/// What a null-move search's score `s` proves against `beta`: a cutoff at `s`, or at `beta`
/// when `s` is a mate or a table win (found after passing, which is not a move: neither is
/// proven for the node itself); `None` when it does not reach `beta`.
fn null_move_result(s: i32, beta: i32) -> Option<i32> {
    (s >= beta).then_some(if s >= TB_BOUND { beta } else { s })
}

/// SEE pruning at depth 6 and below: a move after the first whose static exchange loses more
/// than a margin that grows with the depth (more for quiet moves, which also give up tempo).
fn loses_material(
    picker: &mut MovePicker<'_>,
    pos: &Chess,
    m: &Move,
    quiet: bool,
    depth: i32,
) -> bool {
    if depth > SEE_PRUNE_MAX_DEPTH || m.is_promotion() {
        return false;
    }
    let margin = if quiet {
        SEE_QUIET_MARGIN() * depth * depth
    } else {
        SEE_CAPTURE_MARGIN() * depth
    };
    picker.see_of_last(pos) < margin
}

/// A history value `v` after a bonus (`sign` 1) or a malus (`sign` -1) of `bonus`: moved by
/// [`HISTORY_SCALE`] times the bonus, and pulled toward zero by [`HISTORY_GRAVITY`] so that it
/// stays bounded.
fn history_step(v: i32, bonus: i32, sign: i32) -> i32 {
    v + sign * HISTORY_SCALE * bonus - v * bonus / HISTORY_GRAVITY
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_panicking_helper_loses_only_its_own_result() {
        let kept = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|i| {
                    s.spawn(move || {
                        if i == 1 {
                            panic!("helper {i} fails (expected by the test)");
                        }
                        i
                    })
                })
                .collect();
            super::joined(handles)
        });
        assert_eq!(kept, vec![0, 2, 3]);
    }

    use shakmaty::CastlingMode;

    use super::*;

    fn pos(fen: &str) -> Chess {
        crate::fen::parse_fen(fen).expect("legal FEN")
    }

    fn run(p: &Chess, depth: u32) -> SearchResult {
        let tt = TranspositionTable::new(8).expect("8 MB");
        search_alone(&SearchParams::fixed_depth(p.clone(), depth), &tt)
    }

    /// Positions of the standard perft suites: castling, en passant, promotions, checks.
    const PERFT_SUITE: [&str; 4] = [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    ];

    fn uci(m: Option<Move>) -> String {
        m.map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .unwrap_or_default()
    }

    /// The key the search carries from node to node (updated move by move) is the key of the
    /// position reached, over every move of perft 3 from positions of the standard perft suites
    /// (castling, en passant, promotions, checks), and over a null move from each position
    /// not in check; the moves shakmaty's update leaves out are keyed by `played_key`.
    #[test]
    fn updated_keys_equal_full_keys() {
        fn walk(p: &Chess, hash: u64, depth: u32, checked: &mut u64, computed: &mut u64) {
            assert_eq!(
                hash,
                hash_of(p),
                "{}",
                shakmaty::fen::Fen::from_position(p, EnPassantMode::Legal)
            );
            if depth == 0 {
                return;
            }
            if let Ok(passed) = p.clone().swap_turn() {
                assert_eq!(null_key(p, hash), hash_of(&passed), "a null move");
                *checked += 1;
            }
            for m in p.legal_moves() {
                let mut child = p.clone();
                child.play_unchecked(m);
                *checked += 1;
                let key = child_key(p, hash, m);
                if key.is_none() {
                    // The moves the update above leaves out, from the parent's key too.
                    assert_eq!(played_key(p, hash, m, &child), hash_of(&child), "{m:?}");
                    *computed += 1;
                }
                let key = key.unwrap_or_else(|| hash_of(&child));
                walk(&child, key, depth - 1, checked, computed);
            }
        }
        let (mut checked, mut computed) = (0, 0);
        for fen in ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]
            .into_iter()
            .chain(PERFT_SUITE)
        {
            let p = pos(fen);
            walk(&p, hash_of(&p), 3, &mut checked, &mut computed);
        }
        assert!(checked > 100_000, "{checked} moves");
        assert!(computed > 10_000, "{computed} keys from played_key");
        // Chess960: castling with the king or rook on other squares, or not moving at all.
        for fen in [
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
            "qnr1bkrb/pppp2pp/3np3/5p2/8/P2P2P1/NPP1PP1P/QN1RBKRB w GDg - 3 9",
            "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
            "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1",
        ] {
            let p: Chess = fen
                .parse::<shakmaty::fen::Fen>()
                .expect("FEN")
                .into_position(shakmaty::CastlingMode::Chess960)
                .expect("legal");
            walk(&p, hash_of(&p), 3, &mut checked, &mut computed);
        }
    }

    /// `gives_check` says what playing the move says, over every move of perft 3 from the
    /// standard perft suites (discovered checks, promotions with check, castling, en passant).
    #[test]
    fn gives_check_equals_playing_the_move() {
        fn walk(p: &Chess, depth: u32, checks: &mut u64, moves: &mut u64) {
            for m in p.legal_moves() {
                let mut child = p.clone();
                child.play_unchecked(m);
                assert_eq!(
                    gives_check(p, &m),
                    child.is_check(),
                    "{} {}",
                    shakmaty::fen::Fen::from_position(p, EnPassantMode::Legal),
                    uci(Some(m))
                );
                *moves += 1;
                *checks += u64::from(child.is_check());
                if depth > 1 {
                    walk(&child, depth - 1, checks, moves);
                }
            }
        }
        let (mut checks, mut moves) = (0, 0);
        for fen in PERFT_SUITE
            .into_iter()
            .chain(["r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"])
        {
            walk(&pos(fen), 3, &mut checks, &mut moves);
        }
        assert!(
            moves > 100_000 && checks > 1_000,
            "{moves} moves, {checks} checks"
        );
    }

    #[test]
    fn finds_mates_and_reports_their_distance() {
        // A back-rank mate in one.
        let p = pos("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
        let r = run(&p, 4);
        assert_eq!(uci(r.best), "a1a8");
        assert_eq!(Score::from_search(r.score).to_string(), "mate 1");
        // Black to move is mated next move whatever it does (only the king moves).
        let p = pos("k7/2K5/8/1Q6/8/8/8/8 b - - 0 1");
        let r = run(&p, 4);
        assert_eq!(Score::from_search(r.score).to_string(), "mate -1");
    }

    #[test]
    fn wins_material_and_avoids_losing_it() {
        // A hanging queen is taken.
        let p = pos("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1");
        assert_eq!(uci(run(&p, 5).best), "d1d5");
        // Stalemate is a draw: the only non-stalemating moves win.
        let p = pos("7k/5Q2/6K1/8/8/8/8/8 w - - 0 1");
        let r = run(&p, 5);
        assert!(
            r.score >= MATE_BOUND,
            "{}",
            Score::from_search(r.score).to_string()
        );
    }

    /// The second search of a game starts from the history the first left (so it searches
    /// another tree, even with an empty hash table), and a cleared pool starts afresh (the
    /// same tree as the first search).
    #[test]
    fn history_carries_over_to_the_next_search() {
        let p = pos("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4");
        let pool = HeuristicsPool::new();
        let nodes = |pool: &HeuristicsPool| {
            let tt = TranspositionTable::new(8).expect("8 MB");
            let control = SearchControl::new(false);
            let params = SearchParams::fixed_depth(p.clone(), 7);
            search(&params, &tt, pool, None, &control, &|_| {}).nodes
        };
        let first = nodes(&pool);
        let second = nodes(&pool);
        assert_ne!(first, second);
        assert!(pool.take(1)[0].history.iter().any(|&h| h != 0));
        pool.clear();
        assert_eq!(nodes(&pool), first);
    }

    /// With the experiment `exp-conthist`, cutoffs teach the continuation histories (rewards
    /// and penalties), which are kept for the next search like the history; without it the
    /// table stays empty.
    #[test]
    fn continuation_histories_learn_only_when_on() {
        let p = pos("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4");
        let pool = HeuristicsPool::new();
        let tt = TranspositionTable::new(8).expect("8 MB");
        let control = SearchControl::new(false);
        let params = SearchParams::fixed_depth(p, 7);
        search(&params, &tt, &pool, None, &control, &|_| {});
        let h = pool.take(1).remove(0);
        if CONT_HISTORY {
            assert_eq!(h.cont.len(), PIECE_TO * PIECE_TO);
            assert!(h.cont.iter().any(|&v| v > 0));
            assert!(h.cont.iter().any(|&v| v < 0));
        } else {
            assert!(h.cont.is_empty());
        }
    }

    /// A limited strength searches within its node budget and varies its moves with the seed
    /// at the lowest level; no level leaves a queen en prise untaken.
    #[test]
    fn limited_strength() {
        let run_at = |p: &Chess, elo: u32, seed: u64| {
            let tt = TranspositionTable::new(1).expect("1 MB");
            let params = SearchParams {
                pos: p.clone(),
                strength: Some(Strength::new(elo, seed)),
                ..SearchParams::default()
            };
            search_alone(&params, &tt)
        };
        let hanging = pos("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1");
        for elo in [1000, 2400] {
            for seed in 0..10 {
                let r = run_at(&hanging, elo, seed);
                assert_eq!(uci(r.best), "d2d5", "elo {elo} seed {seed}");
                assert!(
                    r.nodes <= Strength::new(elo, seed).nodes() + 1,
                    "{}",
                    r.nodes
                );
            }
        }
        let start = Chess::default();
        let mut firsts: Vec<String> = (0..20)
            .map(|seed| uci(run_at(&start, 1000, seed).best))
            .collect();
        firsts.sort();
        firsts.dedup();
        assert!(firsts.len() >= 4, "{firsts:?}");
    }

    #[test]
    fn a_null_move_never_proves_a_table_win_or_mate() {
        assert_eq!(null_move_result(tb_win_in(12), 100), Some(100));
        assert_eq!(null_move_result(mate_in(12), 100), Some(100));
        assert_eq!(null_move_result(350, 100), Some(350));
        assert_eq!(null_move_result(50, 100), None);
    }

    #[test]
    fn fixed_depth_searches_are_deterministic() {
        let p = pos("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4");
        let a = run(&p, 6);
        let b = run(&p, 6);
        assert_eq!(a.nodes, b.nodes);
        assert_eq!(a.best, b.best);
        assert!(a.nodes > 1000);
    }
}
