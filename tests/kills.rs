//! The kill script (`scripts/kill-test.py`) on the build of the 3- and 4-piece tables: the
//! build killed (SIGKILL) at random moments and restarted on what it left must end with every
//! file byte-identical to an uninterrupted build's. Ignored (minutes, and it needs python3):
//! `cargo test --release --test kills -- --ignored`; docs/testing.md has the figures of the
//! 100-kill runs of every long job.

use std::{path::Path, process::Command};

/// Kills of the test's run (the documented runs make 100).
const KILLS: u32 = 10;

#[test]
#[ignore = "kills build-tables at random moments and builds again: minutes; needs python3"]
fn killed_builds_of_the_3_and_4_piece_tables_end_byte_identical() {
    // The script runs the release binaries, which this test's build made.
    assert!(
        Path::new(env!("CARGO_BIN_EXE_build-tables")).ends_with("release/build-tables"),
        "run with cargo test --release"
    );
    let work = tempfile::tempdir().expect("temporary folder");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/kill-test.py");
    let out = Command::new("python3")
        .arg(&script)
        .args([
            "tables34",
            "--kills",
            &KILLS.to_string(),
            "--seed",
            "7",
            "--work",
        ])
        .arg(work.path())
        .output()
        .expect("python3 runs the kill script");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let summary = stdout
        .lines()
        .find(|l| l.starts_with("tables34"))
        .unwrap_or_else(|| panic!("no summary in {stdout}"));
    // "tables34 : 10 kills, 12 restarts (...), 2 finished runs ..., 0 differences, 95 s"
    let kills: u32 = summary
        .split_once(": ")
        .and_then(|(_, rest)| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no kill count in {summary}"));
    assert!(kills >= KILLS, "{summary}");
    assert!(summary.contains(", 0 differences,"), "{summary}");
}
