//! The evaluation's weights (middlegame, endgame) in centipawns, one per parameter of
//! [`super::params`]. Written by `retro tune`; regenerate rather than edit.
//!
//! Data: 859494 positions (214186 from played games, 495075 adjudicated, 150233 from the
//! tables), 774000 fitted. K = 1.1615, 500 epochs at rate 1, L2 1e-8: mean squared error
//! 0.091753 -> 0.088860 (held out: 0.090622 on 85494 -> 0.089418 on 85494).

use super::{params, S};

/// Every parameter's weight, by index.
#[rustfmt::skip]
pub static WEIGHTS: [S; params::COUNT] = [
    // MATERIAL: Material of a pawn, knight, bishop, rook, queen, king (unused).
    S(66, 81), S(345, 312), S(365, 357), S(458, 570), S(1035, 1027), S(0, 0),
    // PST: Piece-square values by role (pawn to king) and square, from white's side.
    S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0),
    S(-11, 11), S(8, 3), S(1, 28), S(1, 10), S(4, 26), S(22, 14), S(28, -8), S(10, 3),
    S(1, 4), S(-1, 13), S(7, 6), S(2, 12), S(8, 18), S(-7, 3), S(25, -12), S(12, 0),
    S(-1, 21), S(-1, 6), S(20, 5), S(18, 7), S(29, 9), S(13, -8), S(16, 6), S(3, 12),
    S(3, 30), S(17, 9), S(8, 24), S(33, 7), S(30, 8), S(39, -5), S(19, 8), S(10, 18),
    S(15, 32), S(22, 30), S(19, 53), S(25, 19), S(41, 31), S(39, 48), S(37, 29), S(-8, 10),
    S(27, 19), S(31, 48), S(42, 81), S(30, 50), S(43, 39), S(37, 60), S(32, 37), S(21, 50),
    S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0),
    S(-34, -24), S(-21, -9), S(-20, -12), S(-6, -16), S(4, -4), S(-15, -4), S(-19, -13), S(-22, -14),
    S(-22, -10), S(-8, 1), S(-9, -8), S(-3, -4), S(12, -9), S(20, -23), S(-13, -14), S(-22, -21),
    S(-19, -25), S(-10, -13), S(-10, 4), S(9, 1), S(21, 1), S(4, -8), S(3, 15), S(-16, -12),
    S(-19, 4), S(5, 1), S(20, 17), S(13, 17), S(18, 32), S(20, 8), S(-1, 3), S(-16, 9),
    S(-1, 7), S(8, 11), S(25, 20), S(27, 27), S(27, 28), S(37, 25), S(1, 8), S(12, 1),
    S(-12, -7), S(-7, -1), S(0, 7), S(21, 21), S(19, 14), S(34, 4), S(8, 5), S(-8, -2),
    S(-33, -19), S(-10, -3), S(0, -6), S(7, 6), S(6, 1), S(-6, -9), S(-12, -6), S(-8, -8),
    S(-46, -31), S(-21, -12), S(-14, -10), S(-7, -9), S(-3, -4), S(-14, -9), S(-21, -13), S(-27, -24),
    S(-12, -4), S(-5, -13), S(-13, -8), S(-16, -4), S(8, 12), S(-2, -8), S(-18, -3), S(-12, -18),
    S(-13, -3), S(8, 0), S(0, -11), S(-4, 7), S(16, 3), S(-10, -14), S(21, -14), S(-12, -14),
    S(-3, -14), S(14, 2), S(15, 0), S(1, 1), S(0, 16), S(16, -1), S(22, 4), S(-7, -3),
    S(24, 0), S(9, -6), S(1, 34), S(15, 27), S(26, 13), S(4, 11), S(6, -1), S(-3, -5),
    S(-5, -16), S(0, 4), S(6, 7), S(33, 26), S(25, 22), S(2, 6), S(-1, 13), S(10, -8),
    S(-14, -3), S(6, -1), S(15, 3), S(13, 9), S(-1, 14), S(15, 17), S(-6, 2), S(17, 12),
    S(-2, 4), S(2, -6), S(3, 10), S(-4, -5), S(-7, 2), S(-10, 5), S(1, 9), S(-4, 2),
    S(-18, -6), S(-7, -4), S(-9, -9), S(0, 5), S(-1, -2), S(-4, 0), S(-5, 4), S(-4, -1),
    S(-6, -7), S(-1, -13), S(-8, -13), S(9, -17), S(16, -37), S(13, -17), S(-13, -3), S(-6, -18),
    S(-13, -7), S(-16, -11), S(6, -11), S(-12, -18), S(-1, -15), S(0, -15), S(-5, -21), S(-34, -9),
    S(-25, 9), S(-2, -11), S(4, -3), S(9, -10), S(-6, -11), S(5, 0), S(-13, 1), S(-10, 1),
    S(-15, 2), S(-16, 2), S(-4, -2), S(-15, -2), S(1, 6), S(3, 8), S(-19, 8), S(0, -7),
    S(-3, 16), S(12, 16), S(8, 4), S(13, 9), S(13, 11), S(8, 14), S(12, 15), S(0, 9),
    S(13, 14), S(9, 2), S(27, 6), S(14, 7), S(21, 11), S(11, 14), S(19, 10), S(3, 15),
    S(26, 23), S(23, 11), S(23, 15), S(32, 21), S(24, 15), S(25, 17), S(23, 16), S(15, 15),
    S(9, 14), S(6, 10), S(4, 10), S(8, 11), S(9, 9), S(1, 8), S(5, 2), S(5, 12),
    S(-16, -18), S(-21, -16), S(-10, -11), S(-5, -12), S(0, -14), S(-17, -15), S(-2, -11), S(0, -12),
    S(-27, -17), S(-19, -14), S(-5, -14), S(-1, -9), S(9, -26), S(-5, -11), S(2, -15), S(6, -5),
    S(-7, -8), S(-15, -4), S(-19, 0), S(-2, 6), S(-9, 7), S(3, -3), S(14, 4), S(15, -4),
    S(-15, -12), S(-11, 2), S(-2, 6), S(-3, 20), S(10, 14), S(10, 11), S(12, 6), S(5, 5),
    S(-8, -2), S(-13, 4), S(8, 12), S(12, 26), S(25, 20), S(17, 15), S(9, 7), S(5, 8),
    S(-4, -6), S(-3, -1), S(5, 5), S(15, 16), S(15, 19), S(18, 14), S(18, 8), S(14, 1),
    S(-4, -12), S(-2, -1), S(3, 6), S(8, 9), S(8, 8), S(6, 3), S(8, -7), S(13, -2),
    S(-7, -13), S(3, -5), S(0, -3), S(3, -1), S(6, 6), S(2, -2), S(1, -10), S(0, -11),
    S(1, -34), S(35, -32), S(20, -10), S(-26, -11), S(8, -28), S(-3, -20), S(42, -29), S(7, -29),
    S(8, -8), S(-2, -9), S(-8, -4), S(-21, 19), S(-21, 14), S(7, 2), S(22, 1), S(5, -6),
    S(-27, -16), S(-24, 1), S(-24, -2), S(-25, 14), S(-29, 8), S(-18, 5), S(-20, 9), S(-27, -4),
    S(-34, 8), S(-42, 0), S(-35, 20), S(-40, 22), S(-43, 22), S(-43, 20), S(-37, 4), S(-41, -7),
    S(-47, 3), S(-46, 15), S(-49, 18), S(-50, 22), S(-46, 20), S(-47, 24), S(-45, 36), S(-50, -4),
    S(-60, -6), S(-57, 9), S(-58, 19), S(-58, 20), S(-59, 19), S(-58, 14), S(-55, 23), S(-59, -8),
    S(-71, -14), S(-69, 0), S(-69, 7), S(-72, 4), S(-72, 5), S(-70, 0), S(-70, 1), S(-72, -23),
    S(-84, -30), S(-83, -20), S(-82, -3), S(-83, -3), S(-84, -2), S(-85, -16), S(-84, -15), S(-86, -36),
    // PASSED: A passed pawn, by its rank from its side.
    S(0, 0), S(4, 6), S(8, 9), S(5, 35), S(35, 35), S(57, 47),
    S(77, 82), S(0, 0),
    // PASSED_OUR_KING: A passed pawn, by rank, times the distance of its own king to the square in front.
    S(0, 0), S(4, -1), S(5, -4), S(-3, -14), S(-3, -18), S(5, -22),
    S(-5, -23), S(0, 0),
    // PASSED_THEIR_KING: A passed pawn, by rank, times the distance of the enemy king to the square in front.
    S(0, 0), S(-10, 9), S(-12, 9), S(-2, 17), S(-1, 30), S(-10, 47),
    S(33, 37), S(0, 0),
    // PASSED_FREE: A passed pawn whose square in front is empty, by rank.
    S(0, 0), S(6, 4), S(2, 11), S(14, 11), S(-6, 34), S(14, 25),
    S(43, 13), S(0, 0),
    // UNSTOPPABLE: A passed pawn the enemy king cannot catch (rule of the square, with a move to spare) when the enemy has only pawns, its path free.
    S(0, 28),
    // DOUBLED: A pawn with another of its side in front on its file.
    S(-13, -1),
    // ISOLATED: A pawn without pawns of its side on the adjacent files.
    S(-4, -19),
    // SUPPORTED: A pawn defended by a pawn.
    S(12, 9),
    // PHALANX: A pawn with a pawn of its side beside it on the same rank.
    S(6, 15),
    // MOBILITY_KNIGHT: A knight by the number of squares it reaches (not own pieces, not enemy pawn attacks).
    S(-32, -31), S(-16, -43), S(-5, -20), S(0, 3), S(6, 20), S(8, 26),
    S(14, 25), S(11, 23), S(29, 11),
    // MOBILITY_BISHOP: A bishop by the number of squares it reaches.
    S(-33, -39), S(-20, -41), S(-13, -26), S(-7, -10), S(3, 0), S(0, 14),
    S(3, 11), S(6, 13), S(6, 17), S(15, 17), S(12, 15), S(25, 36),
    S(30, 22), S(33, 43),
    // MOBILITY_ROOK: A rook by the number of squares it reaches.
    S(-32, -43), S(-17, -31), S(-16, -24), S(-10, -29), S(-7, -11), S(-8, 7),
    S(-5, 4), S(-1, 9), S(1, 18), S(3, 26), S(13, 20), S(18, 30),
    S(17, 20), S(11, 22), S(13, 31),
    // MOBILITY_QUEEN: A queen by the number of squares it reaches.
    S(-20, -27), S(-23, -28), S(-19, -27), S(-11, -26), S(-16, -23), S(-13, -26),
    S(-12, -26), S(-11, -17), S(-2, -12), S(-3, -2), S(5, -15), S(1, 9),
    S(5, 6), S(13, 10), S(6, 19), S(17, 14), S(10, 17), S(15, 23),
    S(14, 17), S(14, 19), S(11, 21), S(13, 22), S(15, 23), S(13, 23),
    S(12, 24), S(13, 26), S(13, 26), S(14, 28),
    // ROOK_OPEN: A rook on a file without pawns.
    S(46, -4),
    // ROOK_SEMI_OPEN: A rook on a file without pawns of its side.
    S(14, 21),
    // BISHOP_PAIR: Both bishops.
    S(32, 44),
    // KING_ATTACK: Attack units on the enemy king's zone (two attackers or more, with a queen), up to 40.
    S(0, 0), S(0, 0), S(1, 0), S(3, 0), S(9, -1), S(27, 5),
    S(16, 3), S(17, 8), S(51, 12), S(32, 8), S(54, 6), S(34, -1),
    S(47, 1), S(58, 0), S(61, -2), S(78, 1), S(88, 2), S(95, 4),
    S(109, -1), S(126, 4), S(136, 1), S(148, 0), S(160, 1), S(174, -2),
    S(192, 1), S(207, 0), S(227, 0), S(245, 2), S(262, 1), S(280, 1),
    S(300, 0), S(320, 0), S(342, 0), S(363, 0), S(386, 1), S(407, 0),
    S(432, 0), S(456, 0), S(481, 0), S(507, 0), S(533, 0),
    // KING_SHIELD: Pawns sheltering the own king on the first two ranks, 0 to 3.
    S(-3, 4), S(10, -8), S(20, -2), S(31, -16),
    // KING_OPEN: Files without own pawns at the own king on the first two ranks, 0 to 3.
    S(11, -7), S(-5, -13), S(-25, -8), S(-66, 5),
    // THREAT_BY_PAWN: An enemy piece (not a pawn) attacked by a pawn.
    S(41, 35),
    // THREAT_BY_MINOR: An enemy rook or queen attacked by a knight or bishop.
    S(40, 23),
    // THREAT_BY_ROOK: An enemy queen attacked by a rook.
    S(27, 6),
    // OUTPOST: A knight, a bishop on an outpost: on the fourth to sixth rank, defended by a pawn, out of reach of the enemy pawns.
    S(15, 15), S(21, 13),
    // ROOK_SEVENTH: A rook on the seventh rank.
    S(8, 2),
    // BISHOP_PAWNS: A bishop, times the pawns of its side on squares of its colour.
    S(-2, -12),
    // KING_STORM: An enemy pawn storming the own king (on the first two ranks): on each of the king's files, the nearest enemy pawn in front of the king, by its rank distance (1-2, 3, 4).
    S(8, 5), S(4, -1), S(-1, 4),
];
