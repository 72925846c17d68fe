//! A weaker engine for people (the UCI options `UCI_LimitStrength` and `UCI_Elo`): a playing
//! level in Elo becomes a node budget per move and random offsets added to the scores of the
//! root moves, so that the engine sees less and now and then prefers a worse move, as a weaker
//! player does. At a limited strength the engine plays table positions by this search too,
//! without the tables, so that a person can practise endgames against it and win.
//!
//! The levels are anchored on matches against Stockfish's own `UCI_Elo` levels (see
//! [`ANCHORS`] and docs/strength.md); between anchors the node budget is interpolated
//! geometrically and the offsets linearly.

use std::ops::RangeInclusive;

use shakmaty::Move;

/// The levels `UCI_Elo` accepts: from the weakest anchor to the strongest.
pub const ELO_RANGE: RangeInclusive<u32> = ANCHORS[0].0..=ANCHORS[ANCHORS.len() - 1].0;

/// The default of `UCI_Elo`.
pub const DEFAULT_ELO: u32 = 1500;

/// The anchors of the scale: Elo, nodes per move, and the largest random offset of a root
/// move's score in centipawns. Each level is what the node budget and offsets scored at 10+0.1
/// against Stockfish 15.1 with `UCI_LimitStrength`, rounded to 5 (docs/strength.md has the
/// games). A change of the search or the evaluation changes what a budget is worth, so the
/// anchors are measured again with it.
pub const ANCHORS: [(u32, u64, i32); 4] = [
    (1160, 400, 180),
    (1675, 3_000, 90),
    (1910, 26_000, 30),
    (2140, 200_000, 0),
];

/// A playing level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strength {
    /// The level in Elo, within [`ELO_RANGE`].
    pub elo: u32,
    /// The seed of this search's random offsets.
    pub seed: u64,
}

impl Strength {
    /// The level `elo` (clamped to [`ELO_RANGE`]) with the random offsets of `seed`.
    pub fn new(elo: u32, seed: u64) -> Strength {
        Strength {
            elo: elo.clamp(*ELO_RANGE.start(), *ELO_RANGE.end()),
            seed,
        }
    }

    /// The anchors around this level and how far between them it lies (0 to 1).
    fn between(self) -> ((u32, u64, i32), (u32, u64, i32), f64) {
        let i = ANCHORS
            .windows(2)
            .position(|w| self.elo <= w[1].0)
            .unwrap_or(ANCHORS.len() - 2);
        let (lo, hi) = (ANCHORS[i], ANCHORS[i + 1]);
        let t = f64::from(self.elo.saturating_sub(lo.0)) / f64::from(hi.0 - lo.0);
        (lo, hi, t.clamp(0.0, 1.0))
    }

    /// Nodes per move at this level.
    pub fn nodes(self) -> u64 {
        let (lo, hi, t) = self.between();
        let (a, b) = ((lo.1 as f64).ln(), (hi.1 as f64).ln());
        (a + (b - a) * t).exp().round() as u64
    }

    /// The largest random offset of a root move's score, in centipawns.
    pub fn spread(self) -> i32 {
        let (lo, hi, t) = self.between();
        (f64::from(lo.2) + f64::from(hi.2 - lo.2) * t).round() as i32
    }

    /// A random offset for each of `moves`: the sum of two uniform draws, so small offsets are
    /// likelier than large ones, within plus or minus [`Strength::spread`].
    pub fn root_noise(self, moves: &[Move]) -> Vec<(Move, i32)> {
        let mut rng = fastrand::Rng::with_seed(self.seed);
        let half = self.spread() / 2;
        moves
            .iter()
            .map(|&m| (m, rng.i32(-half..=half) + rng.i32(-half..=half)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    #[test]
    fn the_scale_is_monotonic_and_meets_its_anchors() {
        for &(elo, nodes, spread) in &ANCHORS {
            let s = Strength::new(elo, 0);
            assert_eq!((s.nodes(), s.spread()), (nodes, spread), "{elo}");
        }
        let mut last = (0, i32::MAX);
        for elo in ELO_RANGE {
            let s = Strength::new(elo, 0);
            assert!(s.nodes() >= last.0 && s.spread() <= last.1, "{elo}");
            last = (s.nodes(), s.spread());
        }
        assert!(ELO_RANGE.contains(&DEFAULT_ELO));
        assert_eq!(Strength::new(5000, 0).elo, *ELO_RANGE.end());
        assert_eq!(Strength::new(0, 0).elo, *ELO_RANGE.start());
    }

    #[test]
    fn offsets_stay_within_the_spread_and_follow_the_seed() {
        let moves = Chess::default().legal_moves();
        let s = Strength::new(*ELO_RANGE.start(), 7);
        let a = s.root_noise(&moves);
        assert_eq!(a, s.root_noise(&moves));
        assert_ne!(a, Strength::new(*ELO_RANGE.start(), 8).root_noise(&moves));
        assert_eq!(a.len(), moves.len());
        assert!(a.iter().all(|&(_, n)| n.abs() <= s.spread()));
        assert!(a.iter().any(|&(_, n)| n != 0));
    }
}
