//! The evaluation's weights (middlegame, endgame) in centipawns, one per parameter of
//! [`super::params`]. Written by `retro tune`; regenerate rather than edit.
//!
//! Data: 1504919 positions (378228 from played games, 877462 adjudicated, 249229 from the
//! tables), 1354919 fitted. K = 1.2194, 500 epochs at rate 1, L2 1e-8: mean squared error
//! 0.089849 -> 0.088967 (held out: 0.089930 on 150000 -> 0.089381 on 150000).

use super::{params, S};

/// Every parameter's weight, by index.
#[rustfmt::skip]
pub static WEIGHTS: [S; params::COUNT] = [
    // MATERIAL: Material of a pawn, knight, bishop, rook, queen, king (unused).
    S(67, 74), S(349, 304), S(366, 354), S(463, 564), S(1047, 1034), S(0, 0),
    // PST: Piece-square values by role (pawn to king) and square, from white's side.
    S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0),
    S(-12, 14), S(12, 11), S(-3, 25), S(3, 16), S(6, 29), S(22, 17), S(36, -11), S(5, 6),
    S(-3, 8), S(3, 9), S(1, 9), S(3, 16), S(7, 20), S(-3, 4), S(33, -12), S(7, -2),
    S(-3, 25), S(3, 14), S(12, 9), S(16, 7), S(25, 8), S(16, -3), S(17, 8), S(-1, 10),
    S(2, 31), S(19, 12), S(5, 24), S(34, 14), S(27, 11), S(37, -8), S(21, 12), S(14, 15),
    S(21, 30), S(20, 28), S(22, 45), S(24, 21), S(38, 28), S(43, 38), S(36, 17), S(-12, -5),
    S(27, 24), S(34, 47), S(42, 76), S(29, 54), S(44, 38), S(35, 49), S(34, 46), S(22, 32),
    S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0),
    S(-33, -26), S(-20, -13), S(-18, -12), S(-10, -15), S(1, -10), S(-8, -2), S(-21, -6), S(-19, -12),
    S(-29, -8), S(-6, 5), S(-6, -8), S(-2, -6), S(10, -10), S(9, -18), S(-11, -14), S(-18, -20),
    S(-20, -30), S(-7, -13), S(-8, -2), S(5, 4), S(16, -1), S(6, -10), S(9, 16), S(-18, -2),
    S(-21, 5), S(-1, 2), S(18, 14), S(13, 17), S(11, 28), S(20, 6), S(6, 9), S(-12, 8),
    S(-2, 5), S(5, 12), S(23, 18), S(29, 21), S(24, 30), S(31, 19), S(1, 6), S(22, 6),
    S(-9, -2), S(-10, -1), S(-2, 10), S(18, 19), S(20, 10), S(40, 3), S(17, 5), S(-8, 1),
    S(-33, -20), S(-7, 0), S(5, -9), S(6, 4), S(6, 3), S(-6, -10), S(-10, -3), S(-2, -6),
    S(-54, -33), S(-21, -12), S(-16, -11), S(-9, -12), S(-4, -6), S(-15, -10), S(-21, -13), S(-25, -24),
    S(-17, -8), S(-1, -12), S(-14, -5), S(-17, -7), S(7, 8), S(-3, -6), S(-24, -6), S(-13, -20),
    S(-16, -5), S(4, -1), S(0, -14), S(-7, 10), S(16, -5), S(-10, -16), S(19, -17), S(-9, -17),
    S(1, -16), S(11, 3), S(26, 1), S(6, 4), S(-2, 15), S(24, -3), S(19, -2), S(-13, 0),
    S(30, -1), S(8, -3), S(0, 36), S(13, 25), S(26, 13), S(1, 12), S(10, -1), S(-2, -5),
    S(-6, -18), S(2, 5), S(15, 9), S(33, 30), S(18, 21), S(6, 10), S(1, 14), S(6, -14),
    S(-12, -3), S(5, -5), S(17, 5), S(13, 9), S(4, 17), S(19, 23), S(0, 2), S(19, 17),
    S(-8, 3), S(5, -6), S(0, 4), S(-5, -4), S(-9, 6), S(-11, 10), S(-3, 8), S(-7, 1),
    S(-23, -3), S(-7, -5), S(-10, -11), S(1, 7), S(0, 3), S(-6, -3), S(-4, 7), S(-4, 2),
    S(-3, -10), S(3, -17), S(0, -17), S(4, -11), S(22, -37), S(17, -16), S(-15, -7), S(-5, -27),
    S(-14, -7), S(-15, -14), S(6, -13), S(-18, -18), S(-1, -22), S(5, -26), S(9, -22), S(-43, -9),
    S(-25, 9), S(-7, -11), S(3, -6), S(5, -11), S(-11, -10), S(7, 3), S(-11, -1), S(-8, 0),
    S(-24, 3), S(-18, 3), S(-9, 2), S(-20, -1), S(0, 5), S(1, 9), S(-21, 9), S(-13, -7),
    S(-8, 19), S(9, 16), S(10, 3), S(19, 14), S(13, 11), S(7, 16), S(14, 14), S(-7, 9),
    S(12, 16), S(9, 6), S(28, 8), S(16, 6), S(23, 14), S(18, 16), S(21, 8), S(2, 11),
    S(27, 24), S(25, 12), S(21, 17), S(33, 22), S(24, 15), S(29, 17), S(24, 12), S(10, 12),
    S(19, 18), S(8, 8), S(7, 16), S(11, 12), S(10, 11), S(1, 10), S(8, 6), S(8, 15),
    S(-11, -17), S(-25, -18), S(-10, -13), S(-3, -18), S(-3, -15), S(-20, -16), S(-4, -12), S(-2, -13),
    S(-27, -18), S(-23, -15), S(0, -20), S(3, -11), S(14, -31), S(-2, -16), S(7, -19), S(6, -5),
    S(-3, -5), S(-4, -4), S(-13, 1), S(-2, 3), S(-11, 4), S(3, -1), S(9, 0), S(17, -6),
    S(-11, -11), S(-9, 4), S(1, 6), S(-12, 21), S(8, 14), S(8, 14), S(10, 9), S(3, 8),
    S(-16, -1), S(-13, 4), S(7, 10), S(7, 29), S(20, 22), S(18, 16), S(5, 7), S(2, 10),
    S(-4, -6), S(-4, -2), S(5, 6), S(15, 18), S(21, 23), S(22, 19), S(20, 12), S(16, 4),
    S(-1, -10), S(-7, -3), S(-1, 5), S(10, 12), S(9, 9), S(7, 5), S(9, -7), S(11, -1),
    S(-4, -12), S(6, -4), S(1, -3), S(4, 0), S(7, 7), S(3, -1), S(4, -9), S(-2, -12),
    S(-5, -33), S(36, -32), S(22, -1), S(-27, -13), S(14, -31), S(-5, -17), S(42, -31), S(1, -33),
    S(5, -4), S(0, -4), S(-9, -1), S(-26, 17), S(-19, 14), S(6, 1), S(22, 1), S(2, -10),
    S(-26, -11), S(-24, 7), S(-23, 0), S(-20, 11), S(-31, 7), S(-17, 7), S(-19, 9), S(-28, -6),
    S(-34, 5), S(-42, 1), S(-35, 19), S(-39, 22), S(-44, 21), S(-45, 19), S(-39, 4), S(-43, -7),
    S(-47, -1), S(-47, 9), S(-49, 20), S(-49, 18), S(-45, 22), S(-47, 19), S(-45, 37), S(-51, -9),
    S(-60, -5), S(-56, 10), S(-58, 16), S(-57, 22), S(-58, 17), S(-57, 18), S(-54, 20), S(-58, -6),
    S(-70, -9), S(-67, 4), S(-68, 10), S(-72, 3), S(-72, 4), S(-69, 0), S(-69, 5), S(-73, -26),
    S(-84, -32), S(-82, -17), S(-82, -2), S(-82, -1), S(-84, -5), S(-85, -14), S(-83, -14), S(-87, -41),
    // PASSED: A passed pawn, by its rank from its side.
    S(0, 0), S(5, 6), S(4, 9), S(-2, 41), S(39, 33), S(64, 41),
    S(80, 64), S(0, 0),
    // PASSED_OUR_KING: A passed pawn, by rank, times the distance of its own king to the square in front.
    S(0, 0), S(6, -2), S(9, -5), S(6, -16), S(-1, -18), S(2, -22),
    S(-4, -22), S(0, 0),
    // PASSED_THEIR_KING: A passed pawn, by rank, times the distance of the enemy king to the square in front.
    S(0, 0), S(-12, 8), S(-15, 11), S(-7, 18), S(-5, 29), S(-13, 50),
    S(29, 43), S(0, 0),
    // PASSED_FREE: A passed pawn whose square in front is empty, by rank.
    S(0, 0), S(9, 8), S(0, 13), S(10, 10), S(-8, 37), S(20, 35),
    S(55, 22), S(0, 0),
    // UNSTOPPABLE: A passed pawn the enemy king cannot catch (rule of the square, with a move to spare) when the enemy has only pawns, its path free.
    S(0, 38),
    // DOUBLED: A pawn with another of its side in front on its file.
    S(-10, 2),
    // ISOLATED: A pawn without pawns of its side on the adjacent files.
    S(-1, -18),
    // SUPPORTED: A pawn defended by a pawn.
    S(11, 10),
    // PHALANX: A pawn with a pawn of its side beside it on the same rank.
    S(5, 15),
    // MOBILITY_KNIGHT: A knight by the number of squares it reaches (not own pieces, not enemy pawn attacks).
    S(-31, -40), S(-14, -44), S(-4, -16), S(0, 1), S(4, 19), S(7, 27),
    S(12, 24), S(16, 23), S(30, 12),
    // MOBILITY_BISHOP: A bishop by the number of squares it reaches.
    S(-31, -48), S(-18, -49), S(-10, -25), S(-5, -9), S(3, 0), S(1, 16),
    S(3, 12), S(5, 13), S(6, 18), S(14, 19), S(14, 15), S(19, 38),
    S(31, 25), S(29, 44),
    // MOBILITY_ROOK: A rook by the number of squares it reaches.
    S(-27, -53), S(-16, -34), S(-15, -25), S(-9, -27), S(-8, -7), S(-9, 6),
    S(-8, 9), S(-4, 14), S(-3, 20), S(2, 25), S(14, 21), S(13, 28),
    S(22, 19), S(17, 20), S(16, 27),
    // MOBILITY_QUEEN: A queen by the number of squares it reaches.
    S(-17, -27), S(-20, -30), S(-16, -30), S(-11, -31), S(-15, -26), S(-11, -26),
    S(-9, -28), S(-8, -16), S(-3, -11), S(-2, 1), S(7, -10), S(2, 12),
    S(0, 9), S(11, 13), S(3, 22), S(16, 15), S(11, 18), S(15, 24),
    S(13, 18), S(15, 19), S(12, 22), S(13, 21), S(16, 22), S(13, 22),
    S(12, 24), S(13, 25), S(13, 26), S(14, 28),
    // ROOK_OPEN: A rook on a file without pawns.
    S(49, -2),
    // ROOK_SEMI_OPEN: A rook on a file without pawns of its side.
    S(14, 21),
    // BISHOP_PAIR: Both bishops.
    S(29, 43),
    // KING_ATTACK: Attack units on the enemy king's zone (two attackers or more, with a queen), up to 40.
    S(0, 0), S(0, 0), S(1, 0), S(3, 0), S(11, -1), S(33, 7),
    S(21, 5), S(13, 11), S(53, 11), S(29, 9), S(58, 8), S(34, 0),
    S(49, 3), S(59, 1), S(64, -2), S(80, 1), S(88, 2), S(95, 6),
    S(109, -1), S(128, 6), S(137, 1), S(149, 1), S(159, 1), S(173, -2),
    S(190, 0), S(207, 0), S(228, 0), S(245, 2), S(262, 1), S(280, 1),
    S(300, 0), S(320, 0), S(342, 0), S(363, 0), S(386, 1), S(407, 0),
    S(432, 0), S(456, 0), S(481, 0), S(507, 0), S(533, 0),
    // KING_SHIELD: Pawns sheltering the own king on the first two ranks, 0 to 3.
    S(-3, 5), S(8, -3), S(17, -4), S(21, -15),
    // KING_OPEN: Files without own pawns at the own king on the first two ranks, 0 to 3.
    S(10, -7), S(-8, -12), S(-25, -10), S(-77, 11),
    // THREAT_BY_PAWN: An enemy piece (not a pawn) attacked by a pawn.
    S(38, 37),
    // THREAT_BY_MINOR: An enemy rook or queen attacked by a knight or bishop.
    S(39, 21),
    // THREAT_BY_ROOK: An enemy queen attacked by a rook.
    S(32, 7),
    // OUTPOST: A knight, a bishop on an outpost: on the fourth to sixth rank, defended by a pawn, out of reach of the enemy pawns.
    S(13, 17), S(26, 11),
    // ROOK_SEVENTH: A rook on the seventh rank.
    S(10, 1),
    // BISHOP_PAWNS: A bishop, times the pawns of its side on squares of its colour.
    S(-1, -13),
    // KING_STORM: An enemy pawn storming the own king (on the first two ranks): on each of the king's files, the nearest enemy pawn in front of the king, by its rank distance (1-2, 3, 4).
    S(1, 6), S(4, -1), S(-1, 5),
    // HANGING: An enemy pawn, an enemy piece (not the king) that we attack and it does not defend.
    S(12, 28), S(10, 16),
    // SAFE_CHECK: A knight, bishop, rook, queen that can give check on a square the enemy does not attack and we do not occupy (counted once per role).
    S(23, 3), S(7, 17), S(25, 10), S(14, 35),
];
