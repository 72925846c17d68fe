//! A move typed by a person, in SAN (`Nf3`, `exd5`, `e8=Q+`, `O-O`) or UCI (`g1f3`, `e7e8q`)
//! notation, and when it cannot be played, a message saying why.

use shakmaty::{
    san::{San, SanError, SanPlus},
    uci::UciMove,
    Chess, Move, Position, Role, Square,
};

/// Why a typed move cannot be played; its message is for the person who typed `text`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// Not a move in either notation.
    #[error("`{text}` is not a move: type it in SAN (Nf3, exd5, e8=Q, O-O) or UCI (g1f3, e7e8q)")]
    NotAMove {
        /// The text typed.
        text: String,
    },
    /// A SAN move that more than one legal move matches.
    #[error("`{text}` is ambiguous: {}", .options.join(" or "))]
    Ambiguous {
        /// The text typed.
        text: String,
        /// The legal moves it matches, in SAN.
        options: Vec<String>,
    },
    /// Castling that is not legal here.
    #[error("`{text}`: castling is not possible here")]
    NoCastling {
        /// The text typed.
        text: String,
    },
    /// Another SAN move that is not legal here.
    #[error("`{text}` cannot be played here")]
    NotPlayable {
        /// The text typed.
        text: String,
    },
    /// The side to move has no piece of the kind named (any piece when none is named) that
    /// can go to the square.
    #[error("`{text}`: you have no {role} that can go to {to}")]
    NoSuchPiece {
        /// The text typed.
        text: String,
        /// The piece's name (`piece` when SAN named none).
        role: &'static str,
        /// The square it was to go to.
        to: Square,
    },
    /// An empty from-square.
    #[error("`{text}`: there is no piece on {from}")]
    Empty {
        /// The text typed.
        text: String,
        /// The square.
        from: Square,
    },
    /// A piece of the other side on the from-square.
    #[error("`{text}`: the piece on {from} is not yours")]
    NotYours {
        /// The text typed.
        text: String,
        /// The square.
        from: Square,
    },
    /// A piece of the side to move on the to-square.
    #[error("`{text}`: your own piece stands on {to}")]
    OwnPiece {
        /// The text typed.
        text: String,
        /// The square.
        to: Square,
    },
    /// A promotion without the piece the pawn becomes.
    #[error("`{text}`: say which piece the pawn becomes ({from}{to}q, or =Q in SAN)")]
    NoPromotion {
        /// The text typed.
        text: String,
        /// The pawn's square.
        from: Square,
        /// The promotion square.
        to: Square,
    },
    /// A promotion to a piece a pawn cannot become.
    #[error("`{text}`: a pawn cannot become that")]
    BadPromotion {
        /// The text typed.
        text: String,
    },
    /// A move that does not answer a check.
    #[error("`{text}`: you are in check, and this move does not get out of it")]
    InCheck {
        /// The text typed.
        text: String,
    },
    /// A move that would leave the own king in check.
    #[error("`{text}`: it would leave your king in check")]
    Pinned {
        /// The text typed.
        text: String,
    },
    /// A move the piece cannot make.
    #[error("`{text}`: a {role} cannot go from {from} to {to}")]
    CannotGo {
        /// The text typed.
        text: String,
        /// The piece's name.
        role: &'static str,
        /// Its square.
        from: Square,
        /// The square it was to go to.
        to: Square,
    },
    /// A piece that has no legal move.
    #[error("`{text}`: the {role} on {from} cannot move")]
    CannotMove {
        /// The text typed.
        text: String,
        /// The piece's name.
        role: &'static str,
        /// Its square.
        from: Square,
    },
}

/// Reads `text` as a legal move of `pos`.
///
/// # Errors
/// A [`MoveError`], for the person: not a move in either notation, or why the move is not
/// legal here.
pub fn parse_move(pos: &Chess, text: &str) -> Result<Move, MoveError> {
    let text = text.trim();
    if let Ok(uci) = text.parse::<UciMove>() {
        if let UciMove::Normal {
            from,
            to,
            promotion,
        } = uci
        {
            return uci
                .to_move(pos)
                .map_err(|_| why_not(pos, Some(from), to, None, promotion, text));
        }
    }
    let cleaned = text.trim_end_matches(['!', '?']);
    let cleaned = match cleaned {
        "0-0" | "0-0+" | "0-0#" => "O-O",
        "0-0-0" | "0-0-0+" | "0-0-0#" => "O-O-O",
        s => s,
    };
    let san: SanPlus = cleaned.parse().map_err(|_| MoveError::NotAMove {
        text: text.to_string(),
    })?;
    match san.san.to_move(pos) {
        Ok(m) => Ok(m),
        Err(SanError::AmbiguousSan) => {
            let options: Vec<String> = pos
                .legal_moves()
                .iter()
                .filter(|m| san.san.matches(**m))
                .map(|m| San::from_move(pos, *m).to_string())
                .collect();
            Err(MoveError::Ambiguous {
                text: text.to_string(),
                options,
            })
        }
        Err(SanError::IllegalSan) => Err(match san.san {
            San::Normal {
                role,
                to,
                promotion,
                file,
                rank,
                ..
            } => {
                let from = pos
                    .board()
                    .by_piece(role.of(pos.turn()))
                    .into_iter()
                    .find(|&s| {
                        file.is_none_or(|f| s.file() == f) && rank.is_none_or(|r| s.rank() == r)
                    });
                why_not(pos, from, to, Some(role), promotion, text)
            }
            San::Castle(_) => MoveError::NoCastling {
                text: text.to_string(),
            },
            _ => MoveError::NotPlayable {
                text: text.to_string(),
            },
        }),
    }
}

/// Why the move of the piece on `from` (a piece of `role` when SAN named one, `from` `None` when
/// the side has none) to `to` is not legal.
fn why_not(
    pos: &Chess,
    from: Option<Square>,
    to: Square,
    role: Option<Role>,
    promotion: Option<Role>,
    text: &str,
) -> MoveError {
    let text = text.to_string();
    let us = pos.turn();
    let Some(from) = from else {
        let role = role.map_or("piece", role_name);
        return MoveError::NoSuchPiece { text, role, to };
    };
    let Some(piece) = pos.board().piece_at(from) else {
        return MoveError::Empty { text, from };
    };
    if piece.color != us {
        return MoveError::NotYours { text, from };
    }
    if pos.board().by_color(us).contains(to) {
        return MoveError::OwnPiece { text, to };
    }
    let legal = pos.legal_moves();
    let same_squares: Vec<&Move> = legal
        .iter()
        .filter(|m| m.from() == Some(from) && m.to() == to)
        .collect();
    if !same_squares.is_empty() {
        return if promotion.is_none() {
            MoveError::NoPromotion { text, from, to }
        } else {
            MoveError::BadPromotion { text }
        };
    }
    let can_reach = legal.iter().any(|m| m.from() == Some(from));
    let role = role_name(piece.role);
    if pos.is_check() {
        MoveError::InCheck { text }
    } else if reaches(pos, from, to) {
        MoveError::Pinned { text }
    } else if can_reach {
        MoveError::CannotGo {
            text,
            role,
            from,
            to,
        }
    } else {
        MoveError::CannotMove { text, role, from }
    }
}

/// Whether the piece on `from` could go to `to` by its way of moving, on this board, not
/// counting checks to its own king.
fn reaches(pos: &Chess, from: Square, to: Square) -> bool {
    let board = pos.board();
    let Some(piece) = board.piece_at(from) else {
        return false;
    };
    let occ = board.occupied();
    let attacks = shakmaty::attacks::attacks(from, piece, occ);
    if piece.role != Role::Pawn {
        return attacks.contains(to);
    }
    let them = board.by_color(!piece.color);
    if attacks.contains(to) {
        return them.contains(to) || pos.ep_square(shakmaty::EnPassantMode::Legal) == Some(to);
    }
    let step = if piece.color.is_white() { 8 } else { -8 };
    let one = from.offset(step);
    let start = if piece.color.is_white() {
        shakmaty::Rank::Second
    } else {
        shakmaty::Rank::Seventh
    };
    match one {
        Some(s) if s == to => !occ.contains(s),
        Some(s) if from.rank() == start && s.offset(step) == Some(to) => {
            !occ.contains(s) && !occ.contains(to)
        }
        _ => false,
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::King => "king",
        Role::Queen => "queen",
        Role::Rook => "rook",
        Role::Bishop => "bishop",
        Role::Knight => "knight",
        Role::Pawn => "pawn",
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::CastlingMode;

    use super::*;

    fn pos(fen: &str) -> Chess {
        retro_engine::fen::parse_fen(fen).expect("a legal FEN")
    }

    #[test]
    fn both_notations_are_read() {
        let p = pos("4k3/P7/8/8/8/8/8/R3K2R w KQ - 0 1");
        for (text, uci) in [
            ("Ra2", "a1a2"),
            ("a1a2", "a1a2"),
            ("a8=Q+", "a7a8q"),
            ("a7a8n", "a7a8n"),
            ("O-O", "e1h1"),
            ("0-0-0", "e1a1"),
            ("Kf1!?", "e1f1"),
        ] {
            let m = parse_move(&p, text).expect(text);
            assert_eq!(m.to_uci(CastlingMode::Chess960).to_string(), uci, "{text}");
        }
    }

    #[test]
    fn refusals_say_why() {
        let p = pos("4k3/P7/8/8/8/8/8/R3K2R w KQ - 0 1");
        let cases = [
            ("hello", "is not a move"),
            ("Qd4", "no queen"),
            ("e2e4", "no piece on e2"),
            ("e8e7", "not yours"),
            ("a1h1", "your own piece"),
            ("a7a8", "which piece"),
            ("Rb2", "cannot go from a1 to b2"),
            ("Rhb1", "cannot go from h1 to b1"),
        ];
        for (text, why) in cases {
            let e = parse_move(&p, text).expect_err(text).to_string();
            assert!(e.contains(why), "{text}: {e}");
        }
        let pinned = pos("4k3/8/8/8/4r3/8/4R3/4K3 w - - 0 1");
        let e = parse_move(&pinned, "Ra2").expect_err("pinned").to_string();
        assert!(e.contains("leave your king in check"), "{e}");
        let checked = pos("4k3/8/8/8/4r3/8/8/R3K3 w - - 0 1");
        let e = parse_move(&checked, "Ra2")
            .expect_err("in check")
            .to_string();
        assert!(e.contains("in check"), "{e}");
        let two = pos("4k3/8/8/8/8/8/4K3/R6R w - - 0 1");
        let e = parse_move(&two, "Rd1").expect_err("ambiguous").to_string();
        assert!(
            e.contains("Rad1 or Rhd1") || e.contains("Rhd1 or Rad1"),
            "{e}"
        );
    }
}
