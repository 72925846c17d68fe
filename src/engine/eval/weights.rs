//! The evaluation's weights (middlegame, endgame) in centipawns, one per parameter of
//! [`super::params`]. Written by `retro tune`; regenerate rather than edit.
//!
//! The hand-made values: geometric piece-square rules (centralisation, pawn advance, a
//! sheltered king in the middlegame, a central one in the endgame) and round numbers elsewhere;
//! the terms added for the tuner (passed-pawn king distances and free path, phalanx, threats)
//! at zero.

use super::{params, S};

/// Every parameter's weight, by index.
#[rustfmt::skip]
pub static WEIGHTS: [S; params::COUNT] = [
    // MATERIAL: Material of a pawn, knight, bishop, rook, queen, king (unused).
    S(90, 120), S(330, 300), S(340, 320), S(480, 520), S(980, 960), S(0, 0),
    // PST: Piece-square values by role (pawn to king) and square, from white's side.
    S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0),
    S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0),
    S(4, 4), S(8, 4), S(14, 4), S(24, 4), S(24, 4), S(14, 4), S(8, 4), S(4, 4),
    S(8, 10), S(12, 10), S(18, 10), S(28, 10), S(28, 10), S(18, 10), S(12, 10), S(8, 10),
    S(14, 20), S(18, 20), S(24, 20), S(34, 20), S(34, 20), S(24, 20), S(18, 20), S(14, 20),
    S(22, 34), S(22, 34), S(22, 34), S(22, 34), S(22, 34), S(22, 34), S(22, 34), S(22, 34),
    S(32, 52), S(32, 52), S(32, 52), S(32, 52), S(32, 52), S(32, 52), S(32, 52), S(32, 52),
    S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0),
    S(-30, -20), S(-21, -14), S(-12, -8), S(-3, -2), S(-3, -2), S(-12, -8), S(-21, -14), S(-30, -20),
    S(-21, -14), S(-12, -8), S(-3, -2), S(6, 4), S(6, 4), S(-3, -2), S(-12, -8), S(-21, -14),
    S(-12, -8), S(-3, -2), S(6, 4), S(15, 10), S(15, 10), S(6, 4), S(-3, -2), S(-12, -8),
    S(-3, -2), S(6, 4), S(15, 10), S(24, 16), S(24, 16), S(15, 10), S(6, 4), S(-3, -2),
    S(-3, -2), S(6, 4), S(15, 10), S(24, 16), S(24, 16), S(15, 10), S(6, 4), S(-3, -2),
    S(-12, -8), S(-3, -2), S(6, 4), S(15, 10), S(15, 10), S(6, 4), S(-3, -2), S(-12, -8),
    S(-21, -14), S(-12, -8), S(-3, -2), S(6, 4), S(6, 4), S(-3, -2), S(-12, -8), S(-21, -14),
    S(-30, -20), S(-21, -14), S(-12, -8), S(-3, -2), S(-3, -2), S(-12, -8), S(-21, -14), S(-30, -20),
    S(-6, -8), S(-8, -5), S(-4, -2), S(0, 1), S(0, 1), S(-4, -2), S(-8, -5), S(-6, -8),
    S(-8, -5), S(2, -2), S(0, 1), S(4, 4), S(4, 4), S(0, 1), S(2, -2), S(-8, -5),
    S(-4, -2), S(0, 1), S(10, 4), S(8, 7), S(8, 7), S(10, 4), S(0, 1), S(-4, -2),
    S(0, 1), S(4, 4), S(8, 7), S(18, 10), S(18, 10), S(8, 7), S(4, 4), S(0, 1),
    S(0, 1), S(4, 4), S(8, 7), S(18, 10), S(18, 10), S(8, 7), S(4, 4), S(0, 1),
    S(-4, -2), S(0, 1), S(10, 4), S(8, 7), S(8, 7), S(10, 4), S(0, 1), S(-4, -2),
    S(-8, -5), S(2, -2), S(0, 1), S(4, 4), S(4, 4), S(0, 1), S(2, -2), S(-8, -5),
    S(-6, -8), S(-8, -5), S(-4, -2), S(0, 1), S(0, 1), S(-4, -2), S(-8, -5), S(-6, -8),
    S(0, 0), S(1, 0), S(2, 0), S(5, 0), S(5, 0), S(2, 0), S(1, 0), S(0, 0),
    S(0, 0), S(1, 0), S(2, 0), S(5, 0), S(5, 0), S(2, 0), S(1, 0), S(0, 0),
    S(0, 0), S(1, 0), S(2, 0), S(5, 0), S(5, 0), S(2, 0), S(1, 0), S(0, 0),
    S(0, 0), S(1, 0), S(2, 0), S(5, 0), S(5, 0), S(2, 0), S(1, 0), S(0, 0),
    S(0, 0), S(1, 0), S(2, 0), S(5, 0), S(5, 0), S(2, 0), S(1, 0), S(0, 0),
    S(0, 0), S(1, 0), S(2, 0), S(5, 0), S(5, 0), S(2, 0), S(1, 0), S(0, 0),
    S(18, 12), S(19, 12), S(20, 12), S(23, 12), S(23, 12), S(20, 12), S(19, 12), S(18, 12),
    S(0, 0), S(1, 0), S(2, 0), S(5, 0), S(5, 0), S(2, 0), S(1, 0), S(0, 0),
    S(-6, -14), S(-4, -10), S(-2, -6), S(0, -2), S(0, -2), S(-2, -6), S(-4, -10), S(-6, -14),
    S(-4, -10), S(-2, -6), S(0, -2), S(2, 2), S(2, 2), S(0, -2), S(-2, -6), S(-4, -10),
    S(-2, -6), S(0, -2), S(2, 2), S(4, 6), S(4, 6), S(2, 2), S(0, -2), S(-2, -6),
    S(0, -2), S(2, 2), S(4, 6), S(6, 10), S(6, 10), S(4, 6), S(2, 2), S(0, -2),
    S(0, -2), S(2, 2), S(4, 6), S(6, 10), S(6, 10), S(4, 6), S(2, 2), S(0, -2),
    S(-2, -6), S(0, -2), S(2, 2), S(4, 6), S(4, 6), S(2, 2), S(0, -2), S(-2, -6),
    S(-4, -10), S(-2, -6), S(0, -2), S(2, 2), S(2, 2), S(0, -2), S(-2, -6), S(-4, -10),
    S(-6, -14), S(-4, -10), S(-2, -6), S(0, -2), S(0, -2), S(-2, -6), S(-4, -10), S(-6, -14),
    S(18, -30), S(28, -20), S(8, -10), S(-6, 0), S(-6, 0), S(8, -10), S(28, -20), S(18, -30),
    S(8, -20), S(6, -10), S(-8, 0), S(-16, 10), S(-16, 10), S(-8, 0), S(6, -10), S(8, -20),
    S(-24, -10), S(-24, 0), S(-24, 10), S(-24, 20), S(-24, 20), S(-24, 10), S(-24, 0), S(-24, -10),
    S(-36, 0), S(-36, 10), S(-36, 20), S(-36, 30), S(-36, 30), S(-36, 20), S(-36, 10), S(-36, 0),
    S(-48, 0), S(-48, 10), S(-48, 20), S(-48, 30), S(-48, 30), S(-48, 20), S(-48, 10), S(-48, 0),
    S(-60, -10), S(-60, 0), S(-60, 10), S(-60, 20), S(-60, 20), S(-60, 10), S(-60, 0), S(-60, -10),
    S(-72, -20), S(-72, -10), S(-72, 0), S(-72, 10), S(-72, 10), S(-72, 0), S(-72, -10), S(-72, -20),
    S(-84, -30), S(-84, -20), S(-84, -10), S(-84, 0), S(-84, 0), S(-84, -10), S(-84, -20), S(-84, -30),
    // PASSED: A passed pawn, by its rank from its side.
    S(0, 0), S(5, 10), S(8, 15), S(14, 25), S(25, 45), S(45, 75),
    S(70, 115), S(0, 0),
    // PASSED_OUR_KING: A passed pawn, by rank, times the distance of its own king to the square in front.
    S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0),
    S(0, 0), S(0, 0),
    // PASSED_THEIR_KING: A passed pawn, by rank, times the distance of the enemy king to the square in front.
    S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0),
    S(0, 0), S(0, 0),
    // PASSED_FREE: A passed pawn whose square in front is empty, by rank.
    S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0), S(0, 0),
    S(0, 0), S(0, 0),
    // DOUBLED: A pawn with another of its side in front on its file.
    S(-10, -20),
    // ISOLATED: A pawn without pawns of its side on the adjacent files.
    S(-12, -14),
    // SUPPORTED: A pawn defended by a pawn.
    S(7, 6),
    // PHALANX: A pawn with a pawn of its side beside it on the same rank.
    S(0, 0),
    // MOBILITY_KNIGHT: A knight by the number of squares it reaches (not own pieces, not enemy pawn attacks).
    S(-16, -16), S(-12, -12), S(-8, -8), S(-4, -4), S(0, 0), S(4, 4),
    S(8, 8), S(12, 12), S(16, 16),
    // MOBILITY_BISHOP: A bishop by the number of squares it reaches.
    S(-30, -30), S(-25, -25), S(-20, -20), S(-15, -15), S(-10, -10), S(-5, -5),
    S(0, 0), S(5, 5), S(10, 10), S(15, 15), S(20, 20), S(25, 25),
    S(30, 30), S(35, 35),
    // MOBILITY_ROOK: A rook by the number of squares it reaches.
    S(-14, -28), S(-12, -24), S(-10, -20), S(-8, -16), S(-6, -12), S(-4, -8),
    S(-2, -4), S(0, 0), S(2, 4), S(4, 8), S(6, 12), S(8, 16),
    S(10, 20), S(12, 24), S(14, 28),
    // MOBILITY_QUEEN: A queen by the number of squares it reaches.
    S(-13, -26), S(-12, -24), S(-11, -22), S(-10, -20), S(-9, -18), S(-8, -16),
    S(-7, -14), S(-6, -12), S(-5, -10), S(-4, -8), S(-3, -6), S(-2, -4),
    S(-1, -2), S(0, 0), S(1, 2), S(2, 4), S(3, 6), S(4, 8),
    S(5, 10), S(6, 12), S(7, 14), S(8, 16), S(9, 18), S(10, 20),
    S(11, 22), S(12, 24), S(13, 26), S(14, 28),
    // ROOK_OPEN: A rook on a file without pawns.
    S(22, 10),
    // ROOK_SEMI_OPEN: A rook on a file without pawns of its side.
    S(10, 5),
    // BISHOP_PAIR: Both bishops.
    S(30, 50),
    // KING_ATTACK: Attack units on the enemy king's zone (two attackers or more, with a queen), up to 40.
    S(0, 0), S(0, 0), S(1, 0), S(3, 0), S(5, 0), S(8, 0),
    S(12, 0), S(16, 0), S(21, 0), S(27, 0), S(33, 0), S(40, 0),
    S(48, 0), S(56, 0), S(65, 0), S(75, 0), S(85, 0), S(96, 0),
    S(108, 0), S(120, 0), S(133, 0), S(147, 0), S(161, 0), S(176, 0),
    S(192, 0), S(208, 0), S(225, 0), S(243, 0), S(261, 0), S(280, 0),
    S(300, 0), S(320, 0), S(341, 0), S(363, 0), S(385, 0), S(408, 0),
    S(432, 0), S(456, 0), S(481, 0), S(507, 0), S(533, 0),
    // KING_SHIELD: Pawns sheltering the own king on the first two ranks, 0 to 3.
    S(0, 0), S(10, 0), S(20, 0), S(30, 0),
    // KING_OPEN: Files without own pawns at the own king on the first two ranks, 0 to 3.
    S(0, 0), S(-14, 0), S(-28, 0), S(-42, 0),
    // THREAT_BY_PAWN: An enemy piece (not a pawn) attacked by a pawn.
    S(0, 0),
    // THREAT_BY_MINOR: An enemy rook or queen attacked by a knight or bishop.
    S(0, 0),
    // THREAT_BY_ROOK: An enemy queen attacked by a rook.
    S(0, 0),
];
