//! Fuzzing of the command handling: random and mutated lines fed to the engine in process.
//! Nothing may panic, and the engine must still answer `isready` after every case.

use std::{
    io::Write,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, Mutex,
    },
};

use proptest::{
    prelude::*,
    test_runner::{Config as ProptestConfig, TestCaseError, TestRunner},
};
use retro::uci::{command, Flow, Output, Protocol};
use retro_engine::config::Config;
use shakmaty::Position;

/// Lines every case draws from, whole or mutated.
const TEMPLATES: [&str; 28] = [
    "uci",
    "isready",
    "ucinewgame",
    "position startpos",
    "position startpos moves e2e4 e7e5 g1f3",
    "position fen 8/8/8/4k3/8/8/8/R3K3 w - - 0 1 moves a1a2 e5e4",
    "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "position fen 4k3/8/8/8/8/8/8/4K3 w - -",
    "go depth 2",
    "go nodes 300",
    "go movetime 3",
    "go wtime 50 btime 50 winc 1 binc 1",
    "go infinite",
    "go ponder wtime 100 btime 100",
    "go mate 1 searchmoves e2e4",
    "ponderhit",
    "stop",
    "setoption name Hash value 1",
    "setoption name Threads value 2",
    "setoption name Move Overhead value 5",
    "setoption name Clear Hash",
    "setoption name Show DTM",
    "perft 2",
    "d",
    "probe",
    "eval",
    "legal 8/8/8/8/8/8/8/8 w - - 0 1",
    "debug on",
];

#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut v) = self.0.lock() {
            // Keep only the tail: enough to see the last answers.
            if v.len() > 1 << 16 {
                v.clear();
            }
            v.extend_from_slice(b);
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn mutate(template: &str, edits: &[(usize, u8, char)]) -> String {
    let mut chars: Vec<char> = template.chars().collect();
    for &(at, op, c) in edits {
        let i = if chars.is_empty() {
            0
        } else {
            at % (chars.len() + 1)
        };
        match op % 4 {
            0 => chars.insert(i, c),
            1 if i < chars.len() => {
                chars.remove(i);
            }
            2 if i < chars.len() => chars[i] = c,
            _ => {
                // Duplicate a word boundary or digits: push counts out of range.
                chars.insert(i, if c.is_ascii_digit() { c } else { '9' });
            }
        }
    }
    chars.into_iter().collect()
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (0..TEMPLATES.len()).prop_map(|i| TEMPLATES[i].to_string()),
        4 => (
            0..TEMPLATES.len(),
            prop::collection::vec((any::<usize>(), any::<u8>(), any::<char>()), 1..4)
        )
            .prop_map(|(i, e)| mutate(TEMPLATES[i], &e)),
        1 => any::<String>(),
        1 => "[ -~]{0,80}",
    ]
}

fn config() -> Config {
    Config {
        table_path: std::path::PathBuf::new(),
        hash: 1,
        build_missing_tables: false,
        ..Config::default()
    }
}

/// Runs one session; returns the lines handled.
fn session(lines: &[String]) -> Result<u64, TestCaseError> {
    let sink = Sink::default();
    let mut engine = Protocol::new(&config(), Output::new(Box::new(sink.clone())));
    let mut handled = 0;
    for l in lines {
        handled += 1;
        if engine.handle_line(l) == Flow::Quit {
            return Ok(handled);
        }
    }
    engine.handle_line("stop");
    engine.stop_and_wait();
    // Still answering, in a position with both kings.
    engine.handle_line("isready");
    let text = String::from_utf8_lossy(
        &sink
            .0
            .lock()
            .map_err(|_| TestCaseError::fail("sink"))?
            .clone(),
    )
    .into_owned();
    prop_assert!(text.ends_with("readyok\n"), "{}", text);
    prop_assert_eq!(engine.engine().position().board().kings().count(), 2);
    Ok(handled)
}

#[test]
fn random_and_mutated_sessions_never_break_the_engine() {
    let sessions = 20000;
    let mut runner = TestRunner::new(ProptestConfig {
        cases: sessions,
        ..ProptestConfig::default()
    });
    let total = AtomicU64::new(0);
    runner
        .run(&prop::collection::vec(line(), 1..10), |lines| {
            total.fetch_add(session(&lines)?, Ordering::Relaxed);
            Ok(())
        })
        .expect("every session");
    eprintln!(
        "{sessions} sessions, {} lines handled without a panic",
        total.load(Ordering::Relaxed)
    );
}

#[test]
fn the_parser_takes_any_line() {
    let cases = 100_000;
    let mut runner = TestRunner::new(ProptestConfig {
        cases,
        ..ProptestConfig::default()
    });
    runner
        .run(&prop_oneof![any::<String>(), line()], |l| {
            let _ = command::parse(&l);
            Ok(())
        })
        .expect("no panic");
    eprintln!("{cases} lines parsed without a panic");
}
