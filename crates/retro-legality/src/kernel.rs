//! Proof-kernel search: the captures of a game, without the squares.
//!
//! A state holds, for each file, its pawn column (the colours of its pawns from the first rank
//! up), and per colour the original pieces left by type (queen, rook, light and dark bishop,
//! knight) and the promoted pieces by the file they promoted on. A kernel move is one capture;
//! the number of captures of each colour is fixed by the goal. Pawns change file and order only
//! by capturing; a white pawn promotes only from the top of its column, a black one from the
//! bottom.
//!
//! The model is a relaxation: every game has a kernel here (squares and ranks are forgotten, a
//! pawn that captures a piece may land anywhere in the new column, promoted pieces may be of any
//! type), so when the exhaustive search finds none the goal is unreachable. The cache of failed
//! states keys on the whole state (no hash-only equality), so the answer is a proof.

use std::collections::HashSet;

use shakmaty::{Bitboard, ByColor, Color, Role};

use super::{
    kernel_move::{ByKernelPiece, KernelMove, KernelPiece, KernelResult, Landing, Target},
    limits::{Budget, Stop},
    position::RawPosition,
    rows,
};

/// At most six pawns fit in a file (ranks 2 to 7).
const MAX_COLUMN: u8 = 6;

/// A pawn column: `len` pawns, bit `i` set when pawn `i` (from the first rank up) is black.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
struct Column {
    len: u8,
    black: u8,
}

impl Column {
    fn get(self, i: u8) -> Color {
        if self.black & (1 << i) != 0 {
            Color::Black
        } else {
            Color::White
        }
    }

    fn remove(self, i: u8) -> Column {
        let b = u16::from(self.black);
        let low = b & ((1u16 << i) - 1);
        let high = (b >> (i + 1)) << i;
        Column {
            len: self.len - 1,
            black: (low | high) as u8,
        }
    }

    fn insert(self, i: u8, c: Color) -> Column {
        let b = u16::from(self.black);
        let low = b & ((1u16 << i) - 1);
        let high = (b >> i) << (i + 1);
        let bit = if c == Color::Black { 1u16 << i } else { 0 };
        Column {
            len: self.len + 1,
            black: (low | high | bit) as u8,
        }
    }

    fn set(self, i: u8, c: Color) -> Column {
        let black = if c == Color::Black {
            self.black | (1 << i)
        } else {
            self.black & !(1 << i)
        };
        Column {
            len: self.len,
            black,
        }
    }

    fn count(self, c: Color) -> u8 {
        let mask = ((1u16 << self.len) - 1) as u8;
        debug_assert!(self.len <= 8);
        let b = (self.black & mask).count_ones() as u8;
        if c == Color::Black {
            b
        } else {
            self.len - b
        }
    }

    /// Whether `c`'s pawn `i` may promote without capturing: nothing stands in front of it.
    fn can_promote(self, i: u8, c: Color) -> bool {
        self.get(i) == c
            && match c {
                Color::White => i + 1 == self.len,
                Color::Black => i == 0,
            }
    }

    /// Whether the goal column follows from this one by promotions without captures: black
    /// pawns removed from the bottom, white ones from the top.
    fn completes_to(self, goal: Column) -> bool {
        if goal.len > self.len {
            return false;
        }
        (0..=self.len - goal.len).any(|s| {
            (0..s).all(|i| self.get(i) == Color::Black)
                && (0..goal.len).all(|i| self.get(s + i) == goal.get(i))
                && (s + goal.len..self.len).all(|i| self.get(i) == Color::White)
        })
    }
}

/// A state of the kernel space.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct State {
    cols: [Column; 8],
    /// Original pieces left, per colour and type.
    pieces: ByColor<ByKernelPiece<u8>>,
    /// Promoted pieces on the board, per colour and file of promotion.
    promoted: ByColor<[u8; 8]>,
    /// Captures of white units and of black units still to come.
    left: ByColor<u8>,
}

/// The kernel's view of a position: pawn columns and piece counts.
struct Counted {
    cols: [Column; 8],
    pieces: ByColor<ByKernelPiece<u8>>,
    units: ByColor<u8>,
}

fn counted(p: &RawPosition) -> Counted {
    let mut cols = [Column::default(); 8];
    for (f, col) in cols.iter_mut().enumerate() {
        for rank in 0..8u32 {
            let sq = shakmaty::Square::new(rank * 8 + f as u32);
            if let Some(pc) = p.board.piece_at(sq) {
                if pc.role == Role::Pawn {
                    *col = col.insert(col.len, pc.color);
                }
            }
        }
    }
    let mut pieces = ByColor::<ByKernelPiece<u8>>::default();
    let mut units = ByColor::<u8>::default();
    for c in Color::ALL {
        let b = p.of(c, Role::Bishop);
        pieces[c] = ByKernelPiece([
            p.of(c, Role::Queen).count() as u8,
            p.of(c, Role::Rook).count() as u8,
            (b & Bitboard::LIGHT_SQUARES).count() as u8,
            (b & Bitboard::DARK_SQUARES).count() as u8,
            p.of(c, Role::Knight).count() as u8,
        ]);
        units[c] = (p.pieces(c) & !p.board.kings()).count() as u8;
    }
    Counted {
        cols,
        pieces,
        units,
    }
}

/// The proof-kernel search from `init` to `goal`, sharing `budget` (nodes) with the caller.
pub struct KernelSearch<'a> {
    goal: Counted,
    /// The goal's pieces per colour and type, less the bishops trapped on promotion squares
    /// (those were promoted there and are counted in `fixed`).
    goal_free: ByColor<ByKernelPiece<u8>>,
    /// Per colour and file, a bishop of the goal trapped on that file's promotion square: one
    /// promotion of the file must survive as that bishop.
    fixed: ByColor<[u8; 8]>,
    /// Per colour and type, the original pieces the goal can have left: no more than the goal
    /// has, nor than the originals not taken at home ([`Blocked::taken_home`]).
    most_left: ByColor<ByKernelPiece<u8>>,
    goal_pawns: ByColor<u8>,
    blocked: Blocked,
    /// States from which no kernel was found, whatever the pawns' ranks.
    failed: HashSet<State>,
    /// In an extended search, states with their pawns' ranks from which no kernel was found.
    failed_ranked: HashSet<(State, rows::Ranks)>,
    budget: &'a mut dyn FnMut() -> Result<(), Stop>,
    /// For an extended kernel search, the initial and goal positions whose pawn ranks each
    /// complete kernel must fit ([`rows::realizable`]).
    extended: Option<(&'a RawPosition, &'a RawPosition)>,
    /// Whether a kernel was rejected for its ranks below the node being searched: its failure
    /// then depends on the path to it and is not cached.
    rejected: bool,
    /// Whether a move was cut for the ranks of the pawns below the node being searched: its
    /// failure then holds for these ranks only.
    rank_cut: bool,
    /// The random tie-break of the move ordering ([`Kind::ExtendedShuffled`]).
    shuffle: Option<fastrand::Rng>,
}

/// Units that never move nor get captured in any game from the initial position to the goal.
#[derive(Clone, Copy, Debug, Default)]
struct Blocked {
    /// Per file, whether the bottom pawn of the column is a white pawn that stays on its
    /// second rank: in the goal and in the initial position, since no pawn can come to the
    /// second rank (pawns move forward, captures included).
    white_pawn: [bool; 8],
    /// Per file, whether the top pawn is a black pawn that stays on its seventh rank.
    black_pawn: [bool; 8],
    /// Per colour and type, original pieces that never move (rooks and king with castling
    /// rights, a bishop shut in on c1/f1/c8/f8 by two blocked pawns): fewer may never be left.
    floor: ByColor<ByKernelPiece<u8>>,
    /// Per colour and type, original pieces shut in at home by two blocked pawns but not there
    /// in the goal (bishops): they were taken on their square, by a piece (no pawn gets behind
    /// the blocked pawns), and more than the others of the type may never be left.
    taken_home: ByColor<ByKernelPiece<u8>>,
    /// Per colour and file, whether that colour's promotion square on the file is held for the
    /// whole game by an opposing unit that never moves (a king or rook with castling rights, a
    /// shut-in bishop): no pawn promotes there.
    no_promotion: ByColor<[bool; 8]>,
    /// Per colour and file, whether no pawn of that colour promotes from the file, captures
    /// included: its seventh-rank square (second for black) gives check to an opposing king
    /// that keeps a castling right in the goal. That check can only be answered by taking the
    /// pawn (the king never moves, and a pawn's check cannot be blocked).
    no_promotion_from: ByColor<[bool; 8]>,
    /// Per colour and file, whether a bishop promoted there could never leave the square: its
    /// diagonal neighbours (one or two squares on the rank before) hold blocked opposing pawns.
    trapped: ByColor<[bool; 8]>,
}

impl Blocked {
    /// Whether no pawn of colour `c` promotes from file `from` on file `to`'s promotion
    /// square: the square is held for the whole game, or the pawn's square before it checks a
    /// king that never moves.
    fn bars(&self, c: Color, from: usize, to: usize) -> bool {
        self.no_promotion[c][to] || self.no_promotion_from[c][from]
    }
}

fn blocked(init: &RawPosition, goal: &RawPosition) -> Blocked {
    use shakmaty::{File, Piece, Rank, Square};
    let mut b = Blocked::default();
    let stays = |sq: Square, pc: Piece| {
        init.board.piece_at(sq) == Some(pc) && goal.board.piece_at(sq) == Some(pc)
    };
    for f in 0..8u32 {
        let file = File::new(f);
        b.white_pawn[f as usize] =
            stays(Square::from_coords(file, Rank::Second), Color::White.pawn());
        b.black_pawn[f as usize] = stays(
            Square::from_coords(file, Rank::Seventh),
            Color::Black.pawn(),
        );
    }
    for c in Color::ALL {
        let r = RawPosition::back_rank(c);
        // Rooks with a castling right in the goal have never moved (nor has their king).
        let rights = goal.castling & Bitboard::from(r);
        for sq in rights {
            if stays(sq, c.rook()) {
                b.floor[c][KernelPiece::Rook] += 1;
                b.no_promotion[c.other()][sq.file() as usize] = true;
            }
        }
        let king = Square::from_coords(File::E, r);
        if rights.any() && stays(king, c.king()) {
            b.no_promotion[c.other()][File::E as usize] = true;
            b.no_promotion_from[c.other()][File::D as usize] = true;
            b.no_promotion_from[c.other()][File::F as usize] = true;
        }
        // A bishop on c1 behind blocked b2 and d2 pawns (f1: e2, g2) never moved.
        let pawns = if c == Color::White {
            b.white_pawn
        } else {
            b.black_pawn
        };
        for (file, left, right) in [(File::C, 1, 3), (File::F, 4, 6)] {
            let sq = Square::from_coords(file, r);
            if pawns[left] && pawns[right] && init.board.piece_at(sq) == Some(c.bishop()) {
                if stays(sq, c.bishop()) {
                    b.floor[c][KernelPiece::bishop_on(sq)] += 1;
                    b.no_promotion[c.other()][file as usize] = true;
                } else {
                    b.taken_home[c][KernelPiece::bishop_on(sq)] += 1;
                }
            }
        }
    }
    // A promotion square of white on the eighth rank is a trap for a bishop when the black
    // pawns on its diagonal neighbours of the seventh rank never move (and the other way round).
    for c in Color::ALL {
        let guards = c.fold_wb(b.black_pawn, b.white_pawn);
        for f in 0..8 {
            let left = f == 0 || guards[f - 1];
            let right = f == 7 || guards[f + 1];
            b.trapped[c][f] = left && right;
        }
    }
    b
}

/// The promotion square of colour `c` on file `f`.
fn promotion_square(c: Color, f: usize) -> shakmaty::Square {
    let rank = c.fold_wb(shakmaty::Rank::Eighth, shakmaty::Rank::First);
    shakmaty::Square::from_coords(shakmaty::File::new(f as u32), rank)
}

/// Whether a bishop that `c` promotes on file `f` could never leave the square, on the way from
/// the starting position to `goal` (see `Blocked::trapped`).
pub(super) fn traps_bishop(goal: &RawPosition, c: Color, f: usize) -> bool {
    blocked(&RawPosition::start(), goal).trapped[c][f]
}

/// Whether a promotion of `c` on file `f` lands on a light square (white promotes on the
/// eighth rank, where the a file is light; black on the first, where it is dark).
pub(super) fn promotes_on_light(c: Color, f: usize) -> bool {
    f.is_multiple_of(2) == (c == Color::White)
}

/// What a kernel search looks for.
#[derive(Clone, Copy, Debug)]
pub enum Kind<'k> {
    /// A proof kernel: the captures, without squares. `KernelResult::None` proves the goal
    /// unreachable.
    Plain,
    /// An extended proof kernel: a kernel whose captures also fit the pawns' ranks
    /// (`rows`). `KernelResult::None` proves the goal unreachable.
    Extended,
    /// An extended kernel when this plain kernel from `init` to `goal` is already at hand: most
    /// kernels fit the ranks, so it is checked first, before the search over ranks.
    ExtendedFrom(&'k [KernelMove]),
    /// An extended kernel found with the ties of the move ordering broken at random from this
    /// seed, so that searches with different seeds may find different kernels (another route
    /// for a proof game search).
    ExtendedShuffled(u64),
}

/// Searches a kernel of `kind` from `init` to `goal`; `budget` is ticked once per node and
/// ends the search when it runs out (give `limits.counter()` for a budget of its own, or a
/// closure to share a caller's).
///
/// # Errors
/// The budget ran out.
pub fn search(
    init: &RawPosition,
    goal: &RawPosition,
    kind: Kind<'_>,
    budget: &mut dyn Budget,
) -> Result<KernelResult, Stop> {
    let mut tick = || budget.tick();
    match kind {
        Kind::Plain => run(init, goal, &mut tick, false, None),
        Kind::Extended => match run(init, goal, &mut tick, false, None)? {
            KernelResult::None => Ok(KernelResult::None),
            KernelResult::Found(k) => extend(init, goal, &k, &mut tick, None),
        },
        Kind::ExtendedFrom(k) => extend(init, goal, k, &mut tick, None),
        Kind::ExtendedShuffled(seed) => match run(init, goal, &mut tick, false, Some(seed))? {
            KernelResult::None => Ok(KernelResult::None),
            KernelResult::Found(k) => extend(init, goal, &k, &mut tick, Some(seed)),
        },
    }
}

/// The extended search from a plain kernel at hand (see [`Kind::ExtendedFrom`]).
fn extend(
    init: &RawPosition,
    goal: &RawPosition,
    kernel: &[KernelMove],
    tick: &mut dyn FnMut() -> Result<(), Stop>,
    shuffle: Option<u64>,
) -> Result<KernelResult, Stop> {
    if rows::realizable(init, goal, kernel) {
        Ok(KernelResult::Found(kernel.to_vec()))
    } else {
        run(init, goal, tick, true, shuffle)
    }
}

/// The search itself: the start state from `init`, the goal's counts, and the depth-first
/// search (over ranks too when `extended`; ties of the move ordering broken at random from
/// `shuffle`'s seed where given).
fn run(
    init: &RawPosition,
    goal: &RawPosition,
    tick: &mut dyn FnMut() -> Result<(), Stop>,
    extended: bool,
    shuffle: Option<u64>,
) -> Result<KernelResult, Stop> {
    let start = counted(init);
    let g = counted(goal);
    let mut left = ByColor::<u8>::default();
    for k in Color::ALL {
        let pawns_start: u8 = start.cols.iter().map(|c| c.count(k)).sum();
        let pawns_goal: u8 = g.cols.iter().map(|c| c.count(k)).sum();
        let (a, b) = (start.units[k], g.units[k]);
        if b > a || pawns_goal > pawns_start {
            return Ok(KernelResult::None);
        }
        left[k] = a - b;
    }
    let goal_pawns = ByColor::new_with(|k| g.cols.iter().map(|c| c.count(k)).sum());
    let state = State {
        cols: start.cols,
        pieces: start.pieces,
        promoted: ByColor::default(),
        left,
    };
    let blocked = blocked(init, goal);
    let mut goal_free = g.pieces;
    let mut fixed = ByColor::<[u8; 8]>::default();
    for k in Color::ALL {
        for (f, fixed) in fixed[k].iter_mut().enumerate() {
            let sq = promotion_square(k, f);
            // No bishop can come to the square: unless it stood there from the start, this
            // one was promoted there.
            if blocked.trapped[k][f]
                && goal.board.piece_at(sq) == Some(k.bishop())
                && init.board.piece_at(sq) != Some(k.bishop())
            {
                if blocked.no_promotion[k][f] {
                    return Ok(KernelResult::None);
                }
                goal_free[k][KernelPiece::bishop_on(sq)] -= 1;
                *fixed = 1;
            }
        }
    }
    let mut most_left = goal_free;
    for k in Color::ALL {
        for (t, most) in KernelPiece::ALL.into_iter().zip(most_left[k].iter_mut()) {
            let kept = start.pieces[k][t].saturating_sub(blocked.taken_home[k][t]);
            *most = (*most).min(kept);
        }
    }
    let mut s = KernelSearch {
        goal: g,
        goal_free,
        most_left,
        fixed,
        goal_pawns,
        blocked,
        failed: HashSet::new(),
        failed_ranked: HashSet::new(),
        budget: tick,
        extended: extended.then_some((init, goal)),
        rejected: false,
        rank_cut: false,
        shuffle: shuffle.map(fastrand::Rng::with_seed),
    };
    let mut path = Vec::new();
    let ranks = if extended {
        rows::initial(init)
    } else {
        [[0; 6]; 8]
    };
    if s.dfs(&state, &ranks, &mut path)? {
        Ok(KernelResult::Found(path))
    } else {
        Ok(KernelResult::None)
    }
}

impl KernelSearch<'_> {
    /// `None` when the goal is out of reach from `s`; otherwise a score for move ordering
    /// (lower looks closer to the goal): incomplete columns, pawn file moves still needed,
    /// original pieces the goal does not have.
    fn bound(&self, s: &State) -> Option<u32> {
        let total = u32::from(s.left.white) + u32::from(s.left.black);
        let mut score = 0;
        for c in Color::ALL {
            // Enough pawns to promote into the pieces the goal has beyond the originals left.
            let pawns: u32 = s.cols.iter().map(|col| u32::from(col.count(c))).sum();
            let promoted: u32 = s.promoted[c].iter().map(|&n| u32::from(n)).sum();
            let fixed: u32 = self.fixed[c].iter().map(|&n| u32::from(n)).sum();
            let needed: u32 = KernelPiece::ALL
                .into_iter()
                .map(|t| u32::from(self.goal_free[c][t].saturating_sub(s.pieces[c][t])))
                .sum::<u32>()
                + fixed;
            if pawns < u32::from(self.goal_pawns[c]) + needed.saturating_sub(promoted) {
                return None;
            }
            // Captures by this colour's pawns to bring pawns onto the goal's files.
            let moves = pawn_moves(&s.cols, &self.goal.cols, c)?;
            if moves > u32::from(s.left[c.other()]) {
                return None;
            }
            let excess: u32 = KernelPiece::ALL
                .into_iter()
                .map(|t| u32::from(s.pieces[c][t].saturating_sub(self.most_left[c][t])))
                .sum();
            if excess > u32::from(s.left[c]) {
                return None;
            }
            score += moves + excess;
        }
        // Every incomplete column needs a capture, and one capture touches at most two
        // neighbouring files.
        let mut cover = 0;
        let mut f = 0;
        while f < 8 {
            if s.cols[f].completes_to(self.goal.cols[f]) {
                f += 1;
            } else {
                cover += 1;
                f += 2;
            }
        }
        if cover > total {
            return None;
        }
        Some(4 * cover + score)
    }

    fn goal_reached(&self, s: &State) -> bool {
        (0..8).all(|f| s.cols[f].completes_to(self.goal.cols[f]))
            && Color::ALL.into_iter().all(|k| {
                KernelPiece::ALL
                    .into_iter()
                    .all(|t| s.pieces[k][t] <= self.most_left[k][t])
            })
            && Color::ALL
                .into_iter()
                .all(|k| self.promotions_suffice(s, k))
            && self.bound(s).is_some()
    }

    /// With the columns complete, whether the promotions (earlier ones still on the board and
    /// the pawns that leave their columns by promoting now) can make the pieces the goal has
    /// beyond the originals left: a promoted bishop keeps the colour of its promotion square, a
    /// file with a trapped bishop in the goal keeps one promotion for it, and the other
    /// promotions of a trapping square are no bishops.
    fn promotions_suffice(&self, s: &State, c: Color) -> bool {
        let (mut light, mut dark, mut all) = (0u32, 0u32, 0u32);
        for f in 0..8 {
            let removed = s.cols[f]
                .count(c)
                .saturating_sub(self.goal.cols[f].count(c));
            if removed > 0 && self.blocked.bars(c, f, f) {
                return false;
            }
            let n = u32::from(s.promoted[c][f]) + u32::from(removed);
            let Some(n) = n.checked_sub(u32::from(self.fixed[c][f])) else {
                return false;
            };
            all += n;
            if self.blocked.trapped[c][f] {
                continue;
            }
            if promotes_on_light(c, f) {
                light += n;
            } else {
                dark += n;
            }
        }
        let need = |t: KernelPiece| u32::from(self.goal_free[c][t].saturating_sub(s.pieces[c][t]));
        let (need_light, need_dark) = (
            need(KernelPiece::LightBishop),
            need(KernelPiece::DarkBishop),
        );
        let need_all = need(KernelPiece::Queen)
            + need(KernelPiece::Rook)
            + need_light
            + need_dark
            + need(KernelPiece::Knight);
        light >= need_light && dark >= need_dark && all >= need_all
    }

    /// Depth-first search from `s` (whose pawns stand on `ranks`, in an extended search) after
    /// the moves of `path`.
    fn dfs(
        &mut self,
        s: &State,
        ranks: &rows::Ranks,
        path: &mut Vec<KernelMove>,
    ) -> Result<bool, Stop> {
        if s.left.iter().all(|&n| n == 0) {
            if !self.goal_reached(s) {
                return Ok(false);
            }
            if let Some((init, goal)) = self.extended {
                if !rows::fits_goal(&s.cols.map(|c| (c.len, c.black)), ranks, goal) {
                    self.rank_cut = true;
                    return Ok(false);
                }
                // The whole kernel at once: constraints also flow back from the goal.
                if !rows::realizable(init, goal, path) {
                    self.rejected = true;
                    return Ok(false);
                }
            }
            return Ok(true);
        }
        if self.bound(s).is_none() || self.failed.contains(s) {
            return Ok(false);
        }
        if self.extended.is_some() && self.failed_ranked.contains(&(s.clone(), *ranks)) {
            self.rank_cut = true;
            return Ok(false);
        }
        (self.budget)()?;
        let rejected_before = std::mem::replace(&mut self.rejected, false);
        let cut_before = std::mem::replace(&mut self.rank_cut, false);
        let mut children: Vec<(u32, State, KernelMove)> = self
            .moves(s)
            .into_iter()
            .filter_map(|(child, name)| self.bound(&child).map(|b| (b, child, name)))
            .collect();
        match &mut self.shuffle {
            Some(rng) => {
                let mut keyed: Vec<_> = children.into_iter().map(|c| (rng.u32(..), c)).collect();
                keyed.sort_by_key(|(r, c)| (c.0, *r));
                children = keyed.into_iter().map(|(_, c)| c).collect();
            }
            None => children.sort_by_key(|c| c.0),
        }
        let cols = s.cols.map(|c| (c.len, c.black));
        for (_, child, name) in children {
            let child_ranks = if self.extended.is_some() {
                match rows::step(&cols, ranks, &name) {
                    Some(r) => r,
                    None => {
                        self.rank_cut = true;
                        continue;
                    }
                }
            } else {
                *ranks
            };
            path.push(name);
            if self.dfs(&child, &child_ranks, path)? {
                return Ok(true);
            }
            path.pop();
        }
        if !self.rejected {
            if self.rank_cut {
                self.failed_ranked.insert((s.clone(), *ranks));
            } else {
                self.failed.insert(s.clone());
            }
        }
        self.rejected |= rejected_before;
        self.rank_cut |= cut_before;
        Ok(false)
    }

    /// Whether pawn `i` of column `col` (file `f`) is a blocked pawn: a white one at the bottom
    /// or a black one at the top of a file marked blocked.
    fn is_blocked(&self, col: Column, f: usize, i: u8) -> bool {
        (i == 0 && self.blocked.white_pawn[f] && col.get(0) == Color::White)
            || (i + 1 == col.len && self.blocked.black_pawn[f] && col.get(i) == Color::Black)
    }

    /// Every capture from `s`, with its move; and the promotions without a capture that can
    /// matter before the kernel ends (they take no capture): one that lets the pawn behind
    /// promote too, or frees a place in a full column. Otherwise a promotion changes nothing
    /// until the end, where the goal check counts it.
    fn moves(&self, s: &State) -> Vec<(State, KernelMove)> {
        let mut out = Vec::new();
        for k in Color::ALL {
            self.promotions(s, k, &mut out);
        }
        for k in Color::ALL {
            if s.left[k.other()] == 0 {
                continue;
            }
            for (t, target) in self.targets(s, k.other()) {
                self.captures(s, k, &t, target, &mut out);
            }
        }
        out
    }

    /// The promotions of side `k`'s pawns without a capture, where promoting early matters:
    /// when it lets the pawn behind, of the same colour, promote before the kernel ends, or
    /// frees a full column.
    fn promotions(&self, s: &State, x: Color, out: &mut Vec<(State, KernelMove)>) {
        for (f, col) in s.cols.iter().enumerate() {
            for i in 0..col.len {
                let behind = match x {
                    Color::White => i.checked_sub(1),
                    Color::Black => Some(i + 1).filter(|&b| b < col.len),
                };
                let useful = col.len >= MAX_COLUMN || behind.is_some_and(|b| col.get(b) == x);
                if useful
                    && col.can_promote(i, x)
                    && !self.is_blocked(*col, f, i)
                    && !self.blocked.bars(x, f, f)
                {
                    let mut st = s.clone();
                    st.cols[f] = col.remove(i);
                    st.promoted[x][f] += 1;
                    out.push((
                        st,
                        KernelMove {
                            side: x,
                            pawn: Some((f as u8, i)),
                            target: Target::Nothing,
                            landing: None,
                        },
                    ));
                }
            }
        }
    }

    /// What side `y` can lose to a capture: each of its pawns (also as the piece it promotes
    /// to without capturing), original pieces above the floor of those that never move, and
    /// promoted pieces; each with the state once it is gone.
    fn targets(&self, s: &State, y: Color) -> Vec<(State, Target)> {
        let mut targets: Vec<(State, Target)> = Vec::new();
        let mut base = s.clone();
        base.left[y] -= 1;
        for (g, col) in s.cols.iter().enumerate() {
            for j in 0..col.len {
                if col.get(j) == y && !self.is_blocked(*col, g, j) {
                    let mut t = base.clone();
                    t.cols[g] = col.remove(j);
                    if col.can_promote(j, y) && !self.blocked.bars(y, g, g) {
                        // The pawn promoted without capturing and the new piece is taken.
                        targets.push((t.clone(), Target::PromotedPawn(g as u8, j)));
                    }
                    targets.push((t, Target::Pawn(g as u8, j)));
                }
            }
        }
        for t in KernelPiece::ALL {
            if s.pieces[y][t] > self.blocked.floor[y][t] {
                let mut st = base.clone();
                st.pieces[y][t] -= 1;
                targets.push((st, Target::Piece(t)));
            }
        }
        for f in 0..8 {
            if s.promoted[y][f] > 0 {
                let mut st = base.clone();
                st.promoted[y][f] -= 1;
                targets.push((st, Target::Promoted(f as u8)));
            }
        }
        targets
    }

    /// The captures of `target` by side `x` from `s` (`t`: the state with the target gone):
    /// by a piece, or by a pawn from a neighbouring file.
    fn captures(
        &self,
        s: &State,
        x: Color,
        t: &State,
        target: Target,
        out: &mut Vec<(State, KernelMove)>,
    ) {
        // A piece (the king at least) takes it.
        out.push((
            t.clone(),
            KernelMove {
                side: x,
                pawn: None,
                target,
                landing: None,
            },
        ));
        // An original piece of a type whose originals left are all shut in at home: no pawn
        // gets there.
        if let Target::Piece(p) = target {
            if s.pieces[x.other()][p] <= self.blocked.taken_home[x.other()][p] {
                return;
            }
        }
        for f in 0..8usize {
            let col = s.cols[f];
            for i in 0..col.len {
                if col.get(i) != x || self.is_blocked(col, f, i) {
                    continue;
                }
                for g in [f.wrapping_sub(1), f + 1] {
                    if g >= 8 {
                        continue;
                    }
                    let mv = |landing| KernelMove {
                        side: x,
                        pawn: Some((f as u8, i)),
                        target,
                        landing,
                    };
                    match target {
                        Target::Pawn(pg, j) => {
                            if usize::from(pg) != g {
                                continue;
                            }
                            let mut st = t.clone();
                            st.cols[f] = st.cols[f].remove(i);
                            // The capturer takes the captured pawn's place.
                            st.cols[g] = s.cols[g].set(j, x);
                            out.push((st, mv(None)));
                        }
                        _ => self.landings(x, t, target, col, (f, i, g), out),
                    }
                }
            }
        }
    }

    /// The captures of `target` by side `x`'s pawn `i` of file `f` (column `col`) landing on
    /// file `g` (`t`: the state with the target gone): at any index of the new column that
    /// blocked pawns leave open, or promoted at once.
    fn landings(
        &self,
        x: Color,
        t: &State,
        target: Target,
        col: Column,
        (f, i, g): (usize, u8, usize),
        out: &mut Vec<(State, KernelMove)>,
    ) {
        let mv = |landing| KernelMove {
            side: x,
            pawn: Some((f as u8, i)),
            target,
            landing: Some(landing),
        };
        let mut st = t.clone();
        // A pawn of this column taken below the capturer moves the capturer's index down by
        // one.
        let i_now = match target {
            Target::PromotedPawn(tg, j) if usize::from(tg) == f && j < i => i - 1,
            _ => i,
        };
        st.cols[f] = st.cols[f].remove(i_now);
        if st.cols[g].len < MAX_COLUMN {
            for at in 0..=st.cols[g].len {
                // Nothing gets below a blocked white pawn or above a blocked black one.
                if (at == 0 && self.blocked.white_pawn[g])
                    || (at == st.cols[g].len && self.blocked.black_pawn[g])
                {
                    continue;
                }
                let mut in_col = st.clone();
                in_col.cols[g] = st.cols[g].insert(at, x);
                out.push((in_col, mv(Landing::At(g as u8, at))));
            }
        }
        if col.can_promote(i, x) && !self.blocked.bars(x, f, g) {
            let mut promo = st;
            promo.promoted[x][g] += 1;
            out.push((promo, mv(Landing::Promotes(g as u8))));
        }
    }
}

/// The fewest captures by `c`'s pawns that bring pawns onto the files of the goal's pawns:
/// each goal pawn matched to a distinct pawn of the state, costing the file distance (unmatched
/// pawns promote or are captured). `None` when there are too few pawns.
fn pawn_moves(state: &[Column; 8], goal: &[Column; 8], c: Color) -> Option<u32> {
    // Files of the pawns in file order (at most 6 a file, 48 in all).
    let files = |cols: &[Column; 8], out: &mut [u8; 48]| -> usize {
        let mut n = 0;
        for (f, col) in cols.iter().enumerate() {
            for _ in 0..col.count(c) {
                if n < out.len() {
                    out[n] = f as u8;
                    n += 1;
                }
            }
        }
        n
    };
    let (mut have, mut want) = ([0u8; 48], [0u8; 48]);
    let nh = files(state, &mut have);
    let nw = files(goal, &mut want);
    if nw > nh {
        return None;
    }
    const INF: u32 = u32::MAX / 2;
    // row[j] for goal pawn i: the first i goal pawns matched, in order, among the first j state
    // pawns.
    let mut prev = [0u32; 49];
    let mut row = [INF; 49];
    for i in 1..=nw {
        row[0] = INF;
        for j in 1..=nh {
            let take = prev[j - 1] + u32::from(want[i - 1].abs_diff(have[j - 1]));
            row[j] = row[j - 1].min(take);
        }
        prev = row;
    }
    Some(prev[nh])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(init: &str, goal: &str) -> KernelResult {
        let i = RawPosition::from_fen(init).expect("fen");
        let g = RawPosition::from_fen(goal).expect("fen");
        let limits = crate::Limits {
            max_nodes: 1_000_000,
            deadline: None,
            cancel: None,
            proof_nodes: 0,
        };
        search(&i, &g, Kind::Plain, &mut limits.counter()).expect("in budget")
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn columns() {
        let c = Column::default()
            .insert(0, Color::White)
            .insert(1, Color::Black);
        assert_eq!((c.len, c.get(0), c.get(1)), (2, Color::White, Color::Black));
        assert_eq!(c.remove(0).get(0), Color::Black);
        assert_eq!(c.insert(1, Color::White).get(2), Color::Black);
        // White below black: neither can promote, and nothing can be removed.
        assert!(c.completes_to(c));
        assert!(!c.completes_to(Column::default().insert(0, Color::White)));
        assert!(!c.completes_to(Column::default().insert(0, Color::Black)));
        assert!(!c.can_promote(1, Color::Black) && !c.can_promote(0, Color::White));
        // Black below white: both can.
        let d = Column::default()
            .insert(0, Color::Black)
            .insert(1, Color::White);
        assert!(d.can_promote(0, Color::Black) && d.can_promote(1, Color::White));
        for goal in [
            Column::default(),
            Column::default().insert(0, Color::White),
            Column::default().insert(0, Color::Black),
        ] {
            assert!(d.completes_to(goal));
        }
    }

    #[test]
    fn start_to_start_is_the_empty_kernel() {
        assert_eq!(kernel(START, START), KernelResult::Found(Vec::new()));
    }

    #[test]
    fn the_documents_example_kernels() {
        // e4 d5 exd5 and onwards: after exd5 ... a pawn exchange on d5.
        let goal = "rnbqkbnr/ppp2ppp/8/3P4/3p4/8/PPP2PPP/RNBQKBNR w KQkq - 0 1";
        match kernel(START, goal) {
            KernelResult::Found(k) => assert_eq!(k.len(), 2, "{k:?}"),
            KernelResult::None => panic!("a kernel exists"),
        }
    }

    #[test]
    fn shuffled_searches_find_extended_kernels_that_fit_the_ranks() {
        // A random legal position of cpr1k (21 captures, promotions on both sides): every seed
        // finds an extended kernel, each one fits the pawns' ranks, and the seeds do not all
        // find the same one.
        let init = RawPosition::start();
        let goal = RawPosition::from_fen(
            "kBr1r3/2p1Q2p/nQ5P/p3n1R1/b2R1p1q/PRpr2RB/5PN1/2K1brr1 b - - 0 1",
        )
        .expect("fen");
        let limits = crate::Limits {
            max_nodes: 1_000_000,
            deadline: None,
            proof_nodes: 0,
            cancel: None,
        };
        let mut kernels = Vec::new();
        for seed in 1..=6 {
            match search(
                &init,
                &goal,
                Kind::ExtendedShuffled(seed),
                &mut limits.counter(),
            ) {
                Ok(KernelResult::Found(k)) => {
                    assert!(rows::realizable(&init, &goal, &k), "seed {seed}: {k:?}");
                    kernels.push(k);
                }
                other => panic!("seed {seed}: {other:?}"),
            }
        }
        kernels.dedup();
        assert!(kernels.len() > 1, "one kernel for every seed");
    }

    #[test]
    fn pawn_on_the_wrong_file_without_captures_has_no_kernel() {
        // The e pawn on f4 with all 16 black pieces: no capture to change file.
        assert_eq!(
            kernel(
                START,
                "rnbqkbnr/pppppppp/8/8/5P2/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1"
            ),
            KernelResult::None
        );
    }

    #[test]
    fn a_promoted_bishop_keeps_its_promotion_squares_colour() {
        // The a pawn promotes on a8, a light square, with nothing to capture on the way.
        let init = "4k3/P7/8/8/8/8/8/4K3 w - - 0 1";
        assert_eq!(
            kernel(init, "4k3/8/8/8/8/8/8/3BK3 w - - 0 1"),
            KernelResult::Found(Vec::new())
        );
        assert_eq!(
            kernel(init, "4k3/8/8/8/8/8/8/2B1K3 w - - 0 1"),
            KernelResult::None
        );
        // Any other piece will do.
        assert_eq!(
            kernel(init, "4k3/8/8/8/8/8/8/2N1K3 w - - 0 1"),
            KernelResult::Found(Vec::new())
        );
    }

    #[test]
    fn blocked_pawns_and_shut_in_bishops() {
        let i = RawPosition::from_fen(START).expect("fen");
        let g = RawPosition::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
            .expect("fen");
        let b = blocked(&i, &g);
        assert_eq!((b.white_pawn, b.black_pawn), ([true; 8], [true; 8]));
        // Two rooks with rights, and both bishops shut in, for each side.
        assert_eq!(b.floor.map(|f| f.0), ByColor::new_with(|_| [0, 2, 1, 1, 0]));
        let g2 = RawPosition::from_fen("rnbqkbnr/pppppppp/8/8/8/3P4/PPP1PPPP/RNBQKBNR b Qkq - 0 1")
            .expect("fen");
        let b2 = blocked(&i, &g2);
        assert!(!b2.white_pawn[3] && b2.white_pawn[2]);
        assert_eq!(b2.floor.white.0, [0, 1, 1, 0, 0]);
    }

    #[test]
    fn a_bishop_shut_in_at_home_and_gone_was_taken_there_by_a_piece() {
        // f1's bishop never got past e2 and g2: a light bishop on d3 is no original one.
        let init = "4kn2/8/8/8/8/8/4P1P1/4KB2 w - - 0 1";
        assert_eq!(
            kernel(init, "4kn2/8/8/8/8/3B4/4P1P1/4K3 w - - 0 1"),
            KernelResult::None
        );
        // Taken at home by the knight: one capture, by a piece.
        let KernelResult::Found(k) = kernel(init, "4k3/8/8/8/8/8/4P1P1/4Kn2 w - - 0 1") else {
            panic!("no kernel");
        };
        assert_eq!(k.len(), 1);
        assert_eq!((k[0].side, k[0].pawn), (Color::Black, None));
        // A black pawn cannot take it: no pawn gets behind e2 and g2.
        let pawn = "4k3/8/8/8/2p5/8/4P1P1/4KB2 w - - 0 1";
        assert_eq!(
            kernel(pawn, "4k3/8/8/8/8/3p4/4P1P1/4K3 w - - 0 1"),
            KernelResult::None
        );
        // With g2 gone (here from the start), the bishop may get out and be taken anywhere.
        let open = "4k3/8/8/8/2p5/8/4P3/4KB2 w - - 0 1";
        assert!(matches!(
            kernel(open, "4k3/8/8/8/8/3p4/4P3/4K3 w - - 0 1"),
            KernelResult::Found(_)
        ));
    }

    #[test]
    fn no_promotion_from_beside_a_king_with_castling_rights() {
        // A white pawn on d7 or f7 checks the black king on e8, which never moves: the check
        // is answered by taking the pawn, so no pawn promotes from the d or f file.
        let init = "r3k2r/5P2/8/8/8/8/8/4K3 w kq - 0 1";
        let queen = "r3k2r/8/8/8/8/8/8/3QK3 w kq - 0 1";
        assert_eq!(kernel(init, queen), KernelResult::None);
        // From e7 it may take on f8.
        let init = "r3kn1r/4P3/8/8/8/8/8/4K3 w kq - 0 1";
        assert!(matches!(
            kernel(init, "r3kQ1r/8/8/8/8/8/8/4K3 b kq - 0 1"),
            KernelResult::Found(_)
        ));
        // Without the rights the king may have stepped aside.
        let init = "r3k2r/5P2/8/8/8/8/8/4K3 w - - 0 1";
        assert_eq!(
            kernel(init, "r3k2r/8/8/8/8/8/8/3QK3 w - - 0 1"),
            KernelResult::Found(Vec::new())
        );
        // cpr10k 9997 (black keeps its king-side right): every kernel had a white pawn promote
        // from f7.
        let cpr = "1q2k1br/P4R2/NB1p1r1R/1KR1QB1p/5p1P/1N4p1/BRP2Pr1/n4Q1r b k - 0 1";
        assert_eq!(kernel(START, cpr), KernelResult::None);
        let free = "1q2k1br/P4R2/NB1p1r1R/1KR1QB1p/5p1P/1N4p1/BRP2Pr1/n4Q1r b - - 0 1";
        assert!(matches!(kernel(START, free), KernelResult::Found(_)));
    }

    #[test]
    fn no_promotion_on_a_square_held_by_a_king_with_castling_rights() {
        // No capture: the e pawn must promote on e8, where the black king never moved.
        let init = "r3k2r/4P3/8/8/8/8/8/4K3 w kq - 0 1";
        assert_eq!(
            kernel(init, "r3k2r/8/8/8/8/8/8/3QK3 w kq - 0 1"),
            KernelResult::None
        );
        // Without the rights the king may have stepped aside.
        assert_eq!(
            kernel(
                "r3k2r/4P3/8/8/8/8/8/4K3 w - - 0 1",
                "r3k2r/8/8/8/8/8/8/3QK3 w - - 0 1"
            ),
            KernelResult::Found(Vec::new())
        );
    }

    #[test]
    fn a_bishop_promoted_on_a_trapping_square_stays_there() {
        // b7 never moves: a bishop promoted on a8 can never leave.
        let init = "4k3/Pp6/8/8/8/8/8/4K3 w - - 0 1";
        assert_eq!(
            kernel(init, "B3k3/1p6/8/8/8/8/8/4K3 w - - 0 1"),
            KernelResult::Found(Vec::new())
        );
        assert_eq!(
            kernel(init, "4k3/1p6/8/8/2B5/8/8/4K3 w - - 0 1"),
            KernelResult::None
        );
        assert_eq!(
            kernel(init, "4k3/1p6/8/8/2N5/8/8/4K3 w - - 0 1"),
            KernelResult::Found(Vec::new())
        );
        // Two promotions on a8: only the first may be a bishop, and it stays on a8.
        let two = "4k3/Pp6/P7/8/8/8/8/4K3 w - - 0 1";
        assert_eq!(
            kernel(two, "B3k3/1p6/8/8/2B5/8/8/4K3 w - - 0 1"),
            KernelResult::None
        );
        assert_eq!(
            kernel(two, "B3k3/1p6/8/8/2Q5/8/8/4K3 w - - 0 1"),
            KernelResult::Found(Vec::new())
        );
        // A bishop on a8 from the initial position on is no promoted one.
        assert_eq!(
            kernel(
                "B3k3/1p6/8/8/8/8/8/4K3 w - - 0 1",
                "B3k3/1p6/8/8/8/8/8/3K4 b - - 0 1"
            ),
            KernelResult::Found(Vec::new())
        );
    }

    #[test]
    fn texels_no_kernel_position() {
        assert_eq!(
            kernel(
                START,
                "2K1Nbk1/p3N1Nr/2PR2p1/2R2R1P/P3rb1B/1brQ2n1/p1q3P1/Nq2nB2 b - - 0 1"
            ),
            KernelResult::None
        );
    }
}
