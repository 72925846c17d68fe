//! FEN to a legal position: the one parser every layer above shares (the engine, the UCI front
//! end, the command line and the play mode).

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
    /// A FEN, but of a position that breaks the rules (shakmaty's message reads
    /// "illegal position: ...").
    #[error("{0}")]
    Illegal(Box<PositionError<Chess>>),
}

/// Parses a FEN (surrounding white space ignored) into a legal position.
///
/// # Errors
/// [`FenError::Malformed`] when the text is not a FEN, [`FenError::Illegal`] when the position
/// breaks the rules.
pub fn parse_fen(fen: &str) -> Result<Chess, FenError> {
    let parsed: Fen = fen.trim().parse()?;
    parsed
        .into_position(CastlingMode::Standard)
        .map_err(|e| FenError::Illegal(Box::new(e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legal_malformed_and_illegal() {
        assert!(parse_fen(" 4k3/8/8/8/8/8/8/4K3 w - - 0 1 ").is_ok());
        let e = parse_fen("garbage").expect_err("malformed");
        assert!(matches!(e, FenError::Malformed(_)));
        assert!(e.to_string().starts_with("malformed FEN: "), "{e}");
        let e = parse_fen("8/8/8/8/8/8/8/4K3 w - - 0 1").expect_err("no black king");
        assert!(matches!(e, FenError::Illegal(_)));
        assert!(e.to_string().starts_with("illegal position"), "{e}");
    }
}
