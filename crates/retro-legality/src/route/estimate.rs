//! A route's waypoints as goals of the proof game search ([`Leg`]), and the estimate that
//! guides each search: the pawn moves of the cheapest assignment of the pawns to the
//! waypoint's squares and promotions, the pieces in their way, and the moves its capture still
//! needs (a victim or capturer getting to its square, around the pawns).

use std::cell::RefCell;

use shakmaty::{
    attacks, Bitboard, Board, ByColor, Chess, Color, File, Move, Position, Rank, Role, Square,
};

use super::{piece_counts::goal_counts, Capture, Counts, Route, Waypoint};
use crate::{
    around::SHUT_IN,
    assign::{min_assignment, Costs},
    astar::Goal,
    heuristic::{pawn_table, piece_table, Table, FAR, IMPOSSIBLE},
    kernel_move::KernelPiece,
    rows::Slot,
};

/// Distances on an empty board, shared by the waypoints of one goal.
pub(super) struct Tables {
    /// Per colour, the moves of a pawn between squares (a file per capture).
    pawn: ByColor<Table>,
    /// Knight, bishop, rook, queen, king.
    pieces: [Table; 5],
}

impl Tables {
    /// The tables, made once per route.
    pub(super) fn new() -> Tables {
        let pawn = ByColor::new_with(|c| pawn_table(c, Bitboard::EMPTY));
        let pieces = [
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
            Role::King,
        ]
        .map(|r| piece_table(r, Bitboard::EMPTY, Bitboard::EMPTY));
        Tables { pawn, pieces }
    }

    /// The moves of a `c` pawn from `from` into `slot` (the nearest of its squares).
    fn to_slot(&self, c: Color, from: Square, slot: &Slot) -> u8 {
        (slot.low..=slot.high)
            .filter_map(|rank| {
                let rank = Rank::new(u32::from(rank.checked_sub(1)?));
                let to = Square::from_coords(File::new(u32::from(slot.file)), rank);
                Some(self.pawn[c].get(from, to))
            })
            .min()
            .unwrap_or(FAR)
    }

    /// The moves of a `role` piece (not a pawn) from `from` to `to`.
    fn piece(&self, role: Role, from: Square, to: Square) -> u8 {
        let i = match role {
            Role::Knight => 0,
            Role::Bishop => 1,
            Role::Rook => 2,
            Role::Queen => 3,
            Role::King => 4,
            Role::Pawn => return FAR,
        };
        self.pieces[i].get(from, to)
    }
}

/// One waypoint of a route, as a goal of the search.
pub struct Leg<'a> {
    route: &'a Route,
    waypoint: &'a Waypoint,
    /// The waypoint after this one: its capture's pieces should not end this leg walled off.
    next: Option<&'a Waypoint>,
    /// The pawn assignments of this leg's estimate, by side and pawns.
    cache: PawnCache,
}

/// How one side's pawns get to a waypoint's squares and promotions, by the cheapest
/// assignment: what [`Leg::side_moves`] computes from the pawns alone, before it looks at
/// the pieces in their way.
#[derive(Clone, Copy)]
struct PawnPlan {
    /// The pawn moves of the assignment.
    moves: u32,
    /// The squares each pawn that stays on its file has to cross or land on.
    paths: [Bitboard; 8],
    /// The paths in use.
    n: u8,
}

/// Slots of a leg's pawn cache (a power of two).
const PAWN_CACHE_SLOTS: usize = 1 << 14;

/// A direct-mapped cache of [`PawnPlan`]s. Most moves leave a side's pawns where they are, so
/// that the assignment of the pawns of a position's children is mostly the same. Each slot holds
/// a 64-bit hash of what the plan depends on (side, pawns, captures and promotions left) and
/// the plan (`None`: none fits); another key with the same hash would read a wrong estimate,
/// which costs a search at most some time (a game is checked by its replay).
struct PawnCache(RefCell<Vec<(u64, Option<PawnPlan>)>>);

impl PawnCache {
    fn new() -> PawnCache {
        PawnCache(RefCell::new(vec![(0, None); PAWN_CACHE_SLOTS]))
    }
}

/// Every kernel type (queens, rooks, light and dark bishops, knights): any piece but a king.
const ANY_TYPE: u8 = 0b1_1111;

impl<'a> Leg<'a> {
    /// The leg of `route` to `waypoint`, with the `next` waypoint after it.
    pub(super) fn new(
        route: &'a Route,
        waypoint: &'a Waypoint,
        next: Option<&'a Waypoint>,
    ) -> Leg<'a> {
        Leg {
            route,
            waypoint,
            next,
            cache: PawnCache::new(),
        }
    }

    /// The waypoint this leg goes to.
    pub fn waypoint(&self) -> &Waypoint {
        self.waypoint
    }

    /// The fewest moves of `c` in the relaxed problem: its pawns onto the waypoint's squares
    /// and the promotions it still needs, by the cheapest assignment; at least one move per
    /// capture it still has to make.
    ///
    /// Pieces standing on the file squares a pawn still has to cross (or land on) are added to
    /// `blockers`, by owner: each has to move out of the way; a pawn of the other side there
    /// adds [`SHUT_IN`] moves (one of the two has to leave the file by a capture). Both go
    /// beyond the relaxed problem, so the estimate may overshoot, which a proof game search can
    /// afford.
    fn side_moves(
        &self,
        board: &Board,
        c: Color,
        now: &ByColor<Counts>,
        blockers: &mut ByColor<u32>,
    ) -> Option<u32> {
        let w = self.waypoint;
        let pawns = board.pawns() & board.by_color(c);
        let mut promotions: u32 = KernelPiece::ALL
            .into_iter()
            .map(|t| u32::from(w.counts[c][t].saturating_sub(now[c][t])))
            .sum();
        // Where the waypoint's capture takes the piece `c` promotes to, `c`'s pawns beyond the
        // waypoint's all promote (none of them is taken): the counts alone do not show that
        // promotion while the capture is still to come (the piece taken may be another of the
        // promoted one's type, still on the board).
        if matches!(w.capture, Some(Capture::Promoted { victim, .. }) if victim == c) {
            let beyond = pawns.count().saturating_sub(w.pawns[c].len());
            promotions = promotions.max(beyond as u32);
        }
        let captures = units_on(board, !c).checked_sub(w.units(!c))?;
        let plan = self.pawn_plan_cached(c, pawns, captures, promotions)?;
        let in_way = board.occupied() & !board.pawns();
        let facing = board.pawns() & board.by_color(!c);
        let mut moves = plan.moves;
        for path in plan.paths.iter().take(usize::from(plan.n)) {
            for sq in *path & in_way {
                if let Some(owner) = board.color_at(sq) {
                    blockers[owner] += 1;
                }
            }
            // A pawn of the other side in the way on the file: one of the two has to leave
            // the file by a capture first.
            moves += u32::from(SHUT_IN) * (*path & facing).count() as u32;
        }
        Some(moves.max(captures))
    }

    /// [`pawn_plan`](Leg::pawn_plan) through the leg's cache.
    fn pawn_plan_cached(
        &self,
        c: Color,
        pawns: Bitboard,
        captures: u32,
        promotions: u32,
    ) -> Option<PawnPlan> {
        let mut h = (c as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for x in [u64::from(pawns), u64::from(captures), u64::from(promotions)] {
            h = (h ^ x).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
            h ^= h >> 33;
        }
        h |= 1;
        let slot = (h >> 48) as usize & (PAWN_CACHE_SLOTS - 1);
        if let Some(&(tag, plan)) = self.cache.0.borrow().get(slot) {
            if tag == h {
                return plan;
            }
        }
        let plan = self.pawn_plan(c, pawns, captures, promotions);
        if let Some(e) = self.cache.0.borrow_mut().get_mut(slot) {
            *e = (h, plan);
        }
        plan
    }

    /// The cheapest assignment of `c`'s `pawns` to the waypoint's squares for them and to the
    /// `promotions` still to come, each pawn changing file at most `captures` times (the pawn
    /// that makes the waypoint's capture by way of the square behind it, see
    /// [`via_capture`](Leg::via_capture)); `None` when there is none.
    fn pawn_plan(
        &self,
        c: Color,
        pawns: Bitboard,
        captures: u32,
        promotions: u32,
    ) -> Option<PawnPlan> {
        let want = &self.waypoint.pawns[c];
        let have: Vec<Square> = pawns.into_iter().collect();
        let rows = want.len() + promotions as usize;
        if rows > have.len() {
            return None;
        }
        let mut plan = PawnPlan {
            moves: 0,
            paths: [Bitboard::EMPTY; 8],
            n: 0,
        };
        if rows == 0 {
            return Some(plan);
        }
        let tables = &self.route.tables;
        let last = c.fold_wb(Rank::Eighth, Rank::First);
        let landing = self.landing(c, captures);
        let mut costs = Costs::new(rows, have.len(), IMPOSSIBLE)?;
        for (j, &s) in have.iter().enumerate() {
            // A pawn changes file only by capturing: no further than the captures left.
            let reach = |file: File| s.file().distance(file) <= captures;
            for (i, slot) in want.iter().enumerate() {
                if !reach(File::new(u32::from(slot.file))) {
                    continue;
                }
                let d = match landing {
                    Some((at, square)) if at == i => {
                        self.via_capture(c, s, square, slot, captures).0
                    }
                    _ => tables.to_slot(c, s, slot),
                };
                costs.set(i, j, cost(d));
            }
            let promote = File::ALL
                .into_iter()
                .filter(|&f| reach(f))
                .map(|f| tables.pawn[c].get(s, Square::from_coords(f, last)))
                .min()
                .unwrap_or(FAR);
            for i in want.len()..rows {
                costs.set(i, j, cost(promote));
            }
        }
        let (total, assigned) = min_assignment(&costs);
        let assigned = &assigned[..rows];
        if total >= IMPOSSIBLE {
            return None;
        }
        plan.moves = total as u32;
        for (i, &j) in assigned.iter().enumerate() {
            let Some(&s) = have.get(j) else {
                continue;
            };
            let target = match (want.get(i), landing) {
                // The pawn that makes the capture: its way to the square behind it.
                (Some(slot), Some((at, square))) if at == i => {
                    match self.via_capture(c, s, square, slot, captures).1 {
                        Some(behind) if behind.file() == s.file() => behind,
                        _ => continue,
                    }
                }
                (Some(slot), _) if u32::from(slot.file) == s.file() as u32 => {
                    let rank = if c == Color::White {
                        slot.low
                    } else {
                        slot.high
                    };
                    let rank = Rank::new(u32::from(rank.saturating_sub(1)));
                    Square::from_coords(s.file(), rank)
                }
                (Some(_), _) => continue,
                (None, _) => Square::from_coords(s.file(), last),
            };
            if c.fold_wb(target.rank() <= s.rank(), target.rank() >= s.rank()) {
                continue;
            }
            if let Some(p) = plan.paths.get_mut(usize::from(plan.n)) {
                *p = attacks::between(s, target) | target;
                plan.n += 1;
            }
        }
        Some(plan)
    }

    /// The slot of `c`'s pawn that makes the waypoint's capture by a pawn, and the capture's
    /// square, while the capture is still to be made (`captures`, the units `c` still has to
    /// take, above 0): that pawn has to come to the square by a capture, from a square behind
    /// it on a neighbouring file.
    fn landing(&self, c: Color, captures: u32) -> Option<(usize, Square)> {
        if captures == 0 {
            return None;
        }
        let square = match self.waypoint.capture? {
            Capture::OnSquare { square, victim, .. }
            | Capture::PawnTo { square, victim }
            | Capture::Promoted { square, victim }
                if victim == !c =>
            {
                square
            }
            _ => return None,
        };
        let rank = square.rank() as u8 + 1;
        let i = self.waypoint.pawns[c].iter().position(|s| {
            u32::from(s.file) == square.file() as u32 && rank == c.fold_wb(s.low, s.high)
        })?;
        Some((i, square))
    }

    /// The moves of `c`'s pawn on `from` into `slot` by a capture on `square`: to a square
    /// behind it on a neighbouring file, the capture, then along the file, changing files no
    /// more than `captures` times in all; and that square behind ([`FAR`] and `None` when
    /// there is no way).
    fn via_capture(
        &self,
        c: Color,
        from: Square,
        square: Square,
        slot: &Slot,
        captures: u32,
    ) -> (u8, Option<Square>) {
        let tables = &self.route.tables;
        let rank = square.rank() as i32 + c.fold_wb(-1, 1);
        let after = tables.to_slot(c, square, slot);
        let mut best = (FAR, None);
        for df in [-1, 1] {
            let file = square.file() as i32 + df;
            if !(0..8).contains(&file) || !(0..8).contains(&rank) {
                continue;
            }
            let behind = Square::from_coords(File::new(file as u32), Rank::new(rank as u32));
            if from.file().distance(behind.file()) + 1 > captures {
                continue;
            }
            let d = tables.pawn[c].get(from, behind);
            if d == FAR || after == FAR {
                continue;
            }
            let total = d.saturating_add(1).saturating_add(after).min(FAR - 1);
            if total < best.0 {
                best = (total, Some(behind));
            }
        }
        best
    }

    /// The moves the waypoint's capture still needs before it can be made: a victim or a
    /// capturer getting to its square (0 when it is made or nothing is known).
    ///
    /// `w` is this leg's waypoint or the next; `walled`: around the pawns and fixed pieces
    /// (a piece walled off costs [`SHUT_IN`] more), with a move for each piece in the way,
    /// else on the empty board.
    fn approach(&self, board: &Board, w: &Waypoint, walled: bool) -> (Color, u32) {
        let tables = &self.route.tables;
        // A piece the pawns wall off from where it must go is further than its empty-board
        // distance: a pawn has to make way first.
        let walls = board.pawns() | self.route.fixed_squares;
        let distance = |role: Role, from: Square, to: Square| {
            if !walled {
                return tables.piece(role, from, to);
            }
            self.route
                .around
                .distance_past(role, walls, board.occupied(), from, to)
                .unwrap_or_else(|| match tables.piece(role, from, to) {
                    FAR => FAR,
                    d => d.saturating_add(SHUT_IN).min(FAR - 1),
                })
        };
        let nearest = |c: Color, types: Option<u8>, to: Square| {
            let mut best = FAR;
            for sq in board.by_color(c) & !board.pawns() {
                let Some(role) = board.role_at(sq) else {
                    continue;
                };
                if let Some(types) = types {
                    match KernelPiece::of(role, sq) {
                        Some(t) if types & t.bit() != 0 => {}
                        _ => continue,
                    }
                }
                best = best.min(distance(role, sq, to));
            }
            if best == FAR {
                0
            } else {
                u32::from(best)
            }
        };
        let pending = |victim: Color| units_on(board, victim) > w.units(victim);
        match w.capture {
            Some(Capture::OnSquare {
                square,
                victim,
                types,
            }) if pending(victim) => (victim, nearest(victim, Some(types), square)),
            // Any piece but the king (the captured one has a kernel type).
            Some(Capture::Promoted { square, victim }) if pending(victim) => {
                (victim, nearest(victim, Some(ANY_TYPE), square))
            }
            Some(Capture::PawnTo { square, victim }) if pending(victim) => {
                let file = Bitboard::from_file(square.file());
                let d = (board.pawns() & board.by_color(victim) & file)
                    .into_iter()
                    .map(|p| tables.pawn[victim].get(p, square))
                    .min()
                    .unwrap_or(FAR);
                (victim, if d == FAR { 0 } else { u32::from(d) })
            }
            Some(Capture::Pawn { square, by }) if pending(!by) => {
                (by, nearest(by, None, square).saturating_sub(1))
            }
            Some(Capture::Meet { by, types }) if pending(!by) => {
                let mut best = FAR;
                for v in board.by_color(!by) & !board.pawns() {
                    match board.role_at(v).and_then(|r| KernelPiece::of(r, v)) {
                        Some(t) if types & t.bit() != 0 => {}
                        _ => continue,
                    }
                    for a in board.by_color(by) & !board.pawns() {
                        if let Some(role) = board.role_at(a) {
                            best = best.min(distance(role, a, v));
                        }
                    }
                }
                let d = if best == FAR { 0 } else { u32::from(best) };
                (by, d.saturating_sub(1))
            }
            _ => (Color::White, 0),
        }
    }
}

/// Whether `c`'s pawns on `board` stand in `slots`, one each (on each file, in order).
fn pawns_fit(board: &Board, c: Color, slots: &[Slot]) -> bool {
    let pawns = board.pawns() & board.by_color(c);
    if pawns.count() != slots.len() {
        return false;
    }
    File::ALL.into_iter().all(|file| {
        let f = file as u8;
        // The file's slots, lowest pawn first (at most 8: one per pawn).
        let mut want = [(0u8, 0u8); 8];
        let mut n = 0;
        for s in slots.iter().filter(|s| s.file == f) {
            match want.get_mut(n) {
                Some(w) => *w = (s.low, s.high),
                None => return false,
            }
            n += 1;
        }
        let want = &mut want[..n];
        // By the rank each pawn stands on now: a white pawn's lowest, a black one's highest.
        want.sort_unstable_by_key(|&(low, high)| c.fold_wb(low, high));
        // Squares iterate from a1 up, so a file's pawns come lowest first.
        let have = pawns & Bitboard::from_file(file);
        have.count() == n
            && have
                .into_iter()
                .zip(want.iter())
                .all(|(sq, &(low, high))| (low..=high).contains(&(sq.rank() as u8 + 1)))
    })
}

/// A cost matrix entry for a table distance.
fn cost(d: u8) -> i32 {
    if d == FAR {
        IMPOSSIBLE
    } else {
        i32::from(d)
    }
}

/// Whether the pieces and pawns on `board` are waypoint `w`'s in number (no capture is left
/// to make on the way there).
fn no_capture_left(board: &Board, w: &Waypoint) -> bool {
    Color::ALL
        .into_iter()
        .all(|c| units_on(board, c) == w.units(c))
}

/// `c`'s units on `board`: its pieces and pawns, the king left out.
fn units_on(board: &Board, c: Color) -> u32 {
    (board.by_color(c) & !board.kings()).count() as u32
}

/// Whether the piece on `square` can never leave it without a capture: with `w`'s pawns
/// only going forward where its slots let them (and none of them taking), no chain of moves
/// into empty squares frees it. Pieces that can move are found by a fixpoint: a piece can
/// move when one of its squares is empty or holds a piece that can move (a king not onto a
/// square an enemy pawn that cannot move attacks), a pawn when the square in front is so and
/// its slots let it go on.
fn frozen(board: &Board, w: &Waypoint, square: Square) -> bool {
    let occupied = board.occupied();
    // Whether a pawn of `c` on `sq` may still go forward, by the slots of its file.
    let may_advance = |c: Color, sq: Square| {
        let rank = sq.rank() as u8 + 1;
        w.pawns[c].iter().any(|s| {
            u32::from(s.file) == sq.file() as u32 && c.fold_wb(s.high > rank, s.low < rank)
        })
    };
    let mut free = !occupied;
    // Pawns that never move: their attacks stay.
    let mut stuck_attacks = ByColor::new_with(|_| Bitboard::EMPTY);
    for sq in board.pawns() {
        if let Some(c) = board.color_at(sq) {
            let front = sq.offset(c.fold_wb(8, -8));
            if !may_advance(c, sq) || front.is_none_or(|f| occupied.contains(f)) {
                stuck_attacks[c] |= attacks::pawn_attacks(c, sq);
            }
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for sq in occupied & !free {
            let Some(piece) = board.piece_at(sq) else {
                continue;
            };
            let moves = match piece.role {
                Role::Pawn => {
                    if !may_advance(piece.color, sq) {
                        continue;
                    }
                    sq.offset(piece.color.fold_wb(8, -8))
                        .map_or(Bitboard::EMPTY, Bitboard::from_square)
                }
                Role::King => attacks::king_attacks(sq) & !stuck_attacks[!piece.color],
                _ => attacks::attacks(sq, piece, occupied),
            };
            if (moves & free).any() {
                free.add(sq);
                changed = true;
            }
        }
        if free.contains(square) {
            return false;
        }
    }
    true
}

impl Goal for Leg<'_> {
    fn estimate(&self, pos: &Chess) -> Option<u32> {
        let board = pos.board();
        for &(sq, piece) in &self.route.fixed {
            if board.piece_at(sq) != Some(piece) {
                return None;
            }
        }
        if !(self.route.rights & !pos.castles().castling_rights()).is_empty() {
            return None;
        }
        // A promotion square held by a piece that can never leave it without a capture, where
        // no capture is left to make.
        if let Some(p) = self.waypoint.promotes {
            let holders = board.occupied() & !board.pawns();
            if holders.contains(p)
                && no_capture_left(board, self.waypoint)
                && frozen(board, self.waypoint, p)
            {
                return None;
            }
        }
        let now = ByColor::new_with(|c| goal_counts(board, c));
        let mut moves = ByColor::new_with(|_| 0u32);
        let mut blockers = ByColor::new_with(|_| 0u32);
        for c in Color::ALL {
            moves[c] = self.side_moves(board, c, &now, &mut blockers)?;
        }
        for c in Color::ALL {
            moves[c] += blockers[c];
        }
        let (c, extra) = self.approach(board, self.waypoint, true);
        moves[c] += extra;
        // The next capture's pieces should not end this leg walled off: what the walls add to
        // its approach counts here too.
        if let Some(next) = self.next {
            let (c, walled) = self.approach(board, next, true);
            if walled > 0 {
                let (_, open) = self.approach(board, next, false);
                moves[c] += walled.saturating_sub(open);
            }
        }
        // After n plies the side to move has made ceil(n/2) moves, the other floor(n/2).
        let first = moves[pos.turn()];
        let second = moves[!pos.turn()];
        Some((2 * first).saturating_sub(1).max(2 * second))
    }

    fn reached(&self, pos: &Chess) -> bool {
        let board = pos.board();
        let w = self.waypoint;
        // The number of pieces first: it tells most positions apart at the cost of a count.
        let pieces = |c: Color| (board.by_color(c) & !board.pawns() & !board.kings()).count();
        let wanted = |c: Color| w.counts[c].iter().map(|&n| usize::from(n)).sum::<usize>();
        Color::ALL.into_iter().all(|c| pieces(c) == wanted(c))
            && Color::ALL
                .into_iter()
                .all(|c| pawns_fit(board, c, &w.pawns[c]) && goal_counts(board, c) == w.counts[c])
    }

    fn king_nearer(&self, _pos: &Chess, _m: &Move) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{Chess, Color, Square};

    use super::*;
    use crate::{
        astar::{self, Outcome, Params},
        route::fixtures::{at, chess, route, waypoint},
    };

    #[test]
    fn a_pawn_that_takes_a_promoted_piece_steers_a_piece_to_its_square() {
        // A cpr10k position whose kernel ends with black's h pawn taking, on the g file, the
        // piece white promoted on a8 (bPh1xag0). That waypoint both promotes on a8 and asks
        // for a white piece on the capture's square: the promoted one or another of its type.
        let (_, r) = route("1n1RQ1Q1/4p2K/B3P1pn/1q1N1qP1/1r3krR/1B1Q4/NpR5/1B1n1bbq b - - 0 1");
        let w = r
            .waypoints
            .iter()
            .find(|w| matches!(w.capture, Some(Capture::Promoted { .. })))
            .expect("a waypoint that takes a promoted piece");
        assert_eq!(
            (w.capture, w.promotes),
            (
                Some(Capture::Promoted {
                    square: Square::G2,
                    victim: Color::White
                }),
                Some(Square::A8)
            )
        );
        // Before that capture, the nearest white piece is one move from g2 (the bishop on f1
        // once the g pawn has moved), and the capture is still to be made.
        let leg = r
            .legs()
            .find(|l| std::ptr::eq(l.waypoint(), w))
            .expect("its leg");
        let board = chess("rnbqkbnr/P1Ppp1p1/8/1p6/4P3/4p1Pp/P1P2P1P/RN1QKBNR b KQkq - 0 11");
        assert_eq!(leg.approach(board.board(), w, false), (Color::White, 1));
        // The king is never the piece taken: on f1 in the bishop's place, next to g2, it does
        // not count; the queen and the rook, two moves away, do (the bishop, now on c1, never
        // gets to a light square).
        let board = chess("rnbqkbnr/P1Ppp1p1/8/1p6/4P3/4p1Pp/P1P2P1P/RNBQ1KNR b kq - 0 11");
        assert_eq!(leg.approach(board.board(), w, false), (Color::White, 2));
    }

    #[test]
    fn the_pawn_that_promotes_the_piece_to_be_taken_counts_before_the_capture() {
        // cpr10k 3483: white's g pawn takes on f7 the piece black promotes on b1 (wPg0xbf2),
        // the kernel's second move. With g6 against the black queen on f7, the capture is one
        // move away, but black's b pawn still has to run to b1 (b7-b5-b4-b3-b2-b1: five moves)
        // and promote to a queen for the counts to come out even: ten plies, not one.
        let (_, r) = route("1n1b2bR/5R1r/KBp3N1/2BRN1Q1/4kpbp/B1r1qR2/1R2R1pP/3n3B w - - 0 1");
        let w = &r.waypoints[1];
        assert_eq!(
            w.capture,
            Some(Capture::Promoted {
                square: Square::F7,
                victim: Color::Black
            })
        );
        let leg = r.legs().nth(1).expect("the second leg");
        let mut pos = chess("rnb1kbnr/Ppp2qp1/3pppP1/7p/8/8/P1PPPP1P/RNBQKBNR w KQkq - 1 8");
        assert_eq!(leg.estimate(&pos), Some(10));
        // Along the game that reaches the waypoint the estimate never jumps.
        let mut last = 10;
        for u in "g6f7 e8e7 b1c3 b7b5 c3e4 b5b4 e4c5 b4b3 g1f3 b3b2 f3g5 b2b1q".split(' ') {
            let m = u
                .parse::<shakmaty::uci::UciMove>()
                .expect("UCI move")
                .to_move(&pos)
                .expect("legal move");
            pos.play_unchecked(m);
            let e = leg.estimate(&pos).expect("in reach");
            assert!(e <= last + 1, "{u}: {e} after {last}");
            last = e;
        }
        assert!(leg.reached(&pos));
    }

    #[test]
    fn a_promotion_square_held_by_a_piece_shut_in_for_good_is_out_of_reach() {
        // cpr10k 1670, where a leg ended: black's b2 pawn is to promote on b1, where white's
        // rook stands between black's a1 bishop and white's c1 bishop; the bishop is held by
        // the b2 pawn and white's d2 pawn, which stays (d2 in the waypoint).
        let slots = |white_d: (u8, u8)| {
            let mut w = waypoint(
                vec![
                    at(Color::Black, 1, 4),
                    at(Color::Black, 4, 2),
                    at(Color::Black, 4, 7),
                ],
                vec![at(Color::White, 3, 2), at(Color::White, 5, 2)],
                None,
                Some(Square::B1),
            );
            w.pawns[Color::White][0] = Slot {
                low: white_d.0,
                high: white_d.1,
                ..at(Color::White, 3, 2)
            };
            w
        };
        let pos = chess("r1Nqkbnr/4p3/1R2n3/3pN1p1/1p5P/8/1p1PpPp1/bRBQKBNR b Kkq - 0 29");
        assert!(frozen(pos.board(), &slots((2, 2)), Square::B1));
        // If the d pawn may go on, the bishop, then the rook, can make way.
        assert!(!frozen(pos.board(), &slots((2, 4)), Square::B1));
        // The king on e1 with its d1 and f1 squares under the e2 pawn, which waits for e1.
        let king = chess("rRNqkbnr/3pp3/n4R2/3N4/1p3Np1/7P/3PpPp1/bqBQKB1R w Kkq - 0 28");
        assert!(frozen(king.board(), &slots((2, 2)), Square::E1));
        // The queen on d1 can go, but the king cannot follow onto d1.
        assert!(!frozen(king.board(), &slots((2, 2)), Square::D1));
    }

    #[test]
    fn the_pawn_that_captures_comes_from_behind_the_square() {
        let (_, r) = route("rnbqkbnr/ppp1p1pp/8/3P4/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1");
        let Some(leg) = r.legs().next() else {
            panic!("no leg");
        };
        let slot = at(Color::White, 2, 4);
        // b2-b3, bxc4: two moves, from b3.
        assert_eq!(
            leg.via_capture(Color::White, Square::B2, Square::C4, &slot, 1),
            (2, Some(Square::B3))
        );
        // From b4, or from c4 itself, there is no capture onto c4; from c2 there is (c2xb3xc4)
        // only with two captures left.
        assert_eq!(
            leg.via_capture(Color::White, Square::C2, Square::C4, &slot, 2),
            (2, Some(Square::B3))
        );
        for from in [Square::B4, Square::C4, Square::C2] {
            assert_eq!(
                leg.via_capture(Color::White, from, Square::C4, &slot, 1),
                (FAR, None)
            );
        }
    }

    #[test]
    fn the_pieces_in_the_way_of_the_capture_s_piece_cost_a_move_each() {
        // Black's d pawn took white's a1 rook on e6 (the rook left by the a file: with every
        // white pawn at home it could never have left its first rank).
        let (_, r) = route("rnbqkbnr/ppp1pppp/4p3/8/P7/8/1PPPPPPP/1NBQKBNR w Kkq - 0 1");
        let Some(leg) = r.legs().next() else {
            panic!("no leg");
        };
        assert_eq!(
            leg.waypoint().capture,
            Some(Capture::OnSquare {
                square: Square::E6,
                victim: Color::White,
                types: KernelPiece::Rook.bit(),
            })
        );
        let approach = |fen: &str| {
            let pos = chess(fen);
            let board = pos.board();
            leg.approach(board, leg.waypoint(), true)
        };
        // The rook on a3 goes a3-e3-e6 (a3-a6 is walled by the a4 pawn): two moves.
        let clear = "rnbqkbnr/pppppppp/8/8/P7/R7/1PPPPPPP/1NBQKBNR b Kkq - 0 1";
        assert_eq!(approach(clear), (Color::White, 2));
        // A knight on c3 and a black knight on e5 in its way: one move more for each.
        let blocked = "rnbqkb1r/pppppppp/8/4n3/P7/R1N5/1PPPPPPP/2BQKBNR b Kkq - 0 1";
        assert_eq!(approach(blocked), (Color::White, 4));
    }

    #[test]
    fn the_legs_are_reached_one_after_the_other() {
        // White pieces took black's b pawn and b8 knight, a black piece took the c1 bishop.
        let (_, r) = route("r1bqkbnr/p1pppppp/8/8/8/1P6/P1PPPPPP/RN1QKBNR w KQkq - 0 1");
        let mut pos = Chess::default();
        for leg in r.legs() {
            let params = Params {
                weight: 5,
                max_nodes: 20_000,
                seed: 1,
                deadline: None,
                cancel: None,
            };
            match astar::search(&pos, &leg, params) {
                Ok(Outcome::Found(moves)) => {
                    for m in moves {
                        pos.play_unchecked(m);
                    }
                }
                other => panic!("a leg failed: {other:?}"),
            }
            assert!(leg.reached(&pos));
        }
    }
}
