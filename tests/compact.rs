//! `build-tables --compact` (the solve 6-piece tables take: one byte an entry in memory, values
//! in work files) against the ordinary build: the same value in every entry of both files, and
//! `--verify` finds nothing wrong. A stopped build resumes from the phase it reached.

use std::{path::Path, process::Command};

use retro_tables::{
    format::{file_name, Metric, Table},
    pieces::{attacked, occupancy},
    Material,
};

fn build_tables(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_build-tables"))
        .args(args)
        .output()
        .expect("build-tables runs");
    assert!(
        out.status.success(),
        "build-tables {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

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
        for white in [true, false] {
            let (va, vb) = (
                am.get(white, idx).expect("a"),
                bm.get(white, idx).expect("b"),
            );
            // Entries that are no position (side not to move in check) hold anything.
            if va != vb {
                let sq = ix.decode(idx).expect("decodes");
                let (mover, king) = if white {
                    (shakmaty::Color::White, sq[1])
                } else {
                    (shakmaty::Color::Black, sq[0])
                };
                let slots = ix.slots();
                let occ = occupancy(&sq, slots.len());
                let illegal = attacked(slots, &sq, king, mover, occ, usize::MAX);
                assert!(illegal, "{}: entry {idx} ({white}): {va} vs {vb}", m.name());
                continue;
            }
            if va.wdl() != retro_tables::Wdl::Draw {
                decided += 1;
                let (za, zb) = (
                    az.get_stored(white, idx).expect("a"),
                    bz.get_stored(white, idx).expect("b"),
                );
                assert_eq!(za, zb, "{}: DTZ50 of entry {idx} ({white})", m.name());
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
}

/// The check of 6-piece tables (`--verify --compact` on smaller ones) finds a value that was
/// changed in the file.
#[test]
fn the_compact_check_finds_a_changed_value() {
    use retro_tables::format::{write_table, Encoding, TableData};
    let dir = tempfile::tempdir().expect("dir");
    let out = dir.path().to_string_lossy().into_owned();
    build_tables(&["--out", &out, "-q", "--compact", "KQvKR"]);
    let m: Material = "KQvKR".parse().expect("material");
    let t = Table::open(&dir.path().join(file_name(m)), Some(m)).expect("dtm");
    let n = t.scheme().size();
    let side = |white: bool| -> Vec<u8> {
        (0..n)
            .map(|i| t.get(white, i).expect("probe").to_byte().expect("a byte"))
            .collect()
    };
    let (mut white, black) = (side(true), side(false));
    let stats = t.stats();
    drop(t);
    let i = white
        .iter()
        .position(|&b| {
            let v = retro_tables::Value::from_byte(b);
            v.wdl() == retro_tables::Wdl::Win && v.plies() > 20
        })
        .expect("a long win");
    let v = retro_tables::Value::from_byte(white[i]);
    white[i] = retro_tables::Value::win(v.plies() + 2)
        .and_then(retro_tables::Value::to_byte)
        .expect("a byte");
    let data = TableData {
        white: &white,
        black: &black,
        legal: None,
        ext: None,
    };
    let enc = Encoding::Blocks {
        block_len: 4096,
        level: 3,
    };
    write_table(dir.path(), m, data, stats, enc).expect("rewritten");
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
