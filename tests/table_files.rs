//! Table files are untrusted input: truncated, bit-flipped, wrong-version and random files are
//! refused with an error naming the file, and never panic or read out of bounds.

mod common;

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use retro_build::{build, BuildOptions};
use retro_engine::fen::parse_fen;
use retro_tables::{
    format::{file_name, write_table, Encoding, Stats, Table, TableData, TableError, HEADER_LEN},
    Material, ProbeError, Tablebase,
};
use shakmaty::Color;

/// A directory with a freshly built KQvK table; returns it and the table's bytes.
fn kqvk() -> (tempfile::TempDir, PathBuf, Vec<u8>) {
    let dir = tempfile::tempdir().expect("tempdir");
    common::build_into(dir.path(), &[common::material("KQvK")]);
    let path = dir.path().join(file_name(common::material("KQvK")));
    let bytes = std::fs::read(&path).expect("table written");
    (dir, path, bytes)
}

fn refused(path: &Path) -> TableError {
    match Table::open(path, Some(common::material("KQvK"))) {
        Ok(_) => panic!("{} was accepted", path.display()),
        Err(e) => {
            assert!(
                e.to_string().contains(&path.display().to_string()),
                "error names the file: {e}"
            );
            e
        }
    }
}

#[test]
fn a_valid_table_opens() {
    let (_dir, path, bytes) = kqvk();
    let t = Table::open(&path, Some(common::material("KQvK"))).expect("valid table");
    assert_eq!(t.material().name(), "KQvK");
    assert_eq!(
        bytes.len() as u64,
        HEADER_LEN as u64 + 2 * t.scheme().size()
    );
    assert_eq!(t.stats().longest_win, 19);
    assert_eq!(t.stats().longest_loss, 20);
}

#[test]
fn missing_file_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = refused(&dir.path().join("KQvK.rdtm"));
    assert!(matches!(e, TableError::Io { .. }));
}

#[test]
fn truncated_files_are_refused() {
    let (dir, _path, bytes) = kqvk();
    for len in [
        0,
        1,
        8,
        40,
        63,
        64,
        65,
        1000,
        bytes.len() / 2,
        bytes.len() - 1,
    ] {
        let p = dir.path().join(format!("cut{len}.rdtm"));
        std::fs::write(&p, &bytes[..len]).expect("write");
        refused(&p);
    }
    // Padded.
    let p = dir.path().join("padded.rdtm");
    let mut longer = bytes.clone();
    longer.push(0);
    std::fs::write(&p, &longer).expect("write");
    refused(&p);
}

#[test]
fn every_flipped_header_bit_and_sampled_payload_bits_are_refused() {
    let (dir, _path, bytes) = kqvk();
    let p = dir.path().join("flipped.rdtm");
    let mut offsets: Vec<usize> = (0..HEADER_LEN).collect();
    let step = (bytes.len() - HEADER_LEN) / 200;
    offsets.extend((HEADER_LEN..bytes.len()).step_by(step.max(1)));
    offsets.push(bytes.len() - 1);
    for off in offsets {
        for bit in [0u8, 3, 7] {
            let mut b = bytes.clone();
            b[off] ^= 1 << bit;
            std::fs::write(&p, &b).expect("write");
            refused(&p);
        }
    }
}

#[test]
fn another_version_is_named() {
    let (dir, _path, mut bytes) = kqvk();
    bytes[8] = 99;
    let p = dir.path().join("v99.rdtm");
    std::fs::write(&p, &bytes).expect("write");
    let e = refused(&p);
    assert!(e.to_string().contains("format version 99"), "{e}");
}

#[test]
fn a_corrupted_table_is_not_used_by_the_prober_and_is_rebuilt() {
    let (dir, path, mut bytes) = kqvk();
    let n = bytes.len();
    bytes[n - 10] ^= 0x40;
    std::fs::write(&path, &bytes).expect("write");
    let tb = Tablebase::open(dir.path()).expect("dir");
    let pos = parse_fen("k7/7Q/1K6/8/8/8/8/8 w - - 0 1").expect("fen");
    match tb.probe(&pos) {
        Err(ProbeError::BadTable(e)) => assert!(e.to_string().contains("KQvK.rdtm"), "{e}"),
        other => panic!("corrupted table used: {other:?}"),
    }
    // build-tables does not skip it: the file is rebuilt and valid again.
    let opts = BuildOptions::quiet(dir.path().to_path_buf());
    let done = build(&[common::material("KQvK")], &opts, |_| {}).expect("rebuild");
    assert!(done
        .iter()
        .any(|s| s.material.name() == "KQvK" && !s.skipped));
    assert!(Table::open(&path, None).is_ok());
}

/// A raw table of `name` built into a fresh directory, and the same values written compressed
/// (small blocks, so that the table has many) into a second directory.
fn raw_and_compressed(name: &str) -> (tempfile::TempDir, tempfile::TempDir, Material) {
    let m = common::material(name);
    let raw = tempfile::tempdir().expect("tempdir");
    common::build_into(raw.path(), &[m]);
    let t = Table::open(&raw.path().join(file_name(m)), Some(m)).expect("raw table");
    assert!(!t.is_compressed());
    let n = t.scheme().size();
    let side = |white: Color| -> Vec<u8> {
        (0..n)
            .map(|i| t.get(white, i).expect("raw").to_byte().expect("a byte"))
            .collect()
    };
    let (white, black) = (side(Color::White), side(Color::Black));
    let packed = tempfile::tempdir().expect("tempdir");
    let data = TableData {
        white: &white,
        black: &black,
        legal: None,
        ext: None,
    };
    let encoding = Encoding::Blocks {
        block_len: 1024,
        level: 3,
    };
    let w = write_table(packed.path(), m, data, t.stats(), encoding).expect("written");
    assert!(
        w.bytes < 2 * n,
        "{name}: {} bytes for {} values",
        w.bytes,
        2 * n
    );
    (raw, packed, m)
}

#[test]
fn a_compressed_table_holds_the_same_values() {
    for name in ["KRvKR", "KPvKP", "KQvK"] {
        let (raw, packed, m) = raw_and_compressed(name);
        let a = Table::open(&raw.path().join(file_name(m)), Some(m)).expect("raw");
        let b = Table::open(&packed.path().join(file_name(m)), Some(m)).expect("compressed");
        let c = Table::open_in_memory(&packed.path().join(file_name(m)), Some(m)).expect("memory");
        assert!(b.is_compressed() && !c.is_compressed());
        b.check_blocks().expect("every block decompresses");
        assert_eq!(a.stats(), b.stats());
        let n = a.scheme().size();
        for white in Color::ALL {
            // In index order and in a scattered order (blocks evicted and decompressed again).
            for k in 0..n {
                let i = if k % 2 == 0 { k } else { (k * 7919) % n };
                let want = a.get(white, i).expect("raw");
                assert_eq!(
                    b.get(white, i).expect("block"),
                    want,
                    "{name} {white:?} {i}"
                );
                assert_eq!(
                    c.get(white, i).expect("memory"),
                    want,
                    "{name} {white:?} {i}"
                );
            }
        }
        // The prober reads it like the raw file.
        let tb_raw = Tablebase::open(raw.path()).expect("dir");
        let tb_packed = Tablebase::open(packed.path()).expect("dir");
        let fen = match name {
            "KRvKR" => "8/8/8/3k4/8/8/1R6/K6r w - - 0 1",
            "KPvKP" => "8/2p5/8/3k4/8/5P2/8/K7 b - - 0 1",
            _ => "k7/7Q/1K6/8/8/8/8/8 w - - 0 1",
        };
        let pos = parse_fen(fen).expect("fen");
        let v = tb_packed.probe(&pos).expect("probe");
        assert_eq!(tb_raw.probe(&pos), Ok(v), "{fen}");
    }
}

#[test]
fn one_side_of_a_compressed_table_can_be_loaded_alone() {
    let (raw, packed, m) = raw_and_compressed("KPvKP");
    let a = Table::open(&raw.path().join(file_name(m)), Some(m)).expect("raw");
    let path = packed.path().join(file_name(m));
    for (sides, loaded) in [([false, true], Color::Black), ([true, false], Color::White)] {
        let half = Table::open_sides_in_memory(&path, Some(m), sides).expect("half");
        for i in (0..a.scheme().size()).step_by(7) {
            assert_eq!(half.get(loaded, i), a.get(loaded, i), "entry {i}");
            match half.get(loaded.other(), i) {
                Err(ProbeError::BadTable(e)) => {
                    assert!(e.to_string().contains("not loaded"), "{e}")
                }
                other => panic!("the other side answered: {other:?}"),
            }
        }
    }
    // A raw table stays whole.
    let whole = Table::open_sides_in_memory(&raw.path().join(file_name(m)), Some(m), [true, false])
        .expect("raw");
    assert_eq!(whole.get(Color::Black, 5), a.get(Color::Black, 5));
}

#[test]
fn corrupted_compressed_tables_are_refused_naming_the_file() {
    let (_raw, packed, m) = raw_and_compressed("KRvKR");
    let path = packed.path().join(file_name(m));
    let bytes = std::fs::read(&path).expect("read");
    let p = packed.path().join("bad.rdtm");
    let mut offsets: Vec<usize> = (0..HEADER_LEN + 64).collect();
    offsets.extend((HEADER_LEN..bytes.len()).step_by((bytes.len() / 300).max(1)));
    offsets.push(bytes.len() - 1);
    let mut at_open = 0;
    for off in offsets {
        for bit in [0u8, 4, 7] {
            let mut b = bytes.clone();
            b[off] ^= 1 << bit;
            std::fs::write(&p, &b).expect("write");
            let err = match Table::open(&p, Some(m)) {
                Err(e) => {
                    at_open += 1;
                    e
                }
                Ok(t) => match t.check_blocks() {
                    Err(e) => e,
                    Ok(()) => panic!("flip of bit {bit} at byte {off} not detected"),
                },
            };
            assert!(err.to_string().contains("bad.rdtm"), "{err}");
        }
    }
    assert!(at_open > 0);
    // Truncated.
    for len in [
        0,
        50,
        HEADER_LEN,
        HEADER_LEN + 8,
        bytes.len() / 2,
        bytes.len() - 1,
    ] {
        std::fs::write(&p, &bytes[..len]).expect("write");
        assert!(Table::open(&p, Some(m)).is_err(), "cut at {len}");
    }
    // A corrupt block in use: probes through it fail with the file named, the others work.
    let mut b = bytes.clone();
    let last = b.len() - 3;
    b[last] ^= 0x55;
    std::fs::write(&path, &b).expect("write");
    let t = Table::open(&path, Some(m)).expect("header and index are intact");
    let n = t.scheme().size();
    let errors: Vec<ProbeError> = (0..n)
        .filter_map(|i| t.get(Color::Black, i).err())
        .collect();
    assert!(!errors.is_empty() && errors.len() < n as usize / 2);
    assert!(
        errors[0].to_string().contains("KRvKR.rdtm"),
        "{}",
        errors[0]
    );
    assert!(Table::open_in_memory(&path, Some(m)).is_err());
}

#[test]
fn writing_checks_the_value_count() {
    let dir = tempfile::tempdir().expect("tempdir");
    let m = common::material("KQvK");
    let data = TableData {
        white: &[0; 10],
        black: &[0; 10],
        legal: None,
        ext: None,
    };
    assert!(write_table(dir.path(), m, data, Stats::default(), Encoding::Raw).is_err());
    assert!(!dir.path().join(file_name(m)).exists());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random bytes, and a valid header followed by random bytes, never panic.
    #[test]
    fn random_files_never_panic(garbage in proptest::collection::vec(any::<u8>(), 0..4096), keep_header in any::<bool>()) {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("KQvK.rdtm");
        let mut bytes = garbage;
        if keep_header {
            let (_d, _path, valid) = kqvk();
            let mut b = valid[..HEADER_LEN].to_vec();
            b.extend_from_slice(&bytes);
            bytes = b;
        }
        std::fs::write(&p, &bytes).expect("write");
        prop_assert!(Table::open(&p, None).is_err());
        let tb = Tablebase::open(dir.path()).expect("dir");
        let pos = parse_fen("k7/7Q/1K6/8/8/8/8/8 w - - 0 1").expect("fen");
        prop_assert!(tb.probe(&pos).is_err());
    }
}

/// KRvKN built into a new directory, and its report from `verify`, which must be clean.
fn clean_krvkn(
    verify: fn(&Path, Material, &dyn retro_build::Progress) -> retro_build::verify::VerifyReport,
) -> (
    tempfile::TempDir,
    Material,
    retro_build::verify::VerifyReport,
) {
    let m = common::material("KRvKN");
    let dir = tempfile::tempdir().expect("tempdir");
    common::build_into(dir.path(), &[m]);
    let clean = verify(dir.path(), m, &retro_build::Silent);
    assert_eq!((clean.mismatches, clean.error.clone()), (0, None));
    assert!(clean.checked > 1_000_000, "{}", clean.checked);
    (dir, m, clean)
}

/// Writes `sides` (white, black to move) over the table `t` of KRvKN in `dir`, raw, and verifies
/// it again: the report, which checks as many positions as `clean` and finds a mismatch.
fn rewrite_and_verify(
    dir: &Path,
    t: Table,
    sides: (&[u8], &[u8]),
    clean: &retro_build::verify::VerifyReport,
) -> retro_build::verify::VerifyReport {
    use retro_tables::format::{write_table_as, Metric};
    let (metric, m, stats) = (t.metric(), t.material(), t.stats());
    drop(t);
    let data = TableData {
        white: sides.0,
        black: sides.1,
        legal: None,
        ext: None,
    };
    write_table_as(dir, metric, m, data, stats, Encoding::Raw).expect("rewritten");
    let r = match metric {
        Metric::Dtm => retro_build::verify::verify(dir, m, &retro_build::Silent),
        Metric::Dtz => retro_build::verify::verify_dtz(dir, m, &retro_build::Silent),
    };
    assert_eq!(r.error, None);
    assert_eq!(r.checked, clean.checked);
    assert!(r.mismatches >= 1, "the changed entry was not found");
    r
}

/// Every stored byte of a table, white to move then black to move.
fn stored_bytes(t: &Table) -> (Vec<u8>, Vec<u8>) {
    let n = t.scheme().size();
    let side = |white: Color| -> Vec<u8> {
        (0..n)
            .map(|i| t.get_byte(white, i).expect("readable"))
            .collect()
    };
    (side(Color::White), side(Color::Black))
}

/// `--verify` finds a single changed value, through the quiet-move path (children indexed in the
/// table itself) and the general probe (captures into KRvK's sub-tables): the changed entry
/// disagrees with its children.
#[test]
fn verify_finds_a_changed_value() {
    let (dir, m, clean) = clean_krvkn(retro_build::verify::verify);
    let path = dir.path().join(file_name(m));
    let t = Table::open(&path, Some(m)).expect("table");
    let (mut white, black) = stored_bytes(&t);
    // The first won entry with white to move becomes a win two plies longer.
    let i = white
        .iter()
        .position(|&b| {
            let v = retro_tables::Value::from_byte(b);
            v.wdl() == retro_tables::Wdl::Win && v.plies() > 10
        })
        .expect("a win");
    let old = retro_tables::Value::from_byte(white[i]);
    let new = retro_tables::Value::win(old.plies() + 2).expect("in range");
    white[i] = new.to_byte().expect("a byte");
    let r = rewrite_and_verify(dir.path(), t, (&white, &black), &clean);
    assert!(
        r.examples
            .iter()
            .any(|(_, stored, want)| *stored == new.to_string() && *want == old.to_string()),
        "{:?}",
        r.examples
    );
}

#[test]
fn recompressing_keeps_every_value_and_round_trips() {
    use retro_tables::format::{recompress, Compression};
    let (raw, packed, m) = raw_and_compressed("KRvKR");
    let path = packed.path().join(file_name(m));
    let original = std::fs::read(&path).expect("written");
    let w = recompress(
        &path,
        Compression {
            block_len: 4096,
            level: 9,
            ..Compression::default()
        },
    )
    .expect("recompressed");
    assert_ne!(w.bytes, original.len() as u64);
    let a = Table::open(&raw.path().join(file_name(m)), Some(m)).expect("raw");
    let b = Table::open(&path, Some(m)).expect("recompressed table opens");
    b.check_blocks().expect("every block decompresses");
    assert_eq!(a.stats(), b.stats());
    for white in Color::ALL {
        for i in 0..a.scheme().size() {
            assert_eq!(
                b.get(white, i).expect("block"),
                a.get(white, i).expect("raw")
            );
        }
    }
    // Back to the first settings: the same bytes as written by the build.
    recompress(
        &path,
        Compression {
            block_len: 1024,
            level: 3,
            ..Compression::default()
        },
    )
    .expect("recompressed");
    assert_eq!(std::fs::read(&path).expect("file"), original);
    // A raw table is not a compressed one: an error naming the file, and the file untouched.
    let raw_path = raw.path().join(file_name(m));
    let before = std::fs::read(&raw_path).expect("raw file");
    let e = recompress(&raw_path, Compression::default()).expect_err("raw table");
    assert!(
        e.to_string().contains(&raw_path.display().to_string()),
        "{e}"
    );
    assert_eq!(std::fs::read(&raw_path).expect("raw file"), before);
}

/// `--verify` of a DTZ50 table finds a single changed distance: the changed entry disagrees
/// with its children, and so do the positions one move before it.
#[test]
fn dtz_verify_finds_a_changed_distance() {
    use retro_tables::format::Metric;
    let (dir, m, clean) = clean_krvkn(retro_build::verify::verify_dtz);
    let path = dir.path().join(Metric::Dtz.file_name(m));
    let t = Table::open_dtz(&path, Some(m)).expect("dtz table");
    let (mut white, black) = stored_bytes(&t);
    let dtm = Table::open(&dir.path().join(file_name(m)), Some(m)).expect("dtm table");
    let won = |i: usize| {
        dtm.get(Color::White, i as u64)
            .is_ok_and(|v| v.wdl() == retro_tables::Wdl::Win)
    };
    // A win's distance (a loss holds only its class).
    let i = (0..white.len())
        .find(|&i| white[i] > 10 && won(i))
        .expect("a long distance");
    white[i] += 2;
    let r = rewrite_and_verify(dir.path(), t, (&white, &black), &clean);
    let want = i16::from(white[i]);
    assert!(
        r.examples
            .iter()
            .any(|(_, stored, _)| stored.trim_start_matches('-').parse::<i16>() == Ok(want)),
        "{:?}",
        r.examples
    );
}

/// `--verify` of a DTZ50 table finds a loss stored in the wrong class (a loss within the rule
/// marked blessed): its moves give it another.
#[test]
fn dtz_verify_finds_a_loss_in_the_wrong_class() {
    use retro_tables::format::Metric;
    let (dir, m, clean) = clean_krvkn(retro_build::verify::verify_dtz);
    let path = dir.path().join(Metric::Dtz.file_name(m));
    let t = Table::open_dtz(&path, Some(m)).expect("dtz table");
    let (white, mut black) = stored_bytes(&t);
    let dtm = Table::open(&dir.path().join(file_name(m)), Some(m)).expect("dtm table");
    let scheme = dtm.scheme().clone();
    let i = (0..black.len())
        .find(|&i| {
            black[i] == 1
                && dtm
                    .get(Color::Black, i as u64)
                    .is_ok_and(|v| v.wdl() == retro_tables::Wdl::Loss)
                && scheme.decode(i as u64).is_some_and(|sq| {
                    retro_build::verify::entry_position(scheme.slots(), &sq, Color::Black).is_some()
                })
        })
        .expect("a loss");
    black[i] = 101;
    let r = rewrite_and_verify(dir.path(), t, (&white, &black), &clean);
    assert!(
        r.examples.iter().any(|(_, stored, _)| stored == "-101"),
        "{:?}",
        r.examples
    );
}

/// A DTZ50 table built from a present, compressed DTM table (whose entries that are no legal
/// position hold whatever compressed best, not zeros) equals the one built beside the DTM
/// solve, on every legal position. (The solver skips those entries; in KRvKN they happen to do
/// no harm either way, but in KQRvKR one stopped the build before it did.)
#[test]
fn dtz_from_a_compressed_dtm_table_equals_the_solved_one() {
    use retro_build::verify::entry_position;
    let m = common::material("KRvKN");
    let solved = tempfile::tempdir().expect("tempdir");
    common::build_into(solved.path(), &[m]);
    let t = Table::open(&solved.path().join(file_name(m)), Some(m)).expect("table");
    let (white, black) = stored_bytes(&t);
    let scheme = t.scheme().clone();
    let n = scheme.size();
    let legal = |side: Color| -> Vec<u64> {
        let mut bits = vec![0u64; n.div_ceil(64) as usize];
        for i in 0..n {
            let ok = scheme
                .decode(i)
                .and_then(|sq| entry_position(scheme.slots(), &sq, side))
                .is_some();
            if ok {
                bits[(i / 64) as usize] |= 1 << (i % 64);
            }
        }
        bits
    };
    let bits = [legal(Color::White), legal(Color::Black)];
    let packed = tempfile::tempdir().expect("tempdir");
    let data = TableData {
        white: &white,
        black: &black,
        legal: Some([&bits[0], &bits[1]]),
        ext: None,
    };
    let encoding = Encoding::Blocks {
        block_len: 1024,
        level: 3,
    };
    write_table(packed.path(), m, data, t.stats(), encoding).expect("written");
    let c = Table::open(&packed.path().join(file_name(m)), Some(m)).expect("compressed");
    let (cw, _) = stored_bytes(&c);
    let junk = (0..n as usize).filter(|&i| bits[0][i / 64] >> (i % 64) & 1 == 0 && cw[i] != 0);
    assert!(
        junk.count() > 0,
        "the compressed table holds junk where no position is"
    );
    drop(c);
    // The DTM table is present: only the DTZ50 table is built, from the compressed values.
    common::build_into(packed.path(), &[m]);
    let a = Tablebase::open(solved.path()).expect("tables");
    let b = Tablebase::open(packed.path()).expect("tables");
    let mut compared = 0;
    for i in 0..n {
        for side in [Color::White, Color::Black] {
            let Some(pos) = scheme
                .decode(i)
                .and_then(|sq| entry_position(scheme.slots(), &sq, side))
            else {
                continue;
            };
            assert_eq!(a.probe_dtz(&pos), b.probe_dtz(&pos), "entry {i}");
            compared += 1;
        }
    }
    assert!(compared > 1_000_000, "{compared}");
}

/// A DTZ50 file is checked as a DTM file is: truncated, bit-flipped or a DTM file under its
/// name, it is refused naming the file; the prober then answers DTZ50 probes with an error
/// (and DTM probes as before), never a wrong value or a panic. A flipped bit in a compressed
/// block is found when that block is first read: every probe of the table then gives the
/// value of the good file or an error, and those of the damaged block an error.
#[test]
fn corrupted_dtz_files_are_refused_and_dtm_probes_go_on() {
    use retro_build::verify::entry_position;
    use retro_tables::format::Metric;
    let (dir, dtm_path, dtm_bytes) = kqvk();
    let m = common::material("KQvK");
    let path = dir.path().join(Metric::Dtz.file_name(m));
    let good = std::fs::read(&path).expect("dtz table written");
    let pos = parse_fen("8/8/8/4k3/8/8/8/1Q2K3 w - - 0 1").expect("fen");
    let tb = Tablebase::open(dir.path()).expect("tables");
    let dtz = tb.probe_dtz(&pos).expect("valid DTZ50 table");
    assert!(dtz.0 > 0);
    let scheme = Table::open_dtz(&path, Some(m))
        .expect("valid")
        .scheme()
        .clone();
    let positions: Vec<_> = (0..scheme.size())
        .flat_map(|i| [(i, Color::White), (i, Color::Black)])
        .filter_map(|(i, side)| {
            let sq = scheme.decode(i)?;
            entry_position(scheme.slots(), &sq, side)
        })
        .collect();
    let want: Vec<_> = positions.iter().map(|p| tb.probe_dtz(p)).collect();
    assert!(want.iter().all(Result::is_ok));
    let mut truncated = good.clone();
    truncated.truncate(good.len() - 1);
    let mut flipped = good.clone();
    flipped[good.len() * 3 / 4] ^= 0x10;
    let mut header = good.clone();
    header[3] ^= 0x01;
    for (what, bytes) in [
        ("truncated", &truncated),
        ("payload bit", &flipped),
        ("header bit", &header),
        ("a DTM file", &dtm_bytes),
    ] {
        std::fs::write(&path, bytes).expect("write");
        match Table::open_dtz(&path, Some(m)).and_then(|t| t.check_blocks().map(|()| t)) {
            Ok(_) => panic!("{what}: accepted"),
            Err(e) => assert!(
                e.to_string().contains(&path.display().to_string()),
                "{what}: the error names the file: {e}"
            ),
        }
        let tb = Tablebase::open(dir.path()).expect("tables");
        let mut errors = 0;
        for (p, w) in positions.iter().zip(&want) {
            match tb.probe_dtz(p) {
                Ok(d) => assert_eq!(Ok(d), *w, "{what}: a wrong value"),
                Err(e) => {
                    assert!(e.to_string().contains(&path.display().to_string()), "{e}");
                    errors += 1;
                }
            }
        }
        assert!(errors > 0, "{what}: no probe failed");
        if what != "payload bit" {
            assert!(tb.probe_dtz(&pos).is_err(), "{what}: a DTZ50 value");
        }
        assert!(tb.probe(&pos).is_ok(), "{what}: the DTM probe stopped");
    }
    assert_eq!(std::fs::read(&dtm_path).expect("dtm"), dtm_bytes);
}

/// A build solves DTZ50 from what the DTM init recorded (captures and promotions valued there);
/// with the DTM table already present it generates every move itself. Both give the same file,
/// for a material without pawns and for one with pawns on both sides (pushes, promotions and
/// en passant).
#[test]
fn dtz50_from_the_dtm_init_records_equals_dtz50_from_its_own_moves() {
    use retro_tables::format::Metric;
    for name in ["KRvKN", "KPvKP"] {
        let m = common::material(name);
        let dir = tempfile::tempdir().expect("tempdir");
        common::build_into(dir.path(), &[m]);
        let path = dir.path().join(Metric::Dtz.file_name(m));
        let recorded = std::fs::read(&path).expect("dtz written");
        std::fs::remove_file(&path).expect("dtz removed");
        common::build_into(dir.path(), &[m]);
        let own = std::fs::read(&path).expect("dtz written again");
        assert!(recorded.len() > 1000, "{name}: {} bytes", recorded.len());
        assert!(recorded == own, "{name}: the two DTZ50 files differ");
    }
}
