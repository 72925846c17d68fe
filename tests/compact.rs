//! `build-tables --compact` (the solve 6-piece tables take: one byte an entry in memory, values
//! in work files) against the ordinary build: the same value in every entry of both files, and
//! `--verify` finds nothing wrong. A stopped build resumes from the phase it reached.

use std::{path::Path, process::Command};

mod common;
use common::build_tables_ok as build_tables;

use shakmaty::Color;

use retro_tables::{
    format::{file_name, Metric, Table},
    pieces::{attacked, occupancy},
    Material,
};

/// Every legal entry of `m` reads the same DTM value and DTZ50 number in both directories.
fn same_values(a: &Path, b: &Path, m: Material) -> u64 {
    let open = |dir: &Path| {
        (
            Table::open(&dir.join(file_name(m)), Some(m)).expect("dtm"),
            Table::open_dtz(&dir.join(Metric::Dtz.file_name(m)), Some(m)).expect("dtz"),
        )
    };
    let (am, az) = open(a);
    let (bm, bz) = open(b);
    let ix = am.scheme().clone();
    let mut decided = 0;
    for idx in 0..ix.size() {
        if ix.decode(idx).is_none() {
            continue;
        }
        for mover in Color::ALL {
            let (va, vb) = (
                am.get(mover, idx).expect("a"),
                bm.get(mover, idx).expect("b"),
            );
            // Entries that are no position (side not to move in check) hold anything.
            if va != vb {
                let sq = ix.decode(idx).expect("decodes");
                // The king of the side not to move.
                let king = if mover.is_white() { sq[1] } else { sq[0] };
                let slots = ix.slots();
                let occ = occupancy(&sq, slots.len());
                let illegal = attacked(slots, &sq, king, mover, occ, usize::MAX);
                assert!(
                    illegal,
                    "{}: entry {idx} ({mover:?}): {va} vs {vb}",
                    m.name()
                );
                continue;
            }
            if va.wdl() != retro_tables::Wdl::Draw {
                decided += 1;
                let (za, zb) = (
                    az.get_stored(mover, idx).expect("a"),
                    bz.get_stored(mover, idx).expect("b"),
                );
                assert_eq!(za, zb, "{}: DTZ50 of entry {idx} ({mover:?})", m.name());
            }
        }
    }
    decided
}

#[test]
fn compact_build_agrees_with_the_ordinary_build_and_verifies() {
    let plain = tempfile::tempdir().expect("dir");
    let compact = tempfile::tempdir().expect("dir");
    let names = ["KRNvK", "KQvKR", "KBBvK"];
    let out = |d: &tempfile::TempDir| d.path().to_string_lossy().into_owned();
    let mut args = vec!["--out".to_string(), out(&plain), "-q".to_string()];
    args.extend(names.iter().map(|s| s.to_string()));
    build_tables(&args.iter().map(String::as_str).collect::<Vec<_>>());
    args[1] = out(&compact);
    args.push("--compact".to_string());
    build_tables(&args.iter().map(String::as_str).collect::<Vec<_>>());
    for name in names {
        let m: Material = name.parse().expect("material");
        let decided = same_values(plain.path(), compact.path(), m);
        assert!(decided > 100_000, "{name}: {decided}");
        assert!(
            !retro_build::work_dir(compact.path(), m).exists(),
            "{name}: work files left"
        );
    }
    let report = build_tables(&["--out", &out(&compact), "-q", "--verify", "KRNvK", "KQvKR"]);
    assert!(
        report.contains("0 mismatches, 0 tables not checked"),
        "{report}"
    );
    // The 6-piece checks (DTM and DTZ50) find the same tables whole, position for position.
    let six = build_tables(&[
        "--out",
        &out(&compact),
        "-q",
        "--verify",
        "--compact",
        "KRNvK",
        "KQvKR",
    ]);
    assert!(six.contains("0 mismatches, 0 tables not checked"), "{six}");
    let counts = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.contains(" checked "))
            .map(|l| l.split("positions").next().unwrap_or(l).to_string())
            .collect()
    };
    assert_eq!(counts(&report), counts(&six));
    assert_eq!(counts(&six).len(), 4, "{six}");
}

/// Rewrites one DTZ50 number of `m`'s table in `dir`: the first white-to-move entry whose DTM
/// class is `class` and whose number `pick` accepts gets `change(number)`.
fn change_dtz(
    dir: &Path,
    m: Material,
    class: retro_tables::Wdl,
    pick: impl Fn(u16) -> bool,
    change: impl Fn(u16) -> u16,
) {
    let dtm = Table::open(&dir.join(file_name(m)), Some(m)).expect("dtm");
    let dtz = Table::open_dtz(&dir.join(Metric::Dtz.file_name(m)), Some(m)).expect("dtz");
    let n = dtz.scheme().size();
    let side = |mover: Color| -> Vec<u8> {
        (0..n)
            .map(|i| u8::try_from(dtz.get_stored(mover, i).expect("probe")).expect("a byte"))
            .collect()
    };
    let (mut white, black) = (side(Color::White), side(Color::Black));
    let ix = dtz.scheme().clone();
    let legal = |i: u64| {
        ix.decode(i).is_some_and(|sq| {
            let slots = ix.slots();
            let occ = occupancy(&sq, slots.len());
            !attacked(slots, &sq, sq[1], shakmaty::Color::White, occ, usize::MAX)
        })
    };
    let i = (0..n as usize)
        .find(|&i| {
            dtm.get(Color::White, i as u64).expect("dtm").wdl() == class
                && pick(u16::from(white[i]))
                && legal(i as u64)
        })
        .expect("an entry to change");
    white[i] = u8::try_from(change(u16::from(white[i]))).expect("a byte");
    let stats = dtz.stats();
    drop((dtm, dtz));
    rewrite(dir, Metric::Dtz, m, [&white, &black], stats);
}

/// Writes `m`'s table of `metric` in `dir` again with the one-byte values `sides`.
fn rewrite(
    dir: &Path,
    metric: Metric,
    m: Material,
    [white, black]: [&[u8]; 2],
    stats: retro_tables::format::Stats,
) {
    use retro_tables::format::{write_table_as, Encoding, TableData};
    let data = TableData {
        white,
        black,
        legal: None,
        ext: None,
    };
    let enc = Encoding::Blocks {
        block_len: 4096,
        level: 3,
    };
    write_table_as(dir, metric, m, data, stats, enc).expect("rewritten");
}

/// The 6-piece DTZ50 check finds a win's number and a loss's class that were changed.
#[test]
fn the_compact_dtz_check_finds_a_changed_number() {
    use retro_tables::Wdl;
    let m: Material = "KQvKR".parse().expect("material");
    type Change = (Wdl, fn(u16) -> bool, fn(u16) -> u16);
    let changes: [Change; 2] = [
        (Wdl::Win, |z| z > 10 && z < 90, |z| z + 2),
        (Wdl::Loss, |z| z == 1, |_| 101),
    ];
    for (class, pick, change) in changes {
        let dir = tempfile::tempdir().expect("dir");
        let out = dir.path().to_string_lossy().into_owned();
        build_tables(&["--out", &out, "-q", "--compact", "KQvKR"]);
        change_dtz(dir.path(), m, class, pick, change);
        let run = Command::new(env!("CARGO_BIN_EXE_build-tables"))
            .args([
                "--out",
                &out,
                "-q",
                "--verify",
                "--compact",
                "--dtz-only",
                "KQvKR",
            ])
            .output()
            .expect("runs");
        let text = String::from_utf8_lossy(&run.stdout);
        assert!(!run.status.success(), "{class:?}: {text}");
        let line = text
            .lines()
            .find(|l| l.starts_with("KQvKR    DTZ50 checked"))
            .expect("a report line");
        assert!(!line.contains(" 0 mismatches"), "{class:?}: {line}");
    }
}

/// The check of 6-piece tables (`--verify --compact` on smaller ones) finds a value that was
/// changed in the file.
#[test]
fn the_compact_check_finds_a_changed_value() {
    let dir = tempfile::tempdir().expect("dir");
    let out = dir.path().to_string_lossy().into_owned();
    build_tables(&["--out", &out, "-q", "--compact", "KQvKR"]);
    common::lengthen_a_long_win(dir.path(), common::material("KQvKR"));
    let run = Command::new(env!("CARGO_BIN_EXE_build-tables"))
        .args(["--out", &out, "-q", "--verify", "--compact", "--dtz-only"])
        .output()
        .expect("runs");
    assert!(run.status.success(), "the DTZ50 table alone still checks");
    let run = Command::new(env!("CARGO_BIN_EXE_build-tables"))
        .args(["--out", &out, "-q", "--verify", "--compact", "KQvKR"])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(!run.status.success(), "{text}");
    let line = text
        .lines()
        .find(|l| l.starts_with("KQvKR    checked"))
        .expect("a report line");
    assert!(!line.contains(" 0 mismatches"), "{line}");
}
