//! Static evaluation: tapered material and piece-square values, pawn structure, mobility, king
//! safety, rooks on open files, the bishop pair and a mop-up term for won pawnless endings.
//!
//! The piece-square values are generated from a few geometric rules (centralisation, pawn
//! advance, a sheltered king in the middlegame and a central one in the endgame) rather than
//! tuned tables. Scores are in centipawns from the side to move's point of view.

use std::sync::LazyLock;

use shakmaty::{attacks, Bitboard, Board, Chess, Color, Position, Role, Square};

/// Middlegame and endgame values of a pair.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
struct S(i32, i32);

impl std::ops::Add for S {
    type Output = S;
    fn add(self, o: S) -> S {
        S(self.0 + o.0, self.1 + o.1)
    }
}

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

/// Material values (middlegame, endgame) of pawn, knight, bishop, rook, queen, king.
const MATERIAL: [S; 6] = [
    S(90, 120),
    S(330, 300),
    S(340, 320),
    S(480, 520),
    S(980, 960),
    S(0, 0),
];

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
const MAX_PHASE: i32 = 24;

const PASSED: [S; 8] = [
    S(0, 0),
    S(5, 10),
    S(8, 15),
    S(14, 25),
    S(25, 45),
    S(45, 75),
    S(70, 115),
    S(0, 0),
];
const DOUBLED: S = S(-10, -20);
const ISOLATED: S = S(-12, -14);
const SUPPORTED: S = S(7, 6);
const ROOK_OPEN: S = S(22, 10);
const ROOK_SEMI_OPEN: S = S(10, 5);
const BISHOP_PAIR: S = S(30, 50);
const TEMPO: i32 = 10;
/// Mobility weight and typical square count of knight, bishop, rook and queen.
const MOBILITY: [(S, i32); 4] = [(S(4, 4), 4), (S(5, 5), 6), (S(2, 4), 7), (S(1, 2), 13)];
/// Attack units on the king zone per attacking knight, bishop, rook and queen.
const ATTACK_UNITS: [i32; 4] = [2, 2, 3, 5];

/// Piece-square values from white's point of view, indexed by role and square.
static PST: LazyLock<[[S; 64]; 6]> = LazyLock::new(|| {
    let mut t = [[S(0, 0); 64]; 6];
    for sq in Square::ALL {
        let f = i32::from(sq.file() as u8);
        let r = i32::from(sq.rank() as u8);
        // Distance from the centre: 0 on d4-e5, 6 in the corners.
        let dc = ((2 * f - 7).abs() + (2 * r - 7).abs()) / 2 - 1;
        let i = sq as usize;
        let centre_file = [0, 2, 5, 10, 10, 5, 2, 0][f as usize];
        t[0][i] = if (1..7).contains(&r) {
            let adv = [0, 0, 4, 8, 14, 22, 32, 0][r as usize];
            let mid = if (2..=4).contains(&r) {
                centre_file * 2
            } else {
                0
            };
            S(adv + mid, [0, 0, 4, 10, 20, 34, 52, 0][r as usize])
        } else {
            S(0, 0)
        };
        t[1][i] = S(24 - 9 * dc, 16 - 6 * dc);
        let diag = if f == r || f + r == 7 { 6 } else { 0 };
        t[2][i] = S(12 - 4 * dc + diag, 10 - 3 * dc);
        let seventh = if r == 6 { S(18, 12) } else { S(0, 0) };
        t[3][i] = seventh + S(centre_file / 2, 0);
        t[4][i] = S(6 - 2 * dc, 10 - 4 * dc);
        let king_mg = match r {
            0 => [18, 28, 8, -6, -6, 8, 28, 18][f as usize],
            1 => [8, 6, -8, -16, -16, -8, 6, 8][f as usize],
            _ => -24 - 12 * (r - 2),
        };
        t[5][i] = S(king_mg, 30 - 10 * dc);
    }
    t
});

fn role_index(role: Role) -> usize {
    role as usize - 1
}

/// The evaluation of `pos` in centipawns for the side to move.
pub fn evaluate(pos: &Chess) -> i32 {
    let board = pos.board();
    let mut score = S(0, 0);
    let mut phase = 0;
    for color in Color::ALL {
        let mut s = side(board, color);
        for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
            phase += PHASE[role_index(role)]
                * (board.by_color(color) & board.by_role(role)).count() as i32;
        }
        if color == Color::Black {
            s = S(-s.0, -s.1);
        }
        score += s;
    }
    let phase = phase.min(MAX_PHASE);
    let mut v = (score.0 * phase + score.1 * (MAX_PHASE - phase)) / MAX_PHASE;
    v += mop_up(board);
    v = scale_drawish(board, v);
    let v = if pos.turn() == Color::White { v } else { -v };
    v + TEMPO
}

/// Everything for one side, in white's orientation for white and mirrored for black.
fn side(board: &Board, us: Color) -> S {
    let pst = &*PST;
    let them = !us;
    let ours = board.by_color(us);
    let theirs = board.by_color(them);
    let occupied = board.occupied();
    let my_pawns = ours & board.pawns();
    let their_pawns = theirs & board.pawns();
    let flip = |sq: Square| {
        if us == Color::White {
            sq
        } else {
            sq.flip_vertical()
        }
    };

    let mut s = S(0, 0);
    for sq in ours {
        if let Some(role) = board.role_at(sq) {
            let r = role_index(role);
            s += MATERIAL[r] + pst[r][flip(sq) as usize];
        }
    }

    // Pawn structure.
    let their_pawn_attacks = pawn_attacks(their_pawns, them);
    let my_pawn_attacks = pawn_attacks(my_pawns, us);
    for sq in my_pawns {
        let file = sq.file();
        let file_bb = Bitboard::from_file(file);
        let adjacent = adjacent_files(file);
        if (my_pawns & file_bb).count() > 1 {
            // Each extra pawn of a file once: count on all but the frontmost.
            let ahead = forward_span(us, sq) & file_bb;
            if (ahead & my_pawns).any() {
                s += DOUBLED;
            }
        }
        if (my_pawns & adjacent).is_empty() {
            s += ISOLATED;
        }
        if my_pawn_attacks.contains(sq) {
            s += SUPPORTED;
        }
        let front = forward_span(us, sq) & (file_bb | adjacent);
        if (front & their_pawns).is_empty()
            && (forward_span(us, sq) & file_bb & my_pawns).is_empty()
        {
            let rel_rank = flip(sq).rank() as usize;
            s += PASSED[rel_rank];
        }
    }

    // Mobility, king attacks, rooks on open files.
    let their_king = board.king_of(them);
    let king_zone = their_king.map_or(Bitboard::EMPTY, |k| {
        attacks::king_attacks(k) | Bitboard::from(k)
    });
    let mut attackers = 0;
    let mut units = 0;
    for (i, role) in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
        .into_iter()
        .enumerate()
    {
        for sq in ours & board.by_role(role) {
            let att = match role {
                Role::Knight => attacks::knight_attacks(sq),
                Role::Bishop => attacks::bishop_attacks(sq, occupied),
                Role::Rook => attacks::rook_attacks(sq, occupied),
                _ => attacks::queen_attacks(sq, occupied),
            };
            let mobile = (att & !ours & !their_pawn_attacks).count() as i32;
            let (w, typical) = MOBILITY[i];
            s += w * (mobile - typical);
            if (att & king_zone).any() {
                attackers += 1;
                units += ATTACK_UNITS[i] * (att & king_zone).count() as i32;
            }
            if role == Role::Rook {
                let file_bb = Bitboard::from_file(sq.file());
                if (file_bb & board.pawns()).is_empty() {
                    s += ROOK_OPEN;
                } else if (file_bb & my_pawns).is_empty() {
                    s += ROOK_SEMI_OPEN;
                }
            }
        }
    }
    if attackers >= 2 && (ours & board.queens()).any() {
        let u = units.min(40);
        s += S(u * u / 3, 0);
    }
    if (ours & board.bishops() & Bitboard::LIGHT_SQUARES).any()
        && (ours & board.bishops() & Bitboard::DARK_SQUARES).any()
    {
        s += BISHOP_PAIR;
    }

    // Our king's pawn shield in the middlegame.
    if let Some(k) = board.king_of(us) {
        let rel = flip(k);
        if rel.rank() as u8 <= 1 {
            let files = adjacent_files(k.file()) | Bitboard::from_file(k.file());
            let shield = files & forward_span(us, k) & my_pawns;
            let near = shield
                .into_iter()
                .filter(|p| rank_distance(*p, k) <= 2)
                .count() as i32;
            s += S(10 * near.min(3), 0);
            let open = [k.file().offset(-1), Some(k.file()), k.file().offset(1)]
                .into_iter()
                .flatten()
                .filter(|f| (Bitboard::from_file(*f) & my_pawns).is_empty())
                .count() as i32;
            s -= S(14 * open, 0);
        }
    }
    s
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
fn mop_up(board: &Board) -> i32 {
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

/// Scales down evaluations where the side ahead cannot win: no pawns and at most a minor piece
/// more.
fn scale_drawish(board: &Board, v: i32) -> i32 {
    let strong = if v > 0 { Color::White } else { Color::Black };
    if (board.by_color(strong) & board.pawns()).is_empty() {
        let diff = non_pawn_material(board, strong) - non_pawn_material(board, !strong);
        if diff <= piece_value(Role::Bishop) {
            return v / 8;
        }
    }
    v
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

    #[test]
    fn colour_flip_negates_the_side_to_move_view() {
        for fen in [
            "r1bqk2r/pp1n1ppp/2pbpn2/3p4/2PP4/2NBPN2/PP3PPP/R1BQK2R w KQkq - 2 7",
            "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 99 50",
            "6k1/5p2/6p1/8/7p/8/6PP/6K1 b - - 0 0",
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
        ] {
            let p = pos(fen);
            let flipped: Chess = p
                .clone()
                .to_setup(shakmaty::EnPassantMode::Legal)
                .into_mirrored()
                .position(CastlingMode::Standard)
                .expect("mirrored");
            assert_eq!(evaluate(&p), evaluate(&flipped), "{fen}");
        }
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
