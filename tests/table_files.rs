//! Table files are untrusted input: truncated, bit-flipped, wrong-version and random files are
//! refused with an error naming the file, and never panic or read out of bounds.

mod common;

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use retro::{
    build::{build, BuildOptions},
    cli::parse_fen,
    tablebase::{
        format::{file_name, Table, TableError, HEADER_LEN},
        ProbeError, Tablebase,
    },
};

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
        Err(ProbeError::BadTable(msg)) => assert!(msg.contains("KQvK.rdtm"), "{msg}"),
        other => panic!("corrupted table used: {other:?}"),
    }
    // build-tables does not skip it: the file is rebuilt and valid again.
    let opts = BuildOptions {
        out: dir.path().to_path_buf(),
        force: false,
        progress: false,
    };
    let done = build(&[common::material("KQvK")], &opts, |_| {}).expect("rebuild");
    assert!(done
        .iter()
        .any(|s| s.material.name() == "KQvK" && !s.skipped));
    assert!(Table::open(&path, None).is_ok());
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
