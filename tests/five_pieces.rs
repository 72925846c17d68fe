//! A 5-piece table: KQRvKR built with its sub-tables, compared with a Syzygy sample and with a
//! brute-force mate search, and played by the engine.

mod common;

use std::io::{BufRead, BufReader, Write};

use retro_tables::{Material, Tablebase, Value, Wdl};
use shakmaty::{fen::Fen, CastlingMode, Chess, Position};

#[test]
fn kqrvkr_agrees_with_syzygy_and_brute_force_and_the_engine_plays_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    common::build_into(dir.path(), &[common::material("KQRvKR")]);
    let tb = Tablebase::open(dir.path()).expect("tables");
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy5/KQRvKR.tsv"),
    )
    .expect("sample");
    let (mut n, mut bad) = (0, 0);
    let mut probed = Vec::new();
    for line in text.lines() {
        let (pos, expected) = sample_line(line);
        let v = tb.probe(&pos).expect("covered");
        n += 1;
        if v.wdl() != expected {
            bad += 1;
            eprintln!("{line}: Retro {}", v.wdl());
        }
        probed.push((pos, v));
    }
    eprintln!("{n} KQRvKR positions compared with Syzygy WDL, {bad} mismatches");
    assert_eq!(n, 5000);
    assert_eq!(bad, 0);

    // The DTZ50 table against Syzygy's WDL50 and DTZ.
    let (mut exact, mut rounded) = (0, 0);
    for line in text.lines() {
        let (pos, wdl, dtz) = sample_values(line);
        let got = tb.probe_dtz(&pos).expect("covered");
        match dtz_agrees(got, wdl, dtz) {
            Some(true) => exact += 1,
            Some(false) => rounded += 1,
            None => panic!("{line}: Retro WDL50 {} DTZ {got}", got.wdl50()),
        }
    }
    eprintln!("KQRvKR DTZ50: {exact} equal to Syzygy's, {rounded} one ply off its rounding");
    assert_eq!(exact + rounded, 5000);

    // The search itself, on a known mate in 2 (3 plies) with no mate in 1.
    let mate_in_2 = position("5R2/8/8/4K3/8/7k/3Q2r1/8 w - - 0 1");
    assert!(mates_within(&mate_in_2, 3) && !mates_within(&mate_in_2, 1));

    let (exact, bounded, bad) = short_mates_agree(&probed);
    eprintln!(
        "KQRvKR: {exact} mate distances up to 5 plies found exactly by brute force, \
         {bounded} longer ones confirmed longer than 3 plies, {bad} mismatches"
    );
    assert!(exact >= 100, "only {exact} short mates in the sample");
    assert_eq!(bad, 0);

    // The engine reports the table's mate distance for a 5-piece position.
    for fen in [
        "2Q5/r5R1/8/8/1K6/8/8/5k2 b - - 0 1",
        "5R2/8/8/4K3/8/7k/3Q2r1/8 w - - 0 1",
    ] {
        let pos = position(fen);
        let n = retro_engine::mate_moves(tb.probe(&pos).expect("covered")).expect("decided");
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

/// A legal position from its FEN.
fn position(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .expect("fen")
        .into_position(CastlingMode::Standard)
        .expect("legal")
}

/// Whether the side to move can force checkmate within `plies` (odd), by trying every move.
fn mates_within(pos: &Chess, plies: u32) -> bool {
    pos.legal_moves().iter().any(|m| {
        let mut p = pos.clone();
        p.play_unchecked(*m);
        p.is_checkmate() || (plies >= 3 && mated_within(&p, plies - 1))
    })
}

/// Whether the side to move is checkmated now or, when `plies` (even) allows, whatever it
/// plays, within `plies`.
fn mated_within(pos: &Chess, plies: u32) -> bool {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return pos.is_check();
    }
    plies >= 2
        && moves.iter().all(|m| {
            let mut p = pos.clone();
            p.play_unchecked(*m);
            mates_within(&p, plies - 1)
        })
}

/// Checks the table's mate distances against a brute-force search, independent of the tables
/// (captures are searched on, not looked up). A mate within 5 plies (either side) must be found
/// at exactly that depth and not 2 plies sooner; a longer one must not be found within 3 plies
/// (the search cannot affordably go deeper). Takes positions with their table values; returns
/// (exact, bounded, mismatches).
fn short_mates_agree(probed: &[(Chess, Value)]) -> (u64, u64, u64) {
    let (mut exact, mut bounded, mut bad) = (0, 0, 0);
    for (pos, v) in probed {
        let plies = v.plies();
        let ok = match v.wdl() {
            Wdl::Draw => continue,
            Wdl::Win if plies <= 5 => {
                exact += 1;
                mates_within(pos, plies) && (plies < 3 || !mates_within(pos, plies - 2))
            }
            Wdl::Loss if plies <= 4 => {
                exact += 1;
                mated_within(pos, plies) && (plies < 2 || !mated_within(pos, plies - 2))
            }
            Wdl::Win => {
                bounded += 1;
                !mates_within(pos, 3)
            }
            Wdl::Loss => {
                bounded += 1;
                !mated_within(pos, 2)
            }
        };
        if !ok {
            bad += 1;
            eprintln!(
                "{}: table {} in {plies} plies, brute force disagrees",
                Fen::from_position(pos, shakmaty::EnPassantMode::Legal),
                v.wdl()
            );
        }
    }
    (exact, bounded, bad)
}

/// Parses a Syzygy sample line `FEN<TAB>wdl<TAB>dtz` (optionally led by `MATERIAL<TAB>`): the
/// position, Syzygy's WDL50 (-2 to 2) and its DTZ.
fn sample_values(line: &str) -> (Chess, i32, i32) {
    let fields: Vec<&str> = line.split('\t').collect();
    let (fen, wdl, dtz) = match fields.len() {
        3 => (fields[0], fields[1], fields[2]),
        4 => (fields[1], fields[2], fields[3]),
        _ => panic!("bad sample line {line:?}"),
    };
    let n = |s: &str| s.parse::<i32>().expect("number");
    (position(fen), n(wdl), n(dtz))
}

/// A sample line's position and its result without the 50-move rule.
fn sample_line(line: &str) -> (Chess, Wdl) {
    let (pos, wdl, _) = sample_values(line);
    let wdl = match wdl.signum() {
        1 => Wdl::Win,
        -1 => Wdl::Loss,
        _ => Wdl::Draw,
    };
    (pos, wdl)
}

/// Whether Retro's DTZ50 `got` agrees with Syzygy's `wdl` and `dtz`: `Some(true)` when equal,
/// `Some(false)` when one ply off the way Syzygy's values stored in full moves are (a win of
/// even DTZ one ply short, a loss of odd DTZ one ply nearer zero), `None` otherwise.
fn dtz_agrees(got: retro_tables::Dtz, wdl: i32, dtz: i32) -> Option<bool> {
    if i32::from(got.wdl50().to_i8()) != wdl {
        return None;
    }
    let got = i32::from(got.0);
    if got == dtz {
        Some(true)
    } else if (dtz > 0 && dtz % 2 == 0 && got == dtz + 1)
        || (dtz < 0 && dtz % 2 != 0 && got == dtz - 1)
    {
        Some(false)
    } else {
        None
    }
}

/// The directory of the built tables: `RETRO_TABLES`, or the project's `tables/`.
fn built_tables_dir() -> std::path::PathBuf {
    std::env::var_os("RETRO_TABLES")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tables"))
}

/// Every 5-piece table present in `RETRO_TABLES` (default: the project's `tables/`) against the
/// Syzygy samples: tests/data/syzygy5 and, when present, the whole shared sample
/// (`RETRO_SYZYGY5`, default `../shared/oracle/syzygy5/oracle5.tsv`). Positions whose table is
/// missing are counted, not failed. The mate distances of every compared position are also
/// checked by brute force as in the KQRvKR test. `cargo test --release --test five_pieces --
/// --ignored`.
#[test]
#[ignore = "needs built 5-piece tables"]
fn built_tables_agree_with_syzygy_samples() {
    use std::collections::BTreeMap;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = built_tables_dir();
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
    // DTZ50, where the material's DTZ50 table is there: equal, off by Syzygy's rounding, wrong.
    let mut per_dtz: BTreeMap<String, [u64; 3]> = BTreeMap::new();
    let mut covered: BTreeMap<String, Vec<(Chess, Value)>> = BTreeMap::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("sample");
        for line in text.lines().filter(|l| !l.is_empty()) {
            let (pos, expected) = sample_line(line);
            let name = Material::of_board(pos.board()).canonical().name();
            if let Ok(got) = tb.probe_dtz(&pos) {
                let (_, wdl, dtz) = sample_values(line);
                let d = per_dtz.entry(name.clone()).or_default();
                match dtz_agrees(got, wdl, dtz) {
                    Some(true) => d[0] += 1,
                    Some(false) => d[1] += 1,
                    None => {
                        d[2] += 1;
                        eprintln!("{line}: Retro WDL50 {} DTZ {got}", got.wdl50());
                    }
                }
            }
            let e = per.entry(name.clone()).or_default();
            match tb.probe(&pos) {
                Ok(v) => {
                    e.0 += 1;
                    if v.wdl() != expected {
                        e.1 += 1;
                        eprintln!("{line}: Retro {}", v.wdl());
                    }
                    covered.entry(name).or_default().push((pos, v));
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
    let mut dtz_bad = 0;
    for (m, [eq, off, wrong]) in &per_dtz {
        eprintln!("{m:<8} DTZ50: {eq:>6} equal, {off:>4} off by Syzygy's rounding, {wrong} wrong");
        dtz_bad += wrong;
    }
    assert_eq!(dtz_bad, 0);

    let (mut exact, mut bounded, mut wrong) = (0, 0, 0);
    for (m, probed) in &covered {
        let (e, b, w) = short_mates_agree(probed);
        eprintln!("{m:<8} brute force: {e:>5} exact, {b:>5} longer than 3 plies, {w} mismatches");
        (exact, bounded, wrong) = (exact + e, bounded + b, wrong + w);
    }
    eprintln!(
        "brute force: {exact} mate distances up to 5 plies exact, {bounded} longer ones \
         confirmed longer than 3 plies, {wrong} mismatches"
    );
    assert_eq!(wrong, 0);
}

/// Every 5-piece table present in `RETRO_TABLES` (default: tables/) against a brute-force mate
/// search, along mating lines: from `RETRO_BRUTE_STARTS` (default 40) random positions of each
/// material, the table's best moves are played to the mate, and every position on the way is
/// checked as in [`short_mates_agree`] (exact within 5 plies, else not within 3). The lines end
/// in the table's shortest mates, which random positions alone seldom reach.
/// `cargo test --release --test five_pieces -- --ignored --nocapture`.
#[test]
#[ignore = "needs built 5-piece tables"]
fn built_tables_agree_with_brute_force_along_mating_lines() {
    let dir = built_tables_dir();
    let starts: usize = std::env::var("RETRO_BRUTE_STARTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40);
    let tb = Tablebase::open(&dir).expect("tables");
    let mut rng = fastrand::Rng::with_seed(2026);
    let (mut tables, mut exact, mut bounded, mut wrong) = (0, 0, 0, 0);
    for m in tb.materials().into_iter().filter(|m| m.piece_count() == 5) {
        tables += 1;
        let mut line_positions = Vec::new();
        for _ in 0..starts {
            let mut pos = retro::play::random::random_position(m, &mut rng).expect("position");
            while let Some(v) = tb.probe(&pos).ok().filter(|v| v.wdl() != Wdl::Draw) {
                line_positions.push((pos.clone(), v));
                if pos.is_checkmate() {
                    break;
                }
                let Some((best, _)) = tb.rank_moves(&pos).expect("ranked").into_iter().next()
                else {
                    break;
                };
                pos.play_unchecked(best);
            }
        }
        let (e, b, w) = short_mates_agree(&line_positions);
        eprintln!(
            "{:<8} {e:>5} exact, {b:>5} longer than 3 plies, {w} mismatches",
            m.name()
        );
        (exact, bounded, wrong) = (exact + e, bounded + b, wrong + w);
    }
    eprintln!(
        "{tables} tables: {exact} mate distances up to 5 plies exact, {bounded} longer ones \
         confirmed longer than 3 plies, {wrong} mismatches"
    );
    assert!(tables > 0, "no 5-piece table in {}", dir.display());
    assert_eq!(wrong, 0);
}

/// A double push that gives check where the en passant capture is the only reply: without the
/// capture the position would be checkmate, so its node must still be seeded with the
/// capture's value. Builds before the fix stored a draw here (found by `build-tables --verify`
/// in KQPvKP). Needs KQPvKP in `RETRO_TABLES` (default: tables/).
#[test]
#[ignore = "needs the built KQPvKP table"]
fn a_checking_double_push_answered_only_by_en_passant() {
    let tb = Tablebase::open(&built_tables_dir()).expect("tables");
    let pos = position("8/1p6/8/P7/K1k5/Q7/8/8 b - - 0 1");
    // After 1... b5+ the only legal move is 2. axb6 e.p.
    let push = retro::play::moves::parse_move(&pos, "b5").expect("b5");
    let mut after = pos.clone();
    after.play_unchecked(push);
    assert_eq!(after.legal_moves().len(), 1);
    let v = tb.probe(&after).expect("covered");
    assert_eq!(v.wdl(), Wdl::Win, "{v}");
    let v = tb.probe(&pos).expect("covered");
    assert_eq!((v.wdl(), v.plies()), (Wdl::Loss, 16), "{v}");
}
