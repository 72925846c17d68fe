//! Random positions of a material, uniform over its legal placements with either side to move,
//! leaving out positions where the game is already over by checkmate or stalemate.
//!
//! Rejection sampling: every piece goes to a uniformly drawn free square (pawns on ranks 2 to 7)
//! and a fair coin picks the side to move; a draw that is illegal (the side not to move in
//! check, kings touching, ...) or finished is thrown away. Each legal position is reached from
//! the same number of labelled draws (its identical pieces permuted), so the positions kept are
//! uniform. Positions carry no castling rights and no en passant square.

use shakmaty::{Bitboard, Board, CastlingMode, Chess, Color, Piece, Position, Setup, Square};

use retro_tables::Material;

/// Draws at most per position before giving up (no material a table holds needs more than a
/// handful: most placements are legal).
const MAX_TRIES: usize = 100_000;

/// Why no random position could be drawn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RandomError {
    /// The pieces do not fit on the board (more than 8 pawns a side or 48 pawns' squares).
    #[error("{0}: too many pawns for one board")]
    TooManyPawns(String),
    /// No legal, unfinished position was found.
    #[error("{0}: no legal position found in {MAX_TRIES} draws")]
    NoneFound(String),
}

/// One random legal position of `material` (not checkmate, not stalemate).
///
/// # Errors
/// When the material cannot be placed legally.
pub fn random_position(material: Material, rng: &mut fastrand::Rng) -> Result<Chess, RandomError> {
    let name = material.name();
    for color in Color::ALL {
        if material.count(color, shakmaty::Role::Pawn) > 8 {
            return Err(RandomError::TooManyPawns(name));
        }
    }
    let slots = material.slots();
    for _ in 0..MAX_TRIES {
        if let Some(pos) = draw(&slots, rng) {
            return Ok(pos);
        }
    }
    Err(RandomError::NoneFound(name))
}

/// One draw: the position if it is legal and not finished.
fn draw(slots: &[(Color, shakmaty::Role)], rng: &mut fastrand::Rng) -> Option<Chess> {
    let mut board = Board::empty();
    let mut occupied = Bitboard::EMPTY;
    for &(color, role) in slots {
        let allowed = if role == shakmaty::Role::Pawn {
            !(Bitboard::BACKRANKS) & !occupied
        } else {
            !occupied
        };
        let n = allowed.count();
        if n == 0 {
            return None;
        }
        let sq: Square = allowed.into_iter().nth(rng.usize(..n))?;
        occupied.add(sq);
        board.set_piece_at(sq, Piece { color, role });
    }
    let mut setup = Setup::empty();
    setup.board = board;
    setup.turn = if rng.bool() {
        Color::White
    } else {
        Color::Black
    };
    let pos: Chess = setup.position(CastlingMode::Standard).ok()?;
    if pos.legal_moves().is_empty() {
        return None;
    }
    Some(pos)
}

/// `count` random positions of `material` from `seed` (the same seed gives the same positions
/// with the same build).
///
/// # Errors
/// As [`random_position`].
pub fn random_positions(
    material: Material,
    count: usize,
    seed: u64,
) -> Result<Vec<Chess>, RandomError> {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..count)
        .map(|_| random_position(material, &mut rng))
        .collect()
}

#[cfg(test)]
mod tests {
    use shakmaty::{fen::Fen, EnPassantMode, Role};

    use super::*;

    fn material(name: &str) -> Material {
        name.parse().expect("material")
    }

    #[test]
    fn every_position_is_legal_unfinished_and_of_the_material() {
        for name in [
            "KQvK", "KRvK", "KBNvK", "KQvKR", "KPvKP", "KPPvKP", "KBBvKN",
        ] {
            let m = material(name);
            for pos in random_positions(m, 300, 7).expect("positions") {
                // Round trip through FEN: shakmaty accepts it again as a legal position.
                let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
                let again: Chess = fen
                    .parse::<Fen>()
                    .expect("fen")
                    .into_position(CastlingMode::Standard)
                    .expect("legal");
                assert_eq!(again.board(), pos.board());
                assert!(!pos.legal_moves().is_empty(), "{fen} is finished");
                assert!(pos.castles().is_empty() && pos.ep_square(EnPassantMode::Legal).is_none());
                for color in Color::ALL {
                    for role in Role::ALL {
                        let want = if role == Role::King {
                            1
                        } else {
                            usize::from(m.count(color, role))
                        };
                        assert_eq!(
                            pos.board().by_piece(Piece { color, role }).count(),
                            want,
                            "{fen}"
                        );
                    }
                }
                assert!((pos.board().pawns() & (Bitboard::BACKRANKS)).is_empty());
            }
        }
    }

    #[test]
    fn both_sides_move_and_every_square_is_used() {
        let positions = random_positions(material("KRvK"), 4000, 1).expect("positions");
        let white = positions
            .iter()
            .filter(|p| p.turn() == Color::White)
            .count();
        // Binomial(4000, ~1/2): 5 standard deviations are about 160.
        assert!(
            (1800..=2200).contains(&white),
            "{white} of 4000 with white to move"
        );
        for color in Color::ALL {
            for role in [Role::King, Role::Rook] {
                let piece = Piece { color, role };
                if color == Color::Black && role == Role::Rook {
                    continue;
                }
                let mut seen = Bitboard::EMPTY;
                for p in &positions {
                    seen |= p.board().by_piece(piece);
                }
                assert_eq!(seen, Bitboard::FULL, "{piece:?} never on some square");
            }
        }
    }

    #[test]
    fn uniform_over_the_legal_positions() {
        // KQvK with the white king on a1 and the black king on h8 fixed by counting: every legal
        // queen square should come up about equally often. Instead of conditioning, compare the
        // frequencies of the queen's squares over all draws with the numbers of legal positions
        // that have the queen there, counted exhaustively.
        let m = material("KQvK");
        let mut legal_per_square = [0u64; 64];
        for wk in Square::ALL {
            for bk in Square::ALL {
                for q in Square::ALL {
                    if wk == bk || q == wk || q == bk {
                        continue;
                    }
                    for turn in Color::ALL {
                        let mut setup = Setup::empty();
                        setup.board.set_piece_at(
                            wk,
                            Piece {
                                color: Color::White,
                                role: Role::King,
                            },
                        );
                        setup.board.set_piece_at(
                            bk,
                            Piece {
                                color: Color::Black,
                                role: Role::King,
                            },
                        );
                        setup.board.set_piece_at(
                            q,
                            Piece {
                                color: Color::White,
                                role: Role::Queen,
                            },
                        );
                        setup.turn = turn;
                        if let Ok(p) = setup.position::<Chess>(CastlingMode::Standard) {
                            if !p.legal_moves().is_empty() {
                                legal_per_square[usize::from(q)] += 1;
                            }
                        }
                    }
                }
            }
        }
        let total: u64 = legal_per_square.iter().sum();
        let n = 64_000;
        let mut seen = [0u64; 64];
        for p in random_positions(m, n, 3).expect("positions") {
            let q = p.board().queens().first().expect("queen");
            seen[usize::from(q)] += 1;
        }
        // Chi-square with 63 degrees of freedom: mean 63, sd ~11.2; 130 is six sd above.
        let chi2: f64 = (0..64)
            .map(|s| {
                let e = legal_per_square[s] as f64 * n as f64 / total as f64;
                (seen[s] as f64 - e).powi(2) / e
            })
            .sum();
        assert!(
            chi2 < 130.0,
            "chi-square {chi2:.1} over the queen's squares"
        );
    }

    #[test]
    fn the_same_seed_gives_the_same_positions() {
        let m = material("KBNvK");
        let fens = |seed| -> Vec<String> {
            random_positions(m, 20, seed)
                .expect("positions")
                .iter()
                .map(|p| Fen::from_position(p, EnPassantMode::Legal).to_string())
                .collect()
        };
        let (a, b, c) = (fens(42), fens(42), fens(43));
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn too_many_pawns_is_an_error() {
        let m = Material::from_counts([0, 0, 0, 0, 9], [0; 5]);
        assert!(matches!(
            random_position(m, &mut fastrand::Rng::with_seed(1)),
            Err(RandomError::TooManyPawns(_))
        ));
    }
}
