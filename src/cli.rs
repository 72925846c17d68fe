//! The command lines of `retro`: probe (one output line per FEN, never stopping at a bad one),
//! legal, revmoves, proofkernel, and the helpers of play, random-position and replay.

use std::io::{BufRead, Write};

use shakmaty::{fen::Fen, CastlingMode, Chess, Position};

use crate::tablebase::Tablebase;

/// Parses a FEN into a legal position.
///
/// # Errors
/// A message saying whether the FEN is malformed or the position illegal.
pub fn parse_fen(fen: &str) -> Result<Chess, String> {
    let parsed: Fen = fen
        .trim()
        .parse()
        .map_err(|e| format!("malformed FEN: {e}"))?;
    parsed
        .into_position(CastlingMode::Standard)
        // shakmaty's message already reads "illegal position: ...".
        .map_err(|e| e.to_string())
}

/// The output line for one FEN: `FEN<TAB>win|draw|loss<TAB>plies` or `FEN<TAB>error<TAB>reason`.
pub fn probe_line(tb: &Tablebase, fen: &str) -> String {
    let fen = fen.trim();
    match parse_fen(fen).and_then(|pos| tb.probe(&pos).map_err(|e| e.to_string())) {
        Ok(v) => format!("{fen}\t{}\t{}", v.wdl(), v.plies()),
        Err(e) => format!("{fen}\terror\t{e}"),
    }
}

/// Probes the FENs given, or each non-empty line of `input` when none are given, writing one
/// line each to `out`.
///
/// # Errors
/// Only I/O errors on `input` or `out`.
pub fn run_probe(
    tb: &Tablebase,
    fens: &[String],
    input: impl BufRead,
    mut out: impl Write,
) -> std::io::Result<()> {
    if fens.is_empty() {
        for line in input.lines() {
            let line = line?;
            if line.trim().is_empty() {
                continue;
            }
            writeln!(out, "{}", probe_line(tb, &line))?;
            out.flush()?;
        }
    } else {
        for fen in fens {
            writeln!(out, "{}", probe_line(tb, fen))?;
        }
    }
    out.flush()
}

/// The output line of `retro legal` for one FEN: `FEN<TAB>legal|illegal|unknown<TAB>reason`, or
/// `FEN<TAB>error<TAB>message` for a malformed FEN.
pub fn legal_line(fen: &str, limits: crate::legality::Limits) -> String {
    let fen = fen.trim();
    match crate::legality::analyze_fen(fen, limits) {
        Ok(v) => format!("{fen}\t{}\t{}", v.status, v.reason),
        Err(e) => format!("{fen}\terror\t{e}"),
    }
}

/// `retro legal`: analyses the FENs given, or each non-empty line of `input`, in parallel
/// batches, writing the lines in input order. `seconds` limits each position's analysis.
///
/// # Errors
/// Only I/O errors on `input` or `out`.
pub fn run_legal(
    fens: &[String],
    max_nodes: u64,
    seconds: Option<f64>,
    input: impl BufRead,
    mut out: impl Write,
) -> std::io::Result<()> {
    use rayon::prelude::*;
    let analyse = |batch: &[String]| -> Vec<String> {
        batch
            .par_iter()
            .map(|fen| {
                let deadline = seconds.map(|s| {
                    std::time::Instant::now() + std::time::Duration::from_secs_f64(s.max(0.0))
                });
                legal_line(
                    fen,
                    crate::legality::Limits {
                        max_nodes,
                        deadline,
                    },
                )
            })
            .collect()
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
                for l in analyse(&batch) {
                    writeln!(out, "{l}")?;
                }
                out.flush()?;
                batch.clear();
            }
            if end {
                break;
            }
        }
    } else {
        for l in analyse(fens) {
            writeln!(out, "{l}")?;
        }
    }
    out.flush()
}

/// `retro revmoves`: the candidate last moves of a position, one a line, with their undo
/// information and the position before each.
///
/// # Errors
/// A malformed FEN.
pub fn revmoves_lines(fen: &str) -> Result<Vec<String>, crate::legality::FenError> {
    let p = crate::legality::RawPosition::from_fen(fen)?;
    Ok(crate::legality::revmoves::generate(&p)
        .iter()
        .map(|m| format!("{m}\t{}", m.prior.fen()))
        .collect())
}

/// `retro proofkernel`: a proof kernel from `init` (the starting position when `None`) to
/// `goal` as one line of kernel moves, or a statement that none exists.
///
/// # Errors
/// A malformed FEN, or the budget ran out (as a message).
pub fn proofkernel_line(
    init: Option<&str>,
    goal: &str,
    max_nodes: u64,
    seconds: Option<f64>,
) -> Result<String, String> {
    use crate::legality::{kernel, RawPosition, Stop};
    let init = match init {
        Some(f) => RawPosition::from_fen(f).map_err(|e| e.to_string())?,
        None => RawPosition::start(),
    };
    let goal = RawPosition::from_fen(goal).map_err(|e| e.to_string())?;
    let deadline =
        seconds.map(|s| std::time::Instant::now() + std::time::Duration::from_secs_f64(s.max(0.0)));
    let line = |moves: &[kernel::KernelMove]| {
        if moves.is_empty() {
            "(no captures needed)".to_string()
        } else {
            moves
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        }
    };
    let stopped = |e: Stop| match e {
        Stop::Nodes => "node limit reached before the search ended".to_string(),
        Stop::Time => "time limit reached before the search ended".to_string(),
    };
    let kernel = match kernel::search_limited(&init, &goal, max_nodes, deadline).map_err(stopped)? {
        kernel::KernelResult::Found(moves) => moves,
        kernel::KernelResult::None => {
            return Ok(
                "no proof kernel: the goal cannot be reached from the initial position".to_string(),
            )
        }
    };
    let plain = format!("proof kernel: {}", line(&kernel));
    // The extended search starts from the kernel found, with a node budget of its own.
    let extended = match kernel::extend_limited(&init, &goal, &kernel, max_nodes, deadline) {
        Ok(kernel::KernelResult::Found(moves)) => {
            format!("extended proof kernel: {}", line(&moves))
        }
        Ok(kernel::KernelResult::None) => {
            "no extended proof kernel: no kernel fits the ranks of the pawns".to_string()
        }
        Err(e) => format!("extended proof kernel: unknown, {}", stopped(e)),
    };
    Ok(format!("{plain}\n{extended}"))
}

/// A seed from the clock, for random positions and moves when the user gives none.
pub fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// `retro random-position`: `count` FENs of random legal positions of `material`.
///
/// # Errors
/// A malformed material, or one that cannot be placed.
pub fn random_fens(material: &str, count: usize, seed: u64) -> Result<Vec<String>, String> {
    let m: crate::tablebase::Material = material.parse().map_err(|e| format!("{e}"))?;
    let positions =
        crate::play::random::random_positions(m, count, seed).map_err(|e| e.to_string())?;
    Ok(positions
        .iter()
        .map(|p| Fen::from_position(p, shakmaty::EnPassantMode::Legal).to_string())
        .collect())
}

/// The start of `retro play`: the FEN given, a random position of the material given, or (with
/// `random`) a random position of a random material whose table is in `tb`, of `pieces` pieces
/// (3 or 4 when `None`), either side stronger.
///
/// # Errors
/// A malformed FEN or material, or no table of the requested size.
pub fn play_start(
    tb: &Tablebase,
    fen: Option<&str>,
    material: Option<&str>,
    random: bool,
    pieces: Option<u8>,
    seed: u64,
) -> Result<Chess, String> {
    use crate::play::random::random_position;
    let mut rng = fastrand::Rng::with_seed(seed);
    if let Some(f) = fen {
        return parse_fen(f);
    }
    if let Some(m) = material {
        let m: crate::tablebase::Material = m.parse().map_err(|e| format!("{e}"))?;
        return random_position(m, &mut rng).map_err(|e| e.to_string());
    }
    if !random {
        return Err("give --fen, --material or --random".to_string());
    }
    let sizes: Vec<usize> = match pieces {
        Some(n) => vec![usize::from(n)],
        None => vec![3, 4],
    };
    let materials: Vec<_> = tb
        .materials()
        .into_iter()
        .filter(|m| sizes.contains(&m.piece_count()))
        .collect();
    if materials.is_empty() {
        return Err(format!(
            "no tables of {} pieces in {} (build them with build-tables --out {})",
            sizes
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" or "),
            tb.dir().display(),
            tb.dir().display()
        ));
    }
    // A position where the game is not over by insufficient material (KBvK, KNvK).
    for _ in 0..1000 {
        let m = materials[rng.usize(..materials.len())];
        let m = if rng.bool() { m.swapped() } else { m };
        let pos = random_position(m, &mut rng).map_err(|e| e.to_string())?;
        if !pos.is_insufficient_material() {
            return Ok(pos);
        }
    }
    Err("no random position with mating material found".to_string())
}

/// The tags of a game of `retro play` naming its players.
pub fn play_tags(
    auto: bool,
    perfect: bool,
    side: Option<&str>,
    start: &Chess,
) -> Vec<(String, String)> {
    let human_white = match side {
        Some(s) => s == "white",
        None => start.turn().is_white(),
    };
    let retro = format!("Retro {}", env!("CARGO_PKG_VERSION"));
    let other = match (auto, perfect) {
        (false, _) => std::env::var("USER").unwrap_or_else(|_| "Human".to_string()),
        (true, false) => "Random mover".to_string(),
        (true, true) => format!("Retro {} tables", env!("CARGO_PKG_VERSION")),
    };
    let (white, black) = if human_white {
        (other, retro)
    } else {
        (retro, other)
    };
    vec![
        ("Event".to_string(), "Retro endgame practice".to_string()),
        ("Site".to_string(), "retro play".to_string()),
        ("Round".to_string(), "-".to_string()),
        ("White".to_string(), white),
        ("Black".to_string(), black),
    ]
}

/// Game `number` (from 1) of a PGN file.
///
/// # Errors
/// The file cannot be read, a PGN mistake (with its line), or fewer games than `number`.
pub fn read_game(path: &std::path::Path, number: u64) -> Result<crate::play::pgn::Game, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut games =
        crate::play::pgn::read(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let count = games.len();
    let index = number
        .checked_sub(1)
        .and_then(|i| usize::try_from(i).ok())
        .filter(|&i| i < count);
    let Some(index) = index else {
        return Err(format!(
            "{}: --game {number}, but the file holds {count} game{}",
            path.display(),
            if count == 1 { "" } else { "s" }
        ));
    };
    Ok(games.swap_remove(index))
}
