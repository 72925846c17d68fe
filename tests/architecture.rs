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

/// The modules at the top of a crate's `src` (a file `x.rs` or a folder `x/`), without the
/// crate root and the binaries.
fn top_modules(src: &Path) -> Vec<(String, Vec<std::path::PathBuf>)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(src) else {
        return out;
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if ["lib.rs", "main.rs", "bin"].contains(&name.as_str()) {
            continue;
        }
        if let Some(stem) = name.strip_suffix(".rs") {
            out.push((stem.to_string(), vec![path]));
        } else if path.is_dir() {
            let mut files = Vec::new();
            let mut stack = vec![path];
            while let Some(dir) = stack.pop() {
                for f in std::fs::read_dir(&dir).expect("folder").flatten() {
                    let p = f.path();
                    if p.is_dir() {
                        stack.push(p);
                    } else if p.extension().is_some_and(|x| x == "rs") {
                        files.push(p);
                    }
                }
            }
            out.push((name, files));
        }
    }
    out.sort();
    out
}

/// The sibling modules a module's files name as `crate::NAME` (and, in its top file, as
/// `super::NAME`).
fn module_uses(name: &str, files: &[std::path::PathBuf], siblings: &[String]) -> Vec<String> {
    let mut uses = BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(f).expect("source");
        let top = f
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == format!("{name}.rs").as_str())
            && f.parent()
                .and_then(|p| p.file_name())
                .is_some_and(|p| p == name || p == "src");
        for s in siblings.iter().filter(|s| *s != name) {
            let named = |prefix: &str| {
                text.match_indices(&format!("{prefix}{s}")).any(|(i, m)| {
                    let after = text[i + m.len()..].chars().next();
                    let before = text[..i].chars().next_back();
                    !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
                        && !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                })
            };
            if named("crate::") || (top && named("super::")) {
                uses.insert(s.clone());
            }
        }
    }
    uses.into_iter().collect()
}

/// No circle of imports between the modules of a crate: each crate's top modules form a graph
/// without cycles (the crate root, which declares them all, aside). A module that needs one of
/// its users' items means that the item belongs lower down (as the generator's kernel does for
/// its four solves).
#[test]
fn no_crate_has_a_circle_of_modules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut crates: Vec<std::path::PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("crates")
        .flatten()
        .map(|e| e.path().join("src"))
        .collect();
    crates.push(root.join("src"));
    for src in crates {
        let modules = top_modules(&src);
        let names: Vec<String> = modules.iter().map(|(n, _)| n.clone()).collect();
        let graph: Vec<(String, Vec<String>)> = modules
            .iter()
            .map(|(n, files)| (n.clone(), module_uses(n, files, &names)))
            .collect();
        // Depth-first search for a back edge; the path to it is the circle.
        fn visit(
            m: &str,
            graph: &[(String, Vec<String>)],
            state: &mut std::collections::BTreeMap<String, u8>,
            path: &mut Vec<String>,
        ) -> Option<Vec<String>> {
            state.insert(m.to_string(), 1);
            path.push(m.to_string());
            let edges = graph.iter().find(|(n, _)| n == m).map(|(_, e)| e.clone());
            for d in edges.unwrap_or_default() {
                match state.get(&d) {
                    Some(1) => {
                        let at = path.iter().position(|p| *p == d).unwrap_or(0);
                        let mut circle = path[at..].to_vec();
                        circle.push(d);
                        return Some(circle);
                    }
                    Some(_) => {}
                    None => {
                        if let Some(c) = visit(&d, graph, state, path) {
                            return Some(c);
                        }
                    }
                }
            }
            path.pop();
            state.insert(m.to_string(), 2);
            None
        }
        let mut state = std::collections::BTreeMap::new();
        for (m, _) in &graph {
            if !state.contains_key(m) {
                let circle = visit(m, &graph, &mut state, &mut Vec::new());
                assert!(
                    circle.is_none(),
                    "{}: a circle of modules: {}",
                    src.display(),
                    circle.unwrap_or_default().join(" -> ")
                );
            }
        }
    }
}

/// The check above finds a circle where there is one.
#[test]
fn the_circle_check_sees_a_circle() {
    let dir = tempfile::tempdir().expect("dir");
    let src = dir.path();
    std::fs::write(src.join("a.rs"), "use crate::b::X;").expect("a");
    std::fs::create_dir(src.join("b")).expect("b");
    std::fs::write(src.join("b/mod.rs"), "pub struct X; use super::c;").expect("b");
    std::fs::write(src.join("c.rs"), "fn f() { crate::a::g() }").expect("c");
    let modules = top_modules(src);
    let names: Vec<String> = modules.iter().map(|(n, _)| n.clone()).collect();
    let uses: Vec<Vec<String>> = modules
        .iter()
        .map(|(n, f)| module_uses(n, f, &names))
        .collect();
    assert_eq!(names, vec!["a", "b", "c"]);
    assert_eq!(uses, vec![vec!["b"], vec!["c"], vec!["a"]]);
}
