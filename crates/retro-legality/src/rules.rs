//! Static rules: properties of a position alone that prove it illegal. Every rule here is a
//! theorem about games from the starting position; none may ever reject a legal position.

use std::fmt;

use shakmaty::{attacks, Bitboard, Color, File, Rank, Role, Square};

use super::position::RawPosition;

/// A static rule that a position breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// A side without a king.
    NoKing(Color),
    /// A side with more than one king.
    TooManyKings(Color),
    /// The kings stand next to each other.
    KingsAdjacent,
    /// A pawn on the first or last rank.
    PawnOnBackRank,
    /// More than 16 pieces of one colour.
    TooManyPieces(Color),
    /// More pawns and promoted pieces than the eight pawns a side starts with.
    TooManyPromoted(Color),
    /// As [`Rule::TooManyPromoted`], only once bishops are counted per square colour.
    BishopColours(Color),
    /// The pawns of a side stand on files that need more captures than the opponent has lost
    /// pieces.
    PawnCaptures(Color),
    /// The side not to move is in check.
    OpponentInCheck,
    /// Three or more pieces give check.
    TripleCheck,
    /// Two pieces give check, neither of them a line piece: no single move does that.
    ImpossibleDoubleCheck,
    /// A castling right without the king and the rook on their starting squares.
    CastlingRights,
    /// An en passant square that no double pawn push can have left.
    EnPassantSquare,
}

fn side(c: Color) -> &'static str {
    c.fold_wb("white", "black")
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Rule::NoKing(c) => write!(f, "no {} king", side(c)),
            Rule::TooManyKings(c) => write!(f, "more than one {} king", side(c)),
            Rule::KingsAdjacent => f.write_str("the kings are adjacent"),
            Rule::PawnOnBackRank => f.write_str("a pawn on the first or last rank"),
            Rule::TooManyPieces(c) => write!(f, "more than 16 {} pieces", side(c)),
            Rule::TooManyPromoted(c) => {
                write!(f, "too many {} pawns and promoted pieces", side(c))
            }
            Rule::BishopColours(c) => write!(
                f,
                "too many {} bishops on one square colour for the promotions left",
                side(c)
            ),
            Rule::PawnCaptures(c) => write!(
                f,
                "the {} pawns need more captures than the opponent has missing pieces",
                side(c)
            ),
            Rule::OpponentInCheck => f.write_str("the side not to move is in check"),
            Rule::TripleCheck => f.write_str("three or more pieces give check"),
            Rule::ImpossibleDoubleCheck => {
                f.write_str("a double check by two pieces that no single move can give")
            }
            Rule::CastlingRights => {
                f.write_str("a castling right without the king and the rook on their squares")
            }
            Rule::EnPassantSquare => {
                f.write_str("an en passant square that no double pawn push can have left")
            }
        }
    }
}

/// The first static rule `p` breaks, if any.
/// The rule that the position of `fen` breaks, if it is a FEN and breaks one: the one wording of
/// an illegal position that every front end uses (where shakmaty refuses a position, this
/// says why in the legality analysis's words).
pub fn broken_by_fen(fen: &str) -> Option<Rule> {
    RawPosition::from_fen(fen).ok().and_then(|p| check(&p))
}

/// The first rule of the game that `p` breaks, if any.
pub fn check(p: &RawPosition) -> Option<Rule> {
    for c in Color::ALL {
        match p.of(c, Role::King).count() {
            0 => return Some(Rule::NoKing(c)),
            1 => {}
            _ => return Some(Rule::TooManyKings(c)),
        }
    }
    let (Some(wk), Some(bk)) = (p.king(Color::White), p.king(Color::Black)) else {
        return Some(Rule::NoKing(Color::White));
    };
    if attacks::king_attacks(wk).contains(bk) {
        return Some(Rule::KingsAdjacent);
    }
    let pawns = p.board.pawns();
    if (pawns & (Bitboard::from(Rank::First) | Bitboard::from(Rank::Eighth))).any() {
        return Some(Rule::PawnOnBackRank);
    }
    if let Some(r) = check_material(p) {
        return Some(r);
    }
    if p.checkers(p.turn.other()).any() {
        return Some(Rule::OpponentInCheck);
    }
    let checkers = p.checkers(p.turn);
    if checkers.count() >= 3 {
        return Some(Rule::TripleCheck);
    }
    if checkers.count() == 2 && (checkers & p.board.sliders()).is_empty() {
        return Some(Rule::ImpossibleDoubleCheck);
    }
    if !castling_ok(p) {
        return Some(Rule::CastlingRights);
    }
    if !ep_ok(p) {
        return Some(Rule::EnPassantSquare);
    }
    None
}

/// The rules on piece counts, promotions and pawn captures, for both colours.
pub fn check_material(p: &RawPosition) -> Option<Rule> {
    let counts = p.counts();
    for c in Color::ALL {
        let n = counts.get(c);
        if n.total > 16 {
            return Some(Rule::TooManyPieces(c));
        }
        let pawns = n.by_role.pawn;
        if pawns + n.promoted_ignoring_bishop_colours() > 8 {
            return Some(Rule::TooManyPromoted(c));
        }
        if pawns + n.promoted() > 8 {
            return Some(Rule::BishopColours(c));
        }
        let missing_opponents = 16 - counts.get(c.other()).total.min(16);
        if pawn_captures(p.of(c, Role::Pawn)) > missing_opponents {
            return Some(Rule::PawnCaptures(c));
        }
    }
    None
}

/// The fewest captures that bring pawns from distinct starting files to the files of `pawns`
/// (a pawn changes file only by capturing, one file per capture). More than eight pawns cost
/// `usize::MAX`.
pub fn pawn_captures(pawns: Bitboard) -> usize {
    let mut files: Vec<usize> = pawns.into_iter().map(|s| s.file() as usize).collect();
    files.sort_unstable();
    let n = files.len();
    if n > 8 {
        return usize::MAX;
    }
    // best[i][j]: the first i pawns (by file) matched, in order, to starting files among the
    // first j. Matching on a line by |difference| is optimal in order.
    const INF: usize = usize::MAX / 2;
    let mut best = [[INF; 9]; 9];
    for row in best.iter_mut().take(1) {
        row.fill(0);
    }
    for i in 1..=n {
        for j in 1..=8 {
            let skip = best[i][j - 1];
            let take = best[i - 1][j - 1] + files[i - 1].abs_diff(j - 1);
            best[i][j] = skip.min(take);
        }
    }
    best[n][8]
}

/// Every castling right has its king on e1/e8 and its rook on a corner of its own back rank.
fn castling_ok(p: &RawPosition) -> bool {
    p.castling.into_iter().all(|sq| {
        let color = if sq.rank() == Rank::First {
            Color::White
        } else if sq.rank() == Rank::Eighth {
            Color::Black
        } else {
            return false;
        };
        let corner = sq.file() == File::A || sq.file() == File::H;
        let king_home = Square::from_coords(File::E, RawPosition::back_rank(color));
        corner
            && p.of(color, Role::Rook).contains(sq)
            && p.of(color, Role::King).contains(king_home)
    })
}

/// The en passant square, if any, is the square behind a pawn of the side not to move that
/// stands on its fourth rank, with the square it came from empty.
fn ep_ok(p: &RawPosition) -> bool {
    let Some(ep) = p.ep else {
        return true;
    };
    let mover = p.turn.other();
    let (ep_rank, dir): (Rank, i32) = mover.fold_wb((Rank::Third, 8), (Rank::Sixth, -8));
    if ep.rank() != ep_rank {
        return false;
    }
    let (Some(pawn_sq), Some(from_sq)) = (ep.offset(dir), ep.offset(-dir)) else {
        return false;
    };
    p.of(mover, Role::Pawn).contains(pawn_sq)
        && !p.board.occupied().contains(ep)
        && !p.board.occupied().contains(from_sq)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(fen: &str) -> Option<Rule> {
        check(&RawPosition::from_fen(fen).expect("fen"))
    }

    #[test]
    fn start_position_breaks_no_rule() {
        assert_eq!(check(&RawPosition::start()), None);
    }

    #[test]
    fn kings() {
        assert_eq!(
            rule("8/8/8/8/8/8/8/K7 w - - 0 1"),
            Some(Rule::NoKing(Color::Black))
        );
        assert_eq!(
            rule("k7/8/8/8/8/8/8/K6K w - - 0 1"),
            Some(Rule::TooManyKings(Color::White))
        );
        assert_eq!(
            rule("8/8/8/8/8/8/8/Kk6 w - - 0 1"),
            Some(Rule::KingsAdjacent)
        );
        assert_eq!(rule("k7/8/8/8/8/8/8/K7 w - - 0 1"), None);
    }

    #[test]
    fn pawns_on_back_ranks() {
        assert_eq!(
            rule("kP6/8/8/8/8/8/8/K7 w - - 0 1"),
            Some(Rule::PawnOnBackRank)
        );
        assert_eq!(
            rule("k7/8/8/8/8/8/8/K5p1 w - - 0 1"),
            Some(Rule::PawnOnBackRank)
        );
    }

    #[test]
    fn piece_counts_and_promotions() {
        // Eighteen white units.
        assert_eq!(
            rule("k7/8/8/8/8/QQ6/PPPPPPPP/RNBQKBNR w - - 0 1"),
            Some(Rule::TooManyPieces(Color::White))
        );
        // Nine white pawns.
        assert_eq!(
            rule("k7/8/8/8/P7/8/PPPPPPPP/K7 w - - 0 1"),
            Some(Rule::TooManyPromoted(Color::White))
        );
        // Eight pawns and a second queen.
        assert_eq!(
            rule("k7/8/8/8/8/8/PPPPPPPP/KQQ5 w - - 0 1"),
            Some(Rule::TooManyPromoted(Color::White))
        );
        // Seven pawns and two promoted pieces (three knights, two dark bishops).
        assert_eq!(
            rule("k7/8/8/8/8/8/P1PPPPPP/KNNNB1B1 w - - 0 1"),
            Some(Rule::BishopColours(Color::White))
        );
        // Seven pawns, a third knight: one promotion, fine.
        assert_eq!(rule("k7/8/8/8/8/8/1PPPPPPP/KNNN4 w - - 0 1"), None);
        // Three light bishops and seven pawns: two promotions needed, one pawn missing.
        assert_eq!(
            rule("k7/8/8/8/8/8/1PPPPPPP/KB1B1B2 w - - 0 1"),
            Some(Rule::BishopColours(Color::White))
        );
    }

    #[test]
    fn pawn_captures_by_files() {
        let files = |s: &[Square]| s.iter().fold(Bitboard::EMPTY, |b, &q| b | q);
        assert_eq!(pawn_captures(Bitboard::EMPTY), 0);
        assert_eq!(pawn_captures(files(&[Square::A2, Square::A3])), 1);
        assert_eq!(
            pawn_captures(files(&[Square::A2, Square::A3, Square::A4])),
            3
        );
        assert_eq!(
            pawn_captures(files(&[Square::H2, Square::H3, Square::H4, Square::H5])),
            1 + 2 + 3
        );
        // The e pawn on f4 with all other pawns home needs one capture; black has all 16.
        assert_eq!(
            rule("rnbqkbnr/pppppppp/8/8/5P2/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1"),
            Some(Rule::PawnCaptures(Color::White))
        );
        // The same with a black pawn missing is fine statically.
        assert_eq!(
            rule("rnbqkbnr/ppppppp1/8/8/5P2/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1"),
            None
        );
    }

    #[test]
    fn checks() {
        assert_eq!(rule("k7/8/8/8/8/8/8/RK6 b - - 0 1"), None);
        assert_eq!(
            rule("k7/8/8/8/8/8/8/RK6 w - - 0 1"),
            Some(Rule::OpponentInCheck)
        );
        assert_eq!(rule("k7/8/1N6/8/8/8/R7/K7 b - - 0 1"), None);
        assert_eq!(
            rule("k7/1P6/1N6/8/8/8/R7/K7 b - - 0 1"),
            Some(Rule::TripleCheck)
        );
        assert_eq!(
            rule("k7/1P6/1N6/8/8/8/8/K7 b - - 0 1"),
            Some(Rule::ImpossibleDoubleCheck)
        );
    }

    #[test]
    fn castling_rights() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        assert_eq!(rule(&format!("{start} w KQkq - 0 1")), None);
        assert_eq!(
            rule("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w KQkq - 0 1"),
            Some(Rule::NoKing(Color::White))
        );
        assert_eq!(
            rule("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1KNR w KQkq - 0 1"),
            Some(Rule::CastlingRights)
        );
        assert_eq!(
            rule("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w Kkq - 0 1"),
            Some(Rule::CastlingRights)
        );
        assert_eq!(
            rule("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w Qkq - 0 1"),
            None
        );
    }

    #[test]
    fn en_passant_square() {
        assert_eq!(rule("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"), None);
        assert_eq!(
            rule("4k3/8/8/3pP3/8/8/8/4K3 w - e6 0 1"),
            Some(Rule::EnPassantSquare)
        );
        assert_eq!(
            rule("4k3/3p4/8/3pP3/8/8/8/4K3 w - d6 0 1"),
            Some(Rule::EnPassantSquare)
        );
        assert_eq!(
            rule("4k3/8/8/3pP3/8/8/8/4K3 b - d6 0 1"),
            Some(Rule::EnPassantSquare)
        );
        assert_eq!(rule("4k3/8/8/8/3Pp3/8/8/4K3 b - d3 0 1"), None);
    }
}
