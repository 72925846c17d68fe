//! Extended proof kernels: whether a kernel's captures can happen on real ranks.
//!
//! A kernel fixes the order of the captures and, for each pawn, the files it stands on, but
//! no ranks. Here every pawn gets a rank variable at each moment its column changes, with
//! the constraints of real games: a pawn starts on its rank of the initial position and ends
//! on its rank of the goal (or promotes), moves only forward, one rank per capture; pawns of
//! one file stand on distinct ranks in the order of the column; a pawn that takes a pawn lands
//! on its square (or, en passant, behind it from the fifth rank); a pawn that takes an original
//! bishop lands on a square of the bishop's colour. Arc consistency prunes the domains; an
//! empty domain proves the kernel impossible on the board. The constraints are necessary
//! conditions only, so a kernel that passes may still be impossible, never the other way
//! round.

use shakmaty::{Bitboard, Color, Square};

use super::{
    kernel_move::{KernelMove, KernelPiece, Landing, Target},
    position::RawPosition,
};

/// A set of ranks (bit `r` for rank `r`, 1 to 8).
type Domain = u16;

/// The ranks a pawn may stand on.
const PAWN_RANKS: Domain = 0b1111_1100;

/// One constraint between rank variables.
#[derive(Clone, Copy, Debug)]
enum Constraint {
    /// A white pawn moves up: `a <= b`.
    Up(usize, usize),
    /// A black pawn moves down: `a >= b`.
    Down(usize, usize),
    /// Two pawns of one file, the first below: `a < b`.
    Below(usize, usize),
    /// A capture by a pawn of colour `dir` (+1 white, -1 black) from rank `pre` to `post`,
    /// taking a pawn on rank `victim`: `post = pre + dir` and the victim stood on `post`, or en
    /// passant on `pre` from the capturer's fifth rank.
    TakesPawn {
        pre: usize,
        post: usize,
        victim: usize,
        color: Color,
    },
    /// A capture by a pawn, not of a pawn: `post = pre + dir`.
    Step {
        pre: usize,
        post: usize,
        color: Color,
    },
}

impl Constraint {
    fn vars(self) -> ([usize; 3], usize) {
        match self {
            Constraint::Up(a, b) | Constraint::Down(a, b) | Constraint::Below(a, b) => {
                ([a, b, 0], 2)
            }
            Constraint::Step { pre, post, .. } => ([pre, post, 0], 2),
            Constraint::TakesPawn {
                pre, post, victim, ..
            } => ([pre, post, victim], 3),
        }
    }

    /// Whether the values (in the order of `vars`) satisfy the constraint.
    fn holds(self, v: [u8; 3]) -> bool {
        match self {
            Constraint::Up(..) => v[0] <= v[1],
            Constraint::Down(..) => v[0] >= v[1],
            Constraint::Below(..) => v[0] < v[1],
            Constraint::Step { color, .. } => forward(v[0], color) == Some(v[1]),
            Constraint::TakesPawn { color, .. } => {
                let fifth = color.fold_wb(5, 4);
                forward(v[0], color) == Some(v[1])
                    && (v[2] == v[1] || (v[0] == fifth && v[2] == v[0]))
            }
        }
    }
}

/// The rank a pawn of `color` reaches from `r` by one step forward.
fn forward(r: u8, color: Color) -> Option<u8> {
    match color {
        Color::White => Some(r + 1),
        Color::Black => r.checked_sub(1),
    }
}

/// A constraint problem over rank variables.
#[derive(Clone, Default)]
struct Problem {
    domains: Vec<Domain>,
    constraints: Vec<Constraint>,
}

impl Problem {
    fn var(&mut self, d: Domain) -> usize {
        self.domains.push(d);
        self.domains.len() - 1
    }

    /// Arc consistency: removes values without support until nothing changes; `false` when a
    /// domain becomes empty (the problem has no solution).
    fn consistent(&mut self) -> bool {
        if self.domains.contains(&0) {
            return false;
        }
        let mut watch: Vec<Vec<usize>> = vec![Vec::new(); self.domains.len()];
        for (k, c) in self.constraints.iter().enumerate() {
            let (vs, n) = c.vars();
            for &v in &vs[..n] {
                watch[v].push(k);
            }
        }
        let mut queued = vec![true; self.constraints.len()];
        let mut queue: Vec<usize> = (0..self.constraints.len()).collect();
        while let Some(k) = queue.pop() {
            queued[k] = false;
            let c = self.constraints[k];
            let (vs, n) = c.vars();
            for pos in 0..n {
                let kept = self.supported(c, &vs[..n], pos);
                if kept != self.domains[vs[pos]] {
                    if kept == 0 {
                        return false;
                    }
                    self.domains[vs[pos]] = kept;
                    for &other in &watch[vs[pos]] {
                        if !queued[other] {
                            queued[other] = true;
                            queue.push(other);
                        }
                    }
                }
            }
        }
        true
    }

    /// The values of variable `vs[pos]` with a support in the other variables' domains.
    fn supported(&self, c: Constraint, vs: &[usize], pos: usize) -> Domain {
        // The other one or two variables; a missing second one has the single value 0.
        let (o1, o2) = match (vs.len(), pos) {
            (2, 0) => (1, None),
            (2, _) => (0, None),
            (_, 0) => (1, Some(2)),
            (_, 1) => (0, Some(2)),
            _ => (0, Some(1)),
        };
        let d1 = self.domains[vs[o1]];
        let d2 = o2.map_or(1, |i| self.domains[vs[i]]);
        let mut kept = 0;
        for r in ranks(self.domains[vs[pos]]) {
            let mut vals = [0u8; 3];
            vals[pos] = r;
            let found = ranks(d1).any(|a| {
                vals[o1] = a;
                ranks(d2).any(|b| {
                    if let Some(i) = o2 {
                        vals[i] = b;
                    }
                    c.holds(vals)
                })
            });
            if found {
                kept |= 1 << r;
            }
        }
        kept
    }
}

/// The ranks in a domain (for a domain of 1, the single dummy value 0).
fn ranks(d: Domain) -> impl Iterator<Item = u8> {
    (0..16u8).filter(move |r| d & (1 << r) != 0)
}

/// A pawn being followed: its colour and its current rank variable.
#[derive(Clone, Copy)]
struct Pawn {
    color: Color,
    var: usize,
}

/// The pawns of a position per file, bottom up: colour and rank (1 to 8).
pub(super) fn pawns(p: &RawPosition) -> [Vec<(Color, u8)>; 8] {
    let mut cols: [Vec<(Color, u8)>; 8] = Default::default();
    for sq in p.board.pawns() {
        if let Some(c) = p.board.color_at(sq) {
            cols[sq.file() as usize].push((c, sq.rank() as u8 + 1));
        }
    }
    for col in &mut cols {
        col.sort_by_key(|&(_, r)| r);
    }
    cols
}

/// The rank variables of a kernel being replayed.
struct Replay {
    problem: Problem,
    pawns: Vec<Pawn>,
    /// Per file, the pawns (indices into `pawns`) bottom up.
    cols: [Vec<usize>; 8],
}

impl Replay {
    /// New rank variables for every pawn of file `f` (they may have moved forward since their
    /// last ones), in column order.
    fn advance(&mut self, f: usize) {
        let mut prev: Option<usize> = None;
        for k in 0..self.cols[f].len() {
            let id = self.cols[f][k];
            let old = self.pawns[id].var;
            let new = self.problem.var(PAWN_RANKS);
            self.problem.constraints.push(match self.pawns[id].color {
                Color::White => Constraint::Up(old, new),
                Color::Black => Constraint::Down(old, new),
            });
            self.pawns[id].var = new;
            if let Some(p) = prev {
                self.problem.constraints.push(Constraint::Below(p, new));
            }
            prev = Some(new);
        }
    }

    /// The order constraints of file `f` as it stands.
    fn order(&mut self, f: usize) {
        for w in 1..self.cols[f].len() {
            let (a, b) = (self.cols[f][w - 1], self.cols[f][w]);
            self.problem
                .constraints
                .push(Constraint::Below(self.pawns[a].var, self.pawns[b].var));
        }
    }
}

/// The rank variables and constraints of `path` played from `init`; `None` when a move cannot
/// be played.
fn replayed(init: &RawPosition, path: &[KernelMove]) -> Option<Replay> {
    let mut r = Replay {
        problem: Problem::default(),
        pawns: Vec::new(),
        cols: Default::default(),
    };
    for (f, col) in pawns(init).iter().enumerate() {
        for &(c, rank) in col {
            let var = r.problem.var(1 << rank);
            r.pawns.push(Pawn { color: c, var });
            r.cols[f].push(r.pawns.len() - 1);
        }
    }
    path.iter().all(|m| replay(&mut r, m)).then_some(r)
}

/// The ranks each pawn may stand on, per file and index in its column (bottom up), as far as
/// the kernel's moves so far tell (propagated forward only, so that the search can cache on
/// them: see [`step`]).
pub(super) type Ranks = [[Domain; 6]; 8];

/// A column as the kernel search holds it: its length and a bit per black pawn.
pub(super) type Col = (u8, u8);

/// The ranks of the initial position's pawns.
pub(super) fn initial(init: &RawPosition) -> Ranks {
    let mut ranks = [[0; 6]; 8];
    for (f, col) in pawns(init).iter().enumerate() {
        for (i, &(_, rank)) in col.iter().enumerate().take(6) {
            ranks[f][i] = 1 << rank;
        }
    }
    ranks
}

/// The ranks after kernel move `m` played on columns `cols` with ranks `ranks`: the move's
/// constraints are added to the pawns' current domains and made arc consistent. `None` when
/// they have no solution: no game goes on with this move. The result depends on `cols`,
/// `ranks` and `m` only.
pub(super) fn step(cols: &[Col; 8], ranks: &Ranks, m: &KernelMove) -> Option<Ranks> {
    let mut r = Replay {
        problem: Problem::default(),
        pawns: Vec::new(),
        cols: Default::default(),
    };
    for (f, &(len, black)) in cols.iter().enumerate() {
        for (i, &domain) in ranks[f].iter().enumerate().take(usize::from(len)) {
            let var = r.problem.var(domain);
            r.pawns.push(Pawn {
                color: colour_of(black, i),
                var,
            });
            r.cols[f].push(r.pawns.len() - 1);
        }
    }
    if !replay(&mut r, m) || !r.problem.consistent() {
        return None;
    }
    let mut out = [[0; 6]; 8];
    for (f, col) in r.cols.iter().enumerate() {
        for (i, &id) in col.iter().enumerate().take(6) {
            out[f][i] = r.problem.domains[r.pawns[id].var];
        }
    }
    Some(out)
}

/// Whether the pawns of `cols`, with `ranks`, can end on the goal's ranks (the extra ones
/// promoting): a cheap test before [`realizable`].
pub(super) fn fits_goal(cols: &[Col; 8], ranks: &Ranks, goal: &RawPosition) -> bool {
    let goal_cols = pawns(goal);
    (0..8).all(|f| {
        let (len, black) = cols[f];
        let color = move |i: usize| colour_of(black, i);
        let want = &goal_cols[f];
        line_ups(usize::from(len), color, want).any(|s| {
            want.iter()
                .enumerate()
                .all(|(i, &(_, rank))| ranks[f][s + i] & goal_bound(color(s + i), rank) != 0)
        })
    })
}

/// The ways a file's `have` pawns (colour of each, bottom up, by `color`) end as the goal's
/// `want` pawns: each is the number of black pawns below that promote; the white ones above
/// promote too, and the rest match the goal's colours in order.
pub(super) fn line_ups<'a>(
    have: usize,
    color: impl Fn(usize) -> Color + 'a,
    want: &'a [(Color, u8)],
) -> impl Iterator<Item = usize> + 'a {
    (0..=have.saturating_sub(want.len())).filter(move |&s| {
        want.len() <= have
            && (0..s).all(|i| color(i) == Color::Black)
            && (s + want.len()..have).all(|i| color(i) == Color::White)
            && want
                .iter()
                .enumerate()
                .all(|(i, &(c, _))| color(s + i) == c)
    })
}

/// The colour of the `i`th pawn of a file from the bottom, in a column whose bit `i` of
/// `black` is set for a black pawn.
fn colour_of(black: u8, i: usize) -> Color {
    Color::from_white(black & (1 << i) == 0)
}

/// The ranks a pawn may stand on before it ends on `rank`: up to it for white, from it for
/// black.
fn goal_bound(color: Color, rank: u8) -> Domain {
    match color {
        Color::White => (1 << (rank + 1)) - 1,
        Color::Black => !((1 << rank) - 1),
    }
}

/// Whether the kernel `path` from `init` to `goal` passes the rank constraints (it is then an
/// extended proof kernel). `false` is a proof that no game follows this kernel.
pub(super) fn realizable(init: &RawPosition, goal: &RawPosition, path: &[KernelMove]) -> bool {
    replayed(init, path).is_some_and(|r| fitted(&r, goal).is_some())
}

/// The rank problem of a replayed kernel with the goal's ranks at the end, made arc
/// consistent; `None` when no way of lining up each file's pawns with the goal's has a
/// solution.
fn fitted(r: &Replay, goal: &RawPosition) -> Option<Problem> {
    // The end: each file's pawns are the goal's, with promoting ones above (white) and below
    // (black). Every way to line them up is tried.
    let goal_cols = pawns(goal);
    let mut choices: Vec<Vec<usize>> = Vec::with_capacity(8);
    for (have, want) in r.cols.iter().zip(&goal_cols) {
        let shifts: Vec<usize> = line_ups(have.len(), |i| r.pawns[have[i]].color, want).collect();
        if shifts.is_empty() {
            return None;
        }
        choices.push(shifts);
    }
    let mut pick = [0usize; 8];
    loop {
        let mut p = r.problem.clone();
        for f in 0..8 {
            let s = choices[f][pick[f]];
            for (i, &(_, rank)) in goal_cols[f].iter().enumerate() {
                let pawn = r.pawns[r.cols[f][s + i]];
                p.domains[pawn.var] &= goal_bound(pawn.color, rank);
            }
        }
        if p.consistent() {
            return Some(p);
        }
        // The next combination of shifts.
        let mut f = 0;
        loop {
            if f == 8 {
                return None;
            }
            pick[f] += 1;
            if pick[f] < choices[f].len() {
                break;
            }
            pick[f] = 0;
            f += 1;
        }
    }
}

/// A kernel played on real squares: one solution of its rank problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Per kernel move, the pawns once it is made.
    pub pawns: Vec<Vec<Slot>>,
    /// Per kernel move, the square of its capture where the ranks tell it: the capturing
    /// pawn's landing square, or the square of a pawn a piece takes.
    pub squares: Vec<Option<Square>>,
}

/// A pawn of a [`Plan`] between two kernel moves: it stands on its file anywhere from where the
/// last move it took part in left it up to where the next one needs it (or, after the last,
/// its rank in the goal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The pawn's colour.
    pub color: Color,
    /// Its file (0 for a).
    pub file: u8,
    /// The lowest rank it may stand on (1 to 8).
    pub low: u8,
    /// The highest.
    pub high: u8,
}

/// A rank a pawn must stand on at some moment of a plan: a variable, or fixed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum At {
    Var(usize),
    Rank(u8),
}

/// Labelling gives up after this many steps (arc consistency makes it rare to go back).
const LABEL_STEPS: u32 = 20_000;

/// How [`plan`] shapes its solution.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// After its last kernel move a pawn goes on to its goal rank also where its file holds
    /// more pawns than the goal's, lined up with the goal's the first way there is (else only
    /// where the file's pawns are the goal's, one for one).
    pub lined_up: bool,
    /// Each pawn stands at a kernel move one step off its start rank where the constraints
    /// allow (else as near it as they allow): a pawn that has moved no longer shuts a piece in
    /// at home.
    pub stepped: bool,
}

/// The kernel `path` from `init` to `goal` on real squares: one solution of the rank problem
/// (white pawns kept as low and black ones as high as the constraints allow, or one step off
/// their start rank where `shape` says [`Shape::stepped`]), and from it the ranks each pawn may
/// stand on between kernel moves (after its last move, a pawn goes on to its rank in the goal
/// where its file's pawns line up with the goal's, see [`Shape::lined_up`]). `None` when the
/// kernel does not fit the ranks or no solution was found within a bounded labelling.
pub(super) fn plan(
    init: &RawPosition,
    goal: &RawPosition,
    path: &[KernelMove],
    shape: Shape,
) -> Option<Plan> {
    let Kernel {
        r,
        timeline,
        snapshots,
        places,
    } = kernel_on_ranks(init, path)?;
    let problem = fitted(&r, goal)?;
    let values = label(problem, shape.stepped)?;
    let value = |at: At| match at {
        At::Var(v) => values.get(v).copied(),
        At::Rank(rank) => Some(rank),
    };
    let end = end_ranks(&r, goal, &timeline, &value, shape.lined_up);
    slots_and_squares(&r, &timeline, &snapshots, &places, &end, &value)
}

/// A kernel replayed on the rank problem: the problem, each pawn's timeline (the ranks it must
/// stand on and when: moment 2k+1 is during kernel move k, 2k+2 after it, 0 the start), the
/// pawns of each file after each kernel move, and the square each move's piece lands on.
struct Kernel {
    r: Replay,
    timeline: Vec<Vec<(usize, At)>>,
    snapshots: Vec<Vec<(usize, usize)>>,
    places: Vec<Option<(usize, At)>>,
}

/// Replays `path` from `init` on the rank problem (see [`Kernel`]); `None` when a move does
/// not fit.
fn kernel_on_ranks(init: &RawPosition, path: &[KernelMove]) -> Option<Kernel> {
    let mut r = replayed(init, &[])?;
    // Per pawn, the ranks it must stand on and when: moment 2k+1 is during kernel move k,
    // 2k+2 after it, 0 the start.
    let mut timeline: Vec<Vec<(usize, At)>> =
        r.pawns.iter().map(|p| vec![(0, At::Var(p.var))]).collect();
    let mut snapshots: Vec<Vec<(usize, usize)>> = Vec::with_capacity(path.len());
    let mut places: Vec<Option<(usize, At)>> = Vec::with_capacity(path.len());
    for (k, m) in path.iter().enumerate() {
        let (last, seventh) = m.side.fold_wb((8, 7), (1, 2));
        let capturer = m
            .pawn
            .and_then(|(f, i)| r.cols[usize::from(f)].get(usize::from(i)).copied());
        let victim = match m.target {
            Target::Pawn(g, j) | Target::PromotedPawn(g, j) => {
                r.cols[usize::from(g)].get(usize::from(j)).copied()
            }
            _ => None,
        };
        let constraints = r.problem.constraints.len();
        if !replay(&mut r, m) {
            return None;
        }
        // The capturer's rank as it moves: the pre rank of its capture, or its seventh rank
        // before it promotes.
        let pre = r.problem.constraints[constraints..]
            .iter()
            .rev()
            .find_map(|c| match *c {
                Constraint::Step { pre, .. } | Constraint::TakesPawn { pre, .. } => Some(pre),
                _ => None,
            });
        if let Some(id) = capturer {
            let at = match (m.landing, m.target, pre) {
                (Some(Landing::Promotes(_)), _, _) | (_, Target::Nothing, _) => At::Rank(seventh),
                (_, _, Some(pre)) => At::Var(pre),
                _ => At::Var(r.pawns[id].var),
            };
            timeline.get_mut(id)?.push((2 * k + 1, at));
        }
        if let Some(id) = victim {
            let at = match m.target {
                Target::PromotedPawn(..) => At::Rank(m.side.fold_wb(2, 7)),
                _ => At::Var(r.pawns[id].var),
            };
            timeline.get_mut(id)?.push((2 * k + 1, at));
        }
        let place = match (m.landing, m.target) {
            (Some(Landing::Promotes(g)), _) => Some((usize::from(g), At::Rank(last))),
            (Some(Landing::At(g, _)), _) => {
                capturer.map(|id| (usize::from(g), At::Var(r.pawns[id].var)))
            }
            (None, Target::Pawn(g, _)) => match m.pawn {
                Some(_) => capturer.map(|id| (usize::from(g), At::Var(r.pawns[id].var))),
                None => victim.map(|id| (usize::from(g), At::Var(r.pawns[id].var))),
            },
            _ => None,
        };
        places.push(place);
        let mut snap = Vec::new();
        for (f, col) in r.cols.iter().enumerate() {
            for &id in col {
                let now = At::Var(r.pawns[id].var);
                let line = timeline.get_mut(id)?;
                if line.last().map(|&(_, at)| at) != Some(now) {
                    line.push((2 * k + 2, now));
                }
                snap.push((f, id));
            }
        }
        snapshots.push(snap);
    }
    Some(Kernel {
        r,
        timeline,
        snapshots,
        places,
    })
}

/// The rank each pawn goes on to after its last kernel move, where it does (see [`plan`]).
fn end_ranks(
    r: &Replay,
    goal: &RawPosition,
    timeline: &[Vec<(usize, At)>],
    value: &impl Fn(At) -> Option<u8>,
    lined_up: bool,
) -> Vec<Option<u8>> {
    // After the kernel, a pawn may go on to its rank in the goal where its file's pawns are
    // the goal's, one for one; with `lined_up`, also where the file has more, lined up with the
    // goal's the first way there is (the others of the file promote, see [`line_ups`]).
    let goal_cols = pawns(goal);
    let mut end = vec![None; r.pawns.len()];
    for (col, want) in r.cols.iter().zip(&goal_cols) {
        if col.len() == want.len() {
            for (&id, &(_, rank)) in col.iter().zip(want) {
                end[id] = Some(rank);
            }
            continue;
        }
        if !lined_up {
            continue;
        }
        let colors: Vec<Color> = col.iter().map(|&id| r.pawns[id].color).collect();
        // The line-up the solution can follow: every pawn's goal rank ahead of its last one.
        let ahead = |s: usize| {
            col.iter().skip(s).zip(want).all(|(&id, &(_, rank))| {
                let last = timeline
                    .get(id)
                    .and_then(|line| line.last())
                    .and_then(|&(_, at)| value(at));
                match (last, r.pawns[id].color) {
                    (Some(v), Color::White) => rank >= v,
                    (Some(v), Color::Black) => rank <= v,
                    (None, _) => false,
                }
            })
        };
        let fits = line_ups(
            col.len(),
            move |i| colors.get(i).copied().unwrap_or(Color::Black),
            want,
        )
        .find(|&s| ahead(s));
        if let Some(s) = fits {
            for (&id, &(_, rank)) in col.iter().skip(s).zip(want) {
                end[id] = Some(rank);
            }
        }
    }
    end
}

/// The plan from the solved ranks: each pawn's slot of ranks between kernel moves, and the
/// square each move's piece lands on.
fn slots_and_squares(
    r: &Replay,
    timeline: &[Vec<(usize, At)>],
    snapshots: &[Vec<(usize, usize)>],
    places: &[Option<(usize, At)>],
    end: &[Option<u8>],
    value: &impl Fn(At) -> Option<u8>,
) -> Option<Plan> {
    let mut plan = Plan {
        pawns: Vec::with_capacity(snapshots.len()),
        squares: Vec::with_capacity(snapshots.len()),
    };
    for (k, (snap, place)) in snapshots.iter().zip(places).enumerate() {
        let moment = 2 * k + 2;
        let mut slots = Vec::with_capacity(snap.len());
        for &(f, id) in snap {
            let line = timeline.get(id)?;
            let now = line.iter().rev().find(|&&(t, _)| t <= moment)?.1;
            let now = value(now)?;
            let next = match line.iter().find(|&&(t, _)| t > moment) {
                Some(&(_, at)) => value(at)?,
                // Forward only.
                None => end[id]
                    .filter(|&e| match r.pawns[id].color {
                        Color::White => e >= now,
                        Color::Black => e <= now,
                    })
                    .unwrap_or(now),
            };
            slots.push(Slot {
                color: r.pawns[id].color,
                file: f as u8,
                low: now.min(next),
                high: now.max(next),
            });
        }
        plan.pawns.push(slots);
        plan.squares.push(match *place {
            Some((f, at)) => {
                let rank = value(at)?.checked_sub(1)?;
                Some(Square::from_coords(
                    shakmaty::File::new(f as u32),
                    shakmaty::Rank::new(u32::from(rank)),
                ))
            }
            None => None,
        });
    }
    Some(plan)
}

/// One solution of an arc-consistent problem, by labelling the variables in order (each
/// assignment followed by arc consistency, going back on failure); `None` when none is found
/// within [`LABEL_STEPS`]. With `stepped`, the start rank is tried last.
fn label(problem: Problem, stepped: bool) -> Option<Vec<u8>> {
    // A variable's pawn colour, from the constraints that name it: white pawns try their
    // lowest rank first, black ones their highest.
    let mut black = vec![false; problem.domains.len()];
    for c in &problem.constraints {
        match *c {
            Constraint::Down(a, b) => {
                black[a] = true;
                black[b] = true;
            }
            Constraint::Step {
                pre,
                post,
                color: Color::Black,
            }
            | Constraint::TakesPawn {
                pre,
                post,
                color: Color::Black,
                ..
            } => {
                black[pre] = true;
                black[post] = true;
            }
            _ => {}
        }
    }
    let mut steps = 0u32;
    let solved = label_from(problem, 0, &black, stepped, &mut steps)?;
    Some(
        solved
            .domains
            .iter()
            .map(|&d| d.trailing_zeros() as u8)
            .collect(),
    )
}

/// Labels variables `var..` of `p` (see [`label`]).
fn label_from(
    p: Problem,
    var: usize,
    black: &[bool],
    stepped: bool,
    steps: &mut u32,
) -> Option<Problem> {
    if var >= p.domains.len() {
        return Some(p);
    }
    *steps += 1;
    if *steps > LABEL_STEPS {
        return None;
    }
    let mut values: Vec<u8> = ranks(p.domains[var]).collect();
    let is_black = black.get(var).copied().unwrap_or(false);
    if is_black {
        values.reverse();
    }
    if stepped {
        // The start rank (2 for white, 7 for black) last.
        let start = if is_black { 7 } else { 2 };
        if let Some(i) = values.iter().position(|&v| v == start) {
            values.remove(i);
            values.push(start);
        }
    }
    for v in values {
        let mut q = p.clone();
        q.domains[var] = 1 << v;
        if q.consistent() {
            if let Some(done) = label_from(q, var + 1, black, stepped, steps) {
                return Some(done);
            }
        }
    }
    None
}

/// Plays one kernel move on the columns, adding its constraints; `false` when it cannot be
/// played (a column index out of range, which the kernel search never produces).
fn replay(r: &mut Replay, m: &KernelMove) -> bool {
    // The columns the move touches get fresh variables first.
    let mut touched = [false; 8];
    if let Some((f, _)) = m.pawn {
        touched[usize::from(f)] = true;
    }
    match m.target {
        Target::Pawn(g, _) | Target::PromotedPawn(g, _) => touched[usize::from(g)] = true,
        _ => {}
    }
    if let Some(Landing::At(g, _)) = m.landing {
        touched[usize::from(g)] = true;
    }
    for (f, &t) in touched.iter().enumerate() {
        if t {
            r.advance(f);
        }
    }
    let Some((f, i)) = m.pawn else {
        // A piece takes: a pawn target leaves its column.
        match m.target {
            Target::Pawn(g, j) | Target::PromotedPawn(g, j) => {
                return remove(&mut r.cols[usize::from(g)], j).is_some();
            }
            _ => return true,
        }
    };
    let (f, i) = (usize::from(f), usize::from(i));
    if m.target == Target::Nothing {
        return remove(&mut r.cols[f], i as u8).is_some();
    }
    if let Target::Pawn(g, j) = m.target {
        // The capturer takes the victim's place.
        let g = usize::from(g);
        let (Some(&capturer), Some(&victim)) = (r.cols[f].get(i), r.cols[g].get(usize::from(j)))
        else {
            return false;
        };
        let pre = r.pawns[capturer].var;
        let post = r.problem.var(PAWN_RANKS);
        r.problem.constraints.push(Constraint::TakesPawn {
            pre,
            post,
            victim: r.pawns[victim].var,
            color: m.side,
        });
        r.pawns[capturer].var = post;
        r.cols[f].remove(i);
        r.cols[g][usize::from(j)] = capturer;
        r.order(g);
        return true;
    }
    // A piece is taken: first the target leaves (a pawn that promoted), then the capturer.
    let mut i_now = i;
    if let Target::PromotedPawn(g, j) = m.target {
        if remove(&mut r.cols[usize::from(g)], j).is_none() {
            return false;
        }
        if usize::from(g) == f && usize::from(j) < i {
            i_now -= 1;
        }
    }
    let Some(capturer) = remove(&mut r.cols[f], i_now as u8) else {
        return false;
    };
    let pre = r.pawns[capturer].var;
    let bishop = match m.target {
        Target::Piece(KernelPiece::LightBishop) => Some(true),
        Target::Piece(KernelPiece::DarkBishop) => Some(false),
        _ => None,
    };
    match m.landing {
        Some(Landing::At(g, at)) => {
            let g = usize::from(g);
            let mut allowed = PAWN_RANKS;
            if let Some(light) = bishop {
                allowed &= rank_colour(g, light);
            }
            let post = r.problem.var(allowed);
            r.problem.constraints.push(Constraint::Step {
                pre,
                post,
                color: m.side,
            });
            r.pawns[capturer].var = post;
            if usize::from(at) > r.cols[g].len() {
                return false;
            }
            r.cols[g].insert(usize::from(at), capturer);
            r.order(g);
            true
        }
        Some(Landing::Promotes(g)) => {
            // From the seventh rank (white) or the second (black), onto the last.
            let (from, last) = m.side.fold_wb((7, 8), (2, 1));
            r.problem.domains[pre] &= 1 << from;
            if let Some(light) = bishop {
                if rank_colour(usize::from(g), light) & (1 << last) == 0 {
                    r.problem.domains[pre] = 0;
                }
            }
            true
        }
        None => true,
    }
}

/// The ranks on which file `f` has squares of the given colour.
fn rank_colour(f: usize, light: bool) -> Domain {
    let mut d = 0;
    for rank in 1..=8u32 {
        let sq = shakmaty::Square::new((rank - 1) * 8 + f as u32);
        if Bitboard::LIGHT_SQUARES.contains(sq) == light {
            d |= 1 << rank;
        }
    }
    d
}

/// Removes and returns the pawn at index `i` of a column.
fn remove(col: &mut Vec<usize>, i: u8) -> Option<usize> {
    let i = usize::from(i);
    (i < col.len()).then(|| col.remove(i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        kernel::{search, Kind},
        KernelResult, Limits,
    };

    fn both(goal: &str) -> (bool, bool) {
        let start = RawPosition::start();
        let g = RawPosition::from_fen(goal).expect("fen");
        let limits = Limits {
            max_nodes: 100_000,
            deadline: None,
            cancel: None,
            proof_nodes: 0,
        };
        let plain = search(&start, &g, Kind::Plain, &mut limits.counter()).expect("budget");
        let ext = search(&start, &g, Kind::Extended, &mut limits.counter()).expect("budget");
        (
            matches!(plain, KernelResult::Found(_)),
            matches!(ext, KernelResult::Found(_)),
        )
    }

    #[test]
    fn arc_consistency_follows_a_pawn_forward() {
        // A white pawn on rank 4 cannot be on rank 3 later.
        let mut p = Problem::default();
        let a = p.var(1 << 4);
        let b = p.var(PAWN_RANKS);
        p.constraints.push(Constraint::Up(a, b));
        assert!(p.consistent());
        assert_eq!(p.domains[b], 0b1111_0000);
        p.domains[b] &= 0b1111;
        assert!(!p.consistent());
        // A capture moves it up one rank, onto the victim's rank.
        let mut q = Problem::default();
        let (pre, post, victim) = (q.var(1 << 3), q.var(PAWN_RANKS), q.var(PAWN_RANKS));
        q.constraints.push(Constraint::TakesPawn {
            pre,
            post,
            victim,
            color: Color::White,
        });
        assert!(q.consistent());
        assert_eq!((q.domains[post], q.domains[victim]), (1 << 4, 1 << 4));
        // From the fifth rank, en passant: the victim stood beside it.
        let mut e = Problem::default();
        let (pre, post, victim) = (e.var(1 << 5), e.var(PAWN_RANKS), e.var(PAWN_RANKS));
        e.constraints.push(Constraint::TakesPawn {
            pre,
            post,
            victim,
            color: Color::White,
        });
        assert!(e.consistent());
        assert_eq!(e.domains[victim], (1 << 5) | (1 << 6));
    }

    #[test]
    fn a_light_bishop_cannot_be_taken_on_b2() {
        // The black a pawn took a white bishop on the b file and stands below the white b pawn
        // on b3: the capture was on b2, a dark square, so not of the light bishop (f1).
        assert_eq!(
            both("rnbqkbnr/1ppppppp/8/8/8/1P2P3/PpPP1PPP/RNBQK1NR w KQkq - 0 1"),
            (true, false)
        );
        // With the white pawn on b4 the capture may have been on b3, a light square.
        assert_eq!(
            both("rnbqkbnr/1ppppppp/8/8/1P6/1p2P3/P1PP1PPP/RNBQK1NR w KQkq - 0 1"),
            (true, true)
        );
        // The dark bishop (c1) may have been taken on b2.
        assert_eq!(
            both("rnbqkbnr/1ppppppp/8/8/8/1P2P3/PpPP1PPP/RN1QKBNR w KQkq - 0 1"),
            (true, true)
        );
    }

    #[test]
    fn pawns_keep_their_order_and_ranks_without_captures() {
        // No capture, every pawn in place but the e pawn on e4: a kernel, and an extended one.
        assert_eq!(
            both("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"),
            (true, true)
        );
    }
}
