//! A 5-piece table: KQRvKR built with its sub-tables, compared with a Syzygy sample, and
//! played by the engine.

mod common;

use std::io::{BufRead, BufReader, Write};

use retro::tablebase::{Tablebase, Wdl};
use shakmaty::{fen::Fen, CastlingMode, Chess};

#[test]
fn kqrvkr_agrees_with_syzygy_and_the_engine_plays_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    common::build_into(dir.path(), &[common::material("KQRvKR")]);
    let tb = Tablebase::open(dir.path()).expect("tables");
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy5/KQRvKR.tsv"),
    )
    .expect("sample");
    let (mut n, mut bad) = (0, 0);
    for line in text.lines() {
        let mut f = line.split('\t');
        let (Some(fen), Some(wdl)) = (f.next(), f.next()) else {
            panic!("bad sample line {line:?}");
        };
        let wdl: i32 = wdl.parse().expect("wdl");
        let pos: Chess = fen
            .parse::<Fen>()
            .expect("fen")
            .into_position(CastlingMode::Standard)
            .expect("legal");
        let expected = match wdl.signum() {
            1 => Wdl::Win,
            -1 => Wdl::Loss,
            _ => Wdl::Draw,
        };
        let got = tb.probe(&pos).expect("covered").wdl();
        n += 1;
        if got != expected {
            bad += 1;
            eprintln!("{fen}: Syzygy {wdl}, Retro {got}");
        }
    }
    eprintln!("{n} KQRvKR positions compared with Syzygy WDL, {bad} mismatches");
    assert_eq!(n, 5000);
    assert_eq!(bad, 0);

    // The engine reports the table's mate distance for a 5-piece position.
    for fen in [
        "2Q5/r5R1/8/8/1K6/8/8/5k2 b - - 0 1",
        "5R2/8/8/4K3/8/7k/3Q2r1/8 w - - 0 1",
    ] {
        let pos: Chess = fen
            .parse::<Fen>()
            .expect("fen")
            .into_position(CastlingMode::Standard)
            .expect("legal");
        let n = retro::engine::mate_moves(tb.probe(&pos).expect("covered")).expect("decided");
        let cfg = dir.path().join("engine.toml");
        std::fs::write(
            &cfg,
            format!(
                "table_path = {:?}\nbuild_missing_tables = false\n",
                dir.path()
            ),
        )
        .expect("engine.toml");
        let mut child = common::spawn_engine(&cfg);
        let mut stdin = child.stdin.take().expect("stdin");
        writeln!(stdin, "uci\nposition fen {fen}\ngo movetime 200").expect("write");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut score = None;
        for line in stdout.lines() {
            let line = line.expect("line");
            if let Some(rest) = line.split(" score ").nth(1) {
                score = rest.split(" nodes").next().map(str::to_string);
            }
            if line.starts_with("bestmove") {
                break;
            }
        }
        writeln!(stdin, "quit").expect("quit");
        child.wait().expect("exit");
        assert_eq!(score, Some(format!("mate {n}")), "{fen}");
    }
}
