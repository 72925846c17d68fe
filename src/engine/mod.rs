//! The playing engine as a library, with no standard input or output: evaluation, search,
//! transposition table, time management, the choice of a move at the root (where positions
//! the tables cover are played from the tables), and the [`Engine`] that owns all of it
//! between commands and reports through typed [`Report`]s.
//!
//! ```text
//! uci (parse lines, print reports)  ──calls──▶  Engine (session.rs)
//!                                                 ├─ go ─▶ job thread ─▶ think ─▶ search ─▶ eval, tt
//!                                                 ├─ tables, background build (tablebase, build)
//!                                                 └─ legality, perft, bench
//! Engine ──Report (info, bestmove, notices)──▶ Reporter (a callback the front end gives)
//! ```

pub mod bench;
pub mod error;
pub mod eval;
pub mod heuristics;
pub mod job;
pub mod options;
pub mod perft;
pub mod report;
pub mod rule50;
pub mod search;
pub mod session;
pub mod strength;
pub mod think;
pub mod time;
pub mod tt;

pub use self::{
    error::{DtmError, EngineError, LegalityError, PositionError},
    options::{OptionChange, OptionError, OptionKind, OptionSpec, Options},
    report::{Notice, Report, Reporter, Score, SearchInfo},
    session::{Dtm, Engine, Legality},
    think::{mate_moves, table_line, think},
    time::SearchLimits,
};
