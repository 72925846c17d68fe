//! The second estimate of the proof game search: the relaxed problem's, plus the moves that
//! pieces in each other's way cost, which the relaxed problem ignores.
//!
//! The relaxed problem moves each piece on an empty board (but for the goal's fixed pieces),
//! so a search can come within a few plies of the goal by its estimate and stall there: a
//! rook one move from its square with pieces on the line between, a bishop the pawns shut in.
//! This estimate adds, for each goal square its piece has not reached, what the walls (pawns
//! and fixed pieces) add to the nearest candidate's way there with a move for each piece in
//! that way, and for a slider one move away a move per piece on the line (two for a piece on
//! its own goal square, which has to come back). It may overshoot, so it serves where the regular search has failed: from the best
//! position that search found, as the seed document's second heuristic does.

use shakmaty::{attacks, Chess, Color, Move, Position, Role};

use super::{
    around::{Around, SHUT_IN},
    astar::{Exact, Goal},
};

/// The goal of [`Exact`] with the estimate that counts pieces in the way.
pub struct Unblock<'a> {
    exact: &'a Exact<'a>,
    around: Around,
}

impl<'a> Unblock<'a> {
    /// The goal of `exact`, estimated with the pieces in the way.
    pub fn new(exact: &'a Exact<'a>) -> Unblock<'a> {
        Unblock {
            exact,
            around: Around::default(),
        }
    }

    /// The moves the pieces of `pos` in each other's way cost beyond the relaxed problem.
    fn in_the_way(&self, pos: &Chess) -> u32 {
        let h = self.exact.h;
        let goal = &h.goal().board;
        let board = pos.board();
        let walls = board.pawns() | h.blocked();
        let pieces = board.occupied() & !board.pawns();
        let mut extra = 0u32;
        for c in Color::ALL {
            for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
                let want = goal.by_color(c) & goal.by_role(role);
                let have = board.by_color(c) & board.by_role(role);
                let movers = have & !want;
                for t in want & !have {
                    let Some((d, s)) = movers
                        .into_iter()
                        .filter_map(|s| h.distance(c, role, s, t).map(|d| (d, s)))
                        .min()
                    else {
                        continue;
                    };
                    let around = if d == 1 && role != Role::Knight {
                        self.around.distance(role, walls, s, t)
                    } else {
                        self.around.distance_past(role, walls, pieces, s, t)
                    };
                    extra += match around {
                        Some(w) => u32::from(w).saturating_sub(d),
                        None => u32::from(SHUT_IN),
                    };
                    if d == 1 && role != Role::Knight {
                        for b in attacks::between(s, t) & board.occupied() & !board.pawns() {
                            extra += if goal.piece_at(b) == board.piece_at(b) {
                                2
                            } else {
                                1
                            };
                        }
                    }
                }
            }
        }
        extra
    }
}

impl Goal for Unblock<'_> {
    fn estimate(&self, pos: &Chess) -> Option<u32> {
        let base = self.exact.estimate(pos)?;
        Some(base + 2 * self.in_the_way(pos))
    }

    fn reached(&self, pos: &Chess) -> bool {
        self.exact.reached(pos)
    }

    fn king_nearer(&self, pos: &Chess, m: &Move) -> bool {
        self.exact.king_nearer(pos, m)
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{fen::Fen, CastlingMode};

    use super::*;
    use crate::{heuristic::Heuristic, position::RawPosition};

    fn chess(fen: &str) -> Chess {
        let f: Fen = fen.parse().expect("test FEN");
        f.into_position(CastlingMode::Standard)
            .expect("legal test position")
    }

    #[test]
    fn pieces_on_a_rooks_line_cost_moves_the_relaxed_problem_does_not_count() {
        // The goal has the white rook on a4; it stands on a1 behind its own knight on a2 and
        // bishop on a3, which are where the goal wants them too: each must step aside and
        // come back.
        let goal = RawPosition::from_fen("4k3/8/8/8/R7/B7/N7/4K3 w - - 0 1").expect("goal");
        let h = Heuristic::new(&goal);
        let exact = Exact {
            h: &h,
            any_ep: false,
        };
        let unblock = Unblock::new(&exact);
        let pos = chess("4k3/8/8/8/8/B7/N7/R3K3 w - - 0 1");
        let relaxed = exact.estimate(&pos).expect("reachable");
        assert_eq!(unblock.estimate(&pos), Some(relaxed + 2 * 4));
        // With the line clear, the two agree.
        let pos = chess("4k3/8/8/8/1B6/8/1N6/R3K3 w - - 0 1");
        assert_eq!(unblock.estimate(&pos), exact.estimate(&pos));
    }

    #[test]
    fn a_piece_on_every_shortest_way_costs_a_move() {
        // The rook goes from h1 to a4 in two moves, by a1 or by h4: the king stands on the
        // first way, the black knight on the second.
        let goal = RawPosition::from_fen("4k3/8/8/8/R2n4/8/8/4K3 w - - 0 1").expect("goal");
        let h = Heuristic::new(&goal);
        let exact = Exact {
            h: &h,
            any_ep: false,
        };
        let unblock = Unblock::new(&exact);
        let pos = chess("4k3/8/8/8/3n4/8/8/4K2R w - - 0 1");
        let relaxed = exact.estimate(&pos).expect("reachable");
        assert_eq!(unblock.estimate(&pos), Some(relaxed + 2));
        // The knight elsewhere, the way by h4 is free.
        let goal = RawPosition::from_fen("4k3/8/8/8/R7/8/8/n3K3 w - - 0 1").expect("goal");
        let h = Heuristic::new(&goal);
        let exact = Exact {
            h: &h,
            any_ep: false,
        };
        let unblock = Unblock::new(&exact);
        let pos = chess("4k3/8/8/8/8/8/8/n3K2R w - - 0 1");
        assert_eq!(unblock.estimate(&pos), exact.estimate(&pos));
    }
}
