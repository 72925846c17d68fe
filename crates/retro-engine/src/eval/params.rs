//! The layout of the evaluation's parameters: every weight is one middlegame-endgame pair in
//! one flat array ([`super::weights::WEIGHTS`]), in named groups. The evaluation adds weights
//! by index; the tuner (`retro tune`) counts how often each index is used in a position and
//! fits the weights to game results.

/// A named run of parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Group {
    /// The name, as in the weights file.
    pub name: &'static str,
    /// Index of the first parameter.
    pub start: usize,
    /// How many parameters.
    pub len: usize,
    /// What one parameter of the group counts.
    pub doc: &'static str,
}

macro_rules! layout {
    ($( $(#[doc = $doc:literal])* $name:ident = $len:expr; )*) => {
        layout!(@consts 0usize; $( $name = $len; )*);
        /// All groups, in index order.
        pub const GROUPS: &[Group] = &[ $( Group {
            name: stringify!($name),
            start: $name,
            len: $len,
            doc: concat!($($doc),*),
        }, )* ];
    };
    (@consts $at:expr; $name:ident = $len:expr; $( $rest:ident = $rlen:expr; )*) => {
        #[doc = concat!("Index of the first parameter of `", stringify!($name), "`.")]
        pub const $name: usize = $at;
        layout!(@consts $at + $len; $( $rest = $rlen; )*);
    };
    (@consts $at:expr;) => {
        /// The number of parameters.
        pub const COUNT: usize = $at;
    };
}

layout! {
    /// Material of a pawn, knight, bishop, rook, queen, king (unused).
    MATERIAL = 6;
    /// Piece-square values by role (pawn to king) and square, from white's side.
    PST = 6 * 64;
    /// A passed pawn, by its rank from its side.
    PASSED = 8;
    /// A passed pawn, by rank, times the distance of its own king to the square in front.
    PASSED_OUR_KING = 8;
    /// A passed pawn, by rank, times the distance of the enemy king to the square in front.
    PASSED_THEIR_KING = 8;
    /// A passed pawn whose square in front is empty, by rank.
    PASSED_FREE = 8;
    /// A passed pawn the enemy king cannot catch (rule of the square, with a move to spare)
    /// when the enemy has only pawns, its path free.
    UNSTOPPABLE = 1;
    /// A pawn with another of its side in front on its file.
    DOUBLED = 1;
    /// A pawn without pawns of its side on the adjacent files.
    ISOLATED = 1;
    /// A pawn defended by a pawn.
    SUPPORTED = 1;
    /// A pawn with a pawn of its side beside it on the same rank.
    PHALANX = 1;
    /// A knight by the number of squares it reaches (not own pieces, not enemy pawn attacks).
    MOBILITY_KNIGHT = 9;
    /// A bishop by the number of squares it reaches.
    MOBILITY_BISHOP = 14;
    /// A rook by the number of squares it reaches.
    MOBILITY_ROOK = 15;
    /// A queen by the number of squares it reaches.
    MOBILITY_QUEEN = 28;
    /// A rook on a file without pawns.
    ROOK_OPEN = 1;
    /// A rook on a file without pawns of its side.
    ROOK_SEMI_OPEN = 1;
    /// Both bishops.
    BISHOP_PAIR = 1;
    /// Attack units on the enemy king's zone (two attackers or more, with a queen), up to 40.
    KING_ATTACK = 41;
    /// Pawns sheltering the own king on the first two ranks, 0 to 3.
    KING_SHIELD = 4;
    /// Files without own pawns at the own king on the first two ranks, 0 to 3.
    KING_OPEN = 4;
    /// An enemy piece (not a pawn) attacked by a pawn.
    THREAT_BY_PAWN = 1;
    /// An enemy rook or queen attacked by a knight or bishop.
    THREAT_BY_MINOR = 1;
    /// An enemy queen attacked by a rook.
    THREAT_BY_ROOK = 1;
    /// A knight, a bishop on an outpost: on the fourth to sixth rank, defended by a pawn, out
    /// of reach of the enemy pawns.
    OUTPOST = 2;
    /// A rook on the seventh rank.
    ROOK_SEVENTH = 1;
    /// A bishop, times the pawns of its side on squares of its colour.
    BISHOP_PAWNS = 1;
    /// An enemy pawn storming the own king (on the first two ranks): on each of the king's
    /// files, the nearest enemy pawn in front of the king, by its rank distance (1-2, 3, 4).
    KING_STORM = 3;
    /// An enemy pawn that we attack and it does not defend.
    HANGING_PAWN = 1;
    /// An enemy piece (not the king) that we attack and it does not defend.
    HANGING_PIECE = 1;
    /// A knight, bishop, rook, queen that can give check on a square the enemy does not
    /// attack and we do not occupy (counted once per role).
    SAFE_CHECK = 4;
    /// A passed pawn, by rank, whose path to promotion holds no enemy man and no square the
    /// enemy attacks.
    PASSED_SAFE = 8;
    /// A pawn that cannot be supported by its side's pawns (none on the adjacent files beside
    /// or behind it, not isolated) and whose square in front an enemy pawn attacks.
    BACKWARD = 1;
    /// An enemy piece (not a pawn or king) that a safe push of one of our pawns would attack.
    PUSH_THREAT = 1;
    /// A square next to the enemy king that we attack and that only the king defends.
    WEAK_KING_ZONE = 1;
    /// A knight or bishop with a pawn (of either side) on the square in front of it.
    MINOR_BEHIND_PAWN = 1;
    /// Space: a square on the central files (c to f), the second to fourth rank from our side,
    /// without our pawn and out of the enemy pawns' attacks.
    SPACE = 1;
    /// A space square (see `SPACE`) that lies behind one of our pawns (up to three squares).
    SPACE_BEHIND = 1;
    /// Our rook or queen as the first man behind a passed pawn of ours on its file.
    ROOK_BEHIND_PASSER = 1;
    /// An enemy rook or queen as the first man behind a passed pawn of ours on its file.
    ENEMY_ROOK_BEHIND_PASSER = 1;
    /// A knight, a bishop, times its distance to its own king.
    KING_PROTECTOR = 2;
    /// The own king's distance to the nearest own pawn.
    KING_PAWN_DISTANCE = 1;
    /// A knight, times the pawns of its side.
    KNIGHT_PAWNS = 1;
    /// A rook, times the pawns of its side.
    ROOK_PAWNS = 1;
    /// The own king on a flank (a-d, c-f, e-h by its file) without pawns of either side.
    PAWNLESS_FLANK = 1;
    /// A rook with at most three squares to go, on the king's side of the own king on its
    /// first rank.
    TRAPPED_ROOK = 1;
    /// A bishop that sees both central squares of a long diagonal through the pawns.
    LONG_DIAGONAL = 1;
    /// A knight that can reach an outpost square (empty of our men) in one move.
    REACHABLE_OUTPOST = 1;
    /// A square that we attack and the enemy attacks, but not with a pawn.
    RESTRICTED = 1;
    /// An isolated or backward pawn without an enemy pawn in front on its file.
    WEAK_UNOPPOSED = 1;
}

/// The name of parameter `index`: its group, and its offset when the group has several.
pub fn name(index: usize) -> String {
    GROUPS
        .iter()
        .find(|g| (g.start..g.start + g.len).contains(&index))
        .map_or_else(
            || format!("#{index}"),
            |g| {
                if g.len == 1 {
                    g.name.to_string()
                } else {
                    format!("{}[{}]", g.name, index - g.start)
                }
            },
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_tile_the_array() {
        let mut at = 0;
        for g in GROUPS {
            assert_eq!(g.start, at, "{}", g.name);
            assert!(g.len > 0 && !g.doc.is_empty());
            at += g.len;
        }
        assert_eq!(at, COUNT);
        assert_eq!(name(PST + 64), "PST[64]");
        assert_eq!(name(DOUBLED), "DOUBLED");
    }
}
