//! `retro legal`, `retro count-legal`, `retro proofgame`, `retro revmoves` and
//! `retro proofkernel`: the legality analysis from the command line, each command's arguments
//! beside the code that runs it.

use std::{
    io::{BufRead, Write},
    path::PathBuf,
    time::{Duration, Instant},
};

use rayon::prelude::*;

use super::{node_limit, print_lines, time_limit, CliError, LEGAL_NODES, PROOF_GAME_NODES};
use crate::play::pgn;
use retro_legality::{
    kernel, proofgame, FenError, KernelMove, KernelResult, Kind, Limits, ProofGame, RawPosition,
    Stop,
};

/// The arguments of `retro legal`.
#[derive(Debug, clap::Args)]
pub struct LegalArgs {
    /// Positions analysed at most per FEN by the last-move analysis, and positions
    /// expanded at most by the proof game search [default: 100000, or no limit with --time]
    #[arg(long)]
    pub max_nodes: Option<u64>,
    /// Seconds at most per FEN.
    #[arg(long)]
    pub time: Option<f64>,
    /// Also write each proof game found to this file as a PGN game (the goal FEN in its
    /// `Goal` tag).
    #[arg(long)]
    pub pgn: Option<PathBuf>,
    /// Positions; when none are given, one FEN per line is read from standard input.
    pub fens: Vec<String>,
}

impl LegalArgs {
    /// Decides each position ([`run_legal`]) from the command line or standard input, one line
    /// each on standard output, the proof games also into `--pgn`.
    ///
    /// # Errors
    /// A bad `--time`, a `--pgn` file that cannot be created, or failed I/O.
    pub fn run(self) -> Result<(), CliError> {
        let LegalArgs {
            max_nodes,
            time,
            pgn,
            fens,
        } = self;
        let stdin = std::io::stdin();
        let stdout = std::io::stdout();

        let time = time_limit(time)?;
        let max_nodes = node_limit(max_nodes, time, LEGAL_NODES);
        let mut pgn_file = match &pgn {
            Some(path) => Some(std::io::BufWriter::new(
                std::fs::File::create(path).map_err(|source| CliError::Create {
                    path: path.clone(),
                    source,
                })?,
            )),
            None => None,
        };
        run_legal(
            &fens,
            max_nodes,
            time,
            stdin.lock(),
            stdout.lock(),
            pgn_file.as_mut().map(|f| f as &mut dyn std::io::Write),
        )?;
        Ok(())
    }
}

/// The arguments of `retro count-legal`.
#[derive(Debug, clap::Args)]
pub struct CountLegalArgs {
    /// Per position: nodes at most for the last-move analysis and as many for the proof
    /// game search [default: 100000, or no limit with --time]
    #[arg(long)]
    pub max_nodes: Option<u64>,
    /// Seconds at most per position.
    #[arg(long)]
    pub time: Option<f64>,
    /// Also write each position's verdict to this file as it is decided:
    /// INDEX<TAB>MULT<TAB>SECONDS<TAB> and the line `retro legal` prints.
    // The comment is the option's help, where `<TAB>` is text, not HTML.
    #[allow(rustdoc::invalid_html_tags)]
    #[arg(long)]
    pub verdicts: Option<PathBuf>,
    /// The verdicts file of an earlier run on the same sample: the positions it decided
    /// keep their verdicts (a legal one only when its proof game replays) and only the
    /// others are analysed, to go on where a run left positions unknown.
    #[arg(long)]
    pub known: Option<PathBuf>,
    /// The sample file.
    pub file: PathBuf,
}

impl CountLegalArgs {
    /// Decides the sample ([`count_legal`]) and prints the estimate and the time taken.
    ///
    /// # Errors
    /// A bad `--time`, a sample or verdicts file that cannot be read or written, or failed
    /// output.
    pub fn run(self) -> Result<(), CliError> {
        let CountLegalArgs {
            max_nodes,
            time,
            verdicts,
            known,
            file,
        } = self;
        let time = time_limit(time)?;
        let max_nodes = node_limit(max_nodes, time, LEGAL_NODES);
        let (estimate, took) = count_legal(
            &file,
            max_nodes,
            time,
            verdicts.as_deref(),
            known.as_deref(),
        )?;
        let text = format!("{estimate}\ntime: {:.1} s", took.as_secs_f64());
        print_lines(&[text], std::io::stdout().lock())
    }
}

/// The arguments of `retro proofgame`.
#[derive(Debug, clap::Args)]
pub struct ProofgameArgs {
    /// Positions expanded at most, all restarts together [default: 1000000, or no limit
    /// with --time]
    #[arg(long)]
    pub max_nodes: Option<u64>,
    /// Seconds at most.
    #[arg(long)]
    pub time: Option<f64>,
    /// The goal position.
    pub fen: String,
}

impl ProofgameArgs {
    /// Searches the proof game and prints its line ([`proofgame_line`]).
    ///
    /// # Errors
    /// A bad `--time`, a malformed FEN, or failed output.
    pub fn run(self) -> Result<(), CliError> {
        let time = time_limit(self.time)?;
        let max_nodes = node_limit(self.max_nodes, time, PROOF_GAME_NODES);
        let line = proofgame_line(&self.fen, max_nodes, time)?;
        print_lines(&[line], std::io::stdout().lock())
    }
}

/// The arguments of `retro revmoves`.
#[derive(Debug, clap::Args)]
pub struct RevmovesArgs {
    /// The position.
    pub fen: String,
}

impl RevmovesArgs {
    /// Prints the candidate last moves ([`revmoves_lines`]), or that there is none.
    ///
    /// # Errors
    /// A malformed FEN, or failed output.
    pub fn run(self) -> Result<(), CliError> {
        let mut lines = revmoves_lines(&self.fen)?;
        if lines.is_empty() {
            lines.push("no possible last move".to_string());
        }
        print_lines(&lines, std::io::stdout().lock())
    }
}

/// The arguments of `retro proofkernel`.
#[derive(Debug, clap::Args)]
pub struct ProofkernelArgs {
    /// The initial position (default: the starting position).
    #[arg(long)]
    pub init: Option<String>,
    /// Search nodes at most.
    #[arg(long, default_value_t = 1_000_000)]
    pub max_nodes: u64,
    /// Seconds at most.
    #[arg(long)]
    pub time: Option<f64>,
    /// The goal position.
    pub fen: String,
}

impl ProofkernelArgs {
    /// Searches the proof kernel and the extended one, and prints them
    /// ([`proofkernel_line`]).
    ///
    /// # Errors
    /// A bad `--time`, a malformed FEN, a search out of its budget, or failed output.
    pub fn run(self) -> Result<(), CliError> {
        let time = time_limit(self.time)?;
        let text = proofkernel_line(self.init.as_deref(), &self.fen, self.max_nodes, time)?;
        print_lines(&[text], std::io::stdout().lock())
    }
}

/// Why `retro proofkernel` gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum ProofKernelError {
    /// A FEN that cannot be read.
    #[error(transparent)]
    Fen(#[from] FenError),
    /// The search ran out of its budget.
    #[error("{}", stopped(*.0))]
    Stopped(Stop),
}

/// What a budget that ran out says.
fn stopped(s: Stop) -> &'static str {
    match s {
        Stop::Nodes => "node limit reached before the search ended",
        Stop::Time => "time limit reached before the search ended",
    }
}

/// The limits of one analysis that starts now: `max_nodes` for the last-move analysis and as
/// many for the proof game search, and `time` from now.
fn limits_from_now(max_nodes: u64, time: Option<Duration>) -> Limits {
    Limits {
        max_nodes,
        deadline: time.map(|t| Instant::now() + t),
        proof_nodes: max_nodes,
        cancel: None,
    }
}

/// The output line of `retro legal` for one FEN: `FEN<TAB>legal<TAB>proof game: N
/// plies<TAB>MOVES` (UCI moves), `FEN<TAB>illegal|unknown<TAB>reason`, or
/// `FEN<TAB>error<TAB>message` for a malformed FEN.
pub fn legal_line(fen: &str, limits: Limits) -> String {
    analyse(fen, limits).line
}

/// One position's analysis, as the legality commands report it.
struct Analysed {
    /// The line of [`legal_line`].
    line: String,
    /// The verdict (unknown for a malformed FEN).
    status: retro_legality::Status,
    /// The proof game of a position proven legal by one (not of the starting position).
    game: Option<ProofGame>,
}

/// [`legal_line`], with the verdict and the proof game.
fn analyse(fen: &str, limits: Limits) -> Analysed {
    let fen = fen.trim();
    match retro_legality::analyze_fen(fen, limits) {
        Ok(v) => match v.proof.filter(|g| g.plies() > 0) {
            Some(game) => Analysed {
                line: proven_line(fen, &game),
                status: v.status,
                game: Some(game),
            },
            None => Analysed {
                line: format!("{fen}\t{}\t{}", v.status, v.reason),
                status: v.status,
                game: None,
            },
        },
        Err(e) => Analysed {
            line: format!("{fen}\terror\t{e}"),
            status: retro_legality::Status::Unknown,
            game: None,
        },
    }
}

/// `FEN<TAB>legal<TAB>proof game: N plies<TAB>MOVES`.
fn proven_line(fen: &str, game: &ProofGame) -> String {
    format!("{fen}\tlegal\t{}\t{}", game.summary(), game.uci().join(" "))
}

/// A proof game as a PGN game from the starting position, the goal FEN in a `Goal` tag.
pub fn proof_pgn(goal: &str, game: &ProofGame) -> String {
    let mut g = pgn::Game::new(shakmaty::Chess::default());
    g.set_tag("Event", "Retro proof game");
    g.set_tag("Site", "-");
    g.set_tag("Date", pgn::date(std::time::SystemTime::now()));
    g.set_tag("Round", "-");
    g.set_tag("White", "-");
    g.set_tag("Black", "-");
    g.set_tag("Goal", goal);
    g.set_tag("PlyCount", game.plies().to_string());
    g.moves = game.moves.clone();
    g.comments = vec![None; game.moves.len()];
    pgn::write(&g)
}

/// `retro legal`: analyses the FENs given, or each non-empty line of `input`, in parallel
/// batches, writing the lines in input order, and the proof games to `pgn_out` when given.
/// `time` limits each position's analysis.
///
/// # Errors
/// Only I/O errors on `input`, `out` or `pgn_out`.
pub fn run_legal(
    fens: &[String],
    max_nodes: u64,
    time: Option<Duration>,
    input: impl BufRead,
    mut out: impl Write,
    mut pgn_out: Option<&mut dyn Write>,
) -> std::io::Result<()> {
    let want_pgn = pgn_out.is_some();
    let analyse_batch = |batch: &[String]| -> Vec<(String, Option<String>)> {
        batch
            .par_iter()
            .map(|fen| {
                let a = analyse(fen, limits_from_now(max_nodes, time));
                let pgn = a
                    .game
                    .filter(|_| want_pgn)
                    .map(|g| proof_pgn(fen.trim(), &g));
                (a.line, pgn)
            })
            .collect()
    };
    let mut emit =
        |results: Vec<(String, Option<String>)>, out: &mut dyn Write| -> std::io::Result<()> {
            for (line, game) in results {
                writeln!(out, "{line}")?;
                if let (Some(p), Some(g)) = (pgn_out.as_deref_mut(), game) {
                    writeln!(p, "{g}")?;
                    p.flush()?;
                }
            }
            out.flush()
        };
    if fens.is_empty() {
        let mut batch = Vec::new();
        let mut lines = input.lines();
        loop {
            let line = lines.next().transpose()?;
            let end = line.is_none();
            if let Some(l) = line {
                if !l.trim().is_empty() {
                    batch.push(l);
                }
            }
            if batch.len() >= 256 || (end && !batch.is_empty()) {
                emit(analyse_batch(&batch), &mut out)?;
                batch.clear();
            }
            if end {
                break;
            }
        }
    } else {
        emit(analyse_batch(fens), &mut out)?;
    }
    out.flush()
}

/// `retro proofgame`: the static rules, then a proof game search for one position, with a
/// progress line on standard error when that is a terminal (a pipe or a log file gets none).
/// Prints the line of [`legal_line`]'s format.
///
/// # Errors
/// A malformed FEN.
pub fn proofgame_line(
    fen: &str,
    max_nodes: u64,
    time: Option<Duration>,
) -> Result<String, FenError> {
    let fen = fen.trim();
    let goal = RawPosition::from_fen(fen)?;
    if let Some(rule) = retro_legality::rules::check(&goal) {
        return Ok(format!("{fen}\tillegal\t{rule}"));
    }
    let limits = limits_from_now(max_nodes, time);
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut progress = |p: &proofgame::Progress| {
        if !tty {
            return;
        }
        let how = match (p.guided, p.assumed) {
            (true, false) => "along the initial path",
            (false, false) => "straight to the goal",
            (true, true) => "along the initial path, before an assumed last move",
            (false, true) => "straight, before an assumed last move",
        };
        eprint!(
            "\rproof game search: run {} ({how}), {} nodes expanded, this run's limit {}   ",
            p.run, p.nodes, p.run_limit
        );
    };
    let found = proofgame::find(&goal, limits, &mut progress);
    if tty {
        eprintln!();
    }
    Ok(match found {
        Ok(Some(game)) => proven_line(fen, &game),
        Ok(None) => format!("{fen}\tunknown\tno proof game found within {max_nodes} nodes"),
        Err(e) => format!("{fen}\tunknown\t{}", stopped(e)),
    })
}

/// `retro revmoves`: the candidate last moves of a position, one a line, with their undo
/// information and the position before each.
///
/// # Errors
/// A malformed FEN.
pub fn revmoves_lines(fen: &str) -> Result<Vec<String>, FenError> {
    let p = RawPosition::from_fen(fen)?;
    Ok(retro_legality::revmoves::generate(&p)
        .iter()
        .map(|m| format!("{m}\t{}", m.prior.fen()))
        .collect())
}

/// The kernel moves as one line.
fn kernel_text(moves: &[KernelMove]) -> String {
    if moves.is_empty() {
        "(no captures needed)".to_string()
    } else {
        moves
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// `retro proofkernel`: a proof kernel from `init` (the starting position when `None`) to
/// `goal` as one line of kernel moves, or a statement that none exists; then the extended
/// proof kernel.
///
/// # Errors
/// A malformed FEN, or the budget ran out before a kernel was found.
pub fn proofkernel_line(
    init: Option<&str>,
    goal: &str,
    max_nodes: u64,
    time: Option<Duration>,
) -> Result<String, ProofKernelError> {
    let init = match init {
        Some(f) => RawPosition::from_fen(f)?,
        None => RawPosition::start(),
    };
    let goal = RawPosition::from_fen(goal)?;
    let limits = limits_from_now(max_nodes, time);
    let kernel = match kernel::search(&init, &goal, Kind::Plain, &mut limits.counter())
        .map_err(ProofKernelError::Stopped)?
    {
        KernelResult::Found(moves) => moves,
        KernelResult::None => {
            return Ok(
                "no proof kernel: the goal cannot be reached from the initial position".to_string(),
            )
        }
    };
    let plain = format!("proof kernel: {}", kernel_text(&kernel));
    // The extended search starts from the kernel found, with a node budget of its own.
    let extended = kernel::search(
        &init,
        &goal,
        Kind::ExtendedFrom(&kernel),
        &mut limits.counter(),
    );
    let extended = match extended {
        Ok(KernelResult::Found(moves)) => {
            format!("extended proof kernel: {}", kernel_text(&moves))
        }
        Ok(KernelResult::None) => {
            "no extended proof kernel: no kernel fits the ranks of the pawns".to_string()
        }
        Err(e) => format!("extended proof kernel: unknown, {}", stopped(e)),
    };
    Ok(format!("{plain}\n{extended}"))
}

/// Why `retro count-legal` could not run.
#[derive(Debug, thiserror::Error)]
pub enum CountError {
    /// The sample file cannot be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// Why not.
        source: std::io::Error,
    },
    /// The sample file is malformed.
    #[error("{}: {source}", path.display())]
    Sample {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        source: retro_legality::count::SampleError,
    },
    /// A line of the earlier verdicts (`--known`) is malformed.
    #[error("{}:{line}: {message}", path.display())]
    Known {
        /// The file.
        path: std::path::PathBuf,
        /// The line, from 1.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The verdicts file cannot be created.
    #[error("{}: {source}", path.display())]
    Write {
        /// The file.
        path: std::path::PathBuf,
        /// Why not.
        source: std::io::Error,
    },
}

/// A verdict of an earlier run (`--known`): the line of `retro legal` with its seconds.
struct Known {
    fen: String,
    status: retro_legality::Status,
    /// The moves of a legal verdict's proof game.
    moves: Vec<String>,
    /// `SECONDS<TAB>` and the line, as the earlier run wrote them.
    written: String,
}

/// The verdicts of an earlier run's `--verdicts` file, by index (from 1); unknown ones and
/// errors are left out (they are analysed again).
///
/// # Errors
/// The file cannot be read, or a line is not `INDEX<TAB>MULT<TAB>SECONDS<TAB>FEN<TAB>VERDICT...`.
fn read_known(
    path: &std::path::Path,
) -> Result<std::collections::HashMap<usize, Known>, CountError> {
    let text = std::fs::read_to_string(path).map_err(|source| CountError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut known = std::collections::HashMap::new();
    for (n, line) in text.lines().enumerate() {
        let bad = |message: &str| CountError::Known {
            path: path.to_path_buf(),
            line: n + 1,
            message: message.to_string(),
        };
        let cols: Vec<&str> = line.split('\t').collect();
        let [index, _mult, seconds, fen, verdict, rest @ ..] = cols.as_slice() else {
            return Err(bad(
                "expected INDEX<TAB>MULT<TAB>SECONDS<TAB>FEN<TAB>VERDICT<TAB>REASON",
            ));
        };
        let index: usize = index
            .parse()
            .map_err(|_| bad(&format!("index {index:?} is not a number")))?;
        seconds
            .parse::<f64>()
            .map_err(|_| bad(&format!("seconds {seconds:?} is not a number")))?;
        let status = match *verdict {
            "legal" => retro_legality::Status::Legal,
            "illegal" => retro_legality::Status::Illegal,
            "unknown" | "error" => continue,
            other => {
                return Err(bad(&format!(
                    "verdict {other:?} is not legal, illegal or unknown"
                )))
            }
        };
        // A legal verdict without moves (the starting position) replays as the empty game.
        let moves = match (status, rest) {
            (retro_legality::Status::Legal, [_, moves, ..]) => {
                moves.split_whitespace().map(str::to_string).collect()
            }
            _ => Vec::new(),
        };
        let written = cols.get(2..).map(|c| c.join("\t")).unwrap_or_default();
        known.insert(
            index,
            Known {
                fen: (*fen).to_string(),
                status,
                moves,
                written,
            },
        );
    }
    Ok(known)
}

/// The earlier verdict of sample position `fen` where it stands: a legal one only when its
/// proof game replays to the position, an illegal one as it was proven.
fn taken(known: Option<&Known>, fen: &str) -> Option<(retro_legality::Status, String)> {
    let k = known.filter(|k| k.fen == fen)?;
    if k.status == retro_legality::Status::Legal {
        let goal = RawPosition::from_fen(fen).ok()?;
        if let Err(e) = retro_legality::replay::check_uci(&goal, &k.moves) {
            log::warn!("an earlier proof game of {fen} does not replay ({e}): analysed again");
            return None;
        }
    }
    Some((k.status, k.written.clone()))
}

/// `retro count-legal`: decides every position of a sample file (`fen` and `mult` columns) in
/// parallel, with a progress bar on standard error, and returns the estimate of the number of
/// legal chess positions with the time taken. Malformed FENs count as unknown. With
/// `verdicts`, each position's verdict is written there as it is decided (in the order they
/// end): `INDEX<TAB>MULT<TAB>SECONDS<TAB>` and the line of `retro legal` (index from 1 in the
/// sample's rows). With `known`, the verdicts file of an earlier run on the same sample: the
/// positions it decided keep their verdicts (a legal one only when its proof game replays),
/// written again as they were, and only the others are analysed.
///
/// # Errors
/// The sample file or the earlier verdicts cannot be read or are malformed, or the verdicts
/// file cannot be created (a line that cannot be written later is logged, and the estimate
/// still returned).
pub fn count_legal(
    path: &std::path::Path,
    max_nodes: u64,
    time: Option<Duration>,
    verdicts: Option<&std::path::Path>,
    known: Option<&std::path::Path>,
) -> Result<(retro_legality::count::Estimate, Duration), CountError> {
    let known = match known {
        Some(k) => read_known(k)?,
        None => std::collections::HashMap::new(),
    };
    let text = std::fs::read_to_string(path).map_err(|source| CountError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let sample =
        retro_legality::count::parse_sample(&text).map_err(|source| CountError::Sample {
            path: path.to_path_buf(),
            source,
        })?;
    let started = Instant::now();
    let bar = indicatif::ProgressBar::new(sample.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} positions decided, {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let out = match verdicts {
        Some(p) => Some(std::sync::Mutex::new(std::io::BufWriter::new(
            std::fs::File::create(p).map_err(|source| CountError::Write {
                path: p.to_path_buf(),
                source,
            })?,
        ))),
        None => None,
    };
    let legal_so_far = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<(u64, retro_legality::Status, std::io::Result<()>)> = sample
        .par_iter()
        .enumerate()
        .map(|(i, s)| {
            let began = Instant::now();
            let (status, line) = match taken(known.get(&(i + 1)), &s.fen) {
                Some(earlier) => earlier,
                None => {
                    let Analysed { line, status, .. } =
                        analyse(&s.fen, limits_from_now(max_nodes, time));
                    (
                        status,
                        format!("{:.2}\t{line}", began.elapsed().as_secs_f64()),
                    )
                }
            };
            let written = match &out {
                Some(out) => match out.lock() {
                    Ok(mut w) => {
                        writeln!(w, "{}\t{}\t{line}", i + 1, s.mult).and_then(|()| w.flush())
                    }
                    Err(_) => Err(std::io::Error::other("a writer thread panicked")),
                },
                None => Ok(()),
            };
            if status == retro_legality::Status::Legal {
                legal_so_far.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            bar.set_message(format!(
                "{} legal",
                legal_so_far.load(std::sync::atomic::Ordering::Relaxed)
            ));
            bar.inc(1);
            (s.mult, status, written)
        })
        .collect();
    bar.finish_and_clear();
    // A verdict that could not be written loses no more than that line: the estimate stands.
    let mut decided = Vec::with_capacity(results.len());
    let mut unwritten = 0usize;
    for (mult, status, written) in results {
        if let Err(e) = written {
            if unwritten == 0 {
                log::error!("{}: {e}", verdicts.unwrap_or(path).display());
            }
            unwritten += 1;
        }
        decided.push((mult, status));
    }
    if unwritten > 0 {
        log::error!("{unwritten} verdicts could not be written");
    }
    Ok((
        retro_legality::count::Estimate::new(&decided),
        started.elapsed(),
    ))
}
