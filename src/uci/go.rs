//! The `go` command, read word by word here rather than by vampirc-uci: a GUI must get a
//! `bestmove` for every `go`, so a value that cannot be used is not a reason to refuse the
//! whole command. Each such value is named in a [`GoProblem`] (printed as an `info string`)
//! and replaced as the problem says:
//!
//! - a number out of range is clamped into it (`depth -1` searches depth 1, `depth
//!   99999999999999999999` the deepest the search goes);
//! - a value missing or not a number gets the smallest search that limit allows (depth 1,
//!   mate 1, 1 node, a clock or move time of 0: the engine answers at once), except
//!   `movestogo` and the increments, which keep their defaults (unknown, and 0), also when
//!   out of range;
//! - a `searchmoves` word that is not a move is left out, the other moves kept;
//! - a word that is no `go` parameter is ignored.
//!
//! `go perft N` is the console's `perft N`, as Stockfish has it.

use std::{fmt, time::Duration};

use shakmaty::uci::UciMove;

use retro_engine::{search::MAX_PLY, SearchLimits};

/// The deepest `go depth` searches.
pub const MAX_DEPTH: u64 = MAX_PLY as u64 - 1;

/// The longest mate `go mate` looks for, in moves (its plies fit the deepest search).
pub const MAX_MATE: u64 = MAX_DEPTH / 2;

/// Something in a `go` command that was not used as given, and what was used instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GoProblem {
    /// A parameter without its value.
    Missing {
        /// The parameter.
        key: &'static str,
        /// What was used instead.
        used: Used,
    },
    /// A value that is not a number.
    NotANumber {
        /// The parameter.
        key: &'static str,
        /// The value given.
        value: String,
        /// What was used instead.
        used: Used,
    },
    /// A number outside the parameter's range.
    OutOfRange {
        /// The parameter.
        key: &'static str,
        /// The value given.
        value: String,
        /// What was used instead.
        used: Used,
    },
    /// A `searchmoves` word that is not a move in UCI notation.
    NotAMove(String),
    /// A word that is no `go` parameter.
    UnknownWord(String),
}

/// What a [`GoProblem`]'s parameter became.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Used {
    /// This number (plies, moves, nodes or milliseconds, as the parameter counts).
    Value(u64),
    /// The parameter's default: as if it had not been given.
    Default,
}

impl fmt::Display for Used {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Used::Value(n) => write!(f, "{n} used"),
            Used::Default => write!(f, "the default used"),
        }
    }
}

impl fmt::Display for GoProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GoProblem::Missing { key, used } => write!(f, "go {key} needs a value: {used}"),
            GoProblem::NotANumber { key, value, used } => {
                write!(f, "go {key}: '{value}' is not a number: {used}")
            }
            GoProblem::OutOfRange { key, value, used } => {
                let range = match range_of(key) {
                    (lo, u64::MAX) => format!("at least {lo}"),
                    (lo, hi) => format!("from {lo} to {hi}"),
                };
                write!(f, "go {key}: {value} is out of range ({range}): {used}")
            }
            GoProblem::NotAMove(w) => {
                write!(
                    f,
                    "go searchmoves: '{w}' is not a move in UCI notation, left out"
                )
            }
            GoProblem::UnknownWord(w) => write!(f, "go: unknown word '{w}' ignored"),
        }
    }
}

/// A `go` command: the limits, the `searchmoves` moves, and what was not used as given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    /// The limits.
    pub limits: SearchLimits,
    /// `searchmoves`, in UCI notation.
    pub search_moves: Vec<String>,
    /// The values that were replaced, in the order of the command.
    pub problems: Vec<GoProblem>,
}

/// The parameters that take a number.
const NUMERIC: [&str; 10] = [
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "perft",
];

/// The range of a numeric parameter (times in milliseconds).
fn range_of(key: &str) -> (u64, u64) {
    match key {
        "depth" => (1, MAX_DEPTH),
        "mate" => (1, MAX_MATE),
        "movestogo" | "nodes" => (1, u64::MAX),
        "perft" => (1, u64::from(super::command::MAX_PERFT)),
        _ => (0, u64::MAX),
    }
}

/// What a numeric parameter becomes when its value is missing or not a number.
fn fallback(key: &str) -> Used {
    match key {
        "movestogo" | "winc" | "binc" => Used::Default,
        _ => Used::Value(range_of(key).0),
    }
}

/// Whether `w` starts a parameter of `go` (it ends a `searchmoves` list).
fn is_keyword(w: &str) -> bool {
    NUMERIC.contains(&w) || matches!(w, "searchmoves" | "ponder" | "infinite")
}

/// Reads a numeric value: `Ok` with the number (clamped into range, with a problem when it
/// was not in it), or the problem with the fallback.
fn number(key: &'static str, value: Option<&str>) -> (Used, Option<GoProblem>) {
    let (lo, hi) = range_of(key);
    let Some(value) = value else {
        let used = fallback(key);
        return (used, Some(GoProblem::Missing { key, used }));
    };
    let digits = value.strip_prefix(['-', '+']).unwrap_or(value);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        let used = fallback(key);
        let problem = GoProblem::NotANumber {
            key,
            value: value.to_string(),
            used,
        };
        return (used, Some(problem));
    }
    // A number too long for u64 is beyond every range; a negative one below it.
    let n = if value.starts_with('-') {
        None
    } else {
        digits.parse::<u64>().ok()
    };
    match n {
        Some(n) if (lo..=hi).contains(&n) => (Used::Value(n), None),
        _ => {
            let used = if fallback(key) == Used::Default {
                Used::Default
            } else if value.starts_with('-') || n.is_some_and(|n| n < lo) {
                Used::Value(lo)
            } else {
                Used::Value(hi)
            };
            let problem = GoProblem::OutOfRange {
                key,
                value: value.to_string(),
                used,
            };
            (used, Some(problem))
        }
    }
}

/// The result of reading a `go` line: a search, or `go perft`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GoCommand {
    /// A search.
    Search(Go),
    /// `go perft N` (`None`: the depth was missing or out of range).
    Perft(Option<u32>),
}

/// Reads the words after `go`. Never fails: what cannot be used is in the problems.
pub fn parse_go(words: &[&str]) -> GoCommand {
    let mut go = Go::default();
    let mut i = 0;
    while i < words.len() {
        let word = words[i];
        let lower = word.to_ascii_lowercase();
        let numeric = NUMERIC.iter().copied().find(|k| *k == lower);
        i += 1;
        match (lower.as_str(), numeric) {
            ("infinite", _) => go.limits.infinite = true,
            ("ponder", _) => go.limits.ponder = true,
            ("searchmoves", _) => {
                while let Some(w) = words.get(i) {
                    if is_keyword(&w.to_ascii_lowercase()) {
                        break;
                    }
                    i += 1;
                    if UciMove::from_ascii(w.as_bytes()).is_ok() {
                        go.search_moves.push((*w).to_string());
                    } else {
                        go.problems.push(GoProblem::NotAMove((*w).to_string()));
                    }
                }
            }
            (_, Some(key)) => {
                // The value is the next word unless that is a parameter itself.
                let value = words
                    .get(i)
                    .copied()
                    .filter(|w| !is_keyword(&w.to_ascii_lowercase()));
                if value.is_some() {
                    i += 1;
                }
                let (used, problem) = number(key, value);
                if key == "perft" {
                    let depth = match (used, &problem) {
                        (Used::Value(n), None) => u32::try_from(n).ok(),
                        _ => None,
                    };
                    return GoCommand::Perft(depth);
                }
                go.problems.extend(problem);
                apply(&mut go.limits, key, used);
            }
            _ => go.problems.push(GoProblem::UnknownWord(word.to_string())),
        }
    }
    GoCommand::Search(go)
}

/// Sets one limit.
fn apply(limits: &mut SearchLimits, key: &str, used: Used) {
    let Used::Value(n) = used else {
        return;
    };
    let ms = Some(Duration::from_millis(n));
    let small = u32::try_from(n).unwrap_or(u32::MAX);
    match key {
        "wtime" => limits.white.0 = ms,
        "btime" => limits.black.0 = ms,
        "winc" => limits.white.1 = ms,
        "binc" => limits.black.1 = ms,
        "movetime" => limits.move_time = ms,
        "movestogo" => limits.moves_to_go = Some(small),
        "depth" => limits.depth = Some(small),
        "mate" => limits.mate = Some(small),
        "nodes" => limits.nodes = Some(n),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(line: &str) -> Go {
        let words: Vec<&str> = line.split_whitespace().collect();
        match parse_go(&words) {
            GoCommand::Search(go) => go,
            GoCommand::Perft(d) => panic!("perft {d:?} from {line}"),
        }
    }

    fn ms(n: u64) -> Option<Duration> {
        Some(Duration::from_millis(n))
    }

    #[test]
    fn well_formed_commands_have_no_problems() {
        let go = search("ponder wtime 1000 btime 2000 winc 10 binc 20 movestogo 5");
        assert!(go.problems.is_empty(), "{:?}", go.problems);
        assert!(go.limits.ponder);
        assert_eq!(go.limits.white, (ms(1000), ms(10)));
        assert_eq!(go.limits.black, (ms(2000), ms(20)));
        assert_eq!(go.limits.moves_to_go, Some(5));
        let go = search("infinite searchmoves e2e4 d2d4");
        assert!(go.limits.infinite && go.problems.is_empty());
        assert_eq!(go.search_moves, ["e2e4", "d2d4"]);
        let go = search("searchmoves e7e8q depth 3");
        assert_eq!(go.search_moves, ["e7e8q"]);
        assert_eq!(go.limits.depth, Some(3));
        let go = search("MoveTime 250 nodes 123456789012");
        assert_eq!(go.limits.move_time, ms(250));
        assert_eq!(go.limits.nodes, Some(123_456_789_012));
        assert_eq!(search("").limits, SearchLimits::default());
    }

    #[test]
    fn bad_values_are_named_and_replaced() {
        let go = search("depth -1");
        assert_eq!(go.limits.depth, Some(1));
        assert_eq!(go.problems.len(), 1);
        assert!(go.problems[0]
            .to_string()
            .contains("-1 is out of range (from 1 to"));
        let go = search("depth 99999999999999999999");
        assert_eq!(go.limits.depth, Some(MAX_DEPTH as u32));
        let go = search("depth");
        assert_eq!(go.limits.depth, Some(1));
        assert_eq!(go.problems[0].to_string(), "go depth needs a value: 1 used");
        let go = search("mate -3");
        assert_eq!(go.limits.mate, Some(1));
        let go = search("mate 1000");
        assert_eq!(go.limits.mate, Some(MAX_MATE as u32));
        let go = search("wtime abc btime 100");
        assert_eq!(go.limits.white.0, ms(0));
        assert_eq!(go.limits.black.0, ms(100));
        assert_eq!(
            go.problems[0].to_string(),
            "go wtime: 'abc' is not a number: 0 used"
        );
        let go = search("wtime -50 btime 100 movestogo 0 winc x");
        assert_eq!(go.limits.white, (ms(0), None));
        assert_eq!(go.limits.moves_to_go, None);
        assert_eq!(go.problems.len(), 3, "{:?}", go.problems);
        let go = search("wtime 100 movestogo many");
        assert_eq!(go.limits.moves_to_go, None);
        // A parameter followed by another: the first has no value.
        let go = search("depth movetime 100");
        assert_eq!(go.limits.depth, Some(1));
        assert_eq!(go.limits.move_time, ms(100));
        let go = search("depth 5 sideways");
        assert_eq!(go.limits.depth, Some(5));
        assert_eq!(go.problems, [GoProblem::UnknownWord("sideways".into())]);
    }

    #[test]
    fn searchmoves_are_read_word_by_word() {
        let go = search("depth 3 searchmoves zz e1e2 a1a9 a1a5");
        assert_eq!(go.search_moves, ["e1e2", "a1a5"]);
        assert_eq!(
            go.problems,
            [
                GoProblem::NotAMove("zz".into()),
                GoProblem::NotAMove("a1a9".into())
            ]
        );
        assert_eq!(go.limits.depth, Some(3));
    }

    #[test]
    fn go_perft_is_perft() {
        assert_eq!(parse_go(&["perft", "3"]), GoCommand::Perft(Some(3)));
        assert_eq!(parse_go(&["perft"]), GoCommand::Perft(None));
        assert_eq!(parse_go(&["perft", "0"]), GoCommand::Perft(None));
        assert_eq!(parse_go(&["perft", "x"]), GoCommand::Perft(None));
    }
}
