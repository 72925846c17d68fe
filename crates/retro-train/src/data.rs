//! The training-data format: files of fixed-size records, one position each, with the search's
//! score, the game's result and, where Retro's tables cover the position, its exact value
//! under the 50-move rule.
//!
//! A data file (`.rdat`) is a 16-byte header and `count` records of [`RECORD_BYTES`] bytes,
//! little-endian; the layout is in docs/nnue.md:
//!
//! ```text
//! header: magic "RETRODAT" (8) | version u32 (1) | count u32
//! record: occupancy u64 (bit k = square k, a1 = 0, h8 = 63)
//!         pieces [u8; 16]: one nibble per occupied square, squares in rising order, the low
//!                 nibble first: role 1 (pawn) .. 6 (king), plus 8 for black
//!         score i16: the search's score, centipawns for the side to move
//!         flags u8: bit 0 black to move
//!         result u8: the game's result for the side to move: 0 loss, 1 draw, 2 win
//!         wdl50 u8: 0 none; else 3 + the tables' value under the 50-move rule for the side to
//!                 move (-2 loss, -1 blessed loss, 0 draw, 1 cursed win, 2 win)
//!         halfmoves u8: the 50-move clock (saturated at 255)
//!         reserved [u8; 2]: 0
//! ```
//!
//! Castling rights and the en-passant square are not kept: the network does not see them.

use std::{
    io::{Read, Write},
    path::Path,
};

use retro_tables::Wdl50;
use shakmaty::{Bitboard, Board, Chess, Color, Piece, Position, Role, Square};

/// Bytes of one record.
pub const RECORD_BYTES: usize = 32;
/// Bytes of a file's header.
pub const HEADER_BYTES: usize = 16;
/// The first 8 bytes of a data file.
pub const DATA_MAGIC: [u8; 8] = *b"RETRODAT";
/// The format version this build reads and writes.
pub const DATA_VERSION: u32 = 1;
/// The most pieces a record holds (its nibbles).
const MAX_PIECES: usize = 32;

/// A game's result for one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Lost.
    Loss,
    /// Drawn.
    Draw,
    /// Won.
    Win,
}

impl Outcome {
    /// 0, 0.5 or 1.
    pub fn score(self) -> f32 {
        match self {
            Outcome::Loss => 0.0,
            Outcome::Draw => 0.5,
            Outcome::Win => 1.0,
        }
    }

    /// The result for the other side.
    pub fn flip(self) -> Outcome {
        match self {
            Outcome::Loss => Outcome::Win,
            Outcome::Draw => Outcome::Draw,
            Outcome::Win => Outcome::Loss,
        }
    }
}

/// One training position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The pieces.
    pub board: Board,
    /// The side to move.
    pub turn: Color,
    /// The search's score, centipawns for the side to move.
    pub score: i16,
    /// The game's result for the side to move.
    pub result: Outcome,
    /// The tables' exact value under the 50-move rule, for the side to move.
    pub wdl50: Option<Wdl50>,
    /// The 50-move clock.
    pub halfmoves: u8,
}

/// Why a data file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// The file could not be read or written.
    #[error("data file: {0}")]
    Io(#[from] std::io::Error),
    /// The file does not begin with the magic bytes.
    #[error("not a Retro data file (bad magic)")]
    Magic,
    /// The file is of another format version.
    #[error("data format version {0}, this build reads version {DATA_VERSION}")]
    Version(u32),
    /// The file's size does not match its header's count.
    #[error("data file of {found} bytes, its header's count needs {expected}")]
    Size {
        /// The file's size.
        found: u64,
        /// The size the count needs.
        expected: u64,
    },
    /// A record that is not a position.
    #[error("record {index}: {reason}")]
    Record {
        /// The record's index in the file.
        index: usize,
        /// What is wrong with it.
        reason: RecordError,
    },
}

/// What is wrong with a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// More than 32 occupied squares.
    #[error("more than 32 pieces")]
    TooManyPieces,
    /// A nibble that names no piece.
    #[error("piece code {0} names no piece")]
    Piece(u8),
    /// A result byte other than 0, 1, 2.
    #[error("result {0} out of range")]
    Result(u8),
    /// A table label byte above 5.
    #[error("table label {0} out of range")]
    Label(u8),
    /// Not exactly one king of each colour.
    #[error("not one king of each colour")]
    Kings,
    /// Pieces that make no legal position (when it is read as one).
    #[error("not a legal position")]
    Illegal,
}

impl Record {
    /// A record of `pos` with its labels.
    pub fn new(pos: &Chess, score: i16, result: Outcome, wdl50: Option<Wdl50>) -> Record {
        Record {
            board: pos.board().clone(),
            turn: pos.turn(),
            score,
            result,
            wdl50,
            halfmoves: u8::try_from(pos.halfmoves()).unwrap_or(u8::MAX),
        }
    }

    /// The record's bytes.
    pub fn encode(&self) -> [u8; RECORD_BYTES] {
        let mut b = [0u8; RECORD_BYTES];
        b[..8].copy_from_slice(&self.board.occupied().0.to_le_bytes());
        for (k, (_, piece)) in self.board.iter().take(MAX_PIECES).enumerate() {
            let code = piece.role as u8 + if piece.color == Color::Black { 8 } else { 0 };
            b[8 + k / 2] |= code << (4 * (k % 2));
        }
        b[24..26].copy_from_slice(&self.score.to_le_bytes());
        b[26] = u8::from(self.turn == Color::Black);
        b[27] = match self.result {
            Outcome::Loss => 0,
            Outcome::Draw => 1,
            Outcome::Win => 2,
        };
        b[28] = self.wdl50.map_or(0, |w| (w.to_i8() + 3) as u8);
        b[29] = self.halfmoves;
        b
    }

    /// The record in `b`.
    ///
    /// # Errors
    /// [`RecordError`] when the bytes are not a position with labels.
    pub fn decode(b: &[u8; RECORD_BYTES]) -> Result<Record, RecordError> {
        let mut occ = [0u8; 8];
        occ.copy_from_slice(&b[..8]);
        let occupied = Bitboard(u64::from_le_bytes(occ));
        if occupied.count() > MAX_PIECES {
            return Err(RecordError::TooManyPieces);
        }
        let mut board = Board::empty();
        for (k, sq) in occupied.into_iter().enumerate() {
            let code = (b[8 + k / 2] >> (4 * (k % 2))) & 0xf;
            let role = Role::try_from(code & 7).map_err(|_| RecordError::Piece(code))?;
            let color = if code & 8 == 0 {
                Color::White
            } else {
                Color::Black
            };
            board.set_piece_at(sq, Piece { color, role });
        }
        for color in Color::ALL {
            if (board.by_color(color) & board.kings()).count() != 1 {
                return Err(RecordError::Kings);
            }
        }
        let result = match b[27] {
            0 => Outcome::Loss,
            1 => Outcome::Draw,
            2 => Outcome::Win,
            r => return Err(RecordError::Result(r)),
        };
        let wdl50 = match b[28] {
            0 => None,
            l @ 1..=5 => Some(Wdl50::from_i8(l as i8 - 3)),
            l => return Err(RecordError::Label(l)),
        };
        Ok(Record {
            board,
            turn: if b[26] & 1 == 0 {
                Color::White
            } else {
                Color::Black
            },
            score: i16::from_le_bytes([b[24], b[25]]),
            result,
            wdl50,
            halfmoves: b[29],
        })
    }

    /// The pieces as (piece, square) pairs.
    pub fn pieces(&self) -> impl Iterator<Item = (Piece, Square)> + '_ {
        self.board.iter().map(|(sq, p)| (p, sq))
    }
}

/// Writes `records` as a data file's contents to `out`.
///
/// # Errors
/// The writer's errors; [`DataError::Size`] for more than `u32::MAX` records.
pub fn write_records(out: &mut impl Write, records: &[Record]) -> Result<(), DataError> {
    let count = u32::try_from(records.len()).map_err(|_| DataError::Size {
        found: records.len() as u64,
        expected: u64::from(u32::MAX),
    })?;
    out.write_all(&DATA_MAGIC)?;
    out.write_all(&DATA_VERSION.to_le_bytes())?;
    out.write_all(&count.to_le_bytes())?;
    for r in records {
        out.write_all(&r.encode())?;
    }
    Ok(())
}

/// Writes `records` to the file `path` atomically: into a temporary file beside it, renamed
/// into place once complete.
///
/// # Errors
/// [`DataError::Io`] when the file cannot be written.
pub fn write_file(path: &Path, records: &[Record]) -> Result<(), DataError> {
    retro_tables::write_atomic(path, |f| write_records(f, records)).map(|_| ())
}

/// Reads a data file's records, checking every one.
///
/// # Errors
/// [`DataError`] when the file cannot be read or is not a data file of this version.
pub fn read_file(path: &Path) -> Result<Vec<Record>, DataError> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.read_to_end(&mut bytes)?;
    read_records(&bytes)
}

/// The records of a data file's contents `bytes`.
///
/// # Errors
/// [`DataError`] when the bytes are not a data file of this version.
pub fn read_records(bytes: &[u8]) -> Result<Vec<Record>, DataError> {
    if bytes.len() < 8 || bytes[..8] != DATA_MAGIC {
        return Err(DataError::Magic);
    }
    if bytes.len() < HEADER_BYTES {
        return Err(DataError::Size {
            found: bytes.len() as u64,
            expected: HEADER_BYTES as u64,
        });
    }
    let word = |o: usize| u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
    let version = word(8);
    if version != DATA_VERSION {
        return Err(DataError::Version(version));
    }
    let count = word(12) as usize;
    let expected = HEADER_BYTES as u64 + count as u64 * RECORD_BYTES as u64;
    if bytes.len() as u64 != expected {
        return Err(DataError::Size {
            found: bytes.len() as u64,
            expected,
        });
    }
    bytes[HEADER_BYTES..]
        .chunks_exact(RECORD_BYTES)
        .enumerate()
        .map(|(index, chunk)| {
            let mut b = [0u8; RECORD_BYTES];
            b.copy_from_slice(chunk);
            Record::decode(&b).map_err(|reason| DataError::Record { index, reason })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use shakmaty::{fen::Fen, CastlingMode, EnPassantMode};

    use super::*;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .expect("FEN")
            .into_position(CastlingMode::Standard)
            .expect("legal")
    }

    #[test]
    fn records_round_trip() {
        let cases = [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                12,
                Outcome::Draw,
                None,
            ),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 7 20",
                -345,
                Outcome::Loss,
                None,
            ),
            (
                "8/8/8/4k3/8/8/3QK3/8 b - - 99 80",
                -1000,
                Outcome::Loss,
                Some(Wdl50::Loss),
            ),
            (
                "8/8/8/4k3/8/8/3NK3/8 w - - 3 80",
                5,
                Outcome::Draw,
                Some(Wdl50::Draw),
            ),
            (
                "8/8/8/4k3/8/8/2NNK3/8 w - - 3 80",
                5,
                Outcome::Draw,
                Some(Wdl50::CursedWin),
            ),
        ];
        let mut records = Vec::new();
        for (fen, score, result, wdl50) in cases {
            let p = pos(fen);
            let r = Record::new(&p, score, result, wdl50);
            let back = Record::decode(&r.encode()).expect("its own bytes");
            assert_eq!(back, r, "{fen}");
            assert_eq!(back.board, *p.board());
            assert_eq!(u32::from(back.halfmoves), p.halfmoves());
            records.push(r);
        }
        let mut bytes = Vec::new();
        write_records(&mut bytes, &records).expect("write");
        assert_eq!(bytes.len(), HEADER_BYTES + records.len() * RECORD_BYTES);
        assert_eq!(read_records(&bytes).expect("read"), records);
        // The side to move is kept: a FEN rebuilt from the record names it.
        let black = &records[1];
        let setup = shakmaty::Setup {
            board: black.board.clone(),
            turn: black.turn,
            ..shakmaty::Setup::empty()
        };
        let rebuilt: Chess = setup.position(CastlingMode::Standard).expect("legal");
        assert_eq!(
            Fen::from_position(&rebuilt, EnPassantMode::Legal).to_string(),
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b - - 0 1"
        );
    }

    #[test]
    fn bad_files_and_records_are_refused() {
        let r = Record::new(&Chess::default(), 0, Outcome::Win, None);
        let mut bytes = Vec::new();
        write_records(&mut bytes, &[r.clone(), r]).expect("write");
        assert!(matches!(
            read_records(&bytes[..bytes.len() - 1]),
            Err(DataError::Size { .. })
        ));
        let mut long = bytes.clone();
        long.push(0);
        assert!(matches!(read_records(&long), Err(DataError::Size { .. })));
        assert!(matches!(read_records(b"RETRODA"), Err(DataError::Magic)));
        assert!(matches!(
            read_records(b"something else entirely"),
            Err(DataError::Magic)
        ));
        let mut v2 = bytes.clone();
        v2[8] = 2;
        assert!(matches!(read_records(&v2), Err(DataError::Version(2))));
        let mut bad_result = bytes.clone();
        bad_result[HEADER_BYTES + RECORD_BYTES + 27] = 3;
        assert!(matches!(
            read_records(&bad_result),
            Err(DataError::Record {
                index: 1,
                reason: RecordError::Result(3)
            })
        ));
        let mut bad_piece = bytes.clone();
        bad_piece[HEADER_BYTES + 8] = 0x07;
        assert!(matches!(
            read_records(&bad_piece),
            Err(DataError::Record {
                index: 0,
                reason: RecordError::Piece(7)
            })
        ));
        let mut bad_label = bytes.clone();
        bad_label[HEADER_BYTES + 28] = 6;
        assert!(matches!(
            read_records(&bad_label),
            Err(DataError::Record {
                reason: RecordError::Label(6),
                ..
            })
        ));
        let mut no_king = bytes;
        // The first record's e1 king (the 5th piece, a high nibble... the 5th occupied
        // square is e1, nibble 4: low nibble of byte 2) becomes a queen.
        no_king[HEADER_BYTES + 8 + 2] = (no_king[HEADER_BYTES + 8 + 2] & 0xf0) | 5;
        assert!(matches!(
            read_records(&no_king),
            Err(DataError::Record {
                index: 0,
                reason: RecordError::Kings
            })
        ));
        // Random bytes never panic.
        let mut rng = fastrand::Rng::with_seed(3);
        for _ in 0..2000 {
            let mut rec = [0u8; RECORD_BYTES];
            rng.fill(&mut rec);
            let _ = Record::decode(&rec);
        }
    }
}
