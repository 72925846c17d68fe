//! King buckets: the first-layer weights a side's view uses, chosen by the square of its own
//! king, and the cache of accumulators per bucket that a king move changing the bucket
//! refreshes from (the "Finny table").
//!
//! A network with king buckets is also mirrored: when a side's own king stands on files e-h
//! (seen from that side), its view is turned left to right (every square's file `f` read as
//! `7 - f`), so that a bucket covers the king squares of files a-d and their mirrors. A network
//! without (versions 1 and 2 of the file) has one bucket and no mirroring.

use shakmaty::{Bitboard, Board, Color, Piece, Role, Square};

use super::{feature, INPUTS};

/// The most king buckets a network may have: one per square of half a board.
pub const MAX_KING_BUCKETS: usize = 32;

/// Squares of half a board (files a-d), the domain of a bucket map.
pub const HALF_BOARD: usize = 32;

/// How a network chooses the first-layer weights of a side's view by the square of its king.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KingBuckets {
    /// Buckets in use, 1 to [`MAX_KING_BUCKETS`].
    count: u8,
    /// Whether a king on files e-h mirrors the view.
    mirrored: bool,
    /// The bucket of the own king's square seen from its side, after mirroring (index `rank * 4
    /// + file`, files a-d).
    map: [u8; HALF_BOARD],
}

/// Why a king bucket map cannot be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KingBucketError {
    /// The number of buckets is 0 or above [`MAX_KING_BUCKETS`].
    #[error("king buckets {found}: a network has 1 to {MAX_KING_BUCKETS}")]
    Count {
        /// The number given.
        found: u32,
    },
    /// A square's bucket is not below the number of buckets.
    #[error("king bucket map: square {index} has bucket {found}, of {count}")]
    Bucket {
        /// The square's index in the map (`rank * 4 + file`).
        index: usize,
        /// Its bucket.
        found: u8,
        /// The number of buckets.
        count: u32,
    },
}

/// Which rows of the first layer a side's view reads: its bucket's, with files turned over or
/// not. The default is the only view of a network without king buckets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct View {
    /// The first row of the bucket: `bucket * INPUTS`.
    base: usize,
    /// 7 when the view is mirrored (an input's square is its low 6 bits, the file the low 3),
    /// else 0.
    flip: usize,
}

impl View {
    /// The first-layer row of `piece` on `sq` in this view of `perspective`.
    #[inline]
    pub fn input(self, perspective: Color, piece: Piece, sq: Square) -> usize {
        self.base + (feature(perspective, piece, sq) ^ self.flip)
    }

    /// The view's bucket.
    pub fn bucket(self) -> usize {
        self.base / INPUTS
    }

    /// Whether the view is mirrored.
    pub fn is_mirrored(self) -> bool {
        self.flip != 0
    }

    /// The view's slot in a [`RefreshCache`] side: bucket, then mirrored.
    fn slot(self) -> usize {
        2 * self.bucket() + usize::from(self.is_mirrored())
    }
}

impl KingBuckets {
    /// One bucket, no mirroring: the networks of file versions 1 and 2.
    pub const NONE: KingBuckets = KingBuckets {
        count: 1,
        mirrored: false,
        map: [0; HALF_BOARD],
    };

    /// Mirrored buckets by `map` (the bucket of each own-king square of files a-d, `rank * 4 +
    /// file`, seen from the king's side), `count` of them.
    ///
    /// # Errors
    /// [`KingBucketError`] when `count` is out of range or a square's bucket is not below it.
    pub fn mirrored(count: u32, map: [u8; HALF_BOARD]) -> Result<KingBuckets, KingBucketError> {
        if count == 0 || count as usize > MAX_KING_BUCKETS {
            return Err(KingBucketError::Count { found: count });
        }
        if let Some((index, &found)) = map.iter().enumerate().find(|(_, &b)| u32::from(b) >= count)
        {
            return Err(KingBucketError::Bucket {
                index,
                found,
                count,
            });
        }
        Ok(KingBuckets {
            count: count as u8,
            mirrored: true,
            map,
        })
    }

    /// The layouts `retro train --king-buckets N` offers, for N of 1 (mirroring alone), 4, 8,
    /// 16 and 32 (a bucket per square of files a-d): finer where the king stands at home, where
    /// most positions have it. Each map is by rank from the king's side, files a-d.
    pub fn standard(count: u32) -> Option<KingBuckets> {
        #[rustfmt::skip]
        let map: [u8; HALF_BOARD] = match count {
            1 => [0; HALF_BOARD],
            4 => [
                0, 0, 1, 1,
                2, 2, 2, 2,
                3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
            ],
            8 => [
                0, 0, 1, 1,
                2, 2, 3, 3,
                4, 4, 4, 4,
                5, 5, 5, 5,
                6, 6, 6, 6, 6, 6, 6, 6,
                7, 7, 7, 7, 7, 7, 7, 7,
            ],
            16 => [
                0, 1, 2, 3,
                4, 5, 6, 7,
                8, 8, 9, 9,
                10, 10, 11, 11,
                12, 12, 13, 13, 12, 12, 13, 13,
                14, 14, 15, 15, 14, 14, 15, 15,
            ],
            32 => std::array::from_fn(|i| i as u8),
            _ => return None,
        };
        KingBuckets::mirrored(count, map).ok()
    }

    /// Buckets in use.
    pub fn count(&self) -> usize {
        usize::from(self.count)
    }

    /// Whether a king on files e-h mirrors its side's view.
    pub fn is_mirrored(&self) -> bool {
        self.mirrored
    }

    /// The bucket map (see [`KingBuckets::mirrored`]).
    pub fn map(&self) -> [u8; HALF_BOARD] {
        self.map
    }

    /// Whether views differ by the king's square at all (not [`KingBuckets::NONE`]).
    #[inline]
    pub fn by_king(&self) -> bool {
        self.mirrored || self.count > 1
    }

    /// The view of `perspective` whose own king stands on `king`.
    #[inline]
    pub fn view(&self, perspective: Color, king: Square) -> View {
        if !self.by_king() {
            return View { base: 0, flip: 0 };
        }
        let rel = match perspective {
            Color::White => king,
            Color::Black => king.flip_vertical(),
        };
        let file = usize::from(rel.file());
        let flip = self.mirrored && file >= 4;
        let half_file = if flip { 7 - file } else { file };
        let bucket = usize::from(self.map[usize::from(rel.rank()) * 4 + half_file]);
        View {
            base: bucket * INPUTS,
            flip: if flip { 7 } else { 0 },
        }
    }

    /// The view of `perspective` on `board` (whose king of that side is on `a1` when it has
    /// none).
    #[inline]
    pub fn view_of(&self, perspective: Color, board: &Board) -> View {
        self.view(
            perspective,
            board.king_of(perspective).unwrap_or(Square::A1),
        )
    }
}

/// Per side, an accumulator half and the pieces it was summed over for each view (bucket and
/// mirroring): a king move that changes its side's view starts from the cached sums of the new
/// view and adds and removes only the pieces that differ, instead of summing every piece.
///
/// A cache belongs to the network that made it ([`super::Network::refresh_cache`]); given to
/// another, it is not used.
#[derive(Clone, Debug)]
pub struct RefreshCache {
    /// The network it belongs to (the address of its first-layer weights).
    pub(super) owner: usize,
    /// By side (white, black), then view slot.
    pub(super) entries: Vec<CacheEntry>,
    /// Views per side.
    pub(super) per_side: usize,
}

/// A cached accumulator half of one view.
#[derive(Clone, Debug)]
pub(super) struct CacheEntry {
    pub(super) values: [i16; super::HIDDEN],
    pub(super) board: Board,
}

impl RefreshCache {
    /// The entry of `perspective`'s `view`.
    pub(super) fn entry(&mut self, perspective: Color, view: View) -> Option<&mut CacheEntry> {
        self.entries
            .get_mut(super::side_index(perspective) * self.per_side + view.slot())
    }
}

/// The squares of `piece` on `board`.
#[inline]
pub(super) fn squares_of(board: &Board, piece: Piece) -> Bitboard {
    board.by_color(piece.color) & board.by_role(piece.role)
}

/// Every piece kind.
pub(super) fn every_piece() -> impl Iterator<Item = Piece> {
    Color::ALL
        .into_iter()
        .flat_map(|color| Role::ALL.into_iter().map(move |role| Piece { color, role }))
}
