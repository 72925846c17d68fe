//! End-to-end tests of the binaries: `build-tables` (build, skip, force, verify, bad input)
//! and `retro probe` (arguments, standard input, every kind of bad line).

mod common;

use std::{path::Path, process::Command};

use common::{build_tables, retro, text};

fn built(dir: &Path) -> String {
    let out = build_tables(&[
        "--out",
        dir.to_str().expect("utf-8"),
        "-q",
        "KQvK",
        "KRvK",
        "KPvK",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn build_skip_force_and_verify() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path().to_str().expect("utf-8");
    let first = built(dir.path());
    // KPvK needs KQvK, KRvK, KBvK and KNvK (promotions): all built, in dependency order.
    let names: Vec<&str> = first
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        &names[..5],
        ["KBvK", "KNvK", "KQvK", "KRvK", "KPvK"],
        "{first}"
    );
    assert!(first.contains("KQvK     positions      46137"), "{first}");
    assert!(first.contains("longest mate  20 plies"), "{first}");
    // KQvK's DTZ50: the longest win needs 19 plies to mate, the longest loss 20.
    assert!(first.contains("DTZ50 longest 19/20 plies"), "{first}");
    let mut files: Vec<String> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let want: Vec<String> = ["KBvK", "KNvK", "KPvK", "KQvK", "KRvK"]
        .iter()
        .flat_map(|m| [format!("{m}.rdtm"), format!("{m}.rdtz")])
        .collect();
    assert_eq!(
        files, want,
        "a DTM and a DTZ50 file each, no temporary files left"
    );

    // A DTZ50 table missing beside its DTM table is built from it alone.
    std::fs::remove_file(dir.path().join("KQvK.rdtz")).expect("remove");
    let dtz_only = built(dir.path());
    assert!(
        dtz_only.contains("KQvK     DTM present  DTZ50 longest 19/20 plies"),
        "{dtz_only}"
    );

    let again = built(dir.path());
    assert_eq!(
        again.matches("present and valid, skipped").count(),
        5,
        "{again}"
    );

    let forced = build_tables(&["--out", d, "-q", "--force", "KQvK"]);
    assert!(forced.status.success());
    assert!(text(&forced.stdout).contains("KQvK     positions"));

    let verify = build_tables(&["--out", d, "-q", "--verify"]);
    let v = text(&verify.stdout);
    assert!(verify.status.success(), "{v}");
    assert!(
        v.contains("KPvK     checked     165676 positions, 0 mismatches"),
        "{v}"
    );
    assert!(v.contains("0 mismatches, 0 tables not checked"), "{v}");

    // The longest mate and DTZ50 win, each with a position the prober gives that value.
    let longest = build_tables(&["--out", d, "--longest", "KQvK", "KPvK"]);
    let l = text(&longest.stdout);
    assert!(longest.status.success(), "{l}");
    for (material, what, want) in [
        ("KQvK", "longest mate: loss in 20 plies: ", "loss\t20"),
        ("KQvK", "longest DTZ50 win: win in 19 plies: ", "win\t19"),
        ("KPvK", "longest mate: loss in 56 plies: ", "loss\t56"),
    ] {
        let table = l.split(material).nth(1).expect("the material's lines");
        let fen = table
            .lines()
            .find_map(|line| line.trim().strip_prefix(what))
            .unwrap_or_else(|| panic!("{material} {what}: {l}"));
        let probe = text(&retro(&["probe", "--tables", d, fen], "").stdout);
        assert!(probe.starts_with(&format!("{fen}\t{want}")), "{probe}");
    }
    let missing = build_tables(&["--out", d, "--longest", "KRRvK"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stdout).contains("KRRvK    not read"));
}

#[test]
fn build_tables_rejects_bad_arguments() {
    for args in [
        &["KXvK"][..],
        &["KQvKQQQQ"],
        &["KQRvKRP"],
        &["--max-pieces", "6"],
        &["--max-pieces", "2"],
        &["--level", "0", "KQvK"],
        &["--block-len", "10", "KQvK"],
        &["--threads", "0", "KQvK"],
        &["--recompress", "--verify"],
        &["--longest", "--verify"],
    ] {
        let out = build_tables(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!text(&out.stderr).is_empty(), "{args:?}: a message");
    }
    let empty = tempfile::tempdir().expect("tempdir");
    let out = build_tables(&["--out", empty.path().to_str().expect("utf-8"), "--verify"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("no tables to verify"));
    let out = build_tables(&[
        "--out",
        empty.path().to_str().expect("utf-8"),
        "--recompress",
    ]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("no tables to recompress"));
}

#[test]
fn probe_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    built(dir.path());
    let d = dir.path().to_str().expect("utf-8");
    let cases = [
        // Mate in one ply: Qb7# (or Qa7#).
        ("k7/7Q/1K6/8/8/8/8/8 w - - 0 1", "win\t1"),
        // Checkmated.
        ("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1", "loss\t0"),
        // Stalemate.
        ("k7/8/1Q6/8/8/8/8/K7 b - - 0 1", "draw\t0"),
        // Colour-swapped material (KvKQ answered from KQvK): black mates in one.
        ("K7/7q/1k6/8/8/8/8/8 b - - 0 1", "win\t1"),
        // White to move with a bare king against king and queen: lost.
        ("K7/8/1k6/8/8/8/8/1q6 w - - 0 1", "loss\t"),
        // Bare kings: a draw without a table.
        ("k7/8/8/8/8/8/8/K7 w - - 0 1", "draw\t0"),
    ];
    let args: Vec<&str> = ["probe", "--tables", d]
        .into_iter()
        .chain(cases.iter().map(|c| c.0))
        .collect();
    let out = retro(&args, "");
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), cases.len(), "{stdout}");
    for ((fen, want), line) in cases.iter().zip(&lines) {
        assert!(
            line.starts_with(&format!("{fen}\t{want}")),
            "{line} / {want}"
        );
    }
}

#[test]
fn probe_reads_stdin_and_goes_on_after_bad_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    built(dir.path());
    let d = dir.path().to_str().expect("utf-8");
    let input = "garbage\n\nk7/7Q/1K6/8/8/8/8/8 w - - 0 1\n\
                 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n\
                 k7/8/8/8/8/8/8/KQR5 w - - 0 1\n\
                 kK6/8/8/8/8/8/8/8 w - - 0 1\n\
                 4k3/8/8/8/8/8/8/R3K3 w Q - 0 1\n\
                 k7/8/1K6/8/8/8/8/7R w - - 0 1\n\
                 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1\n";
    let out = retro(&["probe", "--tables", d], input);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines.len(),
        8,
        "one line per non-empty input line: {stdout}"
    );
    assert!(
        lines[0].starts_with("garbage\terror\tmalformed FEN"),
        "{}",
        lines[0]
    );
    assert!(lines[1].ends_with("\twin\t1"), "{}", lines[1]);
    assert!(lines[2].contains("\terror\t"), "castling: {}", lines[2]);
    assert!(
        lines[3].contains("\terror\tno table for KQRvK"),
        "{}",
        lines[3]
    );
    assert!(
        // The legality analysis's words for it, as the engine and the explorer say it.
        lines[4].ends_with("\terror\tillegal position: the kings are adjacent"),
        "{}",
        lines[4]
    );
    assert!(
        lines[5].contains("\terror\tcastling rights"),
        "{}",
        lines[5]
    );
    assert!(lines[6].ends_with("\twin\t1"), "KRvK, Rh8#: {}", lines[6]);
    assert!(
        lines[7].ends_with("\terror\t32 pieces, tables hold at most 6"),
        "{}",
        lines[7]
    );
}

#[test]
fn probe_without_tables_says_so_per_line() {
    let empty = tempfile::tempdir().expect("tempdir");
    let out = retro(
        &[
            "probe",
            "--tables",
            empty.path().to_str().expect("utf-8"),
            "k7/7Q/1K6/8/8/8/8/8 w - - 0 1",
        ],
        "",
    );
    assert!(out.status.success());
    assert!(text(&out.stdout).contains("\terror\tno table for KQvK"));
}

#[test]
fn probe_takes_the_table_path_from_engine_toml() {
    let dir = tempfile::tempdir().expect("tempdir");
    built(&dir.path().join("t"));
    let cfg = dir.path().join("engine.toml");
    std::fs::write(&cfg, "table_path = \"t\"\nlog_level = \"off\"\n").expect("write");
    let fen = "k7/7Q/1K6/8/8/8/8/8 w - - 0 1";
    let out = retro(
        &["--config", cfg.to_str().expect("utf-8"), "probe", fen],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), format!("{fen}\twin\t1\n"));
}

#[test]
fn a_bad_engine_toml_is_refused_with_its_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg = dir.path().join("engine.toml");
    // `retro probe` with `contents` as its engine.toml: exit status 2 and the error text.
    let refused = |contents: &str| -> String {
        std::fs::write(&cfg, contents).expect("write");
        let out = retro(
            &[
                "--config",
                cfg.to_str().expect("utf-8"),
                "probe",
                "8/8/8/8/8/8/8/K6k w - - 0 1",
            ],
            "",
        );
        assert_eq!(out.status.code(), Some(2), "{contents}");
        text(&out.stderr)
    };
    let err = refused("table_path = \"t\"\nhash = [\n");
    assert!(
        err.contains("engine.toml") && err.contains("line 2"),
        "{err}"
    );
    // toml's message keeps its lines, so that the caret stands under the bad value.
    let err = refused("hash = \"big\"\n");
    let lines: Vec<&str> = err.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.ends_with("hash = \"big\""))
        .unwrap_or_else(|| panic!("{err}"));
    assert_eq!(
        lines.get(at + 1).map(|l| l.find('^')),
        Some(lines[at].find('"')),
        "{err}"
    );
    let err = refused("syzygy_probe_limit = 8\n");
    assert!(
        err.contains("engine.toml: syzygy_probe_limit = 8 is out of range 0..=7"),
        "{err}"
    );
    let missing = retro(&["--config", "/nonexistent/engine.toml", "probe"], "");
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("/nonexistent/engine.toml"));
}

#[test]
fn legal_reads_stdin_in_order_and_goes_on_after_bad_lines() {
    let input = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "8/8/8/8/8/8/8/Kk6 w - - 0 1",
        "not a fen",
        "",
        "4k3/8/8/8/8/8/8/4K2R b K - 0 1",
        "4k3/8/8/8/8/7P/8/4K2R b K - 0 1",
    ]
    .join("\n");
    let out = retro(&["legal", "--max-nodes", "100000"], &input);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<Vec<String>> = text(&out.stdout)
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect();
    let got: Vec<(&str, &str)> = lines
        .iter()
        .map(|f| (f[1].as_str(), f[2].split(':').next().unwrap_or("")))
        .collect();
    assert_eq!(
        got,
        vec![
            ("legal", "the starting position"),
            ("illegal", "the kings are adjacent"),
            ("error", "malformed FEN"),
            ("illegal", "no possible last move"),
            ("legal", "proof game"),
        ],
        "{lines:?}"
    );
    // The proof game printed replays from the start to the position.
    let goal = ::retro_legality::RawPosition::from_fen(&lines[4][0]).expect("FEN");
    let moves: Vec<&str> = lines[4][3].split(' ').collect();
    assert_eq!(
        lines[4][2],
        format!("proof game: {} plies", moves.len()),
        "{lines:?}"
    );
    assert_eq!(::retro_legality::replay::check_uci(&goal, &moves), Ok(()));
    assert_eq!(lines[2][0], "not a fen");
    // Negative, not finite, or beyond any clock: a clear error (exit 2), never a panic.
    for (command, time) in [
        ("legal", "-1"),
        ("legal", "1e20"),
        ("legal", "nan"),
        ("legal", "inf"),
        ("proofgame", "1e300"),
        ("count-legal", "-inf"),
    ] {
        let arg = format!("--time={time}");
        let fen = "k7/8/8/8/8/8/8/K7 w - - 0 1";
        let args = if command == "count-legal" {
            vec![command, arg.as_str(), "no-such-file.tsv"]
        } else {
            vec![command, arg.as_str(), fen]
        };
        let bad = retro(&args, "");
        let err = text(&bad.stderr);
        assert_eq!(bad.status.code(), Some(2), "{command} {arg}: {err}");
        assert!(err.contains("--time"), "{command} {arg}: {err}");
        assert!(!err.contains("panicked"), "{command} {arg}: {err}");
    }
}

#[test]
fn revmoves_lists_last_moves_with_undo_information() {
    let out = retro(&["revmoves", "4k3/8/1P6/8/8/8/8/4K3 b - - 0 1"], "");
    assert!(out.status.success());
    let t = text(&out.stdout);
    assert!(
        t.lines().any(|l| l.starts_with(
            "a5b6 en-passant capture: P castling: - ep: b6\t4k3/8/8/Pp6/8/8/8/4K3 w - b6 0 1"
        )),
        "{t}"
    );
    assert!(
        t.lines()
            .any(|l| l.starts_with("c5b6 capture: Q castling: - ep: -")),
        "{t}"
    );
    let none = retro(&["revmoves", "4k3/8/8/8/8/8/8/4K2R b K - 0 1"], "");
    assert_eq!(text(&none.stdout).trim(), "no possible last move");
    let bad = retro(&["revmoves", "4k3/8/8"], "");
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("malformed FEN"));
}

#[test]
fn proofkernel_prints_the_kernel_and_the_extended_one() {
    // The black a pawn took the light bishop on the b file below the white pawn on b3: on b2,
    // a dark square. A kernel exists, an extended one does not; `legal` says so.
    let fen = "rnbqkbnr/1ppppppp/8/8/8/1P2P3/PpPP1PPP/RNBQK1NR w KQkq - 0 1";
    let out = retro(&["proofkernel", fen], "");
    assert!(out.status.success());
    let t = text(&out.stdout);
    assert_eq!(
        t.lines().collect::<Vec<_>>(),
        [
            "proof kernel: bPa1xLBb0",
            "no extended proof kernel: no kernel fits the ranks of the pawns"
        ],
        "{t}"
    );
    let legal = retro(&["legal", fen], "");
    assert_eq!(
        text(&legal.stdout).trim(),
        format!("{fen}\tillegal\tno extended proof kernel")
    );
    // From the start, the start itself needs no capture.
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let out = retro(&["proofkernel", start], "");
    assert_eq!(
        text(&out.stdout).lines().collect::<Vec<_>>(),
        [
            "proof kernel: (no captures needed)",
            "extended proof kernel: (no captures needed)"
        ]
    );
}

#[test]
fn proofgame_prints_a_replayed_game_and_refuses_bad_input() {
    let fen = "r1bqkbnr/pppppppp/2n5/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1";
    let out = retro(&["proofgame", "--max-nodes", "50000", fen], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let f: Vec<&str> = stdout.trim().split('\t').collect();
    assert_eq!(&f[..3], &[fen, "legal", "proof game: 2 plies"], "{stdout}");
    let goal = ::retro_legality::RawPosition::from_fen(fen).expect("FEN");
    let moves: Vec<&str> = f[3].split(' ').collect();
    assert_eq!(::retro_legality::replay::check_uci(&goal, &moves), Ok(()));
    // Standard error is a pipe here: no progress line (it is for a terminal).
    assert!(
        !text(&out.stderr).contains("proof game search"),
        "{}",
        text(&out.stderr)
    );

    let bad = retro(&["proofgame", "not a fen"], "");
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("malformed FEN"),
        "{}",
        text(&bad.stderr)
    );
    let illegal = retro(&["proofgame", "8/8/8/8/8/8/8/Kk6 w - - 0 1"], "");
    assert!(illegal.status.success());
    assert_eq!(
        text(&illegal.stdout).trim(),
        "8/8/8/8/8/8/8/Kk6 w - - 0 1\tillegal\tthe kings are adjacent"
    );
}

#[test]
fn legal_writes_its_proof_games_as_pgn() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pgn = dir.path().join("proofs.pgn");
    let fens = [
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 1",
        "8/8/8/8/8/8/8/Kk6 w - - 0 1",
        "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 1",
    ];
    let mut args = vec!["legal", "--pgn", pgn.to_str().expect("utf-8")];
    args.extend(fens);
    let out = retro(&args, "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let text_pgn = std::fs::read_to_string(&pgn).expect("PGN written");
    let games = ::retro::play::pgn::read(&text_pgn).expect("valid PGN");
    assert_eq!(games.len(), 2, "{text_pgn}");
    for (game, fen) in games.iter().zip([fens[0], fens[2]]) {
        assert_eq!(game.tag("Goal"), Some(fen));
        let goal = ::retro_legality::RawPosition::from_fen(fen).expect("FEN");
        assert_eq!(
            ::retro_legality::replay::check(&goal, &game.moves),
            Ok(()),
            "{text_pgn}"
        );
    }
    let unwritable = retro(&["legal", "--pgn", "/nonexistent/dir/x.pgn", fens[1]], "");
    assert_eq!(unwritable.status.code(), Some(2));
    assert!(text(&unwritable.stderr).contains("/nonexistent/dir/x.pgn"));
}

#[test]
fn count_legal_estimates_from_the_verdicts_of_legal() {
    // 36 illegal and 3 legal rows of the labelled sample and a position two plies from the
    // start, as `fen` and `mult` columns.
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/legality/cpr1k.tsv"
    ))
    .expect("sample");
    let labelled: Vec<(String, String, u64)> = src
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                f[0].to_string(),
                f[1].to_string(),
                f[3].parse().expect("mult"),
            )
        })
        .collect();
    let pick = |label: &str, n: usize| {
        labelled
            .iter()
            .filter(|r| r.1 == label)
            .take(n)
            .map(|r| (r.0.clone(), r.2))
            .collect::<Vec<_>>()
    };
    let mut rows = pick("illegal", 36);
    rows.extend(pick("legal", 3));
    rows.push((
        "r1bqkbnr/pppppppp/2n5/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1".to_string(),
        2,
    ));
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("sample.tsv");
    let mut file = String::from("fen\tmult\n");
    for (fen, mult) in &rows {
        file.push_str(&format!("{fen}\t{mult}\n"));
    }
    std::fs::write(&path, file).expect("write sample");
    let verdicts_path = dir.path().join("verdicts.tsv");
    let out = retro(
        &[
            "count-legal",
            "--max-nodes",
            "20000",
            "--verdicts",
            verdicts_path.to_str().expect("utf-8"),
            path.to_str().expect("utf-8"),
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    // The same positions through `retro legal` with the same budget give the same verdicts.
    let input: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    let legal = retro(&["legal", "--max-nodes", "20000"], &input.join("\n"));
    let verdicts: Vec<String> = text(&legal.stdout)
        .lines()
        .map(|l| l.split('\t').nth(1).unwrap_or("").to_string())
        .collect();
    let count = |s: &str| verdicts.iter().filter(|v| *v == s).count();
    let expected = format!(
        "positions: 40 (legal {}, illegal {}, unknown {})",
        count("legal"),
        count("illegal"),
        count("unknown")
    );
    assert!(
        report.starts_with(&expected),
        "{report}\nexpected {expected}"
    );
    assert!(count("legal") >= 1, "{verdicts:?}");
    let sum = rows
        .iter()
        .zip(&verdicts)
        .filter(|(_, v)| *v == "legal")
        .fold(0.0, |s, (r, _)| s + 1.0 / r.1 as f64);
    let estimate = sum / 40.0 * 8.726713169886222e45;
    assert!(
        report.contains(&format!("legal chess positions: {estimate:.3e}")),
        "{report}\nexpected {estimate:.3e}"
    );
    assert!(report.lines().any(|l| l.starts_with("time: ")), "{report}");
    // The verdicts file: a line per row, by index, with its multiplicity, time and the
    // verdict `retro legal` gave.
    let written = std::fs::read_to_string(&verdicts_path).expect("verdicts file");
    let mut by_index: Vec<(usize, u64, String, String)> = written
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert!(f[2].parse::<f64>().is_ok(), "{l}");
            (
                f[0].parse().expect("index"),
                f[1].parse().expect("mult"),
                f[3].to_string(),
                f[4].to_string(),
            )
        })
        .collect();
    by_index.sort_by_key(|r| r.0);
    assert_eq!(by_index.len(), rows.len(), "{written}");
    for (i, ((index, mult, fen, verdict), (row, v))) in
        by_index.iter().zip(rows.iter().zip(&verdicts)).enumerate()
    {
        assert_eq!((*index, *mult, fen, verdict), (i + 1, row.1, &row.0, v));
    }
    let unwritable = retro(
        &[
            "count-legal",
            "--verdicts",
            "/nonexistent/dir/v.tsv",
            path.to_str().expect("utf-8"),
        ],
        "",
    );
    assert_eq!(unwritable.status.code(), Some(2));
    assert!(text(&unwritable.stderr).contains("/nonexistent/dir/v.tsv"));

    std::fs::write(&path, "fen\tmult\nx\tmany\n").expect("write sample");
    let bad = retro(&["count-legal", path.to_str().expect("utf-8")], "");
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("line 2"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn count_legal_goes_on_from_the_verdicts_of_an_earlier_run() {
    let e4e5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    let d4d5 = "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2";
    // The side not to move (black) is in check.
    let illegal = "rnbqkbnr/ppppp1pp/8/5p1Q/4P3/8/PPPP1PPP/RNB1KBNR w KQkq - 0 3";
    let nf3 = "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1";
    let dir = tempfile::tempdir().expect("tempdir");
    let sample = dir.path().join("sample.tsv");
    std::fs::write(
        &sample,
        format!("fen\tmult\n{e4e5}\t1\n{d4d5}\t1\n{illegal}\t2\n{nf3}\t1\n"),
    )
    .expect("write sample");
    // Row 1: a proof game that replays, kept. Row 2: one that does not (it is e4e5's),
    // analysed again. Row 3: an illegal verdict, kept with its reason. Row 4: unknown before,
    // analysed again.
    let known = dir.path().join("known.tsv");
    std::fs::write(
        &known,
        format!(
            "1\t1\t9.50\t{e4e5}\tlegal\tproof game: 2 plies\te2e4 e7e5\n\
             2\t1\t9.50\t{d4d5}\tlegal\tproof game: 2 plies\te2e4 e7e5\n\
             3\t2\t9.50\t{illegal}\tillegal\tthe reason of the earlier run\n\
             4\t1\t9.50\t{nf3}\tunknown\tthe earlier run ran out of time\n"
        ),
    )
    .expect("write known");
    let verdicts = dir.path().join("verdicts.tsv");
    let arg = |p: &std::path::Path| p.to_str().expect("utf-8").to_string();
    let out = retro(
        &[
            "count-legal",
            "--known",
            &arg(&known),
            "--verdicts",
            &arg(&verdicts),
            &arg(&sample),
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(
        report.starts_with("positions: 4 (legal 3, illegal 1, unknown 0)"),
        "{report}"
    );
    let written = std::fs::read_to_string(&verdicts).expect("verdicts file");
    let line = |i: usize| {
        written
            .lines()
            .find(|l| l.starts_with(&format!("{i}\t")))
            .unwrap_or_else(|| panic!("no line {i}: {written}"))
            .to_string()
    };
    // Kept as written before, seconds and all.
    assert_eq!(
        line(1),
        format!("1\t1\t9.50\t{e4e5}\tlegal\tproof game: 2 plies\te2e4 e7e5")
    );
    assert_eq!(
        line(3),
        format!("3\t2\t9.50\t{illegal}\tillegal\tthe reason of the earlier run")
    );
    // Analysed again: a game of its own that replays.
    for (i, fen) in [(2, d4d5), (4, nf3)] {
        let l = line(i);
        let f: Vec<&str> = l.split('\t').collect();
        assert_eq!((f[3], f[4]), (fen, "legal"), "{l}");
        let moves: Vec<&str> = f[6].split(' ').collect();
        let goal = retro_legality::RawPosition::from_fen(fen).expect("FEN");
        assert_eq!(
            retro_legality::replay::check_uci(&goal, &moves),
            Ok(()),
            "{l}"
        );
    }
    assert!(
        text(&out.stderr).contains("does not replay"),
        "{}",
        text(&out.stderr)
    );

    // A malformed earlier verdicts file: an error naming its line.
    std::fs::write(
        &known,
        format!("1\t1\t9.50\t{e4e5}\tlegal\tproof game: 2 plies\te2e4\nx\n"),
    )
    .expect("write known");
    let bad = retro(&["count-legal", "--known", &arg(&known), &arg(&sample)], "");
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains(&format!("{}:2:", arg(&known))),
        "{}",
        text(&bad.stderr)
    );
}

/// `build-tables --list 4 | head -1`: the reader goes away, and the listing ends quietly
/// (today's main panicked on the broken pipe, exit 101). The pipe is closed before the first
/// line, so that every write meets it closed.
#[test]
fn a_listing_into_a_closed_pipe_ends_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_build-tables"))
        .args(["--list", "4"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("build-tables runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("exit");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        !text(&out.stderr).contains("panicked"),
        "{}",
        text(&out.stderr)
    );
}

/// OpenBench's conventions: `retro bench` ends with `N nodes M nps` (the same N on every run),
/// and command lines given as arguments run as UCI commands, so that `retro "genfens N seed S
/// book None" quit` prints N openings as `info string genfens FEN`, the same for the same seed.
#[test]
fn openbench_reads_bench_and_genfens() {
    let mut counts = Vec::new();
    for _ in 0..2 {
        let out = retro(&["bench", "--depth", "6"], "");
        assert!(out.status.success(), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        let last = stdout.lines().last().expect("a last line");
        let words: Vec<&str> = last.split(' ').collect();
        assert!(
            matches!(words.as_slice(), [n, "nodes", m, "nps"]
                if n.parse::<u64>().is_ok() && m.parse::<u64>().is_ok()),
            "{last}"
        );
        counts.push(words[0].to_string());
    }
    assert_eq!(counts[0], counts[1]);
    let data = tempfile::tempdir().expect("tempdir");
    let genfens = |seed: u32| {
        let out = Command::new(env!("CARGO_BIN_EXE_retro"))
            .arg(format!("genfens 4 seed {seed} book None "))
            .arg("quit")
            .env("XDG_DATA_HOME", data.path())
            .current_dir(data.path())
            .output()
            .expect("retro runs");
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
            .lines()
            .filter_map(|l| l.strip_prefix("info string genfens "))
            .map(str::to_string)
            .collect::<Vec<String>>()
    };
    let fens = genfens(9);
    assert_eq!(fens.len(), 4, "{fens:?}");
    for fen in &fens {
        retro_engine::fen::parse_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    }
    assert_eq!(fens, genfens(9));
    assert_ne!(fens, genfens(10));
    // Nothing was built in the data folder by a one-shot run.
    assert!(!data.path().join("retro").exists());
}
