//! `retro play`: a game in the terminal between a person (or, with `--auto`, a stand-in) and
//! Retro, which answers from the tables like the engine does. The board is drawn after every
//! move; the game ends by the rules and is saved as PGN.

use std::{
    io::{BufRead, Write},
    path::{Path, PathBuf},
    time::{Duration, SystemTime},
};

use shakmaty::{san::SanPlus, Chess, Color, EnPassantMode, Move, Position};

use super::{
    board::{render, status, value_text, verdict},
    moves::parse_move,
    pgn::{self, Game},
};
use retro_engine::{
    hash_of,
    rule50::{self, Outcome},
    search::{SearchControl, SearchParams},
    think, HeuristicsPool, SearchLimits, TranspositionTable,
};
use retro_tables::{Tablebase, Wdl};

/// How a game is played.
#[derive(Debug, Clone)]
pub struct PlayOptions {
    /// The human's side.
    pub human: Color,
    /// ASCII pieces instead of Unicode.
    pub ascii: bool,
    /// No human: the human's side plays random moves, or table moves with `perfect`.
    pub auto: bool,
    /// With `auto`: the human's side plays the table's best moves.
    pub perfect: bool,
    /// Where the game is saved (`None`: not saved).
    pub games_dir: Option<PathBuf>,
    /// Search time per move where the tables do not decide the move.
    pub move_time: Duration,
    /// Seed of the random moves.
    pub seed: u64,
    /// Tags describing the game (Event, White, Black, ...) beyond those the game sets itself.
    pub tags: Vec<(String, String)>,
    /// Retro plays the tables under the 50-move rule (with the DTZ50 tables), else by pure
    /// DTM.
    pub rule50: bool,
    /// The 50-move rule does not end the game.
    pub play_on: bool,
    /// The search's evaluation.
    pub eval: retro_engine::eval::Evaluator,
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The side to move is checkmated.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side can mate.
    InsufficientMaterial,
    /// The same position for the third time.
    ThreefoldRepetition,
    /// 50 moves by each side without a capture or a pawn move.
    FiftyMoveRule,
    /// The human ended the game (`quit`, or the end of the input).
    Quit,
}

impl Ending {
    /// In words, as the PGN's last comment and the final message say it.
    pub fn text(self) -> &'static str {
        match self {
            Ending::Checkmate => "checkmate",
            Ending::Stalemate => "stalemate",
            Ending::InsufficientMaterial => "insufficient material",
            Ending::ThreefoldRepetition => "threefold repetition",
            Ending::FiftyMoveRule => "50-move rule",
            Ending::Quit => "game abandoned",
        }
    }
}

/// How a game went.
#[derive(Debug, Clone)]
pub struct Summary {
    /// The game record.
    pub game: Game,
    /// Why it ended.
    pub ending: Ending,
    /// Where it was saved, if it was.
    pub file: Option<PathBuf>,
}

/// The rules' verdict on the last position of a game, if it is over. `hashes` holds the
/// Zobrist keys of every position of the game so far, the last one included; `fifty`: the
/// 50-move rule ends a game (`retro play --play-on` turns it off).
pub fn ending(pos: &Chess, hashes: &[u64], fifty: bool) -> Option<Ending> {
    if pos.legal_moves().is_empty() {
        return Some(if pos.is_check() {
            Ending::Checkmate
        } else {
            Ending::Stalemate
        });
    }
    if pos.is_insufficient_material() {
        return Some(Ending::InsufficientMaterial);
    }
    if let Some(&last) = hashes.last() {
        if hashes.iter().filter(|&&h| h == last).count() >= 3 {
            return Some(Ending::ThreefoldRepetition);
        }
    }
    if fifty && pos.halfmoves() >= 100 {
        return Some(Ending::FiftyMoveRule);
    }
    None
}

/// The game in progress.
struct State {
    positions: Vec<Chess>,
    moves: Vec<Move>,
    comments: Vec<Option<String>>,
    hashes: Vec<u64>,
}

impl State {
    fn pos(&self) -> &Chess {
        // `positions` always holds the start.
        &self.positions[self.positions.len() - 1]
    }

    fn push(&mut self, m: Move, comment: String) {
        let mut next = self.pos().clone();
        next.play_unchecked(m);
        self.hashes.push(hash_of(&next));
        self.positions.push(next);
        self.moves.push(m);
        self.comments.push(Some(comment));
    }

    fn pop(&mut self) {
        if self.moves.pop().is_some() {
            self.positions.pop();
            self.hashes.pop();
            self.comments.pop();
        }
    }
}

/// Plays one game from `start`, reading the human's lines from `input` and writing the boards
/// and messages to `out`.
///
/// # Errors
/// Only I/O errors on `input` and `out` (a game that cannot be saved is printed instead).
pub fn play(
    tb: &Tablebase,
    start: Chess,
    opts: &PlayOptions,
    mut input: impl BufRead,
    out: &mut impl Write,
) -> std::io::Result<Summary> {
    let tt = TranspositionTable::new(16).map_err(std::io::Error::other)?;
    let mut rng = fastrand::Rng::with_seed(opts.seed);
    let mut st = State {
        hashes: vec![hash_of(&start)],
        positions: vec![start.clone()],
        moves: Vec::new(),
        comments: Vec::new(),
    };
    let ending = loop {
        let pos = st.pos().clone();
        writeln!(out)?;
        write!(
            out,
            "{}",
            render(&pos, st.moves.last(), opts.human, opts.ascii)
        )?;
        writeln!(out, "{}", status(tb, &pos))?;
        if let Some(e) = ending(&pos, &st.hashes, !opts.play_on) {
            break e;
        }
        let humans_turn = pos.turn() == opts.human;
        let m = if humans_turn && !opts.auto {
            match ask(tb, &pos, &mut st, opts, &tt, &mut rng, &mut input, out)? {
                Some(Some(m)) => m,
                // The board changed (undo): draw it again.
                Some(None) => continue,
                None => break Ending::Quit,
            }
        } else if humans_turn && !opts.perfect {
            random_move(&pos, &mut rng)
        } else {
            let (m, how) = if humans_turn {
                table_or_search(tb, &st, opts, &tt, false)
            } else {
                table_or_search(tb, &st, opts, &tt, true)
            };
            let who = if humans_turn { "Table" } else { "Retro" };
            write!(
                out,
                "{who} plays {} {how}",
                SanPlus::from_move(pos.clone(), m)
            )?;
            m
        };
        let after = {
            let mut p = pos.clone();
            p.play_unchecked(m);
            p
        };
        let comment = verdict(tb, &after);
        if !humans_turn || opts.auto {
            writeln!(out, "; now {comment}.")?;
        }
        st.push(m, comment);
    };
    let last = st.pos().clone();
    let result = match ending {
        Ending::Checkmate => match last.turn() {
            Color::White => "0-1",
            Color::Black => "1-0",
        },
        Ending::Quit => "*",
        _ => "1/2-1/2",
    };
    let mut game = Game::new(start);
    game.tags = opts.tags.clone();
    game.set_tag("Date", pgn::date(SystemTime::now()));
    game.set_tag("Result", result);
    game.set_tag("SetUp", "1");
    game.set_tag(
        "FEN",
        shakmaty::fen::Fen::from_position(&game.start, EnPassantMode::Legal).to_string(),
    );
    game.set_tag(
        "Termination",
        if ending == Ending::Quit {
            "abandoned"
        } else {
            "normal"
        },
    );
    game.first_comment = Some(format!("Table: {}", verdict(tb, &game.start)));
    game.moves = st.moves.clone();
    game.comments = st.comments.clone();
    append_ending(&mut game, ending);
    game.result = result.to_string();
    writeln!(out, "Game over: {}. Result {result}.", ending.text())?;
    let file = match &opts.games_dir {
        Some(dir) => match save(dir, &game) {
            Ok(path) => {
                writeln!(out, "Saved to {}", path.display())?;
                Some(path)
            }
            Err(e) => {
                // Nothing is lost: the game goes to the output instead.
                writeln!(
                    out,
                    "Could not save the game into {}: {e}. Here it is:\n\n{}",
                    dir.display(),
                    pgn::write(&game)
                )?;
                None
            }
        },
        None => None,
    };
    out.flush()?;
    Ok(Summary { game, ending, file })
}

/// Adds the ending to the comment after the last move (or before the first when there is none).
fn append_ending(game: &mut Game, ending: Ending) {
    let slot = match game.comments.last_mut() {
        Some(c) => c,
        None => &mut game.first_comment,
    };
    let text = ending.text();
    *slot = Some(match slot.take() {
        Some(c) => format!("{c}; {text}"),
        None => text.to_string(),
    });
}

/// A uniformly drawn legal move (the position has one).
fn random_move(pos: &Chess, rng: &mut fastrand::Rng) -> Move {
    let legal = pos.legal_moves();
    legal[rng.usize(..legal.len())]
}

/// The move Retro plays: the table's best when the position is won or lost; among drawing moves,
/// or outside the tables, the search's choice. With `search_draws` false (the stand-in with
/// `--perfect`), a drawn table position plays the first drawing move without searching. Returns
/// the move and how it was chosen, in words.
fn table_or_search(
    tb: &Tablebase,
    st: &State,
    opts: &PlayOptions,
    tt: &TranspositionTable,
    search_draws: bool,
) -> (Move, String) {
    let pos = st.pos();
    let ranked = if opts.rule50 {
        rule50::rank_moves(tb, pos).ok()
    } else {
        None
    };
    if let Some(best) = ranked.as_ref().and_then(|r| r.first()) {
        if best.outcome != Outcome::Draw || best.dtm.wdl() != Wdl::Draw || !search_draws {
            let rule = if best.outcome == Outcome::Draw && best.dtm.wdl() != Wdl::Draw {
                ", a draw under the 50-move rule"
            } else {
                ""
            };
            let text = value_text(best.dtm, pos.turn());
            return (best.mv, format!("(table: {text}{rule})"));
        }
    } else if let Ok(ranked) = tb.rank_moves(pos) {
        if let Some(&(m, v)) = ranked.first() {
            if v.wdl() != Wdl::Draw || !search_draws {
                return (m, format!("(table: {})", value_text(v, pos.turn())));
            }
        }
    }
    let params = SearchParams {
        pos: pos.clone(),
        history: st.hashes[..st.hashes.len() - 1].to_vec(),
        limits: SearchLimits {
            move_time: Some(opts.move_time),
            ..SearchLimits::default()
        },
        rule50: opts.rule50,
        eval: opts.eval.clone(),
        ..SearchParams::default()
    };
    let control = SearchControl::new(false);
    let r = think(
        &params,
        tt,
        &HeuristicsPool::new(),
        Some(tb),
        &control,
        &|_| {},
    );
    let m = r.best.unwrap_or_else(|| pos.legal_moves()[0]);
    (m, format!("(search, depth {})", r.depth))
}

/// Asks the human for a move until one is legal. `Some(Some(m))`: play `m`; `Some(None)`: the
/// game was changed by `undo`; `None`: quit (or the input ended).
#[allow(clippy::too_many_arguments)]
fn ask(
    tb: &Tablebase,
    pos: &Chess,
    st: &mut State,
    opts: &PlayOptions,
    tt: &TranspositionTable,
    rng: &mut fastrand::Rng,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> std::io::Result<Option<Option<Move>>> {
    loop {
        write!(
            out,
            "Your move (SAN or UCI; Enter: a random move; hint, undo, quit): "
        )?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            writeln!(out)?;
            return Ok(None);
        }
        let cmd = line.trim();
        match cmd {
            "quit" | "exit" => return Ok(None),
            "" => {
                let m = random_move(pos, rng);
                writeln!(out, "Random move: {}", SanPlus::from_move(pos.clone(), m))?;
                return Ok(Some(Some(m)));
            }
            "hint" => {
                let (m, how) = table_or_search(tb, st, opts, tt, true);
                writeln!(out, "Hint: {} {how}", SanPlus::from_move(pos.clone(), m))?;
            }
            "undo" => {
                // Take back the human's last move and Retro's answer to it.
                let Some(i) = (0..st.moves.len())
                    .rev()
                    .find(|&i| st.positions[i].turn() == opts.human)
                else {
                    writeln!(out, "Nothing to undo.")?;
                    continue;
                };
                let n = st.moves.len() - i;
                while st.moves.len() > i {
                    st.pop();
                }
                let s = if n == 1 { "" } else { "s" };
                writeln!(out, "Took back {n} move{s}.")?;
                return Ok(Some(None));
            }
            text => match parse_move(pos, text) {
                Ok(m) => return Ok(Some(Some(m))),
                Err(e) => writeln!(out, "{e}")?,
            },
        }
    }
}

/// Writes the game into `dir` (created if needed) as `retro-STAMP-MATERIAL.pgn`, atomically
/// (a temporary file renamed), never over an existing file.
///
/// # Errors
/// When the directory or the file cannot be written.
pub fn save(dir: &Path, game: &Game) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let material = retro_tables::Material::of_board(game.start.board());
    let stamp = pgn::stamp(SystemTime::now());
    let text = pgn::write(game);
    for n in 0..1000 {
        let name = if n == 0 {
            format!("retro-{stamp}-{material}.pgn")
        } else {
            format!("retro-{stamp}-{material}-{n}.pgn")
        };
        let path = dir.join(name);
        if path.exists() {
            continue;
        }
        let tmp = dir.join(format!(".{}.tmp", std::process::id()));
        std::fs::write(&tmp, &text)?;
        // A hard link fails if the name was taken meanwhile, so no game is overwritten.
        match std::fs::hard_link(&tmp, &path) {
            Ok(()) => {
                std::fs::remove_file(&tmp)?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                std::fs::remove_file(&tmp)?;
            }
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                return Err(e);
            }
        }
    }
    Err(std::io::Error::other(format!(
        "{}: too many games with the same name",
        dir.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Chess {
        retro_engine::fen::parse_fen(fen).expect("a legal FEN")
    }

    #[test]
    fn the_rules_end_the_game() {
        let end = |fen: &str| {
            let p = pos(fen);
            ending(&p, &[hash_of(&p)], true)
        };
        assert_eq!(
            end("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"),
            Some(Ending::Stalemate)
        );
        assert_eq!(
            end("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"),
            Some(Ending::Checkmate)
        );
        assert_eq!(
            end("7k/8/6K1/8/8/8/8/6B1 b - - 0 1"),
            Some(Ending::InsufficientMaterial)
        );
        assert_eq!(end("7k/8/6K1/8/8/8/8/6R1 b - - 99 80"), None);
        assert_eq!(
            end("7k/8/6K1/8/8/8/8/6R1 b - - 100 80"),
            Some(Ending::FiftyMoveRule)
        );
        // Mate on the move that reaches 100 plies counts as mate.
        assert_eq!(
            end("R6k/8/6K1/8/8/8/8/8 b - - 100 80"),
            Some(Ending::Checkmate)
        );
    }

    #[test]
    fn the_third_repetition_ends_the_game() {
        let start = pos("7k/8/6K1/8/8/8/8/R7 w - - 0 1");
        let mut st = State {
            hashes: vec![hash_of(&start)],
            positions: vec![start.clone()],
            moves: Vec::new(),
            comments: Vec::new(),
        };
        let shuffle = ["a1a2", "h8g8", "a2a1", "g8h8"];
        for round in 0..2 {
            for (i, u) in shuffle.iter().enumerate() {
                let m = crate::play::moves::parse_move(st.pos(), u).expect("legal");
                st.push(m, String::new());
                let third = round == 1 && i == 3;
                assert_eq!(
                    ending(st.pos(), &st.hashes, true),
                    third.then_some(Ending::ThreefoldRepetition),
                    "round {round} move {u}"
                );
            }
        }
    }
}
