//! The initial path of a proof game: the captures of an extended proof kernel turned into
//! waypoints that a search reaches one after the other.
//!
//! A kernel ([`kernel`](super::kernel)) names the captures of a game in order; its rank
//! problem, solved ([`rows::plan`]), puts every pawn on a rank at each capture. Each kernel
//! move becomes a waypoint: every pawn on its file between the rank the kernel last left it on
//! and the one it next needs (so that pawns the kernel leaves alone may make room for pieces),
//! and the pieces of each type that are left (promoted pieces typed so that the survivors are
//! the goal's extra pieces). A waypoint also names the square of its capture where the kernel
//! tells it, so that the estimate brings the victim there (a piece a pawn takes, or a pawn) or
//! the capturer (a piece that takes a pawn). After the last capture, each promotion still to
//! come is a waypoint of its own (until then such a pawn may stand anywhere on its way). Kings
//! and the other pieces' squares are left free: the search gets there any way it likes, and
//! the last leg goes to the goal itself.
//!
//! A route whose waypoint needs a piece that pawns still shut in at home (a bishop, queen or
//! rook as a victim elsewhere, or a bishop's square free for a promotion) cannot be followed
//! ([`feasible`]). The plan is then labelled again with the pawns a step off their start
//! squares where the ranks allow ([`rows::Shape`]); where no plan nor kernel gives another
//! route, one of those pawns may step forward earlier than the plan has it
//! ([`release_piece`]).
//!
//! The waypoints are a guide, not a proof: a leg may fail, and the game found is replayed like
//! any other before it is reported.

use std::cell::RefCell;

use shakmaty::{
    attacks, Bitboard, Board, ByColor, Chess, Color, File, Move, Piece, Position, Rank, Role,
    Square,
};

use super::{
    around::{Around, SHUT_IN},
    assign::{min_assignment, Costs},
    astar::Goal,
    heuristic::{pawn_table, piece_table, Table, FAR, IMPOSSIBLE},
    kernel,
    kernel_move::{ByKernelPiece, KernelMove, KernelPiece, Landing, Target},
    position::RawPosition,
    rows::{self, Slot},
};

/// The pieces of each kernel type a side starts with.
const START_COUNTS: Counts = ByKernelPiece([1, 2, 1, 1, 2]);

/// Pieces of one side per kernel type.
type Counts = ByKernelPiece<u8>;

/// A capture the estimate of a waypoint steers towards while it is still to be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Capture {
    /// A pawn takes a piece of `victim` of one of the `types` (bit per kernel type) on
    /// `square`: such a piece has to get there.
    OnSquare {
        square: Square,
        victim: Color,
        types: u8,
    },
    /// A pawn takes a pawn of `victim` on `square`: a pawn of that file has to get there.
    PawnTo { square: Square, victim: Color },
    /// A pawn takes the piece a pawn of `victim` promotes to by the same waypoint, on
    /// `square`: a piece of `victim` has to get there (the promoted one, or another of the
    /// type it promotes to, which leaves the same pieces).
    Promoted { square: Square, victim: Color },
    /// A piece of `by` takes the pawn on `square`: a piece of `by` has to get there.
    Pawn { square: Square, by: Color },
    /// A piece of `by` takes a piece of `!by` of one of the `types`: one has to meet the
    /// other.
    Meet { by: Color, types: u8 },
}

/// The position after one kernel move, as far as the kernel fixes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waypoint {
    /// Per colour, where its pawns may stand.
    pawns: ByColor<Vec<Slot>>,
    counts: ByColor<Counts>,
    capture: Option<Capture>,
    /// The square of a promotion made without a capture by this waypoint's move.
    promotes: Option<Square>,
}

impl std::fmt::Display for Waypoint {
    /// Compact, for debug logs: per colour its pawns' files and rank ranges and its pieces
    /// (queens, rooks, light and dark bishops, knights), then the capture and the promotion.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for c in Color::ALL {
            write!(f, "{}:", c.char())?;
            for s in &self.pawns[c] {
                let file = char::from(b'a' + s.file);
                if s.low == s.high {
                    write!(f, " {file}{}", s.low)?;
                } else {
                    write!(f, " {file}{}-{}", s.low, s.high)?;
                }
            }
            let [q, r, l, d, n] = self.counts[c].0;
            write!(f, " QRLDN {q}{r}{l}{d}{n}; ")?;
        }
        match self.capture {
            Some(c) => write!(f, "{c:?}")?,
            None => write!(f, "no capture")?,
        }
        if let Some(sq) = self.promotes {
            write!(f, ", promotes on {sq}")?;
        }
        Ok(())
    }
}

/// Distances on an empty board, shared by the waypoints of one goal.
struct Tables {
    /// Per colour, the moves of a pawn between squares (a file per capture).
    pawn: ByColor<Table>,
    /// Knight, bishop, rook, queen, king.
    pieces: [Table; 5],
}

impl Tables {
    fn new() -> Tables {
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

/// The waypoints of a goal, in order, with what every position on the way must keep.
pub struct Route {
    tables: Tables,
    around: Around,
    /// The squares of `fixed`.
    fixed_squares: Bitboard,
    waypoints: Vec<Waypoint>,
    /// The goal's pieces that never move (see [`blocked_squares`](super::heuristic::blocked_squares)).
    fixed: Vec<(Square, Piece)>,
    /// The goal's castling rights, which no move on the way may lose.
    rights: Bitboard,
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

impl Route {
    /// The route of the kernel `kernel` from the starting position to `goal`, on the first plan
    /// of four ([`rows::Shape`]) whose waypoints can all be reached: pawns kept near their start
    /// squares (or a step off them), and after their last kernel move staying put unless their
    /// file lines up one for one with the goal's (or going on to the goal's ranks). `None` when
    /// the kernel does not fit the ranks, its promotions cannot be typed as the goal's pieces,
    /// or no plan can be followed. With `release`, a waypoint out of reach because a piece is
    /// shut in at home may let it out by moving one of the pawns in its way earlier than the
    /// plan does (see [`release_piece`]).
    pub fn new(goal: &RawPosition, kernel: &[KernelMove], release: bool) -> Option<Route> {
        // The piece counts and whether the ranks fit do not depend on the plan's shape: a
        // kernel that fails them fails every plan.
        let (counts, extra) = piece_counts(goal, kernel)?;
        let start = RawPosition::start();
        let shapes = [(false, false), (true, false), (false, true), (true, true)];
        for (lined_up, stepped) in shapes {
            let shape = rows::Shape { lined_up, stepped };
            let plan = rows::plan(&start, goal, kernel, shape)?;
            if let Some(r) = Route::planned(goal, kernel, &plan, &counts, extra, release) {
                return Some(r);
            }
        }
        None
    }

    /// The route of `kernel` on `plan` with the piece `counts` after each kernel move and the
    /// `extra` pieces left to later promotions (see [`piece_counts`]); `None` when the
    /// promotions after the last capture cannot be typed, or a waypoint is out of reach (see
    /// [`feasible`]) and, with `release`, cannot be made reachable by [`release_piece`].
    fn planned(
        goal: &RawPosition,
        kernel: &[KernelMove],
        plan: &rows::Plan,
        counts: &[ByColor<Counts>],
        mut extra: Extra,
        release: bool,
    ) -> Option<Route> {
        let mut waypoints = Vec::with_capacity(kernel.len());
        for (k, m) in kernel.iter().enumerate() {
            let mut pawns: ByColor<Vec<Slot>> = ByColor::new_with(|_| Vec::new());
            for &slot in plan.pawns.get(k)? {
                pawns[slot.color].push(slot);
            }
            let square = plan.squares.get(k).copied().flatten();
            waypoints.push(Waypoint {
                pawns,
                counts: *counts.get(k)?,
                capture: capture(m, square, counts, k),
                promotes: quiet_promotion(m),
            });
        }
        if let Some(last) = waypoints.last() {
            let end = end_waypoints(last, goal, &mut extra)?;
            waypoints.extend(end);
        }
        for k in 0..waypoints.len() {
            let reachable = !checks_home_king(&waypoints[k], goal)
                && (feasible(&waypoints, k) || (release && release_piece(&mut waypoints, k, goal)));
            if !reachable {
                log::debug!("initial path: waypoint {} cannot be reached", k + 1);
                return None;
            }
        }
        if log::log_enabled!(log::Level::Debug) {
            for (k, w) in waypoints.iter().enumerate() {
                log::debug!("initial path: waypoint {}: {w}", k + 1);
            }
        }
        let blocked = super::heuristic::blocked_squares(goal);
        let fixed: Vec<(Square, Piece)> = blocked
            .into_iter()
            .filter_map(|sq| goal.board.piece_at(sq).map(|p| (sq, p)))
            .collect();
        Some(Route {
            tables: Tables::new(),
            around: Around::default(),
            fixed_squares: fixed.iter().map(|&(sq, _)| sq).collect(),
            waypoints,
            fixed,
            rights: goal.castling,
        })
    }

    /// Whether `other` has the same waypoints.
    pub fn same_waypoints(&self, other: &Route) -> bool {
        self.waypoints == other.waypoints
    }

    /// The number of waypoints.
    pub fn len(&self) -> usize {
        self.waypoints.len()
    }

    /// Whether there are none (a goal without captures).
    pub fn is_empty(&self) -> bool {
        self.waypoints.is_empty()
    }

    /// The waypoints as goals of the search, in order.
    pub fn legs(&self) -> impl Iterator<Item = Leg<'_>> {
        self.waypoints
            .iter()
            .enumerate()
            .map(move |(i, waypoint)| Leg {
                route: self,
                waypoint,
                next: self.waypoints.get(i + 1),
                cache: PawnCache::new(),
            })
    }
}

/// The waypoints after `last`, the last capture's: one per promotion without a capture still
/// to come, white and black in turn, each typed from `extra`.
fn end_waypoints(last: &Waypoint, goal: &RawPosition, extra: &mut Extra) -> Option<Vec<Waypoint>> {
    let all: Vec<Slot> = Color::ALL
        .into_iter()
        .flat_map(|c| last.pawns[c].iter().copied())
        .collect();
    // A pawn that has still to promote may stand anywhere on its way there: so that it can
    // make way for pieces (a bishop shut in behind it that blocks another pawn's promotion
    // square).
    let promoting = end_promotions(&all, goal);
    let widened = |s: Slot| match s.color {
        Color::White => Slot { high: 7, ..s },
        Color::Black => Slot { low: 2, ..s },
    };
    let mut now = last.clone();
    now.capture = None;
    now.promotes = None;
    for c in Color::ALL {
        for s in now.pawns[c].iter_mut() {
            if promoting.contains(s) {
                *s = widened(*s);
            }
        }
    }
    let (mut white, mut black): (Vec<Slot>, Vec<Slot>) = promoting
        .into_iter()
        .map(widened)
        .partition(|s| s.color == Color::White);
    white.reverse();
    black.reverse();
    let mut out = Vec::new();
    let mut turn = Color::White;
    while !white.is_empty() || !black.is_empty() {
        let queue = if turn == Color::White {
            &mut white
        } else {
            &mut black
        };
        turn = !turn;
        let Some(slot) = queue.pop() else {
            continue;
        };
        let t = promotion_type(extra, slot.color, slot.file, goal)?;
        let list = &mut now.pawns[slot.color];
        let i = list.iter().position(|s| *s == slot)?;
        list.remove(i);
        now.counts[slot.color][t] += 1;
        now.promotes = Some(promotion_square(slot.color, slot.file));
        out.push(now.clone());
    }
    Some(out)
}

/// The capture a kernel move asks the estimate to steer towards (see [`Capture`]);
/// `counts[k]` are the pieces after move `k`, so the victim's type is the one that drops.
fn capture(
    m: &KernelMove,
    square: Option<Square>,
    counts: &[ByColor<Counts>],
    k: usize,
) -> Option<Capture> {
    let victim = !m.side;
    let before = if k == 0 {
        START_COUNTS
    } else {
        counts.get(k - 1)?[victim]
    };
    let after = counts.get(k)?[victim];
    let types =
        KernelPiece::ALL.into_iter().fold(
            0u8,
            |t, i| {
                if after[i] < before[i] {
                    t | i.bit()
                } else {
                    t
                }
            },
        );
    match (m.pawn, m.target) {
        (Some(_), Target::PromotedPawn(..)) => {
            square.map(|square| Capture::Promoted { square, victim })
        }
        (_, Target::Nothing | Target::PromotedPawn(..)) => None,
        (Some(_), Target::Pawn(..)) => square.map(|square| Capture::PawnTo { square, victim }),
        (Some(_), _) => square.map(|square| Capture::OnSquare {
            square,
            victim,
            types,
        }),
        (None, Target::Pawn(..)) => square.map(|square| Capture::Pawn { square, by: m.side }),
        (None, _) => Some(Capture::Meet { by: m.side, types }),
    }
}

/// The square of the promotion without a capture that `m` makes, if it makes one: its own
/// pawn's, or that of the pawn it takes as the new piece.
fn quiet_promotion(m: &KernelMove) -> Option<Square> {
    match (m.target, m.pawn) {
        (Target::Nothing, Some((file, _))) => Some(promotion_square(m.side, file)),
        (Target::PromotedPawn(file, _), _) => Some(promotion_square(!m.side, file)),
        _ => None,
    }
}

/// The square on which a `c` pawn of `file` promotes.
fn promotion_square(c: Color, file: u8) -> Square {
    let rank = c.fold_wb(Rank::Eighth, Rank::First);
    Square::from_coords(File::new(u32::from(file)), rank)
}

/// Per colour, the home squares of its bishops that pawns shut in up to waypoint `k`: both
/// squares in front of such a square hold a pawn, of either side, at every waypoint up to `k`
/// (a slot of that rank alone: a pawn at home since the start, or one that came by taking the
/// one there, or was taken there), so that a bishop still at home cannot have left it by then.
fn shut_in_bishops(waypoints: &[Waypoint], k: usize) -> ByColor<Bitboard> {
    let held_in = |w: &Waypoint| -> Bitboard {
        Color::ALL
            .into_iter()
            .flat_map(|c| w.pawns[c].iter())
            .filter(|s| s.low == s.high && (2..=7).contains(&s.low))
            .map(|s| {
                let rank = Rank::new(u32::from(s.low - 1));
                Square::from_coords(File::new(u32::from(s.file)), rank)
            })
            .collect()
    };
    let held = waypoints
        .iter()
        .take(k + 1)
        .fold(Bitboard::FULL, |b, w| b & held_in(w));
    ByColor::new_with(|c| {
        let home = c.fold_wb(Rank::First, Rank::Eighth);
        let front = c.fold_wb(Rank::Second, Rank::Seventh);
        [(File::C, File::B, File::D), (File::F, File::E, File::G)]
            .into_iter()
            .filter(|&(_, l, r)| {
                held.contains(Square::from_coords(l, front))
                    && held.contains(Square::from_coords(r, front))
            })
            .map(|(f, _, _)| Square::from_coords(f, home))
            .collect()
    })
}

/// Whether waypoint `w` has a pawn give check, for good, to a king that never moves (it keeps
/// a castling right in the `goal`): an enemy pawn fixed on the square beside the king's file
/// in front of it (d7 or f7 against e8), or promoting there without a capture (which passes
/// that square). Such a check can only be answered by taking the pawn, a capture the kernel
/// does not have.
fn checks_home_king(w: &Waypoint, goal: &RawPosition) -> bool {
    Color::ALL.into_iter().any(|king| {
        if (goal.castling & Bitboard::from(king.backrank())).is_empty() {
            return false;
        }
        let rank = king.fold_wb(2u8, 7u8);
        let fixed = w.pawns[!king]
            .iter()
            .any(|s| (s.file == 3 || s.file == 5) && s.low == rank && s.high == rank);
        let promotes = w.promotes.is_some_and(|p| {
            p.rank() == king.backrank() && (p.file() == File::D || p.file() == File::F)
        });
        fixed || promotes
    })
}

/// Whether a `c` piece of kernel type `t` (a queen or rook; others always) may have left its
/// back rank by waypoint `k`: at some waypoint up to `k`, a file lets it out, or `c` has
/// promoted (a promoted piece starts outside). A rook leaves by a file whose pawns, of both
/// sides, may all stand two ranks or more ahead of `c`'s back rank, a queen past a pawn of its
/// own beside or in front of its square that has left its start square (or is gone).
fn can_leave(waypoints: &[Waypoint], k: usize, c: Color, t: KernelPiece) -> bool {
    let start = c.fold_wb(2u8, 7u8);
    let open = |w: &Waypoint| match t {
        KernelPiece::Rook => (0..8u8).any(|f| {
            Color::ALL.into_iter().all(|d| {
                w.pawns[d]
                    .iter()
                    .filter(|s| s.file == f)
                    .all(|s| c.fold_wb(s.high >= 4, s.low <= 5))
            })
        }),
        KernelPiece::Queen => (2..5u8).any(|f| {
            !w.pawns[c]
                .iter()
                .any(|s| s.file == f && s.low == start && s.high == start)
        }),
        _ => true,
    };
    let mut had = START_COUNTS;
    for w in waypoints.iter().take(k + 1) {
        if open(w) || w.counts[c].iter().zip(had.iter()).any(|(&n, &h)| n > h) {
            return true;
        }
        had = w.counts[c];
    }
    false
}

/// Whether waypoint `k` of `waypoints` can be reached as far as the pieces shut in at home
/// tell: a capture by a pawn needs a victim that can get to its square, and a promotion
/// without a capture a free promotion square. A bishop counts as still at home when the
/// pawns shut it in and no waypoint before `k` took a bishop of its colour (its side's
/// bishops of that colour never became fewer); a queen or rook when no file let it out by
/// then ([`can_leave`]).
fn feasible(waypoints: &[Waypoint], k: usize) -> bool {
    let Some(w) = waypoints.get(k) else {
        return true;
    };
    let before = |c: Color| match k.checked_sub(1).and_then(|j| waypoints.get(j)) {
        Some(v) => v.counts[c],
        None => START_COUNTS,
    };
    let shut = shut_in_bishops(waypoints, k);
    // The type of the bishop at home on `sq`, if it is shut in there and was never taken: no
    // earlier waypoint has fewer pieces of its type than the one before (a promotion adds
    // another, which does not let it out).
    let at_home = |c: Color, sq: Square| {
        let t = KernelPiece::bishop_on(sq);
        let mut had = START_COUNTS[t];
        let kept = waypoints.get(..k).is_some_and(|earlier| {
            earlier.iter().all(|v| {
                let now = v.counts[c][t];
                let kept = now >= had;
                had = now;
                kept
            })
        });
        (shut[c].contains(sq) && kept).then_some(t)
    };
    if let Some(Capture::OnSquare {
        square,
        victim,
        types,
    }) = w.capture
    {
        let have = before(victim);
        let stuck: u8 = shut[victim]
            .into_iter()
            .filter(|&sq| sq != square)
            .filter_map(|sq| at_home(victim, sq))
            .fold(0, |m, t| m | t.bit());
        // A queen or rook that cannot have left its back rank is taken there, if at all.
        let types = if square.rank() == victim.backrank() {
            types
        } else {
            [KernelPiece::Queen, KernelPiece::Rook]
                .into_iter()
                .filter(|&t| !can_leave(waypoints, k, victim, t))
                .fold(types, |types, t| types & !t.bit())
        };
        let possible = KernelPiece::ALL.into_iter().any(|t| {
            types & t.bit() != 0 && have[t] > 0 && !(have[t] == 1 && stuck & t.bit() != 0)
        });
        if !possible {
            return false;
        }
    }
    if let Some(p) = w.promotes {
        if Color::ALL.into_iter().any(|c| at_home(c, p).is_some()) {
            return false;
        }
    }
    true
}

/// Lets a piece that shuts waypoint `k` off ([`feasible`]) out: one of the pawns that shut it
/// in at home steps forward by waypoint `k` instead of later. Such a pawn is one the plan keeps
/// at home only until some later waypoint, or the `goal`, has it go forward anyway; it may not
/// be taken or take anything from home before then, and no pawn may be fixed on the squares in
/// front of it. The pawns tried, in order: where the victim of the waypoint's capture is a queen
/// or rook that cannot have left its back rank ([`can_leave`]), those that let it out (on the
/// queen's file and beside it a step forward; on any file two, the rooks' own first); then
/// those beside a bishop shut in at home (a step). The first that makes waypoint `k` feasible
/// is moved, its slots widened up to where the plan lets it go. `false` when none does.
fn release_piece(waypoints: &mut [Waypoint], k: usize, goal: &RawPosition) -> bool {
    let Some(w) = waypoints.get(k) else {
        return false;
    };
    // (side, file, steps forward)
    let mut tries: Vec<(Color, u8, u8)> = Vec::new();
    if let Some(Capture::OnSquare { victim, types, .. }) = w.capture {
        if types & KernelPiece::Queen.bit() != 0
            && !can_leave(waypoints, k, victim, KernelPiece::Queen)
        {
            tries.extend([(victim, 3, 1), (victim, 2, 1), (victim, 4, 1)]);
        }
        if types & KernelPiece::Rook.bit() != 0
            && !can_leave(waypoints, k, victim, KernelPiece::Rook)
        {
            tries.extend([0, 7, 1, 6, 2, 5, 3, 4].map(|f| (victim, f, 2)));
        }
    }
    let shut = shut_in_bishops(waypoints, k);
    for c in Color::ALL {
        for bishop in shut[c] {
            let f = bishop.file() as u8;
            tries.extend([(c, f - 1, 1), (c, f + 1, 1)]);
        }
    }
    for (c, file, steps) in tries {
        let Some(stay) = kept_home(waypoints, k, c, file, steps, goal) else {
            continue;
        };
        let before: Vec<Slot> = stay
            .clone()
            .filter_map(|i| home_slot(waypoints.get(i)?, c, file).copied())
            .collect();
        // No further than the first slot that lets it go forward reaches: pawns never go
        // back.
        let reach = waypoints
            .get(stay.end)
            .and_then(|w| home_slot(w, c, file))
            .map_or(8, |s| c.fold_wb(s.high, 9 - s.low));
        let step = c.fold_wb((2 + steps).min(reach), (7 - steps).max(9 - reach));
        for i in stay.clone() {
            if let Some(s) = waypoints.get_mut(i).and_then(|w| home_slot_mut(w, c, file)) {
                s.low = s.low.min(step);
                s.high = s.high.max(step);
            }
        }
        if feasible(waypoints, k) {
            log::debug!(
                "initial path: the {} pawn of file {} steps forward by waypoint {} to let a piece out",
                c,
                char::from(b'a' + file),
                k + 1
            );
            return true;
        }
        for (i, old) in stay.zip(before) {
            if let Some(s) = waypoints.get_mut(i).and_then(|w| home_slot_mut(w, c, file)) {
                *s = old;
            }
        }
    }
    false
}

/// The waypoints from `k` on where `c`'s pawn of `file` is kept at home though a later
/// waypoint, or the `goal` (after the last waypoint, where no captures are left), lets it go
/// forward; `None` when it is not at home at `k`, leaves its file or is taken while at home,
/// stands at home in the goal, or some pawn is fixed on one of the `steps` squares in front of
/// it meanwhile.
fn kept_home(
    waypoints: &[Waypoint],
    k: usize,
    c: Color,
    file: u8,
    steps: u8,
    goal: &RawPosition,
) -> Option<std::ops::Range<usize>> {
    // The ranks in front of it, up to `steps` ahead.
    let ahead = |rank: u8| match c {
        Color::White => rank > 2 && rank <= 2 + steps,
        Color::Black => rank < 7 && rank + steps >= 7,
    };
    for (i, w) in waypoints.iter().enumerate().skip(k) {
        let s = home_slot(w, c, file)?;
        if s.high != s.low {
            return (i > k).then_some(k..i);
        }
        let blocked = Color::ALL.into_iter().any(|d| {
            w.pawns[d]
                .iter()
                .any(|o| o.file == file && o.low == o.high && ahead(o.low))
        });
        if blocked {
            return None;
        }
    }
    let home = Square::from_coords(
        File::new(u32::from(file)),
        Rank::new(u32::from(c.fold_wb(1u8, 6u8))),
    );
    (k < waypoints.len() && goal.board.piece_at(home) != Some(c.pawn()))
        .then_some(k..waypoints.len())
}

/// `c`'s pawn of `file` that may still stand at home in `w`.
fn home_slot(w: &Waypoint, c: Color, file: u8) -> Option<&Slot> {
    let home = c.fold_wb(2u8, 7u8);
    w.pawns[c]
        .iter()
        .find(|s| s.file == file && (s.low..=s.high).contains(&home))
}

/// The same, to change.
fn home_slot_mut(w: &mut Waypoint, c: Color, file: u8) -> Option<&mut Slot> {
    let home = c.fold_wb(2u8, 7u8);
    w.pawns[c]
        .iter_mut()
        .find(|s| s.file == file && (s.low..=s.high).contains(&home))
}

/// A promotion of the kernel: its side, its file, and whether it is taken later.
struct Promotion {
    side: Color,
    file: u8,
    taken: bool,
}

/// The goal's pieces per side and kernel type that the kernel leaves to promotions after the
/// last capture.
type Extra = ByColor<ByKernelPiece<i16>>;

/// The pieces of each side and kernel type after each kernel move, and the goal's pieces left
/// to later promotions. Promoted pieces that are taken later count as queens; those that last
/// are typed as the goal's pieces beyond the original ones left (bishops by the colour of their
/// promotion square). `None` when they cannot be.
fn piece_counts(
    goal: &RawPosition,
    kernel: &[KernelMove],
) -> Option<(Vec<ByColor<Counts>>, Extra)> {
    // The promotions in order, and per move which one it makes and which it takes.
    let mut promotions: Vec<Promotion> = Vec::new();
    let mut made: Vec<Option<usize>> = Vec::with_capacity(kernel.len());
    let mut taken: Vec<Option<usize>> = Vec::with_capacity(kernel.len());
    for m in kernel {
        let mut took = None;
        if let Target::Promoted(p) = m.target {
            let i = promotions
                .iter()
                .position(|q| q.side == !m.side && q.file == p && !q.taken)?;
            promotions[i].taken = true;
            took = Some(i);
        }
        let file = match (m.target, m.landing, m.pawn) {
            (_, Some(Landing::Promotes(g)), _) => Some(g),
            (Target::Nothing, _, Some((f, _))) => Some(f),
            _ => None,
        };
        made.push(file.map(|file| {
            promotions.push(Promotion {
                side: m.side,
                file,
                taken: false,
            });
            promotions.len() - 1
        }));
        taken.push(took);
    }
    // The originals taken, and so the goal's extra pieces per type.
    let mut extra = ByColor::new_with(|c| {
        let have = goal_counts(&goal.board, c);
        have.map(i16::from)
    });
    for m in kernel {
        if let Target::Piece(t) = m.target {
            extra[!m.side][t] += 1;
        }
    }
    for c in Color::ALL {
        for (e, &s) in extra[c].iter_mut().zip(START_COUNTS.iter()) {
            *e -= i16::from(s);
        }
    }
    let mut types: Vec<KernelPiece> = vec![KernelPiece::Queen; promotions.len()];
    for (t, p) in types.iter_mut().zip(&promotions) {
        if !p.taken {
            *t = promotion_type(&mut extra, p.side, p.file, goal)?;
        }
    }
    // The walk.
    let mut counts = ByColor::new_with(|_| START_COUNTS);
    let mut out = Vec::with_capacity(kernel.len());
    for (k, m) in kernel.iter().enumerate() {
        if let Target::Piece(t) = m.target {
            let n = &mut counts[!m.side][t];
            *n = n.checked_sub(1)?;
        }
        if let Some(i) = taken[k] {
            let n = &mut counts[!m.side][types[i]];
            *n = n.checked_sub(1)?;
        }
        if let Some(i) = made[k] {
            counts[m.side][types[i]] += 1;
        }
        out.push(counts);
    }
    Some((out, extra))
}

/// The promotion type for a pawn of `side` promoting on `file`, taken from `extra`: a bishop of
/// the square's colour where one is wanted, else a queen, rook or knight. No bishop where it
/// would be shut in for good (see [`kernel::traps_bishop`]) unless `goal` has it there.
fn promotion_type(
    extra: &mut Extra,
    side: Color,
    file: u8,
    goal: &RawPosition,
) -> Option<KernelPiece> {
    let light = kernel::promotes_on_light(side, usize::from(file));
    let bishop = if light {
        KernelPiece::LightBishop
    } else {
        KernelPiece::DarkBishop
    };
    let square = promotion_square(side, file);
    let trapped = kernel::traps_bishop(goal, side, usize::from(file))
        && goal.board.piece_at(square)
            != Some(Piece {
                color: side,
                role: Role::Bishop,
            });
    let t = [
        bishop,
        KernelPiece::Queen,
        KernelPiece::Rook,
        KernelPiece::Knight,
    ]
    .into_iter()
    .filter(|&t| t != bishop || !trapped)
    .find(|&t| extra[side][t] > 0)?;
    extra[side][t] -= 1;
    Some(t)
}

/// The pawns of `slots` that promote after the last capture, one file at a time: where a file
/// holds more pawns than the goal's, black ones at the bottom and white ones at the top go (the
/// first way of lining the rest up with the goal's pawns, [`rows::line_ups`]).
fn end_promotions(slots: &[Slot], goal: &RawPosition) -> Vec<Slot> {
    let goal_cols = rows::pawns(goal);
    let mut out = Vec::new();
    for (f, want) in (0..8u8).zip(&goal_cols) {
        let mut have: Vec<Slot> = slots.iter().copied().filter(|s| s.file == f).collect();
        // Bottom up, by the rank each pawn stands on now.
        have.sort_by_key(|s| s.color.fold_wb(s.low, s.high));
        if want.len() >= have.len() {
            continue;
        }
        let white: Vec<bool> = have.iter().map(|s| s.color == Color::White).collect();
        let shift = rows::line_ups(have.len(), move |i| white[i], want).next();
        if let Some(s) = shift {
            out.extend_from_slice(&have[..s]);
            out.extend_from_slice(&have[s + want.len()..]);
        }
    }
    out
}

/// Every kernel type (queens, rooks, light and dark bishops, knights): any piece but a king.
const ANY_TYPE: u8 = 0b1_1111;

/// `c`'s pieces on `board` per kernel type.
fn goal_counts(board: &Board, c: Color) -> Counts {
    let mut n = Counts::default();
    for sq in board.by_color(c) {
        if let Some(t) = board.role_at(sq).and_then(|r| KernelPiece::of(r, sq)) {
            n[t] += 1;
        }
    }
    n
}

impl Leg<'_> {
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

impl Waypoint {
    /// `c`'s units at this waypoint: its pieces and pawns, the king left out.
    fn units(&self, c: Color) -> u32 {
        self.counts[c].iter().map(|&n| u32::from(n)).sum::<u32>() + self.pawns[c].len() as u32
    }
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
    use super::*;
    use crate::{
        astar::{self, Outcome, Params},
        kernel::{self, Kind},
        KernelResult, Limits,
    };

    fn extended_kernel(goal: &RawPosition) -> Vec<KernelMove> {
        match kernel::search(
            &RawPosition::start(),
            goal,
            Kind::Extended,
            &mut Limits::default().counter(),
        ) {
            Ok(KernelResult::Found(k)) => k,
            other => panic!("no kernel: {other:?}"),
        }
    }

    fn route(fen: &str) -> (RawPosition, Route) {
        let goal = RawPosition::from_fen(fen).expect("test FEN");
        let k = extended_kernel(&goal);
        let r = Route::new(&goal, &k, false).expect("a route");
        (goal, r)
    }

    #[test]
    fn each_capture_is_a_waypoint_with_the_pawns_on_squares() {
        // White's e pawn took black's d pawn (on d5 at the latest) and a white piece took
        // black's f pawn: two captures, two waypoints.
        let (_, r) = route("rnbqkbnr/ppp1p1pp/8/3P4/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(r.len(), 2);
        let w = &r.waypoints[1];
        assert!(
            w.pawns[Color::White]
                .iter()
                .any(|s| s.file == 3 && (s.low..=s.high).contains(&5)),
            "{w:?}"
        );
        assert_eq!(w.pawns[Color::White].len(), 8);
        assert_eq!(w.pawns[Color::Black].len(), 6);
    }

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

    /// A slot of one square.
    fn chess(fen: &str) -> Chess {
        let f: shakmaty::fen::Fen = fen.parse().expect("test FEN");
        f.into_position(shakmaty::CastlingMode::Standard)
            .expect("legal test position")
    }

    fn at(color: Color, file: u8, rank: u8) -> Slot {
        Slot {
            color,
            file,
            low: rank,
            high: rank,
        }
    }

    /// A waypoint with `black` and `white` pawns, the start's pieces but `lost` (per side, per
    /// kernel type), and a capture or a promotion.
    fn waypoint(
        black: Vec<Slot>,
        white: Vec<Slot>,
        capture: Option<Capture>,
        promotes: Option<Square>,
    ) -> Waypoint {
        Waypoint {
            pawns: ByColor { black, white },
            counts: ByColor::new_with(|_| START_COUNTS),
            capture,
            promotes,
        }
    }

    /// `c`'s pawns from their start squares, those of `moved` files free to go on to rank 7
    /// (white) or 2 (black), the others unmoved.
    fn pawns(c: Color, moved: &[u8]) -> Vec<Slot> {
        let (start, far) = c.fold_wb((2, 7), (7, 2));
        (0..8)
            .map(|f| {
                let to = if moved.contains(&f) { far } else { start };
                Slot {
                    low: start.min(to),
                    high: start.max(to),
                    ..at(c, f, start)
                }
            })
            .collect()
    }

    fn black_pawns(moved: &[u8]) -> Vec<Slot> {
        pawns(Color::Black, moved)
    }

    fn white_pawns(moved: &[u8]) -> Vec<Slot> {
        pawns(Color::White, moved)
    }

    #[test]
    fn a_bishop_shut_in_at_home_cannot_be_taken_elsewhere() {
        // A white pawn takes black's light bishop on e4: c8's bishop, behind b7 and d7.
        let capture = Some(Capture::OnSquare {
            square: Square::E4,
            victim: Color::Black,
            types: KernelPiece::LightBishop.bit(),
        });
        let shut = waypoint(black_pawns(&[]), white_pawns(&[3, 4]), capture, None);
        assert_eq!(
            shut_in_bishops(std::slice::from_ref(&shut), 0)[Color::Black].count(),
            2
        );
        assert!(!feasible(&[shut], 0));
        // With the d pawn free to move it can come out.
        let open = waypoint(black_pawns(&[3]), white_pawns(&[3, 4]), capture, None);
        assert!(feasible(&[open], 0));
        // A knight may be taken instead.
        let either = Some(Capture::OnSquare {
            square: Square::E4,
            victim: Color::Black,
            types: KernelPiece::LightBishop.bit() | KernelPiece::Knight.bit(),
        });
        let knight = waypoint(black_pawns(&[]), white_pawns(&[3, 4]), either, None);
        assert!(feasible(&[knight], 0));
    }

    #[test]
    fn no_bishop_is_promoted_where_it_is_shut_in_for_good() {
        // Black's b7 pawn never moved: a white bishop promoted on a8 never gets out, one on c8
        // does by d7.
        let goal = RawPosition::from_fen("4k3/1p6/8/8/8/8/8/4K3 w - - 0 1").expect("goal");
        let mut extra: Extra = ByColor::new_with(|_| ByKernelPiece::default());
        extra.white[KernelPiece::LightBishop] = 1;
        extra.white[KernelPiece::Knight] = 1;
        assert_eq!(
            promotion_type(&mut extra, Color::White, 0, &goal),
            Some(KernelPiece::Knight)
        );
        assert_eq!(
            promotion_type(&mut extra, Color::White, 2, &goal),
            Some(KernelPiece::LightBishop)
        );
        // Only the bishop wanted: a8 cannot give it.
        let mut extra: Extra = ByColor::new_with(|_| ByKernelPiece::default());
        extra.white[KernelPiece::LightBishop] = 1;
        assert_eq!(promotion_type(&mut extra, Color::White, 0, &goal), None);
        // Unless the goal has that bishop on a8.
        let goal = RawPosition::from_fen("B3k3/1p6/8/8/8/8/8/4K3 w - - 0 1").expect("goal");
        assert_eq!(
            promotion_type(&mut extra, Color::White, 0, &goal),
            Some(KernelPiece::LightBishop)
        );
    }

    #[test]
    fn no_promotion_lands_on_a_bishop_shut_in_at_home() {
        // Black promotes on c1 while b2 and d2 have not moved: c1's bishop is still there.
        let black = black_pawns(&[2]);
        let shut = waypoint(black.clone(), white_pawns(&[]), None, Some(Square::C1));
        assert!(!feasible(&[shut], 0));
        // Unless the bishop was taken (at home, by a knight) at an earlier waypoint.
        let mut taken = waypoint(black.clone(), white_pawns(&[]), None, None);
        taken.counts[Color::White][KernelPiece::DarkBishop] = 0;
        let then = waypoint(black.clone(), white_pawns(&[]), None, Some(Square::C1));
        assert!(feasible(&[taken, then], 1));
        // A second dark bishop (promoted) does not let the first out.
        let mut promoted = waypoint(black.clone(), white_pawns(&[]), None, None);
        promoted.counts[Color::White][KernelPiece::DarkBishop] = 2;
        let then = waypoint(black.clone(), white_pawns(&[]), None, Some(Square::C1));
        assert!(!feasible(&[promoted, then], 1));
        // Or b2 may have moved.
        let open = waypoint(black, white_pawns(&[1]), None, Some(Square::C1));
        assert!(feasible(&[open], 0));
    }

    #[test]
    fn a_pawn_that_moves_later_steps_forward_earlier_to_let_a_bishop_out() {
        // A white pawn takes black's light bishop on e4 while b7 and d7 are at home; black's
        // d pawn goes forward only at the second waypoint.
        let capture = Some(Capture::OnSquare {
            square: Square::E4,
            victim: Color::Black,
            types: KernelPiece::LightBishop.bit(),
        });
        let first = waypoint(black_pawns(&[]), white_pawns(&[3, 4]), capture, None);
        let later = waypoint(black_pawns(&[3]), white_pawns(&[3, 4]), None, None);
        let start = RawPosition::start();
        let mut route = vec![first.clone(), later.clone()];
        assert!(!feasible(&route, 0));
        assert!(release_piece(&mut route, 0, &start));
        assert!(feasible(&route, 0));
        let d = route[0].pawns[Color::Black].iter().find(|s| s.file == 3);
        assert_eq!(d.map(|s| (s.low, s.high)), Some((6, 7)), "{:?}", route[0]);
        assert_eq!(route[1], later);
        // Not a pawn that stays at home to the end.
        let mut stays = vec![first.clone(), first.clone()];
        assert!(!release_piece(&mut stays, 0, &start));
        assert_eq!(stays, vec![first.clone(), first.clone()]);
        // Unless the goal has it forward.
        let d6 = "rnbqkbnr/ppp1pppp/3p4/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let d6 = RawPosition::from_fen(d6).expect("test FEN");
        assert!(release_piece(&mut stays, 0, &d6));
        assert!(stays.iter().all(|w| w.pawns[Color::Black]
            .iter()
            .any(|s| (s.file, s.low, s.high) == (3, 6, 7))));
        // Nor one taken at home before it would go forward.
        let mut gone = black_pawns(&[]);
        gone.retain(|s| s.file != 3);
        let taken = waypoint(gone, white_pawns(&[3, 4]), None, None);
        let mut route = vec![first.clone(), taken, later.clone()];
        assert!(!release_piece(&mut route, 0, &start));
        // Nor one with a pawn fixed in front of it.
        let mut white = white_pawns(&[4]);
        white.retain(|s| s.file != 3);
        white.push(at(Color::White, 3, 6));
        let blocked = waypoint(black_pawns(&[]), white, capture, None);
        let mut route = vec![blocked, later];
        assert!(!release_piece(&mut route, 0, &start));
    }

    #[test]
    fn a_rook_or_queen_behind_its_pawns_at_home_is_taken_there_or_not_at_all() {
        let rook = |square| {
            Some(Capture::OnSquare {
                square,
                victim: Color::Black,
                types: KernelPiece::Rook.bit(),
            })
        };
        let white = || white_pawns(&[4, 5]);
        let home = waypoint(black_pawns(&[]), white(), rook(Square::E3), None);
        assert!(!feasible(std::slice::from_ref(&home), 0));
        // A pawn one step forward does not let a rook out; one that goes on does.
        let mut step = black_pawns(&[]);
        step[0].low = 6;
        let one = waypoint(step.clone(), white(), rook(Square::E3), None);
        assert!(!feasible(&[one], 0));
        let open = waypoint(black_pawns(&[0]), white(), rook(Square::E3), None);
        assert!(feasible(&[open], 0));
        // On its back rank it may be taken.
        let there = waypoint(black_pawns(&[]), white(), rook(Square::A8), None);
        assert!(feasible(&[there], 0));
        // A queen gets out past a pawn beside it that has stepped forward.
        let queen = Some(Capture::OnSquare {
            square: Square::E3,
            victim: Color::Black,
            types: KernelPiece::Queen.bit(),
        });
        assert!(!feasible(
            &[waypoint(black_pawns(&[]), white(), queen, None)],
            0
        ));
        step[0].low = 7;
        step[4].low = 6;
        assert!(feasible(&[waypoint(step, white(), queen, None)], 0));
        // The h pawn, which goes forward later anyway, goes two steps by the capture.
        let later = waypoint(black_pawns(&[7]), white(), None, None);
        let mut route = vec![home, later.clone()];
        assert!(release_piece(&mut route, 0, &RawPosition::start()));
        let h = route[0].pawns[Color::Black].iter().find(|s| s.file == 7);
        assert_eq!(h.map(|s| (s.low, s.high)), Some((5, 7)), "{}", route[0]);
        assert!(feasible(&route, 0));
        assert_eq!(route[1], later);
    }

    #[test]
    fn a_pawn_taken_at_home_that_shuts_a_bishop_in_is_taken_a_step_forward() {
        // cpr10k 8799: white's a pawn first takes black's dark bishop on b4 (wPa0xDBb2), and
        // white's f pawn later takes black's e pawn (wPf0xPe1). Black's g pawn never moves, so
        // the bishop leaves f8 by e7 only; the plan that keeps black's pawns as high as it can
        // has the e pawn taken at home on e7, shutting the bishop in to the end.
        let fen = "k2K4/2Rp1Bp1/3PN1Q1/q4bp1/R3PBB1/1B1RrR2/1qnr1nN1/1N1b3q b - - 0 1";
        let (goal, r) = route(fen);
        let k = extended_kernel(&goal);
        let e_pawn = |slots: &[Slot]| {
            slots
                .iter()
                .find(|s| s.color == Color::Black && s.file == 4)
                .map(|s| (s.low, s.high))
        };
        let high =
            rows::plan(&RawPosition::start(), &goal, &k, rows::Shape::default()).expect("a plan");
        assert_eq!(e_pawn(&high.pawns[0]), Some((7, 7)));
        // The stepped plan has it taken on e6, free to step forward before the first capture.
        assert_eq!(
            r.waypoints[0].capture.map(|c| matches!(
                c,
                Capture::OnSquare {
                    square: Square::B4,
                    ..
                }
            )),
            Some(true)
        );
        assert_eq!(e_pawn(&r.waypoints[0].pawns[Color::Black]), Some((6, 7)));
        assert!(feasible(&r.waypoints, 0));
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
