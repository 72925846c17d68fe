//! The evaluation's weights (middlegame, endgame) in centipawns, one per parameter of
//! [`super::params`]. Written by `retro tune`; regenerate rather than edit.
//!
//! Data: 1136698 positions (290400 from played games, 667212 adjudicated, 179086 from the
//! tables), 1023698 fitted. K = 1.3222, 500 epochs at rate 1, L2 1e-8: mean squared error
//! 0.086236 -> 0.084552 (held out: 0.088873 on 113000 -> 0.088511 on 113000).

use super::{params, S};

/// Every parameter's weight, by index.
#[rustfmt::skip]
pub static WEIGHTS: [S; params::COUNT] = [
    // MATERIAL: Material of a pawn, knight, bishop, rook, queen, king (unused).
    S(59, 64), S(341, 283), S(383, 335), S(464, 538), S(1061, 1042), S(0, 0),
    // PST: Piece-square values by role (pawn to king) and square, from white's side.
    S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0),
    S(-11, 21), S(15, 8), S(1, 9), S(-4, 19), S(4, 13), S(16, 24), S(34, 1), S(-1, 0),
    S(-7, 20), S(2, 19), S(8, 8), S(-3, 8), S(9, 17), S(1, 7), S(28, -5), S(5, 3),
    S(-3, 28), S(4, 17), S(18, 4), S(20, -2), S(26, 6), S(9, 9), S(-5, 19), S(-2, 10),
    S(0, 43), S(24, 34), S(24, 14), S(28, 12), S(27, 23), S(29, 11), S(12, 7), S(10, 14),
    S(25, 22), S(21, 23), S(29, 23), S(28, 21), S(31, 26), S(44, 26), S(38, 11), S(17, 8),
    S(28, 16), S(37, 47), S(37, 63), S(32, 55), S(48, 45), S(34, 45), S(35, 46), S(19, 12),
    S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0),
    S(-32, -28), S(-29, -23), S(-16, -12), S(-13, -16), S(-2, -14), S(-16, -15), S(-23, 3), S(-13, -12),
    S(-37, -12), S(0, -1), S(-4, -8), S(-6, -9), S(12, -10), S(6, -27), S(-15, -12), S(-14, -16),
    S(-24, -26), S(-1, -8), S(-9, -14), S(10, 0), S(9, 8), S(2, -6), S(2, 1), S(-20, 2),
    S(-14, 7), S(-1, -3), S(11, 15), S(16, 8), S(11, 20), S(22, 18), S(2, 11), S(-6, 9),
    S(-7, 5), S(7, -2), S(20, 16), S(39, 18), S(15, 32), S(23, 10), S(9, 10), S(26, 1),
    S(-9, 3), S(-8, -2), S(0, 16), S(12, 11), S(29, 14), S(44, 5), S(20, 9), S(-3, 9),
    S(-31, -17), S(-6, 6), S(14, -7), S(8, 6), S(3, 3), S(-4, -6), S(-9, 0), S(-1, -5),
    S(-66, -37), S(-19, -8), S(-18, -11), S(-8, -6), S(-4, -4), S(-17, -10), S(-20, -12), S(-29, -25),
    S(-11, -10), S(-1, -16), S(-20, 6), S(-15, -4), S(2, -1), S(-12, -5), S(-27, -6), S(-6, -22),
    S(-14, -2), S(5, -6), S(7, -15), S(-3, -3), S(8, -5), S(6, -11), S(11, -15), S(3, -20),
    S(7, -6), S(21, -3), S(14, 2), S(7, 14), S(-7, 14), S(5, -10), S(11, -8), S(-11, 2),
    S(21, -14), S(8, -7), S(18, 25), S(20, 20), S(13, 7), S(-10, 18), S(13, 2), S(8, -6),
    S(-5, -15), S(8, 3), S(21, 2), S(34, 18), S(26, 19), S(15, 21), S(15, 20), S(10, -11),
    S(-8, -3), S(10, 4), S(12, 1), S(16, 10), S(4, 24), S(27, 15), S(8, 7), S(10, 11),
    S(-16, 4), S(4, -7), S(-1, 7), S(-10, -1), S(-9, 15), S(-9, 18), S(-10, 3), S(-16, -3),
    S(-31, 0), S(-8, -7), S(-10, -8), S(2, 7), S(0, 10), S(-9, -9), S(-3, 10), S(-5, 3),
    S(0, -27), S(5, -18), S(9, -19), S(10, -28), S(15, -37), S(17, -18), S(-15, -13), S(-5, -34),
    S(-9, -13), S(-19, -14), S(11, -15), S(-20, -17), S(-6, -33), S(1, -34), S(-3, -29), S(-42, -17),
    S(-27, 8), S(-11, -5), S(-7, -8), S(-9, -9), S(-1, -12), S(-1, 2), S(-1, -2), S(-20, -8),
    S(-26, 20), S(-19, 12), S(-8, 9), S(-18, 12), S(5, 9), S(-1, 9), S(-17, 19), S(-26, 0),
    S(-12, 18), S(3, 16), S(20, 9), S(15, 9), S(14, 8), S(12, 12), S(18, 12), S(0, 8),
    S(13, 18), S(5, 5), S(28, 6), S(16, 7), S(27, 13), S(17, 13), S(19, 3), S(0, 12),
    S(25, 25), S(16, 15), S(24, 19), S(36, 19), S(22, 12), S(36, 18), S(23, 8), S(7, 11),
    S(24, 24), S(13, 9), S(11, 17), S(14, 14), S(14, 17), S(0, 14), S(9, 9), S(13, 17),
    S(1, -14), S(-19, -22), S(-5, -19), S(1, -26), S(-3, -17), S(-27, -21), S(-8, -16), S(-9, -16),
    S(-22, -19), S(-16, -16), S(5, -20), S(4, -17), S(4, -41), S(-3, -24), S(9, -24), S(-10, -9),
    S(-3, -7), S(-3, -6), S(-8, -1), S(-7, -1), S(-10, -2), S(0, 4), S(15, -5), S(13, -8),
    S(-8, -7), S(-12, 3), S(2, 7), S(-14, 21), S(15, 21), S(6, 16), S(7, 12), S(-6, 12),
    S(-15, 5), S(-10, 5), S(3, 6), S(3, 30), S(15, 29), S(21, 17), S(8, 13), S(3, 13),
    S(-9, -6), S(4, 3), S(9, 7), S(21, 20), S(23, 26), S(26, 24), S(19, 14), S(4, 4),
    S(-2, -7), S(-8, -1), S(2, 8), S(13, 15), S(12, 14), S(11, 6), S(4, -9), S(10, 1),
    S(-2, -11), S(6, -4), S(5, 0), S(5, 4), S(8, 9), S(4, 2), S(6, -7), S(-5, -11),
    S(-8, -24), S(27, -25), S(21, 4), S(-30, -10), S(11, -35), S(-15, -8), S(45, -34), S(12, -36),
    S(1, -4), S(5, -3), S(-14, -3), S(-28, 13), S(-17, 5), S(-4, 2), S(27, -6), S(3, -4),
    S(-26, -9), S(-26, -4), S(-25, 7), S(-14, 4), S(-30, 7), S(-17, 11), S(-14, 1), S(-33, -10),
    S(-35, 5), S(-40, 5), S(-36, 17), S(-40, 16), S(-46, 18), S(-44, 21), S(-40, 3), S(-44, -4),
    S(-48, -3), S(-46, 14), S(-49, 21), S(-48, 17), S(-44, 17), S(-47, 15), S(-45, 28), S(-52, -9),
    S(-60, -3), S(-54, 18), S(-56, 16), S(-55, 22), S(-57, 15), S(-55, 21), S(-53, 17), S(-57, -7),
    S(-70, -12), S(-65, 16), S(-67, 12), S(-71, 5), S(-71, 6), S(-66, 7), S(-68, 14), S(-74, -35),
    S(-85, -38), S(-81, -14), S(-82, -1), S(-82, 3), S(-84, -5), S(-85, -9), S(-81, -9), S(-90, -56),
    // PASSED: A passed pawn, by its rank from its side.
    S(0, 0), S(5, 14), S(-1, 16), S(-7, 44), S(38, 29), S(73, 20),
    S(82, 25), S(0, 0),
    // PASSED_OUR_KING: A passed pawn, by rank, times the distance of its own king to the square in front.
    S(0, 0), S(5, -4), S(9, -6), S(15, -16), S(0, -15), S(-2, -11),
    S(-7, -14), S(0, 0),
    // PASSED_THEIR_KING: A passed pawn, by rank, times the distance of the enemy king to the square in front.
    S(0, 0), S(-7, 6), S(-11, 11), S(-14, 17), S(-5, 25), S(-20, 44),
    S(16, 48), S(0, 0),
    // PASSED_FREE: A passed pawn whose square in front is empty, by rank.
    S(0, 0), S(1, 5), S(-9, 8), S(-1, 11), S(-16, 34), S(26, 28),
    S(74, 41), S(0, 0),
    // UNSTOPPABLE: A passed pawn the enemy king cannot catch (rule of the square, with a move to spare) when the enemy has only pawns, its path free.
    S(0, 51),
    // DOUBLED: A pawn with another of its side in front on its file.
    S(-8, 4),
    // ISOLATED: A pawn without pawns of its side on the adjacent files.
    S(1, -15),
    // SUPPORTED: A pawn defended by a pawn.
    S(13, 12),
    // PHALANX: A pawn with a pawn of its side beside it on the same rank.
    S(7, 9),
    // MOBILITY_KNIGHT: A knight by the number of squares it reaches (not own pieces, not enemy pawn attacks).
    S(-27, -53), S(-11, -46), S(-5, -17), S(1, -1), S(6, 12), S(6, 25),
    S(8, 25), S(13, 23), S(23, 15),
    // MOBILITY_BISHOP: A bishop by the number of squares it reaches.
    S(-25, -55), S(-10, -43), S(-3, -19), S(0, -6), S(4, 6), S(8, 9),
    S(8, 9), S(1, 15), S(9, 19), S(8, 17), S(13, 14), S(11, 24),
    S(30, 21), S(25, 40),
    // MOBILITY_ROOK: A rook by the number of squares it reaches.
    S(-20, -64), S(-14, -33), S(-11, -21), S(-6, -12), S(-5, -6), S(-5, 0),
    S(-11, 11), S(-6, 7), S(-6, 21), S(2, 18), S(8, 19), S(6, 25),
    S(17, 20), S(22, 14), S(19, 18),
    // MOBILITY_QUEEN: A queen by the number of squares it reaches.
    S(-18, -27), S(-20, -34), S(-15, -34), S(-13, -35), S(-13, -32), S(-8, -24),
    S(-7, -30), S(-6, -15), S(-2, -13), S(0, 1), S(7, -6), S(1, 15),
    S(5, 12), S(4, 15), S(6, 28), S(15, 17), S(10, 20), S(12, 25),
    S(15, 20), S(17, 19), S(15, 24), S(13, 19), S(18, 23), S(14, 22),
    S(13, 24), S(13, 25), S(13, 26), S(14, 28),
    // ROOK_OPEN: A rook on a file without pawns.
    S(48, -5),
    // ROOK_SEMI_OPEN: A rook on a file without pawns of its side.
    S(22, 4),
    // BISHOP_PAIR: Both bishops.
    S(21, 57),
    // KING_ATTACK: Attack units on the enemy king's zone (two attackers or more, with a queen), up to 40.
    S(0, 0), S(0, 0), S(1, 0), S(3, 0), S(11, 1), S(35, 10),
    S(22, 7), S(8, 12), S(46, 9), S(30, 11), S(63, 10), S(38, 3),
    S(45, 7), S(59, 2), S(62, -1), S(82, 2), S(88, 2), S(88, 5),
    S(106, -3), S(123, 2), S(139, 1), S(150, 2), S(155, -1), S(173, -2),
    S(186, -2), S(208, 0), S(227, 0), S(244, 1), S(261, 1), S(279, 0),
    S(300, 0), S(320, 0), S(342, 0), S(363, 0), S(386, 1), S(407, 0),
    S(432, 0), S(456, 0), S(481, 0), S(507, 0), S(533, 0),
    // KING_SHIELD: Pawns sheltering the own king on the first two ranks, 0 to 3.
    S(0, 9), S(3, -2), S(6, -9), S(14, -7),
    // KING_OPEN: Files without own pawns at the own king on the first two ranks, 0 to 3.
    S(1, -15), S(-21, -8), S(-31, -7), S(-69, 22),
    // THREAT_BY_PAWN: An enemy piece (not a pawn) attacked by a pawn.
    S(39, 41),
    // THREAT_BY_MINOR: An enemy rook or queen attacked by a knight or bishop.
    S(35, 18),
    // THREAT_BY_ROOK: An enemy queen attacked by a rook.
    S(39, 10),
    // OUTPOST: A knight, a bishop on an outpost: on the fourth to sixth rank, defended by a pawn, out of reach of the enemy pawns.
    S(23, 16), S(26, 7),
    // ROOK_SEVENTH: A rook on the seventh rank.
    S(7, -1),
    // BISHOP_PAWNS: A bishop, times the pawns of its side on squares of its colour.
    S(-2, -11),
    // KING_STORM: An enemy pawn storming the own king (on the first two ranks): on each of the king's files, the nearest enemy pawn in front of the king, by its rank distance (1-2, 3, 4).
    S(-9, -4), S(5, -4), S(-1, 3),
    // HANGING_PAWN: An enemy pawn that we attack and it does not defend.
    S(12, 31),
    // HANGING_PIECE: An enemy piece (not the king) that we attack and it does not defend.
    S(11, 20),
    // SAFE_CHECK: A knight, bishop, rook, queen that can give check on a square the enemy does not attack and we do not occupy (counted once per role).
    S(39, 3), S(6, 18), S(48, 1), S(20, 63),
    // PASSED_SAFE: A passed pawn, by rank, whose path to promotion holds no enemy man and no square the enemy attacks.
    S(0, 0), S(-4, 7), S(-2, 4), S(-13, 15), S(-2, 28), S(9, 51),
    S(12, 56), S(0, 0),
    // BACKWARD: A pawn that cannot be supported by its side's pawns (none on the adjacent files beside or behind it, not isolated) and whose square in front an enemy pawn attacks.
    S(0, -4),
    // PUSH_THREAT: An enemy piece (not a pawn or king) that a safe push of one of our pawns would attack.
    S(13, 15),
    // WEAK_KING_ZONE: A square next to the enemy king that we attack and that only the king defends.
    S(10, -3),
    // MINOR_BEHIND_PAWN: A knight or bishop with a pawn (of either side) on the square in front of it.
    S(2, 13),
    // SPACE: Space: a square on the central files (c to f), the second to fourth rank from our side, without our pawn and out of the enemy pawns' attacks.
    S(2, -1),
    // SPACE_BEHIND: A space square (see `SPACE`) that lies behind one of our pawns (up to three squares).
    S(-4, 3),
    // ROOK_BEHIND_PASSER: Our rook or queen as the first man behind a passed pawn of ours on its file.
    S(4, 4),
    // ENEMY_ROOK_BEHIND_PASSER: An enemy rook or queen as the first man behind a passed pawn of ours on its file.
    S(-12, -19),
    // KING_PROTECTOR: A knight, a bishop, times its distance to its own king.
    S(-2, 0), S(-2, -1),
    // KING_PAWN_DISTANCE: The own king's distance to the nearest own pawn.
    S(-3, -15),
    // KNIGHT_PAWNS: A knight, times the pawns of its side.
    S(4, 5),
    // ROOK_PAWNS: A rook, times the pawns of its side.
    S(2, 8),
    // PAWNLESS_FLANK: The own king on a flank (a-d, c-f, e-h by its file) without pawns of either side.
    S(-7, -6),
    // TRAPPED_ROOK: A rook with at most three squares to go, on the king's side of the own king on its first rank.
    S(-9, -13),
    // LONG_DIAGONAL: A bishop that sees both central squares of a long diagonal through the pawns.
    S(12, 6),
    // REACHABLE_OUTPOST: A knight that can reach an outpost square (empty of our men) in one move.
    S(7, 7),
    // RESTRICTED: A square that we attack and the enemy attacks, but not with a pawn.
    S(1, -2),
    // WEAK_UNOPPOSED: An isolated or backward pawn without an enemy pawn in front on its file.
    S(-4, -9),
];
