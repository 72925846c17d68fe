//! The evaluation's weights (middlegame, endgame) in centipawns, one per parameter of
//! [`super::params`]. Written by `retro tune`; regenerate rather than edit.
//!
//! Data: 392594 positions (89732 from played games, 232901 adjudicated, 69961 from the tables),
//! 353594 fitted. K = 1.0587, 400 epochs at rate 1, L2 1e-8: mean squared error 0.100880 ->
//! 0.095043 (held out: 0.100778 on 39000 -> 0.096481 on 39000).

use super::{params, S};

/// Every parameter's weight, by index.
#[rustfmt::skip]
pub static WEIGHTS: [S; params::COUNT] = [
    // MATERIAL: Material of a pawn, knight, bishop, rook, queen, king (unused).
    S(64, 93), S(341, 316), S(357, 343), S(448, 578), S(1011, 998), S(0, 0),
    // PST: Piece-square values by role (pawn to king) and square, from white's side.
    S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0),
    S(1, 14), S(-3, 8), S(4, 9), S(-11, 17), S(1, 27), S(19, 15), S(9, 5), S(0, -4),
    S(3, 0), S(0, 15), S(12, -2), S(-15, 12), S(9, 3), S(13, 11), S(15, -4), S(9, 4),
    S(9, 9), S(4, 7), S(17, -2), S(15, -7), S(13, -9), S(15, 3), S(11, 6), S(9, 25),
    S(12, 21), S(2, 13), S(27, 25), S(47, 3), S(35, -5), S(30, 1), S(23, -1), S(8, 18),
    S(16, 29), S(23, 15), S(11, 55), S(33, 33), S(37, 26), S(31, 50), S(44, 52), S(17, 37),
    S(26, 17), S(29, 64), S(42, 79), S(37, 62), S(38, 34), S(38, 55), S(32, 31), S(20, 59),
    S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0),
    S(-33, -21), S(-20, -4), S(-24, -13), S(0, -14), S(10, 7), S(-23, -5), S(-3, -23), S(-28, -17),
    S(-13, -8), S(-9, 0), S(-22, -18), S(9, -2), S(2, -11), S(7, -22), S(-20, -14), S(-27, -21),
    S(-19, -21), S(-22, -10), S(-12, 18), S(21, 3), S(1, 7), S(5, -3), S(-6, 5), S(-24, -22),
    S(-2, 11), S(5, -4), S(10, 12), S(21, 14), S(18, 20), S(20, 11), S(0, 3), S(-13, 5),
    S(-1, 8), S(9, 4), S(34, 29), S(37, 27), S(40, 32), S(38, 18), S(14, 11), S(-2, -5),
    S(-14, -9), S(5, 6), S(6, 15), S(24, 13), S(12, 13), S(26, 3), S(-3, 5), S(-8, -8),
    S(-30, -13), S(-13, -6), S(-7, 0), S(8, 8), S(10, 0), S(-5, -5), S(-13, -7), S(-13, -11),
    S(-37, -28), S(-21, -13), S(-13, -11), S(-3, -2), S(-2, -3), S(-13, -8), S(-21, -13), S(-30, -25),
    S(0, 3), S(-11, -13), S(-7, -12), S(-7, -1), S(6, 6), S(-11, -11), S(-11, 2), S(-2, -4),
    S(-16, -6), S(18, -1), S(2, -9), S(5, -2), S(8, 14), S(-16, -11), S(27, -14), S(-16, -12),
    S(-2, -8), S(17, 1), S(12, -7), S(-3, -3), S(9, 13), S(1, 0), S(-4, 0), S(4, -4),
    S(12, -3), S(9, -8), S(8, 28), S(17, 29), S(28, 20), S(6, 12), S(3, 1), S(-7, -8),
    S(-8, -15), S(-3, 12), S(-3, 4), S(34, 24), S(30, 19), S(3, 7), S(0, 7), S(14, 2),
    S(-15, -3), S(1, -4), S(13, 9), S(11, 6), S(4, 15), S(7, 7), S(-15, -2), S(6, 3),
    S(-1, 2), S(0, -2), S(10, 10), S(-3, -2), S(-2, 1), S(-7, 5), S(3, 12), S(-4, 0),
    S(-9, -4), S(-9, -5), S(-7, -6), S(-1, -1), S(-1, -5), S(-2, 3), S(-5, 3), S(-5, -5),
    S(1, -2), S(-8, -12), S(-5, -9), S(19, -13), S(10, -31), S(26, -20), S(-24, 5), S(-14, -3),
    S(-18, -5), S(-21, -7), S(6, -8), S(11, -4), S(-5, -8), S(1, 8), S(-22, -21), S(-18, -12),
    S(-21, 13), S(-6, -6), S(-4, 1), S(0, -8), S(1, -8), S(7, 0), S(-11, -2), S(-17, 1),
    S(4, 5), S(-15, 1), S(-8, -5), S(-6, 4), S(0, 8), S(4, 6), S(-11, 6), S(8, -9),
    S(2, 9), S(12, 5), S(5, 5), S(9, 6), S(12, 7), S(11, 10), S(9, 11), S(9, 8),
    S(14, 12), S(9, -3), S(24, 1), S(15, 11), S(19, 7), S(3, 7), S(15, 10), S(4, 17),
    S(21, 22), S(25, 10), S(24, 13), S(28, 20), S(24, 14), S(21, 16), S(19, 18), S(19, 17),
    S(3, 11), S(3, 12), S(0, -2), S(3, 3), S(5, 4), S(1, 6), S(1, -2), S(0, 2),
    S(-19, -19), S(-13, -12), S(-5, -8), S(-6, -7), S(2, -14), S(-11, -11), S(2, -10), S(-2, -12),
    S(-25, -15), S(-16, -14), S(-10, -8), S(-2, -3), S(5, -20), S(-3, -6), S(-1, -11), S(-2, -7),
    S(-15, -11), S(-27, -5), S(-21, -2), S(0, 11), S(-12, 8), S(7, 3), S(30, 7), S(8, -4),
    S(-16, -12), S(-18, -2), S(6, 7), S(3, 16), S(19, 13), S(8, 7), S(17, 3), S(4, 2),
    S(-3, -3), S(-11, 2), S(7, 12), S(17, 19), S(21, 15), S(18, 15), S(5, 5), S(6, 5),
    S(-7, -5), S(0, 0), S(8, 4), S(13, 12), S(10, 12), S(14, 8), S(13, 2), S(7, -2),
    S(-5, -13), S(-4, -3), S(1, 4), S(4, 5), S(5, 5), S(6, 3), S(5, -6), S(14, -4),
    S(-10, -14), S(2, -6), S(-1, -3), S(3, -2), S(4, 4), S(1, -3), S(-1, -11), S(0, -11),
    S(12, -40), S(36, -31), S(15, -10), S(-20, -14), S(8, -16), S(10, -18), S(25, -20), S(10, -35),
    S(8, -17), S(-7, -7), S(-3, 0), S(-6, 23), S(-16, 13), S(-1, -2), S(20, -1), S(7, -9),
    S(-26, -15), S(-27, -8), S(-25, 0), S(-31, 10), S(-31, 15), S(-23, -1), S(-25, 6), S(-25, -1),
    S(-34, 14), S(-40, 4), S(-37, 12), S(-40, 20), S(-42, 23), S(-43, 17), S(-34, 14), S(-37, -1),
    S(-46, 11), S(-46, 19), S(-48, 25), S(-50, 25), S(-48, 22), S(-49, 20), S(-45, 23), S(-48, 1),
    S(-61, -8), S(-59, 7), S(-59, 19), S(-60, 20), S(-60, 21), S(-58, 15), S(-56, 16), S(-59, -6),
    S(-72, -18), S(-71, -4), S(-71, 4), S(-72, 7), S(-72, 7), S(-72, -3), S(-71, -4), S(-71, -18),
    S(-84, -28), S(-84, -21), S(-83, -6), S(-84, -5), S(-84, 1), S(-85, -17), S(-84, -18), S(-84, -29),
    // PASSED: A passed pawn, by its rank from its side.
    S(0, 0), S(4, 12), S(15, 14), S(12, 30), S(33, 34), S(49, 56),
    S(75, 99), S(0, 0),
    // PASSED_OUR_KING: A passed pawn, by rank, times the distance of its own king to the square in front.
    S(0, 0), S(5, 2), S(6, -5), S(0, -7), S(-1, -15), S(1, -15),
    S(1, -17), S(0, 0),
    // PASSED_THEIR_KING: A passed pawn, by rank, times the distance of the enemy king to the square in front.
    S(0, 0), S(-4, 5), S(-4, 0), S(-4, 11), S(-5, 22), S(14, 25),
    S(28, 17), S(0, 0),
    // PASSED_FREE: A passed pawn whose square in front is empty, by rank.
    S(0, 0), S(7, 4), S(6, 2), S(8, -2), S(-6, 20), S(3, 6),
    S(24, -7), S(0, 0),
    // UNSTOPPABLE: A passed pawn the enemy king cannot catch (rule of the square, with a move to spare) when the enemy has only pawns, its path free.
    S(0, 14),
    // DOUBLED: A pawn with another of its side in front on its file.
    S(-18, -1),
    // ISOLATED: A pawn without pawns of its side on the adjacent files.
    S(-5, -10),
    // SUPPORTED: A pawn defended by a pawn.
    S(11, 5),
    // PHALANX: A pawn with a pawn of its side beside it on the same rank.
    S(9, 11),
    // MOBILITY_KNIGHT: A knight by the number of squares it reaches (not own pieces, not enemy pawn attacks).
    S(-26, -19), S(-20, -32), S(-12, -25), S(-7, 5), S(-1, 22), S(9, 23),
    S(21, 16), S(18, 16), S(29, 11),
    // MOBILITY_BISHOP: A bishop by the number of squares it reaches.
    S(-31, -36), S(-22, -20), S(-17, -38), S(-10, -9), S(-1, -8), S(-9, 12),
    S(5, 8), S(4, 7), S(12, 12), S(11, 15), S(13, 23), S(31, 29),
    S(29, 23), S(36, 39),
    // MOBILITY_ROOK: A rook by the number of squares it reaches.
    S(-38, -36), S(-21, -36), S(-14, -29), S(-8, -25), S(-3, -13), S(-12, 8),
    S(-7, 2), S(5, 4), S(0, 14), S(-2, 26), S(16, 23), S(25, 29),
    S(11, 30), S(5, 26), S(11, 36),
    // MOBILITY_QUEEN: A queen by the number of squares it reaches.
    S(-32, -27), S(-28, -27), S(-21, -23), S(-17, -24), S(-14, -19), S(-10, -27),
    S(-10, -21), S(-11, -16), S(1, -10), S(0, -6), S(0, -18), S(4, 4),
    S(9, 1), S(14, 8), S(9, 14), S(12, 12), S(9, 14), S(13, 20),
    S(14, 15), S(10, 15), S(6, 16), S(11, 20), S(14, 22), S(12, 21),
    S(12, 23), S(13, 26), S(13, 26), S(14, 28),
    // ROOK_OPEN: A rook on a file without pawns.
    S(36, 11),
    // ROOK_SEMI_OPEN: A rook on a file without pawns of its side.
    S(19, 22),
    // BISHOP_PAIR: Both bishops.
    S(27, 47),
    // KING_ATTACK: Attack units on the enemy king's zone (two attackers or more, with a queen), up to 40.
    S(0, 0), S(0, 0), S(1, 0), S(3, 0), S(10, 0), S(19, 3),
    S(11, 0), S(25, 7), S(45, 9), S(33, 6), S(51, 5), S(32, -3),
    S(43, 0), S(55, -1), S(62, -1), S(76, 0), S(89, 1), S(92, 1),
    S(109, -1), S(121, 0), S(135, 1), S(147, -1), S(161, 1), S(175, -1),
    S(195, 2), S(207, 0), S(226, 0), S(245, 1), S(262, 1), S(280, 1),
    S(300, 0), S(320, 0), S(342, 0), S(363, 0), S(386, 1), S(407, 0),
    S(432, 0), S(456, 0), S(481, 0), S(507, 0), S(533, 0),
    // KING_SHIELD: Pawns sheltering the own king on the first two ranks, 0 to 3.
    S(22, -7), S(12, -11), S(21, -5), S(27, -1),
    // KING_OPEN: Files without own pawns at the own king on the first two ranks, 0 to 3.
    S(7, -6), S(0, -9), S(-20, -6), S(-49, -4),
    // THREAT_BY_PAWN: An enemy piece (not a pawn) attacked by a pawn.
    S(37, 24),
    // THREAT_BY_MINOR: An enemy rook or queen attacked by a knight or bishop.
    S(28, 15),
    // THREAT_BY_ROOK: An enemy queen attacked by a rook.
    S(15, 3),
];
