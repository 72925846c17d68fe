//! Static evaluation: tapered material and piece-square values, pawn structure, space,
//! mobility, king safety, threats, outposts, rooks on open files and the seventh rank, trapped
//! rooks, the bishop pair and its pawns, and a mop-up term for won pawnless endings.
//!
//! Every weight is a parameter of [`params`] with its value in [`weights`], a file that
//! `retro tune` writes; [`terms`] lists the parameters a position uses, so the same code
//! evaluates in the search and counts features for the tuner. Scores are in centipawns from
//! the side to move's point of view.

pub mod params;
pub mod weights;

use shakmaty::{attacks, Bitboard, Board, Chess, Color, Position, Role, Square};

use self::weights::WEIGHTS;

/// Middlegame and endgame values of a pair.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct S(pub i32, pub i32);

impl std::ops::AddAssign for S {
    fn add_assign(&mut self, o: S) {
        self.0 += o.0;
        self.1 += o.1;
    }
}

impl std::ops::SubAssign for S {
    fn sub_assign(&mut self, o: S) {
        self.0 -= o.0;
        self.1 -= o.1;
    }
}

impl std::ops::Mul<i32> for S {
    type Output = S;
    fn mul(self, k: i32) -> S {
        S(self.0 * k, self.1 * k)
    }
}

/// The rough value of a role, for move ordering and exchange evaluation.
pub const fn piece_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 320,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 950,
        Role::King => 20_000,
    }
}

/// Game phase weights of knight, bishop, rook and queen; 24 is the full middlegame.
const PHASE: [i32; 6] = [0, 1, 1, 2, 4, 0];
/// The phase of the full middlegame.
pub const MAX_PHASE: i32 = 24;
/// Added for the side to move.
pub const TEMPO: i32 = 10;
/// Attack units on the king zone per attacking knight, bishop, rook and queen.
const ATTACK_UNITS: [i32; 4] = [2, 2, 3, 5];
/// The first mobility parameter of knight, bishop, rook and queen.
const MOBILITY: [usize; 4] = [
    params::MOBILITY_KNIGHT,
    params::MOBILITY_BISHOP,
    params::MOBILITY_ROOK,
    params::MOBILITY_QUEEN,
];

/// Where the evaluation's terms go: summed with the weights in play, counted by the tuner.
pub trait Terms {
    /// Adds parameter `param` `n` times for side `us`.
    fn add(&mut self, us: Color, param: usize, n: i32);
}

/// The weighted sum of the terms, white minus black.
struct Sum(S);

impl Terms for Sum {
    #[inline]
    fn add(&mut self, us: Color, param: usize, n: i32) {
        let w = WEIGHTS[param] * n;
        if us == Color::White {
            self.0 += w;
        } else {
            self.0 -= w;
        }
    }
}

fn role_index(role: Role) -> usize {
    role as usize - 1
}

/// Which evaluation a search uses.
#[derive(Clone, Debug, Default)]
pub enum Evaluator {
    /// The hand-written evaluation ([`evaluate`]).
    #[default]
    Classic,
    /// The neural network.
    Network(std::sync::Arc<crate::nnue::Network>),
}

impl Evaluator {
    /// The evaluation `engine.toml` chooses: the network of `eval_file` (the built-in one
    /// when absent) with `use_nnue`, else the hand-written one.
    ///
    /// # Errors
    /// The network file cannot be used.
    pub fn configured(
        use_nnue: bool,
        eval_file: Option<&std::path::Path>,
    ) -> Result<Evaluator, crate::nnue::NetworkError> {
        Ok(match (use_nnue, eval_file) {
            (false, _) => Evaluator::Classic,
            (true, None) => Evaluator::Network(crate::nnue::Network::embedded()),
            (true, Some(f)) => {
                Evaluator::Network(std::sync::Arc::new(crate::nnue::Network::load(f)?))
            }
        })
    }

    /// The evaluation of `pos` in centipawns for the side to move, from scratch.
    pub fn evaluate(&self, pos: &Chess) -> i32 {
        match self {
            Evaluator::Classic => evaluate(pos),
            Evaluator::Network(net) => net.evaluate_position(pos),
        }
    }
}

/// The evaluation of `pos` in centipawns for the side to move.
pub fn evaluate(pos: &Chess) -> i32 {
    let board = pos.board();
    let mut sum = Sum(S(0, 0));
    terms(board, &mut sum);
    let v = white_view(board, sum.0);
    let v = if pos.turn() == Color::White { v } else { -v };
    v + TEMPO
}

/// The evaluation for white of the terms' weighted sum `score`: tapered by the phase, with the
/// mop-up bonus, scaled down where the side ahead cannot win.
pub fn white_view(board: &Board, score: S) -> i32 {
    let phase = phase(board);
    let mut v = (score.0 * phase + score.1 * (MAX_PHASE - phase)) / MAX_PHASE;
    v += mop_up(board);
    if drawish(board, v > 0) {
        v /= 8;
    }
    v
}

/// The game phase: from 0 (pawns and kings) to [`MAX_PHASE`] (all pieces).
pub fn phase(board: &Board) -> i32 {
    let mut phase = 0;
    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        phase += PHASE[role_index(role)] * board.by_role(role).count() as i32;
    }
    phase.min(MAX_PHASE)
}

/// Every term of both sides, into `t`.
pub fn terms(board: &Board, t: &mut impl Terms) {
    let white = Attacks::of(board, Color::White);
    let black = Attacks::of(board, Color::Black);
    side(board, Color::White, &white, &black, t);
    side(board, Color::Black, &black, &white, t);
}

/// The most knights, bishops, rooks and queens a side can have (two of each and eight
/// promoted pawns is 15).
const MAX_PIECES: usize = 16;

/// What one side's pieces attack: each knight, bishop, rook and queen with its attacks (by
/// role, knights first), and the squares its pawns, its pieces (knights to queens) and all its
/// men attack.
struct Attacks {
    pieces: [(Square, Role, Bitboard); MAX_PIECES],
    len: usize,
    pawns: Bitboard,
    by_pieces: Bitboard,
    all: Bitboard,
}

impl Attacks {
    fn of(board: &Board, color: Color) -> Attacks {
        let ours = board.by_color(color);
        let occupied = board.occupied();
        let pawns = pawn_attacks(ours & board.pawns(), color);
        let mut all = pawns;
        if let Some(k) = board.king_of(color) {
            all |= attacks::king_attacks(k);
        }
        let mut a = Attacks {
            pieces: [(Square::A1, Role::Pawn, Bitboard::EMPTY); MAX_PIECES],
            len: 0,
            pawns,
            by_pieces: Bitboard::EMPTY,
            all,
        };
        for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
            for sq in ours & board.by_role(role) {
                let att = attacks::attacks(sq, role.of(color), occupied);
                a.by_pieces |= att;
                a.all |= att;
                if a.len < MAX_PIECES {
                    a.pieces[a.len] = (sq, role, att);
                    a.len += 1;
                }
            }
        }
        a
    }

    fn pieces(&self) -> &[(Square, Role, Bitboard)] {
        &self.pieces[..self.len]
    }
}

/// The terms of one side, in white's orientation for white and mirrored for black; `mine` and
/// `theirs_att` are the attacks of its men and of the enemy's.
#[inline(always)]
fn side(board: &Board, us: Color, mine: &Attacks, theirs_att: &Attacks, t: &mut impl Terms) {
    let v = View::new(board, us, mine, theirs_att);
    v.material(t);
    v.pawn_structure(t);
    v.pawn_play(t);
    let attacks = v.pieces(t);
    v.threats(&attacks, t);
    v.king_shield(t);
}

/// One side's view of the board, shared by the steps of [`side`].
struct View<'a> {
    board: &'a Board,
    us: Color,
    them: Color,
    ours: Bitboard,
    theirs: Bitboard,
    occupied: Bitboard,
    my_pawns: Bitboard,
    their_pawns: Bitboard,
    /// Their pieces other than pawns and the king.
    their_pieces: Bitboard,
    my_king: Option<Square>,
    their_king: Option<Square>,
    mine: &'a Attacks,
    theirs_att: &'a Attacks,
}

/// What the pieces step found that the threats step counts.
struct PieceAttacks {
    /// Pieces attacking the enemy king's zone.
    attackers: i32,
    /// Their attack units.
    units: i32,
    /// Squares our knights and bishops attack.
    minor_attacks: Bitboard,
    /// Squares our rooks attack.
    rook_attacks: Bitboard,
    /// Per role (knight to queen): a safe check exists.
    safe_checks: [bool; 4],
}

impl<'a> View<'a> {
    fn new(board: &'a Board, us: Color, mine: &'a Attacks, theirs_att: &'a Attacks) -> View<'a> {
        let them = !us;
        let ours = board.by_color(us);
        let theirs = board.by_color(them);
        View {
            board,
            us,
            them,
            ours,
            theirs,
            occupied: board.occupied(),
            my_pawns: ours & board.pawns(),
            their_pawns: theirs & board.pawns(),
            their_pieces: theirs & !board.pawns() & !board.kings(),
            my_king: board.king_of(us),
            their_king: board.king_of(them),
            mine,
            theirs_att,
        }
    }

    /// `sq` from our side (white's squares as they are, black's flipped).
    fn flip(&self, sq: Square) -> Square {
        if self.us == Color::White {
            sq
        } else {
            sq.flip_vertical()
        }
    }

    /// Material and piece-square values.
    fn material(&self, t: &mut impl Terms) {
        let (board, us, ours) = (self.board, self.us, self.ours);
        for sq in ours {
            if let Some(role) = board.role_at(sq) {
                let r = role_index(role);
                t.add(us, params::MATERIAL + r, 1);
                t.add(us, params::PST + 64 * r + self.flip(sq) as usize, 1);
            }
        }
    }

    /// Doubled, isolated, backward, supported and passed pawns.
    fn pawn_structure(&self, t: &mut impl Terms) {
        let (board, us, ours, theirs) = (self.board, self.us, self.ours, self.theirs);
        let (my_pawns, their_pawns, occupied) = (self.my_pawns, self.their_pawns, self.occupied);
        let their_pawn_attacks = self.theirs_att.pawns;
        let my_pawn_attacks = self.mine.pawns;
        let (their_pieces, theirs_att) = (self.their_pieces, self.theirs_att);
        for sq in my_pawns {
            let file = sq.file();
            let adjacent = adjacent_files(file);
            let span = forward_span(us, sq);
            // The squares in front on the pawn's file.
            let ahead = span & Bitboard::from_file(file);
            // Each extra pawn of a file once: count on all but the frontmost.
            let doubled = (ahead & my_pawns).any();
            if doubled {
                t.add(us, params::DOUBLED, 1);
            }
            let isolated = (my_pawns & adjacent).is_empty();
            let backward = !isolated
                && (my_pawns & adjacent & !span).is_empty()
                && in_front(us, sq).is_some_and(|stop| their_pawn_attacks.contains(stop));
            if isolated {
                t.add(us, params::ISOLATED, 1);
            } else if backward {
                t.add(us, params::BACKWARD, 1);
            }
            if (isolated || backward) && (ahead & their_pawns).is_empty() {
                t.add(us, params::WEAK_UNOPPOSED, 1);
            }
            if my_pawn_attacks.contains(sq) {
                t.add(us, params::SUPPORTED, 1);
            }
            if !doubled && (span & (ahead | adjacent) & their_pawns).is_empty() {
                let passer = Passer {
                    sq,
                    rank: self.flip(sq).rank() as usize,
                    ahead,
                };
                passed_pawn(board, us, &passer, their_pieces.is_empty(), t);
                let behind = attacks::rook_attacks(sq, occupied)
                    & Bitboard::from_file(file)
                    & !span
                    & (board.rooks() | board.queens());
                if (behind & ours).any() {
                    t.add(us, params::ROOK_BEHIND_PASSER, 1);
                } else if behind.any() {
                    t.add(us, params::ENEMY_ROOK_BEHIND_PASSER, 1);
                }
                if (ahead & (theirs | theirs_att.all)).is_empty() {
                    t.add(us, params::PASSED_SAFE + passer.rank, 1);
                }
            }
        }
    }

    /// Pawn pushes that threaten, the king's distance to its pawns, pawnless flanks, space,
    /// restricted squares, phalanxes and threats by pawns.
    fn pawn_play(&self, t: &mut impl Terms) {
        let (board, us, occupied, my_pawns) = (self.board, self.us, self.occupied, self.my_pawns);
        let (mine, theirs_att, their_pieces) = (self.mine, self.theirs_att, self.their_pieces);
        let their_pawn_attacks = theirs_att.pawns;
        let my_pawn_attacks = mine.pawns;
        let empty = !occupied;
        let pushed = if us == Color::White {
            Bitboard(my_pawns.0 << 8)
        } else {
            Bitboard(my_pawns.0 >> 8)
        } & empty
            & !their_pawn_attacks
            & (mine.all | !theirs_att.all);
        t.add(
            us,
            params::PUSH_THREAT,
            (pawn_attacks(pushed, us) & their_pieces & !my_pawn_attacks).count() as i32,
        );
        let east = Bitboard((my_pawns & !Bitboard::from_file(shakmaty::File::H)).0 << 1);
        if let Some(k) = self.my_king {
            if let Some(d) = my_pawns.into_iter().map(|p| k.distance(p)).min() {
                t.add(us, params::KING_PAWN_DISTANCE, d as i32);
            }
            if (board.pawns() & flank(k.file())).is_empty() {
                t.add(us, params::PAWNLESS_FLANK, 1);
            }
        }
        space(us, my_pawns, their_pawn_attacks, t);
        t.add(
            us,
            params::RESTRICTED,
            (mine.all & theirs_att.all & !their_pawn_attacks).count() as i32,
        );
        t.add(us, params::PHALANX, (east & my_pawns).count() as i32);
        t.add(
            us,
            params::THREAT_BY_PAWN,
            (my_pawn_attacks & their_pieces).count() as i32,
        );
    }

    /// Mobility, attacks on the enemy king's zone, safe checks, and the terms of minor pieces
    /// and rooks.
    fn pieces(&self, t: &mut impl Terms) -> PieceAttacks {
        let (board, us, them, ours, occupied) =
            (self.board, self.us, self.them, self.ours, self.occupied);
        let (my_pawns, their_pawns, my_king) = (self.my_pawns, self.their_pawns, self.my_king);
        let (mine, theirs_att) = (self.mine, self.theirs_att);
        let their_pawn_attacks = theirs_att.pawns;
        let my_pawn_attacks = mine.pawns;
        let their_king = self.their_king;
        let king_zone = their_king.map_or(Bitboard::EMPTY, |k| {
            attacks::king_attacks(k) | Bitboard::from(k)
        });
        let mut attackers = 0;
        let mut units = 0;
        let mut minor_attacks = Bitboard::EMPTY;
        let mut rook_attacks = Bitboard::EMPTY;
        // The squares from which a knight, bishop, rook, queen would check the enemy king, and
        // that the enemy does not attack and we do not occupy.
        let safe = !ours & !theirs_att.all;
        let checks = their_king.map_or([Bitboard::EMPTY; 4], |k| {
            let diagonal = attacks::bishop_attacks(k, occupied);
            let straight = attacks::rook_attacks(k, occupied);
            [
                attacks::knight_attacks(k),
                diagonal,
                straight,
                diagonal | straight,
            ]
        });
        let mut safe_checks = [false; 4];
        // Squares no enemy pawn can ever attack, defended by our pawns, on the fourth to sixth
        // rank from our side.
        let outposts = my_pawn_attacks & !pawn_span(their_pawns, them) & relative_ranks(us, 3, 5);
        let my_pawn_count = my_pawns.count() as i32;
        for &(sq, role, att) in mine.pieces() {
            let i = role_index(role) - 1;
            if (att & checks[i] & safe).any() {
                safe_checks[i] = true;
            }
            let mobile = (att & !ours & !their_pawn_attacks).count();
            t.add(us, MOBILITY[i] + mobile, 1);
            if (att & king_zone).any() {
                attackers += 1;
                units += ATTACK_UNITS[i] * (att & king_zone).count() as i32;
            }
            match role {
                Role::Knight | Role::Bishop => {
                    minor_attacks |= att;
                    let front = in_front(us, sq);
                    if front.is_some_and(|f| board.pawns().contains(f)) {
                        t.add(us, params::MINOR_BEHIND_PAWN, 1);
                    }
                    if outposts.contains(sq) {
                        t.add(us, params::OUTPOST + i, 1);
                    }
                    if let Some(k) = my_king {
                        t.add(us, params::KING_PROTECTOR + i, k.distance(sq) as i32);
                    }
                    if role == Role::Knight {
                        t.add(us, params::KNIGHT_PAWNS, my_pawn_count);
                        if (att & outposts & !ours).any() {
                            t.add(us, params::REACHABLE_OUTPOST, 1);
                        }
                    } else {
                        let center = attacks::bishop_attacks(sq, board.pawns()) & CENTER;
                        if center.count() > 1 {
                            t.add(us, params::LONG_DIAGONAL, 1);
                        }
                        let colour = if Bitboard::LIGHT_SQUARES.contains(sq) {
                            Bitboard::LIGHT_SQUARES
                        } else {
                            Bitboard::DARK_SQUARES
                        };
                        t.add(us, params::BISHOP_PAWNS, (my_pawns & colour).count() as i32);
                    }
                }
                Role::Rook => {
                    t.add(us, params::ROOK_PAWNS, my_pawn_count);
                    if mobile <= 3 {
                        if let Some(k) =
                            my_king.filter(|k| self.flip(*k).rank() == shakmaty::Rank::First)
                        {
                            if (k.file() < shakmaty::File::E) == (sq.file() < k.file()) {
                                t.add(us, params::TRAPPED_ROOK, 1);
                            }
                        }
                    }
                    if self.flip(sq).rank() == shakmaty::Rank::Seventh {
                        t.add(us, params::ROOK_SEVENTH, 1);
                    }
                    rook_attacks |= att;
                    let file_bb = Bitboard::from_file(sq.file());
                    if (file_bb & board.pawns()).is_empty() {
                        t.add(us, params::ROOK_OPEN, 1);
                    } else if (file_bb & my_pawns).is_empty() {
                        t.add(us, params::ROOK_SEMI_OPEN, 1);
                    }
                }
                _ => {}
            }
        }
        PieceAttacks {
            attackers,
            units,
            minor_attacks,
            rook_attacks,
            safe_checks,
        }
    }

    /// Safe checks, hanging pieces, threats by minors and rooks, the weak squares around the
    /// enemy king, the king attack and the bishop pair.
    fn threats(&self, a: &PieceAttacks, t: &mut impl Terms) {
        let (board, us, ours, theirs) = (self.board, self.us, self.ours, self.theirs);
        let (mine, theirs_att) = (self.mine, self.theirs_att);
        let (their_pawns, their_pieces) = (self.their_pawns, self.their_pieces);
        let their_king = self.their_king;
        let (attackers, units, minor_attacks, rook_attacks) =
            (a.attackers, a.units, a.minor_attacks, a.rook_attacks);
        for (i, &any) in a.safe_checks.iter().enumerate() {
            if any {
                t.add(us, params::SAFE_CHECK + i, 1);
            }
        }
        let undefended = mine.all & !theirs_att.all & theirs;
        t.add(
            us,
            params::HANGING_PAWN,
            (undefended & their_pawns).count() as i32,
        );
        t.add(
            us,
            params::HANGING_PIECE,
            (undefended & their_pieces).count() as i32,
        );
        let majors = theirs & (board.rooks() | board.queens());
        t.add(
            us,
            params::THREAT_BY_MINOR,
            (minor_attacks & majors).count() as i32,
        );
        t.add(
            us,
            params::THREAT_BY_ROOK,
            (rook_attacks & theirs & board.queens()).count() as i32,
        );
        if let Some(k) = their_king {
            let weak =
                attacks::king_attacks(k) & mine.all & !theirs_att.pawns & !theirs_att.by_pieces;
            t.add(us, params::WEAK_KING_ZONE, weak.count() as i32);
        }
        if attackers >= 2 && (ours & board.queens()).any() {
            t.add(us, params::KING_ATTACK + units.min(40) as usize, 1);
        }
        if (ours & board.bishops() & Bitboard::LIGHT_SQUARES).any()
            && (ours & board.bishops() & Bitboard::DARK_SQUARES).any()
        {
            t.add(us, params::BISHOP_PAIR, 1);
        }
    }

    /// Our king's pawn shield and the enemy pawns storming it, in the middlegame.
    fn king_shield(&self, t: &mut impl Terms) {
        let (us, my_pawns, their_pawns) = (self.us, self.my_pawns, self.their_pawns);
        if let Some(k) = self.my_king {
            let rel = self.flip(k);
            if rel.rank() as u8 <= 1 {
                let files = adjacent_files(k.file()) | Bitboard::from_file(k.file());
                let front = forward_span(us, k);
                let shield = files & front & my_pawns;
                let near = shield
                    .into_iter()
                    .filter(|p| rank_distance(*p, k) <= 2)
                    .count();
                t.add(us, params::KING_SHIELD + near.min(3), 1);
                // Each of the king's files: open (no own pawn), and the nearest storming pawn.
                let mut open = 0;
                for f in [k.file().offset(-1), Some(k.file()), k.file().offset(1)]
                    .into_iter()
                    .flatten()
                {
                    let file = Bitboard::from_file(f);
                    if (file & my_pawns).is_empty() {
                        open += 1;
                    }
                    let storm = file & front & their_pawns;
                    let nearest = storm.into_iter().map(|p| rank_distance(p, k)).min();
                    if let Some(d) = nearest.filter(|d| *d <= 4) {
                        t.add(us, params::KING_STORM + (d.max(2) - 2) as usize, 1);
                    }
                }
                t.add(us, params::KING_OPEN + open, 1);
            }
        }
    }
}

/// A passed pawn: its square, its rank counted from its side, the squares in front on its file.
struct Passer {
    sq: Square,
    rank: usize,
    ahead: Bitboard,
}

/// The terms of a passed pawn of `us`; `only_pawns`: the enemy has no pieces but its king.
fn passed_pawn(board: &Board, us: Color, p: &Passer, only_pawns: bool, t: &mut impl Terms) {
    let rank = p.rank;
    t.add(us, params::PASSED + rank, 1);
    let Some(front) = in_front(us, p.sq) else {
        return;
    };
    if let Some(k) = board.king_of(us) {
        t.add(us, params::PASSED_OUR_KING + rank, k.distance(front) as i32);
    }
    let their_king = board.king_of(!us);
    if let Some(k) = their_king {
        t.add(
            us,
            params::PASSED_THEIR_KING + rank,
            k.distance(front) as i32,
        );
    }
    if !board.occupied().contains(front) {
        t.add(us, params::PASSED_FREE + rank, 1);
    }
    if let Some(k) = their_king.filter(|_| only_pawns && (p.ahead & board.occupied()).is_empty()) {
        let last = us.fold_wb(shakmaty::Rank::Eighth, shakmaty::Rank::First);
        let promotion = Square::from_coords(p.sq.file(), last);
        // Moves to promote (a double step from the second rank) against the king's steps.
        let moves = if rank == 1 { 5 } else { 7 - rank as u32 };
        if k.distance(promotion) > moves + 1 {
            t.add(us, params::UNSTOPPABLE, 1);
        }
    }
}

/// The four central squares d4, e4, d5, e5.
const CENTER: Bitboard = Bitboard(0x0000_0018_1800_0000);

/// The files of the flank of a king on `file`: a-d for files a-c, c-f for d-e, e-h for f-h.
fn flank(file: shakmaty::File) -> Bitboard {
    let (from, to) = match file as u32 {
        0..=2 => (0, 3),
        3 | 4 => (2, 5),
        _ => (4, 7),
    };
    files(from, to)
}

/// The files `from` to `to` (0 is the a-file).
const fn files(from: u32, to: u32) -> Bitboard {
    let byte = ((1u64 << (to - from + 1)) - 1) << from;
    Bitboard(byte * 0x0101_0101_0101_0101)
}

/// The ranks `from` to `to` (0 the first) counted from `color`'s side.
fn relative_ranks(color: Color, from: u32, to: u32) -> Bitboard {
    let (lo, hi) = match color {
        Color::White => (from, to),
        Color::Black => (7 - to, 7 - from),
    };
    let width = 8 * (hi - lo + 1);
    let rows = if width == 64 { !0 } else { (1u64 << width) - 1 };
    Bitboard(rows << (8 * lo))
}

/// Every square that a pawn of `color` in `pawns` attacks now or could attack after moving
/// forward: the adjacent files strictly in front of each pawn.
fn pawn_span(pawns: Bitboard, color: Color) -> Bitboard {
    let mut b = Bitboard::EMPTY;
    for sq in pawns {
        b |= forward_span(color, sq) & adjacent_files(sq.file());
    }
    b
}

/// The space terms of `us`: safe squares on files c to f of our second to fourth rank (no pawn
/// of ours, no enemy pawn attack), and those of them up to three squares behind a pawn of ours.
fn space(us: Color, my_pawns: Bitboard, their_pawn_attacks: Bitboard, t: &mut impl Terms) {
    let central_files = files(2, 5);
    let safe = central_files & relative_ranks(us, 1, 3) & !my_pawns & !their_pawn_attacks;
    let mut behind = Bitboard::EMPTY;
    for k in 1..=3 {
        behind |= if us == Color::White {
            Bitboard(my_pawns.0 >> (8 * k))
        } else {
            Bitboard(my_pawns.0 << (8 * k))
        };
    }
    t.add(us, params::SPACE, safe.count() as i32);
    t.add(us, params::SPACE_BEHIND, (safe & behind).count() as i32);
}

/// The square in front of `sq` from `us`'s side, if any.
fn in_front(us: Color, sq: Square) -> Option<Square> {
    sq.offset(if us == Color::White { 8 } else { -8 })
}

fn rank_distance(a: Square, b: Square) -> i32 {
    (i32::from(a.rank() as u8) - i32::from(b.rank() as u8)).abs()
}

fn pawn_attacks(pawns: Bitboard, color: Color) -> Bitboard {
    let mut a = Bitboard::EMPTY;
    for sq in pawns {
        a |= attacks::pawn_attacks(color, sq);
    }
    a
}

fn adjacent_files(file: shakmaty::File) -> Bitboard {
    let mut b = Bitboard::EMPTY;
    for f in [file.offset(-1), file.offset(1)].into_iter().flatten() {
        b |= Bitboard::from_file(f);
    }
    b
}

/// The squares strictly in front of `sq` (all files) from `color`'s point of view.
fn forward_span(color: Color, sq: Square) -> Bitboard {
    let r = sq.rank() as u32;
    match color {
        Color::White => {
            if r == 7 {
                Bitboard::EMPTY
            } else {
                Bitboard(!0u64 << (8 * (r + 1)))
            }
        }
        Color::Black => Bitboard((1u64 << (8 * r)) - 1),
    }
}

/// Drives the bare king to the edge and the kings together when one side has only a king and
/// no pawns are left, so that the search finds mates the tables do not cover.
pub fn mop_up(board: &Board) -> i32 {
    if board.pawns().any() {
        return 0;
    }
    for strong in Color::ALL {
        let weak = !strong;
        if board.by_color(weak).count() == 1 && non_pawn_material(board, strong) >= 500 {
            let (Some(wk), Some(sk)) = (board.king_of(weak), board.king_of(strong)) else {
                return 0;
            };
            let f = i32::from(wk.file() as u8);
            let r = i32::from(wk.rank() as u8);
            let edge = ((2 * f - 7).abs() + (2 * r - 7).abs()) / 2;
            let kings = wk.distance(sk) as i32;
            let bonus = 300 + 12 * edge + 8 * (7 - kings);
            return if strong == Color::White {
                bonus
            } else {
                -bonus
            };
        }
    }
    0
}

fn non_pawn_material(board: &Board, color: Color) -> i32 {
    [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
        .into_iter()
        .map(|r| piece_value(r) * (board.by_color(color) & board.by_role(r)).count() as i32)
        .sum()
}

/// Whether the side ahead (white when `white_ahead`) cannot win: it has no pawns and at most
/// a minor piece more.
pub fn drawish(board: &Board, white_ahead: bool) -> bool {
    let strong = if white_ahead {
        Color::White
    } else {
        Color::Black
    };
    (board.by_color(strong) & board.pawns()).is_empty()
        && non_pawn_material(board, strong) - non_pawn_material(board, !strong)
            <= piece_value(Role::Bishop)
}

#[cfg(test)]
mod tests {
    use shakmaty::CastlingMode;

    use super::*;

    fn pos(fen: &str) -> Chess {
        crate::fen::parse_fen(fen).expect("legal FEN")
    }

    #[test]
    fn symmetric_positions_evaluate_to_the_tempo() {
        assert_eq!(evaluate(&Chess::default()), TEMPO);
        let p = pos("r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 4 4");
        assert_eq!(evaluate(&p), TEMPO);
    }

    /// `p` with the colours swapped and the board mirrored.
    fn mirrored(p: &Chess) -> Chess {
        p.clone()
            .to_setup(shakmaty::EnPassantMode::Legal)
            .into_mirrored()
            .position(CastlingMode::Standard)
            .expect("the mirror of a legal position is legal")
    }

    #[test]
    fn colour_flip_negates_the_side_to_move_view() {
        for fen in [
            "r1bqk2r/pp1n1ppp/2pbpn2/3p4/2PP4/2NBPN2/PP3PPP/R1BQK2R w KQkq - 2 7",
            "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 99 50",
            "6k1/5p2/6p1/8/7p/8/6PP/6K1 b - - 0 0",
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
        ] {
            let p = pos(fen);
            assert_eq!(evaluate(&p), evaluate(&mirrored(&p)), "{fen}");
        }
    }

    /// `n` positions along random games (10 to 120 plies each) from seed `seed`.
    fn random_positions(seed: u64, n: usize) -> Vec<Chess> {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let mut p = Chess::default();
            for _ in 0..rng.usize(10..120) {
                let moves = p.legal_moves();
                if moves.is_empty() || out.len() == n {
                    break;
                }
                p.play_unchecked(moves[rng.usize(..moves.len())]);
                out.push(p.clone());
            }
        }
        out
    }

    /// 10,000 positions of random games, each evaluated as it is and with colours swapped.
    #[test]
    fn the_evaluation_is_colour_symmetric_on_random_games() {
        for p in random_positions(2026, 10_000) {
            assert_eq!(evaluate(&p), evaluate(&mirrored(&p)), "{}", p.board());
        }
    }

    /// The attack maps the threat and check terms use equal shakmaty's attackers of every
    /// square, on positions of random games.
    #[test]
    fn attack_maps_agree_with_shakmaty() {
        for p in random_positions(7, 2_000) {
            let board = p.board();
            for color in Color::ALL {
                let a = Attacks::of(board, color);
                let expected: Bitboard = Square::ALL
                    .into_iter()
                    .filter(|sq| board.attacks_to(*sq, color, board.occupied()).any())
                    .collect();
                assert_eq!(a.all, expected, "{color:?} {board}");
                let pieces = board.by_color(color) & !board.pawns() & !board.kings();
                assert_eq!(a.pieces().len(), pieces.count(), "{board}");
            }
        }
    }

    /// How often each parameter is used, white's count minus black's.
    struct Count(Vec<i32>);

    impl Terms for Count {
        fn add(&mut self, us: Color, param: usize, n: i32) {
            self.0[param] += if us == Color::White { n } else { -n };
        }
    }

    fn count(fen: &str) -> Vec<i32> {
        let mut c = Count(vec![0; params::COUNT]);
        terms(pos(fen).board(), &mut c);
        c.0
    }

    /// Every parameter's count, not only the weighted sum, is colour-symmetric: a term whose
    /// weight is still zero is checked too.
    #[test]
    fn every_term_is_colour_symmetric_on_random_games() {
        for p in random_positions(2027, 3_000) {
            let mut c = Count(vec![0; params::COUNT]);
            terms(p.board(), &mut c);
            let mut m = Count(vec![0; params::COUNT]);
            terms(mirrored(&p).board(), &mut m);
            let negated: Vec<i32> = m.0.iter().map(|n| -n).collect();
            if c.0 != negated {
                let i = (0..params::COUNT).find(|i| c.0[*i] != negated[*i]);
                panic!("parameter {i:?} differs on {}", p.board());
            }
        }
    }

    #[test]
    fn hanging_men_and_safe_checks_are_counted() {
        // The knight on f4 attacks the rook on d5, undefended, then defended by the pawn on e6.
        assert_eq!(
            count("4k3/8/8/3r4/5N2/8/8/4K3 w - - 0 1")[params::HANGING_PIECE],
            1
        );
        assert_eq!(
            count("4k3/8/4p3/3r4/5N2/8/8/4K3 w - - 0 1")[params::HANGING_PIECE],
            0
        );
        // A pawn on a5 attacked by the rook on a1 and defended by nothing.
        assert_eq!(
            count("4k3/8/8/p7/8/8/8/R3K3 w - - 0 1")[params::HANGING_PAWN],
            1
        );
        // The queen on d1 can check on d8 or h5 (safe), the rook on a2 on a8 (safe).
        let c = count("4k3/8/8/8/8/8/R7/3QK3 w - - 0 1");
        assert_eq!(c[params::SAFE_CHECK + 3], 1);
        assert_eq!(c[params::SAFE_CHECK + 2], 1);
        // The rook on a1 checks safely on a8, until a knight on b6 guards a8.
        assert_eq!(
            count("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")[params::SAFE_CHECK + 2],
            1
        );
        assert_eq!(
            count("4k3/8/1n6/8/8/8/8/R3K3 w - - 0 1")[params::SAFE_CHECK + 2],
            0
        );
    }

    #[test]
    fn pawn_and_king_zone_terms_are_counted() {
        // d3 is backward: c4 is in front of it and e5 guards d4. With c3 beside it, it is not.
        assert_eq!(
            count("4k3/8/8/4p3/2P5/3P4/8/4K3 w - - 0 1")[params::BACKWARD],
            1
        );
        assert_eq!(
            count("4k3/8/8/4p3/8/2PP4/8/4K3 w - - 0 1")[params::BACKWARD],
            0
        );
        // e4-e5 would attack the knight on d6.
        assert_eq!(
            count("4k3/8/3n4/8/4P3/8/8/4K3 w - - 0 1")[params::PUSH_THREAT],
            1
        );
        // The rook on a7 takes d7, e7 and f7 from the king, which alone defends them.
        assert_eq!(
            count("4k3/R7/8/8/8/8/8/4K3 w - - 0 1")[params::WEAK_KING_ZONE],
            3
        );
        // A knight behind its pawn.
        assert_eq!(
            count("4k3/8/8/8/3P4/3N4/8/4K3 w - - 0 1")[params::MINOR_BEHIND_PAWN],
            1
        );
        // The a6 pawn's path is safe, until the king on b8 guards a7 and a8.
        assert_eq!(
            count("4k3/8/P7/8/8/8/8/4K3 w - - 0 1")[params::PASSED_SAFE + 5],
            1
        );
        assert_eq!(
            count("1k6/8/P7/8/8/8/8/4K3 w - - 0 1")[params::PASSED_SAFE + 5],
            0
        );
    }

    /// How often each parameter is used by `color` alone.
    fn count_side(fen: &str, color: Color) -> Vec<i32> {
        struct One(Color, Vec<i32>);
        impl Terms for One {
            fn add(&mut self, us: Color, param: usize, n: i32) {
                if us == self.0 {
                    self.1[param] += n;
                }
            }
        }
        let mut c = One(color, vec![0; params::COUNT]);
        terms(pos(fen).board(), &mut c);
        c.1
    }

    #[test]
    fn space_and_king_terms_are_counted() {
        // With a pawn on d4, white has 11 safe squares on c2-f4, two of them (d2, d3) behind
        // the pawn; black, without pawns, has all 12 of c5-f7.
        let fen = "4k3/8/8/8/3P4/8/8/4K3 w - - 0 1";
        let (w, b) = (count_side(fen, Color::White), count_side(fen, Color::Black));
        assert_eq!((w[params::SPACE], w[params::SPACE_BEHIND]), (11, 2));
        assert_eq!((b[params::SPACE], b[params::SPACE_BEHIND]), (10, 0));
        // A black pawn on c5 attacks b4 and d4, and d4 holds white's pawn: still 11.
        let w = count_side("4k3/8/8/2p5/3P4/8/8/4K3 w - - 0 1", Color::White);
        assert_eq!(w[params::SPACE], 11);
        // A black pawn on e5 attacks d4 and f4: f4 is lost.
        let w = count_side("4k3/8/8/4p3/3P4/8/8/4K3 w - - 0 1", Color::White);
        assert_eq!(w[params::SPACE], 10);
        // King on g1, its nearest pawn on a2 (6 away), its flank (e-h) without pawns; a pawn
        // on h2 fills the flank and is 1 away.
        let w = count_side("4k3/8/8/8/8/8/P7/6K1 w - - 0 1", Color::White);
        assert_eq!(w[params::KING_PAWN_DISTANCE], 6);
        assert_eq!(w[params::PAWNLESS_FLANK], 1);
        let w = count_side("4k3/8/8/8/8/8/P6P/6K1 w - - 0 1", Color::White);
        assert_eq!(w[params::KING_PAWN_DISTANCE], 1);
        assert_eq!(w[params::PAWNLESS_FLANK], 0);
        // A knight on b1 is 5 from its king on g1, a bishop on f1 is 1 away.
        let w = count_side("4k3/8/8/8/8/8/8/1N3BK1 w - - 0 1", Color::White);
        assert_eq!(w[params::KING_PROTECTOR], 5);
        assert_eq!(w[params::KING_PROTECTOR + 1], 1);
    }

    #[test]
    fn piece_terms_are_counted() {
        // Rooks behind the passed pawn on d5: white's, then black's.
        let w = count_side("4k3/8/8/3P4/8/8/8/3R2K1 w - - 0 1", Color::White);
        assert_eq!(w[params::ROOK_BEHIND_PASSER], 1);
        let w = count_side("4k3/8/8/3P4/8/8/8/3r2K1 w - - 0 1", Color::White);
        assert_eq!(
            (
                w[params::ROOK_BEHIND_PASSER],
                w[params::ENEMY_ROOK_BEHIND_PASSER]
            ),
            (0, 1)
        );
        // A rook in front of the pawn is not behind it.
        let w = count_side("3R4/7k/8/3P4/8/8/8/6K1 w - - 0 1", Color::White);
        assert_eq!(w[params::ROOK_BEHIND_PASSER], 0);
        // The rook on g1, shut in by its king on f1 and its pawns.
        let w = count_side("4k3/8/8/8/8/8/5PPP/5KR1 w - - 0 1", Color::White);
        assert_eq!(w[params::TRAPPED_ROOK], 1);
        assert_eq!(w[params::ROOK_PAWNS], 3);
        let w = count_side("4k3/8/8/8/8/8/5PPP/6KR w - - 0 1", Color::White);
        assert_eq!(w[params::TRAPPED_ROOK], 1);
        let w = count_side("4k3/8/8/8/8/8/5PPP/R5K1 w - - 0 1", Color::White);
        assert_eq!(w[params::TRAPPED_ROOK], 0);
        // A bishop on b2 sees d4 and e5, until a pawn stands on d4.
        let w = count_side("4k3/8/8/8/8/8/1B6/4K3 w - - 0 1", Color::White);
        assert_eq!(w[params::LONG_DIAGONAL], 1);
        let w = count_side("4k3/8/8/8/3P4/8/1B6/4K3 w - - 0 1", Color::White);
        assert_eq!(w[params::LONG_DIAGONAL], 0);
        // The pawn on e4 makes d5 an outpost the knight on c3 can reach; a black pawn on c7
        // could attack d5, and f5 is out of the knight's reach.
        let w = count_side("4k3/8/8/8/4P3/2N5/8/4K3 w - - 0 1", Color::White);
        assert_eq!(w[params::REACHABLE_OUTPOST], 1);
        assert_eq!(w[params::KNIGHT_PAWNS], 1);
        let w = count_side("4k3/2p5/8/8/4P3/2N5/8/4K3 w - - 0 1", Color::White);
        assert_eq!(w[params::REACHABLE_OUTPOST], 0);
        // The knight on d5 stands on that outpost.
        let w = count_side("4k3/8/8/3N4/4P3/8/8/4K3 w - - 0 1", Color::White);
        assert_eq!(w[params::OUTPOST], 1);
        let w = count_side("4k3/2p5/8/3N4/4P3/8/8/4K3 w - - 0 1", Color::White);
        assert_eq!(w[params::OUTPOST], 0);
        // Both rooks attack a8 and b1; nothing else is attacked by both sides.
        let fen = "1r2k3/8/8/8/8/8/8/R3K3 w - - 0 1";
        assert_eq!(count_side(fen, Color::White)[params::RESTRICTED], 2);
        assert_eq!(count_side(fen, Color::Black)[params::RESTRICTED], 2);
        // The isolated a-pawn is unopposed, until a black pawn stands on a7.
        let w = count_side("4k3/8/8/8/8/8/P7/4K3 w - - 0 1", Color::White);
        assert_eq!(w[params::WEAK_UNOPPOSED], 1);
        let w = count_side("4k3/p7/8/8/8/8/P7/4K3 w - - 0 1", Color::White);
        assert_eq!(w[params::WEAK_UNOPPOSED], 0);
    }

    #[test]
    fn material_and_structure_point_the_right_way() {
        // White is a queen up.
        assert!(evaluate(&pos("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")) > 800);
        assert!(evaluate(&pos("4k3/8/8/8/8/8/8/3QK3 b - - 0 1")) < -800);
        // A passed pawn on the seventh is worth more than one on the second.
        let far = evaluate(&pos("7k/3P4/8/8/8/8/8/K7 w - - 0 1"));
        let near = evaluate(&pos("7k/8/8/8/8/8/3P4/K7 w - - 0 1"));
        assert!(far > near + 50, "{far} {near}");
        // A lone extra knight does not count as winning.
        assert!(evaluate(&pos("4k3/8/8/8/8/8/8/3NK3 w - - 0 1")) < 100);
    }
}
