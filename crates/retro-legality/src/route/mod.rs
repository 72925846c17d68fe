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
//! ([`shut_in::feasible`]). The plan is then labelled again with the pawns a step off their
//! start squares where the ranks allow ([`rows::Shape`]); where no plan nor kernel gives another
//! route, one of those pawns may step forward earlier than the plan has it
//! ([`shut_in::release_piece`]).
//!
//! The waypoints are a guide, not a proof: a leg may fail, and the game found is replayed like
//! any other before it is reported.
//!
//! - this module: the waypoints of a route, built from a kernel and its rank plan;
//! - [`mod@piece_counts`]: the pieces of each kernel type after each kernel move, promotions typed
//!   as the goal's pieces;
//! - [`shut_in`]: whether a waypoint can be reached with the pieces that pawns shut in at home,
//!   and letting such a piece out;
//! - [`estimate`]: each waypoint as a leg, the goal of a search, with its estimate.

mod estimate;
mod piece_counts;
mod shut_in;

use shakmaty::{Bitboard, ByColor, Color, File, Piece, Rank, Square};

pub use self::estimate::Leg;
use self::{
    estimate::Tables,
    piece_counts::{end_promotions, piece_counts, promotion_type, Extra},
    shut_in::{checks_home_king, feasible, release_piece},
};
use super::{
    around::Around,
    heuristic,
    kernel_move::{ByKernelPiece, KernelMove, KernelPiece, Target},
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

/// The waypoints of a goal, in order, with what every position on the way must keep.
pub struct Route {
    tables: Tables,
    around: Around,
    /// The squares of `fixed`.
    fixed_squares: Bitboard,
    waypoints: Vec<Waypoint>,
    /// The goal's pieces that never move (see [`blocked_squares`](heuristic::blocked_squares)).
    fixed: Vec<(Square, Piece)>,
    /// The goal's castling rights, which no move on the way may lose.
    rights: Bitboard,
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
    /// `extra` pieces left to later promotions (see [`piece_counts()`]); `None` when the
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
        let blocked = heuristic::blocked_squares(goal);
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
            .map(move |(i, waypoint)| Leg::new(self, waypoint, self.waypoints.get(i + 1)))
    }
}

impl Waypoint {
    /// `c`'s units at this waypoint: its pieces and pawns, the king left out.
    fn units(&self, c: Color) -> u32 {
        self.counts[c].iter().map(|&n| u32::from(n)).sum::<u32>() + self.pawns[c].len() as u32
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

/// What the tests of the route's modules share: kernels, routes and waypoints made by hand.
#[cfg(test)]
mod fixtures {
    use shakmaty::{ByColor, Chess, Color, Square};

    use super::{Capture, Route, Waypoint, START_COUNTS};
    use crate::{
        kernel::{self, Kind},
        kernel_move::KernelMove,
        position::RawPosition,
        rows::Slot,
        KernelResult, Limits,
    };

    /// The extended kernel from the starting position to `goal`.
    pub(super) fn extended_kernel(goal: &RawPosition) -> Vec<KernelMove> {
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

    /// The goal of `fen` and its route.
    pub(super) fn route(fen: &str) -> (RawPosition, Route) {
        let goal = RawPosition::from_fen(fen).expect("test FEN");
        let k = extended_kernel(&goal);
        let r = Route::new(&goal, &k, false).expect("a route");
        (goal, r)
    }

    /// A position from a FEN.
    pub(super) fn chess(fen: &str) -> Chess {
        let f: shakmaty::fen::Fen = fen.parse().expect("test FEN");
        f.into_position(shakmaty::CastlingMode::Standard)
            .expect("legal test position")
    }

    /// A slot of one square.
    pub(super) fn at(color: Color, file: u8, rank: u8) -> Slot {
        Slot {
            color,
            file,
            low: rank,
            high: rank,
        }
    }

    /// A waypoint with `black` and `white` pawns, the start's pieces but `lost` (per side, per
    /// kernel type), and a capture or a promotion.
    pub(super) fn waypoint(
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
    pub(super) fn pawns(c: Color, moved: &[u8]) -> Vec<Slot> {
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

    /// Black's pawns, those of `moved` files free to go on.
    pub(super) fn black_pawns(moved: &[u8]) -> Vec<Slot> {
        pawns(Color::Black, moved)
    }

    /// White's pawns, those of `moved` files free to go on.
    pub(super) fn white_pawns(moved: &[u8]) -> Vec<Slot> {
        pawns(Color::White, moved)
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::Color;

    use super::fixtures::route;

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
}
