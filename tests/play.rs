//! End-to-end tests of `retro play`, `retro random-position` and `retro replay` (the real
//! binary, scripted through standard input), and perfect games played by the library from
//! random positions.

mod common;

use std::{path::Path, process::Output, sync::OnceLock, time::Duration};

use common::{retro, text};
use retro::play::{
    pgn,
    random::random_positions,
    session::{play, Ending, PlayOptions},
};
use retro_tables::{Tablebase, Wdl};
use shakmaty::{fen::Fen, CastlingMode, Chess, Color, Position};

/// KQvK, KRvK, KBNvK and KQvKR with their sub-tables, built once.
fn tables() -> &'static (tempfile::TempDir, Tablebase) {
    static T: OnceLock<(tempfile::TempDir, Tablebase)> = OnceLock::new();
    T.get_or_init(|| common::tablebase_of(&["KQvK", "KRvK", "KBNvK", "KQvKR"]))
}

fn table_dir() -> &'static str {
    tables().0.path().to_str().expect("utf-8 path")
}

/// The one game saved in `dir`.
fn saved_game(dir: &Path) -> (String, pgn::Game) {
    let files: Vec<_> = std::fs::read_dir(dir)
        .expect("games directory")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let t = std::fs::read_to_string(&files[0]).expect("pgn file");
    let games = pgn::read(&t).expect("our own PGN reads back");
    assert_eq!(games.len(), 1);
    (
        files[0].to_str().expect("utf-8").to_string(),
        games[0].clone(),
    )
}

/// Runs `retro play --tables ... --fen FEN --games TMP EXTRA...` with `input`; returns the games
/// directory and the output.
fn play_fen(fen: &str, extra: &[&str], input: &str) -> (tempfile::TempDir, Output) {
    let games = tempfile::tempdir().expect("tempdir");
    let g = games.path().to_str().expect("utf-8");
    let mut args = vec!["play", "--tables", table_dir(), "--fen", fen, "--games", g];
    args.extend_from_slice(extra);
    let out = retro(&args, input);
    (games, out)
}

const KRVK: &str = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1";

#[test]
fn a_scripted_session_with_bad_moves_hint_undo_and_quit() {
    let games = tempfile::tempdir().expect("tempdir");
    let g = games.path().to_str().expect("utf-8");
    let input = "hello\ne2e4\nRb2\nKe3x\nhint\nRa5+\nundo\na1a5\nquit\n";
    let out = retro(
        &["play", "--tables", table_dir(), "--fen", KRVK, "--games", g],
        input,
    );
    let o = text(&out.stdout);
    assert!(out.status.success(), "{o}\n{}", text(&out.stderr));
    for want in [
        "White to move. Table: White mates in 14 (27 plies).",
        "`hello` is not a move",
        "`e2e4`: there is no piece on e2",
        "`Rb2`: a rook cannot go from a1 to b2",
        "`Ke3x` is not a move",
        "Hint: Ra5+ (table: White mates in 14 (27 plies))",
        "Retro plays",
        "Took back 2 moves.",
        "Game over: game abandoned. Result *.",
        "Saved to ",
        // Unicode pieces, the rook's move in brackets.
        "[♖]",
    ] {
        assert!(o.contains(want), "missing `{want}` in:\n{o}");
    }
    // After undo the start position is drawn again: the start verdict appears three times
    // (start, after undo, and in the hint it is the same value).
    assert_eq!(
        o.matches("White to move. Table: White mates in 14 (27 plies).")
            .count(),
        2
    );
    let (_, game) = saved_game(games.path());
    assert_eq!(game.moves.len(), 2, "a1a5 and Retro's answer");
    assert_eq!(game.result, "*");
    assert_eq!(game.tag("Termination"), Some("abandoned"));
    assert_eq!(game.tag("FEN"), Some(KRVK));
    assert_eq!(game.tag("SetUp"), Some("1"));
    assert_eq!(
        game.tag("Black").map(|b| b.starts_with("Retro")),
        Some(true)
    );
    assert_eq!(
        game.comments[0].as_deref(),
        Some("Black is mated in 13 (26 plies)")
    );
    assert!(game.comments[1]
        .as_deref()
        .is_some_and(|c| c.starts_with("White mates in 13 (25 plies); game abandoned")));
}

#[test]
fn retro_moves_first_when_the_human_has_the_other_side() {
    let (games, out) = play_fen(
        KRVK,
        &["--side", "black", "--ascii"],
        "undo\n\nundo\nundo\n",
    );
    let o = text(&out.stdout);
    assert!(out.status.success(), "{o}");
    assert!(o.contains("Retro plays Ra5+"), "{o}");
    assert!(o.contains("Random move: K"), "{o}");
    assert!(o.contains("Took back 2 moves."), "{o}");
    assert!(o.contains("Nothing to undo."), "{o}");
    // The input ends: the game is saved as abandoned.
    assert!(o.contains("Game over: game abandoned."), "{o}");
    assert!(!o.contains('♖'), "--ascii draws letters only");
    let (_, game) = saved_game(games.path());
    assert_eq!(game.moves.len(), 1, "Retro's first move again after undo");
    assert_eq!(
        game.tag("White").map(|w| w.starts_with("Retro")),
        Some(true)
    );
}

#[test]
fn an_auto_game_is_saved_and_replays_without_verdict_changes() {
    let fen = "8/8/8/3k4/8/8/8/4K2Q b - - 0 1";
    let (games, out) = play_fen(fen, &["--auto", "--perfect", "--ascii"], "");
    let o = text(&out.stdout);
    assert!(out.status.success(), "{o}");
    assert!(o.contains("Game over: checkmate. Result 1-0."), "{o}");
    let (file, game) = saved_game(games.path());
    let start: Chess = fen
        .parse::<Fen>()
        .expect("fen")
        .into_position(CastlingMode::Standard)
        .expect("legal");
    let value = tables().1.probe(&start).expect("in the tables");
    assert_eq!(value.wdl(), Wdl::Loss);
    assert_eq!(game.moves.len() as u32, value.plies());
    assert_eq!(game.result, "1-0");
    assert_eq!(game.tag("Termination"), Some("normal"));
    let replay = retro(
        &["replay", "--tables", table_dir(), "--all", "--ascii", &file],
        "",
    );
    let r = text(&replay.stdout);
    assert!(replay.status.success(), "{r}");
    assert!(r.contains("No move changed the table's verdict."), "{r}");
    assert!(r.contains("End of the game: 1-0."), "{r}");
    assert_eq!(r.matches("to move. Table:").count(), game.moves.len() + 1);
}

#[test]
fn replay_steps_and_finds_the_blunder_in_other_tools_files() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pgn");
    let pc = data.join("python-chess.pgn");
    let pc = pc.to_str().expect("utf-8");
    // Stepping: next, next, back, an unknown key, quit.
    let out = retro(
        &[
            "replay",
            "--tables",
            table_dir(),
            "--game",
            "2",
            "--ascii",
            pc,
        ],
        "\n\nb\nx\nq\n",
    );
    let o = text(&out.stdout);
    assert!(out.status.success(), "{o}");
    assert!(
        o.contains("Careless - Lucky, 4 moves, result 1/2-1/2"),
        "{o}"
    );
    assert!(o.contains("Move 1. Ra5+"), "{o}");
    assert!(o.contains("Move 1... Kd4"), "{o}");
    assert!(o.contains("`x`: press Enter"), "{o}");
    assert!(
        !o.contains("Move 2. Rd5+"),
        "stopped before the blunder:\n{o}"
    );
    // The summary is printed however the stepping ends.
    assert!(
        o.contains("2. Rd5+?? White throws away the win: now a draw"),
        "{o}"
    );
    let all = retro(
        &[
            "replay",
            "--tables",
            table_dir(),
            "--game",
            "2",
            "--all",
            pc,
        ],
        "",
    );
    let a = text(&all.stdout);
    assert!(
        a.contains("Move 2. Rd5+?? White throws away the win: now a draw\n"),
        "{a}"
    );
    assert_eq!(
        a.matches("throws away").count(),
        2,
        "inline and in the summary"
    );
    // The game from the standard start: nothing in the tables, nothing reported.
    let first = retro(&["replay", "--tables", table_dir(), "--all", pc], "");
    let f = text(&first.stdout);
    assert!(first.status.success(), "{f}");
    assert!(f.contains("A - B, 9 moves"), "{f}");
    assert!(f.contains("not in the tables"), "{f}");
    assert!(f.contains("{king's pawn}"), "{f}");
    let cc = data.join("cutechess.pgn");
    let cc = cc.to_str().expect("utf-8");
    for (n, moves, result) in [("1", 7, "1-0"), ("2", 4, "0-1")] {
        let out = retro(
            &["replay", "--tables", table_dir(), "--all", "--game", n, cc],
            "",
        );
        let o = text(&out.stdout);
        assert!(out.status.success(), "{o}");
        assert!(
            o.contains(&format!("{moves} moves, result {result}")),
            "{o}"
        );
    }
    let past = retro(&["replay", "--tables", table_dir(), "--game", "3", cc], "");
    assert_eq!(past.status.code(), Some(2));
    assert!(text(&past.stderr).contains("--game 3, but the file holds 2 games"));
}

#[test]
fn a_malformed_pgn_is_refused_with_its_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("bad.pgn");
    std::fs::write(
        &f,
        "[Event \"x\"]\n[Site \"y\"]\n\n1. e4 e5 2. Nf3 Nc6\n3. Bb5 Ke7 4. O-O Nd4 5. Kf8 *\n",
    )
    .expect("write");
    let out = retro(
        &[
            "replay",
            "--tables",
            table_dir(),
            f.to_str().expect("utf-8"),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    let e = text(&out.stderr);
    assert!(e.contains("bad.pgn: line 5: move `Kf8` is illegal"), "{e}");
    let missing = retro(
        &["replay", "--tables", table_dir(), "/nonexistent/x.pgn"],
        "",
    );
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("/nonexistent/x.pgn"));
}

#[test]
fn random_position_prints_legal_unfinished_positions() {
    let out = retro(
        &["random-position", "KBNvK", "--count", "200", "--seed", "9"],
        "",
    );
    assert!(out.status.success());
    let o = text(&out.stdout);
    let fens: Vec<&str> = o.lines().collect();
    assert_eq!(fens.len(), 200);
    let mut sides = [0; 2];
    for f in &fens {
        let p: Chess = f
            .parse::<Fen>()
            .expect("fen")
            .into_position(CastlingMode::Standard)
            .expect("legal");
        assert!(!p.legal_moves().is_empty(), "{f}");
        assert_eq!(p.board().occupied().count(), 4, "{f}");
        sides[usize::from(p.turn() == Color::Black)] += 1;
    }
    assert!(sides[0] > 50 && sides[1] > 50, "{sides:?}");
    let again = retro(
        &["random-position", "KBNvK", "--count", "200", "--seed", "9"],
        "",
    );
    assert_eq!(again.stdout, out.stdout);
    for bad in ["KBNv", "KQQQQQvK", "KPPPPPPPPPvK"] {
        let out = retro(&["random-position", bad], "");
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(text(&out.stderr).starts_with("retro: "), "{bad}");
    }
}

#[test]
fn play_refuses_bad_starts() {
    for (args, what) in [
        (
            vec!["--fen", "8/8/8/8/8/8/8/8 w - - 0 1"],
            "illegal position",
        ),
        (vec!["--material", "KXvK"], "not of the form"),
        (vec!["--random", "--pieces", "5"], "no tables of 5 pieces"),
    ] {
        let mut a = vec!["play", "--tables", table_dir()];
        a.extend(args);
        let out = retro(&a, "");
        assert_eq!(out.status.code(), Some(2), "{a:?}");
        let e = text(&out.stderr);
        assert!(e.contains(what), "{a:?}: {e}");
    }
    // No start given, and --perfect without --auto: clap's usage errors.
    for a in [vec!["play"], vec!["play", "--random", "--perfect"]] {
        let out = retro(&a, "");
        assert_eq!(out.status.code(), Some(2), "{a:?}");
    }
}

#[test]
fn a_random_start_is_played_from_a_present_table() {
    let games = tempfile::tempdir().expect("tempdir");
    let g = games.path().to_str().expect("utf-8");
    for seed in ["1", "2", "3"] {
        let out = retro(
            &[
                "play",
                "--tables",
                table_dir(),
                "--random",
                "--seed",
                seed,
                "--auto",
                "--perfect",
                "--movetime",
                "10",
                "--games",
                g,
            ],
            "",
        );
        let o = text(&out.stdout);
        assert!(out.status.success(), "{o}");
        assert!(o.contains("Game over: "), "{o}");
        assert!(!o.contains("not in the tables"), "{o}");
    }
    assert_eq!(std::fs::read_dir(games.path()).expect("dir").count(), 3);
}

/// With both sides playing table moves, every won game from a random position ends in
/// checkmate after exactly the table's number of plies, and every drawn one without a mate.
#[test]
fn perfect_auto_games_mate_in_exactly_the_table_plies() {
    let tb = &tables().1;
    for (name, seed) in [("KQvK", 1), ("KRvK", 2), ("KBNvK", 3), ("KQvKR", 4)] {
        let material = common::material(name);
        let (mut wins, mut draws) = (0, 0);
        for start in random_positions(material, 100, seed).expect("positions") {
            let value = tb.probe(&start).expect("in the tables");
            let opts = PlayOptions {
                human: start.turn(),
                ascii: true,
                auto: true,
                perfect: true,
                games_dir: None,
                move_time: Duration::from_millis(5),
                seed: 0,
                tags: Vec::new(),
                rule50: true,
                play_on: false,
                eval: retro_engine::eval::Evaluator::default(),
            };
            let mut sink = Vec::new();
            let s = play(tb, start.clone(), &opts, std::io::empty(), &mut sink).expect("plays");
            let fen = Fen::from_position(&start, shakmaty::EnPassantMode::Legal);
            match value.wdl() {
                Wdl::Draw => {
                    draws += 1;
                    assert_ne!(s.ending, Ending::Checkmate, "{fen}");
                }
                _ => {
                    wins += 1;
                    assert_eq!(s.ending, Ending::Checkmate, "{fen}");
                    assert_eq!(s.game.moves.len() as u32, value.plies(), "{fen}");
                }
            }
        }
        println!("{name}: 100 random positions, {wins} decided games mated in exactly the table's plies, {draws} draws");
    }
}

#[test]
fn outside_the_tables_retro_searches() {
    // Seven pieces: no table holds this.
    let fen = "4k3/pp6/8/8/8/8/PP6/4K2R w K - 0 1";
    let (games, out) = play_fen(fen, &["--movetime", "100", "--ascii"], "hint\nO-O\nquit\n");
    let o = text(&out.stdout);
    assert!(out.status.success(), "{o}");
    assert!(o.contains("Table: not in the tables"), "{o}");
    assert!(o.contains("Hint: ") && o.contains("(search, depth "), "{o}");
    assert!(o.contains("Retro plays "), "{o}");
    let (_, game) = saved_game(games.path());
    assert_eq!(game.moves.len(), 2);
    assert_eq!(
        game.comments[0]
            .as_deref()
            .map(|c| c.starts_with("not in the tables")),
        Some(true)
    );
}

#[test]
fn a_game_that_cannot_be_saved_is_printed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let blocker = dir.path().join("not-a-directory");
    std::fs::write(&blocker, "x").expect("write");
    let out = retro(
        &[
            "play",
            "--tables",
            table_dir(),
            "--fen",
            KRVK,
            "--ascii",
            "--games",
            blocker.to_str().expect("utf-8"),
        ],
        "Ra5+\nquit\n",
    );
    let o = text(&out.stdout);
    assert!(out.status.success(), "{o}");
    assert!(o.contains("Could not save the game into"), "{o}");
    let pgn_text = &o[o.find("[Event ").expect("the PGN is printed")..];
    let games = pgn::read(pgn_text).expect("the printed PGN reads back");
    assert_eq!(games[0].moves.len(), 2);
}

/// `syzygy_50_move_rule = false` in engine.toml makes `retro play` play the tables by pure DTM,
/// as `--no-50-move-rule` does: from a position of tests/data/rule50.fen (the fastest mate would
/// cross the rule's 100 plies from the clock at 44), White's first move is then the fastest
/// mate's, which gives the win under the rule away, and the comment says so; by default Retro
/// keeps the win within the rule.
#[test]
fn engine_toml_can_turn_the_50_move_rule_off_for_play() {
    let fen = "8/8/8/8/6k1/1Q6/8/K4r2 w - - 44 1";
    let first = |config: Option<&str>, extra: &[&str]| -> (String, Option<String>) {
        let dir = tempfile::tempdir().expect("tempdir");
        let games = dir.path().join("games");
        let cfg = dir.path().join("engine.toml");
        let mut args: Vec<&str> = Vec::new();
        if let Some(c) = config {
            std::fs::write(&cfg, c).expect("engine.toml");
            args.extend(["--config", cfg.to_str().expect("utf-8")]);
        }
        let g = games.to_str().expect("utf-8");
        args.extend(["play", "--tables", table_dir(), "--fen", fen, "--games", g]);
        args.extend(["--auto", "--perfect"]);
        args.extend_from_slice(extra);
        let out = retro(&args, "");
        assert!(out.status.success(), "{}", text(&out.stderr));
        let (_, game) = saved_game(&games);
        let pos = game.start.clone();
        let san = shakmaty::san::San::from_move(&pos, game.moves[0]).to_string();
        (san, game.comments[0].clone())
    };
    let (rule, rule_comment) = first(None, &[]);
    let (dtm_flag, _) = first(None, &["--no-50-move-rule"]);
    let (dtm_config, dtm_comment) = first(Some("syzygy_50_move_rule = false\n"), &[]);
    assert_eq!(rule, "Kb2", "{rule_comment:?}");
    assert_eq!(dtm_flag, "Ka2");
    assert_eq!(dtm_config, "Ka2");
    let said = |c: &Option<String>| {
        c.as_deref()
            .is_some_and(|c| c.contains("a draw under the 50-move rule"))
    };
    assert!(said(&dtm_comment), "{dtm_comment:?}");
    assert!(!said(&rule_comment), "{rule_comment:?}");
}

/// `--play-on` lets a pure-DTM game run past the 50-move rule to its mate: from a won position
/// two plies from the rule's 100 (a queen against a rook, no capture in two plies),
/// `--no-50-move-rule` alone ends in a draw by the rule, with `--play-on` in checkmate.
#[test]
fn play_on_lets_a_long_mate_end_in_mate() {
    let fen = "8/8/8/8/6k1/1Q6/8/K4r2 w - - 98 1";
    let end = |extra: &[&str]| -> String {
        let dir = tempfile::tempdir().expect("tempdir");
        let games = dir.path().join("games");
        let g = games.to_str().expect("utf-8");
        let mut args = vec!["play", "--tables", table_dir(), "--fen", fen, "--games", g];
        args.extend(["--auto", "--perfect", "--no-50-move-rule"]);
        args.extend_from_slice(extra);
        let out = retro(&args, "");
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
            .lines()
            .rev()
            .find(|l| l.starts_with("Game over"))
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(end(&[]), "Game over: 50-move rule. Result 1/2-1/2.");
    assert_eq!(end(&["--play-on"]), "Game over: checkmate. Result 1-0.");
}
