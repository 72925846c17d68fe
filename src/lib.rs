//! Retro: a chess engine with its own depth-to-mate endgame tables and a legality analysis.
//!
//! The layers, each calling only those below it (no import cycles):
//!
//! ```text
//! uci  (parse lines, print reports)   cli (probe, legal, ...)   play (terminal games)
//!   │                                   │                         │
//!   └──────────────▶ engine (library, no stdio) ◀─────────────────┘
//!                      │        │          │
//!                      ▼        ▼          ▼
//!                    build ─▶ tablebase   legality      tune ─▶ engine
//!                      fen, config (below everything)
//! ```
//!
//! - [`uci`]: the UCI front end: parses a line into a command, hands it to the engine, and is
//!   the only code that writes UCI text.
//! - [`cli`]: the command lines `retro probe`, `legal`, `revmoves` and `proofkernel`, with one
//!   error type and one exit-code mapping.
//! - [`play`]: `retro play`, `retro random-position` and `retro replay` in the terminal.
//! - [`engine`]: the engine as a library: [`engine::Engine`] owns the position, options,
//!   transposition table, tables and threads, and reports through typed
//!   [`engine::Report`]s; evaluation, search and time management.
//! - [`build`]: the retrograde generator behind `build-tables`, and the independent verifier.
//! - [`tablebase`]: materials, the symmetry-reduced index, the memory-mapped file format and
//!   probing of shakmaty positions.
//! - [`legality`]: whether a position can arise in a game: static rules, reverse moves,
//!   proof kernels, last-move analysis.
//! - [`tune`]: self-play tuning data and the fit of the evaluation's weights (`retro datagen`,
//!   `retro tune`).
//! - [`fen`]: a FEN to a legal position; [`config`]: the settings of `engine.toml`.

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod build;
pub mod cli;
pub mod config;
pub mod engine;
pub mod fen;
pub mod legality;
pub mod play;
pub mod tablebase;
pub mod tune;
pub mod uci;
