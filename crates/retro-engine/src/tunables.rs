//! The search's tunable constants in one place, as strong engines keep them: aspiration
//! windows, pruning and reduction margins, history limits and the bands of move ordering. A
//! change to any of them changes `retro bench`'s node count and is kept only with a match that
//! says it gains (docs/engine.md).

/// Declares the tuned constants: each a function of its name returning its value (the default,
/// or with the feature `tune` the UCI option's value), with its range for SPSA.
macro_rules! tunables {
    ($($(#[doc = $doc:expr])* $name:ident: $default:expr, $min:literal..=$max:literal;)*) => {
        $(
            $(#[doc = $doc])*
            #[doc = concat!("\n\nDefault ", stringify!($default), ", tuned within ", stringify!($min), "..=", stringify!($max), ".")]
            #[allow(non_snake_case)]
            #[inline(always)]
            pub fn $name() -> i32 {
                #[cfg(not(feature = "tune"))]
                return $default;
                #[cfg(feature = "tune")]
                return tuned::$name.load(std::sync::atomic::Ordering::Relaxed);
            }
        )*

        /// The tuned constants' values in a `tune` build, settable as UCI options.
        #[cfg(feature = "tune")]
        pub mod tuned {
            use std::sync::atomic::AtomicI32;

            $(
                #[doc = concat!("The value of [`super::", stringify!($name), "`].")]
                pub static $name: AtomicI32 = AtomicI32::new($default);
            )*
        }

        /// Every tuned constant: its name, default and range (and in a `tune` build its value).
        pub static TUNABLES: &[Tunable] = &[
            $(Tunable {
                name: stringify!($name),
                default: $default,
                min: $min,
                max: $max,
                #[cfg(feature = "tune")]
                value: &tuned::$name,
            },)*
        ];
    };
}

/// A constant that SPSA tunes, as a UCI option of a `tune` build.
#[derive(Debug)]
pub struct Tunable {
    /// Its name, the UCI option's.
    pub name: &'static str,
    /// Its value in a build without `tune`.
    pub default: i32,
    /// The least value it takes.
    pub min: i32,
    /// The greatest.
    pub max: i32,
    /// Its value now.
    #[cfg(feature = "tune")]
    pub value: &'static std::sync::atomic::AtomicI32,
}

/// Depth from which an iteration searches an aspiration window around the previous score.
pub const ASPIRATION_MIN_DEPTH: u32 = 5;
/// Iterations in a row with a mate score after which a timed search stops early.
pub const MATE_STREAK_STOP: u32 = 4;

/// Null-move pruning: the shallowest depth it applies at.
pub const NMP_MIN_DEPTH: i32 = 3;

/// Late-move reductions apply from this depth.
pub const LMR_MIN_DEPTH: i32 = 3;
/// Late-move reductions apply from this many moves searched.
pub const LMR_MIN_SEARCHED: i32 = 3;

/// Late-move pruning: the deepest depth it applies at.
pub const LMP_MAX_DEPTH: i32 = 7;
/// Futility pruning of quiet moves: the deepest depth it applies at.
pub const FUTILITY_MAX_DEPTH: i32 = 5;

/// SEE pruning: the deepest depth it applies at.
pub const SEE_PRUNE_MAX_DEPTH: i32 = 6;

/// Singular extensions (the experiment `exp-singular`): the shallowest depth they apply at.
pub const SINGULAR_MIN_DEPTH: i32 = 8;
/// Singular extensions: how much shallower than the node the hash entry may be.
pub const SINGULAR_TT_DEPTH_SLACK: i32 = 3;
/// Singular extensions: the margin below the hash score, per ply of depth (centipawns).
pub const SINGULAR_MARGIN_PER_PLY: i32 = 2;

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

// The constants below are those an SPSA run tunes (scripts/spsa.py): in a build with the cargo
// feature `tune` each is a UCI option (a spin of its range) read from an atomic; in every other
// build a function returning the constant, inlined, so the search is as if it were written in.
tunables! {
    /// The aspiration window's first half-width (centipawns); it doubles on each failure.
    ASPIRATION_DELTA: 20, 5..=80;
    /// Reverse futility pruning: the deepest depth it applies at.
    RFP_MAX_DEPTH: 6, 2..=12;
    /// Reverse futility pruning: the margin per ply of depth (one ply less when improving).
    RFP_MARGIN_PER_PLY: 80, 30..=200;
    /// Null-move pruning: the base reduction.
    NMP_BASE_REDUCTION: 3, 1..=6;
    /// Null-move pruning: one ply more of reduction per this many plies of depth.
    NMP_DEPTH_DIVISOR: 4, 2..=8;
    /// A quiet move whose history exceeds this is reduced one ply less.
    LMR_GOOD_HISTORY: 4000, 500..=12000;
    /// Late-move pruning: moves searched before the rest is pruned, `(LMP_BASE + LMP_FACTOR *
    /// depth²)`, halved when not improving.
    LMP_BASE: 3, 1..=10;
    /// See [`LMP_BASE`].
    LMP_FACTOR: 2, 1..=6;
    /// Futility pruning: the margin's base (centipawns).
    FUTILITY_BASE: 60, 0..=200;
    /// Futility pruning: the margin per ply of depth.
    FUTILITY_PER_PLY: 90, 30..=200;
    /// SEE pruning of quiet moves: the loss allowed, times depth².
    SEE_QUIET_MARGIN: -40, -150..=-5;
    /// SEE pruning of captures: the loss allowed, times depth.
    SEE_CAPTURE_MARGIN: -100, -300..=-20;
    /// Delta pruning in the quiescence search: a capture whose victim and this margin cannot lift
    /// the standing score to alpha is skipped.
    DELTA_MARGIN: 200, 50..=500;
    /// History bonus: `min(depth², HISTORY_MAX_BONUS)`.
    HISTORY_MAX_BONUS: 400, 100..=1600;
    /// Late-move reduction table: `LMR_BASE_CENTI / 100 + ln(depth) * ln(moves) / (LMR_DIVISOR_CENTI
    /// / 100)`.
    LMR_BASE_CENTI: 75, 25..=200;
    /// See [`LMR_BASE_CENTI`].
    LMR_DIVISOR_CENTI: 225, 100..=400;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tuned_constant_starts_within_its_range_under_its_own_name() {
        assert_eq!(TUNABLES.len(), 16);
        for t in TUNABLES {
            assert!(
                t.min < t.max && (t.min..=t.max).contains(&t.default),
                "{t:?}"
            );
        }
        assert_eq!(RFP_MARGIN_PER_PLY(), 80);
        let rfp = TUNABLES.iter().find(|t| t.name == "RFP_MARGIN_PER_PLY");
        assert_eq!(rfp.map(|t| t.default), Some(RFP_MARGIN_PER_PLY()));
        let mut names: Vec<&str> = TUNABLES.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TUNABLES.len());
    }
}
