//! Retro: a chess engine with its own depth-to-mate endgame tables.
//!
//! - [`tablebase`]: materials, the symmetry-reduced index, the memory-mapped file format and
//!   probing of shakmaty positions.
//! - [`build`]: the retrograde generator behind `build-tables`, and the independent verifier.
//! - [`cli`]: the `retro probe` command line.
//! - [`config`]: the settings of `engine.toml`.
//! - [`legality`]: whether a position can arise in a game: static rules, reverse moves,
//!   last-move analysis.
//! - [`engine`]: evaluation, search and time management.
//! - [`uci`]: the UCI protocol loop, its options and console commands.
//! - [`play`]: `retro play`, `retro random-position` and `retro replay` in the terminal.

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
pub mod uci;
