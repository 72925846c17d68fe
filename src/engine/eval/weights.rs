//! The evaluation's weights (middlegame, endgame) in centipawns, one per parameter of
//! [`super::params`]. Written by `retro tune`; regenerate rather than edit.
//!
//! Data: 1891108 positions (475180 from played games, 1103136 adjudicated, 312792 from the
//! tables), 1702108 fitted. K = 1.2466, 500 epochs at rate 1, L2 1e-8: mean squared error
//! 0.089152 -> 0.088657 (held out: 0.089260 on 189000 -> 0.088975 on 189000).

use super::{params, S};

/// Every parameter's weight, by index.
#[rustfmt::skip]
pub static WEIGHTS: [S; params::COUNT] = [
    // MATERIAL: Material of a pawn, knight, bishop, rook, queen, king (unused).
    S(66, 73), S(351, 298), S(363, 345), S(468, 560), S(1052, 1030), S(0, 0),
    // PST: Piece-square values by role (pawn to king) and square, from white's side.
    S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0),
    S(-9, 17), S(12, 13), S(-1, 23), S(2, 18), S(8, 30), S(25, 15), S(37, -11), S(3, 6),
    S(-3, 13), S(5, 10), S(3, 11), S(1, 22), S(6, 23), S(-2, 6), S(33, -10), S(6, 3),
    S(-1, 26), S(7, 15), S(14, 10), S(15, 13), S(23, 10), S(15, 1), S(14, 11), S(-5, 13),
    S(5, 36), S(20, 15), S(4, 25), S(31, 15), S(23, 13), S(36, -6), S(18, 12), S(8, 12),
    S(26, 24), S(22, 19), S(24, 39), S(21, 23), S(35, 27), S(44, 24), S(38, 11), S(-12, -8),
    S(26, 20), S(36, 48), S(42, 74), S(29, 57), S(47, 41), S(34, 43), S(35, 51), S(21, 14),
    S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0),
    S(-31, -26), S(-23, -16), S(-17, -12), S(-11, -13), S(-1, -13), S(-5, -3), S(-22, -4), S(-14, -10),
    S(-31, -7), S(-6, 5), S(0, -11), S(-4, -7), S(8, -11), S(4, -18), S(-10, -14), S(-16, -20),
    S(-20, -33), S(-6, -13), S(-7, -7), S(6, 7), S(16, -2), S(6, -9), S(6, 11), S(-21, 2),
    S(-21, 7), S(-3, 2), S(18, 13), S(14, 18), S(11, 28), S(19, 7), S(6, 10), S(-7, 9),
    S(-3, 2), S(8, 11), S(24, 19), S(31, 17), S(21, 33), S(30, 17), S(1, 7), S(25, 8),
    S(-7, 1), S(-12, 0), S(-2, 13), S(18, 21), S(22, 9), S(41, -2), S(17, 3), S(-7, 5),
    S(-34, -20), S(-5, 3), S(6, -12), S(6, 4), S(5, 5), S(-7, -11), S(-10, -2), S(1, -5),
    S(-62, -36), S(-21, -12), S(-17, -11), S(-11, -14), S(-5, -7), S(-16, -11), S(-21, -13), S(-24, -24),
    S(-19, -10), S(1, -13), S(-13, -2), S(-16, -8), S(1, 6), S(-4, -7), S(-28, -8), S(-12, -21),
    S(-18, -7), S(3, -1), S(-2, -14), S(-8, 11), S(15, -7), S(-8, -15), S(20, -19), S(-4, -21),
    S(-2, -14), S(9, 4), S(24, -1), S(12, 8), S(-3, 12), S(26, -6), S(16, -6), S(-11, 0),
    S(28, -2), S(9, -3), S(0, 36), S(11, 21), S(22, 13), S(3, 12), S(14, -1), S(0, -5),
    S(-8, -20), S(8, 7), S(23, 8), S(30, 28), S(17, 19), S(9, 15), S(7, 12), S(7, -15),
    S(-9, -1), S(3, -7), S(18, 7), S(16, 11), S(4, 16), S(23, 24), S(7, 4), S(16, 17),
    S(-12, 5), S(7, -7), S(-3, 1), S(-7, -2), S(-10, 9), S(-11, 14), S(-6, 7), S(-11, 1),
    S(-27, 0), S(-7, -5), S(-11, -12), S(1, 8), S(1, 7), S(-8, -5), S(-3, 9), S(-6, 3),
    S(-4, -14), S(6, -21), S(2, -22), S(4, -15), S(21, -37), S(15, -18), S(-12, -10), S(-4, -30),
    S(-19, -13), S(-14, -15), S(4, -14), S(-21, -19), S(-1, -26), S(4, -31), S(13, -24), S(-42, -9),
    S(-27, 8), S(-10, -10), S(3, -8), S(2, -11), S(-12, -9), S(5, 4), S(-8, -2), S(-5, -1),
    S(-31, 6), S(-19, 5), S(-13, 6), S(-20, 3), S(0, 6), S(-2, 9), S(-23, 12), S(-17, -5),
    S(-12, 21), S(7, 14), S(14, 3), S(24, 18), S(13, 11), S(7, 17), S(16, 15), S(-7, 10),
    S(11, 19), S(9, 10), S(28, 9), S(19, 8), S(25, 15), S(21, 16), S(23, 7), S(1, 12),
    S(25, 23), S(25, 13), S(19, 17), S(33, 19), S(25, 17), S(31, 15), S(25, 11), S(6, 14),
    S(25, 17), S(11, 8), S(9, 18), S(13, 13), S(12, 14), S(0, 9), S(10, 8), S(11, 17),
    S(-6, -17), S(-26, -19), S(-11, -14), S(-2, -22), S(-6, -17), S(-21, -17), S(-6, -13), S(-4, -14),
    S(-25, -19), S(-23, -15), S(3, -24), S(2, -13), S(15, -37), S(6, -21), S(7, -23), S(3, -6),
    S(2, -3), S(-4, -5), S(-9, 1), S(0, 2), S(-8, 1), S(2, 4), S(8, -4), S(12, -8),
    S(-7, -10), S(-10, 6), S(2, 5), S(-13, 21), S(7, 14), S(7, 16), S(8, 12), S(1, 10),
    S(-21, 0), S(-12, 4), S(8, 8), S(3, 30), S(17, 24), S(18, 16), S(3, 8), S(-1, 12),
    S(-7, -7), S(-1, -1), S(7, 7), S(18, 20), S(25, 25), S(23, 21), S(18, 14), S(15, 7),
    S(2, -8), S(-11, -4), S(0, 4), S(11, 14), S(9, 10), S(8, 6), S(8, -8), S(8, 0),
    S(-3, -12), S(7, -4), S(2, -2), S(5, 2), S(8, 8), S(4, 0), S(6, -8), S(-5, -12),
    S(-9, -29), S(35, -30), S(19, 0), S(-28, -15), S(11, -32), S(-7, -17), S(40, -32), S(0, -35),
    S(1, -2), S(2, 0), S(-9, 1), S(-27, 17), S(-17, 12), S(5, 2), S(23, -1), S(2, -9),
    S(-26, -11), S(-25, 7), S(-22, 2), S(-16, 9), S(-32, 8), S(-16, 9), S(-18, 10), S(-29, -5),
    S(-34, 2), S(-42, 0), S(-35, 17), S(-38, 21), S(-44, 21), S(-46, 22), S(-39, 5), S(-44, -7),
    S(-48, -6), S(-47, 7), S(-49, 19), S(-48, 15), S(-44, 22), S(-47, 17), S(-45, 35), S(-52, -11),
    S(-60, -4), S(-55, 12), S(-57, 14), S(-56, 21), S(-57, 16), S(-56, 21), S(-53, 19), S(-57, -5),
    S(-69, -7), S(-66, 8), S(-67, 12), S(-72, 3), S(-72, 4), S(-68, 2), S(-69, 8), S(-73, -29),
    S(-84, -35), S(-81, -15), S(-82, -2), S(-82, 1), S(-84, -7), S(-85, -12), S(-82, -13), S(-88, -48),
    // PASSED: A passed pawn, by its rank from its side.
    S(0, 0), S(7, 9), S(4, 11), S(-10, 46), S(42, 31), S(70, 33),
    S(82, 45), S(0, 0),
    // PASSED_OUR_KING: A passed pawn, by rank, times the distance of its own king to the square in front.
    S(0, 0), S(6, -2), S(9, -6), S(9, -17), S(0, -17), S(3, -20),
    S(-5, -20), S(0, 0),
    // PASSED_THEIR_KING: A passed pawn, by rank, times the distance of the enemy king to the square in front.
    S(0, 0), S(-12, 7), S(-15, 11), S(-8, 17), S(-6, 27), S(-15, 47),
    S(24, 44), S(0, 0),
    // PASSED_FREE: A passed pawn whose square in front is empty, by rank.
    S(0, 0), S(12, 9), S(0, 13), S(7, 9), S(-13, 35), S(22, 34),
    S(64, 22), S(0, 0),
    // UNSTOPPABLE: A passed pawn the enemy king cannot catch (rule of the square, with a move to spare) when the enemy has only pawns, its path free.
    S(0, 45),
    // DOUBLED: A pawn with another of its side in front on its file.
    S(-12, 2),
    // ISOLATED: A pawn without pawns of its side on the adjacent files.
    S(-1, -21),
    // SUPPORTED: A pawn defended by a pawn.
    S(11, 10),
    // PHALANX: A pawn with a pawn of its side beside it on the same rank.
    S(5, 11),
    // MOBILITY_KNIGHT: A knight by the number of squares it reaches (not own pieces, not enemy pawn attacks).
    S(-29, -48), S(-12, -43), S(-3, -14), S(1, 1), S(5, 18), S(7, 28),
    S(12, 24), S(15, 22), S(28, 11),
    // MOBILITY_BISHOP: A bishop by the number of squares it reaches.
    S(-28, -54), S(-17, -50), S(-10, -24), S(-4, -8), S(3, 1), S(2, 14),
    S(3, 9), S(6, 13), S(6, 18), S(13, 20), S(14, 16), S(14, 38),
    S(31, 25), S(26, 43),
    // MOBILITY_ROOK: A rook by the number of squares it reaches.
    S(-27, -62), S(-16, -36), S(-15, -24), S(-9, -23), S(-8, -3), S(-10, 5),
    S(-7, 11), S(-3, 14), S(-3, 19), S(2, 23), S(14, 21), S(10, 29),
    S(26, 20), S(20, 18), S(19, 26),
    // MOBILITY_QUEEN: A queen by the number of squares it reaches.
    S(-16, -27), S(-17, -32), S(-15, -33), S(-12, -35), S(-15, -30), S(-10, -25),
    S(-8, -29), S(-6, -15), S(-2, -9), S(0, 1), S(7, -6), S(2, 15),
    S(0, 11), S(9, 14), S(1, 24), S(17, 15), S(10, 19), S(14, 24),
    S(13, 18), S(16, 18), S(13, 23), S(12, 19), S(16, 21), S(12, 20),
    S(12, 23), S(13, 24), S(13, 26), S(14, 28),
    // ROOK_OPEN: A rook on a file without pawns.
    S(47, -2),
    // ROOK_SEMI_OPEN: A rook on a file without pawns of its side.
    S(14, 20),
    // BISHOP_PAIR: Both bishops.
    S(27, 48),
    // KING_ATTACK: Attack units on the enemy king's zone (two attackers or more, with a queen), up to 40.
    S(0, 0), S(0, 0), S(1, 0), S(3, 0), S(12, 0), S(36, 8),
    S(21, 6), S(12, 14), S(50, 9), S(26, 9), S(60, 9), S(35, 1),
    S(49, 4), S(57, 1), S(63, -2), S(81, 1), S(88, 2), S(93, 6),
    S(108, -2), S(128, 6), S(138, 1), S(149, 1), S(157, 0), S(173, -2),
    S(188, -1), S(207, 0), S(228, 0), S(245, 2), S(262, 1), S(279, 0),
    S(300, 0), S(320, 0), S(342, 0), S(363, 0), S(386, 1), S(407, 0),
    S(432, 0), S(456, 0), S(481, 0), S(507, 0), S(533, 0),
    // KING_SHIELD: Pawns sheltering the own king on the first two ranks, 0 to 3.
    S(-5, 7), S(4, -2), S(12, -3), S(17, -12),
    // KING_OPEN: Files without own pawns at the own king on the first two ranks, 0 to 3.
    S(4, -8), S(-12, -10), S(-27, -8), S(-82, 16),
    // THREAT_BY_PAWN: An enemy piece (not a pawn) attacked by a pawn.
    S(40, 38),
    // THREAT_BY_MINOR: An enemy rook or queen attacked by a knight or bishop.
    S(37, 19),
    // THREAT_BY_ROOK: An enemy queen attacked by a rook.
    S(36, 9),
    // OUTPOST: A knight, a bishop on an outpost: on the fourth to sixth rank, defended by a pawn, out of reach of the enemy pawns.
    S(8, 22), S(25, 9),
    // ROOK_SEVENTH: A rook on the seventh rank.
    S(7, 0),
    // BISHOP_PAWNS: A bishop, times the pawns of its side on squares of its colour.
    S(0, -13),
    // KING_STORM: An enemy pawn storming the own king (on the first two ranks): on each of the king's files, the nearest enemy pawn in front of the king, by its rank distance (1-2, 3, 4).
    S(-1, 1), S(4, -1), S(-1, 3),
    // HANGING: An enemy pawn, an enemy piece (not the king) that we attack and it does not defend.
    S(14, 30), S(11, 18),
    // SAFE_CHECK: A knight, bishop, rook, queen that can give check on a square the enemy does not attack and we do not occupy (counted once per role).
    S(33, 2), S(7, 20), S(36, 8), S(12, 47),
    // PASSED_SAFE: A passed pawn, by rank, whose path to promotion holds no enemy man and no square the enemy attacks.
    S(0, 0), S(-1, 3), S(-1, 2), S(-4, 13), S(2, 24), S(9, 37),
    S(7, 34), S(0, 0),
    // BACKWARD: A pawn that cannot be supported by its side's pawns (none on the adjacent files beside or behind it, not isolated) and whose square in front an enemy pawn attacks.
    S(-4, -11),
    // PUSH_THREAT: An enemy piece (not a pawn or king) that a safe push of one of our pawns would attack.
    S(15, 14),
    // WEAK_KING_ZONE: A square next to the enemy king that we attack and that only the king defends.
    S(10, -3),
    // MINOR_BEHIND_PAWN: A knight or bishop with a pawn (of either side) on the square in front of it.
    S(1, 9),
    // SPACE
    S(0, 0), S(0, 0),
    // ROOK_BEHIND_PASSER
    S(0, 0), S(0, 0),
    // KING_PROTECTOR
    S(0, 0), S(0, 0),
    // KING_PAWN_DISTANCE
    S(0, 0),
    // KNIGHT_PAWNS
    S(0, 0),
    // ROOK_PAWNS
    S(0, 0),
    // PAWNLESS_FLANK
    S(0, 0),
    // TRAPPED_ROOK
    S(0, 0),
    // LONG_DIAGONAL
    S(0, 0),
    // REACHABLE_OUTPOST
    S(0, 0),
    // RESTRICTED
    S(0, 0),
    // WEAK_UNOPPOSED
    S(0, 0),
];
