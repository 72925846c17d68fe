//! The compact training format: whole games rather than positions. A game is its start
//! position, then per ply the move played and the search's score of the position it was played
//! in, the game's result and, for its last position when Retro's tables cover it, the tables'
//! exact value. The positions are replayed from the moves, so a position costs the four bytes of
//! its ply (and its share of the game's header): about 5 bytes a training position on Retro's
//! self-play games, against 32 in the record format of [`crate::data`].
//!
//! A games file (`.rgms`) is little-endian; the layout is in docs/nnue.md:
//!
//! ```text
//! file:  magic "RETROGMS" (8) | version u32 (1) | games u32 | the games
//! game:  occupancy u64 (bit k = square k, a1 = 0, h8 = 63)
//!        pieces: one nibble per occupied square, in rising order, the low nibble first
//!                (ceil(n / 2) bytes): role 1 (pawn) .. 6 (king), plus 8 for black
//!        state u8: bit 0 black to move, bits 1-4 castling rights K, Q, k, q (standard chess)
//!        en passant u8: 0 none, else the file + 1 of the en passant square
//!        halfmoves u8 | fullmoves u16
//!        result u8: white's result, 0 loss, 1 draw, 2 win
//!        label u8: 0 none; else 3 + the tables' value under the 50-move rule of the last
//!                position for its side to move (-2 loss, -1 blessed loss, 0 draw,
//!                1 cursed win, 2 win)
//!        plies u16, then per ply: move u16 | score i16 (centipawns for the side to move)
//! move:  from (bits 0-5) | to (bits 6-11; castling: the rook's square) | promotion role
//!        (bits 12-14, 0 none) | bit 15: no move (the last ply only: its position is scored
//!        and the game ends there)
//! ```
//!
//! The reader replays every move and refuses a file with a typed [`GamesError`] that names the
//! game: a bad header, a position that is not legal, an illegal or unreadable move, a "no move"
//! ply that is not the last, bytes missing or left over.

use std::{io::Write, path::Path};

use retro_tables::Wdl50;
use shakmaty::{
    fen::Fen, Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, File, FromSetup, Move,
    Piece, Position, Rank, Role, Setup, Square,
};

use crate::data::{Outcome, Record};

/// The first 8 bytes of a games file.
pub const GAMES_MAGIC: [u8; 8] = *b"RETROGMS";
/// The version this build reads and writes.
pub const GAMES_VERSION: u32 = 1;
/// Bytes of a file's header.
pub const GAMES_HEADER_BYTES: usize = 16;
/// Bit 15 of a ply's move: no move, the game's last position.
const NO_MOVE: u16 = 1 << 15;
/// The most plies a game holds.
pub const MAX_PLIES: usize = u16::MAX as usize;
/// Scores at or beyond this are mate scores, left out of training (the engine's
/// [`retro_engine::MATE_BOUND`]).
pub const MATE_SCORE: i16 = retro_engine::MATE_BOUND as i16;

/// One ply of a game: the move played (none for a last position that is only scored) and the
/// search's score of the position it was played in, for its side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ply {
    /// The move, `None` for the scored last position.
    pub mv: Option<Move>,
    /// Centipawns for the side to move.
    pub score: i16,
}

/// A game as training data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The position the plies start from.
    pub start: Chess,
    /// The plies.
    pub plies: Vec<Ply>,
    /// White's result.
    pub result: Outcome,
    /// The tables' value of the last position for its side to move, where they cover it.
    pub label: Option<Wdl50>,
}

/// Why a games file cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum GamesError {
    /// The file could not be read or written.
    #[error("games file: {0}")]
    Io(#[from] std::io::Error),
    /// The file does not begin with the magic bytes.
    #[error("not a Retro games file (bad magic)")]
    Magic,
    /// Another format version.
    #[error("games format version {0}, this build reads version {GAMES_VERSION}")]
    Version(u32),
    /// The bytes end inside a game, or go on after the last.
    #[error("game {game}: {reason}")]
    Game {
        /// The game's index in the file.
        game: usize,
        /// What is wrong with it.
        reason: GameError,
    },
    /// Bytes after the last game.
    #[error("{0} bytes after the last game")]
    Trailing(usize),
    /// More games or plies than the format counts.
    #[error("too many {0} for the format")]
    TooMany(&'static str),
}

/// What is wrong with one game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// The bytes end inside it.
    #[error("truncated")]
    Truncated,
    /// More than 32 occupied squares.
    #[error("more than 32 pieces")]
    TooManyPieces,
    /// A nibble that names no piece.
    #[error("piece code {0} names no piece")]
    Piece(u8),
    /// A state byte with unknown bits, or an en passant file out of range.
    #[error("state byte {0:#04x} or en passant byte out of range")]
    State(u8),
    /// The start position is not legal.
    #[error("start position {0} is not legal")]
    Position(String),
    /// A result byte other than 0, 1, 2.
    #[error("result {0} out of range")]
    Result(u8),
    /// A label byte above 5.
    #[error("table label {0} out of range")]
    Label(u8),
    /// A move that is not legal where it is played.
    #[error("ply {ply}: move {code:#06x} is not legal in {fen}")]
    Move {
        /// The ply, from 0.
        ply: usize,
        /// Its code.
        code: u16,
        /// The position.
        fen: String,
    },
    /// A "no move" ply before the last.
    #[error("ply {0}: no move before the last ply")]
    EarlyEnd(usize),
}

impl GameRecord {
    /// A game of one scored position and no move: a record of the 32-byte format, whose
    /// position, score, result and label it keeps (castling rights and the en passant square,
    /// which that format does not keep, are none; the full-move number 1).
    pub fn from_record(r: &Record) -> Option<GameRecord> {
        let mut setup = Setup::empty();
        setup.board = r.board.clone();
        setup.turn = r.turn;
        setup.halfmoves = u32::from(r.halfmoves);
        let start = Chess::from_setup(setup, CastlingMode::Standard)
            .or_else(shakmaty::PositionError::ignore_impossible_check)
            .ok()?;
        let result = match r.turn {
            Color::White => r.result,
            Color::Black => r.result.flip(),
        };
        Some(GameRecord {
            start,
            plies: vec![Ply {
                mv: None,
                score: r.score,
            }],
            result,
            label: r.wdl50,
        })
    }

    /// The game's bytes, appended to `out`.
    ///
    /// # Errors
    /// [`GamesError::TooMany`] for more than [`MAX_PLIES`] plies.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), GamesError> {
        let plies = u16::try_from(self.plies.len()).map_err(|_| GamesError::TooMany("plies"))?;
        let board = self.start.board();
        out.extend_from_slice(&board.occupied().0.to_le_bytes());
        let mut nibbles = vec![0u8; board.occupied().count().div_ceil(2)];
        for (k, (_, piece)) in board.iter().enumerate() {
            let code = piece.role as u8 + if piece.color == Color::Black { 8 } else { 0 };
            nibbles[k / 2] |= code << (4 * (k % 2));
        }
        out.extend_from_slice(&nibbles);
        let castles = self.start.castles();
        let mut state = u8::from(self.start.turn() == Color::Black);
        for (bit, (color, side)) in [
            (Color::White, shakmaty::CastlingSide::KingSide),
            (Color::White, shakmaty::CastlingSide::QueenSide),
            (Color::Black, shakmaty::CastlingSide::KingSide),
            (Color::Black, shakmaty::CastlingSide::QueenSide),
        ]
        .into_iter()
        .enumerate()
        {
            if castles.has(color, side) {
                state |= 2 << bit;
            }
        }
        out.push(state);
        let ep = self.start.ep_square(EnPassantMode::Legal);
        out.push(ep.map_or(0, |sq| u8::from(sq.file()) + 1));
        out.push(u8::try_from(self.start.halfmoves()).unwrap_or(u8::MAX));
        let fullmoves = u16::try_from(self.start.fullmoves().get()).unwrap_or(u16::MAX);
        out.extend_from_slice(&fullmoves.to_le_bytes());
        out.push(match self.result {
            Outcome::Loss => 0,
            Outcome::Draw => 1,
            Outcome::Win => 2,
        });
        out.push(self.label.map_or(0, |w| (w.to_i8() + 3) as u8));
        out.extend_from_slice(&plies.to_le_bytes());
        for ply in &self.plies {
            out.extend_from_slice(&ply.mv.map_or(NO_MOVE, move_code).to_le_bytes());
            out.extend_from_slice(&ply.score.to_le_bytes());
        }
        Ok(())
    }

    /// The game at the start of `b` and the bytes it takes.
    ///
    /// # Errors
    /// [`GameError`] when the bytes are not a game.
    pub fn decode(b: &[u8]) -> Result<(GameRecord, usize), GameError> {
        let mut at = 0;
        let mut take = |n: usize| -> Result<&[u8], GameError> {
            let s = b.get(at..at + n).ok_or(GameError::Truncated)?;
            at += n;
            Ok(s)
        };
        let mut occ = [0u8; 8];
        occ.copy_from_slice(take(8)?);
        let occupied = Bitboard(u64::from_le_bytes(occ));
        if occupied.count() > 32 {
            return Err(GameError::TooManyPieces);
        }
        let nibbles = take(occupied.count().div_ceil(2))?;
        let mut board = Board::empty();
        for (k, sq) in occupied.into_iter().enumerate() {
            let code = (nibbles[k / 2] >> (4 * (k % 2))) & 0xf;
            let role = Role::try_from(code & 7).map_err(|_| GameError::Piece(code))?;
            let color = Color::from_white(code & 8 == 0);
            board.set_piece_at(sq, Piece { color, role });
        }
        let head = take(8)?;
        let (state, ep, halfmoves) = (head[0], head[1], head[2]);
        let fullmoves = u16::from_le_bytes([head[3], head[4]]);
        let (result, label) = (head[5], head[6]);
        let plies = u16::from_le_bytes([head[7], take(1)?[0]]) as usize;
        if state & !0x1f != 0 || ep > 8 {
            return Err(GameError::State(state));
        }
        let start = start_position(board, state, ep, halfmoves, fullmoves)?;
        let result = match result {
            0 => Outcome::Loss,
            1 => Outcome::Draw,
            2 => Outcome::Win,
            r => return Err(GameError::Result(r)),
        };
        let label = match label {
            0 => None,
            l @ 1..=5 => Some(Wdl50::from_i8(l as i8 - 3)),
            l => return Err(GameError::Label(l)),
        };
        let body = take(plies * 4)?;
        let mut pos = start.clone();
        let mut list = Vec::with_capacity(plies);
        for (ply, w) in body.chunks_exact(4).enumerate() {
            let code = u16::from_le_bytes([w[0], w[1]]);
            let score = i16::from_le_bytes([w[2], w[3]]);
            if code == NO_MOVE {
                if ply + 1 != plies {
                    return Err(GameError::EarlyEnd(ply));
                }
                list.push(Ply { mv: None, score });
                continue;
            }
            let mv = move_of(&pos, code).ok_or_else(|| GameError::Move {
                ply,
                code,
                fen: Fen::from_position(&pos, EnPassantMode::Legal).to_string(),
            })?;
            pos.play_unchecked(mv);
            list.push(Ply {
                mv: Some(mv),
                score,
            });
        }
        Ok((
            GameRecord {
                start,
                plies: list,
                result,
                label,
            },
            at,
        ))
    }

    /// The game's training positions as records, labelled for their side to move (see
    /// [`GameRecord::positions`]).
    pub fn records(&self) -> Vec<Record> {
        self.positions()
            .into_iter()
            .map(|t| {
                let result = match t.pos.turn() {
                    Color::White => self.result,
                    Color::Black => self.result.flip(),
                };
                Record::new(&t.pos, t.score, result, t.label)
            })
            .collect()
    }

    /// The game's training positions, whole (castling rights, en passant square and clocks
    /// as played): every position whose move is quiet (it is not in check, its move is neither
    /// a capture nor a promotion, its score no mate score), and the last position when it has
    /// no move (the tables' position, or a converted record), whatever it is.
    pub fn positions(&self) -> Vec<TrainingPosition> {
        let mut out = Vec::with_capacity(self.plies.len());
        let mut pos = self.start.clone();
        let last = self.plies.len().saturating_sub(1);
        for (k, ply) in self.plies.iter().enumerate() {
            let keep = match ply.mv {
                None => true,
                Some(m) => {
                    !pos.is_check()
                        && !m.is_capture()
                        && !m.is_promotion()
                        // Unsigned: i16::MIN, which a file may hold, has no i16 magnitude.
                        && ply.score.unsigned_abs() < MATE_SCORE.unsigned_abs()
                }
            };
            if keep {
                out.push(TrainingPosition {
                    pos: pos.clone(),
                    score: ply.score,
                    label: if k == last { self.label } else { None },
                });
            }
            if let Some(m) = ply.mv {
                pos.play_unchecked(m);
            }
        }
        out
    }
}

/// A training position of a game (see [`GameRecord::positions`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrainingPosition {
    /// The position.
    pub pos: Chess,
    /// The search's score, centipawns for the side to move.
    pub score: i16,
    /// The tables' value for the side to move: the game's last position only, where they
    /// cover it.
    pub label: Option<Wdl50>,
}

/// The start position of a decoded game.
fn start_position(
    board: Board,
    state: u8,
    ep: u8,
    halfmoves: u8,
    fullmoves: u16,
) -> Result<Chess, GameError> {
    let mut setup = Setup::empty();
    let turn = Color::from_white(state & 1 == 0);
    let mut rights = Bitboard::EMPTY;
    for (bit, sq) in [Square::H1, Square::A1, Square::H8, Square::A8]
        .into_iter()
        .enumerate()
    {
        if state & (2 << bit) != 0 {
            rights.add(sq);
        }
    }
    setup.board = board;
    setup.turn = turn;
    setup.castling_rights = rights;
    setup.ep_square = (ep > 0).then(|| {
        let rank = if turn == Color::White {
            Rank::Sixth
        } else {
            Rank::Third
        };
        Square::from_coords(File::new(u32::from(ep - 1)), rank)
    });
    setup.halfmoves = u32::from(halfmoves);
    setup.fullmoves =
        std::num::NonZeroU32::new(u32::from(fullmoves)).unwrap_or(std::num::NonZeroU32::MIN);
    // The FEN is written only for the error: decoding is on the path of every training game.
    Chess::from_setup(setup.clone(), CastlingMode::Standard).map_err(|_| {
        GameError::Position(
            Fen::try_from_setup(setup).map_or_else(|_| "?".to_string(), |f| f.to_string()),
        )
    })
}

/// A move's code: from, to (castling: the rook's square), the promotion role.
fn move_code(m: Move) -> u16 {
    let (from, to) = match m {
        Move::Castle { king, rook } => (king, rook),
        _ => (m.from().unwrap_or(Square::A1), m.to()),
    };
    let promotion = m.promotion().map_or(0, |r| r as u16);
    u16::from(from) | (u16::from(to) << 6) | (promotion << 12)
}

/// The legal move of `pos` whose code is `code`.
fn move_of(pos: &Chess, code: u16) -> Option<Move> {
    pos.legal_moves()
        .into_iter()
        .find(|m| move_code(*m) == code)
}

/// Writes `games` as a games file's contents to `out`.
///
/// # Errors
/// The writer's errors; [`GamesError::TooMany`] past the format's counts.
pub fn write_games(out: &mut impl Write, games: &[GameRecord]) -> Result<(), GamesError> {
    let count = u32::try_from(games.len()).map_err(|_| GamesError::TooMany("games"))?;
    let mut bytes = Vec::with_capacity(GAMES_HEADER_BYTES + games.len() * 64);
    bytes.extend_from_slice(&GAMES_MAGIC);
    bytes.extend_from_slice(&GAMES_VERSION.to_le_bytes());
    bytes.extend_from_slice(&count.to_le_bytes());
    for g in games {
        g.encode(&mut bytes)?;
    }
    out.write_all(&bytes)?;
    Ok(())
}

/// Writes `games` to the file `path` atomically: into a temporary file beside it, renamed into
/// place once complete.
///
/// # Errors
/// [`GamesError`] when the file cannot be written.
pub fn write_games_file(path: &Path, games: &[GameRecord]) -> Result<(), GamesError> {
    retro_tables::write_atomic(path, |f| write_games(f, games)).map(|_| ())
}

/// The games of a games file's contents, every move replayed and checked.
///
/// # Errors
/// [`GamesError`] when the bytes are not a games file of this version.
pub fn read_games(bytes: &[u8]) -> Result<Vec<GameRecord>, GamesError> {
    if bytes.len() < 8 || bytes[..8] != GAMES_MAGIC {
        return Err(GamesError::Magic);
    }
    let header = bytes.get(..GAMES_HEADER_BYTES).ok_or(GamesError::Game {
        game: 0,
        reason: GameError::Truncated,
    })?;
    let word =
        |o: usize| u32::from_le_bytes([header[o], header[o + 1], header[o + 2], header[o + 3]]);
    if word(8) != GAMES_VERSION {
        return Err(GamesError::Version(word(8)));
    }
    let count = word(12) as usize;
    let mut games = Vec::with_capacity(count.min(1 << 20));
    let mut at = GAMES_HEADER_BYTES;
    for game in 0..count {
        let (g, used) =
            GameRecord::decode(&bytes[at..]).map_err(|reason| GamesError::Game { game, reason })?;
        at += used;
        games.push(g);
    }
    if at != bytes.len() {
        return Err(GamesError::Trailing(bytes.len() - at));
    }
    Ok(games)
}

/// Reads a games file.
///
/// # Errors
/// [`GamesError`] when the file cannot be read or is not a games file of this version.
pub fn read_games_file(path: &Path) -> Result<Vec<GameRecord>, GamesError> {
    read_games(&std::fs::read(path)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chess(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .expect("fen")
            .into_position(CastlingMode::Standard)
            .expect("legal")
    }

    /// A game with castling, en passant, a promotion, captures and a scored last position.
    fn sample() -> GameRecord {
        let start = chess("r3k2r/ppp2ppp/1qn5/3pP3/8/2N5/PPP2PPP/R3K2R w KQkq d6 0 12");
        let mut pos = start.clone();
        let mut plies = Vec::new();
        for (k, uci) in ["e5d6", "e8c8", "e1g1", "h7h5", "d6c7", "h5h4", "c7d8q"]
            .iter()
            .enumerate()
        {
            let m = uci
                .parse::<shakmaty::uci::UciMove>()
                .expect("uci")
                .to_move(&pos)
                .unwrap_or_else(|e| panic!("{uci}: {e}"));
            plies.push(Ply {
                mv: Some(m),
                score: 17 * k as i16 - 40,
            });
            pos.play_unchecked(m);
        }
        plies.push(Ply {
            mv: None,
            score: -500,
        });
        GameRecord {
            start,
            plies,
            result: Outcome::Win,
            label: Some(Wdl50::from_i8(-2)),
        }
    }

    #[test]
    fn games_round_trip_exactly() {
        let games = vec![
            sample(),
            sample(),
            GameRecord {
                start: Chess::default(),
                plies: Vec::new(),
                result: Outcome::Draw,
                label: None,
            },
        ];
        let mut bytes = Vec::new();
        write_games(&mut bytes, &games).expect("write");
        assert_eq!(read_games(&bytes).expect("read"), games);
        // Every position, score, result and label back: the records of the games agree.
        let back = read_games(&bytes).expect("read");
        for (a, b) in games.iter().zip(&back) {
            assert_eq!(a.records(), b.records());
        }
    }

    /// A score of i16::MIN (which a file may hold) is a mate score like the others: its
    /// position is no training position (found by the `training_data` fuzz target).
    #[test]
    fn the_most_negative_score_is_a_mate_score() {
        let mut g = sample();
        let quiet_at = 2; // e1g1: quiet, not in check.
        let before = g.records().len();
        g.plies[quiet_at].score = i16::MIN;
        assert_eq!(g.records().len(), before - 1);
        g.plies[quiet_at].score = -MATE_SCORE;
        assert_eq!(g.records().len(), before - 1);
    }

    #[test]
    fn truncated_and_corrupted_files_are_refused() {
        let mut bytes = Vec::new();
        write_games(&mut bytes, &[sample()]).expect("write");
        for cut in 0..bytes.len() {
            assert!(read_games(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(read_games(&longer), Err(GamesError::Trailing(1))));
        let mut bad = bytes.clone();
        bad[0] = b'X';
        assert!(matches!(read_games(&bad), Err(GamesError::Magic)));
        let mut bad = bytes.clone();
        bad[8] = 9;
        assert!(matches!(read_games(&bad), Err(GamesError::Version(9))));
        // Every single flipped bit is refused or read as a valid game file; never a panic.
        for i in GAMES_HEADER_BYTES..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                let _ = read_games(&b);
            }
        }
        // A move that is not legal: the first ply's code made a1a1.
        let mut b = bytes.clone();
        let first_ply = bytes.len() - 8 * 4;
        b[first_ply] = 0;
        b[first_ply + 1] = 0;
        assert!(
            matches!(
                read_games(&b),
                Err(GamesError::Game {
                    game: 0,
                    reason: GameError::Move { ply: 0, .. }
                })
            ),
            "{:?}",
            read_games(&b)
        );
    }

    #[test]
    fn training_positions_leave_out_checks_captures_promotions_and_mates() {
        let g = sample();
        let records = g.records();
        // Plies: e5d6 (en passant), O-O-O, O-O, h5, d6c7 (a capture), h4, c7d8q (a capture
        // and promotion), the last position (in check, but labelled by the tables).
        assert_eq!(records.len(), 5, "{records:?}");
        assert_eq!(records.last().map(|r| r.wdl50), Some(g.label));
        // Results for the side to move.
        assert_eq!(records[0].result, Outcome::Loss);
        assert_eq!(records[1].result, Outcome::Win);
        // A position in check is left out even when its move is quiet.
        let start = chess("4k3/8/8/8/8/8/8/r3K3 w - - 0 1");
        let e2 = Move::Normal {
            role: Role::King,
            from: Square::E1,
            capture: None,
            to: Square::E2,
            promotion: None,
        };
        let a2 = Move::Normal {
            role: Role::Rook,
            from: Square::A1,
            capture: None,
            to: Square::A2,
            promotion: None,
        };
        let g = GameRecord {
            start,
            plies: vec![
                Ply {
                    mv: Some(e2),
                    score: -20,
                },
                Ply {
                    mv: Some(a2),
                    score: 30,
                },
                Ply {
                    mv: None,
                    score: -25,
                },
            ],
            result: Outcome::Draw,
            label: None,
        };
        let records = g.records();
        assert_eq!(records.len(), 2, "{records:?}");
        assert_eq!(records[0].score, 30);
    }

    #[test]
    fn a_record_becomes_a_game_of_one_position() {
        let pos = chess("4k3/8/8/8/8/8/4P3/4K3 b - - 7 40");
        let r = Record::new(&pos, -35, Outcome::Loss, Some(Wdl50::from_i8(-2)));
        let g = GameRecord::from_record(&r).expect("a position");
        assert_eq!(g.records(), [r]);
        assert_eq!(g.result, Outcome::Win);
    }
}
