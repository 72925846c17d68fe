//! Endgames in the terminal: `retro play` against the tables, `retro random-position`, and
//! `retro replay` of PGN games with the table's verdict at every position.
//!
//! - [`random`]: random legal positions of a material.
//! - [`board`]: the board and the table's verdict in words.
//! - [`moves`]: moves typed in SAN or UCI, with reasons for refusals.
//! - [`pgn`]: writing and reading PGN.
//! - [`session`]: the game loop of `retro play`.
//! - [`replay`]: stepping through a saved game.
//! - [`start`]: the start position, tags and seed of a game.

pub mod board;
pub mod moves;
pub mod pgn;
pub mod random;
pub mod replay;
pub mod session;
pub mod start;
