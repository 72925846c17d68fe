//! `build-tables --by-structure` (the DTM of materials with pawns solved one pawn structure at a
//! time) against the ordinary build: every file byte for byte the same, and no work files left.

use std::{fs, path::Path};

mod common;

/// The names of the files (and folders) in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn tables_built_by_structure_are_the_same_files() {
    let a = tempfile::tempdir().expect("dir");
    let b = tempfile::tempdir().expect("dir");
    let (a, b) = (a.path(), b.path());
    common::build_tables_ok(&["-q", "--out", a.to_str().expect("utf-8 path"), "KPvKP"]);
    // The sub-tables as built, KPvKP again by structure.
    for f in names(a) {
        if !f.starts_with("KPvKP.") {
            fs::copy(a.join(&f), b.join(&f)).expect("copy");
        }
    }
    let b_out = b.to_str().expect("utf-8 path");
    common::build_tables_ok(&["-q", "--by-structure", "--out", b_out, "KPvKP"]);
    let files = names(a);
    assert_eq!(files, names(b), "the same files, and no work folder left");
    assert!(files.iter().any(|f| f == "KPvKP.rdtm"), "{files:?}");
    for f in &files {
        let (x, y) = (
            fs::read(a.join(f)).expect("a"),
            fs::read(b.join(f)).expect("b"),
        );
        assert!(x == y, "{f} differs");
    }
}

/// A 6-piece material with pawns is refused unless built by structure; by structure it is
/// taken, and (with `--only`) refused next for its missing sub-tables, named.
#[test]
fn six_pieces_with_pawns_are_built_only_by_structure() {
    let dir = tempfile::tempdir().expect("dir");
    let out = dir.path().to_str().expect("utf-8 path");
    let refused = common::build_tables(&["-q", "--out", out, "--only", "KRRvKRP"]);
    assert!(!refused.status.success());
    let err = common::text(&refused.stderr);
    assert!(err.contains("--by-structure"), "{err}");
    let taken = common::build_tables(&["-q", "--by-structure", "--out", out, "--only", "KRRvKRP"]);
    assert!(!taken.status.success());
    let err = common::text(&taken.stderr);
    assert!(!err.contains("pieces; this version"), "{err}");
    assert!(
        err.contains("KRPvKR.rdtm"),
        "the missing sub-table named: {err}"
    );
}

/// `--verify --by-structure`, the check of 6-piece tables with pawns a level of pawn structures
/// at a time (here on KPvKP), checks as many positions as the general check, and finds a value
/// that was changed in the file.
#[test]
fn the_check_by_structure_finds_a_changed_value() {
    let dir = tempfile::tempdir().expect("dir");
    let out = dir.path().to_str().expect("utf-8 path");
    common::build_tables_ok(&["-q", "--out", out, "KPvKP"]);
    let check = |by_structure: bool| -> (bool, String) {
        let mut args = vec!["-q", "--out", out, "--verify"];
        if by_structure {
            args.push("--by-structure");
        }
        args.push("KPvKP");
        let run = common::build_tables(&args);
        let text = common::text(&run.stdout);
        let line = text.lines().find(|l| l.starts_with("KPvKP    checked"));
        (run.status.success(), line.unwrap_or(&text).to_string())
    };
    let (general_ok, general) = check(false);
    let (ok, line) = check(true);
    assert!(general_ok && ok, "{general}\n{line}");
    let count = |l: &str| l.split_whitespace().nth(2).map(str::to_string);
    // The DTZ50 tables, checked by structure too, pass with as many positions.
    let dtz_lines = |by_structure: bool| -> String {
        let mut args = vec!["-q", "--out", out, "--verify", "--dtz-only", "KPvKP"];
        if by_structure {
            args.push("--by-structure");
        }
        let run = common::build_tables(&args);
        assert!(run.status.success(), "{}", common::text(&run.stdout));
        let text = common::text(&run.stdout);
        let l = text
            .lines()
            .find(|l| l.starts_with("KPvKP    DTZ50 checked"));
        l.unwrap_or(&text).to_string()
    };
    let (dtz_general, dtz_parts) = (dtz_lines(false), dtz_lines(true));
    assert!(dtz_parts.contains(" 0 mismatches"), "{dtz_parts}");
    let dtz_count = |l: &str| l.split_whitespace().nth(3).map(str::to_string);
    assert_eq!(
        dtz_count(&dtz_general),
        dtz_count(&dtz_parts),
        "{dtz_parts}"
    );
    assert_eq!(count(&general), count(&line), "{general}\n{line}");
    assert!(line.contains(" 0 mismatches"), "{line}");

    common::lengthen_a_long_win(dir.path(), common::material("KPvKP"));
    let (ok, line) = check(true);
    assert!(!ok, "{line}");
    assert!(
        line.contains("checked") && !line.contains(" 0 mismatches"),
        "{line}"
    );
}
