//! The legal moves of a position in a solve or a check by pawn structure, by what values them:
//! a promotion or a capture from a sub-table, a pawn push from this table's more advanced
//! structures, another piece's move from the same part.

use retro_tables::index::Squares;
use shakmaty::{Color, Role};

use crate::kernel::{exits::PROMOTIONS, moves::LegalTargets};

/// A legal move, with the squares after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PartMove {
    /// A promotion (the pawn's slot and the piece it becomes), capturing the piece in slot
    /// `skip` (`usize::MAX`: none).
    Promotion {
        after: Squares,
        skip: usize,
        promo: (usize, Role),
    },
    /// A capture of the piece in slot `skip`, not a promotion.
    Capture { after: Squares, skip: usize },
    /// A pawn's push; `double`: two squares, which may give the opponent an en passant capture.
    Push {
        after: Squares,
        pawn: usize,
        double: bool,
    },
    /// Another piece's move, capturing nothing: into the same part, the other side to move.
    Piece { after: Squares },
}

/// The legal moves of the position `sq` whose moves are `legal` (the pieces of `slots`), slot
/// by slot, each promotion four times (queen, rook, bishop, knight).
pub(super) fn part_moves<'a>(
    slots: &'a [(Color, Role)],
    sq: &'a Squares,
    legal: &'a LegalTargets,
) -> PartMoves<'a> {
    PartMoves {
        slots,
        sq,
        legal,
        slot: 0,
        targets: slots.first().map_or(0, |_| legal.targets[0]),
        promotion: None,
    }
}

/// The iterator of [`part_moves`], written out (the loops over slots and targets as
/// iterator adapters cost a solve by structure a fifth of its time).
pub(super) struct PartMoves<'a> {
    slots: &'a [(Color, Role)],
    sq: &'a Squares,
    legal: &'a LegalTargets,
    /// The slot whose targets are being gone through, and those left.
    slot: usize,
    targets: u64,
    /// A promotion whose other pieces are still to come: the move, and the next piece's
    /// number in [`PROMOTIONS`].
    promotion: Option<(PartMove, usize)>,
}

impl Iterator for PartMoves<'_> {
    type Item = PartMove;

    #[inline]
    fn next(&mut self) -> Option<PartMove> {
        if let Some((PartMove::Promotion { after, skip, promo }, k)) = self.promotion {
            if let Some(&role) = PROMOTIONS.get(k) {
                let promo = (promo.0, role);
                self.promotion = Some((PartMove::Promotion { after, skip, promo }, k + 1));
                return self.promotion.map(|(m, _)| m);
            }
            self.promotion = None;
        }
        while self.targets == 0 {
            self.slot += 1;
            self.targets = *self
                .legal
                .targets
                .get(self.slot)
                .filter(|_| self.slot < self.slots.len())?;
        }
        let i = self.slot;
        let role = self.slots[i].1;
        let to = self.targets.trailing_zeros() as u8;
        let bit = 1u64 << to;
        self.targets &= self.targets - 1;
        // A king is never captured (see `LegalTargets`): an occupied target holds one of the
        // other pieces.
        let captured = if self.legal.occ & bit != 0 {
            (2..self.slots.len()).find(|&j| self.sq[j] == to)
        } else {
            None
        };
        let mut after = *self.sq;
        after[i] = to;
        Some(if role == Role::Pawn && (to >> 3 == 7 || to >> 3 == 0) {
            let first = PartMove::Promotion {
                after,
                skip: captured.unwrap_or(usize::MAX),
                promo: (i, PROMOTIONS[0]),
            };
            self.promotion = Some((first, 1));
            first
        } else if let Some(skip) = captured {
            PartMove::Capture { after, skip }
        } else if role == Role::Pawn {
            PartMove::Push {
                after,
                pawn: i,
                double: self.legal.double[i] & bit != 0,
            }
        } else {
            PartMove::Piece { after }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::moves::legal_targets;
    use crate::verify::entry_position;
    use retro_tables::{index::IndexScheme, Material};
    use shakmaty::{Move, Position};

    /// Every legal move, and only those, as shakmaty generates them in the positions of a
    /// material with pawns on both sides (no en passant right in a table's position).
    #[test]
    fn the_moves_are_the_legal_moves() {
        let Ok(material) = "KRPvKP".parse::<Material>() else {
            panic!("material");
        };
        let ix = IndexScheme::new(material);
        let slots = ix.slots().to_vec();
        let mut legal = LegalTargets::new();
        let (mut positions, mut kinds) = (0, [0usize; 4]);
        for idx in (0..ix.size()).step_by(4999) {
            let Some(sq) = ix.decode(idx) else { continue };
            for side in [Color::White, Color::Black] {
                if !legal_targets(&slots, &sq, slots.len(), side, &mut legal) {
                    continue;
                }
                let Some(pos) = entry_position(&slots, &sq, side) else {
                    continue;
                };
                positions += 1;
                let mut ours: Vec<(Squares, Option<Role>)> = Vec::new();
                for m in part_moves(&slots, &sq, &legal) {
                    let (after, role, kind) = match m {
                        PartMove::Promotion { after, promo, .. } => (after, Some(promo.1), 0),
                        PartMove::Capture { after, .. } => (after, None, 1),
                        PartMove::Push { after, .. } => (after, None, 2),
                        PartMove::Piece { after } => (after, None, 3),
                    };
                    kinds[kind] += 1;
                    ours.push((after, role));
                }
                let mut theirs: Vec<(Squares, Option<Role>)> = pos
                    .legal_moves()
                    .iter()
                    .map(|m: &Move| {
                        let mut after = sq;
                        let from = m.from().map_or(64, |f| f as u8);
                        if let Some(i) = after[..slots.len()].iter().position(|&s| s == from) {
                            after[i] = m.to() as u8;
                        }
                        (after, m.promotion())
                    })
                    .collect();
                ours.sort_unstable();
                theirs.sort_unstable();
                assert_eq!(ours, theirs, "entry {idx}, {side:?} to move");
            }
        }
        assert!(positions > 1000, "{positions} positions");
        assert!(
            kinds.iter().all(|&k| k > 0),
            "every kind of move: {kinds:?}"
        );
    }
}
