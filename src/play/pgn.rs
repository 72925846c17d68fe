//! PGN: writing the games of `retro play`, and reading games written by any tool (several
//! games a file, comments, variations, annotations) with errors that name their line.
//!
//! The reader is Retro's own rather than a crate's: the `pgn-reader` crate skips what it cannot
//! parse without saying where, and a user replaying a file needs the line of the mistake.

use std::fmt::Write as _;

use shakmaty::{
    fen::Fen,
    san::{San, SanError, SanPlus},
    CastlingMode, Chess, EnPassantMode, Move, Position,
};

/// A game: its tags, its start position, its moves, and a comment after each move.
#[derive(Debug, Clone)]
pub struct Game {
    /// Tag pairs in file order (the writer puts the seven-tag roster first).
    pub tags: Vec<(String, String)>,
    /// The position before the first move (from the FEN tag, or the standard start).
    pub start: Chess,
    /// The moves of the main line.
    pub moves: Vec<Move>,
    /// The comment after each move (same length as `moves`).
    pub comments: Vec<Option<String>>,
    /// A comment before the first move.
    pub first_comment: Option<String>,
    /// The result: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
}

impl Game {
    /// A game without moves from `start`.
    pub fn new(start: Chess) -> Game {
        Game {
            tags: Vec::new(),
            start,
            moves: Vec::new(),
            comments: Vec::new(),
            first_comment: None,
            result: "*".to_string(),
        }
    }

    /// The value of a tag.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets a tag, replacing an earlier value.
    pub fn set_tag(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        match self.tags.iter_mut().find(|(k, _)| k == name) {
            Some(t) => t.1 = value,
            None => self.tags.push((name.to_string(), value)),
        }
    }

    /// The positions of the game: the start and the one after each move.
    pub fn positions(&self) -> Vec<Chess> {
        let mut out = Vec::with_capacity(self.moves.len() + 1);
        let mut pos = self.start.clone();
        out.push(pos.clone());
        for m in &self.moves {
            pos.play_unchecked(*m);
            out.push(pos.clone());
        }
        out
    }
}

/// The seven tags every PGN game starts with, in their order.
const ROSTER: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// A comment made safe for braces (PGN comments cannot contain `}`).
fn comment_text(s: &str) -> String {
    s.replace('}', ")").replace('{', "(")
}

/// The game as PGN text: the seven-tag roster (`?` where missing), the other tags, and the
/// movetext in SAN with move numbers and comments, wrapped below 80 columns.
pub fn write(game: &Game) -> String {
    let mut out = String::new();
    for name in ROSTER {
        let value = if name == "Result" {
            game.result.as_str()
        } else {
            game.tag(name).unwrap_or("?")
        };
        let _ = writeln!(out, "[{name} \"{}\"]", escape(value));
    }
    for (k, v) in &game.tags {
        if !ROSTER.contains(&k.as_str()) {
            let _ = writeln!(out, "[{k} \"{}\"]", escape(v));
        }
    }
    out.push('\n');
    let mut tokens: Vec<String> = Vec::new();
    if let Some(c) = &game.first_comment {
        tokens.push(format!("{{{}}}", comment_text(c)));
    }
    let mut pos = game.start.clone();
    // Wider than the FEN's move number, which may be u32::MAX already.
    let mut number = u64::from(pos.fullmoves().get());
    for (i, m) in game.moves.iter().enumerate() {
        let white = pos.turn().is_white();
        if white {
            tokens.push(format!("{number}."));
        } else if i == 0 || game.comments.get(i - 1).is_some_and(Option::is_some) {
            tokens.push(format!("{number}..."));
        }
        tokens.push(SanPlus::from_move_and_play_unchecked(&mut pos, *m).to_string());
        if let Some(Some(c)) = game.comments.get(i) {
            tokens.push(format!("{{{}}}", comment_text(c)));
        }
        if !white {
            number += 1;
        }
    }
    tokens.push(game.result.clone());
    let mut line = String::new();
    for t in tokens {
        if !line.is_empty() && line.len() + 1 + t.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&t);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

/// A mistake in a PGN text, with its line (counted from 1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct PgnError {
    /// The line of the mistake.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

fn err<T>(line: usize, message: impl Into<String>) -> Result<T, PgnError> {
    Err(PgnError {
        line,
        message: message.into(),
    })
}

/// The lexical pieces of PGN.
#[derive(Debug, PartialEq)]
enum Token {
    Tag(String, String),
    Comment(String),
    Open,
    Close,
    Nag,
    Result(String),
    Word(String),
}

/// Splits PGN text into tokens with their lines.
fn tokenize(text: &str) -> Result<Vec<(usize, Token)>, PgnError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    let mut line_start = true;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            line_start = true;
            i += 1;
            continue;
        }
        if line_start && c == '%' {
            // An escaped line.
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        line_start = false;
        if c.is_whitespace() || c == '\u{feff}' {
            i += 1;
            continue;
        }
        match c {
            ';' => {
                let start = i + 1;
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                out.push((line, Token::Comment(chars[start..i].iter().collect())));
            }
            '{' => {
                let first = line;
                let start = i + 1;
                i += 1;
                while i < chars.len() && chars[i] != '}' {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
                if i == chars.len() {
                    return err(first, "comment `{` is never closed with `}`");
                }
                let text: String = chars[start..i].iter().collect();
                out.push((first, Token::Comment(text.trim().to_string())));
                i += 1;
            }
            '[' => {
                let (tag, next) = tag_pair(&chars, i, line)?;
                out.push((line, tag));
                i = next;
            }
            '(' => {
                out.push((line, Token::Open));
                i += 1;
            }
            ')' => {
                out.push((line, Token::Close));
                i += 1;
            }
            '$' => {
                i += 1;
                let start = i;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
                if i == start {
                    return err(line, "`$` without a number");
                }
                out.push((line, Token::Nag));
            }
            _ => {
                let start = i;
                while i < chars.len()
                    && !chars[i].is_whitespace()
                    && !matches!(
                        chars[i],
                        '{' | '}' | '(' | ')' | '[' | ']' | ';' | '$' | '"'
                    )
                {
                    i += 1;
                }
                if i == start {
                    return err(line, format!("unexpected `{c}`"));
                }
                let word: String = chars[start..i].iter().collect();
                if matches!(word.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
                    out.push((line, Token::Result(word)));
                } else {
                    out.push((line, Token::Word(word)));
                }
            }
        }
    }
    Ok(out)
}

/// Reads `[Name "value"]` at `chars[i]`; returns the tag and the index after it.
fn tag_pair(chars: &[char], mut i: usize, line: usize) -> Result<(Token, usize), PgnError> {
    let bad = |what: &str| err(line, format!("malformed tag: {what}"));
    i += 1;
    while i < chars.len() && chars[i] == ' ' {
        i += 1;
    }
    let start = i;
    while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
        i += 1;
    }
    if i == start {
        return bad("no tag name after `[`");
    }
    let name: String = chars[start..i].iter().collect();
    while i < chars.len() && chars[i] == ' ' {
        i += 1;
    }
    if i >= chars.len() || chars[i] != '"' {
        return bad(&format!("the value of {name} must be in double quotes"));
    }
    i += 1;
    let mut value = String::new();
    loop {
        match chars.get(i) {
            None | Some('\n') => return bad(&format!("the value of {name} is never closed")),
            Some('\\') if matches!(chars.get(i + 1), Some('"' | '\\')) => {
                value.push(chars[i + 1]);
                i += 2;
            }
            Some('"') => {
                i += 1;
                break;
            }
            Some(&c) => {
                value.push(c);
                i += 1;
            }
        }
    }
    while i < chars.len() && chars[i] == ' ' {
        i += 1;
    }
    if chars.get(i) != Some(&']') {
        return bad(&format!("{name} is not closed with `]`"));
    }
    Ok((Token::Tag(name, value), i + 1))
}

/// A game being read.
struct Reading {
    game: Game,
    pos: Chess,
    depth: usize,
    /// The line of the outermost open variation.
    open_line: usize,
    started: bool,
}

impl Reading {
    fn new() -> Reading {
        Reading {
            game: Game::new(Chess::default()),
            pos: Chess::default(),
            depth: 0,
            open_line: 0,
            started: false,
        }
    }

    /// Sets the start position from the tags, once the first movetext token comes.
    fn begin_movetext(&mut self, line: usize) -> Result<(), PgnError> {
        if self.started {
            return Ok(());
        }
        self.started = true;
        if let Some(fen) = self.game.tag("FEN") {
            let pos = fen
                .parse::<Fen>()
                .map_err(|e| e.to_string())
                .and_then(|f| {
                    f.into_position::<Chess>(CastlingMode::Standard)
                        .map_err(|e| e.to_string())
                })
                .or_else(|e| err(line, format!("FEN tag `{fen}`: {e}")))?;
            self.game.start = pos.clone();
            self.pos = pos;
        }
        Ok(())
    }
}

/// Reads every game of a PGN text. Variations are skipped; comments are kept on the main line.
///
/// # Errors
/// The first mistake, with its line: a malformed tag, comment or token, an unbalanced
/// parenthesis, a bad FEN tag, or a move that is illegal or ambiguous where it is played.
pub fn read(text: &str) -> Result<Vec<Game>, PgnError> {
    let mut games = Vec::new();
    let mut cur = Reading::new();
    let mut has_content = false;
    let mut last_line = 1;
    for (line, token) in tokenize(text)? {
        last_line = line;
        match token {
            Token::Tag(name, value) => {
                if cur.started {
                    // A new game whose predecessor had no result.
                    if cur.depth > 0 {
                        return err(cur.open_line, "a variation `(` is never closed");
                    }
                    games.push(std::mem::replace(&mut cur, Reading::new()).game);
                }
                has_content = true;
                cur.game.tags.push((name, value));
            }
            _ if cur.depth > 0 => match token {
                Token::Open => cur.depth += 1,
                Token::Close => cur.depth -= 1,
                Token::Result(_) => {
                    return err(line, "the game ends inside a variation `(`");
                }
                _ => {}
            },
            Token::Open => {
                cur.begin_movetext(line)?;
                if cur.game.moves.is_empty() {
                    return err(line, "a variation `(` before any move");
                }
                cur.depth = 1;
                cur.open_line = line;
            }
            Token::Close => return err(line, "`)` without a variation to close"),
            Token::Nag => cur.begin_movetext(line)?,
            Token::Comment(c) => {
                cur.begin_movetext(line)?;
                has_content = true;
                match cur.game.comments.last_mut() {
                    Some(slot) => append(slot, c),
                    None => append(&mut cur.game.first_comment, c),
                }
            }
            Token::Result(r) => {
                cur.begin_movetext(line)?;
                cur.game.result = r;
                games.push(std::mem::replace(&mut cur, Reading::new()).game);
                has_content = false;
            }
            Token::Word(w) => {
                cur.begin_movetext(line)?;
                has_content = true;
                play_word(&mut cur, &w, line)?;
            }
        }
    }
    if cur.depth > 0 {
        return err(cur.open_line, "a variation `(` is never closed");
    }
    if has_content {
        // A game of tags alone (or cut short before its moves) still starts where its FEN
        // tag says.
        cur.begin_movetext(last_line)?;
        games.push(cur.game);
    }
    Ok(games)
}

fn append(slot: &mut Option<String>, c: String) {
    match slot {
        Some(s) => {
            s.push(' ');
            s.push_str(&c);
        }
        None => *slot = Some(c),
    }
}

/// A movetext word: a move number (skipped) or a move in SAN, possibly with `!`/`?` suffixes.
fn play_word(cur: &mut Reading, word: &str, line: usize) -> Result<(), PgnError> {
    // Move numbers: "12." "12..." or glued to the move ("12.e4").
    let rest = word.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = if rest.len() < word.len() && rest.starts_with('.') {
        rest.trim_start_matches('.')
    } else if rest.len() < word.len() && rest.is_empty() {
        return err(
            line,
            format!("`{word}` is neither a move nor a move number"),
        );
    } else {
        word
    };
    if rest.is_empty() {
        return Ok(());
    }
    let san_text = rest.trim_end_matches(['!', '?']);
    let san_text = match san_text {
        "0-0" => "O-O",
        "0-0-0" => "O-O-O",
        s => s,
    };
    if san_text == "--" || san_text == "Z0" {
        return err(line, "null moves are not supported");
    }
    let fen = || Fen::from_position(&cur.pos, EnPassantMode::Legal).to_string();
    let san: SanPlus = san_text
        .parse()
        .or_else(|_| err(line, format!("`{rest}` is not a move in SAN")))?;
    let m = san.san.to_move(&cur.pos).or_else(|e| {
        let why = match e {
            SanError::IllegalSan => "illegal",
            SanError::AmbiguousSan => "ambiguous",
        };
        err(line, format!("move `{rest}` is {why} in {}", fen()))
    })?;
    if matches!(san.san, San::Null) {
        return err(line, "null moves are not supported");
    }
    cur.pos.play_unchecked(m);
    cur.game.moves.push(m);
    cur.game.comments.push(None);
    Ok(())
}

/// The PGN date (`YYYY.MM.DD`, UTC) of a moment.
pub fn date(t: std::time::SystemTime) -> String {
    let (y, m, d, _) = civil(t);
    format!("{y:04}.{m:02}.{d:02}")
}

/// A file-name stamp (`YYYYMMDD-HHMMSS`, UTC) of a moment.
pub fn stamp(t: std::time::SystemTime) -> String {
    let (y, m, d, secs) = civil(t);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// Year, month, day and second of the day (UTC) of a moment after 1970.
fn civil(t: std::time::SystemTime) -> (i64, u32, u32, u64) {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    // Days since 0000-03-01 in the proleptic Gregorian calendar, counted in 400-year eras.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day, secs % 86_400)
}

/// Why a game could not be taken from a PGN file.
#[derive(Debug, thiserror::Error)]
pub enum GameFileError {
    /// The file cannot be read.
    #[error("{path}: {source}", path = .path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not valid PGN.
    #[error("{path}: {source}", path = .path.display())]
    Pgn {
        /// The file.
        path: std::path::PathBuf,
        /// The first mistake.
        source: PgnError,
    },
    /// The file holds fewer games than asked for.
    #[error(
        "{path}: --game {number}, but the file holds {count} game{s}",
        path = .path.display(),
        s = if *.count == 1 { "" } else { "s" }
    )]
    NoSuchGame {
        /// The file.
        path: std::path::PathBuf,
        /// The game asked for, from 1.
        number: u64,
        /// The games in the file.
        count: usize,
    },
}

/// Game `number` (from 1) of a PGN file.
///
/// # Errors
/// The file cannot be read, a PGN mistake (with its line), or fewer games than `number`.
pub fn read_game(path: &std::path::Path, number: u64) -> Result<Game, GameFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| GameFileError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut games = read(&text).map_err(|source| GameFileError::Pgn {
        path: path.to_path_buf(),
        source,
    })?;
    let count = games.len();
    let index = number
        .checked_sub(1)
        .and_then(|i| usize::try_from(i).ok())
        .filter(|&i| i < count);
    let Some(index) = index else {
        return Err(GameFileError::NoSuchGame {
            path: path.to_path_buf(),
            number,
            count,
        });
    };
    Ok(games.swap_remove(index))
}

#[cfg(test)]
mod tests {
    use shakmaty::uci::UciMove;

    use super::*;

    fn pos(fen: &str) -> Chess {
        retro_engine::fen::parse_fen(fen).expect("a legal FEN")
    }

    /// Move numbers go on past the largest a FEN holds (found by the `pgn` fuzz target: the
    /// number overflowed).
    #[test]
    fn move_numbers_go_on_past_u32() {
        let start = pos("4k3/8/8/8/8/8/8/4K2R w - - 0 4294967295");
        let mut game = Game::new(start.clone());
        game.moves = play(&start, &["h1h2", "e8e7", "h2h3"]);
        game.comments = vec![None; 3];
        let text = write(&game);
        assert!(
            text.contains("4294967295. Rh2 Ke7 4294967296. Rh3"),
            "{text}"
        );
    }

    /// A game of tags alone starts at its FEN tag, and a bad FEN tag there is refused (found
    /// by the `pgn` fuzz target: such a game kept the standard start beside its FEN tag, so
    /// that it read back as another game, or not at all).
    #[test]
    fn a_game_without_movetext_starts_at_its_fen() {
        let games =
            read("[Event \"A\"]\n[FEN \"8/8/8/4k3/8/8/8/R3K3 w - - 0 1\"]\n\n% 1. Ra5+ *\n")
                .expect("reads");
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].start, pos("8/8/8/4k3/8/8/8/R3K3 w - - 0 1"));
        assert!(games[0].moves.is_empty());
        let e = read("[FEN \"8/8/8/4k3/8/8/8/R3K3 w - - x 1\"]\n").expect_err("a bad FEN");
        assert!(e.to_string().contains("FEN tag"), "{e}");
    }

    fn play(start: &Chess, ucis: &[&str]) -> Vec<Move> {
        let mut p = start.clone();
        ucis.iter()
            .map(|u| {
                let m = u
                    .parse::<UciMove>()
                    .expect("uci")
                    .to_move(&p)
                    .expect("legal");
                p.play_unchecked(m);
                m
            })
            .collect()
    }

    #[test]
    fn a_written_game_reads_back_the_same() {
        let start = pos("8/8/8/4k3/8/8/8/R3K3 b - - 3 40");
        let mut g = Game::new(start.clone());
        g.set_tag("Event", "Retro \"practice\"");
        g.set_tag("SetUp", "1");
        g.set_tag("FEN", "8/8/8/4k3/8/8/8/R3K3 b - - 3 40");
        g.moves = play(&start, &["e5d5", "a1a5", "d5c4", "e1d2"]);
        g.comments = vec![
            Some("White mates in 10".into()),
            None,
            Some("x {y}".into()),
            None,
        ];
        g.result = "*".into();
        let text = write(&g);
        assert!(
            text.contains("40... Kd5 {White mates in 10} 41. Ra5+ Kc4 {x (y)} 42. Kd2 *"),
            "{text}"
        );
        assert!(text.starts_with("[Event \"Retro \\\"practice\\\"\"]\n[Site \"?\"]"));
        let back = read(&text).expect("reads");
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].moves, g.moves);
        assert_eq!(back[0].tag("Event"), Some("Retro \"practice\""));
        assert_eq!(back[0].comments[0].as_deref(), Some("White mates in 10"));
        assert_eq!(back[0].comments[2].as_deref(), Some("x (y)"));
        assert_eq!(back[0].result, "*");
    }

    #[test]
    fn reads_several_games_with_variations_annotations_and_escapes() {
        let text = "% a comment line\n[Event \"A\"]\n[Result \"1-0\"]\n\n1. e4 e5 (1... c5 2. Nf3 (2. c3)) 2. Nf3!? $1 Nc6 ; rest\n3.Bb5 a6 1-0\n\n\
                    [Event \"B\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n\n1. 0-0 {castles} Kd7 *\n";
        let games = read(text).expect("reads");
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].moves.len(), 6);
        assert_eq!(games[0].result, "1-0");
        assert_eq!(games[1].moves.len(), 2);
        assert_eq!(games[1].comments[0].as_deref(), Some("castles"));
        assert_eq!(games[1].tag("Event"), Some("B"));
    }

    #[test]
    fn mistakes_name_their_line() {
        let cases = [
            ("[Event \"A\"]\n\n1. e4 e5\n2. Ke3 *", 4, "illegal"),
            ("[Event \"A\"]\n[Site \"x]\n1. e4 *", 2, "never closed"),
            ("[Event \"A\"]\n\n1. e4 {no end\n\n", 3, "never closed"),
            ("1. e4 e5\n2. Nf3 )\n", 2, "without a variation"),
            ("1. e4 e5\n(2. d4\n3. c4", 2, "never closed"),
            ("\n\n1. e4 @@ *", 3, "not a move"),
            ("[FEN \"8/8/8/8 w - - 0 1\"]\n\n1. e4 *", 3, "FEN tag"),
            ("1. e4 e5 2. N3 *", 1, "not a move"),
            ("1. Nd2 *", 1, "illegal"),
        ];
        for (text, line, what) in cases {
            let e = read(text).expect_err(text);
            assert_eq!(e.line, line, "{text}: {e}");
            assert!(e.message.contains(what), "{text}: {e}");
        }
    }

    #[test]
    fn an_ambiguous_move_is_refused() {
        let e = read("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4K3/R6R w - - 0 1\"]\n\n1. Rd1 *")
            .expect_err("ambiguous");
        assert_eq!(e.line, 4);
        assert!(e.message.contains("ambiguous"), "{e}");
    }

    #[test]
    fn dates_are_civil() {
        let at = |s| std::time::UNIX_EPOCH + std::time::Duration::from_secs(s);
        assert_eq!(date(at(0)), "1970.01.01");
        // 2000-02-29 12:34:56 UTC, a leap day.
        assert_eq!(date(at(951_827_696)), "2000.02.29");
        assert_eq!(stamp(at(951_827_696)), "20000229-123456");
        // 2026-11-22 00:00:00 UTC.
        assert_eq!(date(at(1_795_305_600)), "2026.11.22");
    }
}
