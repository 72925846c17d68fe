//! The workspace's dependency graph is the architecture of docs/architecture.md: each crate
//! depends on the workspace crates drawn there and on no other (an arrow upward, such as the
//! tables crate calling the engine, fails here before it fails in review).

use std::{collections::BTreeSet, path::Path};

/// Each workspace crate with the workspace crates it may depend on.
const ALLOWED: &[(&str, &[&str])] = &[
    ("retro-tables", &[]),
    ("retro-build", &["retro-tables"]),
    ("retro-legality", &[]),
    (
        "retro-engine",
        &["retro-tables", "retro-build", "retro-legality"],
    ),
    ("retro-train", &["retro-engine", "retro-tables"]),
    (
        "retro-serve",
        &["retro-engine", "retro-legality", "retro-tables"],
    ),
    (
        "retro",
        &[
            "retro-tables",
            "retro-build",
            "retro-legality",
            "retro-engine",
            "retro-train",
            "retro-serve",
        ],
    ),
];

/// The workspace crates in the `[dependencies]` of a crate's manifest.
fn workspace_deps(manifest: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(manifest).expect("manifest");
    let value: toml::Table = toml::from_str(&text).expect("valid manifest");
    let deps = value
        .get("dependencies")
        .and_then(|d| d.as_table())
        .cloned()
        .unwrap_or_default();
    deps.keys()
        .filter(|k| ALLOWED.iter().any(|(name, _)| name == k))
        .cloned()
        .collect()
}

#[test]
fn every_crate_depends_only_on_the_crates_below_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (name, allowed) in ALLOWED {
        let manifest = if *name == "retro" {
            root.join("Cargo.toml")
        } else {
            root.join("crates").join(name).join("Cargo.toml")
        };
        let got = workspace_deps(&manifest);
        let want: BTreeSet<String> = allowed.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            got, want,
            "{name}: workspace dependencies differ from the architecture"
        );
    }
}

#[test]
fn the_architecture_page_names_every_crate_and_its_dependencies() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("docs/architecture.md")).expect("page");
    for (name, allowed) in ALLOWED.iter().filter(|(n, _)| *n != "retro") {
        let row = page
            .lines()
            .find(|l| l.starts_with(&format!("| `{name}` |")))
            .unwrap_or_else(|| panic!("no table row for {name}"));
        let deps_cell = row.split('|').nth(2).expect("a dependency cell");
        let listed: BTreeSet<&str> = deps_cell
            .split(',')
            .map(|s| s.trim().trim_matches('`'))
            .filter(|s| s.starts_with("retro"))
            .collect();
        let want: BTreeSet<&str> = allowed.iter().copied().collect();
        assert_eq!(
            listed, want,
            "{name}: the page's row differs from the graph"
        );
    }
}
