//! One input line to one command: the UCI messages (parsed by vampirc-uci) and the console
//! commands for people typing into the engine.
//!
//! vampirc-uci is strict where GUIs are loose and loose where an engine must be strict, so
//! `go` and `position` are read here ([`super::go`] and [`parse_position`]): every `go` gets a
//! search (its bad values named and replaced), a FEN without move counters is accepted, a move
//! token that cannot be read is reported instead of dropped, and a panic inside the parser
//! becomes an error.

use shakmaty::uci::UciMove;
use vampirc_uci::UciMessage;

use super::go::{parse_go, Go, GoCommand};

/// Where a `position` command starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// The initial position.
    StartPos,
    /// A FEN.
    Fen(String),
}

/// A parsed input line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `uci`.
    Uci,
    /// `debug on|off`.
    Debug(bool),
    /// `isready`.
    IsReady,
    /// `ucinewgame`.
    NewGame,
    /// `setoption name N [value V]`.
    SetOption {
        /// The option's name.
        name: String,
        /// Its value, if any.
        value: Option<String>,
    },
    /// `position startpos|fen F [moves ...]`.
    Position {
        /// The start.
        start: Start,
        /// The moves in UCI notation.
        moves: Vec<String>,
    },
    /// `go ...`: the limits, the moves, and what was not used as given.
    Go(Go),
    /// `stop`.
    Stop,
    /// `ponderhit`.
    PonderHit,
    /// `quit`.
    Quit,
    /// `register ...`: accepted and ignored.
    Register,
    /// Console: `d`, the board, FEN, key and table value.
    Display,
    /// Console: `probe`, the table value of the position and of every legal move.
    Probe,
    /// Console: `legal [FEN]`.
    Legal(Option<String>),
    /// Console: `perft N`, and `go perft N`.
    Perft(u32),
    /// Console: `bench [DEPTH]`.
    Bench(Option<u32>),
    /// Console: `eval`, the static evaluation.
    Eval,
    /// `genfens N seed S book B [...]` (OpenBench): N openings as `info string genfens FEN`.
    Genfens {
        /// How many.
        count: usize,
        /// The seed.
        seed: u64,
        /// The EPD book the openings start from (`None`: the starting position).
        book: Option<String>,
    },
    /// Console: `help`.
    Help,
    /// An empty line.
    Empty,
}

/// Why a line is not a command; the message names the bad token and what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UciError {
    /// `perft` without a depth in range.
    #[error("perft needs a depth from 1 to {MAX_PERFT}")]
    PerftDepth,
    /// `bench` with a depth out of range or more words.
    #[error("bench takes a depth from 1 to {MAX_BENCH}")]
    BenchDepth,
    /// `position fen` without a FEN.
    #[error("position fen needs a FEN")]
    NoFen,
    /// `position fen` with a FEN that cannot be read.
    #[error("malformed FEN '{fen}': {reason}")]
    Fen {
        /// The FEN.
        fen: String,
        /// What is wrong with it.
        reason: shakmaty::fen::ParseFenError,
    },
    /// A token after `moves` that is not a move.
    #[error("'{0}' is not a move in UCI notation")]
    NotAMove(String),
    /// The parser gave up on the line.
    #[error("cannot parse '{0}'")]
    Unparsable(String),
    /// A `position` the parser does not take.
    #[error("malformed position command '{0}'")]
    Position(String),
    /// A `setoption` the parser does not take.
    #[error("malformed setoption command '{0}' (setoption name N [value V])")]
    SetOption(String),
    /// `genfens` without its count, seed or book.
    #[error("genfens N seed S book <None|FILE> (N from 1 to {MAX_GENFENS})")]
    Genfens,
    /// A word that is no command.
    #[error("unknown command '{0}' (try help)")]
    Unknown(String),
    /// A message an engine sends, not a GUI.
    #[error("'{0}' is a message from engine to GUI, not a command")]
    EngineMessage(String),
}

impl UciError {
    /// Whether the line was a `position` command (so the position it asked for is refused).
    pub fn is_position(&self) -> bool {
        matches!(
            self,
            UciError::NoFen | UciError::Fen { .. } | UciError::NotAMove(_) | UciError::Position(_)
        )
    }
}

/// The most openings one `genfens` makes.
pub const MAX_GENFENS: usize = 1_000_000;

/// The deepest `bench` the console accepts.
pub const MAX_BENCH: u32 = 20;

/// The deepest `perft` the console accepts.
pub const MAX_PERFT: u32 = 15;

/// Parses one line.
///
/// # Errors
/// A message naming what is wrong with the line.
pub fn parse(line: &str) -> Result<Command, UciError> {
    let line = line.trim();
    let mut words = line.split_whitespace();
    let Some(first) = words.next() else {
        return Ok(Command::Empty);
    };
    let rest: Vec<&str> = words.collect();
    match first {
        "d" if rest.is_empty() => return Ok(Command::Display),
        "probe" if rest.is_empty() => return Ok(Command::Probe),
        "eval" if rest.is_empty() => return Ok(Command::Eval),
        "help" => return Ok(Command::Help),
        "legal" => {
            return Ok(Command::Legal(if rest.is_empty() {
                None
            } else {
                Some(rest.join(" "))
            }))
        }
        "perft" => {
            let n = match rest.as_slice() {
                [n] => n.parse::<u32>().ok(),
                _ => None,
            };
            return match n {
                Some(n) if (1..=MAX_PERFT).contains(&n) => Ok(Command::Perft(n)),
                _ => Err(UciError::PerftDepth),
            };
        }
        "genfens" => return parse_genfens(&rest),
        "bench" => {
            return match rest.as_slice() {
                [] => Ok(Command::Bench(None)),
                [n] => match n.parse::<u32>() {
                    Ok(n) if (1..=MAX_BENCH).contains(&n) => Ok(Command::Bench(Some(n))),
                    _ => Err(UciError::BenchDepth),
                },
                _ => Err(UciError::BenchDepth),
            };
        }
        _ => {}
    }
    match first.to_ascii_lowercase().as_str() {
        "go" => {
            return match parse_go(&rest) {
                GoCommand::Search(go) => Ok(Command::Go(go)),
                GoCommand::Perft(Some(n)) => Ok(Command::Perft(n)),
                GoCommand::Perft(None) => Err(UciError::PerftDepth),
            }
        }
        "position" => return parse_position(&rest, line),
        _ => {}
    }
    let msg = std::panic::catch_unwind(|| vampirc_uci::parse_one(line))
        .map_err(|_| UciError::Unparsable(line.to_string()))?;
    let cmd = match msg {
        UciMessage::Uci => Command::Uci,
        UciMessage::Debug(on) => Command::Debug(on),
        UciMessage::IsReady => Command::IsReady,
        UciMessage::UciNewGame => Command::NewGame,
        UciMessage::Stop => Command::Stop,
        UciMessage::PonderHit => Command::PonderHit,
        UciMessage::Quit => Command::Quit,
        UciMessage::Register { .. } => Command::Register,
        UciMessage::SetOption { name, value } => Command::SetOption { name, value },
        UciMessage::Unknown(..) => return Err(unknown(first, line)),
        _ => return Err(UciError::EngineMessage(first.to_string())),
    };
    Ok(cmd)
}

/// `genfens N seed S book B`, as OpenBench sends it (words after the book are its extra
/// arguments, which Retro does not use).
fn parse_genfens(rest: &[&str]) -> Result<Command, UciError> {
    let [n, seed_word, s, book_word, b, ..] = rest else {
        return Err(UciError::Genfens);
    };
    let count = n
        .parse::<usize>()
        .ok()
        .filter(|n| (1..=MAX_GENFENS).contains(n));
    match (count, s.parse::<u64>()) {
        (Some(count), Ok(seed)) if *seed_word == "seed" && *book_word == "book" => {
            Ok(Command::Genfens {
                count,
                seed,
                book: (!b.eq_ignore_ascii_case("none")).then(|| b.to_string()),
            })
        }
        _ => Err(UciError::Genfens),
    }
}

/// The error of a line the parser did not take, by its first word.
fn unknown(first: &str, line: &str) -> UciError {
    match first.to_ascii_lowercase().as_str() {
        "position" => UciError::Position(line.to_string()),
        "setoption" => UciError::SetOption(line.to_string()),
        _ => UciError::Unknown(first.to_string()),
    }
}

/// `position startpos|fen FEN [moves M ...]`, read here rather than by vampirc-uci, whose FEN
/// grammar has no Chess960 castling fields (Shredder-FEN `HAha`): a FEN without move counters
/// gets `0 1`, and every token after `moves` must be a move in UCI notation.
fn parse_position(rest: &[&str], line: &str) -> Result<Command, UciError> {
    let moves_at = rest
        .iter()
        .position(|w| w.eq_ignore_ascii_case("moves"))
        .unwrap_or(rest.len());
    let (head, tail) = rest.split_at(moves_at);
    let start = match head.split_first() {
        Some((w, [])) if w.eq_ignore_ascii_case("startpos") => Start::StartPos,
        Some((w, fields)) if w.eq_ignore_ascii_case("fen") => {
            let mut fields: Vec<&str> = fields.to_vec();
            match fields.len() {
                0 => return Err(UciError::NoFen),
                4 => fields.extend(["0", "1"]),
                5 => fields.push("1"),
                _ => {}
            }
            let fen = fields.join(" ");
            if let Err(reason) = fen.parse::<shakmaty::fen::Fen>() {
                return Err(UciError::Fen { fen, reason });
            }
            Start::Fen(fen)
        }
        _ => return Err(UciError::Position(line.to_string())),
    };
    let moves = tail
        .iter()
        .skip(1)
        .map(|w| {
            UciMove::from_ascii(w.as_bytes())
                .map(|_| w.to_string())
                .map_err(|_| UciError::NotAMove(w.to_string()))
        })
        .collect::<Result<Vec<String>, UciError>>()?;
    Ok(Command::Position { start, moves })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_commands() {
        assert_eq!(parse("uci"), Ok(Command::Uci));
        assert_eq!(parse("  isready \r"), Ok(Command::IsReady));
        assert_eq!(parse(""), Ok(Command::Empty));
        assert_eq!(parse("quit"), Ok(Command::Quit));
        assert_eq!(
            parse("setoption name Move Overhead value 30"),
            Ok(Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("30".into())
            })
        );
        assert_eq!(
            parse("position startpos moves e2e4 e7e5"),
            Ok(Command::Position {
                start: Start::StartPos,
                moves: vec!["e2e4".into(), "e7e5".into()]
            })
        );
    }

    #[test]
    fn go_is_read_by_its_own_parser() {
        let Ok(Command::Go(go)) = parse("go ponder wtime 1000 btime 2000 movestogo 5") else {
            panic!("go");
        };
        assert!(go.limits.ponder && go.problems.is_empty());
        assert_eq!(go.limits.moves_to_go, Some(5));
        // A bad value is a search all the same, its problem named.
        let Ok(Command::Go(go)) = parse("go depth x") else {
            panic!("go");
        };
        assert_eq!(go.limits.depth, Some(1));
        assert_eq!(go.problems.len(), 1);
        assert_eq!(parse("go perft 3"), Ok(Command::Perft(3)));
        assert_eq!(parse("go perft 99"), Err(UciError::PerftDepth));
    }

    #[test]
    fn positions() {
        assert_eq!(
            parse("position fen 4k3/8/8/8/8/8/8/4K3 w - - moves e1e2"),
            Ok(Command::Position {
                start: Start::Fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1".into()),
                moves: vec!["e1e2".into()]
            })
        );
        // Chess960 castling fields and king-takes-rook castling.
        assert_eq!(
            parse("position fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9 moves g1h1"),
            Ok(Command::Position {
                start: Start::Fen(
                    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9".into()
                ),
                moves: vec!["g1h1".into()]
            })
        );
        assert!(parse("position").is_err());
        assert!(parse("position sideways").is_err());
        assert!(parse("position startpos e2e4").is_err());
        let e = parse("position startpos moves e2e4 zzzz").expect_err("bad move");
        assert!(e.to_string().contains("'zzzz'"), "{e}");
        let e = parse("position fen garbage").expect_err("bad fen");
        assert!(e.to_string().contains("malformed FEN"), "{e}");
        assert!(parse("position fen").is_err());
    }

    #[test]
    fn genfens_as_openbench_sends_it() {
        assert_eq!(
            parse("genfens 10 seed 42 book None "),
            Ok(Command::Genfens {
                count: 10,
                seed: 42,
                book: None
            })
        );
        assert_eq!(
            parse("genfens 2 seed 1 book Books/x.epd extra"),
            Ok(Command::Genfens {
                count: 2,
                seed: 1,
                book: Some("Books/x.epd".into())
            })
        );
        assert_eq!(parse("genfens 0 seed 1 book None"), Err(UciError::Genfens));
        assert_eq!(parse("genfens 5 seed x book None"), Err(UciError::Genfens));
        assert_eq!(parse("genfens 5"), Err(UciError::Genfens));
    }

    #[test]
    fn console_and_garbage() {
        assert_eq!(parse("d"), Ok(Command::Display));
        assert_eq!(parse("perft 3"), Ok(Command::Perft(3)));
        assert!(parse("perft 99").is_err());
        assert!(parse("perft").is_err());
        assert_eq!(parse("bench 5"), Ok(Command::Bench(Some(5))));
        assert_eq!(parse("legal"), Ok(Command::Legal(None)));
        let e = parse("xyzzy 1 2").expect_err("unknown");
        assert!(e.to_string().contains("unknown command 'xyzzy'"), "{e}");
        assert!(parse("bestmove e2e4").is_err());
    }
}
