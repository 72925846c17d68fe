//! The order in which the main search tries a node's moves: the hash move, captures that do not
//! lose material by their static exchange (most valuable victim first, least valuable attacker
//! next), the queen promotion, the two killers, quiet moves by their history, captures that lose
//! material, underpromotions.
//!
//! Every move is scored when the picker is made, but a capture is scored as if its exchange
//! were good: its static exchange is evaluated only when it comes up as the best of the moves
//! left (or when the search asks for it to prune), so a node cut off by its first moves
//! evaluates few. An exchange that loses moves the capture among the bad captures, and the pick
//! is made again. A capture's score before its exchange is known is never below its true one,
//! so a move that comes up with its score known is the first of the true best, as a pick over
//! scores all known would have taken: the order is the same.

use shakmaty::{Bitboard, Board, Chess, Color, Move, MoveList, Position, Role, Square};

use super::eval::piece_value;
use super::heuristics::{piece_to, CONT_HISTORY};
use super::tunables::{
    MVV_FACTOR, ORDER_BAD_CAPTURE, ORDER_GOOD_CAPTURE, ORDER_HASH_MOVE, ORDER_KILLER_1,
    ORDER_KILLER_2, ORDER_QUEEN_PROMOTION, ORDER_UNDERPROMOTION,
};
use super::vocab::encode_move;

/// How many moves a move list holds at most (shakmaty's `MoveList` capacity).
pub(crate) const MAX_MOVES: usize = 256;

/// A static exchange not evaluated yet.
const SEE_UNKNOWN: i32 = i32::MIN;

/// What a node knows that orders its quiet moves.
#[derive(Clone, Copy)]
pub(crate) struct QuietOrder<'a> {
    /// The node's two killers (encoded moves, 0 for none).
    pub(crate) killers: [u16; 2],
    /// The history of both sides' moves, by [`history_index`].
    pub(crate) history: &'a [i32],
    /// The continuation histories' rows of the moves one and two plies before, by
    /// [`piece_to`] (empty where there is none: no such move, a null move, or
    /// continuation histories off).
    pub(crate) cont: [&'a [i16]; 2],
}

/// The moves of a node handed out best first (see the module docs).
pub(crate) struct MovePicker<'m> {
    moves: &'m mut MoveList,
    scores: [i32; MAX_MOVES],
    /// Each move's static exchange where it was evaluated, else `SEE_UNKNOWN`.
    see: [i32; MAX_MOVES],
    next: usize,
}

impl<'m> MovePicker<'m> {
    /// A picker over the legal `moves` of `pos`, whose hash move is `tt_move` (0 for none). The
    /// picker puts them in its order as it hands them out.
    pub(crate) fn new(
        pos: &Chess,
        moves: &'m mut MoveList,
        tt_move: u16,
        quiet: QuietOrder<'_>,
    ) -> MovePicker<'m> {
        let mut scores = [0; MAX_MOVES];
        let us = pos.turn();
        for (s, m) in scores.iter_mut().zip(moves.iter()) {
            *s = score(m, us, tt_move, quiet);
        }
        MovePicker {
            moves,
            scores,
            see: [SEE_UNKNOWN; MAX_MOVES],
            next: 0,
        }
    }

    /// The best move not handed out yet, or `None` when all have been.
    pub(crate) fn next(&mut self, pos: &Chess) -> Option<Move> {
        let i = self.next;
        let len = self.moves.len();
        if i >= len {
            return None;
        }
        loop {
            let best = first_best(&self.scores[i..len]) + i;
            let m = &self.moves[best];
            if let Some(victim) = m.capture() {
                if self.see[best] == SEE_UNKNOWN && self.scores[best] < ORDER_HASH_MOVE {
                    let s = see(pos, m);
                    self.see[best] = s;
                    if s < 0 {
                        self.scores[best] = ORDER_BAD_CAPTURE + mvv_lva(victim, m.role());
                        continue;
                    }
                }
            }
            self.moves.swap(i, best);
            self.scores.swap(i, best);
            self.see.swap(i, best);
            self.next = i + 1;
            return Some(self.moves[i]);
        }
    }

    /// The static exchange of the move `next` handed out last, evaluated once.
    pub(crate) fn see_of_last(&mut self, pos: &Chess) -> i32 {
        let i = self.next.saturating_sub(1);
        let Some(m) = self.moves.get(i) else {
            return 0;
        };
        if self.see[i] == SEE_UNKNOWN {
            self.see[i] = see(pos, m);
        }
        self.see[i]
    }
}

/// A move's place in the order, a capture counted as a good exchange (see the module docs).
fn score(m: &Move, us: Color, tt_move: u16, quiet: QuietOrder<'_>) -> i32 {
    let code = encode_move(m);
    if code == tt_move && tt_move != 0 {
        ORDER_HASH_MOVE
    } else if let Some(victim) = m.capture() {
        ORDER_GOOD_CAPTURE + mvv_lva(victim, m.role())
    } else if m.promotion() == Some(Role::Queen) {
        ORDER_QUEEN_PROMOTION
    } else if m.is_promotion() {
        ORDER_UNDERPROMOTION
    } else if quiet.killers[0] == code {
        ORDER_KILLER_1
    } else if quiet.killers[1] == code {
        ORDER_KILLER_2
    } else {
        let mut s = quiet.history[history_index(us, code)];
        if CONT_HISTORY {
            let pt = usize::from(piece_to(us, m));
            for row in quiet.cont {
                s += row.get(pt).map_or(0, |&v| i32::from(v));
            }
        }
        s
    }
}

/// Most valuable victim, then least valuable attacker.
fn mvv_lva(victim: Role, attacker: Role) -> i32 {
    MVV_FACTOR * piece_value(victim) - piece_value(attacker)
}

/// The index of the first of the highest of `scores` (0 when it is empty).
pub(crate) fn first_best(scores: &[i32]) -> usize {
    // The maximum first (a loop the compiler vectorises), then where it is.
    let max = scores.iter().copied().max().unwrap_or(i32::MIN);
    scores.iter().position(|&s| s == max).unwrap_or(0)
}

/// Where the history of a side's move (encoded) is kept.
pub(crate) fn history_index(us: Color, code: u16) -> usize {
    (us as usize) << 12 | (code & 0xfff) as usize
}

/// Static exchange evaluation: the material the mover wins by `m` (a capture, or a quiet move
/// to a square the opponent may capture on) and the best sequence of recaptures on its
/// square, in centipawns. 0 for castling.
pub(crate) fn see(pos: &Chess, m: &Move) -> i32 {
    let Some(from) = m.from() else {
        return 0;
    };
    if m.is_castle() {
        return 0;
    }
    let to = m.to();
    let board = pos.board();
    let mut gain = [0i32; 34];
    gain[0] = m.capture().map_or(0, piece_value);
    let mut attacker = piece_value(m.promotion().unwrap_or(m.role()));
    let mut occ = board.occupied() ^ Bitboard::from(from);
    if m.is_en_passant() {
        // The captured pawn is not on the target square.
        if let Some(sq) = to.offset(if pos.turn() == Color::White { -8 } else { 8 }) {
            occ ^= Bitboard::from(sq);
        }
    }
    let mut side = !pos.turn();
    let mut d = 0;
    loop {
        let att = board.attacks_to(to, side, occ) & occ;
        let Some((sq, role)) = least_valuable(board, att) else {
            break;
        };
        if role == Role::King && (board.attacks_to(to, !side, occ ^ Bitboard::from(sq)) & occ).any()
        {
            break;
        }
        d += 1;
        gain[d] = attacker - gain[d - 1];
        if (-gain[d - 1]).max(gain[d]) < 0 || d == gain.len() - 1 {
            break;
        }
        attacker = piece_value(role);
        occ ^= Bitboard::from(sq);
        side = !side;
    }
    while d > 0 {
        gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
        d -= 1;
    }
    gain[0]
}

fn least_valuable(board: &Board, att: Bitboard) -> Option<(Square, Role)> {
    for role in Role::ALL {
        if let Some(sq) = (att & board.by_role(role)).first() {
            return Some((sq, role));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::uci::UciMove;

    fn pos(fen: &str) -> Chess {
        crate::fen::parse_fen(fen).expect("legal FEN")
    }

    /// The order of every move scored first, its exchange evaluated at once.
    fn scored_first(pos: &Chess, tt_move: u16, quiet: QuietOrder<'_>) -> Vec<Move> {
        let mut moves = pos.legal_moves();
        let mut scores: Vec<i32> = moves
            .iter()
            .map(|m| {
                let s = score(m, pos.turn(), tt_move, quiet);
                match m.capture() {
                    Some(v) if s < ORDER_HASH_MOVE && see(pos, m) < 0 => {
                        ORDER_BAD_CAPTURE + mvv_lva(v, m.role())
                    }
                    _ => s,
                }
            })
            .collect();
        for i in 0..moves.len() {
            let best = i + first_best(&scores[i..]);
            moves.swap(i, best);
            scores.swap(i, best);
        }
        moves.to_vec()
    }

    #[test]
    fn the_lazy_order_is_that_of_every_move_scored_first() {
        let fens = [
            "r1bq1rk1/pp2bppp/2n2n2/2pp4/3P4/2PBPN2/PP1N1PPP/R2QK2R w KQ - 0 9",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "2r3k1/1q3ppp/p2p4/1p1Pp3/4Pn2/1PN1QP2/P5PP/2R3K1 b - - 0 1",
            "3r3k/3r4/8/8/8/8/3R4/3R3K w - - 0 1",
            "4k3/1P6/8/3p4/2N1P3/8/8/4K3 w - - 0 1",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut ties = 0;
        for fen in fens {
            let p = pos(fen);
            let legal = p.legal_moves();
            for round in 0..50 {
                // Few distinct history values, so that ties come up and must be broken alike.
                let history: Vec<i32> = (0..8192).map(|_| (next() % 5) as i32 * 100).collect();
                let pick = |n: u64| encode_move(&legal[(n % legal.len() as u64) as usize]);
                let killers = [pick(next()), pick(next())];
                let tt_move = if round % 3 == 0 { 0 } else { pick(next()) };
                let quiet = QuietOrder {
                    killers,
                    history: &history,
                    cont: [&[], &[]],
                };
                let mut moves = legal.clone();
                let mut picker = MovePicker::new(&p, &mut moves, tt_move, quiet);
                let mut lazy = Vec::new();
                while let Some(m) = picker.next(&p) {
                    assert_eq!(picker.see_of_last(&p), see(&p, &m), "{fen}: {m}");
                    lazy.push(m);
                }
                let eager = scored_first(&p, tt_move, quiet);
                assert_eq!(lazy, eager, "{fen}, round {round}");
                let scores: Vec<i32> = legal.iter().map(|m| score(m, p.turn(), 0, quiet)).collect();
                ties += scores.len()
                    - scores
                        .iter()
                        .collect::<std::collections::BTreeSet<_>>()
                        .len();
            }
        }
        assert!(ties > 100, "ties {ties}");
    }

    #[test]
    fn static_exchange() {
        // The exchange of a move given in UCI in the position of a FEN.
        let see_of = |fen: &str, uci: &[u8]| {
            let p = pos(fen);
            let m = UciMove::from_ascii(uci)
                .expect("uci")
                .to_move(&p)
                .expect("legal");
            see(&p, &m)
        };
        assert_eq!(see_of("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", b"e4d5"), 100);
        // Queen takes a pawn defended by a pawn.
        assert_eq!(
            see_of("4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1", b"d1d5"),
            100 - 950
        );
        // Rook takes a rook defended by a rook, backed by a second rook: an even trade.
        assert_eq!(see_of("3r3k/3r4/8/8/8/8/3R4/3R3K w - - 0 1", b"d2d7"), 500);
        // Quiet moves: a knight to a square a pawn guards, one to a safe square, castling.
        let quiet = "4k3/8/8/2p5/8/1N6/8/4K2R w K - 0 1";
        assert_eq!(see_of(quiet, b"b3d4"), -piece_value(Role::Knight));
        assert_eq!(see_of(quiet, b"b3a5"), 0);
        assert_eq!(see_of(quiet, b"e1g1"), 0);
    }
}
