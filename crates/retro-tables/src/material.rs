//! Material signatures: which pieces stand on the board, named in the Syzygy style (`KQvKR`).

use std::{fmt, str::FromStr};

use shakmaty::{Color, Role};

/// The non-king roles, strongest first: the order of pieces in names and in table slots.
pub const ROLES: [Role; 5] = [
    Role::Queen,
    Role::Rook,
    Role::Bishop,
    Role::Knight,
    Role::Pawn,
];

/// The most pieces (kings included) a material may have.
pub const MAX_PIECES: usize = 6;

/// Position of `role` in [`ROLES`]; `None` for the king.
pub const fn role_slot(role: Role) -> Option<usize> {
    match role {
        Role::Queen => Some(0),
        Role::Rook => Some(1),
        Role::Bishop => Some(2),
        Role::Knight => Some(3),
        Role::Pawn => Some(4),
        Role::King => None,
    }
}

/// An error in a material name such as `KQvKR`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MaterialError {
    /// The name is not of the form `K...vK...`.
    #[error("material `{0}` is not of the form K...vK... (for example KQvKR)")]
    Syntax(String),
    /// More pieces than tables are made for.
    #[error("material `{0}` has more than {MAX_PIECES} pieces")]
    TooManyPieces(String),
}

/// The pieces of both sides, kings implied: one king each and counts of the other roles.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Material {
    /// `counts[color][role_slot]`, colour 0 white, 1 black.
    counts: [[u8; 5]; 2],
}

fn color_idx(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

impl Material {
    /// Material from per-colour counts of queens, rooks, bishops, knights and pawns.
    pub const fn from_counts(white: [u8; 5], black: [u8; 5]) -> Material {
        Material {
            counts: [white, black],
        }
    }

    /// The material of a board (its kings are taken as one each).
    pub fn of_board(board: &shakmaty::Board) -> Material {
        let side = |color: Color| {
            ROLES
                .map(|role| u8::try_from(board.by_piece(role.of(color)).count()).unwrap_or(u8::MAX))
        };
        Material::from_counts(side(Color::White), side(Color::Black))
    }

    /// How many pieces of `color` and `role` (1 for kings).
    pub fn count(&self, color: Color, role: Role) -> u8 {
        match role_slot(role) {
            Some(slot) => self.counts[color_idx(color)][slot],
            None => 1,
        }
    }

    /// Pieces of one side, king included.
    pub fn side_count(&self, color: Color) -> usize {
        1 + self.counts[color_idx(color)]
            .iter()
            .map(|&c| c as usize)
            .sum::<usize>()
    }

    /// All pieces on the board, kings included.
    pub fn piece_count(&self) -> usize {
        self.side_count(Color::White) + self.side_count(Color::Black)
    }

    /// Whether either side has a pawn.
    pub fn has_pawns(&self) -> bool {
        self.counts[0][4] > 0 || self.counts[1][4] > 0
    }

    /// Number of pawns of both sides.
    pub fn pawn_count(&self) -> usize {
        (self.counts[0][4] + self.counts[1][4]) as usize
    }

    /// The same material with the colours exchanged.
    pub fn swapped(&self) -> Material {
        Material {
            counts: [self.counts[1], self.counts[0]],
        }
    }

    /// Sort key of a side: more pieces first, then stronger pieces first.
    fn side_key(&self, color: Color) -> (usize, [u8; 5]) {
        (self.side_count(color), self.counts[color_idx(color)])
    }

    /// Whether white is the stronger side (or the sides are equal): the orientation tables use.
    pub fn is_canonical(&self) -> bool {
        self.side_key(Color::White) >= self.side_key(Color::Black)
    }

    /// The orientation in which this material's table is stored.
    pub fn canonical(&self) -> Material {
        if self.is_canonical() {
            *self
        } else {
            self.swapped()
        }
    }

    /// The pieces in table slot order: white king, black king, then the other white pieces and
    /// the other black pieces, each strongest first.
    pub fn slots(&self) -> Vec<(Color, Role)> {
        let mut v = vec![(Color::White, Role::King), (Color::Black, Role::King)];
        for color in Color::ALL {
            for (slot, role) in ROLES.iter().enumerate() {
                for _ in 0..self.counts[color_idx(color)][slot] {
                    v.push((color, *role));
                }
            }
        }
        v
    }

    /// A compact key, unique per material.
    pub fn key(&self) -> u64 {
        let mut k = 0u64;
        for side in self.counts {
            for c in side {
                k = (k << 4) | u64::from(c.min(15));
            }
        }
        k
    }

    /// The material of a key made by [`Material::key`].
    pub fn from_key(key: u64) -> Material {
        let mut m = Material::from_counts([0; 5], [0; 5]);
        for p in 0..10 {
            m.counts[p / 5][p % 5] = ((key >> (4 * (9 - p))) & 15) as u8;
        }
        m
    }

    /// The materials one capture or one promotion leads to, in this material's orientation
    /// (not canonical), with the side that moves; bare kings included.
    pub fn successors_by_mover(&self) -> Vec<(Material, Color)> {
        let mut out = Vec::new();
        // The count rows are white's (0) and black's (1).
        let color = |c: usize| if c == 0 { Color::White } else { Color::Black };
        for c in 0..2 {
            for slot in 0..5 {
                if self.counts[c][slot] == 0 {
                    continue;
                }
                // A capture of this piece, by the other side.
                let mut m = *self;
                m.counts[c][slot] -= 1;
                out.push((m, color(1 - c)));
                if slot == 4 {
                    // A promotion, with or without a capture of an enemy piece.
                    for promo in 0..4 {
                        let mut p = *self;
                        p.counts[c][4] -= 1;
                        p.counts[c][promo] += 1;
                        out.push((p, color(c)));
                        for victim in 0..4 {
                            if p.counts[1 - c][victim] > 0 {
                                let mut q = p;
                                q.counts[1 - c][victim] -= 1;
                                out.push((q, color(c)));
                            }
                        }
                    }
                }
            }
        }
        out.sort_by_key(|(m, mover)| (m.key(), mover.is_black()));
        out.dedup();
        out
    }

    /// The materials one capture or one promotion leads to, in canonical orientation, without
    /// the bare kings, each once.
    pub fn successors(&self) -> Vec<Material> {
        let out = self.successors_by_mover();
        let mut out: Vec<Material> = out
            .into_iter()
            .map(|(m, _)| m)
            .filter(|m| m.piece_count() > 2)
            .map(|m| m.canonical())
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Every canonical material with 3 to `max_pieces` pieces, in build order (each after the
    /// materials it leads to).
    pub fn all(max_pieces: usize) -> Vec<Material> {
        let mut out = Vec::new();
        let extra = max_pieces.saturating_sub(2);
        // Enumerate multisets of (colour, role) of size 1..=extra.
        let kinds: Vec<(usize, usize)> = (0..2).flat_map(|c| (0..5).map(move |r| (c, r))).collect();
        fn rec(
            kinds: &[(usize, usize)],
            start: usize,
            left: usize,
            cur: Material,
            out: &mut Vec<Material>,
        ) {
            if cur.piece_count() > 2 && cur.is_canonical() {
                out.push(cur);
            }
            if left == 0 {
                return;
            }
            for i in start..kinds.len() {
                let (c, r) = kinds[i];
                let mut next = cur;
                next.counts[c][r] += 1;
                rec(kinds, i, left - 1, next, out);
            }
        }
        rec(
            &kinds,
            0,
            extra,
            Material::from_counts([0; 5], [0; 5]),
            &mut out,
        );
        out.sort();
        out.dedup();
        sort_build_order(&mut out);
        out
    }

    /// This material and everything it leads to, in build order.
    pub fn closure(&self) -> Vec<Material> {
        let mut seen = vec![self.canonical()];
        let mut i = 0;
        while i < seen.len() {
            for s in seen[i].successors() {
                if !seen.contains(&s) {
                    seen.push(s);
                }
            }
            i += 1;
        }
        sort_build_order(&mut seen);
        seen
    }
}

/// What one piece (not a king) adds to a material key: see [`Material::key`].
#[inline]
pub const fn key_of_piece(color: Color, role: Role) -> u64 {
    let slot = match role_slot(role) {
        Some(s) => s,
        None => return 0,
    };
    let p = match color {
        Color::White => slot,
        Color::Black => 5 + slot,
    };
    1 << (4 * (9 - p))
}

/// Sorts materials so that every material comes after the ones captures and promotions lead to:
/// fewer pieces first, then fewer pawns (a promotion keeps the count and removes a pawn).
pub fn sort_build_order(v: &mut [Material]) {
    v.sort_by_key(|m| (m.piece_count(), m.pawn_count(), m.name()));
}

impl Material {
    /// The Syzygy-style name, for example `KQvKR`.
    pub fn name(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, side) in self.counts.iter().enumerate() {
            if i == 1 {
                f.write_str("v")?;
            }
            f.write_str("K")?;
            for (slot, role) in ROLES.iter().enumerate() {
                for _ in 0..side[slot] {
                    write!(f, "{}", role.upper_char())?;
                }
            }
        }
        Ok(())
    }
}

impl FromStr for Material {
    type Err = MaterialError;

    fn from_str(s: &str) -> Result<Material, MaterialError> {
        let bad = || MaterialError::Syntax(s.to_string());
        let (w, b) = s.split_once(['v', 'V']).ok_or_else(bad)?;
        let mut m = Material::from_counts([0; 5], [0; 5]);
        for (c, side) in [w, b].iter().enumerate() {
            let mut kings = 0;
            for ch in side.chars() {
                let role = Role::from_char(ch.to_ascii_lowercase()).ok_or_else(bad)?;
                match role_slot(role) {
                    None => kings += 1,
                    Some(slot) => {
                        m.counts[c][slot] = m.counts[c][slot].saturating_add(1);
                    }
                }
            }
            if kings != 1 || !side.to_ascii_uppercase().starts_with('K') {
                return Err(bad());
            }
        }
        if m.piece_count() > MAX_PIECES {
            return Err(MaterialError::TooManyPieces(s.to_string()));
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in ["KQvK", "KQvKR", "KPvKP", "KBNvK", "KRPvKR"] {
            let m: Material = name.parse().expect("valid name");
            assert_eq!(m.name(), name);
            assert!(m.is_canonical(), "{name}");
        }
        let m: Material = "KRvKQ".parse().expect("valid");
        assert!(!m.is_canonical());
        assert_eq!(m.canonical().name(), "KQvKR");
        assert_eq!(
            "KvKNB".parse::<Material>().map(|m| m.canonical().name()),
            Ok("KBNvK".into())
        );
    }

    #[test]
    fn keys() {
        for m in Material::all(5) {
            assert_eq!(Material::from_key(m.key()), m);
            let mut k = 0;
            for (c, r) in m.slots() {
                k += key_of_piece(c, r);
            }
            assert_eq!(k, m.key(), "{m}");
            assert_eq!(
                m.swapped().key(),
                Material::from_key(m.swapped().key()).key()
            );
        }
    }

    #[test]
    fn bad_names() {
        for name in ["", "KQ", "QvK", "KKvK", "KXvK", "KQvKQQQQ", "KvKv"] {
            assert!(name.parse::<Material>().is_err(), "{name}");
        }
    }

    #[test]
    fn counts_of_all_materials() {
        let all3: Vec<_> = Material::all(3);
        assert_eq!(all3.len(), 5);
        let all4 = Material::all(4);
        assert_eq!(all4.len(), 35);
        assert_eq!(Material::all(5).len(), 35 + 110);
    }

    #[test]
    fn build_order_respects_successors() {
        let all = Material::all(5);
        for (i, m) in all.iter().enumerate() {
            for s in m.successors() {
                let j = all.iter().position(|x| *x == s).expect("successor listed");
                assert!(j < i, "{s} must come before {m}");
            }
        }
    }

    #[test]
    fn closure_of_kpvkp() {
        let m: Material = "KPvKP".parse().expect("valid");
        let names: Vec<String> = m.closure().iter().map(|m| m.name()).collect();
        assert_eq!(names.last().map(String::as_str), Some("KPvKP"));
        for needed in ["KPvK", "KQvKP", "KQvKQ", "KQvK", "KNvKP"] {
            assert!(names.iter().any(|n| n == needed), "{needed} in {names:?}");
        }
    }
}
