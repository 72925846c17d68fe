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

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod bench;
mod captures;
pub mod config;
mod error;
pub mod eval;
pub mod fen;
mod heuristics;
mod job;
mod movepick;
pub mod nnue;
mod options;
mod perft;
mod report;
pub mod rule50;
pub mod search;
mod session;
pub mod strength;
mod think;
mod time;
mod tt;
mod tunables;
mod vocab;
pub mod winrate;

pub use self::{
    error::{DtmError, EngineError, LegalityError, PositionError},
    heuristics::HeuristicsPool,
    options::{OptionChange, OptionError, OptionKind, OptionSpec, Options},
    report::{Legality, Notice, Report, Reporter, Score, SearchInfo, TableSummary},
    session::{Dtm, Engine},
    think::{mate_moves, table_line, think},
    time::SearchLimits,
    tt::{HashError, TranspositionTable},
    tunables::{Tunable, TUNABLES},
    vocab::{hash_of, MATE_BOUND},
    winrate::WdlChances,
};
