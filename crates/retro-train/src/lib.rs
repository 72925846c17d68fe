//! Retro's network training: the binary training-data format that `retro datagen` writes
//! ([`data`]) and the trainer that fits the engine's network to it and writes the network
//! file the engine loads ([`train`]).

#![deny(missing_docs)]

pub mod data;
pub mod games;
pub mod stream;
pub mod train;
