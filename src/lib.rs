//! Retro's front ends: the UCI protocol, the `retro` subcommands, endgames in the terminal and
//! tuning. The products they drive are library crates of their own (see docs/architecture.md):
//! [`retro_tables`] (the table format and prober), [`retro_build`] (the generator),
//! [`retro_legality`] (the legality analysis) and [`retro_engine`] (the engine).
//!
//! - [`uci`]: the UCI front end: parses a line into a command, hands it to the engine, and is
//!   the only code that writes UCI text.
//! - [`cli`]: the command lines `retro probe`, `legal`, `revmoves`, `proofkernel`, ... with one
//!   error type and one exit-code mapping.
//! - [`play`]: `retro play`, `retro random-position` and `retro replay` in the terminal.
//! - [`tune`]: self-play tuning data and the fit of the evaluation's weights (`retro datagen`,
//!   `retro tune`).

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod cli;
pub mod play;
pub mod tune;
pub mod uci;
