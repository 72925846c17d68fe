//! The search's tunable constants in one place, as strong engines keep them: aspiration
//! windows, pruning and reduction margins, history limits and the bands of move ordering. A
//! change to any of them changes `retro bench`'s node count and is kept only with a match that
//! says it gains (docs/engine.md).

/// Depth from which an iteration searches an aspiration window around the previous score.
pub const ASPIRATION_MIN_DEPTH: u32 = 5;
/// The aspiration window's first half-width (centipawns); it doubles on each failure.
pub const ASPIRATION_DELTA: i32 = 20;
/// Iterations in a row with a mate score after which a timed search stops early.
pub const MATE_STREAK_STOP: u32 = 4;

/// Reverse futility pruning: the deepest depth it applies at.
pub const RFP_MAX_DEPTH: i32 = 6;
/// Reverse futility pruning: the margin per ply of depth (one ply less when improving).
pub const RFP_MARGIN_PER_PLY: i32 = 80;

/// Null-move pruning: the shallowest depth it applies at.
pub const NMP_MIN_DEPTH: i32 = 3;
/// Null-move pruning: the base reduction.
pub const NMP_BASE_REDUCTION: i32 = 3;
/// Null-move pruning: one ply more of reduction per this many plies of depth.
pub const NMP_DEPTH_DIVISOR: i32 = 4;

/// Late-move reductions apply from this depth.
pub const LMR_MIN_DEPTH: i32 = 3;
/// Late-move reductions apply from this many moves searched.
pub const LMR_MIN_SEARCHED: i32 = 3;
/// Late-move reduction table: `LMR_BASE + ln(depth) * ln(moves) / LMR_DIVISOR`.
pub const LMR_BASE: f64 = 0.75;
/// See [`LMR_BASE`].
pub const LMR_DIVISOR: f64 = 2.25;
/// A quiet move whose history exceeds this is reduced one ply less.
pub const LMR_GOOD_HISTORY: i32 = 4000;

/// Late-move pruning: the deepest depth it applies at.
pub const LMP_MAX_DEPTH: i32 = 7;
/// Late-move pruning: moves searched before the rest is pruned, `(LMP_BASE + LMP_FACTOR *
/// depth²)`, halved when not improving.
pub const LMP_BASE: i32 = 3;
/// See [`LMP_BASE`].
pub const LMP_FACTOR: i32 = 2;
/// Futility pruning of quiet moves: the deepest depth it applies at.
pub const FUTILITY_MAX_DEPTH: i32 = 5;
/// Futility pruning: the margin's base (centipawns).
pub const FUTILITY_BASE: i32 = 60;
/// Futility pruning: the margin per ply of depth.
pub const FUTILITY_PER_PLY: i32 = 90;

/// SEE pruning: the deepest depth it applies at.
pub const SEE_PRUNE_MAX_DEPTH: i32 = 6;
/// SEE pruning of quiet moves: the loss allowed, times depth².
pub const SEE_QUIET_MARGIN: i32 = -40;
/// SEE pruning of captures: the loss allowed, times depth.
pub const SEE_CAPTURE_MARGIN: i32 = -100;

/// Delta pruning in the quiescence search: a capture whose victim and this margin cannot lift
/// the standing score to alpha is skipped.
pub const DELTA_MARGIN: i32 = 200;

/// History bonus: `min(depth², HISTORY_MAX_BONUS)`.
pub const HISTORY_MAX_BONUS: i32 = 400;
/// History update: the bonus's scale.
pub const HISTORY_SCALE: i32 = 32;
/// History update: the gravity divisor that keeps the values bounded.
pub const HISTORY_GRAVITY: i32 = 512;

/// Move ordering: a capture's victim value counts this many times its attacker's (MVV-LVA).
pub const MVV_FACTOR: i32 = 10;

/// Move ordering band: the hash move.
pub const ORDER_HASH_MOVE: i32 = 1_000_000;
/// Move ordering band: captures that do not lose material (plus MVV-LVA).
pub const ORDER_GOOD_CAPTURE: i32 = 200_000;
/// Move ordering band: quiet queen promotions.
pub const ORDER_QUEEN_PROMOTION: i32 = 190_000;
/// Move ordering band: the first killer move.
pub const ORDER_KILLER_1: i32 = 100_000;
/// Move ordering band: the second killer move.
pub const ORDER_KILLER_2: i32 = 99_000;
/// Move ordering band: captures that lose material (plus MVV-LVA).
pub const ORDER_BAD_CAPTURE: i32 = -200_000;
/// Move ordering band: underpromotions, last.
pub const ORDER_UNDERPROMOTION: i32 = -300_000;
