//! FEN to a legal position: the one parser every layer above shares (the engine, the UCI front
//! end, the command line and the play mode).

use retro_legality::rules::{broken_by_fen, Rule};
use shakmaty::{
    fen::{Fen, ParseFenError},
    CastlingMode, Chess, PositionError,
};

/// Why a FEN gave no position.
#[derive(Debug, thiserror::Error)]
pub enum FenError {
    /// The text is not a FEN.
    #[error("malformed FEN: {0}")]
    Malformed(#[from] ParseFenError),
    /// A FEN, but of a position that breaks the rules: "illegal position: " and the rule, in
    /// the legality analysis's words (shakmaty's where it names none).
    #[error("illegal position: {}", illegal_reason(.rule, .source))]
    Illegal {
        /// The rule broken, as the legality analysis names it.
        rule: Option<Rule>,
        /// shakmaty's refusal.
        source: Box<PositionError<Chess>>,
    },
}

/// The reason of an illegal position: the rule, else shakmaty's words without their own
/// "illegal position: ".
fn illegal_reason(rule: &Option<Rule>, e: &PositionError<Chess>) -> String {
    match rule {
        Some(r) => r.to_string(),
        None => {
            let text = e.to_string();
            text.strip_prefix("illegal position: ")
                .unwrap_or(&text)
                .to_string()
        }
    }
}

/// The message of a position that shakmaty refuses: "illegal position: " and the rule it
/// breaks, in the words of the legality analysis (one wording everywhere).
pub fn illegal_message(fen: &str, e: &PositionError<Chess>) -> String {
    format!(
        "illegal position: {}",
        illegal_reason(&broken_by_fen(fen), e)
    )
}

/// Parses a FEN (surrounding white space ignored) into a legal position.
///
/// # Errors
/// [`FenError::Malformed`] when the text is not a FEN, [`FenError::Illegal`] when the position
/// breaks the rules.
pub fn parse_fen(fen: &str) -> Result<Chess, FenError> {
    parse_fen_in(fen, CastlingMode::Standard)
}

/// Parses a FEN as [`parse_fen`] does, for standard chess or for Chess960 (`mode`), where the
/// castling field may name the rooks' files (Shredder-FEN, `HAha`) or use `KQkq` for the
/// outermost rooks (X-FEN).
///
/// # Errors
/// As [`parse_fen`]; in standard chess, castling rights of a rook or king off its standard
/// square make the position illegal.
pub fn parse_fen_in(fen: &str, mode: CastlingMode) -> Result<Chess, FenError> {
    let parsed: Fen = fen.trim().parse()?;
    parsed.into_position(mode).map_err(|e| FenError::Illegal {
        rule: broken_by_fen(fen.trim()),
        source: Box::new(e),
    })
}

#[cfg(test)]
mod tests {
    use shakmaty::Position;

    use super::*;

    #[test]
    fn legal_malformed_and_illegal() {
        assert!(parse_fen(" 4k3/8/8/8/8/8/8/4K3 w - - 0 1 ").is_ok());
        let e = parse_fen("garbage").expect_err("malformed");
        assert!(matches!(e, FenError::Malformed(_)));
        assert!(e.to_string().starts_with("malformed FEN: "), "{e}");
        let e = parse_fen("8/8/8/8/8/8/8/4K3 w - - 0 1").expect_err("no black king");
        assert!(matches!(e, FenError::Illegal { .. }));
        assert_eq!(e.to_string(), "illegal position: no black king");
        let e = parse_fen("P3k3/8/8/8/8/8/8/4K3 w - - 0 1").expect_err("pawn on rank 8");
        assert_eq!(
            e.to_string(),
            "illegal position: a pawn on the first or last rank"
        );
        assert!(e.to_string().starts_with("illegal position"), "{e}");
    }

    #[test]
    fn chess960_castling_fields() {
        // Shredder-FEN and X-FEN of one position: rooks on b1 and g1, king on d1.
        let shredder = "1r1k2r1/pppppppp/8/8/8/8/PPPPPPPP/1R1K2R1 w GBgb - 0 1";
        let xfen = "1r1k2r1/pppppppp/8/8/8/8/PPPPPPPP/1R1K2R1 w KQkq - 0 1";
        let a = parse_fen_in(shredder, CastlingMode::Chess960).expect("Shredder-FEN");
        let b = parse_fen_in(xfen, CastlingMode::Chess960).expect("X-FEN");
        assert_eq!(a, b);
        assert_eq!(a.castles().castling_rights().count(), 4);
        let e = parse_fen(shredder).expect_err("not standard chess");
        assert!(matches!(e, FenError::Illegal { .. }), "{e}");
    }
}
