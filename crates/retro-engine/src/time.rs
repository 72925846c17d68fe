//! Search limits and how much of the clock a move may use.

use std::time::Duration;

use shakmaty::Color;

/// What a `go` command asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchLimits {
    /// White's clock and increment.
    pub white: (Option<Duration>, Option<Duration>),
    /// Black's clock and increment.
    pub black: (Option<Duration>, Option<Duration>),
    /// Moves to the next time control.
    pub moves_to_go: Option<u32>,
    /// Exact time for this move.
    pub move_time: Option<Duration>,
    /// Maximum depth in plies.
    pub depth: Option<u32>,
    /// Maximum nodes.
    pub nodes: Option<u64>,
    /// Nodes after which no new iteration starts (a soft limit: the iteration under way is
    /// finished, up to `nodes`).
    pub soft_nodes: Option<u64>,
    /// Search for a mate in this many moves (without `depth`, to 2N + 4 plies at most).
    pub mate: Option<u32>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Ponder: search without a time limit until `ponderhit` or `stop`.
    pub ponder: bool,
}

/// The moves to go assumed when the GUI does not say (a sudden-death or increment clock). With
/// 30, Retro ended its games at 10+0.1 with half its clock unused (0.204 s a move against
/// Ethereal's 0.276 and Stockfish's 0.327, 58 games of a gauntlet).
pub const DEFAULT_MOVES_TO_GO: u32 = 20;

/// The time budget of one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Do not start a new iteration after this.
    pub soft: Duration,
    /// Stop the search at this, wherever it is.
    pub hard: Duration,
}

impl SearchLimits {
    /// Whether the search runs until told to stop (infinite, or no limit at all).
    pub fn is_unbounded(&self) -> bool {
        self.infinite
            || (self.white.0.is_none()
                && self.black.0.is_none()
                && self.move_time.is_none()
                && self.depth.is_none()
                && self.nodes.is_none()
                && self.soft_nodes.is_none()
                && self.mate.is_none())
    }

    /// The time budget of `turn`, if the search is timed; `overhead` is kept back from every
    /// move for communication and the GUI.
    pub fn budget(&self, turn: Color, overhead: Duration) -> Option<Budget> {
        if self.infinite {
            return None;
        }
        if let Some(mt) = self.move_time {
            let t = mt.saturating_sub(overhead).max(Duration::from_millis(1));
            return Some(Budget { soft: t, hard: t });
        }
        let (time, inc) = match turn {
            Color::White => self.white,
            Color::Black => self.black,
        };
        let time = time?;
        let inc = inc.unwrap_or_default();
        // The share of the clock for this move: the time left spread over the moves to go
        // (DEFAULT_MOVES_TO_GO when unknown) plus most of the increment. No new iteration
        // starts after half of it, so a move uses about that much on average and the clock
        // settles well above the increment; a started iteration may go on to 2.5 times the
        // share, but never past a quarter of what is left (four fifths on the last move before
        // the control).
        let mtg = self.moves_to_go.unwrap_or(DEFAULT_MOVES_TO_GO).clamp(1, 60);
        let usable = time.saturating_sub(overhead);
        let cap = if self.moves_to_go == Some(1) {
            usable * 4 / 5
        } else {
            usable / 4
        };
        let share = (usable / (mtg + 2) + inc * 3 / 4).min(cap);
        let floor = Duration::from_micros(500);
        let soft = (share / 2).max(floor);
        let hard = (share * 5 / 2).min(cap).max(soft);
        Some(Budget { soft, hard })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn budgets_fit_the_clock() {
        let l = SearchLimits {
            white: (Some(ms(1000)), Some(ms(10))),
            ..SearchLimits::default()
        };
        let b = l.budget(Color::White, ms(20)).expect("timed");
        assert!(b.soft <= b.hard && b.hard <= ms(330), "{b:?}");
        assert!(b.soft >= ms(10), "{b:?}");
        // Nearly flagged: still a positive budget well inside the clock.
        let l = SearchLimits {
            white: (Some(ms(15)), None),
            ..SearchLimits::default()
        };
        let b = l.budget(Color::White, ms(20)).expect("timed");
        assert!(b.hard <= ms(5), "{b:?}");
        // Moves to go 1: most of the remaining time.
        let l = SearchLimits {
            white: (Some(ms(1000)), None),
            moves_to_go: Some(1),
            ..SearchLimits::default()
        };
        let b = l.budget(Color::White, ms(0)).expect("timed");
        assert!(b.hard <= ms(800), "{b:?}");
        let l = SearchLimits {
            move_time: Some(ms(100)),
            ..SearchLimits::default()
        };
        assert_eq!(
            l.budget(Color::White, ms(10)),
            Some(Budget {
                soft: ms(90),
                hard: ms(90)
            })
        );
        assert_eq!(SearchLimits::default().budget(Color::White, ms(10)), None);
        assert!(SearchLimits::default().is_unbounded());
        assert!(!SearchLimits {
            depth: Some(3),
            ..SearchLimits::default()
        }
        .is_unbounded());
    }
}
