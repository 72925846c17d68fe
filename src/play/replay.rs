//! `retro replay`: steps through a PGN game (Enter for the next move, `b` for back, `q` to
//! stop), drawing the board with the table's verdict at every position, and reports each move
//! that changed the verdict for the side that played it (a win or a draw thrown away).

use std::io::{BufRead, Write};

use shakmaty::{san::SanPlus, Chess, Color, Position};

use super::{
    board::{render, status},
    pgn::Game,
};
use retro_tables::{Tablebase, Wdl};

/// A move that changed the table's verdict for the side that played it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Index of the move in the game (0 for the first).
    pub index: usize,
    /// The move in PGN style with its number (`12... Kd5`).
    pub numbered: String,
    /// Who played it.
    pub mover: Color,
    /// The mover's verdict before the move.
    pub before: Wdl,
    /// The mover's verdict after it.
    pub after: Wdl,
}

impl Change {
    /// What the move did, in words: "White throws away the win: now a draw".
    pub fn what(&self) -> String {
        let what = match (self.before, self.after) {
            (Wdl::Win, Wdl::Draw) => "throws away the win: now a draw",
            (Wdl::Win, Wdl::Loss) => "throws away the win: now lost",
            (Wdl::Draw, Wdl::Loss) => "throws away the draw: now lost",
            _ => "changes the verdict",
        };
        let who = if self.mover.is_white() {
            "White"
        } else {
            "Black"
        };
        format!("{who} {what}")
    }
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}?? {}", self.numbered, self.what())
    }
}

fn flip(w: Wdl) -> Wdl {
    match w {
        Wdl::Win => Wdl::Loss,
        Wdl::Loss => Wdl::Win,
        Wdl::Draw => Wdl::Draw,
    }
}

/// The move `m` of position `pos` with its move number (`12. Kd5` or `12... Kd5`).
fn numbered(pos: &Chess, m: &shakmaty::Move) -> String {
    let n = pos.fullmoves().get();
    let san = SanPlus::from_move(pos.clone(), *m);
    if pos.turn().is_white() {
        format!("{n}. {san}")
    } else {
        format!("{n}... {san}")
    }
}

/// The moves of `game` that changed the table's verdict for their player. Positions the tables
/// do not cover are skipped.
pub fn verdict_changes(tb: &Tablebase, game: &Game) -> Vec<Change> {
    let positions = game.positions();
    let values: Vec<Option<Wdl>> = positions
        .iter()
        .map(|p| tb.probe(p).ok().map(|v| v.wdl()))
        .collect();
    let mut out = Vec::new();
    for (i, m) in game.moves.iter().enumerate() {
        let (Some(before), Some(after)) = (values[i], values[i + 1]) else {
            continue;
        };
        let after = flip(after);
        if after != before {
            out.push(Change {
                index: i,
                numbered: numbered(&positions[i], m),
                mover: positions[i].turn(),
                before,
                after,
            });
        }
    }
    out
}

/// Shows `game` position by position; `step` waits for a line of `input` between positions
/// (empty: next, `b`: back, `q`: stop), otherwise every position is shown in turn. Ends with the
/// list of verdict changes, which it returns.
///
/// # Errors
/// I/O errors on `input` or `out`.
pub fn replay(
    tb: &Tablebase,
    game: &Game,
    ascii: bool,
    step: bool,
    mut input: impl BufRead,
    out: &mut impl Write,
) -> std::io::Result<Vec<Change>> {
    let positions = game.positions();
    let changes = verdict_changes(tb, game);
    let white = game.tag("White").unwrap_or("?");
    let black = game.tag("Black").unwrap_or("?");
    writeln!(
        out,
        "{white} - {black}, {} moves, result {}",
        game.moves.len(),
        game.result
    )?;
    let mut i = 0;
    loop {
        writeln!(out)?;
        if i > 0 {
            let m = &game.moves[i - 1];
            write!(out, "Move {}", numbered(&positions[i - 1], m))?;
            if let Some(c) = changes.iter().find(|c| c.index == i - 1) {
                write!(out, "?? {}", c.what())?;
            }
            if let Some(Some(comment)) = game.comments.get(i - 1) {
                write!(out, "  {{{comment}}}")?;
            }
            writeln!(out)?;
        } else {
            writeln!(out, "Start position")?;
        }
        write!(
            out,
            "{}",
            render(
                &positions[i],
                i.checked_sub(1).and_then(|j| game.moves.get(j)),
                Color::White,
                ascii
            )
        )?;
        writeln!(out, "{}", status(tb, &positions[i]))?;
        let at_end = i + 1 == positions.len();
        if at_end {
            writeln!(out, "End of the game: {}.", game.result)?;
        }
        if !step {
            if at_end {
                break;
            }
            i += 1;
            continue;
        }
        write!(out, "[Enter] next, b back, q quit: ")?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            writeln!(out)?;
            break;
        }
        match line.trim() {
            "q" | "quit" => break,
            "b" | "back" => i = i.saturating_sub(1),
            "" if at_end => break,
            "" => i += 1,
            other => writeln!(
                out,
                "`{other}`: press Enter for the next move, b for back, q to quit"
            )?,
        }
    }
    writeln!(out)?;
    if changes.is_empty() {
        writeln!(out, "No move changed the table's verdict.")?;
    } else {
        writeln!(out, "Moves that changed the table's verdict:")?;
        for c in &changes {
            writeln!(out, "  {c}")?;
        }
    }
    out.flush()?;
    Ok(changes)
}
