//! `retro serve` end to end: the real binary started on a free port, asked by a real HTTP client
//! (ureq). lichess's documented example answered as lichess answers it; every move of random
//! 3-4-piece positions against the Syzygy tables of tests/data (category and DTZ, with
//! shakmaty-syzygy); bad and hostile requests answered 4xx with a JSON error while the server
//! keeps serving.

mod common;

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    path::Path,
    process::{Child, Command, Stdio},
    time::Duration,
};

use serde_json::Value;
use shakmaty::{
    fen::Fen, Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Piece,
    Position, Role, Setup, Square,
};
use shakmaty_syzygy::{AmbiguousWdl, MaybeRounded, Tablebase as Syzygy};

/// The materials the tests probe (with their sub-tables): lichess's example (KPvKP) and the
/// random positions' materials.
const MATERIALS: [&str; 8] = [
    "KPvKP", "KQvKR", "KRvKB", "KBNvK", "KRPvK", "KQvK", "KRvK", "KPvK",
];

/// A directory with the tables of [`MATERIALS`], built once per run (`RETRO_TEST_TABLES` when
/// set, as for the other tests).
fn tables() -> &'static Path {
    static DIR: std::sync::OnceLock<(Option<tempfile::TempDir>, std::path::PathBuf)> =
        std::sync::OnceLock::new();
    let materials: Vec<retro_tables::Material> =
        MATERIALS.iter().map(|m| common::material(m)).collect();
    common::tables_once(&DIR, &materials)
}

/// A running server, killed when dropped.
struct Server {
    child: Child,
    base: String,
    _config: tempfile::NamedTempFile,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(tables: &Path) -> Server {
    let mut config = tempfile::NamedTempFile::new().expect("config file");
    writeln!(config, "build_missing_tables = false\nlog_level = \"warn\"").expect("write config");
    let mut child = Command::new(env!("CARGO_BIN_EXE_retro"))
        .arg("--config")
        .arg(config.path())
        .args(["serve", "--bind", "127.0.0.1:0", "--tables"])
        .arg(tables)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("retro serve starts");
    let addr = address(&mut BufReader::new(child.stdout.take().expect("stdout")));
    Server {
        child,
        base: format!("http://{addr}"),
        _config: config,
    }
}

/// The address of the server's first line (`retro serve: open http://ADDR/ ...`).
fn address(out: &mut impl BufRead) -> String {
    let mut line = String::new();
    out.read_line(&mut line).expect("first line");
    line.split("http://")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string()
}

/// GET `path` (with its query): the status and the JSON body.
fn get(server: &Server, path: &str) -> (u16, Value) {
    let url = format!("{}{path}", server.base);
    let (status, body) = match ureq::get(&url).timeout(Duration::from_secs(60)).call() {
        Ok(r) => (r.status(), r.into_string().expect("body")),
        Err(ureq::Error::Status(code, r)) => (code, r.into_string().expect("body")),
        Err(e) => panic!("{url}: {e}"),
    };
    let json = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{url}: {e}: {body}"));
    (status, json)
}

fn standard(server: &Server, fen: &str) -> Value {
    let (status, v) = get(server, &format!("/standard?fen={}", fen.replace(' ', "_")));
    assert_eq!(status, 200, "{fen}: {v}");
    v
}

#[test]
fn lichess_documented_example_is_answered_as_lichess_answers_it() {
    let server = start(tables());
    // The example of lila-tablebase's README: its root, its first move, and its mainline.
    let v = standard(&server, "4k3/6KP/8/8/8/8/7p/8 w - - 0 1");
    assert_eq!(v["category"], "win");
    assert_eq!(v["dtz"], 1);
    assert_eq!(v["precise_dtz"], 1);
    assert_eq!(v["dtm"], 17);
    assert_eq!(v["checkmate"], false);
    assert_eq!(v["variant_win"], false);
    let first = &v["moves"][0];
    assert_eq!(first["uci"], "h7h8q");
    assert_eq!(first["san"], "h8=Q+");
    assert_eq!(first["dtz"], -2);
    assert_eq!(first["precise_dtz"], -2);
    assert_eq!(first["dtm"], -16);
    assert_eq!(first["zeroing"], true);
    assert_eq!(first["category"], "loss");

    let (status, m) = get(
        &server,
        "/standard/mainline?fen=4k3/6KP/8/8/8/8/7p/8_w_-_-_0_1",
    );
    assert_eq!(status, 200);
    let documented = [
        ("h7h8q", "h8=Q+", -2),
        ("e8d7", "Kd7", 1),
        ("h8h2", "Qxh2", -14),
        ("d7c6", "Kc6", 13),
        ("h2e5", "Qe5", -12),
        ("c6b6", "Kb6", 11),
        ("g7f6", "Kf6", -10),
        ("b6a6", "Ka6", 9),
        ("e5b2", "Qb2", -8),
        ("a6a5", "Ka5", 7),
        ("f6e5", "Ke5", -6),
        ("a5a4", "Ka4", 5),
        ("e5d4", "Kd4", -4),
        ("a4a5", "Ka5", 3),
        ("d4c5", "Kc5", -2),
        ("a5a4", "Ka4", 1),
        ("b2a2", "Qa2#", -1),
    ];
    let line = m["mainline"].as_array().expect("mainline");
    assert_eq!(line.len(), documented.len(), "{m}");
    for (step, (uci, san, dtz)) in line.iter().zip(documented) {
        assert_eq!(step["uci"], uci);
        assert_eq!(step["san"], san);
        assert_eq!(step["dtz"], dtz);
    }
    assert_eq!(m["winner"], "w");
    assert_eq!(m["dtz"], 1);
}

/// A random legal position of `material` (white's pieces, then black's), with `turn` to move.
fn random_position(rng: &mut fastrand::Rng, white: &[Role], black: &[Role]) -> Option<Chess> {
    let mut board = Board::empty();
    let mut used = Bitboard::EMPTY;
    for (color, roles) in [(Color::White, white), (Color::Black, black)] {
        for &role in roles.iter().chain([Role::King].iter()) {
            let sq = Square::new(rng.u32(0..64));
            let rank = sq.rank() as u32;
            if used.contains(sq) || (role == Role::Pawn && (rank == 0 || rank == 7)) {
                return None;
            }
            used.add(sq);
            board.set_piece_at(sq, Piece { color, role });
        }
    }
    let setup = Setup {
        board,
        turn: if rng.bool() {
            Color::White
        } else {
            Color::Black
        },
        halfmoves: if rng.u32(0..4) == 0 {
            rng.u32(0..100)
        } else {
            0
        },
        fullmoves: std::num::NonZeroU32::MIN,
        ..Setup::empty()
    };
    Chess::from_setup(setup, CastlingMode::Standard).ok()
}

/// lichess's category of a Syzygy DTZ for the position after a move with `halfmoves` on its
/// clock (the clock before the move below 100).
fn syzygy_category(dtz: MaybeRounded<shakmaty_syzygy::Dtz>, halfmoves: u32) -> &'static str {
    let zero = matches!(
        dtz,
        MaybeRounded::Precise(shakmaty_syzygy::Dtz(0))
            | MaybeRounded::Rounded(shakmaty_syzygy::Dtz(0))
    );
    if zero {
        return "draw";
    }
    match AmbiguousWdl::from_dtz_and_halfmoves(dtz, halfmoves) {
        AmbiguousWdl::Win => "win",
        AmbiguousWdl::MaybeWin => "syzygy-win",
        AmbiguousWdl::CursedWin => "cursed-win",
        AmbiguousWdl::Draw => "draw",
        AmbiguousWdl::BlessedLoss => "blessed-loss",
        AmbiguousWdl::MaybeLoss => "syzygy-loss",
        AmbiguousWdl::Loss => "loss",
    }
}

#[test]
fn every_move_of_random_positions_agrees_with_syzygy() {
    let server = start(tables());
    let mut syzygy = Syzygy::<Chess>::new();
    syzygy
        .add_directory(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy"))
        .expect("test Syzygy tables");
    use Role::*;
    let materials: [(&[Role], &[Role]); 8] = [
        (&[Queen], &[]),
        (&[Rook], &[]),
        (&[Pawn], &[]),
        (&[Queen], &[Rook]),
        (&[Rook], &[Bishop]),
        (&[Pawn], &[Pawn]),
        (&[Bishop, Knight], &[]),
        (&[Rook, Pawn], &[]),
    ];
    let mut rng = fastrand::Rng::with_seed(61);
    let (mut positions, mut moves, mut rounded) = (0, 0, 0);
    while positions < 200 {
        let (w, b) = materials[positions % materials.len()];
        let (w, b) = if rng.bool() { (w, b) } else { (b, w) };
        let Some(pos) = random_position(&mut rng, w, b) else {
            continue;
        };
        if pos.is_game_over() {
            continue;
        }
        positions += 1;
        let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
        let v = standard(&server, &fen);
        let listed = v["moves"].as_array().expect("moves");
        assert_eq!(listed.len(), pos.legal_moves().len(), "{fen}");
        for m in listed {
            let uci: shakmaty::uci::UciMove = m["uci"].as_str().expect("uci").parse().expect("uci");
            let mv = uci.to_move(&pos).expect("a legal move");
            let mut after = pos.clone();
            after.play_unchecked(mv);
            moves += 1;
            if after.is_checkmate() {
                assert_eq!(m["checkmate"], true);
                assert_eq!(m["category"], "loss", "{fen} {uci}");
                continue;
            }
            let dtz = syzygy
                .probe_dtz(&after)
                .expect("Syzygy covers the position");
            let expected = syzygy_category(dtz, after.halfmoves());
            let ours = m["dtz"].as_i64().expect("a DTZ") as i32;
            assert_eq!(m["dtz"], m["precise_dtz"], "Retro's DTZ is exact");
            match dtz {
                MaybeRounded::Precise(d) => {
                    assert_eq!(ours, d.0, "{fen} {uci}: DTZ");
                    assert_eq!(m["category"], expected, "{fen} {uci}: category");
                }
                MaybeRounded::Rounded(d) => {
                    // Syzygy stores this DTZ halved: the exact value is d or one further from 0.
                    rounded += 1;
                    assert!(
                        ours == d.0 || ours == d.0 + d.0.signum(),
                        "{fen} {uci}: DTZ {ours}, Syzygy rounded {}",
                        d.0
                    );
                    let c = m["category"].as_str().expect("category");
                    let fits = match expected {
                        "syzygy-win" => c == "win" || c == "cursed-win",
                        "syzygy-loss" => c == "loss" || c == "blessed-loss",
                        e => c == e,
                    };
                    assert!(fits, "{fen} {uci}: {c}, Syzygy {expected}");
                }
            }
        }
    }
    eprintln!("{positions} positions, {moves} moves agree with Syzygy ({rounded} rounded DTZ)");
}

#[test]
fn bad_and_hostile_requests_get_client_errors_and_the_server_goes_on() {
    let server = start(tables());
    let long = format!("/standard?fen={}", "8".repeat(10_000));
    let cases: Vec<(String, u16)> = vec![
        ("/standard?fen=not_a_fen".into(), 400),
        ("/standard".into(), 400),
        ("/standard?fen=8/8/8/8/8/8/8/K7_w_-_-_0_1".into(), 400),
        ("/standard?fen=k6R/8/8/8/8/8/8/K7_w_-_-_0_1".into(), 400),
        (
            "/standard?fen=8/8/8/8/8/8/8/K1k5_w_-_-_0_1&fen=x".into(),
            400,
        ),
        ("/standard?fen=%ff%fe".into(), 400),
        (long, 414),
        (
            "/legal?fen=8/8/8/8/8/8/8/K1k5_w_-_-_0_1&time=-3".into(),
            400,
        ),
        ("/legal?fen=xyz".into(), 400),
        ("/analyse?fen=8/8/8/8/8/8/8/K7_w_-_-_0_1".into(), 400),
        ("/nowhere".into(), 404),
        (
            "/standard/mainline?fen=rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR_w_KQkq_-_0_1"
                .into(),
            404,
        ),
    ];
    for (path, code) in &cases {
        let (status, v) = get(&server, path);
        assert_eq!(status, *code, "{path}: {v}");
        assert!(
            v["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{path}: {v}"
        );
    }
    // Parameters the endpoint does not take are ignored, as lichess ignores them.
    let (status, v) = get(
        &server,
        "/standard?fen=8/8/8/8/8/8/8/K1k5_w_-_-_0_1&dtc=never",
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["category"], "draw");
    // Not GET.
    let url = format!("{}/standard", server.base);
    match ureq::post(&url).call() {
        Err(ureq::Error::Status(405, r)) => {
            let v: Value = serde_json::from_str(&r.into_string().expect("body")).expect("json");
            assert!(v["error"].is_string());
        }
        other => panic!("POST: {other:?}"),
    }
    // Bytes that are not HTTP at all.
    let addr = server.base.trim_start_matches("http://").to_string();
    let mut rng = fastrand::Rng::with_seed(7);
    for _ in 0..20 {
        let mut s = TcpStream::connect(&addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let junk: Vec<u8> = (0..rng.usize(1..2000)).map(|_| rng.u8(..)).collect();
        let _ = s.write_all(&junk);
        let _ = s.write_all(b"\r\n\r\n");
        let mut answer = Vec::new();
        // The server answers and closes, or closes: a read that times out fails here.
        if let Err(e) = s.read_to_end(&mut answer) {
            assert!(
                matches!(e.kind(), std::io::ErrorKind::ConnectionReset),
                "junk left the connection hanging: {e}"
            );
        }
        let text = String::from_utf8_lossy(&answer);
        assert!(
            answer.is_empty() || text.starts_with("HTTP/1.1 4"),
            "junk answered {text:?}"
        );
    }
    // Still serving.
    let v = standard(&server, "8/8/8/4k3/8/8/8/4K2R w - - 0 1");
    assert_eq!(v["category"], "win");
}

#[test]
fn legality_and_analysis_answer_with_proof_games_and_engine_lines() {
    let server = start(tables());
    let (status, v) = get(
        &server,
        "/legal?fen=rnbqkbnr/ppp1pppp/8/3p4/4P3/5N2/PPPP1PPP/RNBQKB1R_b_KQkq_-_1_2&time=10",
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["verdict"], "legal", "{v}");
    let proof = &v["proof"];
    let plies = proof["plies"].as_u64().expect("plies") as usize;
    assert_eq!(proof["uci"].as_array().map(Vec::len), Some(plies));
    assert_eq!(proof["san"].as_array().map(Vec::len), Some(plies));
    assert_eq!(proof["fens"].as_array().map(Vec::len), Some(plies + 1));
    assert_eq!(
        proof["fens"][plies],
        "rnbqkbnr/ppp1pppp/8/3p4/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    );
    // A bishop that cannot have left c1 (b2 and d2 never moved).
    let (status, v) = get(
        &server,
        "/legal?fen=rnbqkbnr/pppppppp/8/8/8/4B3/PPPPPPPP/RN1QKBNR_w_KQkq_-_0_1&time=5",
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["verdict"], "illegal", "{v}");
    assert!(v["proof"].is_null());

    // Mate in one found by the engine.
    let (status, v) = get(
        &server,
        "/analyse?fen=6k1/5ppp/8/8/8/8/8/R5K1_w_-_-_0_1&time=0.5",
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["bestmove"], "a1a8");
    assert_eq!(v["score"]["mate"], 1);
    assert_eq!(v["pv_san"][0], "Ra8#");
}

/// The engine's answer to `position fen FEN` and `go movetime 200` over UCI: its best move, and
/// the depth and line of its last `info` line.
fn engine_answer(tables: &Path, fens: &[String]) -> Vec<(String, u64, Vec<String>)> {
    let mut config = tempfile::NamedTempFile::new().expect("config file");
    writeln!(
        config,
        "build_missing_tables = false\ntable_path = {:?}",
        tables.display().to_string()
    )
    .expect("write config");
    let mut child = Command::new(env!("CARGO_BIN_EXE_retro"))
        .arg("--config")
        .arg(config.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("retro starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut answers = Vec::new();
    for fen in fens {
        // One search at a time: the next go would stop this one.
        writeln!(stdin, "position fen {fen}\ngo movetime 200").expect("write");
        let mut last_info = (0, Vec::new());
        loop {
            let line = lines.next().expect("a line").expect("read");
            let words: Vec<&str> = line.split_whitespace().collect();
            if words.first() == Some(&"info") && words.get(1) == Some(&"depth") {
                let depth = words[2].parse().expect("depth");
                let pv = words
                    .iter()
                    .skip_while(|w| **w != "pv")
                    .skip(1)
                    .map(|w| w.to_string())
                    .collect();
                last_info = (depth, pv);
            } else if words.first() == Some(&"bestmove") {
                answers.push((words[1].to_string(), last_info.0, last_info.1));
                break;
            }
        }
    }
    writeln!(stdin, "quit").expect("write");
    let _ = child.wait();
    answers
}

/// `/analyse` answers a table position as the engine does: the engine's move under the 50-move
/// rule (from the halfmove clock: wins the clock spoils, a win only the rule's DTZ keeps), its
/// whole table line and its depth. Today's main searched instead, choosing by DTM the move that
/// the clock makes a draw.
#[test]
fn analyse_gives_the_engines_own_answer_in_table_positions() {
    let tables = tables();
    let tb = retro_tables::Tablebase::open(tables).expect("tables");
    let mut fens: Vec<String> = [
        "8/8/8/4k3/8/8/8/R3K3 w - - 90 1",
        "8/8/8/4k3/8/8/8/R3K3 w - - 0 1",
        "8/8/8/4k3/8/8/8/R3K3 w - - 70 1",
        "8/8/2k5/8/8/3q4/8/4K2R b - - 30 1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let rule50 = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rule50.fen"),
    )
    .expect("tests/data/rule50.fen");
    fens.extend(
        rule50
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(str::to_string),
    );
    // The positions the tables of this test cover.
    fens.retain(|f| {
        f.parse::<Fen>()
            .ok()
            .and_then(|f| f.into_position::<Chess>(CastlingMode::Standard).ok())
            .is_some_and(|p| tb.probe(&p).is_ok())
    });
    assert!(fens.len() >= 6, "{fens:?}");
    let engine = engine_answer(tables, &fens);
    assert_eq!(engine.len(), fens.len());
    let server = start(tables);
    for (fen, (best, depth, pv)) in fens.iter().zip(&engine) {
        let (status, v) = get(
            &server,
            &format!("/analyse?fen={}&time=0.2", fen.replace(' ', "_")),
        );
        assert_eq!(status, 200, "{fen}: {v}");
        assert_eq!(v["bestmove"], best.as_str(), "{fen}: {v}");
        assert_eq!(v["depth"].as_u64(), Some(*depth), "{fen}: {v}");
        let line: Vec<&str> = v["pv"]
            .as_array()
            .expect("pv")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(line, *pv, "{fen}: {v}");
        assert!(
            pv.len() > 1 || depth <= &1,
            "{fen}: a table line of one move at depth {depth}"
        );
    }
}

/// SIGTERM stops the server within its grace period, with a request under way (a 5 s analysis),
/// and it says so on standard output.
#[cfg(unix)]
#[test]
fn sigterm_stops_the_server_and_says_so() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(["serve", "--bind", "127.0.0.1:0", "--tables"])
        .arg(tables())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("retro serve starts");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let addr = address(&mut out);
    let mut stream = TcpStream::connect(&addr).expect("connect");
    write!(
        stream,
        "GET /analyse?fen=r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R_w_KQkq_-_2_3&time=5 \
         HTTP/1.1\r\nHost: x\r\n\r\n"
    )
    .expect("request");
    std::thread::sleep(Duration::from_millis(300));
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let mut rest = String::new();
    out.read_to_string(&mut rest)
        .expect("the rest of the output");
    let exit = child.wait().expect("exit");
    assert!(exit.success(), "{exit}");
    let lines: Vec<&str> = rest.lines().collect();
    assert_eq!(
        lines,
        [
            "retro serve: SIGTERM: stopping (requests under way get 0.5 s to finish)",
            "retro serve: requests still under way were cut off",
            "retro serve: stopped"
        ]
    );
}
