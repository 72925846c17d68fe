//! The distance estimate of the proof game search: the plies a position needs at least to reach
//! the goal, from a relaxed problem in which pieces do not get in each other's way.
//!
//! Every goal piece is assigned its own piece of the current position (the same piece type, or
//! a pawn that promotes to it), each at the cost of its shortest path on an empty board; the
//! cheapest assignment (the Hungarian method) gives each side's moves. Squares whose goal piece
//! can never have moved (a pawn on its second rank, a piece walled in by such pawns) are
//! obstacles for every path, and a king avoids the squares that blocked enemy pawns attack.
//! Pawns of the position that can no longer move on the way to the goal (on a goal square of
//! theirs with no pawn behind that could take their place) are obstacles too, for the pieces
//! of the position. A side also needs a move for each enemy piece it must still capture. The estimate is
//! admissible: no proof game from the position is shorter. It is "infinite" (`None`) when the
//! relaxed problem has no solution: a blocked square holds the wrong piece, too few pieces are
//! left, a goal piece cannot be reached by any piece left, or a castling right lost already.

use shakmaty::{attacks, Bitboard, ByColor, Chess, Color, File, Position, Rank, Role, Square};

use std::cell::RefCell;

use super::{
    around::{spread, Around},
    assign::{min_assignment, Costs},
    position::RawPosition,
};

/// An unreachable square in the distance tables.
pub(super) const FAR: u8 = u8::MAX;

/// An impossible assignment in the cost matrix (more than any real total).
pub(super) const IMPOSSIBLE: i32 = 10_000;

/// Roles other than pawns and kings that a pawn may promote to.
const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

/// Shortest path lengths of one piece kind between all pairs of squares.
#[derive(Clone)]
pub(super) struct Table(Box<[[u8; 64]; 64]>);

impl Table {
    fn far() -> Table {
        Table(Box::new([[FAR; 64]; 64]))
    }

    pub(super) fn get(&self, from: Square, to: Square) -> u8 {
        self.0[usize::from(from)][usize::from(to)]
    }
}

/// The cheapest assignment of one side's pieces to its goal pieces.
struct Assignment<'a> {
    /// Goal pieces by current pieces.
    costs: &'a mut Costs,
    /// The current pieces (the columns).
    sources: &'a [(Role, Square)],
    /// The column of each row.
    assigned: &'a [usize],
    /// The total cost.
    total: i32,
}

/// The relaxed-problem distance to one goal.
#[derive(Clone)]
pub struct Heuristic {
    goal: RawPosition,
    blocked: Bitboard,
    /// Per colour, per role index (`Role as usize - 1`), the moves between squares.
    dist: ByColor<[Table; 6]>,
    /// Per colour and promotion role: the moves of a pawn from a square to a goal square as
    /// that role, the promotion included (`promo[c][k][from][to]`, `k` indexing `PROMOTIONS`).
    promo: ByColor<[Table; 4]>,
    /// Per colour, the goal's pieces other than the king.
    targets: ByColor<Vec<(Role, Square)>>,
    /// Per colour and square, the squares behind it from which a pawn of that colour can
    /// reach it.
    cones: ByColor<[Bitboard; 64]>,
    /// Distances around the frozen pawns (see [`Heuristic::frozen`]).
    around: Around,
    /// The moves of one side by a hash of its pieces, the castling rights and the frozen pawns
    /// (see `side_moves_cached`).
    cache: SideCache,
}

/// Slots of the side cache (a power of two).
const CACHE_SLOTS: usize = 1 << 16;

/// A direct-mapped cache of [`Heuristic::side_moves`]: a move changes one side's pieces (and
/// maybe takes one of the other's), so that the side that did not move keeps its value in
/// every child of a position. Each slot holds a 64-bit hash of the side's pieces and rights
/// and the value (`u32::MAX`: unreachable); another position with the same hash would read a
/// wrong estimate, which costs a search at most some time (a game is checked by its replay).
#[derive(Clone)]
struct SideCache(RefCell<Vec<(u64, u32)>>);

impl SideCache {
    fn new() -> SideCache {
        SideCache(RefCell::new(vec![(0, 0); CACHE_SLOTS]))
    }
}

impl Heuristic {
    /// The estimate for reaching `goal`.
    pub fn new(goal: &RawPosition) -> Heuristic {
        let blocked = blocked_squares(goal);
        let dist = ByColor::new_with(|c| {
            let king_avoid = pawn_attacks(goal.of(!c, Role::Pawn) & blocked, !c);
            [
                pawn_table(c, blocked),
                piece_table(Role::Knight, blocked, Bitboard::EMPTY),
                piece_table(Role::Bishop, blocked, Bitboard::EMPTY),
                piece_table(Role::Rook, blocked, Bitboard::EMPTY),
                piece_table(Role::Queen, blocked, Bitboard::EMPTY),
                piece_table(Role::King, blocked, king_avoid),
            ]
        });
        let promo = ByColor::new_with(|c| {
            PROMOTIONS.map(|role| promotion_table(c, blocked, &dist[c][0], &dist[c][idx(role)]))
        });
        let targets = ByColor::new_with(|c| {
            let mut v = Vec::new();
            for sq in goal.pieces(c) & !goal.of(c, Role::King) {
                if let Some(role) = goal.board.role_at(sq) {
                    v.push((role, sq));
                }
            }
            v
        });
        let cones = ByColor::new_with(|c| Square::ALL.map(|s| pawn_cone(c, s)));
        Heuristic {
            goal: goal.clone(),
            blocked,
            dist,
            promo,
            targets,
            cones,
            around: Around::default(),
            cache: SideCache::new(),
        }
    }

    /// The goal.
    pub fn goal(&self) -> &RawPosition {
        &self.goal
    }

    /// Squares whose goal piece stands there since the start and never moves.
    pub fn blocked(&self) -> Bitboard {
        self.blocked
    }

    /// The moves of a `color` piece of `role` from `from` to `to` on the relaxed board (`None`
    /// when it cannot get there).
    pub fn distance(&self, color: Color, role: Role, from: Square, to: Square) -> Option<u32> {
        let d = self.dist[color][idx(role)].get(from, to);
        (d != FAR).then_some(u32::from(d))
    }

    /// The fewest plies from `pos` to the goal in the relaxed problem, `None` when the goal
    /// cannot be reached from `pos`.
    pub fn estimate(&self, pos: &Chess) -> Option<u32> {
        let board = pos.board();
        for sq in self.blocked {
            if board.piece_at(sq) != self.goal.board.piece_at(sq) {
                return None;
            }
        }
        let rights = pos.castles().castling_rights();
        if !(self.goal.castling & !rights).is_empty() {
            return None;
        }
        let frozen = self.frozen(board);
        let mut moves = ByColor::new_with(|_| 0u32);
        for c in Color::ALL {
            let theirs_now = (board.by_color(!c) & !board.kings()).count();
            let theirs_goal = (self.goal.pieces(!c) & !self.goal.of(!c, Role::King)).count();
            let captures = theirs_now.checked_sub(theirs_goal)? as u32;
            let mine = self.side_moves_cached(pos, c, rights, frozen)?;
            moves[c] = mine.max(captures);
        }
        Some(plies(pos.turn(), self.goal.turn, moves))
    }

    /// The pawns of `board` beyond the goal's blocked squares that can never move again on the
    /// way to the goal: each stands on a goal square of a pawn of its colour, and no pawn of its
    /// colour that may still move stands behind it where it could take its place. (Were it to
    /// move or be taken, the pawn that ends on its square would be one of those behind it,
    /// which cannot move either: by induction over the order in which they are found, none of
    /// them moves.) Nothing passes or takes them: they are walls for every piece.
    pub(super) fn frozen(&self, board: &shakmaty::Board) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for c in Color::ALL {
            let pawns = board.by_color(c) & board.pawns();
            let placed = pawns & self.goal.of(c, Role::Pawn);
            let mut frozen = Bitboard::EMPTY;
            loop {
                let mut grew = false;
                for s in placed & !frozen {
                    if (self.cones[c][usize::from(s)] & pawns & !frozen).is_empty() {
                        frozen |= s;
                        grew = true;
                    }
                }
                if !grew {
                    break;
                }
            }
            out |= frozen;
        }
        out & !self.blocked
    }

    /// [`side_moves`](Heuristic::side_moves) through the side cache.
    fn side_moves_cached(
        &self,
        pos: &Chess,
        c: Color,
        rights: Bitboard,
        frozen: Bitboard,
    ) -> Option<u32> {
        let board = pos.board();
        let mine = board.by_color(c);
        let mut h = (c as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for bb in [
            board.pawns(),
            board.knights(),
            board.bishops(),
            board.rooks(),
            board.queens(),
            board.kings(),
            rights,
        ] {
            h = (h ^ u64::from(bb & mine)).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
            h ^= h >> 33;
        }
        h = (h ^ u64::from(frozen)).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        h ^= h >> 33;
        h |= 1;
        let slot = (h >> 48) as usize & (CACHE_SLOTS - 1);
        if let Some(&(tag, v)) = self.cache.0.borrow().get(slot) {
            if tag == h {
                return (v != u32::MAX).then_some(v);
            }
        }
        let v = self.side_moves(pos, c, rights, frozen);
        if let Some(e) = self.cache.0.borrow_mut().get_mut(slot) {
            *e = (h, v.unwrap_or(u32::MAX));
        }
        v
    }

    /// The moves `c` needs at least: its king's path plus the cheapest assignment of its other
    /// pieces, plus what keeping no castling right the goal lacks costs. The paths of pieces
    /// (not pawns) go around the `frozen` pawns too.
    fn side_moves(&self, pos: &Chess, c: Color, rights: Bitboard, frozen: Bitboard) -> Option<u32> {
        let board = pos.board();
        let king_now = board.king_of(c)?;
        let king_goal = self.goal.king(c)?;
        let mut king = self.distance(c, Role::King, king_now, king_goal)?;
        let walls = frozen | self.blocked;
        if !frozen.is_empty() {
            let around = self.around.row(Role::King, walls, king_goal)[usize::from(king_now)];
            if around == FAR {
                return None;
            }
            king = king.max(u32::from(around));
        }
        let sources: Vec<(Role, Square)> = (board.by_color(c) & !board.kings())
            .into_iter()
            .filter_map(|sq| board.role_at(sq).map(|r| (r, sq)))
            .collect();
        let targets = &self.targets[c];
        if targets.len() > sources.len() {
            return None;
        }
        if targets.is_empty() {
            return Some(king + self.castling_penalty(c, rights, king_now, king_goal, None));
        }
        let mut costs = Costs::new(targets.len(), sources.len(), IMPOSSIBLE)?;
        for (i, &(tr, t)) in targets.iter().enumerate() {
            let around =
                (!frozen.is_empty() && tr != Role::Pawn).then(|| self.around.row(tr, walls, t));
            for (j, &(sr, s)) in sources.iter().enumerate() {
                let mut cost = self.cost(c, sr, s, tr, t);
                if let Some(row) = around.filter(|_| sr == tr) {
                    let d = row[usize::from(s)];
                    cost = if d == FAR {
                        IMPOSSIBLE
                    } else {
                        cost.max(i32::from(d))
                    };
                }
                costs.set(i, j, cost);
            }
        }
        let (total, assigned) = min_assignment(&costs);
        let assigned = &assigned[..targets.len()];
        if total >= IMPOSSIBLE {
            return None;
        }
        let base = king + total as u32;
        let lost = self.castling_penalty(
            c,
            rights,
            king_now,
            king_goal,
            Some(Assignment {
                costs: &mut costs,
                sources: &sources,
                assigned,
                total,
            }),
        );
        Some(base + lost)
    }

    /// The extra moves a castling right of `c` that the goal lacks costs: the king or that
    /// rook must leave its square and (when its goal square is the same) come back. With the
    /// king staying put in the cheapest assignment, either the king takes two moves more, or the
    /// rook is assigned elsewhere (the cheapest assignment without it on its own square).
    fn castling_penalty(
        &self,
        c: Color,
        rights: Bitboard,
        king_now: Square,
        king_goal: Square,
        assignment: Option<Assignment<'_>>,
    ) -> u32 {
        let to_lose = rights & !self.goal.castling & Bitboard::from_rank(RawPosition::back_rank(c));
        if to_lose.is_empty() || king_now != king_goal {
            return 0;
        }
        let Some(Assignment {
            costs,
            sources,
            assigned,
            total,
        }) = assignment
        else {
            return 2;
        };
        let mut penalty = 0;
        for rook in to_lose {
            let Some(j) = sources.iter().position(|&(_, s)| s == rook) else {
                continue;
            };
            let Some(i) = assigned.iter().position(|&a| a == j) else {
                continue;
            };
            if costs.get(i, j) != 0 {
                continue;
            }
            costs.set(i, j, IMPOSSIBLE);
            let (without, _) = min_assignment(costs);
            costs.set(i, j, 0);
            penalty = penalty.max((without - total).clamp(0, 2) as u32);
        }
        penalty
    }

    /// The moves a `c` piece of role `sr` on `s` needs to become the goal's `tr` on `t`.
    fn cost(&self, c: Color, sr: Role, s: Square, tr: Role, t: Square) -> i32 {
        let d = if sr == tr {
            self.dist[c][idx(sr)].get(s, t)
        } else if sr == Role::Pawn {
            match PROMOTIONS.iter().position(|&r| r == tr) {
                Some(k) => self.promo[c][k].get(s, t),
                None => FAR,
            }
        } else {
            FAR
        };
        if d == FAR {
            IMPOSSIBLE
        } else {
            i32::from(d)
        }
    }
}

/// The plies of a game in which white makes at least `moves.white` moves and black
/// `moves.black`, `turn` moving first, ending with `goal_turn` to move.
fn plies(turn: Color, goal_turn: Color, moves: ByColor<u32>) -> u32 {
    let first = moves[turn];
    let second = moves[!turn];
    // After n plies the side to move made ceil(n/2) moves, the other floor(n/2).
    let mut n = (2 * first).saturating_sub(1).max(2 * second);
    let odd = turn != goal_turn;
    if (n % 2 == 1) != odd {
        n += 1;
    }
    n
}

/// The index of a role in the distance tables.
fn idx(role: Role) -> usize {
    usize::from(role as u8) - 1
}

/// Squares whose goal piece can never have moved: pawns on their starting rank, then, until
/// nothing changes, pieces on their starting square whose every way out leads to such a square.
pub fn blocked_squares(goal: &RawPosition) -> Bitboard {
    let start = RawPosition::start();
    let mut blocked = (goal.of(Color::White, Role::Pawn) & Bitboard::from_rank(Rank::Second))
        | (goal.of(Color::Black, Role::Pawn) & Bitboard::from_rank(Rank::Seventh));
    loop {
        let mut grew = false;
        for sq in goal.board.occupied() & !blocked {
            let Some(piece) = goal.board.piece_at(sq) else {
                continue;
            };
            if piece.role == Role::Pawn || start.board.piece_at(sq) != Some(piece) {
                continue;
            }
            let exits = attacks::attacks(sq, piece, Bitboard::FULL);
            if !exits.is_empty() && (exits & !blocked).is_empty() {
                blocked |= sq;
                grew = true;
            }
        }
        if !grew {
            return blocked;
        }
    }
}

/// The squares the pawns `pawns` of `color` attack.
fn pawn_attacks(pawns: Bitboard, color: Color) -> Bitboard {
    pawns.into_iter().fold(Bitboard::EMPTY, |a, sq| {
        a | attacks::pawn_attacks(color, sq)
    })
}

/// Breadth-first distances of a piece of `role` around the `blocked` squares (a king also
/// around `avoid`).
pub(super) fn piece_table(role: Role, blocked: Bitboard, avoid: Bitboard) -> Table {
    let mut t = Table::far();
    for from in Square::ALL {
        t.0[usize::from(from)] = spread(role, blocked, avoid, from);
    }
    t
}

/// The moves of a `color` pawn between squares: forward only, one file per capture (captures
/// are not counted against the material here), two squares at once from its starting rank. A
/// pawn that stays on its file cannot pass a blocked square.
pub(super) fn pawn_table(color: Color, blocked: Bitboard) -> Table {
    let mut t = Table::far();
    for from in Square::ALL {
        t.0[usize::from(from)][usize::from(from)] = 0;
        let fr = relative_rank(color, from);
        if fr == 0 || fr == 7 {
            continue;
        }
        for to in Square::ALL {
            let tr = relative_rank(color, to);
            if tr <= fr || blocked.contains(to) {
                continue;
            }
            let rd = tr - fr;
            let fd = from.file().distance(to.file()) as i32;
            if fd > i32::from(rd) {
                continue;
            }
            if fd == 0 && (attacks::between(from, to) | to).intersects(blocked) {
                continue;
            }
            let double = fr == 1 && i32::from(rd) - fd >= 2;
            t.0[usize::from(from)][usize::from(to)] = rd - u8::from(double);
        }
    }
    t
}

/// The squares from which a `color` pawn can reach `sq` (not `sq` itself): behind it, at most
/// one file aside per rank, not on the first rank.
fn pawn_cone(color: Color, sq: Square) -> Bitboard {
    let to = relative_rank(color, sq);
    Square::ALL
        .into_iter()
        .filter(|&s| {
            let from = relative_rank(color, s);
            from >= 1 && from < to && s.file().distance(sq.file()) <= u32::from(to - from)
        })
        .collect()
}

/// The rank of `sq` counted from `color`'s side (0 to 7).
fn relative_rank(color: Color, sq: Square) -> u8 {
    let r = sq.rank() as u8;
    color.fold_wb(r, 7 - r)
}

/// The moves of a `color` pawn from a square to a square as the promoted piece whose
/// distances are `piece`: to a free square of the last rank, then on.
fn promotion_table(color: Color, blocked: Bitboard, pawn: &Table, piece: &Table) -> Table {
    let mut t = Table::far();
    let last = color.fold_wb(Rank::Eighth, Rank::First);
    for from in Square::ALL {
        for to in Square::ALL {
            let mut best = u16::from(FAR);
            for file in File::ALL {
                let q = Square::from_coords(file, last);
                if blocked.contains(q) {
                    continue;
                }
                let a = pawn.get(from, q);
                let b = piece.get(q, to);
                if a != FAR && b != FAR {
                    best = best.min(u16::from(a) + u16::from(b));
                }
            }
            if best < u16::from(FAR) {
                t.0[usize::from(from)][usize::from(to)] = best as u8;
            }
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{fen::Fen, CastlingMode, Move};

    fn chess(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .expect("test FEN")
            .into_position(CastlingMode::Standard)
            .expect("legal test position")
    }

    fn goal(fen: &str) -> RawPosition {
        RawPosition::from_fen(fen).expect("test FEN")
    }

    /// The true shortest distance by breadth-first search over real moves, up to `max` plies.
    fn true_distance(from: &Chess, goal: &RawPosition, max: u32) -> Option<u32> {
        let reached = |p: &Chess| {
            *p.board() == goal.board
                && p.turn() == goal.turn
                && p.castles().castling_rights() == goal.castling
        };
        let mut layer = vec![from.clone()];
        let mut seen = std::collections::HashSet::new();
        for d in 0..=max {
            if layer.iter().any(reached) {
                return Some(d);
            }
            let mut next = Vec::new();
            for p in &layer {
                for m in p.legal_moves() {
                    let q = p.clone().play(m).expect("legal move");
                    let key = Fen::from_position(&q, shakmaty::EnPassantMode::Legal).to_string();
                    if seen.insert(key) {
                        next.push(q);
                    }
                }
            }
            layer = next;
        }
        None
    }

    #[test]
    fn the_start_is_zero_plies_from_itself() {
        let h = Heuristic::new(&RawPosition::start());
        assert_eq!(h.estimate(&Chess::default()), Some(0));
    }

    #[test]
    fn pawns_on_their_starting_rank_and_walled_in_pieces_are_blocked() {
        let b = blocked_squares(&RawPosition::start());
        // All pawns, and the bishops, queens and kings behind them; rooks and knights are not
        // walled in (a knight jumps; a rook is next to a knight's square).
        assert!(b.contains(Square::E2) && b.contains(Square::D7));
        assert!(b.contains(Square::C1) && b.contains(Square::F8));
        assert!(!b.contains(Square::B1) && !b.contains(Square::A1));
        let g = goal("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        let b = blocked_squares(&g);
        assert!(!b.contains(Square::E2) && !b.contains(Square::F1));
        assert!(b.contains(Square::C1));
    }

    #[test]
    fn the_estimate_never_exceeds_the_true_distance_near_the_start() {
        let goals = [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 1",
            "r1bqkbnr/pppppppp/2n5/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 0 1",
            "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1",
            "rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        ];
        for g in goals {
            let goal = goal(g);
            let h = Heuristic::new(&goal);
            let start = Chess::default();
            let est = h.estimate(&start).expect("reachable goal");
            let truth = true_distance(&start, &goal, 3).expect("a shallow goal");
            assert!(est <= truth, "{g}: estimate {est} > true {truth}");
            // Along the way too: after each first move the estimate stays below the truth.
            for m in start.legal_moves() {
                let p = start.clone().play(m).expect("legal");
                if let (Some(e), Some(t)) = (h.estimate(&p), true_distance(&p, &goal, 2)) {
                    assert!(e <= t, "{g} after {m}: estimate {e} > true {t}");
                }
            }
        }
    }

    #[test]
    fn a_lost_right_or_a_missing_piece_makes_the_goal_unreachable() {
        let h = Heuristic::new(&RawPosition::start());
        let p = chess("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w Kkq - 0 1");
        assert_eq!(h.estimate(&p), None);
        let p = chess("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w Qkq - 0 1");
        assert_eq!(h.estimate(&p), None);
    }

    #[test]
    fn a_promotion_is_counted_as_the_pawn_path_and_the_piece_path() {
        // The white pawn on a7 becomes the knight on c8: a7-a8=N, Na8-b6, Nb6-c8.
        let goal = goal("2N1k3/8/8/8/8/8/8/4K3 b - - 0 1");
        let h = Heuristic::new(&goal);
        let p = chess("4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
        // a7-a8=N, Na8-b6, Nb6-c8: three white moves, black passes twice: 5 plies, then black to
        // move (white moved last).
        assert_eq!(h.estimate(&p), Some(5));
        let m: Move = p
            .legal_moves()
            .into_iter()
            .find(|m| m.promotion() == Some(Role::Knight))
            .expect("a promotion");
        let q = p.play(m).expect("legal");
        assert_eq!(h.estimate(&q), Some(4));
    }

    #[test]
    fn pawns_on_their_goal_squares_with_none_behind_are_frozen() {
        let goal = goal("4k3/8/8/3B4/6p1/5P2/4p3/4K3 w - - 0 1");
        let h = Heuristic::new(&goal);
        // g4 has no black pawn behind it, e2 only g4: both frozen, as is f3.
        let p = chess("4k3/8/8/8/6p1/5P2/4p1B1/4K3 w - - 0 1");
        let frozen: Bitboard = [Square::E2, Square::G4, Square::F3].into_iter().collect();
        assert_eq!(h.frozen(p.board()), frozen);
        // They shut the bishop in on g2, h1, f1 and h3: it never reaches d5.
        assert_eq!(h.estimate(&p), None);
        // With the white pawn still on f2, the bishop goes out by f3 before it.
        let p = chess("4k3/8/8/8/6p1/8/4pPB1/4K3 w - - 0 1");
        assert_eq!(
            h.frozen(p.board()),
            [Square::E2, Square::G4].into_iter().collect()
        );
        assert!(h.estimate(&p).is_some());
        // A black pawn on h5 may still take g4's place, and g4 that of e2: neither is frozen.
        let p = chess("4k3/8/8/7p/6p1/5P2/4p1B1/4K3 w - - 0 1");
        assert_eq!(h.frozen(p.board()), Bitboard::from_square(Square::F3));
    }

    #[test]
    fn the_plies_follow_the_side_to_move() {
        let m = ByColor { white: 2, black: 1 };
        assert_eq!(plies(Color::White, Color::Black, m), 3);
        assert_eq!(plies(Color::White, Color::White, m), 4);
        let m = ByColor { white: 0, black: 0 };
        assert_eq!(plies(Color::White, Color::White, m), 0);
        assert_eq!(plies(Color::White, Color::Black, m), 1);
    }
}
