//! The engine's score and move vocabulary, which the search speaks and the rest of the engine
//! (root choice, reports, win chances, the transposition table) reads: scores in centipawns,
//! mates and table wins counted in plies from the root and the bounds that tell them apart,
//! the key of a position and the 16-bit code of a move. It depends on no other module of the
//! engine, so every module may use it without a circle through the search.

use shakmaty::{zobrist::Zobrist64, Chess, EnPassantMode, Move, Position};

/// The score of being checkmated now, negated; a mate in `n` plies scores `MATE - n`
/// ([`mate_in`]), being mated in `n` plies `-MATE + n` ([`mated_in`]).
pub const MATE: i32 = 32_000;
/// Scores beyond this are mates.
pub const MATE_BOUND: i32 = MATE - 1_000;
/// The score of a table win under the 50-move rule whose mate the tables cannot promise within
/// the rule (less the plies to it and to the zeroing move): above every evaluation, below every
/// mate.
pub const TB_WIN: i32 = 20_000;
/// Scores beyond this (and below [`MATE_BOUND`]) are table wins: like mates, they count from
/// the root, so the transposition table stores them relative to the node's ply.
pub const TB_BOUND: i32 = TB_WIN - 1_000;

/// The score of mating `plies` plies from the root (counted from where the score is seen).
#[inline]
pub const fn mate_in(plies: i32) -> i32 {
    MATE - plies
}

/// The score of being mated `plies` plies from the root: the negation of [`mate_in`].
#[inline]
pub const fn mated_in(plies: i32) -> i32 {
    -mate_in(plies)
}

/// The score of a table win (see [`TB_WIN`]) whose zeroing move, which keeps it within the
/// 50-move rule, comes `plies` plies from the root.
#[inline]
pub const fn tb_win_in(plies: i32) -> i32 {
    TB_WIN - plies
}

/// The score of a table loss `plies` plies from the root: the negation of [`tb_win_in`].
#[inline]
pub const fn tb_loss_in(plies: i32) -> i32 {
    -tb_win_in(plies)
}

/// Whether `score` is a mate, for either side.
#[inline]
pub const fn is_mate_score(score: i32) -> bool {
    score.abs() >= MATE_BOUND
}

/// The plies from the root to the mate of a mate score, for either side (the inverse of
/// [`mate_in`] and [`mated_in`]).
#[inline]
pub const fn plies_to_mate(score: i32) -> i32 {
    MATE - score.abs()
}

/// The moves to the mate of a mate score, as UCI counts them: positive when the side to move
/// mates (its mating move counted), negative when it is mated.
#[inline]
pub const fn moves_to_mate(score: i32) -> i32 {
    if score > 0 {
        (plies_to_mate(score) + 1) / 2
    } else {
        -(plies_to_mate(score) / 2)
    }
}

/// A score as the transposition table stores it: mates and table wins counted from the node
/// at `ply` rather than from the root, so an entry is right wherever the position recurs.
#[inline]
pub(crate) fn score_to_tt(s: i32, ply: usize) -> i32 {
    if s >= TB_BOUND {
        s + ply as i32
    } else if s <= -TB_BOUND {
        s - ply as i32
    } else {
        s
    }
}

/// The score of an entry stored by [`score_to_tt`], read at `ply`.
#[inline]
pub(crate) fn score_from_tt(s: i32, ply: usize) -> i32 {
    if s >= TB_BOUND {
        s - ply as i32
    } else if s <= -TB_BOUND {
        s + ply as i32
    } else {
        s
    }
}

/// The Zobrist key of a position (en passant squares only when a capture is legal).
pub fn hash_of(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// A move in 16 bits: from, to, promotion role and a castling flag. 0 is no move.
pub fn encode_move(m: &Move) -> u16 {
    match *m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => from as u16 | (to as u16) << 6 | promotion.map_or(0, |r| r as u16) << 12,
        Move::EnPassant { from, to } => from as u16 | (to as u16) << 6,
        Move::Castle { king, rook } => king as u16 | (rook as u16) << 6 | 1 << 15,
        Move::Put { .. } => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_count_plies_from_the_root() {
        assert_eq!(mate_in(0), MATE);
        assert_eq!(mated_in(0), -MATE);
        assert_eq!(mated_in(7), -(MATE - 7));
        for plies in [0, 1, 2, 27, 999] {
            assert!(is_mate_score(mate_in(plies)) && is_mate_score(mated_in(plies)));
            assert_eq!(plies_to_mate(mate_in(plies)), plies);
            assert_eq!(plies_to_mate(mated_in(plies)), plies);
        }
        assert!(!is_mate_score(tb_win_in(0)) && !is_mate_score(tb_loss_in(0)));
        assert!(tb_win_in(40) >= TB_BOUND && tb_loss_in(40) <= -TB_BOUND);
        assert_eq!(tb_loss_in(40), -(TB_WIN - 40));
        // Mate in 1 move is 1 ply away; mated in 1 move is 2 plies away.
        assert_eq!(moves_to_mate(mate_in(1)), 1);
        assert_eq!(moves_to_mate(mate_in(27)), 14);
        assert_eq!(moves_to_mate(mated_in(2)), -1);
        assert_eq!(moves_to_mate(mated_in(26)), -13);
    }

    #[test]
    fn table_wins_are_stored_relative_to_the_node() {
        // A table win 30 plies from a node at ply 5 (35 from the root), stored there and read
        // where the position recurs at ply 9: 30 plies from there, 39 from the root.
        let stored = score_to_tt(tb_win_in(35), 5);
        assert_eq!(score_from_tt(stored, 9), tb_win_in(39));
        assert_eq!(
            score_from_tt(score_to_tt(tb_loss_in(35), 5), 9),
            tb_loss_in(39)
        );
        // Mates as before; evaluations unchanged.
        assert_eq!(score_from_tt(score_to_tt(mate_in(7), 3), 1), mate_in(5));
        assert_eq!(score_from_tt(score_to_tt(850, 3), 1), 850);
        assert_eq!(score_from_tt(score_to_tt(-850, 3), 1), -850);
    }

    #[test]
    fn move_codes_are_distinct() {
        let p: Chess =
            crate::fen::parse_fen("r3k2r/pPpp1ppp/8/3Pp3/8/8/P1PP1PPP/R3K2R w KQkq e6 0 1")
                .expect("legal FEN");
        let codes: Vec<u16> = p.legal_moves().iter().map(encode_move).collect();
        let mut sorted = codes.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), codes.len());
        assert!(!codes.contains(&0));
    }
}
