//! Replays every input of the fuzz corpora (`fuzz/corpus/TARGET/*`: the seeds, and every input
//! a fuzzer found to crash or hang, kept as a regression) through the fuzz targets' bodies,
//! which check what they can of each answer. The fuzzers themselves run from
//! `scripts/fuzz.sh` (docs/testing.md).

#[path = "../fuzz/src/targets.rs"]
#[allow(dead_code)]
mod targets;

use std::path::Path;

fn replay(target: &str) {
    let (_, run) = targets::TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .expect("a target of that name");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .expect("the target's corpus")
        .map(|e| e.expect("a corpus entry").path())
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "no inputs in {}", dir.display());
    for path in inputs {
        let data = std::fs::read(&path).expect("a corpus input");
        eprintln!("{target}: {}", path.display());
        run(&data);
    }
}

#[test]
fn every_target_has_a_corpus() {
    for (name, _) in targets::TARGETS {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fuzz/corpus")
            .join(name);
        assert!(dir.is_dir(), "no corpus for {name}");
    }
}

#[test]
fn table_file_corpus() {
    replay("table_file");
}

#[test]
fn zstd_prefix_corpus() {
    replay("zstd_prefix");
}

#[test]
fn network_corpus() {
    replay("network");
}

#[test]
fn fen_position_corpus() {
    replay("fen_position");
}

#[test]
fn uci_session_corpus() {
    replay("uci_session");
}

#[test]
fn pgn_corpus() {
    replay("pgn");
}

#[test]
fn engine_toml_corpus() {
    replay("engine_toml");
}

#[test]
fn training_data_corpus() {
    replay("training_data");
}

#[test]
fn http_request_corpus() {
    replay("http_request");
}
