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

/// The canonical material name of a position.
fn material_name(pos: &Chess) -> String {
    use shakmaty::{Color, Position, Role};
    let side = |c: Color| -> String {
        let mut s = String::from("K");
        for (role, ch) in [
            (Role::Queen, 'Q'),
            (Role::Rook, 'R'),
            (Role::Bishop, 'B'),
            (Role::Knight, 'N'),
            (Role::Pawn, 'P'),
        ] {
            let n = (pos.board().by_color(c) & pos.board().by_role(role)).count();
            s.extend(std::iter::repeat_n(ch, n));
        }
        s
    };
    format!("{}v{}", side(Color::White), side(Color::Black))
        .parse::<retro::tablebase::Material>()
        .map(|m| m.canonical().name())
        .unwrap_or_default()
}

/// Parses a Syzygy sample line `FEN<TAB>wdl<TAB>dtz` (optionally led by `MATERIAL<TAB>`).
fn sample_line(line: &str) -> (Chess, Wdl) {
    let fields: Vec<&str> = line.split('\t').collect();
    let (fen, wdl) = match fields.len() {
        3 => (fields[0], fields[1]),
        4 => (fields[1], fields[2]),
        _ => panic!("bad sample line {line:?}"),
    };
    let pos: Chess = fen
        .parse::<Fen>()
        .expect("fen")
        .into_position(CastlingMode::Standard)
        .expect("legal");
    let wdl = match wdl.parse::<i32>().expect("wdl").signum() {
        1 => Wdl::Win,
        -1 => Wdl::Loss,
        _ => Wdl::Draw,
    };
    (pos, wdl)
}

/// Every 5-piece table present in `RETRO_TABLES` (default: the project's `tables/`) against the
/// Syzygy samples: tests/data/syzygy5 and, when present, the whole shared sample
/// (`RETRO_SYZYGY5`, default `../shared/oracle/syzygy5/oracle5.tsv`). Positions whose table is
/// missing are counted, not failed. `cargo test --release --test five_pieces -- --ignored`.
#[test]
#[ignore = "needs built 5-piece tables"]
fn built_tables_agree_with_syzygy_samples() {
    use std::collections::BTreeMap;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::var_os("RETRO_TABLES")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("tables"));
    let tb = Tablebase::open(&dir).expect("tables");
    let mut files = vec![
        root.join("tests/data/syzygy5/sample.tsv"),
        root.join("tests/data/syzygy5/KQRvKR.tsv"),
    ];
    let full = std::env::var_os("RETRO_SYZYGY5")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/oracle/syzygy5/oracle5.tsv"));
    if full.exists() {
        files.push(full);
    }
    let mut per: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("sample");
        for line in text.lines().filter(|l| !l.is_empty()) {
            let (pos, expected) = sample_line(line);
            let name = material_name(&pos);
            let e = per.entry(name).or_default();
            match tb.probe(&pos) {
                Ok(v) if v.wdl() == expected => e.0 += 1,
                Ok(v) => {
                    e.0 += 1;
                    e.1 += 1;
                    eprintln!("{line}: Retro {}", v.wdl());
                }
                Err(_) => e.2 += 1,
            }
        }
    }
    let (mut compared, mut bad) = (0, 0);
    for (m, (n, b, missing)) in &per {
        eprintln!("{m:<8} compared {n:>6}  mismatches {b}  without a table {missing}");
        compared += n;
        bad += b;
    }
    eprintln!(
        "{compared} positions compared, {bad} mismatches ({} files)",
        files.len()
    );
    assert!(compared > 0, "no 5-piece table in {}", dir.display());
    assert_eq!(bad, 0);
}
