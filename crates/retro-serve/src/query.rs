//! The query string of a request: URL-decoded pairs, each name at most once, only the names an
//! endpoint takes; FENs with `_` for spaces (lichess's convention).

use shakmaty::{fen::Fen, CastlingMode, Chess, PositionError};

use crate::error::ApiError;

/// The longest FEN read (a FEN of a real position is under 100 characters).
pub const MAX_FEN_CHARS: usize = 256;

/// The parameters of one request.
#[derive(Debug, Default)]
pub struct Params {
    pairs: Vec<(String, String)>,
}

impl Params {
    /// Reads `query` (without the `?`), keeping the parameters named in `allowed`; others are
    /// ignored, as lichess ignores them (its clients may send `dtc`).
    ///
    /// # Errors
    /// A query longer than [`crate::MAX_QUERY_BYTES`], one that is not URL-encoded pairs, or
    /// a name of `allowed` given twice.
    pub fn parse(query: Option<&str>, allowed: &[&str]) -> Result<Params, ApiError> {
        let query = query.unwrap_or("");
        if query.len() > crate::MAX_QUERY_BYTES {
            return Err(ApiError::QueryTooLong(query.len()));
        }
        let mut pairs: Vec<(String, String)> =
            serde_urlencoded::from_str(query).map_err(|_| ApiError::MalformedQuery)?;
        pairs.retain(|(name, _)| allowed.contains(&name.as_str()));
        for (i, (name, _)) in pairs.iter().enumerate() {
            if pairs[..i].iter().any(|(n, _)| n == name) {
                return Err(ApiError::Repeated(name.clone()));
            }
        }
        Ok(Params { pairs })
    }

    /// The value of `name`, if given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The FEN of `fen`, underscores read as spaces, trimmed.
    ///
    /// # Errors
    /// Missing, or longer than [`MAX_FEN_CHARS`].
    pub fn fen(&self) -> Result<String, ApiError> {
        let fen = self.get("fen").ok_or(ApiError::Missing("fen"))?;
        if fen.chars().count() > MAX_FEN_CHARS {
            return Err(ApiError::Fen(format!(
                "{} characters, at most {MAX_FEN_CHARS}",
                fen.chars().count()
            )));
        }
        Ok(fen.replace('_', " ").trim().to_string())
    }

    /// `time` in seconds, `default` when absent, at most `cap`.
    ///
    /// # Errors
    /// Not a number above 0.
    pub fn time(&self, default: f64, cap: f64) -> Result<std::time::Duration, ApiError> {
        let t = match self.get("time") {
            None => default,
            Some(s) => match s.trim().parse::<f64>() {
                Ok(t) if t.is_finite() && t > 0.0 => t,
                _ => return Err(ApiError::Time(s.chars().take(40).collect())),
            },
        };
        Ok(std::time::Duration::from_secs_f64(t.min(cap)))
    }
}

/// The position of a FEN, as lichess reads one: castling rights without their rook or king and
/// an en passant square without its pawn are dropped, an impossible check is accepted; any
/// other fault is an error.
///
/// # Errors
/// A malformed FEN, or a position chess cannot have.
pub fn position(fen: &str) -> Result<Chess, ApiError> {
    let parsed: Fen = fen.parse().map_err(|e| ApiError::Fen(format!("{e}")))?;
    parsed
        .into_position::<Chess>(CastlingMode::Standard)
        .or_else(PositionError::ignore_invalid_castling_rights)
        .or_else(PositionError::ignore_invalid_ep_square)
        .or_else(PositionError::ignore_impossible_check)
        .map_err(|e| ApiError::Position(retro_engine::fen::illegal_message(fen, &e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn underscores_are_spaces_and_percent_codes_are_decoded() {
        let p = Params::parse(Some("fen=8/8/8/8/8/8/8/K1k5_w_-_-_0_1"), &["fen"]).expect("ok");
        assert_eq!(p.fen().expect("fen"), "8/8/8/8/8/8/8/K1k5 w - - 0 1");
        let p = Params::parse(
            Some("fen=8%2F8%2F8%2F8%2F8%2F8%2F8%2FK1k5+w+-+-+0+1"),
            &["fen"],
        )
        .expect("ok");
        assert_eq!(p.fen().expect("fen"), "8/8/8/8/8/8/8/K1k5 w - - 0 1");
    }

    #[test]
    fn bad_queries_are_refused_with_their_reason() {
        let long = format!("fen={}", "a".repeat(crate::MAX_QUERY_BYTES));
        assert!(matches!(
            Params::parse(Some(&long), &["fen"]),
            Err(ApiError::QueryTooLong(_))
        ));
        assert!(matches!(
            Params::parse(Some("fen=a&fen=b"), &["fen"]),
            Err(ApiError::Repeated(_))
        ));
        let p = Params::parse(Some("dtc=never&fen=x"), &["fen"]).expect("dtc ignored");
        assert_eq!(p.get("dtc"), None);
        assert_eq!(p.get("fen"), Some("x"));
        let p = Params::parse(Some(""), &["fen"]).expect("empty query");
        assert!(matches!(p.fen(), Err(ApiError::Missing("fen"))));
        let p = Params::parse(Some("time=-1"), &["time"]).expect("ok");
        assert!(matches!(p.time(1.0, 5.0), Err(ApiError::Time(_))));
        let p = Params::parse(Some("time=NaN"), &["time"]).expect("ok");
        assert!(matches!(p.time(1.0, 5.0), Err(ApiError::Time(_))));
        let p = Params::parse(Some("time=100"), &["time"]).expect("ok");
        assert_eq!(p.time(1.0, 5.0).expect("capped").as_secs(), 5);
    }

    #[test]
    fn positions_are_read_as_lichess_reads_them() {
        assert!(matches!(position("not a fen"), Err(ApiError::Fen(_))));
        // No black king.
        assert!(matches!(
            position("8/8/8/8/8/8/8/K7 w - - 0 1"),
            Err(ApiError::Position(_))
        ));
        // The side not to move in check.
        assert!(matches!(
            position("k6R/8/8/8/8/8/8/K7 w - - 0 1"),
            Err(ApiError::Position(_))
        ));
        // Castling rights without their rook are dropped.
        let p = position("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1").expect("rights dropped");
        assert!(shakmaty::Position::castles(&p).is_empty());
    }
}
