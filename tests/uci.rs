//! End-to-end tests of the UCI engine: the real `retro` binary spoken to through pipes.

mod common;

use std::{
    io::{BufRead, BufReader, Write},
    path::Path,
    process::{Child, ChildStdin},
    sync::mpsc::{self, Receiver, RecvTimeoutError},
    time::{Duration, Instant},
};

use retro_engine::mate_moves;
use shakmaty::{fen::Fen, uci::UciMove, CastlingMode, Chess, Position};

/// How long any single answer may take before the test calls the engine hung.
const HANG: Duration = Duration::from_secs(120);

struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    seen: Vec<String>,
    _dir: tempfile::TempDir,
}

impl Engine {
    /// Starts `retro` with an engine.toml of `toml` lines (tables off and no background build
    /// unless given).
    fn start(toml: &str) -> Engine {
        let mut text = toml.to_string();
        if !text.contains("table_path") {
            text.push_str("\ntable_path = \"\"\n");
        }
        Engine::start_with(&text, &[])
    }

    /// Starts `retro` with an engine.toml of `toml` lines as given (no background build unless
    /// given) and these environment variables.
    fn start_with(toml: &str, env: &[(&str, Option<&Path>)]) -> Engine {
        let dir = tempfile::tempdir().expect("tempdir");
        let cfg = dir.path().join("engine.toml");
        let mut text = toml.to_string();
        if !text.contains("build_missing_tables") {
            text.push_str("\nbuild_missing_tables = false\n");
        }
        std::fs::write(&cfg, text).expect("write engine.toml");
        let mut child = common::spawn_engine_with(&cfg, env);
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines: rx,
            seen: Vec::new(),
            _dir: dir,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("write to retro");
        self.stdin.flush().expect("flush");
    }

    /// Reads lines until one satisfies `pred`; returns the lines read, the match last.
    fn until(&mut self, what: &str, pred: impl Fn(&str) -> bool) -> Vec<String> {
        self.until_within(what, HANG, pred)
    }

    /// As `until`, waiting up to `wait` (for a long job, such as building tables).
    fn until_within(
        &mut self,
        what: &str,
        wait: Duration,
        pred: impl Fn(&str) -> bool,
    ) -> Vec<String> {
        let deadline = Instant::now() + wait;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    self.seen.push(l.clone());
                    let done = pred(&l);
                    got.push(l);
                    if done {
                        return got;
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("no {what} from retro; got {got:?}"),
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("retro closed its output waiting for {what}; got {got:?}")
                }
            }
        }
    }

    /// Nothing arrives for `d`.
    fn silent_for(&mut self, d: Duration) -> Option<String> {
        self.lines.recv_timeout(d).ok()
    }

    fn handshake(&mut self) -> Vec<String> {
        self.send("uci");
        let lines = self.until("uciok", |l| l == "uciok");
        self.send("isready");
        self.until("readyok", |l| l == "readyok");
        lines
    }

    /// `go ...` and the bestmove line, with the lines before it.
    fn go(&mut self, args: &str) -> (String, Vec<String>) {
        self.send(&format!("go {args}"));
        let mut lines = self.until("bestmove", |l| l.starts_with("bestmove"));
        let best = lines.pop().expect("bestmove line");
        (best, lines)
    }

    /// The FEN `d` shows.
    fn fen(&mut self) -> String {
        self.send("d");
        let lines = self.until("FEN", |l| l.starts_with("FEN: "));
        lines
            .last()
            .and_then(|l| l.strip_prefix("FEN: "))
            .expect("FEN line")
            .to_string()
    }

    fn quit(mut self) {
        self.send("quit");
        let start = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                assert!(status.success(), "retro exited with {status}");
                return;
            }
            assert!(start.elapsed() < HANG, "retro did not quit");
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

fn position(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .expect("fen")
        .into_position(CastlingMode::Standard)
        .expect("legal")
}

/// The move of a `bestmove` line, checked to be legal in `pos`.
fn best_move(pos: &Chess, line: &str) -> shakmaty::Move {
    let mut words = line.split_whitespace();
    assert_eq!(words.next(), Some("bestmove"), "{line}");
    let text = words.next().expect("a move");
    let m = UciMove::from_ascii(text.as_bytes())
        .unwrap_or_else(|e| panic!("{line}: {e}"))
        .to_move(pos)
        .unwrap_or_else(|e| panic!("{line} is illegal: {e}"));
    if let Some(w) = words.next() {
        assert_eq!(w, "ponder", "{line}");
        let mut after = pos.clone();
        after.play_unchecked(m);
        let p = words.next().expect("ponder move");
        UciMove::from_ascii(p.as_bytes())
            .expect("ponder move")
            .to_move(&after)
            .unwrap_or_else(|e| panic!("{line}: ponder move illegal: {e}"));
    }
    m
}

/// The score of the last `info ... score` line.
fn last_score(lines: &[String]) -> String {
    let l = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info") && l.contains(" score "))
        .unwrap_or_else(|| panic!("no score in {lines:?}"));
    let mut w = l.split_whitespace().skip_while(|w| *w != "score").skip(1);
    format!("{} {}", w.next().unwrap_or(""), w.next().unwrap_or(""))
}

#[test]
fn handshake_names_the_engine_and_its_options() {
    let mut e = Engine::start("");
    let lines = e.handshake();
    // Notices of the start (the tables found) may come first; then the answer to uci.
    let id = lines
        .iter()
        .position(|l| !l.starts_with("info string"))
        .expect("an answer");
    assert!(lines[id].starts_with("id name Retro "), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("id author ")));
    for opt in [
        "option name Hash type spin",
        "option name Threads type spin",
        "option name Move Overhead type spin",
        "option name TablePath type string",
        "option name Show DTM type button",
        "option name Show Legality type button",
    ] {
        assert!(
            lines.iter().any(|l| l.starts_with(opt)),
            "{opt} in {lines:?}"
        );
    }
    e.quit();
}

#[test]
fn position_with_moves_and_fixed_depth() {
    let mut e = Engine::start("hash = 8");
    e.handshake();
    e.send("position startpos moves e2e4 e7e5 g1f3 b8c6");
    let expected = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    assert_eq!(e.fen(), expected);
    let (best, lines) = e.go("depth 6");
    best_move(&position(expected), &best);
    let depths: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    assert!(
        depths.iter().any(|l| l.starts_with("info depth 6 ")),
        "{lines:?}"
    );
    for l in &depths {
        for key in [
            "seldepth", "score", "nodes", "nps", "hashfull", "tbhits", "time", "pv",
        ] {
            assert!(l.split_whitespace().any(|w| w == key), "{key} in {l}");
        }
    }
    e.quit();
}

#[test]
fn movetime_nodes_and_clock_limits_end_the_search() {
    let mut e = Engine::start("");
    e.handshake();
    e.send("position startpos");
    for args in [
        "movetime 200",
        "nodes 5000",
        "wtime 500 btime 500 winc 10 binc 10",
        "wtime 30 btime 30",
        "wtime 1000 btime 1000 movestogo 1",
    ] {
        let (best, _) = e.go(args);
        best_move(&Chess::default(), &best);
    }
    // A mate search stops at the mate.
    e.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    let (best, lines) = e.go("mate 1");
    assert!(best.starts_with("bestmove a1a8"), "{best}");
    assert_eq!(last_score(&lines), "mate 1");
    e.quit();
}

#[test]
fn infinite_search_answers_isready_and_stops_on_stop() {
    let mut e = Engine::start("");
    e.handshake();
    e.send("position startpos moves d2d4");
    e.send("go infinite");
    assert!(
        e.silent_for(Duration::from_millis(300))
            .is_none_or(|l| l.starts_with("info")),
        "an infinite search must not end by itself"
    );
    e.send("isready");
    let lines = e.until("readyok", |l| l == "readyok");
    assert!(
        lines.iter().all(|l| !l.starts_with("bestmove")),
        "{lines:?}"
    );
    let sent = Instant::now();
    e.send("stop");
    let lines = e.until("bestmove", |l| l.starts_with("bestmove"));
    eprintln!("bestmove {} ms after stop", sent.elapsed().as_millis());
    let pos = position("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1");
    best_move(&pos, lines.last().expect("bestmove"));
    e.quit();
}

#[test]
fn ponder_waits_for_ponderhit() {
    let mut e = Engine::start("");
    e.handshake();
    e.send("setoption name Ponder value true");
    e.send("position startpos moves e2e4 e7e5");
    e.send("go ponder wtime 2000 btime 2000");
    std::thread::sleep(Duration::from_millis(400));
    e.send("isready");
    let lines = e.until("readyok", |l| l == "readyok");
    assert!(
        lines.iter().all(|l| !l.starts_with("bestmove")),
        "{lines:?}"
    );
    e.send("ponderhit");
    let lines = e.until("bestmove", |l| l.starts_with("bestmove"));
    let pos = position("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    best_move(&pos, lines.last().expect("bestmove"));
    e.quit();
}

#[test]
fn quit_ends_a_running_search() {
    let mut e = Engine::start("");
    e.handshake();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    e.quit();
}

/// The table's mate distance of a FEN in moves (`None` for a draw), from the library.
fn table_mate(dir: &Path, fen: &str) -> Option<i32> {
    let tb = retro_tables::Tablebase::open(dir).expect("tables");
    mate_moves(tb.probe(&position(fen)).expect("covered"))
}

#[test]
fn table_positions_are_played_from_the_tables_with_mate_scores() {
    let tables = tempfile::tempdir().expect("tempdir");
    common::build_into(
        tables.path(),
        &["KRvK", "KQvK", "KQvKR"].map(common::material),
    );
    let mut e = Engine::start(&format!("table_path = {:?}", tables.path()));
    e.handshake();
    for fen in [
        "8/8/8/4k3/8/8/8/R3K3 w - - 0 1",
        "8/8/8/4k3/8/8/8/R3K3 b - - 0 1",
        "8/8/3k4/8/8/2r5/8/1Q2K3 w - - 0 1",
        "8/8/3k4/8/8/2r5/8/1Q2K3 b - - 0 1",
        "k7/8/2K5/8/8/8/8/1Q6 w - - 0 1",
    ] {
        let n = table_mate(tables.path(), fen);
        e.send(&format!("position fen {fen}"));
        let (best, lines) = e.go("movetime 100");
        let pos = position(fen);
        let m = best_move(&pos, &best);
        if let Some(n) = n {
            assert_eq!(last_score(&lines), format!("mate {n}"), "{fen}: {lines:?}");
        } else {
            assert_eq!(last_score(&lines), "cp 0", "{fen}: {lines:?}");
        }
        // The move keeps the table's value: the fastest mate or the longest defence.
        let tb = retro_tables::Tablebase::open(tables.path()).expect("tables");
        let v = tb.move_value(&pos, &m).expect("covered");
        assert_eq!(mate_moves(v), n, "{fen}: {best}");
        assert!(lines
            .iter()
            .any(|l| l.contains("tbhits") && !l.contains("tbhits 0")));
    }
    // The DTM button lists the position and every move.
    e.send("position fen 8/8/8/4k3/8/8/8/R3K3 w - - 0 1");
    e.send("setoption name Show DTM");
    let lines = e.until("dtm of the last move", |l| {
        l.starts_with("info string dtm move a1c1")
    });
    assert!(
        lines[0].starts_with("info string dtm position White mates in 14 (27 plies)"),
        "{lines:?}"
    );
    e.quit();
}

/// UCI_LimitStrength and UCI_Elo: a weakened search within the level's node budget plays
/// legal moves, and plays table positions by its search instead of the tables.
/// Under the 50-move rule (the default) a table win is played and reported as one only when it
/// comes before the halfmove clock reaches 100: KRvK's mate in 27 plies from a clock of 73 is
/// `mate 14`, from 74 a draw with a notice; with the option off, pure DTM.
#[test]
fn table_positions_under_the_50_move_rule() {
    let tables = tempfile::tempdir().expect("tempdir");
    common::build_into(tables.path(), &[common::material("KRvK")]);
    let mut e = Engine::start(&format!("table_path = {:?}", tables.path()));
    e.handshake();
    let tb = retro_tables::Tablebase::open(tables.path()).expect("tables");
    let fen = |clock: u32| format!("8/8/8/4k3/8/8/8/R3K3 w - - {clock} 80");
    assert_eq!(
        tb.probe_dtz(&position(&fen(0))).expect("dtz").0,
        27,
        "no zeroing move before the mate"
    );
    e.send(&format!("position fen {}", fen(73)));
    let (best, lines) = e.go("movetime 100");
    assert_eq!(last_score(&lines), "mate 14", "{lines:?}");
    let pos = position(&fen(73));
    let m = best_move(&pos, &best);
    // The move leaves the opponent lost within what is left of the clock.
    let after = tb.move_dtz(&pos, &m).expect("dtz");
    assert!(after.0 < 0 && after.plies() + 74 <= 100, "{best}: {after}");
    e.send(&format!("position fen {}", fen(74)));
    let (_, lines) = e.go("movetime 100");
    assert_eq!(last_score(&lines), "cp 0", "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string win spoiled by the clock")
                && l.contains("a draw under the rule")),
        "{lines:?}"
    );
    e.send("setoption name Syzygy50MoveRule value false");
    e.send(&format!("position fen {}", fen(95)));
    let (_, lines) = e.go("movetime 100");
    assert_eq!(last_score(&lines), "mate 14", "{lines:?}");
}

/// Plays `fen` out: the engine (the side to move, at depth 1, so from its tables) against the
/// longest defence under the 50-move rule of the tables `tb`; asserts that it mates before the
/// halfmove clock reaches 100. Returns whether any of its searches reported table hits.
fn play_to_mate_under_the_rule(e: &mut Engine, tb: &retro_tables::Tablebase, fen: &str) -> bool {
    let mut pos = position(fen);
    let side = pos.turn();
    let mut moves: Vec<String> = Vec::new();
    let mut hits = false;
    while !pos.is_game_over() {
        assert!(
            pos.halfmoves() < 100,
            "{fen}: drawn by the rule after {moves:?}"
        );
        let m = if pos.turn() == side {
            if moves.is_empty() {
                e.send(&format!("position fen {fen}"));
            } else {
                e.send(&format!("position fen {fen} moves {}", moves.join(" ")));
            }
            let (best, lines) = e.go("depth 1");
            hits |= lines
                .iter()
                .any(|l| l.contains("tbhits") && !l.contains("tbhits 0"));
            best_move(&pos, &best)
        } else {
            retro_engine::rule50::rank_moves(tb, &pos).expect("covered")[0].mv
        };
        moves.push(m.to_uci(CastlingMode::Standard).to_string());
        pos.play_unchecked(m);
    }
    assert!(pos.is_checkmate() && pos.turn() != side, "{fen}: {moves:?}");
    hits
}

/// The positions of tests/data/rule50.fen, where the fastest mate would cross the 50-move rule's
/// 100 plies but a slower line wins in time, played out: Retro (at depth 1, so from the tables)
/// against the tables' longest defence under the rule, the game drawn when the halfmove clock
/// reaches 100. Retro mates in every one.
#[test]
fn wins_within_the_50_move_rule_where_the_fastest_mate_would_not() {
    let dir = common::all_tables();
    let tb = retro_tables::Tablebase::open(dir).expect("tables");
    let set = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rule50.fen"),
    )
    .expect("tests/data/rule50.fen");
    let mut e = Engine::start(&format!("table_path = {dir:?}"));
    e.handshake();
    let mut games = 0;
    for fen in set
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        play_to_mate_under_the_rule(&mut e, &tb, fen);
        games += 1;
    }
    assert!(games >= 12, "{games} games");
    e.quit();
}

/// With Retro's own tables absent and the 3-4-piece Syzygy files given as `SyzygyPath`, the
/// engine still plays KRvK and KQvKR to mate within the 50-move rule (against the longest
/// defence of Retro's tables), from the Syzygy tables (`tbhits`).
#[test]
fn syzygy_tables_play_where_retros_own_are_missing() {
    let empty = tempfile::tempdir().expect("tempdir");
    let mut e = Engine::start(&format!(
        "table_path = {:?}\nbuild_missing_tables = false",
        empty.path()
    ));
    e.handshake();
    let syzygy = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy");
    e.send(&format!(
        "setoption name SyzygyPath value {}",
        syzygy.display()
    ));
    let tb = retro_tables::Tablebase::open(common::all_tables()).expect("tables");
    for fen in [
        "8/8/8/4k3/8/8/8/R3K3 w - - 0 1",
        "8/8/3k4/8/8/2r5/8/1Q2K3 w - - 0 1",
    ] {
        let hits = play_to_mate_under_the_rule(&mut e, &tb, fen);
        assert!(hits, "{fen}: no Syzygy probe reported");
    }
    // A path without tables is a notice, not a failure.
    e.send("setoption name SyzygyPath value /nonexistent/syzygy");
    let lines = e.until("Syzygy notice", |l| l.contains("Syzygy tables not used"));
    assert!(!lines.is_empty());
    e.quit();
}

/// The Syzygy keys of engine.toml are the defaults `uci` declares and what the engine uses
/// before any `setoption`: KRvK, beyond Retro's (absent) tables, is played from the Syzygy
/// tables of `syzygy_path`, and not with `syzygy_probe_limit` below its 3 pieces.
#[test]
fn engine_toml_sets_the_syzygy_options() {
    let syzygy = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy");
    let has_tbhits = |lines: &[String]| {
        lines
            .iter()
            .any(|l| l.contains("tbhits") && !l.contains("tbhits 0"))
    };
    let mut e = Engine::start(&format!(
        "syzygy_path = {:?}\nsyzygy_probe_limit = 4\nsyzygy_50_move_rule = false",
        syzygy.display().to_string()
    ));
    let lines = e.handshake();
    for opt in [
        format!(
            "option name SyzygyPath type string default {}",
            syzygy.display()
        ),
        "option name SyzygyProbeLimit type spin default 4 min 0 max 7".to_string(),
        "option name Syzygy50MoveRule type check default false".to_string(),
    ] {
        assert!(lines.contains(&opt), "{opt} in {lines:?}");
    }
    e.send("position fen 8/8/8/4k3/8/8/8/R3K3 w - - 0 1");
    let (best, lines) = e.go("depth 1");
    best_move(&position("8/8/8/4k3/8/8/8/R3K3 w - - 0 1"), &best);
    assert!(has_tbhits(&lines), "no Syzygy probe in {lines:?}");
    e.quit();

    let mut e = Engine::start(&format!(
        "syzygy_path = {:?}\nsyzygy_probe_limit = 2",
        syzygy.display().to_string()
    ));
    let lines = e.handshake();
    assert!(
        lines.contains(&"option name SyzygyProbeLimit type spin default 2 min 0 max 7".to_string()),
        "{lines:?}"
    );
    assert!(
        lines.contains(&"option name Syzygy50MoveRule type check default true".to_string()),
        "{lines:?}"
    );
    e.send("position fen 8/8/8/4k3/8/8/8/R3K3 w - - 0 1");
    let (_, lines) = e.go("depth 1");
    assert!(
        !has_tbhits(&lines),
        "a Syzygy probe beyond the limit in {lines:?}"
    );
    e.quit();
}

#[test]
fn limited_strength_searches_within_its_budget_without_the_tables() {
    let tables = tempfile::tempdir().expect("tempdir");
    common::build_into(tables.path(), &[common::material("KRvK")]);
    let mut e = Engine::start(&format!("table_path = {:?}", tables.path()));
    let lines = e.handshake();
    for opt in [
        "option name UCI_LimitStrength type check default false",
        "option name UCI_Elo type spin",
    ] {
        assert!(lines.iter().any(|l| l.starts_with(opt)), "{opt}: {lines:?}");
    }
    e.send("setoption name UCI_LimitStrength value true");
    let range = retro_engine::strength::ELO_RANGE;
    for elo in [*range.start(), *range.end()] {
        e.send(&format!("setoption name UCI_Elo value {elo}"));
        let budget = retro_engine::strength::Strength::new(elo, 0).nodes();
        for fen in [
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
            "8/8/8/4k3/8/8/8/R3K3 w - - 0 1",
        ] {
            e.send(&format!("position fen {fen}"));
            let (best, lines) = e.go("wtime 60000 btime 60000");
            best_move(&position(fen), &best);
            let last = lines
                .iter()
                .rfind(|l| l.starts_with("info depth"))
                .expect("an info line");
            let field = |key: &str| {
                let mut w = last.split_whitespace();
                w.find(|&x| x == key);
                w.next().expect("value").parse::<u64>().expect("a number")
            };
            assert!(field("nodes") <= budget + 1, "{elo}: {last}");
            assert_eq!(field("tbhits"), 0, "{elo}: {last}");
        }
    }
    e.send("setoption name UCI_Elo value 99");
    e.until("the range error", |l| l.contains("out of range"));
    e.quit();
}

#[test]
fn the_search_uses_the_tables_below_the_root() {
    let tables = tempfile::tempdir().expect("tempdir");
    common::build_into(tables.path(), &["KQNvK"].map(common::material));
    let mut e = Engine::start(&format!("table_path = {:?}", tables.path()));
    e.handshake();
    // Five pieces: no table at the root, but taking the rook leads into KQNvK.
    let fen = "8/8/3k4/8/8/2r5/2Q5/4K2N w - - 0 1";
    e.send(&format!("position fen {fen}"));
    let (best, lines) = e.go("depth 4");
    assert!(best.starts_with("bestmove c2c3"), "{best}");
    let score = last_score(&lines);
    assert!(score.starts_with("mate "), "{score}");
    assert!(lines
        .iter()
        .any(|l| l.contains(" tbhits ") && !l.contains(" tbhits 0 ")));
    e.quit();
}

#[test]
fn self_play_game_ends_with_a_legal_result() {
    let tables = tempfile::tempdir().expect("tempdir");
    common::build_into(
        tables.path(),
        &["KRvK", "KQvK", "KPvK"].map(common::material),
    );
    let mut e = Engine::start(&format!("table_path = {:?}", tables.path()));
    e.handshake();
    e.send("ucinewgame");
    let start = "4k3/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1";
    let mut pos = position(start);
    let mut moves: Vec<String> = Vec::new();
    let mut seen = std::collections::HashMap::new();
    let result = loop {
        if pos.is_checkmate() {
            break "checkmate";
        }
        if pos.is_stalemate() {
            break "stalemate";
        }
        if pos.is_insufficient_material() {
            break "insufficient material";
        }
        if pos.halfmoves() >= 100 {
            break "fifty moves";
        }
        let key = retro_engine::hash_of(&pos);
        let count = seen.entry(key).or_insert(0);
        *count += 1;
        if *count >= 3 {
            break "threefold repetition";
        }
        assert!(moves.len() < 600, "game too long: {}", moves.join(" "));
        e.send(&format!("position fen {start} moves {}", moves.join(" ")));
        eprintln!(
            "{}",
            shakmaty::fen::Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
        );
        let (best, _) = e.go("nodes 3000");
        let m = best_move(&pos, &best);
        moves.push(m.to_uci(CastlingMode::Standard).to_string());
        pos.play_unchecked(m);
    };
    eprintln!("self-play: {result} after {} plies", moves.len());
    // White has a whole army against a bare king: the game must end in mate.
    assert_eq!(result, "checkmate", "{}", moves.join(" "));
    e.quit();
}

#[test]
fn bad_input_is_reported_and_the_state_kept() {
    let mut e = Engine::start("");
    e.handshake();
    e.send("go depth 1");
    let lines = e.until("bestmove", |l| l.starts_with("bestmove"));
    assert!(
        lines.iter().any(|l| l.contains("go before position")),
        "{lines:?}"
    );
    best_move(&Chess::default(), lines.last().expect("bestmove"));
    e.send("position startpos moves e2e4");
    let good = e.fen();
    for (bad, says) in [
        ("position fen 8/8/8/8/8/8/8/8 w - - 0 1", "illegal position"),
        ("position fen rnbqkbnr/pppppppp/8/8 w", "malformed FEN"),
        ("position fen", "needs a FEN"),
        ("position startpos moves e2e4 e2e4", "illegal"),
        ("position startpos moves e2e4 zz9", "not a move"),
        ("position startpos moves e7e5", "illegal"),
        ("setoption name Hash value 0", "out of range"),
        ("setoption name Hash value many", "not a whole number"),
        ("setoption name Threads value -3", "Threads"),
        ("setoption name NoSuchOption value 1", "unknown option"),
        (
            "setoption name TablePath value /no/such/dir",
            "not a directory",
        ),
        ("setoption", "setoption"),
        ("xyzzy", "unknown command"),
        ("\u{1b}[A\u{0}\u{ff}garbage", "unknown command"),
        ("bestmove e2e4", "engine to GUI"),
        ("perft 0", "perft"),
        ("perft", "perft"),
    ] {
        e.send(bad);
        let lines = e.until("an info string", |l| l.starts_with("info string"));
        let l = lines.last().expect("info string");
        assert!(l.contains(says), "{bad:?}: {l}");
        assert_eq!(e.fen(), good, "after {bad:?}");
    }
    // Lines ignored by convention, then the engine still searches the kept position.
    e.send("");
    e.send("   ");
    e.send("debug on");
    let (best, _) = e.go("depth 2");
    best_move(&position(&good), &best);
    e.quit();
}

#[test]
fn console_commands() {
    let mut e = Engine::start("");
    e.handshake();
    e.send("position startpos");
    // Stockfish's format, for the console's perft and go perft alike: a line per root move, an
    // empty line, the total.
    for command in ["perft 4", "go perft 4"] {
        e.send(command);
        let lines = e.until("perft total", |l| l.starts_with("Nodes searched: "));
        assert_eq!(
            lines.last().map(String::as_str),
            Some("Nodes searched: 197281"),
            "{lines:?}"
        );
        assert_eq!(lines.len(), 23, "{lines:?}");
        assert_eq!(lines[0], "a2a3: 8457", "{lines:?}");
        assert_eq!(lines[21], "", "{lines:?}");
    }
    e.send("position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    e.send("perft 3");
    let lines = e.until("perft total", |l| l.starts_with("Nodes searched: "));
    assert_eq!(
        lines.last().map(String::as_str),
        Some("Nodes searched: 97862"),
        "{lines:?}"
    );
    let mut totals = Vec::new();
    for _ in 0..2 {
        e.send("bench 5");
        let lines = e.until("bench total", |l| l.ends_with(" nps"));
        let nodes: u64 = lines
            .last()
            .and_then(|l| l.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .expect("node count");
        totals.push(nodes);
    }
    assert_eq!(totals[0], totals[1]);
    // Legality: a position reached by moves is legal; a FEN is analysed.
    e.send("position startpos moves e2e4 e7e5");
    e.send("legal");
    let lines = e.until("legality", |l| l.starts_with("info string legal"));
    assert!(
        lines
            .last()
            .expect("line")
            .contains("legal: legal (reached from the starting position by the 2 moves given)"),
        "{lines:?}"
    );
    e.send("legal 4k3/8/8/8/8/8/8/4K2R b K - 0 1");
    let lines = e.until("legality", |l| l.starts_with("info string legal"));
    assert!(
        lines
            .last()
            .expect("line")
            .contains("legal: illegal (no possible last move)"),
        "{lines:?}"
    );
    e.send("legal 4k3/8/8/8/8/8/8/4K2R b K -- 0 1");
    let lines = e.until("legality", |l| l.starts_with("info string legal"));
    assert!(
        lines.last().expect("line").contains("malformed FEN"),
        "{lines:?}"
    );
    // A legal position gets its verdict, then the proof game, which replays to it.
    let fen = "4k3/8/8/8/8/7P/8/4K2R b K - 0 1";
    e.send(&format!("position fen {fen}"));
    e.send("setoption name Show Legality");
    let lines = e.until("legality", |l| {
        l.starts_with("info string legal: proof game")
    });
    let n = lines.len();
    assert!(
        n >= 2 && lines[n - 2].contains("legal: legal (proof game: "),
        "{lines:?}"
    );
    let moves: Vec<&str> = lines[n - 1]
        .split(": ")
        .nth(2)
        .expect("moves")
        .split(' ')
        .collect();
    let goal = retro_legality::RawPosition::from_fen(fen).expect("FEN");
    assert_eq!(retro_legality::replay::check_uci(&goal, &moves), Ok(()));
    // The analysis runs off the protocol thread: isready is answered while it runs (this
    // position takes the whole 5 s budget), and stop ends it with an unknown verdict.
    let hard = "nr2BK2/Q1NBb1R1/4pkb1/1R4R1/R1rq1rQ1/1n1r1Q2/3qqP1q/3Q4 w - - 0 1";
    e.send(&format!("legal {hard}"));
    e.send("isready");
    let lines = e.until("readyok", |l| l == "readyok");
    assert!(lines.iter().all(|l| !l.contains("legal:")), "{lines:?}");
    e.send("stop");
    let lines = e.until("legality", |l| l.starts_with("info string legal"));
    let last = lines.last().expect("line");
    assert!(
        last.contains("legal: unknown (stopped") && last.contains("[stopped]"),
        "{lines:?}"
    );
    // A go while it runs (a GUI that pressed Show Legality) stops it and searches.
    e.send(&format!("legal {hard}"));
    e.send("position startpos");
    let (best, lines) = e.go("depth 2");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("legal: unknown") && l.contains("[stopped]")),
        "{lines:?}"
    );
    best_move(&Chess::default(), &best);
    e.send("probe");
    let lines = e.until("probe", |l| l.starts_with("info string"));
    assert!(
        lines.last().expect("line").contains("no tables"),
        "{lines:?}"
    );
    e.quit();
}

#[test]
fn missing_tables_are_built_in_the_background() {
    let tables = tempfile::tempdir().expect("tempdir");
    let mut e = Engine::start(&format!(
        "table_path = {:?}\nbuild_missing_tables = true",
        tables.path()
    ));
    let lines = e.handshake();
    assert!(lines.iter().any(|l| l.starts_with("id name")));
    let building: Vec<&String> = e
        .seen
        .iter()
        .filter(|l| l.contains("building them in the background"))
        .collect();
    assert_eq!(building.len(), 1, "{:?}", e.seen);
    // The engine plays while the tables are built.
    e.send("position startpos");
    let (best, _) = e.go("depth 3");
    best_move(&Chess::default(), &best);
    // The 35 DTM and DTZ50 tables: about 35 s on 2 idle cores, more on a busy machine.
    let lines = e.until_within("tables ready", 5 * HANG, |l| {
        l.starts_with("info string tables ready")
    });
    assert!(
        lines.last().expect("line").contains("35 tables"),
        "{lines:?}"
    );
    let fen = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1";
    let n = table_mate(tables.path(), fen);
    e.send(&format!("position fen {fen}"));
    let (_, lines) = e.go("depth 1");
    assert_eq!(last_score(&lines), format!("mate {}", n.expect("a win")));
    e.quit();
}

#[test]
fn logs_go_to_the_log_file_not_to_the_uci_output() {
    let logs = tempfile::tempdir().expect("tempdir");
    let file = logs.path().join("retro.log");
    let mut e = Engine::start(&format!("log_level = \"debug\"\nlog_file = {file:?}"));
    let lines = e.handshake();
    assert!(lines.iter().all(|l| !l.contains("<<")), "{lines:?}");
    e.quit();
    let text = std::fs::read_to_string(&file).expect("log file");
    assert!(text.contains("<< uci"), "{text}");
    assert!(text.contains("<< isready"), "{text}");
}

/// The `info` lines of the deepest iteration, by their `multipv` number: (number, the rest of
/// the line after `score`).
fn multipv_lines(lines: &[String]) -> Vec<(u32, String)> {
    let depth_of = |l: &str| -> u32 {
        let mut w = l.split_whitespace().skip_while(|w| *w != "depth").skip(1);
        w.next().and_then(|d| d.parse().ok()).unwrap_or(0)
    };
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth") && l.contains(" multipv "))
        .collect();
    let deepest = infos.iter().map(|l| depth_of(l)).max().unwrap_or(0);
    infos
        .into_iter()
        .filter(|l| depth_of(l) == deepest)
        .map(|l| {
            let mut w = l.split_whitespace().skip_while(|w| *w != "multipv").skip(1);
            let k = w
                .next()
                .and_then(|k| k.parse().ok())
                .expect("multipv number");
            let rest = l.split(" score ").nth(1).expect("score").to_string();
            (k, rest)
        })
        .collect()
}

/// The first move of a MultiPV line (the text after `score`), as written and as a legal move
/// of `pos`.
fn first_pv_move<'a>(pos: &Chess, rest: &'a str) -> (&'a str, shakmaty::Move) {
    let text = rest
        .split(" pv ")
        .nth(1)
        .and_then(|p| p.split_whitespace().next())
        .expect("pv");
    let m = UciMove::from_ascii(text.as_bytes())
        .expect("uci")
        .to_move(pos)
        .expect("legal");
    (text, m)
}

#[test]
fn multipv_search_reports_distinct_lines_best_first() {
    let mut e = Engine::start("");
    e.handshake();
    e.send("setoption name MultiPV value 3");
    e.send("position startpos");
    let (best, lines) = e.go("depth 7");
    let deepest = multipv_lines(&lines);
    assert_eq!(
        deepest.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
        vec![1, 2, 3],
        "{lines:?}"
    );
    let cp = |rest: &str| -> i32 {
        let w: Vec<&str> = rest.split_whitespace().collect();
        assert_eq!(w[0], "cp", "{rest}");
        w[1].parse().expect("centipawns")
    };
    let first_move = |rest: &str| {
        rest.split(" pv ")
            .nth(1)
            .and_then(|p| p.split_whitespace().next())
            .map(str::to_string)
    };
    let scores: Vec<i32> = deepest.iter().map(|(_, r)| cp(r)).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{deepest:?}");
    let firsts: Vec<String> = deepest.iter().filter_map(|(_, r)| first_move(r)).collect();
    assert_eq!(firsts.len(), 3);
    assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
    assert_eq!(best.split_whitespace().nth(1), Some(firsts[0].as_str()));
    // Every iteration reports its three lines.
    let per_depth = lines.iter().filter(|l| l.contains(" multipv 3 ")).count();
    assert_eq!(per_depth, 7, "{lines:?}");
    // UCI_ShowWDL adds win, draw and loss chances summing to 1000.
    e.send("setoption name UCI_ShowWDL value true");
    e.send("setoption name MultiPV value 1");
    let (_, lines) = e.go("depth 5");
    for l in lines.iter().filter(|l| l.contains(" score ")) {
        let mut w = l.split_whitespace().skip_while(|w| *w != "wdl").skip(1);
        let n: Vec<u32> = (0..3)
            .map(|_| w.next().and_then(|x| x.parse().ok()).expect("wdl W D L"))
            .collect();
        assert_eq!(n.iter().sum::<u32>(), 1000, "{l}");
    }
    e.quit();
}

#[test]
fn multipv_in_table_positions_lists_every_move_with_its_table_value() {
    let tables = tempfile::tempdir().expect("tempdir");
    common::build_into(tables.path(), &[common::material("KQvKR")]);
    let tb = retro_tables::Tablebase::open(tables.path()).expect("tables");
    let mut e = Engine::start(&format!("table_path = {:?}", tables.path()));
    e.handshake();
    e.send("setoption name UCI_ShowWDL value true");
    for fen in [
        "8/8/3k4/8/8/2r5/8/1Q2K3 w - - 0 1",
        "8/8/3k4/8/8/2r5/8/1Q2K3 b - - 0 1",
        "8/8/8/3k4/8/8/3r4/K2Q4 b - - 0 1",
        "6k1/8/8/8/8/8/1r6/KQ6 w - - 0 1",
    ] {
        let pos = position(fen);
        e.send("setoption name MultiPV value 1");
        e.send(&format!("position fen {fen}"));
        let (best1, _) = e.go("depth 3");
        e.send("setoption name MultiPV value 256");
        let (best, lines) = e.go("depth 3");
        assert_eq!(
            best1.split_whitespace().nth(1),
            best.split_whitespace().nth(1),
            "{fen}"
        );
        let listed = multipv_lines(&lines);
        let legal = pos.legal_moves();
        assert_eq!(listed.len(), legal.len(), "{fen}: {lines:?}");
        let mut seen = Vec::new();
        for (k, rest) in &listed {
            let (text, m) = first_pv_move(&pos, rest);
            assert!(!seen.contains(&m), "{fen}: {text} twice");
            seen.push(m);
            // The move's exact value, probed here: the mate distance in moves for its mover,
            // a draw as cp 0 (every DTM of KQvKR fits the 50-move rule from a clock of 0).
            let v = tb.move_value(&pos, &m).expect("covered");
            let (score, wdl) = match mate_moves(v) {
                Some(n) if n > 0 => (format!("mate {n}"), "1000 0 0"),
                Some(n) => (format!("mate {n}"), "0 0 1000"),
                None => ("cp 0".to_string(), "0 1000 0"),
            };
            assert!(
                rest.starts_with(&format!("{score} wdl {wdl} ")),
                "{fen} line {k} {text}: {rest}"
            );
        }
    }
    e.quit();
}

/// The Chess960 perft suite of tests/data/chess960.perft: (FEN, [(depth, count)]).
fn chess960_suite() -> Vec<(String, Vec<(u32, u64)>)> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/chess960.perft"),
    )
    .expect("tests/data/chess960.perft");
    let mut suite: Vec<(String, Vec<(u32, u64)>)> = Vec::new();
    for line in text.lines() {
        if let Some(fen) = line.strip_prefix("epd ") {
            suite.push((fen.to_string(), Vec::new()));
        } else if let Some(p) = line.strip_prefix("perft ") {
            let mut w = p.split_whitespace();
            let depth = w.next().and_then(|d| d.parse().ok()).expect("depth");
            let count = w.next().and_then(|c| c.parse().ok()).expect("count");
            suite
                .last_mut()
                .expect("an epd line first")
                .1
                .push((depth, count));
        }
    }
    suite
}

/// Runs the engine's `perft` on every suite position up to `max_depth`; returns the
/// mismatches and the counts compared.
fn chess960_perft(max_depth: u32) -> (Vec<String>, usize) {
    let mut e = Engine::start("");
    e.handshake();
    e.send("setoption name UCI_Chess960 value true");
    let mut wrong = Vec::new();
    let mut compared = 0;
    for (fen, counts) in chess960_suite() {
        e.send(&format!("position fen {fen}"));
        for &(depth, count) in counts.iter().filter(|(d, _)| *d <= max_depth) {
            e.send(&format!("perft {depth}"));
            let done = e.until("perft total", |l| l.starts_with("Nodes searched: "));
            let got: u64 = done
                .last()
                .and_then(|l| l.strip_prefix("Nodes searched: "))
                .and_then(|n| n.parse().ok())
                .expect("Nodes searched: COUNT");
            compared += 1;
            if got != count {
                wrong.push(format!("{fen} perft {depth}: {got}, expected {count}"));
            }
        }
    }
    e.quit();
    (wrong, compared)
}

#[test]
fn chess960_perft_suite_to_depth_4() {
    let (wrong, compared) = chess960_perft(4);
    assert_eq!(compared, 960 * 4);
    assert!(wrong.is_empty(), "{} mismatches: {wrong:?}", wrong.len());
}

/// The whole suite to depth 5 (about 16 billion moves in all: minutes).
#[test]
#[ignore]
fn chess960_perft_suite_to_depth_5() {
    let (wrong, compared) = chess960_perft(5);
    assert_eq!(compared, 960 * 5);
    assert!(wrong.is_empty(), "{} mismatches: {wrong:?}", wrong.len());
}

#[test]
fn chess960_positions_and_castling_in_uci() {
    let mut e = Engine::start("");
    e.handshake();
    // Standard chess refuses a Chess960 castling field with a clear message.
    let fen = "nrkbbrqn/pppppppp/8/8/8/8/PPPPPPPP/NRKBBRQN w FBfb - 0 1";
    e.send(&format!("position fen {fen}"));
    e.send("isready");
    let lines = e.until("readyok", |l| l == "readyok");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string") && l.contains("castling")),
        "{lines:?}"
    );
    e.send("setoption name UCI_Chess960 value true");
    // The bishops make way; White castles queenside, king c1 takes rook b1 (the king stays on
    // c1, the rook goes to d1).
    let chess960 = |f: &str| {
        f.parse::<Fen>()
            .expect("fen")
            .into_position::<Chess>(CastlingMode::Chess960)
            .expect("legal")
    };
    e.send(&format!("position fen {fen} moves c2c3 c7c6 d1c2 d8c7"));
    let (best, _) = e.go("depth 3 searchmoves c1b1");
    assert_eq!(best.split_whitespace().nth(1), Some("c1b1"), "{best}");
    e.send(&format!(
        "position fen {fen} moves c2c3 c7c6 d1c2 d8c7 c1b1"
    ));
    assert_eq!(
        chess960(&e.fen()),
        chess960("nrk1brqn/ppbppppp/2p5/8/8/2P5/PPBPPPPP/N1KRBRQN b fb - 3 3")
    );
    // Standard chess writes castling as the king's two-square move, with the option on as
    // king takes rook.
    let ruy = "r3k2r/pppq1ppp/2npbn2/4p3/4P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 0 1";
    e.send(&format!("position fen {ruy}"));
    let (best, _) = e.go("depth 2 searchmoves e1h1");
    assert_eq!(best.split_whitespace().nth(1), Some("e1h1"), "{best}");
    e.send("setoption name UCI_Chess960 value false");
    e.send(&format!("position fen {ruy}"));
    let (best, _) = e.go("depth 2 searchmoves e1g1");
    assert_eq!(best.split_whitespace().nth(1), Some("e1g1"), "{best}");
    e.quit();
}

/// What arrives while a search runs: `position` and `setoption` apply to the next search (the
/// running one keeps its own), `isready` is answered at once, a second `go` stops the search
/// (which gives its best move) and starts its own, `ucinewgame` stops the search (which still
/// gives its best move).
#[test]
fn commands_during_a_search_have_defined_effects() {
    let mut e = Engine::start("");
    e.handshake();
    e.send("position startpos moves d2d4");
    e.send("go infinite");
    let other = "4k3/8/8/8/8/8/3PP3/4K3 w - - 0 1";
    e.send(&format!("position fen {other}"));
    e.send("setoption name MultiPV value 2");
    e.send("isready");
    let lines = e.until("readyok", |l| l == "readyok");
    assert!(
        lines.iter().all(|l| !l.starts_with("bestmove")),
        "{lines:?}"
    );
    // A go during a search stops it, which gives its bestmove (of the first position, with
    // one line), then searches the new position (with two lines): every go is answered.
    e.send("go depth 3");
    let lines = e.until("bestmove", |l| l.starts_with("bestmove"));
    assert!(
        lines.iter().any(
            |l| l == "info string go during a search: stopping it first (its bestmove follows)"
        ),
        "{lines:?}"
    );
    let first = position("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1");
    best_move(&first, lines.last().expect("bestmove"));
    assert!(
        lines.iter().all(|l| !l.contains(" multipv 2 ")),
        "{lines:?}"
    );
    let lines = e.until("bestmove", |l| l.starts_with("bestmove"));
    best_move(&position(other), lines.last().expect("bestmove"));
    assert!(lines.iter().any(|l| l.contains(" multipv 2 ")), "{lines:?}");
    // ucinewgame stops a running search, says so, and the search gives its move.
    e.send("go infinite");
    e.send("ucinewgame");
    let lines = e.until("bestmove", |l| l.starts_with("bestmove"));
    assert!(
        lines
            .iter()
            .any(|l| l == "info string ucinewgame during a search: stopping it"),
        "{lines:?}"
    );
    best_move(&position(other), lines.last().expect("bestmove"));
    e.quit();
}

/// `go mate N` ends by itself once a mate in N or fewer moves is proven, and reports it.
#[test]
fn go_mate_stops_at_a_proven_mate() {
    let mut e = Engine::start("");
    e.handshake();
    // The back-rank mate Rd8#: mate in 1, within the 2 asked for.
    e.send("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1");
    let (best, lines) = e.go("mate 2");
    assert_eq!(last_score(&lines), "mate 1", "{lines:?}");
    assert_eq!(best.split_whitespace().nth(1), Some("d1d8"), "{best}");
    e.quit();
}

/// A mate that fits the 50-move rule exactly (3 plies from a clock of 97) is certain: it ranks
/// above a win that only the DTZ promises (a queen sacrifice that zeroes the clock), so it is
/// line 1 and the move played. Found by scripts/check-multipv-tables.py.
#[test]
fn a_mate_that_fits_the_rule_exactly_ranks_first() {
    let tables = tempfile::tempdir().expect("tempdir");
    common::build_into(tables.path(), &[common::material("KQRvK")]);
    let mut e = Engine::start(&format!("table_path = {:?}", tables.path()));
    e.handshake();
    e.send("setoption name MultiPV value 4");
    e.send("position fen 1QR5/8/8/7K/8/8/k7/8 w - - 97 50");
    let (best, lines) = e.go("depth 1");
    let listed = multipv_lines(&lines);
    assert!(listed[0].1.starts_with("mate 2 "), "{lines:?}");
    let scores: Vec<&str> = listed
        .iter()
        .map(|(_, r)| r.split(" nodes ").next().unwrap_or(""))
        .collect();
    // Every mate before every other win.
    let first_cp = scores.iter().position(|s| s.starts_with("cp"));
    let last_mate = scores.iter().rposition(|s| s.starts_with("mate"));
    if let (Some(c), Some(m)) = (first_cp, last_mate) {
        assert!(m < c, "{scores:?}");
    }
    assert_eq!(best.split_whitespace().nth(1), Some("c8c1"), "{best}");
    e.quit();
}

/// MultiPV from the Syzygy tables alone (Retro's own absent): every legal move, each valued by
/// Syzygy's WDL under the 50-move rule (wins as `cp 20000` less the plies to zeroing, draws
/// `cp 0`, losses negative), checked against shakmaty-syzygy's WDL of the position after it.
#[test]
fn multipv_from_syzygy_tables_lists_every_move() {
    let empty = tempfile::tempdir().expect("tempdir");
    let mut e = Engine::start(&format!("table_path = {:?}", empty.path()));
    e.handshake();
    let syzygy = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy");
    e.send(&format!(
        "setoption name SyzygyPath value {}",
        syzygy.display()
    ));
    e.send("setoption name MultiPV value 256");
    let mut tables = shakmaty_syzygy::Tablebase::<Chess>::new();
    tables.add_directory(&syzygy).expect("syzygy");
    for fen in [
        "8/8/3k4/8/8/2r5/8/1Q2K3 w - - 0 1",
        "8/8/3k4/8/8/2r5/8/1Q2K3 b - - 0 1",
        "8/8/8/4k3/8/8/1r6/K7 w - - 0 1",
    ] {
        let pos = position(fen);
        e.send(&format!("position fen {fen}"));
        let (_, lines) = e.go("depth 1");
        let listed = multipv_lines(&lines);
        assert_eq!(listed.len(), pos.legal_moves().len(), "{fen}: {lines:?}");
        for (_, rest) in &listed {
            let (text, m) = first_pv_move(&pos, rest);
            let mut after = pos.clone();
            after.play_unchecked(m);
            let cp: i32 = rest
                .strip_prefix("cp ")
                .and_then(|r| r.split_whitespace().next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("{fen} {text}: a cp score from Syzygy: {rest}"));
            let expected = if after.is_checkmate() {
                shakmaty_syzygy::Wdl::Loss
            } else {
                tables.probe_wdl_after_zeroing(&after).expect("covered")
            };
            // The child's class for the opponent; the move's value is its negation (the clock
            // is 0 after zeroing moves and small otherwise: no cursed results here).
            match expected {
                shakmaty_syzygy::Wdl::Loss => assert!(cp >= 19_000, "{fen} {text}: {rest}"),
                shakmaty_syzygy::Wdl::Win => assert!(cp <= -19_000, "{fen} {text}: {rest}"),
                _ => assert_eq!(cp, 0, "{fen} {text}: {rest}"),
            }
        }
    }
    e.quit();
}

#[test]
fn eval_file_loads_a_network_and_refuses_bad_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut bytes = retro_engine::nnue::Network::embedded().to_bytes();
    let good = dir.path().join("other.nnue");
    // Any valid file: the built-in network's bytes re-read, written elsewhere.
    std::fs::write(&good, &bytes).expect("write");
    let truncated = dir.path().join("truncated.nnue");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).expect("write");
    let corrupt = dir.path().join("corrupt.nnue");
    let mid = bytes.len() / 2;
    bytes[mid] ^= 1;
    std::fs::write(&corrupt, &bytes).expect("write");
    let mut e = Engine::start("");
    let lines = e.handshake();
    assert!(
        lines
            .iter()
            .any(|l| l == "option name EvalFile type string default <embedded>"),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("option name Use NNUE type check default ")),
        "{lines:?}"
    );
    e.send("setoption name Use NNUE value true");
    e.send(&format!("setoption name EvalFile value {}", good.display()));
    let l = e.until("loaded", |l| l.starts_with("info string"));
    assert!(l.last().expect("line").contains("loaded"), "{l:?}");
    for (bad, says) in [
        (truncated.display().to_string(), "truncated"),
        (corrupt.display().to_string(), "corrupted"),
        ("/no/such/file.nnue".to_string(), "cannot read"),
    ] {
        e.send(&format!("setoption name EvalFile value {bad}"));
        let l = e.until("an error", |l| l.starts_with("info string"));
        let l = l.last().expect("line");
        assert!(
            l.contains(says) && l.contains("keeping the current network"),
            "{bad}: {l}"
        );
    }
    // The network that stayed searches.
    e.send("position startpos moves e2e4 e7e5");
    let (best, info) = e.go("depth 6");
    best_move(
        &position("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"),
        &best,
    );
    assert!(info.iter().any(|l| l.contains(" depth 6 ")), "{info:?}");
    e.send("setoption name EvalFile value <embedded>");
    let l = e.until("built-in", |l| l.starts_with("info string"));
    assert!(
        l.last().expect("line").contains("built-in network"),
        "{l:?}"
    );
    e.quit();
}

/// Every `go` gets a `bestmove`, however bad its values: each bad value is named in an `info
/// string` and replaced (clamped into range, or the smallest search where it cannot be read),
/// and the search runs. Today's main answered these with an `info string` alone.
#[test]
fn every_go_is_answered_with_a_bestmove() {
    const SOON: Duration = Duration::from_secs(1);
    let mut e = Engine::start("");
    e.handshake();
    e.send("position startpos");
    for (go, says) in [
        (
            "go depth -1",
            "go depth: -1 is out of range (from 1 to 127): 1 used",
        ),
        ("go depth", "go depth needs a value: 1 used"),
        (
            "go mate -3",
            "go mate: -3 is out of range (from 1 to 63): 1 used",
        ),
        (
            "go wtime abc btime 100",
            "go wtime: 'abc' is not a number: 0 used",
        ),
        ("go depth x", "go depth: 'x' is not a number: 1 used"),
        (
            "go nodes -5 sideways",
            "go nodes: -5 is out of range (at least 1): 1 used",
        ),
    ] {
        e.send(go);
        let lines = e.until_within(go, SOON, |l| l.starts_with("bestmove"));
        assert!(
            lines.iter().any(|l| l == &format!("info string {says}")),
            "{go}: {lines:?}"
        );
        best_move(&Chess::default(), lines.last().expect("bestmove"));
    }
    // A depth beyond any search is the deepest one: a long search, which stop ends.
    e.send("go depth 99999999999999999999");
    e.until_within("the clamp", SOON, |l| {
        l == "info string go depth: 99999999999999999999 is out of range (from 1 to 127): 127 \
              used"
    });
    e.send("stop");
    let lines = e.until_within("bestmove", SOON, |l| l.starts_with("bestmove"));
    best_move(&Chess::default(), lines.last().expect("bestmove"));
    e.quit();
}

/// One bad word in `searchmoves` is named and left out; the other moves are still the only
/// ones searched.
#[test]
fn searchmoves_are_read_word_by_word() {
    let mut e = Engine::start("");
    e.handshake();
    e.send("position fen 8/8/8/4k3/8/8/8/R3K3 w - - 0 1");
    let (best, lines) = e.go("depth 3 searchmoves zz e1e2");
    assert!(
        lines.iter().any(
            |l| l == "info string go searchmoves: 'zz' is not a move in UCI notation, left out"
        ),
        "{lines:?}"
    );
    assert_eq!(best.split_whitespace().nth(1), Some("e1e2"), "{best}");
    // A move in UCI notation that is not legal here is named too.
    let (best, lines) = e.go("depth 3 searchmoves a1a9 e1e8 e1d1");
    assert!(
        lines.iter().any(|l| l.contains("'a1a9' is not a move")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("'e1e8' is not legal here")),
        "{lines:?}"
    );
    assert_eq!(best.split_whitespace().nth(1), Some("e1d1"), "{best}");
    e.quit();
}

/// After a refused `position`, the position before it is kept, and `go` and `legal` say that
/// they use it, until a position is accepted.
#[test]
fn a_refused_position_keeps_the_one_before_and_says_so() {
    let mut e = Engine::start("");
    e.handshake();
    e.send("position startpos moves e2e4");
    let kept = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    for bad in [
        "position fen P7/8/8/4k3/8/8/8/R3K3 w - - 0 1",
        "position startpos moves e2e4 zz9",
        "position fen",
    ] {
        e.send(bad);
        let lines = e.until("the refusal", |l| l.starts_with("info string"));
        assert!(
            lines
                .last()
                .expect("line")
                .ends_with("; the position is unchanged"),
            "{bad}: {lines:?}"
        );
        let (best, lines) = e.go("depth 1");
        let notice = lines
            .iter()
            .find(|l| l.starts_with("info string the last position command was refused ("))
            .unwrap_or_else(|| panic!("{bad}: {lines:?}"));
        assert!(
            notice.ends_with(&format!("): using the position before it, {kept}")),
            "{notice}"
        );
        assert!(
            lines.iter().all(|l| !l.contains("go before position")),
            "{lines:?}"
        );
        best_move(&position(kept), &best);
        e.send("legal");
        let lines = e.until("legality", |l| l.starts_with("info string legal:"));
        assert!(
            lines
                .iter()
                .any(|l| l.contains("the last position command was refused")),
            "{lines:?}"
        );
        assert_eq!(
            lines.last().map(String::as_str),
            Some(
                "info string legal: legal (reached from the starting position by the 1 move \
                 given)"
            )
        );
    }
    // An accepted position ends the notices.
    e.send("position startpos");
    let (_, lines) = e.go("depth 1");
    assert!(lines.iter().all(|l| !l.contains("refused")), "{lines:?}");
    e.send("legal");
    let lines = e.until("legality", |l| l.starts_with("info string legal:"));
    assert_eq!(lines, ["info string legal: legal (the starting position)"]);
    e.quit();
}

/// At the start the engine says which tables it found, where, and the largest; a folder that
/// does not exist is named as such.
#[test]
fn the_tables_found_are_announced_at_the_start() {
    let tables = common::all_tables();
    let mut e = Engine::start(&format!("table_path = {tables:?}"));
    let lines = e.until("the tables", |l| l.starts_with("info string"));
    assert_eq!(
        lines.last().map(String::as_str),
        Some(
            format!(
                "info string 35 tables in {}, up to 4 pieces (largest KRvKP)",
                tables.display()
            )
            .as_str()
        )
    );
    e.quit();
    let mut e = Engine::start("table_path = \"/no/such/folder\"");
    let lines = e.until("the tables", |l| l.starts_with("info string"));
    assert_eq!(
        lines.last().map(String::as_str),
        Some("info string no tables: /no/such/folder does not exist")
    );
    e.send(&format!(
        "setoption name TablePath value {}",
        tables.display()
    ));
    let lines = e.until("the tables", |l| l.starts_with("info string"));
    assert!(lines
        .last()
        .expect("line")
        .starts_with("info string 35 tables in "));
    e.quit();
}

/// Without `table_path` in engine.toml the tables are looked for (and built) in the platform's
/// data folder: `$XDG_DATA_HOME/retro/tables`, else `$HOME/.local/share/retro/tables`.
#[cfg(target_os = "linux")]
#[test]
fn the_table_folder_is_the_platforms_data_folder() {
    let data = tempfile::tempdir().expect("tempdir");
    let home = tempfile::tempdir().expect("tempdir");
    // The first notice of an engine started with `toml` and the environment `env`.
    let first_notice = |toml: &str, env: &[(&str, Option<&Path>)], what: &str| {
        let mut e = Engine::start_with(toml, env);
        let lines = e.until(what, |l| l.starts_with("info string") && l.contains(what));
        e.quit();
        lines.last().cloned().expect("a line")
    };
    let both = [
        ("XDG_DATA_HOME", Some(data.path())),
        ("HOME", Some(home.path())),
    ];
    for (env, expected) in [
        (&both[..], data.path().join("retro/tables")),
        (
            &[("XDG_DATA_HOME", None), ("HOME", Some(home.path()))][..],
            home.path().join(".local/share/retro/tables"),
        ),
    ] {
        assert_eq!(
            first_notice("", env, "no tables"),
            format!(
                "info string no tables: {} does not exist",
                expected.display()
            )
        );
    }
    // With the background build on, the engine builds there and says where and how much.
    let build = first_notice("build_missing_tables = true", &both, "building them");
    assert!(
        build.starts_with(&format!(
            "info string 35 of the 35 3-4-piece tables are missing in {}: building them in the \
             background (",
            data.path().join("retro/tables").display()
        )),
        "{build}"
    );
}
