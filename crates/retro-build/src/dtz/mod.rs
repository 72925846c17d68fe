//! DTZ50 by retrograde analysis: for every position of a material, the distance in plies to the
//! next zeroing move under best play with the 50-move rule, as Syzygy defines it (see
//! [`retro_tables::Dtz`]).
//!
//! The material's DTM values come in solved: they say who wins without the rule, so only wins
//! and losses take part (a draw stays a draw under the rule) and the solve only has to find how
//! far each is from its zeroing move, and whether that is within the rule.
//!
//! - Zeroing moves (captures, promotions, pawn moves) are exits: the position after one is
//!   valued by its class under the rule alone (the clock is reset), from a sub-table, or for a
//!   pawn move from this table's own values of a more advanced pawn structure. A winner's best
//!   exit makes it 1 (into a loss) or 101 (into a blessed loss); a loser's worst is 1 or 101.
//! - The other moves stay within the pawn structure. Pawn structures are solved from the most
//!   advanced (the sum of the pawns' ranks counted from their own side, which every pawn move
//!   raises) to the least, so that pawn moves lead to values already final.
//! - Within a structure, depth by depth: a checkmated position is a loss at depth 0; the
//!   predecessors (by un-moves of pieces other than pawns, without captures) of a loss at `d`
//!   win at `d + 1`; a loser is decided when its last successor is, at the larger of `d + 1` and
//!   its worst exit. Depths past 100 are the cursed wins and blessed losses.
//!
//! Syzygy's convention, which these values follow: a loss whose best move zeroes (every move
//! zeroes, or the best leads into a cursed win, 101) has the DTZ of its zeroing move (-1 or
//! -101, as a checkmated side has -1), but the winner's moves into it count from one ply less
//! (depth 0 or 100), as they do from a mate. So a winning move that leaves the loser only
//! zeroing moves is 1, like a mate in one or a winning capture, although the zeroing move
//! comes one ply later: DTZ then counts the plies to a position whose every move zeroes. On
//! every position of the 35 tables of 3 and 4 pieces these are Syzygy's values (tests/
//! syzygy_dtz.rs).
//!
//! Speed: in a build the DTM solve's init pass, which generates every legal move of every
//! position anyway, records what this init needs (see [`Records`]): each capture and promotion
//! valued by its class under the rule (a mate within 100 plies is within the rule, so only
//! sub-tables with longer mates have their DTZ50 file read), the distinct quiet successors of
//! pieces other than pawns, and the legal pawn pushes; the records become this solve's cells,
//! and its init only values the pushes, from this table's more advanced structures. Without
//! records (a DTM table already present), each pawn structure's init decodes only its own
//! entries (their ranks are computed once) and generates their legal moves as the DTM solve's
//! init does (checks and pins once per position, no move tried and taken back); a loser's quiet
//! moves are counted by bitboard, listed only where two may reach the same entry, and a
//! winner's are not generated at all. Both give the same values. A win by a winning zeroing
//! move is decided in the init (1 ply is the least a win has) and joins the frontier from the
//! seeds; the pawn structure rank of each entry comes from the pawns' index digits, and a run of
//! one rank is decoded as a whole. The un-moves
//! leave out origins from which the piece would have left the other king in check, step the index
//! by the piece's stride where they can, look at a bitmap of the still open wins before the cell
//! of a loss's predecessor (for a lone piece, by lines of that piece: one load for all its
//! origins, as the DTM passes do; a win's predecessors are mostly open losses, whose cells are
//! read anyway), and run as the kernel's software pipeline (`kernel::pass::Pipelined`): one
//! node's predecessors are generated and their cells prefetched before the previous node's are
//! updated. The frontier of a depth is a bitmap per side (`kernel::frontier::Frontier`), which
//! the passes read in index order by the kernel's partitions (the side to move and its king's
//! square class: `kernel::pass::run_pass`), so that neighbouring nodes have neighbouring
//! predecessors, no two threads share a predecessor, and cells are updated without atomic
//! exchanges; a node's depth says whether it is a loss (even) or a win (odd), so that its own
//! cell is not read again.

mod records;
mod sub;

use std::{
    collections::BTreeMap,
    marker::PhantomData,
    sync::atomic::{AtomicU16, AtomicU64, Ordering::Relaxed},
};

use rayon::prelude::*;
use shakmaty::{ByColor, Color, Role};

pub(crate) use self::records::Record;
pub use self::records::Records;
pub use self::sub::Wdl50Tables;
pub use crate::error::{DtzError, Inconsistency};
use crate::kernel::{
    depths::{by_depth, Depths},
    exits::{exit_plans, for_each_en_passant, ExitPlan},
    frontier::{Frontier, LineBits},
    king_slot,
    memory::{Atomics, Pages},
    moves::{legal_targets, LegalTargets},
    pass::{partitions, run_pass, Access, Pipelined, Unmove},
    prefetch, side_of_bit,
    unmoves::{discovery_masks, legal_origins},
    FirstError, SIDES,
};
use crate::metric::{Dtz50, Zeroing};
use retro_tables::{
    index::{IndexScheme, PawnDigit, Squares},
    pieces::{attacks_from, occupancy},
    Dtz, Material, Value, Wdl, Wdl50,
};

/// A decided cell: the depth in the low bits, `LOSS` for a loss.
pub(crate) const DECIDED: u16 = 1 << 15;
pub(crate) const LOSS: u16 = 1 << 14;
pub(crate) const DEPTH: u16 = 0x0FFF;
/// An undecided win (DTM says so).
pub(crate) const WINNER: u16 = 1 << 13;
/// An undecided loss: successors still open in the low byte, its worst exit in bits 8..10
/// (0 none, 1 a zeroing move into a win, 2 into a cursed win).
pub(crate) const LOSER: u16 = 1 << 12;
/// In a decided loss: its best move zeroes (or it is mate), so that its DTZ is one more than
/// its depth (see `DtzSolver::unmove`).
pub(crate) const ZEROES: u16 = 1 << 12;
/// In a decided win: decided by its exit in the init (a winning zeroing move: 1 ply, the least
/// a win can have), it joins the frontier from the seeds.
pub(crate) const SEEDED: u16 = 1 << 12;
pub(crate) const EXIT_SHIFT: u32 = 8;
pub(crate) const COUNT: u16 = 0xFF;

/// A seed: entry index (from bit 2) and side to move (bit 0).
type Item = u64;

/// The seeds one task of an init pass finds, by depth (a few depths only: 0, 1, 100, 101).
#[derive(Default)]
struct Seeds(Vec<(u16, Vec<Item>)>);

impl Seeds {
    fn push(&mut self, d: u16, it: Item) {
        match self.0.iter_mut().find(|(x, _)| *x == d) {
            Some((_, v)) => v.push(it),
            None => self.0.push((d, vec![it])),
        }
    }

    /// The seeds of all tasks by depth, each depth's gathered in parallel.
    fn gather(parts: Vec<Seeds>) -> BTreeMap<u16, Vec<Item>> {
        let mut depths: Vec<u16> = parts
            .iter()
            .flat_map(|p| p.0.iter().map(|(d, _)| *d))
            .collect();
        depths.sort_unstable();
        depths.dedup();
        depths
            .into_par_iter()
            .map(|d| {
                let at_d = parts
                    .iter()
                    .flat_map(|p| p.0.iter().filter(move |(x, _)| *x == d))
                    .map(|(_, v)| v.as_slice());
                (d, at_d.collect::<Vec<_>>().concat())
            })
            .collect()
    }
}

const fn item(idx: u64, side: Color) -> Item {
    (idx << 2) | king_slot(side) as u64
}

/// The side to move of a node.
const fn item_side(it: Item) -> Color {
    side_of_bit(it)
}

/// The entry index of a node.
const fn item_idx(it: Item) -> u64 {
    it >> 2
}

fn set_bit(bits: &[AtomicU64], idx: u64) {
    bits[(idx / 64) as usize].fetch_or(1 << (idx % 64), Relaxed);
}

fn clear_bit(bits: &[AtomicU64], idx: u64) {
    bits[(idx / 64) as usize].fetch_and(!(1 << (idx % 64)), Relaxed);
}

fn has_bit(bits: &[AtomicU64], idx: u64) -> bool {
    bits.get((idx / 64) as usize)
        .is_some_and(|w| w.load(Relaxed) & (1 << (idx % 64)) != 0)
}

/// The result: per entry, white to move then black to move, the DTZ table's byte
/// ([`Dtz::to_table_byte`]; 0 for draws and unused entries).
pub struct DtzSolved {
    /// Table bytes with white to move.
    pub white: Vec<u8>,
    /// Table bytes with black to move.
    pub black: Vec<u8>,
    /// The longest win (plies).
    pub longest_win: u32,
    /// The longest loss (plies).
    pub longest_loss: u32,
    /// Per side, a bit per entry (bit `i % 64` of word `i / 64`) set for the wins and losses:
    /// the only entries whose DTZ a probe reads (for a draw the DTM table says draw, and the
    /// other entries are no position), so a compressed file may store anything elsewhere.
    pub kept: ByColor<Vec<u64>>,
}

/// The DTZ50 solve of one pawn structure rank with cells in memory, depth by depth (see
/// `kernel::depths`).
struct DtzDepths<'s, 'a, M> {
    solver: &'s DtzSolver<'a, M>,
    /// What joins the frontier at later depths: seeds of the init, and late losses.
    seeds: BTreeMap<u16, Vec<Item>>,
    /// The nodes of the current depth and of the next, as bitmaps read in index order by the
    /// pass's partitions. A node's depth says what it is: the wins are at odd depths, the
    /// losses at even ones (a mate is 0, a win one more than the loss it leads to, a loss one
    /// more than its last win or one less than its exit, 1 or 101).
    frontiers: &'s mut [Frontier; 2],
    /// How many nodes the current frontier holds.
    count: u64,
    partitions: &'s [(Color, Vec<u64>)],
    access: Access,
    /// Time spent joining seeds and in the un-moves, for the logs.
    times: [f64; 2],
}

impl<M: Zeroing> Depths for DtzDepths<'_, '_, M> {
    type Error = DtzError;

    fn complete(&mut self, d: usize) -> Result<u64, DtzError> {
        let t0 = std::time::Instant::now();
        let d = u16::try_from(d).map_err(|_| DtzError::Overflow(self.solver.material.name()))?;
        if let Some(s) = self.seeds.remove(&d) {
            self.count += self.solver.join_seeds(&s, d, &self.frontiers[0]);
        }
        self.times[0] += t0.elapsed().as_secs_f64();
        Ok(self.count)
    }

    fn scheduled_after(&self, _d: usize) -> bool {
        // Seeds of depths up to the current one have been taken out.
        !self.seeds.is_empty()
    }

    fn pass(&mut self, d: usize, count: u64) -> Result<(), DtzError> {
        let s = self.solver;
        if count == 0 {
            // Nothing to un-move: an empty depth before the next seeds.
            return Ok(());
        }
        if d >= usize::from(DEPTH) - 1 {
            return Err(DtzError::Overflow(s.material.name()));
        }
        let t1 = std::time::Instant::now();
        let [cur, next] = &*self.frontiers;
        let tasks = run_pass(cur, self.partitions, s.ix.king_stride(), || {
            let unmoves = DtzUnmoves {
                solver: s,
                d: d as u16,
                lost: d.is_multiple_of(2),
                next,
                fresh: 0,
                late: Vec::new(),
                access: self.access,
            };
            Pipelined::new(unmoves, [Found::default(), Found::default()])
        });
        self.times[1] += t1.elapsed().as_secs_f64();
        s.check()?;
        self.count = 0;
        for task in tasks {
            let u = task.finish();
            self.count += u.fresh;
            for (v, it) in u.late {
                self.seeds.entry(v).or_default().push(it);
            }
        }
        self.frontiers.swap(0, 1);
        Ok(())
    }
}

/// The un-moves of one task of a pass from the nodes decided at depth `d`, with what their
/// updates gather; run as a software pipeline ([`Pipelined`]).
struct DtzUnmoves<'s, 'a, M> {
    solver: &'s DtzSolver<'a, M>,
    d: u16,
    /// Whether the nodes are losses (an even depth).
    lost: bool,
    /// The frontier of `d + 1`.
    next: &'s Frontier,
    /// Predecessors newly marked in `next`.
    fresh: u64,
    /// Losses that their exits decide later, with their depth.
    late: Vec<(u16, Item)>,
    access: Access,
}

impl<M: Zeroing> Unmove for DtzUnmoves<'_, '_, M> {
    type Node = (Color, u64);
    type Found = Found;

    fn node(side: Color, idx: u64) -> (Color, u64) {
        (side, idx)
    }

    #[inline]
    fn find(&mut self, (side, idx): (Color, u64), found: &mut Found) {
        self.solver.predecessors_of(side, idx, self.lost, found);
    }

    #[inline]
    fn update(&mut self, found: &Found) {
        self.solver.update(found, self.d, self);
    }
}

/// One legal move, as the solve needs it.
#[derive(Clone, Copy)]
pub(crate) struct Mv {
    /// The slot of the piece that moves.
    pub(crate) slot: usize,
    /// The slot captured, `usize::MAX` for none.
    pub(crate) capture: usize,
    /// A pawn's push of two squares.
    pub(crate) double: bool,
    /// The piece a pawn promotes to.
    pub(crate) promotion: Option<Role>,
}

/// The predecessors of one node of a retrograde pass, before their cells are updated.
struct Found {
    preds: Vec<u64>,
    /// The side to move in them.
    mover: Color,
    /// Whether the node is a loss (its predecessors win).
    lost: bool,
}

impl Default for Found {
    fn default() -> Found {
        Found {
            preds: Vec::new(),
            mover: Color::White,
            lost: false,
        }
    }
}

/// Solves DTZ50 for one material (or, as `DtzSolver<M>`, another [`Zeroing`] metric: its
/// rule decides the exits' plies and the classes of this table's own entries).
pub struct DtzSolver<'a, M = Dtz50> {
    material: Material,
    ix: IndexScheme,
    slots: Vec<(Color, Role)>,
    n: usize,
    dtm: ByColor<&'a [u8]>,
    sub: &'a Wdl50Tables,
    plans: Vec<Option<ExitPlan>>,
    cells: ByColor<Atomics<AtomicU16>>,
    /// Whether the cells start as the DTM init's records (see [`Records`]): each is replaced
    /// by the init of its pawn structure.
    recorded: bool,
    /// Per side, a bit per entry that is an undecided win or loss: the un-moves look here
    /// first (an eighth of the cells' memory, so mostly in cache) and touch the cells of these
    /// entries only. Draws and entries that are no position never have it.
    open: ByColor<Atomics<AtomicU64>>,
    /// Per side, per slot of a lone piece of that side, the open bits again by lines of that
    /// piece (see `LineBits`): the un-moves of that piece from a loss find which of their
    /// predecessors are open with one load.
    lines: ByColor<Vec<Option<LineBits>>>,
    /// The pawns' index digits (`IndexScheme::pawn_digits`), lowest stride first: the pawn
    /// structure rank of an entry without decoding it.
    pawn_digits: Vec<PawnDigit>,
    /// The partitions of the passes (see `kernel::pass::partitions`), and what a task owns.
    partitions: Vec<(Color, Vec<u64>)>,
    access: Access,
    error: FirstError<DtzError>,
    metric: PhantomData<fn() -> M>,
}

/// The plies a loser's worst exit (cell code) stands for in the metric `M`.
#[inline]
pub(crate) const fn exit_plies<M: Zeroing>(code: u16) -> u16 {
    match code {
        0 => 0,
        1 => 1,
        _ => M::LONG_EXIT,
    }
}

/// The cell code of a loser's worst exit of `plies` (0 for none): 1 for one ply, 2 for the
/// metric's long exit.
#[inline]
pub(crate) const fn exit_code(plies: u16) -> u16 {
    match plies {
        0 => 0,
        1 => 1,
        _ => 2,
    }
}

/// The cell and depth of the open loss `cell` whose last successor was decided at depth `d`:
/// its depth is `d + 1`, or its worst exit's one less when that is longer (its best move then
/// zeroes, and the winner's moves into it count from one ply less than its DTZ).
#[inline]
pub(crate) fn loser_decided<M: Zeroing>(cell: u16, d: u16) -> (u16, u16) {
    let exit = exit_plies::<M>((cell >> EXIT_SHIFT) & 3);
    let at = M::loss_at(usize::from(d) + 1, usize::from(exit));
    // At most the larger of `d + 1` and 100, which the depth bits hold.
    let v = at.depth as u16;
    let zeroes = if at.by_exit { ZEROES } else { 0 };
    (DECIDED | LOSS | zeroes | v, v)
}

/// What the update of an open predecessor by a node decided at depth `d` makes of its cell:
/// the one cell transition of DTZ50, which the cells solve and the solve by structure share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Nothing: the cell is decided already, or is not what this node decides (a loser for a
    /// loss, a winner for a win).
    Keep,
    /// A loser with one successor fewer open: its new cell.
    Counted(u16),
    /// Decided: the new cell and the depth it is decided at (`d + 1` for a win; for a loss,
    /// the larger of that and its worst exit's, see [`loser_decided`]).
    Decided(u16, u16),
    /// A loser with no successor left open: more of its successors were decided than it has.
    Overcounted,
}

/// The transition of the cell `cur`, a predecessor of a node decided at depth `d` (a loss when
/// `lost`): a winner of a loss wins at `d + 1`; a loser of a win counts down and is decided when
/// its last successor is. A win at `d + 1` past [`DEPTH`] does not fit the cell: the callers
/// stop (or fail) before `d` reaches it.
#[inline]
pub(crate) fn step<M: Zeroing>(cur: u16, lost: bool, d: u16) -> Step {
    if cur & DECIDED != 0 {
        return Step::Keep;
    }
    if lost {
        if cur & WINNER == 0 {
            return Step::Keep;
        }
        let w = M::win_at(usize::from(d)) as u16;
        return Step::Decided(DECIDED | w, w);
    }
    if cur & LOSER == 0 {
        return Step::Keep;
    }
    match cur & COUNT {
        0 => Step::Overcounted,
        1 => {
            let (decided, v) = loser_decided::<M>(cur, d);
            Step::Decided(decided, v)
        }
        _ => Step::Counted(cur - 1),
    }
}

/// The exact DTZ of a decided cell.
pub(crate) fn dtz_of(cell: u16) -> Dtz {
    let d = (cell & DEPTH) as i16;
    if cell & LOSS != 0 {
        Dtz(-d - i16::from(cell & ZEROES != 0))
    } else {
        Dtz(d)
    }
}

/// A position whose moves the init of a win or loss goes through: its entry, squares and
/// legal moves in a table's index.
pub(crate) struct Position<'p> {
    pub(crate) ix: &'p IndexScheme,
    pub(crate) slots: &'p [(Color, Role)],
    pub(crate) idx: u64,
    pub(crate) sq: &'p Squares,
    pub(crate) legal: &'p LegalTargets,
}

/// What the init of a win or loss finds in its legal moves ([`moves_of_win_or_loss`]).
pub(crate) struct MovesFound {
    /// A loser's quiet moves of pieces other than pawns (its distinct successors, when
    /// `dedupe`: then they are in `keys`, not yet deduplicated, and this is 0).
    pub(crate) counted: usize,
    /// The winner's fewest plies an exit gives (1 or 101), the loser's most; 0 for none.
    pub(crate) exit: u16,
    /// Every move counted (a promotion once per piece).
    pub(crate) moves: u32,
}

/// Goes through the legal moves of a win (`winner`) or loss of DTZ50: a loser's quiet moves
/// of pieces other than pawns are counted (or listed into `keys` by the entry they reach, when
/// `dedupe`: two of them may reach the same entry), and every zeroing move (capture,
/// promotion, pawn move) is an exit valued by `class` (the class for the opponent, to move
/// after it); a winner's exit into a loss is 1 ply, into a blessed loss 101, a loser's into a
/// win 1, into a cursed win 101. A loser's move into a draw or a loss is `inconsistent`.
///
/// # Errors
/// The first error of `class` or `inconsistent`.
pub(crate) fn moves_of_win_or_loss<M: Zeroing, E>(
    pos: Position<'_>,
    winner: bool,
    dedupe: bool,
    keys: &mut Vec<u64>,
    mut class: impl FnMut(&Squares, &Mv) -> Result<Wdl50, E>,
    inconsistent: impl Fn(Wdl50) -> E,
) -> Result<MovesFound, E> {
    let Position {
        ix,
        slots,
        idx,
        sq,
        legal,
    } = pos;
    keys.clear();
    let n = ix.piece_count();
    let mut counted = 0usize;
    let mut exit: u16 = 0;
    let mut moves = 0u32;
    let occ = legal.occ;
    for i in 0..n {
        let all = legal.targets[i];
        if all == 0 {
            continue;
        }
        let pawn = slots[i].1 == Role::Pawn;
        // A winner's quiet moves count only through the retrograde passes; a loser's are
        // counted at once unless two of them may reach the same entry.
        let quiet = if pawn { 0 } else { all & !occ };
        if !winner && !dedupe {
            counted += quiet.count_ones() as usize;
        }
        moves += quiet.count_ones();
        let mut listed = if winner || !dedupe { all & !quiet } else { all };
        while listed != 0 {
            let to = listed.trailing_zeros() as u8;
            listed &= listed - 1;
            let mut after = *sq;
            after[i] = to;
            if quiet & (1u64 << to) != 0 {
                // A loser's quiet move, listed to be deduplicated.
                if let Some(k) = ix.moved(idx, sq, i, to).or_else(|| ix.index(&after)) {
                    keys.push(k);
                }
                continue;
            }
            let capture = if occ & (1u64 << to) != 0 {
                match (0..n).find(|&j| sq[j] == to) {
                    Some(j) if j >= 2 => j,
                    _ => continue, // a king is never taken
                }
            } else {
                usize::MAX
            };
            let mv = Mv {
                slot: i,
                capture,
                double: legal.double[i] & (1u64 << to) != 0,
                promotion: None,
            };
            let promotions: &[Option<Role>] = if pawn && (to >> 3 == 7 || to >> 3 == 0) {
                &[
                    Some(Role::Queen),
                    Some(Role::Rook),
                    Some(Role::Bishop),
                    Some(Role::Knight),
                ]
            } else {
                &[None]
            };
            for &promotion in promotions {
                moves += 1;
                let mv = Mv { promotion, ..mv };
                let theirs = class(&after, &mv)?;
                let Some(plies) = M::exit(winner, theirs).map_err(&inconsistent)? else {
                    continue;
                };
                exit = if exit == 0 {
                    plies
                } else if winner {
                    exit.min(plies)
                } else {
                    exit.max(plies)
                };
            }
        }
    }
    Ok(MovesFound {
        counted,
        exit,
        moves,
    })
}

impl<'a> DtzSolver<'a> {
    /// A solver that starts from the records of the material's DTM init pass (see
    /// [`Records`]): its init generates only pawn pushes, and `sub` needs only the tables of
    /// en passant captures ([`Wdl50Tables::open_stage`] of `Stage::Retro`). The records value
    /// captures and promotions by DTZ50's classes.
    pub fn from_records(
        material: Material,
        dtm: ByColor<&'a [u8]>,
        sub: &'a Wdl50Tables,
        records: Records,
    ) -> DtzSolver<'a> {
        DtzSolver::with_cells(material, dtm, sub, records.into_cells(), true)
    }

    /// A solver for `material` (canonical), whose DTM values per side to move (one byte per
    /// entry, index order) are `dtm`, with its zeroing moves' tables in `sub` (the build
    /// calls [`DtzSolver::of_metric`] through `build_zeroing`).
    #[cfg(test)]
    pub fn new(material: Material, dtm: ByColor<&'a [u8]>, sub: &'a Wdl50Tables) -> DtzSolver<'a> {
        DtzSolver::of_metric(material, dtm, sub)
    }
}

impl<'a, M: Zeroing> DtzSolver<'a, M> {
    /// A solver of the metric `M`, as [`DtzSolver::new`] (the classes in `sub` are those
    /// under `M`'s rule).
    pub(crate) fn of_metric(
        material: Material,
        dtm: ByColor<&'a [u8]>,
        sub: &'a Wdl50Tables,
    ) -> DtzSolver<'a, M> {
        let size = IndexScheme::new(material).size() as usize;
        let mk = || Atomics::<AtomicU16>::zeroed(size, Pages::Default);
        DtzSolver::with_cells(material, dtm, sub, ByColor::new_with(|_| mk()), false)
    }

    fn with_cells(
        material: Material,
        dtm: ByColor<&'a [u8]>,
        sub: &'a Wdl50Tables,
        cells: ByColor<Atomics<AtomicU16>>,
        recorded: bool,
    ) -> DtzSolver<'a, M> {
        let ix = IndexScheme::new(material);
        let size = ix.size() as usize;
        let bits = || Atomics::<AtomicU64>::zeroed(size.div_ceil(64), Pages::Default);
        let lines = LineBits::by_side(&ix);
        let (parts, access) = (partitions(&ix), Access::of_partitions(&ix));
        let mut pawn_digits = ix.pawn_digits();
        pawn_digits.sort_by_key(|g| g.stride);
        DtzSolver {
            material,
            slots: ix.slots().to_vec(),
            n: ix.piece_count(),
            plans: exit_plans(ix.slots()),
            ix,
            dtm,
            sub,
            cells,
            recorded,
            open: ByColor::new_with(|_| bits()),
            lines,
            pawn_digits,
            partitions: parts,
            access,
            error: FirstError::new(),
            metric: PhantomData,
        }
    }

    fn note(&self, e: DtzError) {
        self.error.note(e);
    }

    fn inconsistent(&self, idx: u64, side: Color, why: Inconsistency) {
        self.note(DtzError::Inconsistent {
            material: self.material.name(),
            idx,
            side,
            why,
        });
    }

    fn check(&self) -> Result<(), DtzError> {
        self.error.check()
    }

    /// Solves every pawn structure, most advanced first: the table's bytes.
    ///
    /// # Errors
    /// A missing sub-table, or values that contradict the DTM values given.
    pub fn solve(self) -> Result<DtzSolved, DtzError> {
        self.solve_levels()?;
        self.finish()
    }

    /// Solves as [`DtzSolver::solve`], and gives every entry's exact DTZ (a loss's too, which
    /// the table's byte keeps only as its class), white to move then black.
    ///
    /// # Errors
    /// As [`DtzSolver::solve`].
    #[cfg(test)]
    pub(crate) fn solve_exact(self) -> Result<ByColor<Vec<Dtz>>, DtzError> {
        self.solve_levels()?;
        let values = |side: Color| -> Vec<Dtz> {
            self.cells[side]
                .par_iter()
                .map(|c| {
                    let cell = c.load(Relaxed);
                    if cell & DECIDED != 0 {
                        dtz_of(cell)
                    } else {
                        Dtz::DRAW
                    }
                })
                .collect()
        };
        self.check()?;
        Ok(ByColor::new_with(values))
    }

    /// Solves as [`DtzSolver::solve`], and gives every entry's exact DTZ with whether a loss's
    /// best move zeroes (the cell's [`ZEROES`]), white to move then black: what a check of the
    /// values from each position's moves compares with ([`crate::metric::ZeroingMoves`]).
    ///
    /// # Errors
    /// As [`DtzSolver::solve`].
    #[cfg(test)]
    pub(crate) fn solve_recomputed(
        self,
    ) -> Result<ByColor<Vec<crate::metric::Recomputed>>, DtzError> {
        self.solve_levels()?;
        let values = |side: Color| -> Vec<crate::metric::Recomputed> {
            self.cells[side]
                .par_iter()
                .map(|c| {
                    let cell = c.load(Relaxed);
                    let decided = cell & DECIDED != 0;
                    crate::metric::Recomputed {
                        dtz: if decided { dtz_of(cell) } else { Dtz::DRAW },
                        // `ZEROES` is a win's `SEEDED`.
                        zeroes: decided && cell & LOSS != 0 && cell & ZEROES != 0,
                    }
                })
                .collect()
        };
        self.check()?;
        Ok(ByColor::new_with(values))
    }

    fn solve_levels(&self) -> Result<(), DtzError> {
        let pawns = self.slots.iter().filter(|s| s.1 == Role::Pawn).count() as u8;
        let (mut init, mut passes) = (0.0, 0.0);
        let t = std::time::Instant::now();
        let levels = (pawns > 0).then(|| self.levels());
        let size = self.ix.size();
        let mut frontiers = [Frontier::new(size), Frontier::new(size)];
        init += t.elapsed().as_secs_f64();
        log::debug!(
            "{}: DTZ50 pawn structure ranks {init:.2} s",
            self.material.name()
        );
        for level in (0..=6 * pawns).rev() {
            let t = std::time::Instant::now();
            let seeds = self.init_level(level, levels.as_deref());
            self.check()?;
            init += t.elapsed().as_secs_f64();
            log::debug!(
                "{}: DTZ50 init of rank {level}: {:.2} s, {} seeds",
                self.material.name(),
                t.elapsed().as_secs_f64(),
                seeds.values().map(Vec::len).sum::<usize>()
            );
            let t = std::time::Instant::now();
            self.passes(seeds, &mut frontiers)?;
            self.check()?;
            passes += t.elapsed().as_secs_f64();
        }
        log::info!(
            "{}: DTZ50 init {init:.2} s, retrograde passes {passes:.2} s",
            self.material.name()
        );
        Ok(())
    }

    /// The pawn structure rank of every entry (the sum of each pawn's rank counted from its
    /// own side, which every pawn move raises), so that each rank's init visits only its own
    /// entries. From the pawns' index digits alone, without decoding an entry: the rank is
    /// constant over runs of the lowest pawn digit's stride, and over a block of that digit's
    /// values only that digit changes.
    fn levels(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.ix.size() as usize];
        let Some((low, high)) = self.pawn_digits.split_first() else {
            return out;
        };
        let run = low.stride as usize;
        let block = run * low.size as usize;
        // Blocks per task: about 2^16 entries.
        let per_task = block * (1usize << 16).div_ceil(block);
        out.par_chunks_mut(per_task)
            .enumerate()
            .for_each(|(t, part)| {
                for (b, block_out) in part.chunks_mut(block).enumerate() {
                    let start = (t * per_task + b * block) as u64;
                    let base: u8 = high
                        .iter()
                        .map(|g| g.ranks[(start / g.stride % g.size) as usize])
                        .sum();
                    for (&r, cells) in low.ranks.iter().zip(block_out.chunks_mut(run)) {
                        cells.fill(base + r);
                    }
                }
            });
        out
    }

    /// The init pass over the entries of one pawn structure rank (`levels`: the rank of every
    /// entry, `None` without pawns): exits valued, losers' successors counted; returns the
    /// seeds by depth.
    fn init_level(&self, level: u8, levels: Option<&[u8]>) -> BTreeMap<u16, Vec<Item>> {
        let size = self.ix.size();
        let chunk = 1u64 << 14;
        // Entries over which the rank is constant: the lowest pawn digit's stride.
        let rank_run = self.pawn_digits.first().map_or(1, |g| g.stride);
        let parts: Vec<Seeds> = (0..size.div_ceil(chunk))
            .into_par_iter()
            .map(|c| {
                let mut seeds = Seeds::default();
                let mut keys = Vec::with_capacity(128);
                let (start, end) = (c * chunk, ((c + 1) * chunk).min(size));
                let mut entry = |idx: u64, sq: Option<&Squares>, seeds: &mut Seeds| {
                    for side in SIDES {
                        match sq {
                            Some(sq) if !self.recorded => {
                                self.init_entry(sq, idx, side, seeds, &mut keys);
                            }
                            _ => self.init_recorded(sq, idx, side, seeds),
                        }
                    }
                };
                match levels {
                    // Without pawns a record holds all the init needs: no entry is decoded.
                    None if self.recorded => {
                        for idx in start..end {
                            entry(idx, None, &mut seeds);
                        }
                    }
                    None => self
                        .ix
                        .for_each_used(start, end, |idx, sq| entry(idx, Some(sq), &mut seeds)),
                    // The rank is constant over runs of the lowest pawn digit's stride: a run of
                    // this rank is decoded as a whole (the pieces before the last group once).
                    Some(levels) if rank_run > 1 => {
                        let mut from = start;
                        while from < end {
                            let to = ((from / rank_run + 1) * rank_run).min(end);
                            if levels.get(from as usize) == Some(&level) {
                                self.ix.for_each_used(from, to, |idx, sq| {
                                    entry(idx, Some(sq), &mut seeds);
                                });
                            }
                            from = to;
                        }
                    }
                    Some(levels) => {
                        let here = levels.get(start as usize..end as usize).unwrap_or(&[]);
                        for (k, _) in here.iter().enumerate().filter(|(_, &l)| l == level) {
                            let idx = start + k as u64;
                            // A record without pawn pushes needs no squares.
                            if self.recorded && !self.has_pushes(idx) {
                                entry(idx, None, &mut seeds);
                            } else if let Some(sq) = self.ix.decode(idx) {
                                entry(idx, Some(&sq), &mut seeds);
                            }
                        }
                    }
                }
                seeds
            })
            .collect();
        Seeds::gather(parts)
    }

    fn init_entry(
        &self,
        sq: &Squares,
        idx: u64,
        side: Color,
        seeds: &mut Seeds,
        keys: &mut Vec<u64>,
    ) {
        let Some(&byte) = self.dtm[side].get(idx as usize) else {
            return;
        };
        let v = Value::from_byte(byte);
        let cell = &self.cells[side][idx as usize];
        let winner = match v.wdl() {
            Wdl::Draw => return,
            Wdl::Win => true,
            Wdl::Loss => false,
        };
        // No position: the side not to move is in check. A compressed DTM table holds whatever
        // compresses best there.
        let mut legal = LegalTargets::new();
        if !legal_targets(&self.slots, sq, self.n, side, &mut legal) {
            return;
        }
        if v == Value::MATED {
            cell.store(DECIDED | LOSS | ZEROES, Relaxed);
            seeds.push(0, item(idx, side));
            return;
        }
        // A loser's counter counts distinct successors: only where two moves may reach the same
        // entry are the entries listed and deduplicated.
        let dedupe = !winner && self.ix.may_coincide(sq, side.other());
        let found = moves_of_win_or_loss::<M, _>(
            Position {
                ix: &self.ix,
                slots: &self.slots,
                idx,
                sq,
                legal: &legal,
            },
            winner,
            dedupe,
            keys,
            |after, mv| {
                self.zeroing_class((idx, sq), after, mv, side.other())
                    .ok_or(())
            },
            |c| self.inconsistent(idx, side, Inconsistency::LossWithMoveTo(c)),
        );
        let Ok(MovesFound {
            mut counted,
            exit,
            moves,
        }) = found
        else {
            return;
        };
        if winner {
            self.init_winner(cell, idx, side, exit, seeds);
            return;
        }
        if dedupe {
            keys.sort_unstable();
            keys.dedup();
            counted = keys.len();
        }
        if counted == 0 && exit == 0 {
            self.inconsistent(idx, side, Inconsistency::LossWithoutExit(moves));
            return;
        }
        self.init_loser(cell, idx, side, counted, exit, seeds);
    }

    /// The init of entry `idx` with `side` to move from its record (see [`Records`]; the cell
    /// holds it and is replaced): as `init_entry`, with the captures and promotions valued and
    /// the quiet moves counted by the DTM init, and only the pawn pushes, whose values this
    /// table's more advanced pawn structures give, generated here (from `sq`, the decoded
    /// entry; `None` without pawns).
    fn init_recorded(&self, sq: Option<&Squares>, idx: u64, side: Color, seeds: &mut Seeds) {
        let Some(cell) = self.cells[side].get(idx as usize) else {
            return;
        };
        let record = Record::decode(cell.load(Relaxed));
        cell.store(0, Relaxed); // a draw, or no position, unless decided below
        let (Some(record), Some(&byte)) = (record, self.dtm[side].get(idx as usize)) else {
            return;
        };
        let v = Value::from_byte(byte);
        let winner = match v.wdl() {
            Wdl::Draw => return,
            Wdl::Win => true,
            Wdl::Loss => false,
        };
        if v == Value::MATED {
            cell.store(DECIDED | LOSS | ZEROES, Relaxed);
            seeds.push(0, item(idx, side));
            return;
        }
        // The mover's best class over its zeroing moves.
        let mut best = record.best;
        if record.pushes != 0 {
            let Some(sq) = sq else {
                self.inconsistent(idx, side, Inconsistency::PushesWithoutPawns);
                return;
            };
            for (i, k) in self.pawn_slots(side) {
                for double in [false, true] {
                    if record.pushes & records::push_bit(k, double) == 0 {
                        continue;
                    }
                    let step: i16 = if side.is_white() { 8 } else { -8 };
                    let to = i16::from(sq[i]) + if double { 2 * step } else { step };
                    let mut after = *sq;
                    after[i] = to as u8;
                    let mv = Mv {
                        slot: i,
                        capture: usize::MAX,
                        double,
                        promotion: None,
                    };
                    let Some(theirs) = self.zeroing_class((idx, sq), &after, &mv, side.other())
                    else {
                        return;
                    };
                    let mine = theirs.flip();
                    best = Some(best.map_or(mine, |b| b.max(mine)));
                }
            }
        }
        // Winner: the fewest plies an exit gives (1 or the long exit); loser: the most. The
        // mover's best class is the opponent's worst.
        let exit: u16 = match best.map(|c| M::exit(winner, c.flip())) {
            None | Some(Ok(None)) => 0,
            Some(Ok(Some(plies))) => plies,
            Some(Err(theirs)) => {
                self.inconsistent(idx, side, Inconsistency::LossWithMoveTo(theirs));
                return;
            }
        };
        if winner {
            self.init_winner(cell, idx, side, exit, seeds);
            return;
        }
        self.init_loser(cell, idx, side, usize::from(record.quiet), exit, seeds);
    }

    /// Whether the record of entry `idx` has a pawn push for either side to move (so that the
    /// init needs its squares).
    fn has_pushes(&self, idx: u64) -> bool {
        self.cells.iter().any(|c| {
            c.get(idx as usize)
                .and_then(|c| Record::decode(c.load(Relaxed)))
                .is_some_and(|r| r.pushes != 0)
        })
    }

    /// The pawns of `side`: their slots, each with its index among them.
    fn pawn_slots(&self, side: Color) -> impl Iterator<Item = (usize, u8)> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter(move |(_, &s)| s == (side, Role::Pawn))
            .enumerate()
            .map(|(k, (i, _))| (i, k as u8))
    }

    /// A winner's cell and its seed at its best exit (plies, 0 for none): with a winning
    /// zeroing move it is decided at once (1 ply, the least a win has), else open.
    fn init_winner(&self, cell: &AtomicU16, idx: u64, side: Color, exit: u16, seeds: &mut Seeds) {
        if exit == 1 {
            cell.store(DECIDED | SEEDED | 1, Relaxed);
        } else {
            cell.store(WINNER, Relaxed);
            self.open_winner(side, idx);
        }
        if exit > 0 {
            seeds.push(exit, item(idx, side));
        }
    }

    /// A loser's cell from its distinct quiet successors (`counted`) and its worst exit (plies,
    /// 0 for none); a seed when every move zeroes.
    fn init_loser(
        &self,
        cell: &AtomicU16,
        idx: u64,
        side: Color,
        counted: usize,
        exit: u16,
        seeds: &mut Seeds,
    ) {
        if counted > usize::from(COUNT) {
            self.inconsistent(idx, side, Inconsistency::Successors(counted));
            return;
        }
        if counted == 0 {
            if exit == 0 {
                self.inconsistent(idx, side, Inconsistency::NoMoveNoExit);
                return;
            }
            // Every move zeroes: like a mate, depth one less than its DTZ (see the module docs).
            let v = M::loss_at(0, usize::from(exit)).depth as u16;
            cell.store(DECIDED | LOSS | ZEROES | v, Relaxed);
            seeds.push(v, item(idx, side));
            return;
        }
        let code = exit_code(exit);
        cell.store(LOSER | (code << EXIT_SHIFT) | counted as u16, Relaxed);
        set_bit(&self.open[side], idx);
    }

    /// The class of the position after the zeroing move `mv` (`after`) from entry `before.0`
    /// (squares `before.1`), for `side`, who is to move there. `None` after noting an error.
    fn zeroing_class(
        &self,
        before: (u64, &Squares),
        after: &Squares,
        mv: &Mv,
        side: Color,
    ) -> Option<Wdl50> {
        if mv.capture != usize::MAX || mv.promotion.is_some() {
            return self.sub_class(after, mv.capture, mv.promotion.map(|r| (mv.slot, r)), side);
        }
        // A pawn push: this table, a more advanced structure, already final. Its index by the
        // pawn's stride where it has one.
        let (from, sq) = before;
        let to = after[mv.slot];
        let pushed = self.ix.moved(from, sq, mv.slot, to);
        let Some(idx) = pushed.or_else(|| self.ix.index(after)) else {
            self.note(DtzError::NotIndexable(self.material.name()));
            return None;
        };
        let mut class = self.own_class(side, idx)?;
        if mv.double {
            if let Some(ep) = self.en_passant(after, side, mv.slot) {
                class = class.max(ep);
            }
        }
        Some(class)
    }

    /// A sub-table's class of `sq` without slot `skip` and with the promotion `promo`.
    fn sub_class(
        &self,
        sq: &Squares,
        skip: usize,
        promo: Option<(usize, Role)>,
        side: Color,
    ) -> Option<Wdl50> {
        let class = self
            .sub
            .exit_class(self.material, &self.plans, sq, skip, promo, side);
        class.map_err(|e| self.note(e)).ok()
    }

    /// The final class of one of this table's entries (a more advanced pawn structure).
    fn own_class(&self, side: Color, idx: u64) -> Option<Wdl50> {
        let cell = self.cells[side].get(idx as usize)?.load(Relaxed);
        if cell & DECIDED != 0 {
            return Some(M::class(dtz_of(cell)));
        }
        if cell & (WINNER | LOSER) != 0 {
            self.inconsistent(idx, side, Inconsistency::UndecidedAfterPawnMove);
            return None;
        }
        Some(Wdl50::Draw)
    }

    /// The best en passant capture for `side` after the opponent's pawn in slot `pawn` pushed
    /// two squares, as `side`'s class; `None` without a legal one.
    fn en_passant(&self, sq: &Squares, side: Color, pawn: usize) -> Option<Wdl50> {
        let mut best: Option<Wdl50> = None;
        let mut failed = false;
        for_each_en_passant(&self.slots, sq, side, pawn, |after| {
            match self.sub_class(after, pawn, None, side.other()) {
                Some(theirs) => {
                    let mine = theirs.flip();
                    best = Some(best.map_or(mine, |b| b.max(mine)));
                }
                None => failed = true,
            }
        });
        if failed {
            return None;
        }
        best
    }

    /// The passes of one pawn structure rank, depth by depth from its seeds, with `frontiers`
    /// (both empty, and left empty).
    fn passes(
        &self,
        seeds: BTreeMap<u16, Vec<Item>>,
        frontiers: &mut [Frontier; 2],
    ) -> Result<(), DtzError> {
        let mut depths = DtzDepths {
            solver: self,
            seeds,
            frontiers,
            count: 0,
            partitions: &self.partitions,
            access: self.access,
            times: [0.0; 2],
        };
        by_depth(&mut depths, 0)?;
        log::debug!(
            "{}: DTZ50 passes: seeds {:.2} s, un-moves {:.2} s",
            self.material.name(),
            depths.times[0],
            depths.times[1]
        );
        Ok(())
    }

    /// Marks the seeds that join the frontier of depth `d` (see `join_seed`) in `cur`; returns
    /// how many were newly marked.
    fn join_seeds(&self, seeds: &[Item], d: u16, cur: &Frontier) -> u64 {
        seeds
            .par_iter()
            .map(|&it| {
                let (side, idx) = (item_side(it), item_idx(it));
                u64::from(self.join_seed(side, idx, d) && cur.mark(side, idx))
            })
            .sum()
    }

    /// Whether a seed joins the frontier of depth `d`: a winner not decided sooner is decided
    /// now; a loser (decided by its exits) or a win by its exit joins at its depth.
    fn join_seed(&self, side: Color, idx: u64, d: u16) -> bool {
        let Some(cell) = self.cells[side].get(idx as usize) else {
            return false;
        };
        let cur = cell.load(Relaxed);
        if cur & DECIDED != 0 {
            // Decided in the init: a loss whose moves all zero, a late loss, or a win by its
            // exit (each seeded once, at its depth).
            return (cur & LOSS != 0 || cur & SEEDED != 0) && cur & DEPTH == d;
        }
        let won = cur & WINNER != 0
            && cell
                .compare_exchange(cur, DECIDED | d, Relaxed, Relaxed)
                .is_ok();
        if won {
            self.close_winner(side, idx, false);
        }
        won
    }

    /// The open predecessors of the node `idx` with `side` to move (a loss when `lost`) into
    /// `found` (replaced), their cells prefetched.
    fn predecessors_of(&self, side: Color, idx: u64, lost: bool, found: &mut Found) {
        found.preds.clear();
        let Some(sq) = self.ix.decode(idx) else {
            return;
        };
        found.lost = lost;
        found.mover = side.other();
        let dedupe = self.ix.may_coincide(&sq, side);
        self.predecessors(&sq, idx, side, found.lost, dedupe, &mut found.preds);
        if !found.lost && dedupe {
            // A loser's counter counts distinct successors, and two un-moves may reach the
            // same entry here.
            found.preds.sort_unstable();
            found.preds.dedup();
        }
        for &p in &found.preds {
            prefetch(&self.cells[found.mover], p as usize);
        }
    }

    /// Updates the predecessors `found` of a node decided at depth `d`: a predecessor of a loss
    /// wins at `d + 1`, one of a win has its counter lowered and is lost when it runs out; what
    /// is decided at `d + 1` is marked in the task's next frontier, a loss its exits make longer
    /// goes to its late ones.
    fn update(&self, found: &Found, d: u16, task: &mut DtzUnmoves<'_, '_, M>) {
        let next = task.next;
        let owned = task.access == Access::CellsAndBits;
        let (ps, lost) = (found.mover, found.lost);
        for &p in found.preds.iter() {
            let Some(c) = self.cells[ps].get(p as usize) else {
                continue;
            };
            // This part alone updates this cell (see `kernel::pass::partitions`).
            match step::<M>(c.load(Relaxed), lost, d) {
                Step::Keep => {}
                Step::Counted(cell) => c.store(cell, Relaxed),
                Step::Decided(cell, v) => {
                    c.store(cell, Relaxed);
                    if lost {
                        self.close_winner(ps, p, true);
                    } else {
                        clear_bit(&self.open[ps], p);
                    }
                    if v == d + 1 {
                        task.fresh += u64::from(next.mark_in_pass(ps, p, owned));
                    } else {
                        task.late.push((v, item(p, ps)));
                    }
                }
                Step::Overcounted => {
                    self.inconsistent(p, ps, Inconsistency::MoreDecidedThanMoves);
                }
            }
        }
    }

    /// The predecessors, with the other side to move, from which a move of a piece other than
    /// a pawn, capturing nothing, leads to `sq` (entry `idx`, `side` to move): for a loss
    /// (`lost`) only the undecided wins, by the open bits; for a win every legal one (see below).
    /// Un-moves that leave the king of `side` in check before the move give no position and
    /// are not generated. `dedupe`: two un-moves may reach the same entry (`may_coincide`), so
    /// the index is computed in full, never by stride.
    fn predecessors(
        &self,
        sq: &Squares,
        idx: u64,
        side: Color,
        lost: bool,
        dedupe: bool,
        out: &mut Vec<u64>,
    ) {
        let mover = side.other();
        let open = &self.open[mover];
        let occ = occupancy(sq, self.n);
        let discovered = discovery_masks(&self.slots, self.n, sq, occ, side);
        // The predecessors of a loss are mostly decided wins already, which the open bits drop
        // without touching their cells; those of a win are mostly open losses, whose cells are
        // read anyway (a draw's cell is neither a winner nor a loser).
        let keep = |pi: u64| !lost || has_bit(open, pi);
        for i in 0..self.n {
            let (c, r) = self.slots[i];
            if c != mover || r == Role::Pawn {
                continue;
            }
            let at = sq[i];
            let mut origins = attacks_from(c, r, at, occ)
                & !occ
                & legal_origins(&self.slots, sq, occ, side, i, &discovered);
            match self.ix.stride(sq, i) {
                // A lone piece other than a king: the index moves by its stride per square.
                Some(st) if !dedupe => {
                    let base = idx - u64::from(at) * st;
                    // The open ones among a loss's predecessors, by one load where the piece's
                    // line has its word.
                    let line = if lost {
                        self.open_on_line(mover, i, idx)
                    } else {
                        None
                    };
                    if let Some(open_squares) = line {
                        origins &= open_squares;
                    }
                    while origins != 0 {
                        let pi = base + u64::from(origins.trailing_zeros()) * st;
                        origins &= origins - 1;
                        if line.is_some() || keep(pi) {
                            out.push(pi);
                        }
                    }
                }
                _ => {
                    while origins != 0 {
                        let from = origins.trailing_zeros() as u8;
                        origins &= origins - 1;
                        let pi = self.ix.moved(idx, sq, i, from).or_else(|| {
                            let mut p = *sq;
                            p[i] = from;
                            self.ix.index(&p)
                        });
                        if let Some(pi) = pi.filter(|&pi| keep(pi)) {
                            out.push(pi);
                        }
                    }
                }
            }
        }
    }

    /// Marks the undecided win `idx` (`side` to move) open, in the open bits and its lines.
    fn open_winner(&self, side: Color, idx: u64) {
        set_bit(&self.open[side], idx);
        for l in self.lines[side].iter().flatten() {
            l.set(idx);
        }
    }

    /// Clears the open bits of the win `idx` (`side` to move) just decided; `owned`: by the
    /// part of a pass that alone updates its line (see `kernel::pass::partitions`), with plain
    /// stores.
    fn close_winner(&self, side: Color, idx: u64, owned: bool) {
        clear_bit(&self.open[side], idx);
        for l in self.lines[side].iter().flatten() {
            if owned {
                l.clear_owned(idx);
            } else {
                l.clear(idx);
            }
        }
    }

    /// The squares of the piece in `slot` whose entries, with the other pieces as in entry
    /// `idx`, are open wins with `side` to move, as one word: from the piece's line bitmap, or
    /// for the lowest digit (a piece other than a pawn) from the open bitmap, whose words are
    /// its lines; `None` for other pieces.
    #[inline]
    fn open_on_line(&self, side: Color, slot: usize, idx: u64) -> Option<u64> {
        LineBits::word_on_line(&self.lines[side], &self.open[side], &self.ix, slot, idx)
    }

    /// The table bytes of both sides, with the entries kept and the longest win and loss, in
    /// one pass over each side's cells; an error if a win or loss was never decided.
    fn finish(self) -> Result<DtzSolved, DtzError> {
        /// One word's worth of cells: kept bits, longest win and loss, or the first error.
        type Words = Result<(u64, u32, u32), DtzError>;
        let side_out = |side: Color| -> Result<(Vec<u8>, Vec<u64>, u32, u32), DtzError> {
            let cells = &self.cells[side];
            let mut bytes = vec![0u8; cells.len()];
            let words: Vec<Words> = bytes
                .par_chunks_mut(64)
                .zip(cells.par_chunks(64))
                .enumerate()
                .map(|(w, (out, cells))| {
                    let (mut kept, mut win, mut loss) = (0u64, 0u32, 0u32);
                    for (i, (b, c)) in out.iter_mut().zip(cells).enumerate() {
                        let cell = c.load(Relaxed);
                        if cell & DECIDED == 0 {
                            if cell & (WINNER | LOSER) != 0 {
                                return Err(DtzError::Inconsistent {
                                    material: self.material.name(),
                                    idx: (w * 64 + i) as u64,
                                    side,
                                    why: Inconsistency::NeverDecided,
                                });
                            }
                            continue;
                        }
                        let dtz = dtz_of(cell);
                        *b = M::table_byte(dtz)
                            .ok_or_else(|| DtzError::TooLong(self.material.name(), dtz))?;
                        kept |= 1 << i;
                        if dtz.0 > 0 {
                            win = win.max(dtz.plies());
                        } else {
                            loss = loss.max(dtz.plies());
                        }
                    }
                    Ok((kept, win, loss))
                })
                .collect();
            let (mut kept, mut win, mut loss) = (Vec::with_capacity(words.len()), 0, 0);
            for w in words {
                let (k, wi, lo) = w?;
                kept.push(k);
                win = win.max(wi);
                loss = loss.max(lo);
            }
            Ok((bytes, kept, win, loss))
        };
        let (white, kept_white, win_w, loss_w) = side_out(Color::White)?;
        let (black, kept_black, win_b, loss_b) = side_out(Color::Black)?;
        Ok(DtzSolved {
            white,
            black,
            longest_win: win_w.max(win_b),
            longest_loss: loss_w.max(loss_b),
            kept: ByColor {
                white: kept_white,
                black: kept_black,
            },
        })
    }
}

/// The DTM values of a material, both sides to move, read from its table (entries that are no legal
/// position hold anything in a compressed table), as one byte each: the value's first byte
/// (see [`Value::to_planes`]), which is its whole byte up to 5 pieces and its kind (win, draw,
/// loss) always.
///
/// # Errors
/// A block that cannot be read.
pub fn dtm_values(
    table: &retro_tables::format::Table,
) -> Result<ByColor<Vec<u8>>, retro_tables::ProbeError> {
    let n = table.scheme().size();
    let side = |side: Color| -> Result<Vec<u8>, retro_tables::ProbeError> {
        if let Some(bytes) = table.side_in_memory(side) {
            return Ok(bytes
                .par_iter()
                .map(|&b| Value::from_byte(b).to_planes().0)
                .collect());
        }
        (0..n)
            .into_par_iter()
            .map(|idx| table.get(side, idx).map(|v| v.to_planes().0))
            .collect()
    };
    Ok(ByColor {
        white: side(Color::White)?,
        black: side(Color::Black)?,
    })
}

#[cfg(test)]
mod exact_tests;
#[cfg(test)]
mod metric_tests;

#[cfg(test)]
mod step_tests {
    use super::*;

    /// An open loser with `count` successors open and worst exit `code` (see [`LOSER`]).
    fn loser(count: u16, code: u16) -> u16 {
        LOSER | code << EXIT_SHIFT | count
    }

    #[test]
    fn a_winner_of_a_loss_wins_one_ply_later_and_a_decided_cell_is_kept() {
        assert_eq!(
            step::<Dtz50>(WINNER, true, 6),
            Step::Decided(DECIDED | 7, 7)
        );
        assert_eq!(step::<Dtz50>(WINNER, false, 6), Step::Keep);
        assert_eq!(step::<Dtz50>(DECIDED | 3, true, 6), Step::Keep);
        assert_eq!(step::<Dtz50>(DECIDED | LOSS | 4, false, 6), Step::Keep);
        assert_eq!(step::<Dtz50>(loser(2, 0), true, 6), Step::Keep);
    }

    #[test]
    fn a_loser_counts_down_and_is_decided_by_its_last_successor_or_its_worst_exit() {
        assert_eq!(
            step::<Dtz50>(loser(3, 0), false, 6),
            Step::Counted(loser(2, 0))
        );
        assert_eq!(
            step::<Dtz50>(loser(1, 0), false, 6),
            Step::Decided(DECIDED | LOSS | 7, 7)
        );
        // Its worst exit leads into a cursed win (101 plies): decided one ply before it, its
        // best move zeroing.
        assert_eq!(
            step::<Dtz50>(loser(1, 2), false, 6),
            Step::Decided(DECIDED | LOSS | ZEROES | 100, 100)
        );
        assert_eq!(step::<Dtz50>(loser(0, 0), false, 6), Step::Overcounted);
    }
}
