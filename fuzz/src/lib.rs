//! Retro's fuzz targets (see `targets`): one binary each in `src/bin`, run by
//! `scripts/fuzz.sh` under AFL++.

pub mod targets;
