//! The errors of a request: each a 4xx answer with a JSON body `{"error": "..."}` (but a job
//! that failed inside the server, a bug, which is a 500).

use axum::{
    http::StatusCode,
    response::{IntoResponse, Response},
    Json,
};

/// Why a request gets no answer but an error.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The query string is longer than the server reads.
    #[error("query of {0} bytes, at most {max} are read", max = crate::MAX_QUERY_BYTES)]
    QueryTooLong(usize),
    /// The query string is not `name=value&...` in URL encoding.
    #[error("malformed query string")]
    MalformedQuery,
    /// A required parameter is missing.
    #[error("missing parameter {0}")]
    Missing(&'static str),
    /// A parameter given twice.
    #[error("parameter {0} given more than once")]
    Repeated(String),
    /// A FEN that cannot be read.
    #[error("invalid fen: {0}")]
    Fen(String),
    /// A FEN that can be read but is not a position chess can have.
    #[error("{0}")]
    Position(String),
    /// A `time` that is not a number of seconds.
    #[error("time {0}: expected a number of seconds above 0")]
    Time(String),
    /// No table covers the position (mainline).
    #[error(transparent)]
    NotCovered(#[from] crate::explorer::MainlineError),
    /// Every analysis slot is taken.
    #[error("busy: every analysis slot is taken, try again later")]
    Busy,
    /// No such path.
    #[error("no such path: {0}")]
    UnknownPath(String),
    /// A method other than GET (or HEAD).
    #[error("method {0} not allowed, use GET")]
    Method(String),
    /// A job failed inside the server (a bug; logged).
    #[error("internal error")]
    Internal,
}

impl ApiError {
    /// The status code of the answer.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::QueryTooLong(_) => StatusCode::URI_TOO_LONG,
            ApiError::NotCovered(_) | ApiError::UnknownPath(_) => StatusCode::NOT_FOUND,
            ApiError::Busy => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Method(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::MalformedQuery
            | ApiError::Missing(_)
            | ApiError::Repeated(_)
            | ApiError::Fen(_)
            | ApiError::Position(_)
            | ApiError::Time(_) => StatusCode::BAD_REQUEST,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.to_string() });
        (self.status(), Json(body)).into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_but_the_internal_one_is_a_client_error() {
        for e in [
            ApiError::QueryTooLong(20_000),
            ApiError::MalformedQuery,
            ApiError::Missing("fen"),
            ApiError::Repeated("fen".into()),
            ApiError::Fen("bad".into()),
            ApiError::Position("bad".into()),
            ApiError::Time("x".into()),
            ApiError::NotCovered(crate::explorer::MainlineError::NotCovered),
            ApiError::Busy,
            ApiError::UnknownPath("/x".into()),
            ApiError::Method("POST".into()),
        ] {
            assert!(e.status().is_client_error(), "{e}: {}", e.status());
            assert!(!e.to_string().is_empty());
        }
    }
}
