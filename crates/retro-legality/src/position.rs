//! A position exactly as a FEN states it, without any validation: the legality analysis must be
//! able to look at positions that shakmaty's `Chess` refuses (both kings in check, nine queens).

use std::fmt;

use shakmaty::{
    fen::Fen, Bitboard, Board, ByColor, ByRole, CastlingMode, Color, EnPassantMode, Piece, Rank,
    Role, Setup, Square,
};

/// A position as given: placement, side to move, castling rights (as the squares of the rooks
/// that keep them) and the en passant square.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RawPosition {
    /// The pieces.
    pub board: Board,
    /// The side to move.
    pub turn: Color,
    /// Castling rights as rook squares (a1, h1, a8, h8 in standard chess).
    pub castling: Bitboard,
    /// The en passant square: the square a pawn skipped in a double push just played.
    pub ep: Option<Square>,
}

/// Why a FEN could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// Not a FEN.
    #[error("malformed FEN: {0}")]
    Malformed(#[from] shakmaty::fen::ParseFenError),
    /// A castling field that names rook files (Shredder-FEN): a Chess960 position, while the
    /// analysis proves positions from the standard starting position only.
    #[error(
        "castling field '{0}' names rook files (Chess960): the legality analysis proves \
         positions from the standard starting position only"
    )]
    Chess960(String),
}

impl RawPosition {
    /// Reads a FEN without judging the position. Move counters are ignored.
    ///
    /// # Errors
    /// A malformed FEN.
    pub fn from_fen(fen: &str) -> Result<RawPosition, FenError> {
        let text = fen.trim();
        let fen: Fen = text.parse()?;
        // A FEN, whose castling field is its third word.
        if let Some(castling) = text.split_whitespace().nth(2) {
            if castling != "-" && !castling.chars().all(|c| "KQkq".contains(c)) {
                return Err(FenError::Chess960(castling.to_string()));
            }
        }
        let setup = fen.into_setup();
        Ok(RawPosition {
            board: setup.board,
            turn: setup.turn,
            castling: setup.castling_rights,
            ep: setup.ep_square,
        })
    }

    /// The standard starting position.
    pub fn start() -> RawPosition {
        let s = Setup::default();
        RawPosition {
            board: s.board,
            turn: s.turn,
            castling: s.castling_rights,
            ep: None,
        }
    }

    /// The position as a FEN (move counters 0 1).
    pub fn fen(&self) -> String {
        Fen::try_from_setup(self.setup())
            .map(|f| f.to_string())
            .unwrap_or_else(|_| "(unrepresentable position)".to_string())
    }

    /// As a shakmaty setup (move counters 0 1).
    pub fn setup(&self) -> Setup {
        let mut setup = Setup::empty();
        setup.board = self.board.clone();
        setup.turn = self.turn;
        setup.castling_rights = self.castling;
        setup.ep_square = self.ep;
        setup.halfmoves = 0;
        setup.fullmoves = std::num::NonZeroU32::MIN;
        setup
    }

    /// Pieces of `color`.
    pub fn pieces(&self, color: Color) -> Bitboard {
        self.board.by_color(color)
    }

    /// Pieces of `color` and `role`.
    pub fn of(&self, color: Color, role: Role) -> Bitboard {
        self.board.by_piece(Piece { color, role })
    }

    /// The square of `color`'s king when it has exactly one.
    pub fn king(&self, color: Color) -> Option<Square> {
        self.of(color, Role::King).single_square()
    }

    /// The pieces of `by` attacking `sq`.
    pub fn attackers(&self, sq: Square, by: Color) -> Bitboard {
        self.board.attacks_to(sq, by, self.board.occupied())
    }

    /// The pieces giving check to `color`'s king (empty without a single king).
    pub fn checkers(&self, color: Color) -> Bitboard {
        self.king(color)
            .map_or(Bitboard::EMPTY, |k| self.attackers(k, color.other()))
    }

    /// Per colour and role, the number of pieces; bishops also by square colour in
    /// `Counts::light` and `Counts::dark`.
    pub fn counts(&self) -> ByColor<Counts> {
        ByColor::new_with(|color| {
            let by_role = ByRole::new_with(|role| self.of(color, role).count());
            let bishops = self.of(color, Role::Bishop);
            Counts {
                by_role,
                light: (bishops & Bitboard::LIGHT_SQUARES).count(),
                dark: (bishops & Bitboard::DARK_SQUARES).count(),
                total: self.pieces(color).count(),
            }
        })
    }

    /// The first rank of `color`.
    pub fn back_rank(color: Color) -> Rank {
        color.fold_wb(Rank::First, Rank::Eighth)
    }

    /// Whether this is the standard starting position (rights and side to move included).
    pub fn is_start(&self) -> bool {
        *self == RawPosition::start()
    }

    /// A shakmaty position, when shakmaty accepts it as legal (used for checks and tests).
    pub fn to_chess(&self) -> Option<shakmaty::Chess> {
        self.setup().position(CastlingMode::Standard).ok()
    }

    /// The en passant square as shakmaty would print it (only when a capture is legal).
    pub fn legal_ep(&self) -> Option<Square> {
        use shakmaty::Position;
        self.to_chess()
            .and_then(|c| c.ep_square(EnPassantMode::Legal))
    }
}

/// Piece counts of one colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Pieces per role.
    pub by_role: ByRole<usize>,
    /// Bishops on light squares.
    pub light: usize,
    /// Bishops on dark squares.
    pub dark: usize,
    /// All pieces, king included.
    pub total: usize,
}

impl Counts {
    /// Pieces that must have come from promotions: beyond one queen, two rooks, two knights
    /// and one bishop of each square colour.
    pub fn promoted(&self) -> usize {
        let r = &self.by_role;
        r.queen.saturating_sub(1)
            + r.rook.saturating_sub(2)
            + r.knight.saturating_sub(2)
            + self.light.saturating_sub(1)
            + self.dark.saturating_sub(1)
    }

    /// As [`Counts::promoted`], with bishops counted without their square colour.
    pub fn promoted_ignoring_bishop_colours(&self) -> usize {
        let r = &self.by_role;
        r.queen.saturating_sub(1)
            + r.rook.saturating_sub(2)
            + r.knight.saturating_sub(2)
            + r.bishop.saturating_sub(2)
    }
}

impl fmt::Display for RawPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_positions_shakmaty_refuses() {
        let p = RawPosition::from_fen("8/8/8/8/8/8/8/Kk6 w - - 0 1").expect("fen");
        assert!(p.to_chess().is_none());
        assert_eq!(p.fen(), "8/8/8/8/8/8/8/Kk6 w - - 0 1");
        assert!(RawPosition::from_fen("8/8/8/8/8/8/8/Kk5 w - - 0 1").is_err());
        assert!(RawPosition::start().is_start());
    }

    #[test]
    fn chess960_castling_fields_are_refused_by_name() {
        let e = RawPosition::from_fen("nrkbbrqn/pppppppp/8/8/8/8/PPPPPPPP/NRKBBRQN w FBfb - 0 1")
            .expect_err("Chess960");
        assert_eq!(e, FenError::Chess960("FBfb".to_string()));
        assert!(
            e.to_string().contains("standard starting position only"),
            "{e}"
        );
        assert!(RawPosition::from_fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1").is_ok());
        assert!(matches!(
            RawPosition::from_fen("garbage"),
            Err(FenError::Malformed(_))
        ));
        assert!(matches!(
            RawPosition::from_fen("not a fen"),
            Err(FenError::Malformed(_))
        ));
    }

    #[test]
    fn counts_and_promotions() {
        let p = RawPosition::from_fen("4k3/8/8/8/8/8/8/QQBB1K1B w - - 0 1").expect("fen");
        let c = p.counts();
        assert_eq!(c.white.by_role.queen, 2);
        assert_eq!((c.white.light, c.white.dark), (2, 1));
        assert_eq!(c.white.promoted(), 2);
        assert_eq!(c.white.promoted_ignoring_bishop_colours(), 2);
        assert_eq!(c.white.total, 6);
    }
}
