//! Tuning the evaluation from data (Texel's method): self-play games labelled with their
//! results and, where the tables cover a position, with its exact value; the weights fitted by
//! gradient descent on the prediction error; the weights file written back as Rust source.

pub mod datagen;
pub mod texel;
pub mod weights_file;
