//! Win, draw and loss chances for `UCI_ShowWDL`: exact where the score is a proven mate or a
//! table result, else from a model of the win rate given the score and the material on the
//! board, fitted on Retro's own self-play games with its network (`scripts/fit-wdl.py` on `retro
//! datagen` data; docs/engine.md has the fit and its calibration).
//!
//! The model is Stockfish's form: the side to move wins with probability
//! `1 / (1 + exp((a - v) / b))` at score `v` (centipawns), where `a` (the score that wins half
//! the games) and `b` (how fast the chance grows with it) are polynomials in the material `m`
//! (pawns 1, knights and bishops 3, rooks 5, queens 9, both sides, clamped to
//! [`MATERIAL_MIN`]..=[`MATERIAL_MAX`], divided by [`MATERIAL_SCALE`]); the loss chance is
//! the win chance of `-v`, and the draw chance the rest.

use std::fmt;

use shakmaty::{Chess, Position, Role};

use super::vocab::{MATE_BOUND, TB_BOUND};

/// Chances of a win, a draw and a loss for the side to move, per mille, summing to 1000.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WdlChances {
    /// Per mille of wins.
    pub win: u32,
    /// Per mille of draws.
    pub draw: u32,
    /// Per mille of losses.
    pub loss: u32,
}

impl WdlChances {
    /// A certain win.
    pub const WIN: WdlChances = WdlChances {
        win: 1000,
        draw: 0,
        loss: 0,
    };
    /// A certain draw.
    pub const DRAW: WdlChances = WdlChances {
        win: 0,
        draw: 1000,
        loss: 0,
    };
    /// A certain loss.
    pub const LOSS: WdlChances = WdlChances {
        win: 0,
        draw: 0,
        loss: 1000,
    };
}

impl fmt::Display for WdlChances {
    /// `W D L`, as UCI writes it after `wdl`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.win, self.draw, self.loss)
    }
}

/// The least material the model distinguishes (less counts as this).
pub const MATERIAL_MIN: i32 = 10;
/// The most material the model distinguishes (more counts as this).
pub const MATERIAL_MAX: i32 = 78;
/// The material the polynomials' argument is divided by.
pub const MATERIAL_SCALE: f64 = 58.0;

/// Coefficients of `a(m)`, constant term first (fitted by `scripts/fit-wdl.py`: docs/engine.md).
const A: [f64; 3] = [250.23, -299.13, 125.04];
/// Coefficients of `b(m)`, constant term first (fitted by `scripts/fit-wdl.py`: docs/engine.md).
const B: [f64; 3] = [48.97, 44.20, -19.07];

/// The chances of the side to move of `pos` at search score `score`: certain for a mate or
/// table win or loss, else from the model.
pub fn of_search(score: i32, pos: &Chess) -> WdlChances {
    if score >= TB_BOUND.min(MATE_BOUND) {
        return WdlChances::WIN;
    }
    if score <= -TB_BOUND.min(MATE_BOUND) {
        return WdlChances::LOSS;
    }
    of_model(score, material(pos))
}

/// The material of `pos` as the model counts it: pawns 1, minor pieces 3, rooks 5, queens 9,
/// both sides.
pub fn material(pos: &Chess) -> i32 {
    let b = pos.board();
    [
        (Role::Pawn, 1),
        (Role::Knight, 3),
        (Role::Bishop, 3),
        (Role::Rook, 5),
        (Role::Queen, 9),
    ]
    .iter()
    .map(|&(role, value)| value * b.by_role(role).count() as i32)
    .sum()
}

/// The model's chances at score `v` with material `m`.
pub fn of_model(v: i32, m: i32) -> WdlChances {
    let win = per_mille(win_rate(f64::from(v), m));
    let loss = per_mille(win_rate(-f64::from(v), m));
    // Each rounds to at most 500 at v = 0 and they cannot both exceed 500: the sum stays
    // within 1000.
    let (win, loss) = if win + loss > 1000 {
        (win, 1000 - win)
    } else {
        (win, loss)
    };
    WdlChances {
        win,
        draw: 1000 - win - loss,
        loss,
    }
}

/// The model's win probability at score `v` with material `m`.
fn win_rate(v: f64, m: i32) -> f64 {
    let x = f64::from(m.clamp(MATERIAL_MIN, MATERIAL_MAX)) / MATERIAL_SCALE;
    let poly = |c: &[f64; 3]| c[0] + x * (c[1] + x * c[2]);
    let (a, b) = (poly(&A), poly(&B).max(1.0));
    1.0 / (1.0 + ((a - v) / b).exp())
}

fn per_mille(p: f64) -> u32 {
    (p * 1000.0).round().clamp(0.0, 1000.0) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::{mate_in, mated_in, tb_loss_in, tb_win_in};

    #[test]
    fn chances_sum_to_a_thousand_and_grow_with_the_score() {
        for m in [0, 10, 30, 58, 78, 100] {
            let mut last = 0;
            for v in (-3000..=3000).step_by(25) {
                let c = of_model(v, m);
                assert_eq!(c.win + c.draw + c.loss, 1000, "{v} {m} {c}");
                assert!(c.win >= last, "{v} {m}");
                last = c.win;
                let mirrored = of_model(-v, m);
                assert_eq!((c.win, c.loss), (mirrored.loss, mirrored.win), "{v} {m}");
            }
        }
    }

    #[test]
    fn proven_results_are_certain() {
        let pos = Chess::default();
        assert_eq!(of_search(mate_in(5), &pos), WdlChances::WIN);
        assert_eq!(of_search(mated_in(8), &pos), WdlChances::LOSS);
        assert_eq!(of_search(tb_win_in(40), &pos), WdlChances::WIN);
        assert_eq!(of_search(tb_loss_in(40), &pos), WdlChances::LOSS);
        assert_eq!(material(&pos), 78);
        assert_eq!(WdlChances::DRAW.to_string(), "0 1000 0");
    }
}
