//! Retro's depth-to-mate tables: materials, values, the index, the file format and probing.

pub mod cache;
pub mod dtz;
pub mod error;
pub mod format;
pub mod index;
pub mod layout;
pub mod material;
pub mod pieces;
pub mod probe;
pub mod syzygy;
pub mod value;
pub mod zstd_prefix;

pub use self::{
    dtz::{Dtz, Wdl50},
    error::{ProbeError, TableError},
    material::Material,
    probe::{lookup, Tablebase, Tables},
    value::{Value, Wdl},
};
