//! The board in the terminal (Unicode pieces or ASCII letters, coordinates, the last move
//! marked) and the table's verdict in words.

use shakmaty::{Chess, Color, File, Move, Position, Rank, Role, Square};

use retro_engine::{
    mate_moves,
    rule50::{self, Outcome},
};
use retro_tables::{Dtz, Tablebase, Value, Wdl};

fn glyph(color: Color, role: Role, ascii: bool) -> char {
    if ascii {
        return match color {
            Color::White => role.upper_char(),
            Color::Black => role.char(),
        };
    }
    match (color, role) {
        (Color::White, Role::King) => '♔',
        (Color::White, Role::Queen) => '♕',
        (Color::White, Role::Rook) => '♖',
        (Color::White, Role::Bishop) => '♗',
        (Color::White, Role::Knight) => '♘',
        (Color::White, Role::Pawn) => '♙',
        (Color::Black, Role::King) => '♚',
        (Color::Black, Role::Queen) => '♛',
        (Color::Black, Role::Rook) => '♜',
        (Color::Black, Role::Bishop) => '♝',
        (Color::Black, Role::Knight) => '♞',
        (Color::Black, Role::Pawn) => '♟',
    }
}

/// The squares a move marks: where the piece came from and where it went (the king's and the
/// rook's squares for castling, as shakmaty's castling moves give the rook's square).
fn marked(m: Option<&Move>) -> Vec<Square> {
    match m {
        Some(m) => m.from().into_iter().chain([m.to()]).collect(),
        None => Vec::new(),
    }
}

/// The board seen from `bottom`'s side, with file letters and rank numbers around it. The two
/// squares of the last move are shown in brackets, `[♔]`.
pub fn render(pos: &Chess, last: Option<&Move>, bottom: Color, ascii: bool) -> String {
    let marks = marked(last);
    let files: Vec<File> = match bottom {
        Color::White => File::ALL.to_vec(),
        Color::Black => File::ALL.iter().rev().copied().collect(),
    };
    let ranks: Vec<Rank> = match bottom {
        Color::White => Rank::ALL.iter().rev().copied().collect(),
        Color::Black => Rank::ALL.to_vec(),
    };
    let letters: String = files
        .iter()
        .map(|f| format!(" {} ", f.char()))
        .collect::<Vec<_>>()
        .concat();
    let mut out = format!("   {letters}\n");
    for rank in ranks {
        out.push_str(&format!(" {} ", rank.char()));
        for &file in &files {
            let sq = Square::from_coords(file, rank);
            let c = match pos.board().piece_at(sq) {
                Some(p) => glyph(p.color, p.role, ascii),
                None if ascii => '.',
                None => '·',
            };
            if marks.contains(&sq) {
                out.push_str(&format!("[{c}]"));
            } else {
                out.push_str(&format!(" {c} "));
            }
        }
        out.push_str(&format!(" {}\n", rank.char()));
    }
    out.push_str(&format!("   {letters}\n"));
    out
}

fn name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// A table value in words, for the side to move `turn`: "White mates in 6 (11 plies)",
/// "White is mated in 6 (12 plies)", "draw", "White is checkmated".
pub fn value_text(v: Value, turn: Color) -> String {
    let moves = mate_moves(v).map_or(0, i32::unsigned_abs);
    let plies = match v.plies() {
        1 => "1 ply".to_string(),
        n => format!("{n} plies"),
    };
    match v.wdl() {
        Wdl::Draw => "draw".to_string(),
        Wdl::Loss if v.plies() == 0 => format!("{} is checkmated", name(turn)),
        Wdl::Win => format!("{} mates in {moves} ({plies})", name(turn)),
        Wdl::Loss => format!("{} is mated in {moves} ({plies})", name(turn)),
    }
}

/// The table's verdict on a position in words, or why there is none; with its DTZ50 table,
/// also what the 50-move rule makes of it with the position's halfmove clock, where the rule
/// changes the result (a cursed win, a blessed loss, a win the clock spoils).
pub fn verdict(tb: &Tablebase, pos: &Chess) -> String {
    match tb.probe(pos) {
        Ok(v) => match tb.probe_dtz(pos) {
            Ok(d) if d.0 != 0 && rule50::outcome(d, pos.halfmoves()) == Outcome::Draw => {
                format!(
                    "{}; {}",
                    value_text(v, pos.turn()),
                    rule_text(d, pos.halfmoves())
                )
            }
            _ => value_text(v, pos.turn()),
        },
        Err(e) => format!("not in the tables ({e})"),
    }
}

/// The table's verdict with the class under the 50-move rule and the DTZ always added (when
/// the DTZ50 table is there): the `d` command's.
pub fn full_verdict(tb: &Tablebase, pos: &Chess) -> String {
    match (tb.probe(pos), tb.probe_dtz(pos)) {
        (Ok(v), Ok(d)) if d.0 != 0 => {
            format!(
                "{}; {}",
                value_text(v, pos.turn()),
                rule_text(d, pos.halfmoves())
            )
        }
        _ => verdict(tb, pos),
    }
}

/// A won or lost position's verdict under the 50-move rule, from its DTZ and clock, in words.
fn rule_text(dtz: Dtz, clock: u32) -> String {
    let class = dtz.wdl50();
    match rule50::outcome(dtz, clock) {
        Outcome::Draw if dtz.plies() > 100 => {
            format!("{class} (DTZ {dtz}): a draw under the 50-move rule")
        }
        Outcome::Draw => {
            format!("DTZ {dtz}, a draw under the 50-move rule with the halfmove clock at {clock}")
        }
        _ => format!("{class} under the 50-move rule, DTZ {dtz}"),
    }
}

/// The status line under the board: side to move and the table's verdict.
pub fn status(tb: &Tablebase, pos: &Chess) -> String {
    format!("{} to move. Table: {}.", name(pos.turn()), verdict(tb, pos))
}

#[cfg(test)]
mod tests {
    use shakmaty::{fen::Fen, uci::UciMove, CastlingMode};

    use super::*;

    #[test]
    fn draws_the_board_with_the_last_move_in_brackets() {
        let mut pos: Chess = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"
            .parse::<Fen>()
            .expect("fen")
            .into_position(CastlingMode::Standard)
            .expect("legal");
        let m = "a1a7"
            .parse::<UciMove>()
            .expect("uci")
            .to_move(&pos)
            .expect("legal");
        pos.play_unchecked(m);
        let ascii = render(&pos, Some(&m), Color::White, true);
        let lines: Vec<&str> = ascii.lines().collect();
        assert_eq!(lines[0], "    a  b  c  d  e  f  g  h ");
        assert_eq!(lines[1], " 8  .  .  .  .  k  .  .  .  8");
        assert_eq!(lines[2], " 7 [R] .  .  .  .  .  .  .  7");
        assert_eq!(lines[8], " 1 [.] .  .  .  K  .  .  .  1");
        let unicode = render(&pos, Some(&m), Color::Black, false);
        let lines: Vec<&str> = unicode.lines().collect();
        assert_eq!(lines[0], "    h  g  f  e  d  c  b  a ");
        assert_eq!(lines[1], " 1  ·  ·  ·  ♔  ·  ·  · [·] 1");
        assert_eq!(lines[7], " 7  ·  ·  ·  ·  ·  ·  · [♖] 7");
    }

    #[test]
    fn values_in_words() {
        let win = Value::win(11).expect("value");
        let loss = Value::loss(12).expect("value");
        assert_eq!(value_text(win, Color::White), "White mates in 6 (11 plies)");
        assert_eq!(
            value_text(loss, Color::Black),
            "Black is mated in 6 (12 plies)"
        );
        assert_eq!(
            value_text(Value::MATED, Color::Black),
            "Black is checkmated"
        );
        let one = Value::win(1).expect("value");
        assert_eq!(value_text(one, Color::Black), "Black mates in 1 (1 ply)");
        assert_eq!(value_text(Value::DRAW, Color::White), "draw");
    }
}
