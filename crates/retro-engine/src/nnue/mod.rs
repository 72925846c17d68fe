//! The neural network evaluation (NNUE): a perspective network, 768 inputs (piece, colour,
//! square) to [`HIDDEN`] neurons for each side, then to one output, with a squared clipped
//! ReLU between.
//!
//! ```text
//!   features of the side to move ──W1──▶ acc[us]   ┐
//!                                                   ├─ SCReLU ─▶ W2[k] · [us, them] + b2[k] ─▶ score
//!   features of the other side   ──W1──▶ acc[them] ┘
//! ```
//!
//! The output layer has one set of weights, or one per [output bucket](output_bucket) `k` of
//! the number of pieces on the board (a file says which). The first layer has one set of
//! weights, or one per [king bucket](KingBuckets) of each side's own king square, with that
//! side's view mirrored left to right when its king is on files e-h.
//!
//! The first layer's sums (the [`Accumulator`]) are updated as moves are made: a move adds and
//! removes at most two features of each side ([`Delta`]), so a node costs a few vector
//! additions instead of a sum over every piece. Weights are integers: the first layer in units
//! of 1/[`QA`], the output layer in units of 1/[`QB`]; the score is the output times [`SCALE`]
//! centipawns. The file format is in [`file`] and docs/nnue.md.

mod file;
mod kings;
mod simd;

use std::sync::{Arc, OnceLock};

use shakmaty::{Board, Chess, Color, Move, Piece, Position, Role, Square};

pub use self::file::{NetworkError, FILE_MAGIC, FILE_VERSION};
use self::kings::{every_piece, squares_of, CacheEntry};
pub use self::kings::{KingBucketError, KingBuckets, RefreshCache, View, MAX_KING_BUCKETS};

/// Inputs: a piece of one of 2 colours and 6 roles on one of 64 squares.
pub const INPUTS: usize = 768;
/// Neurons of the first layer, for each side: 256, or 512 in a build with the cargo feature
/// `hidden-512` (an experiment awaiting its SPRT, docs/nnue.md), which reads only networks of
/// its own size.
#[cfg(not(feature = "hidden-512"))]
pub const HIDDEN: usize = 256;
/// Neurons of the first layer, for each side (the cargo feature `hidden-512`).
#[cfg(feature = "hidden-512")]
pub const HIDDEN: usize = 512;
/// The first layer's quantisation: 1.0 is `QA`, and the activation clips at `QA`.
pub const QA: i32 = 255;
/// The output layer's quantisation: 1.0 is `QB`.
pub const QB: i32 = 64;
/// Centipawns per unit of the network's output.
pub const SCALE: i32 = 400;
/// Neurons whose weighted squares one `i32` sum holds (`DOT_NEURONS * QA * QA *
/// MAX_OUTPUT_WEIGHT < 2^31`): the output sum is taken in `i64` over blocks of this many.
pub const DOT_NEURONS: usize = 256;
/// The largest output weight a file may hold: with it no block of [`DOT_NEURONS`] of the output
/// sum can overflow an `i32`.
pub const MAX_OUTPUT_WEIGHT: i16 = 127;
/// Output buckets of a network that has them: the output layer's weights by the number of pieces
/// on the board ([`output_bucket`]).
pub const OUTPUT_BUCKETS: usize = 8;
/// The largest score the network gives (centipawns), below the table and mate scores.
pub const EVAL_LIMIT: i32 = 10_000;

// The bound of `MAX_OUTPUT_WEIGHT` holds for a block of `DOT_NEURONS`, the neurons are whole
// blocks, and the products of a weight with a clipped activation fit an i16 (the vector form
// multiplies in 16 bits).
const _: () = assert!(
    (DOT_NEURONS as i64) * (QA as i64) * (QA as i64) * (MAX_OUTPUT_WEIGHT as i64) < i32::MAX as i64
        && HIDDEN.is_multiple_of(DOT_NEURONS)
        && (QA as i64) * (MAX_OUTPUT_WEIGHT as i64) <= i16::MAX as i64
);

/// The network in the binary (see docs/nnue.md for how it was made).
static EMBEDDED_BYTES: &[u8] = include_bytes!(env!("RETRO_EMBEDDED_NET"));

/// The output bucket of a position of `pieces` pieces, kings included: 2 to 5 pieces bucket 0,
/// 6 to 9 bucket 1, and so on to 30 to 32 in bucket 7.
pub const fn output_bucket(pieces: usize) -> usize {
    let b = pieces.saturating_sub(2) / 4;
    if b < OUTPUT_BUCKETS {
        b
    } else {
        OUTPUT_BUCKETS - 1
    }
}

/// The output bucket a network of `buckets` output buckets (1 or [`OUTPUT_BUCKETS`]) uses for
/// a position of `pieces` pieces: [`output_bucket`] with all of them, else the only one.
pub const fn bucket_of(buckets: usize, pieces: usize) -> usize {
    if buckets == OUTPUT_BUCKETS {
        output_bucket(pieces)
    } else {
        0
    }
}

/// A network's integer weights.
#[derive(Clone)]
pub struct Network {
    /// How a side's view chooses its rows of the first layer.
    kings: KingBuckets,
    /// First layer: one row of [`HIDDEN`] weights per input, [`INPUTS`] rows per king bucket.
    ft_weights: Vec<[i16; HIDDEN]>,
    ft_bias: [i16; HIDDEN],
    /// Output buckets in use: 1 (every position uses the first) or [`OUTPUT_BUCKETS`].
    buckets: usize,
    /// Output weights by bucket: the side to move's neurons, then the other side's.
    out_weights: Box<[[i16; 2 * HIDDEN]; OUTPUT_BUCKETS]>,
    /// Output bias by bucket, in units of `1 / (QA * QB)`.
    out_bias: [i32; OUTPUT_BUCKETS],
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Network")
            .field("hidden", &HIDDEN)
            .field("king buckets", &self.kings.count())
            .field("mirrored", &self.kings.is_mirrored())
            .field("output buckets", &self.buckets)
            .field("checksum", &format_args!("{:016x}", self.checksum()))
            .finish()
    }
}

/// The first layer's sums for both sides, indexed by [`side_index`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Accumulator {
    /// Sums seen from white, then from black.
    pub values: [[i16; HIDDEN]; 2],
}

/// The index of `color`'s half of an [`Accumulator`]: white 0, black 1.
pub const fn side_index(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// The input of `piece` on `sq` seen by `perspective`: its own pieces first, and the board
/// turned over for black, so that a position and its colour-flipped mirror give the same
/// inputs to the side to move.
pub fn feature(perspective: Color, piece: Piece, sq: Square) -> usize {
    let theirs = usize::from(piece.color != perspective);
    let sq = match perspective {
        Color::White => sq,
        Color::Black => sq.flip_vertical(),
    };
    theirs * 384 + (piece.role as usize - 1) * 64 + sq as usize
}

/// The pieces a move puts on and takes off the board: at most two each way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delta {
    added: [Option<(Piece, Square)>; 2],
    removed: [Option<(Piece, Square)>; 2],
}

impl Delta {
    /// Nothing changes (a null move).
    pub const NONE: Delta = Delta {
        added: [None; 2],
        removed: [None; 2],
    };

    /// Where the king of `color` stood before, when the change moves it.
    #[inline]
    pub fn king_from(&self, color: Color) -> Option<Square> {
        self.removed.iter().flatten().find_map(|&(piece, sq)| {
            (piece.role == Role::King && piece.color == color).then_some(sq)
        })
    }

    /// Every piece the change takes off or puts on the board, with its square.
    pub fn pieces(&self) -> impl Iterator<Item = (Piece, Square)> + '_ {
        self.removed.iter().chain(&self.added).flatten().copied()
    }

    /// What move `m` of `us` changes on the board.
    pub fn of_move(us: Color, m: &Move) -> Delta {
        let piece = |role| Piece { color: us, role };
        let theirs = |role| Piece { color: !us, role };
        match *m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => Delta {
                added: [Some((piece(promotion.unwrap_or(role)), to)), None],
                removed: [Some((piece(role), from)), capture.map(|c| (theirs(c), to))],
            },
            Move::EnPassant { from, to } => Delta {
                added: [Some((piece(Role::Pawn), to)), None],
                removed: [
                    Some((piece(Role::Pawn), from)),
                    Some((
                        theirs(Role::Pawn),
                        Square::from_coords(to.file(), from.rank()),
                    )),
                ],
            },
            Move::Castle { king, rook } => {
                let side = shakmaty::CastlingSide::from_king_side(rook > king);
                Delta {
                    added: [
                        Some((piece(Role::King), side.king_to(us))),
                        Some((piece(Role::Rook), side.rook_to(us))),
                    ],
                    removed: [
                        Some((piece(Role::King), king)),
                        Some((piece(Role::Rook), rook)),
                    ],
                }
            }
            Move::Put { role, to } => Delta {
                added: [Some((piece(role), to)), None],
                removed: [None, None],
            },
        }
    }
}

impl Network {
    /// The network built into the binary.
    pub fn embedded() -> Arc<Network> {
        Arc::clone(&Network::embedded_parsed().0)
    }

    /// Why the network built into the binary cannot be used, if it cannot (a bad file given to
    /// the build as `EVALFILE`): [`Network::embedded`] then scores every position 0.
    pub fn embedded_error() -> Option<&'static NetworkError> {
        Network::embedded_parsed().1.as_ref()
    }

    /// The built-in network, read once: the network, or one that scores every position 0
    /// with why the bytes could not be read (the embedded file is checked by a unit test).
    fn embedded_parsed() -> &'static (Arc<Network>, Option<NetworkError>) {
        static EMBEDDED: OnceLock<(Arc<Network>, Option<NetworkError>)> = OnceLock::new();
        EMBEDDED.get_or_init(|| match Network::from_bytes(EMBEDDED_BYTES) {
            Ok(n) => (Arc::new(n), None),
            Err(e) => (Arc::new(Network::zero()), Some(e)),
        })
    }

    /// A network of zero weights, one king bucket and one output bucket.
    pub fn zero() -> Network {
        Network::zero_with(KingBuckets::NONE)
    }

    /// A network of zero weights with `kings` and one output bucket.
    fn zero_with(kings: KingBuckets) -> Network {
        Network {
            kings,
            ft_weights: vec![[0; HIDDEN]; kings.count() * INPUTS],
            ft_bias: [0; HIDDEN],
            buckets: 1,
            out_weights: Box::new([[0; 2 * HIDDEN]; OUTPUT_BUCKETS]),
            out_bias: [0; OUTPUT_BUCKETS],
        }
    }

    /// Output buckets: 1 or [`OUTPUT_BUCKETS`].
    pub fn buckets(&self) -> usize {
        self.buckets
    }

    /// The first layer's king buckets.
    pub fn king_buckets(&self) -> KingBuckets {
        self.kings
    }

    /// The integer network nearest to floating-point weights: `ft_weights` row by input
    /// (per king bucket of `kings`, [`INPUTS`] × [`HIDDEN`]), `ft_bias` ([`HIDDEN`]), `out_weights` (per output bucket
    /// 2 × [`HIDDEN`]: the side to move's, then the other's) and `out_bias` (one per bucket),
    /// 1 or [`OUTPUT_BUCKETS`] buckets, in the units where the activation clips at 1 and the
    /// output 1 is [`SCALE`] centipawns. Out-of-range weights are clamped.
    ///
    /// # Errors
    /// [`NetworkError::Shape`] when a slice has the wrong length.
    pub fn quantise(
        kings: KingBuckets,
        ft_weights: &[f32],
        ft_bias: &[f32],
        out_weights: &[f32],
        out_bias: &[f32],
    ) -> Result<Network, NetworkError> {
        let buckets = out_bias.len();
        if ft_weights.len() != kings.count() * INPUTS * HIDDEN
            || ft_bias.len() != HIDDEN
            || !(buckets == 1 || buckets == OUTPUT_BUCKETS)
            || out_weights.len() != buckets * 2 * HIDDEN
        {
            return Err(NetworkError::Shape);
        }
        let q16 = |x: f32, q: i32, max: i16| {
            (x * q as f32)
                .round()
                .clamp(-f32::from(max), f32::from(max)) as i16
        };
        let mut net = Network::zero_with(kings);
        for (i, row) in net.ft_weights.iter_mut().enumerate() {
            for (j, w) in row.iter_mut().enumerate() {
                *w = q16(ft_weights[i * HIDDEN + j], QA, i16::MAX);
            }
        }
        for (b, &x) in net.ft_bias.iter_mut().zip(ft_bias) {
            *b = q16(x, QA, i16::MAX);
        }
        net.buckets = buckets;
        for (w, &x) in net.out_weights.iter_mut().flatten().zip(out_weights) {
            *w = q16(x, QB, MAX_OUTPUT_WEIGHT);
        }
        for (b, &x) in net.out_bias.iter_mut().zip(out_bias) {
            *b = (f64::from(x) * f64::from(QA * QB))
                .round()
                .clamp(f64::from(i32::MIN / 2), f64::from(i32::MAX / 2)) as i32;
        }
        Ok(net)
    }

    /// The network's weights in floating point, as [`Network::quantise`] takes them with
    /// [`Network::king_buckets`] (first layer by king bucket and input, its bias, the output weights by bucket, the output biases): the start
    /// of a training that goes on from this network. Quantising them gives this network back.
    pub fn dequantised(&self) -> (Vec<f32>, Vec<f32>, Vec<f32>, Vec<f32>) {
        let ft = self
            .ft_weights
            .iter()
            .flatten()
            .map(|&w| f32::from(w) / QA as f32)
            .collect();
        let ft_bias = self
            .ft_bias
            .iter()
            .map(|&b| f32::from(b) / QA as f32)
            .collect();
        let out = self.out_weights[..self.buckets]
            .iter()
            .flatten()
            .map(|&w| f32::from(w) / QB as f32)
            .collect();
        let out_bias = self.out_bias[..self.buckets]
            .iter()
            .map(|&b| (f64::from(b) / f64::from(QA * QB)) as f32)
            .collect();
        (ft, ft_bias, out, out_bias)
    }

    /// The first layer's sums of `board`, from scratch.
    pub fn refresh(&self, board: &Board) -> Accumulator {
        let mut acc = Accumulator {
            values: [self.ft_bias; 2],
        };
        for color in Color::ALL {
            let view = self.kings.view_of(color, board);
            let values = &mut acc.values[side_index(color)];
            for (sq, piece) in board.iter() {
                simd::add(values, self.row(view.input(color, piece, sq)));
            }
        }
        acc
    }

    /// The first-layer row `i` (an input of some view: always below the rows' number).
    #[inline]
    fn row(&self, i: usize) -> &[i16; HIDDEN] {
        // Every view's inputs are below `kings.count() * INPUTS`, the rows' number (a view's
        // bucket is below the count, checked when the buckets were made).
        &self.ft_weights[i]
    }

    /// An empty cache of accumulators by view, for [`Network::apply`] with this network.
    pub fn refresh_cache(&self) -> RefreshCache {
        let per_side = 2 * self.kings.count();
        let empty = CacheEntry {
            values: self.ft_bias,
            board: Board::empty(),
        };
        RefreshCache {
            owner: self.ft_weights.as_ptr() as usize,
            entries: vec![empty; 2 * per_side],
            per_side,
        }
    }

    /// Whether [`Network::apply`] needs the board after a move (a network with king buckets or
    /// mirroring); without, any board will do.
    pub fn needs_board(&self) -> bool {
        self.kings.by_king()
    }

    /// Updates `acc` by the pieces `delta` adds and removes, `after` being the board the move
    /// leads to (any board for a network without king buckets: see [`Network::needs_board`]).
    /// A side whose king move changes its view is summed again: from the entry of `cache` for
    /// its new view (see [`RefreshCache`]), or from scratch without one.
    pub fn apply(
        &self,
        acc: &mut Accumulator,
        delta: &Delta,
        after: &Board,
        mut cache: Option<&mut RefreshCache>,
    ) {
        for color in Color::ALL {
            let values = &mut acc.values[side_index(color)];
            let view = if self.kings.by_king() {
                let view = self.kings.view_of(color, after);
                if let Some(from) = delta.king_from(color) {
                    if self.kings.view(color, from) != view {
                        self.resum(values, color, view, after, cache.as_deref_mut());
                        continue;
                    }
                }
                view
            } else {
                View::default()
            };
            for &(piece, sq) in delta.removed.iter().flatten() {
                simd::sub(values, self.row(view.input(color, piece, sq)));
            }
            for &(piece, sq) in delta.added.iter().flatten() {
                simd::add(values, self.row(view.input(color, piece, sq)));
            }
        }
    }

    /// The sums of `color`'s `view` of `board` into `values`: from the cache's entry of that
    /// view, adding and removing the pieces that differ, and the entry brought up to date; from
    /// scratch without a cache of this network's.
    fn resum(
        &self,
        values: &mut [i16; HIDDEN],
        color: Color,
        view: View,
        board: &Board,
        cache: Option<&mut RefreshCache>,
    ) {
        let owner = self.ft_weights.as_ptr() as usize;
        let Some(entry) = cache
            .filter(|c| c.owner == owner)
            .and_then(|c| c.entry(color, view))
        else {
            *values = self.ft_bias;
            for (sq, piece) in board.iter() {
                simd::add(values, self.row(view.input(color, piece, sq)));
            }
            return;
        };
        for piece in every_piece() {
            let then = squares_of(&entry.board, piece);
            let now = squares_of(board, piece);
            for sq in then & !now {
                simd::sub(&mut entry.values, self.row(view.input(color, piece, sq)));
            }
            for sq in now & !then {
                simd::add(&mut entry.values, self.row(view.input(color, piece, sq)));
            }
        }
        entry.board = board.clone();
        *values = entry.values;
    }

    /// The score in centipawns for `turn` of the position whose sums are `acc` and which has
    /// `pieces` pieces on the board.
    pub fn evaluate(&self, acc: &Accumulator, turn: Color, pieces: usize) -> i32 {
        let us = &acc.values[side_index(turn)];
        let them = &acc.values[side_index(!turn)];
        let bucket = bucket_of(self.buckets, pieces);
        let (w_us, w_them) = self.out_weights[bucket].split_at(HIDDEN);
        // Each block of DOT_NEURONS is at most DOT_NEURONS * QA * QA * MAX_OUTPUT_WEIGHT < 2^31
        // in size; their sum is taken in i64.
        let mut sum = 0i64;
        for (v, w) in [(us, w_us), (them, w_them)] {
            for (v, w) in v.chunks_exact(DOT_NEURONS).zip(w.chunks_exact(DOT_NEURONS)) {
                sum += i64::from(simd::screlu_dot(v, w));
            }
        }
        let cp = (sum / i64::from(QA) + i64::from(self.out_bias[bucket])) * i64::from(SCALE)
            / i64::from(QA * QB);
        cp.clamp(-i64::from(EVAL_LIMIT), i64::from(EVAL_LIMIT)) as i32
    }

    /// The score in centipawns of `pos` for the side to move, from scratch.
    pub fn evaluate_position(&self, pos: &Chess) -> i32 {
        let pieces = pos.board().occupied().count();
        self.evaluate(&self.refresh(pos.board()), pos.turn(), pieces)
    }
}

#[cfg(test)]
mod tests;
