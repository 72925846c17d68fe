//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::{
    path::{Path, PathBuf},
    sync::OnceLock,
};

use retro::build::{build, BuildOptions};
use retro::tablebase::Material;

/// A directory holding all 3- and 4-piece tables, built once per test binary (or taken from
/// `RETRO_TEST_TABLES` when set, to reuse tables built earlier).
pub fn all_tables() -> &'static Path {
    static DIR: OnceLock<(Option<tempfile::TempDir>, PathBuf)> = OnceLock::new();
    let (_, path) = DIR.get_or_init(|| {
        if let Some(p) = std::env::var_os("RETRO_TEST_TABLES") {
            let p = PathBuf::from(p);
            build_into(&p, &Material::all(4));
            return (None, p);
        }
        let dir = tempfile::tempdir().expect("temporary directory");
        let p = dir.path().to_path_buf();
        build_into(&p, &Material::all(4));
        (Some(dir), p)
    });
    path
}

/// Builds `materials` (with their sub-tables) into `dir`.
pub fn build_into(dir: &Path, materials: &[Material]) {
    let opts = BuildOptions {
        out: dir.to_path_buf(),
        force: false,
        progress: false,
    };
    build(materials, &opts, |_| {}).expect("tables build");
}

/// A material from its name.
pub fn material(name: &str) -> Material {
    name.parse().expect("material name")
}
