//! Random positions from a small deterministic generator, for tests and benchmarks (the bench
//! includes this file by path).

use retro_tables::Material;
use shakmaty::{Bitboard, Board, CastlingMode, Chess, Color, Piece, Position, Setup, Square};

/// A small deterministic generator (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    /// The next number.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// A random legal position of `m` (squares and side to move drawn from `rng`, the halfmove clock
/// at `clock`, no en passant square), or `None` for a placement that is none.
pub fn random_position(m: Material, clock: u32, rng: &mut Rng) -> Option<Chess> {
    let mut board = Board::empty();
    for (color, role) in m.slots() {
        let sq = Square::new((rng.next() % 64) as u32);
        if board.piece_at(sq).is_some() {
            return None;
        }
        board.set_piece_at(sq, Piece { color, role });
    }
    let mut setup = Setup::empty();
    setup.board = board;
    setup.turn = if rng.next().is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    };
    setup.castling_rights = Bitboard::EMPTY;
    setup.halfmoves = clock;
    let pos: Chess = setup.position(CastlingMode::Standard).ok()?;
    pos.legal_ep_square().is_none().then_some(pos)
}
