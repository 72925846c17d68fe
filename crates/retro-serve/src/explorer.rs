//! The tablebase answers: what Retro's tables (else Syzygy's) say of a position and of every
//! legal move from it, in the shape, signs and order of lichess's tablebase API.
//!
//! Distances follow lichess: `dtz` is Syzygy's DTZ50'' in plies (positive where the side to
//! move wins), `dtm` the distance to mate in plies (positive where the side to move mates, 0
//! for draws and for a checkmated side), both from the point of view of the side to move in the
//! position described; a move's values are those of the position after it, for the opponent.

use std::{cmp::Reverse, sync::Arc};

use serde::Serialize;
use shakmaty::{
    fen::Fen, san::SanPlus, uci::UciMove, CastlingMode, Chess, Color, EnPassantMode, Move,
    Position, Role,
};
use shakmaty_syzygy::{AmbiguousWdl, Dtz as SDtz, MaybeRounded};

use retro_tables::{Dtz, ProbeError, Syzygy, Tablebase, Wdl, RULE_PLIES};

/// The most plies of a mainline (a guard: a line under the rule ends long before).
pub const MAX_MAINLINE_PLIES: usize = 1024;

/// The result of a position for its side to move, as lichess names it; declared in lichess's
/// order for sorting moves (worst for the side to move first, an unknown result counted as
/// almost a loss).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// Lost within the 50-move rule.
    Loss,
    /// No table covers the position.
    Unknown,
    /// Lost or saved by the rule: only a rounded DTZ (Syzygy's) is known.
    SyzygyLoss,
    /// Lost without the rule, drawn by it.
    BlessedLoss,
    /// Drawn.
    Draw,
    /// Won without the rule, drawn by it.
    CursedWin,
    /// Won or spoiled by the rule: only a rounded DTZ (Syzygy's) is known.
    SyzygyWin,
    /// Won within the 50-move rule.
    Win,
}

impl Category {
    /// The category for the other side.
    pub fn flip(self) -> Category {
        match self {
            Category::Loss => Category::Win,
            Category::Unknown => Category::Unknown,
            Category::SyzygyLoss => Category::SyzygyWin,
            Category::BlessedLoss => Category::CursedWin,
            Category::Draw => Category::Draw,
            Category::CursedWin => Category::BlessedLoss,
            Category::SyzygyWin => Category::SyzygyLoss,
            Category::Win => Category::Loss,
        }
    }

    /// A win of some kind for the side to move.
    pub fn is_positive(self) -> bool {
        matches!(
            self,
            Category::CursedWin | Category::SyzygyWin | Category::Win
        )
    }

    /// lichess's name (`win`, `cursed-win`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Loss => "loss",
            Category::Unknown => "unknown",
            Category::SyzygyLoss => "syzygy-loss",
            Category::BlessedLoss => "blessed-loss",
            Category::Draw => "draw",
            Category::CursedWin => "cursed-win",
            Category::SyzygyWin => "syzygy-win",
            Category::Win => "win",
        }
    }
}

/// What the tables say of one position, lichess's fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PositionInfo {
    /// The side to move is checkmated.
    pub checkmate: bool,
    /// The side to move is stalemated.
    pub stalemate: bool,
    /// Always false (lichess's field for chess variants).
    pub variant_win: bool,
    /// Always false (lichess's field for chess variants).
    pub variant_loss: bool,
    /// Neither side has mating material.
    pub insufficient_material: bool,
    /// DTZ50'' in plies, possibly rounded (Syzygy); `null` when unknown.
    pub dtz: Option<i32>,
    /// DTZ50'' in plies when known exactly; `null` otherwise.
    pub precise_dtz: Option<i32>,
    /// Depth to mate in plies; `null` when unknown (beyond Retro's tables).
    pub dtm: Option<i32>,
    /// Depth to conversion (lichess's field for its op1 tables): always `null`, Retro has
    /// no such table.
    pub dtc: Option<i32>,
    /// Depth to an antichess win (lichess's field): always `null` in standard chess.
    pub dtw: Option<i32>,
    /// The result.
    pub category: Category,
}

/// One legal move and what the tables say of the position after it (for the opponent).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveInfo {
    /// The move in UCI notation.
    pub uci: String,
    /// The move in SAN, with `+` or `#`.
    pub san: String,
    /// A capture or pawn move (it resets the halfmove clock).
    pub zeroing: bool,
    /// The position after the move (lichess's fields, for the opponent).
    #[serde(flatten)]
    pub pos: PositionInfo,
    /// The FEN after the move (Retro's field: lets a page play the move without chess rules).
    pub fen: String,
    /// The piece captured, for ordering.
    #[serde(skip)]
    capture: Option<Role>,
    /// The piece promoted to, for ordering.
    #[serde(skip)]
    promotion: Option<Role>,
    /// The move itself (a mainline plays it).
    #[serde(skip)]
    mv: Move,
}

/// lichess's order for the distance to mate: the opponent's fastest loss first, then unknown
/// and drawn, then the opponent's slowest win.
fn tightening(metric: Option<i32>) -> (Reverse<Option<i32>>, Option<Reverse<i32>>) {
    (
        Reverse(metric.filter(|m| *m < 0)),
        metric.filter(|m| *m > 0).map(Reverse),
    )
}

impl MoveInfo {
    /// The sort key, best move for the mover first (lichess's order): the opponent's worst
    /// result; checkmate; stalemate and insufficient material among draws; the fastest mate
    /// (the slowest when losing); a zeroing move when winning (a non-zeroing one when losing)
    /// and the DTZ; the biggest capture and promotion.
    #[allow(clippy::type_complexity)]
    fn sort_key(
        &self,
    ) -> (
        Category,
        Reverse<bool>,
        (Reverse<bool>, Reverse<bool>),
        (Reverse<Option<i32>>, Option<Reverse<i32>>),
        (bool, Option<Reverse<i32>>),
        (Reverse<Option<Role>>, Reverse<Option<Role>>),
    ) {
        (
            self.pos.category,
            Reverse(self.pos.checkmate),
            (
                Reverse(self.pos.stalemate),
                Reverse(self.pos.insufficient_material),
            ),
            tightening(self.pos.dtm),
            (
                self.zeroing ^ !self.pos.category.is_positive(),
                self.pos.dtz.map(Reverse),
            ),
            (Reverse(self.capture), Reverse(self.promotion)),
        )
    }
}

/// The answer of `/standard`: the position and its moves, best first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Standard {
    /// The position.
    #[serde(flatten)]
    pub pos: PositionInfo,
    /// Every legal move, best first.
    pub moves: Vec<MoveInfo>,
}

/// One move of a mainline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MainlineStep {
    /// The move in UCI notation.
    pub uci: String,
    /// The move in SAN.
    pub san: String,
    /// DTZ after the move, for the opponent.
    pub dtz: Option<i32>,
    /// DTZ after the move when exact.
    pub precise_dtz: Option<i32>,
    /// DTM after the move, for the opponent (Retro's field).
    pub dtm: Option<i32>,
}

/// The answer of `/standard/mainline`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mainline {
    /// The DTZ of the position.
    pub dtz: Option<i32>,
    /// The DTZ of the position when exact.
    pub precise_dtz: Option<i32>,
    /// The DTM of the position (Retro's field).
    pub dtm: Option<i32>,
    /// The line of best play, empty for a draw; it ends at mate or where a draw by the 50-move
    /// rule can be claimed.
    pub mainline: Vec<MainlineStep>,
    /// `w`, `b`, or `null` for a draw.
    pub winner: Option<char>,
}

/// Why there is no mainline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MainlineError {
    /// No table covers the position.
    #[error("not a tablebase position, or the tables it needs are not present")]
    NotCovered,
}

/// Retro's tables and, beyond them, Syzygy's.
#[derive(Clone, Default)]
pub struct Explorer {
    tables: Option<Arc<Tablebase>>,
    syzygy: Option<Arc<Syzygy>>,
}

impl std::fmt::Debug for Explorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Explorer")
            .field(
                "tables",
                &self.tables.as_ref().map(|t| t.dir().to_path_buf()),
            )
            .field("syzygy", &self.syzygy)
            .finish()
    }
}

/// What the tables hold for one position.
struct Probed {
    dtz: Option<MaybeRounded<i32>>,
    dtm: Option<i32>,
}

impl Explorer {
    /// An explorer over Retro's tables (`tables`) and Syzygy's (`syzygy`), either optional.
    pub fn new(tables: Option<Arc<Tablebase>>, syzygy: Option<Arc<Syzygy>>) -> Explorer {
        Explorer { tables, syzygy }
    }

    /// The Syzygy tables, if any.
    pub fn syzygy(&self) -> Option<&Arc<Syzygy>> {
        self.syzygy.as_ref()
    }

    /// Retro's tables, if any.
    pub fn tables(&self) -> Option<&Arc<Tablebase>> {
        self.tables.as_ref()
    }

    /// The DTM and DTZ of a position: Retro's tables first (exact), Syzygy's for the DTZ of
    /// positions beyond them. A table that cannot be read is logged and counts as absent.
    fn probe(&self, pos: &Chess) -> Probed {
        let mut out = Probed {
            dtz: None,
            dtm: None,
        };
        if let Some(tb) = &self.tables {
            match tb.probe(pos) {
                Ok(v) => {
                    out.dtm = Some(match v.wdl() {
                        Wdl::Win => v.plies() as i32,
                        Wdl::Draw => 0,
                        Wdl::Loss => -(v.plies() as i32),
                    });
                    match tb.probe_dtz(pos) {
                        Ok(Dtz(d)) => out.dtz = Some(MaybeRounded::Precise(i32::from(d))),
                        Err(e) => logged(&e),
                    }
                }
                Err(e) => logged(&e),
            }
        }
        if out.dtz.is_none() {
            if let Some((Dtz(d), rounded)) = self.syzygy.as_ref().and_then(|s| s.probe_dtz(pos)) {
                let d = i32::from(d);
                out.dtz = Some(if rounded {
                    MaybeRounded::Rounded(d)
                } else {
                    MaybeRounded::Precise(d)
                });
            }
        }
        out
    }

    /// The fields of `pos`, whose result is judged with the clock `halfmoves_before` of the
    /// position before it (a position reached with the clock at 100 or more is drawn by a
    /// claim).
    fn info(&self, pos: &Chess, halfmoves_before: u32) -> PositionInfo {
        let checkmate = pos.is_checkmate();
        let stalemate = pos.is_stalemate();
        let insufficient_material = pos.is_insufficient_material();
        let probed = self.probe(pos);
        let zero = matches!(
            probed.dtz,
            Some(MaybeRounded::Precise(0) | MaybeRounded::Rounded(0))
        );
        let category = if stalemate || insufficient_material || zero {
            Category::Draw
        } else if checkmate {
            if halfmoves_before < RULE_PLIES {
                Category::Loss
            } else {
                Category::BlessedLoss
            }
        } else if let Some(dtz) = probed.dtz {
            let d = match dtz {
                MaybeRounded::Precise(d) | MaybeRounded::Rounded(d) => d,
            };
            if halfmoves_before < RULE_PLIES {
                let dtz = match dtz {
                    MaybeRounded::Precise(d) => MaybeRounded::Precise(SDtz(d)),
                    MaybeRounded::Rounded(d) => MaybeRounded::Rounded(SDtz(d)),
                };
                match AmbiguousWdl::from_dtz_and_halfmoves(dtz, pos.halfmoves()) {
                    AmbiguousWdl::Win => Category::Win,
                    AmbiguousWdl::MaybeWin => Category::SyzygyWin,
                    AmbiguousWdl::CursedWin => Category::CursedWin,
                    AmbiguousWdl::Draw => Category::Draw,
                    AmbiguousWdl::BlessedLoss => Category::BlessedLoss,
                    AmbiguousWdl::MaybeLoss => Category::SyzygyLoss,
                    AmbiguousWdl::Loss => Category::Loss,
                }
            } else if d < 0 {
                Category::BlessedLoss
            } else {
                Category::CursedWin
            }
        } else {
            Category::Unknown
        };
        let (dtz, precise_dtz) = match probed.dtz {
            Some(MaybeRounded::Precise(d)) => (Some(d), Some(d)),
            Some(MaybeRounded::Rounded(d)) => (Some(d), None),
            None => (None, None),
        };
        PositionInfo {
            checkmate,
            stalemate,
            variant_win: false,
            variant_loss: false,
            insufficient_material,
            dtz,
            precise_dtz,
            dtm: probed.dtm,
            dtc: None,
            dtw: None,
            category,
        }
    }

    /// Every legal move of `pos` with the fields of the position after it, best first.
    fn moves(&self, pos: &Chess) -> Vec<MoveInfo> {
        let mut moves: Vec<MoveInfo> = pos
            .legal_moves()
            .into_iter()
            .map(|m| {
                let uci = UciMove::from_move(m, CastlingMode::Standard).to_string();
                let mut after = pos.clone();
                let san = SanPlus::from_move_and_play_unchecked(&mut after, m).to_string();
                MoveInfo {
                    uci,
                    san,
                    zeroing: m.is_zeroing(),
                    pos: self.info(&after, pos.halfmoves()),
                    fen: fen_of(&after),
                    capture: m.capture(),
                    promotion: m.promotion(),
                    mv: m,
                }
            })
            .collect();
        moves.sort_by_key(MoveInfo::sort_key);
        moves
    }

    /// The answer of `/standard` for `pos`.
    pub fn standard(&self, pos: &Chess) -> Standard {
        let mut moves = self.moves(pos);
        let mut info = self.info(pos, pos.halfmoves().saturating_sub(1));
        // Where only a rounded DTZ left the best moves ambiguous, the position's own category
        // settles them (lichess does the same).
        let settled = match info.category {
            Category::Win => Some((Category::SyzygyLoss, Category::Loss)),
            Category::CursedWin => Some((Category::SyzygyLoss, Category::BlessedLoss)),
            Category::BlessedLoss => Some((Category::SyzygyWin, Category::CursedWin)),
            Category::Loss => Some((Category::SyzygyWin, Category::Win)),
            _ => None,
        };
        if let Some((ambiguous, exact)) = settled {
            for m in moves.iter_mut().take_while(|m| m.pos.category == ambiguous) {
                m.pos.category = exact;
            }
        }
        if let Some(best) = moves.first() {
            info.category = best.pos.category.flip();
        }
        Standard { pos: info, moves }
    }

    /// The answer of `/standard/mainline` for `pos`: the moves as [`Explorer::standard`] ranks
    /// them, the best each time, until mate or until the clock lets a draw be claimed (or, at
    /// the latest, at `deadline`).
    ///
    /// # Errors
    /// No table covers the position.
    pub fn mainline(
        &self,
        pos: &Chess,
        deadline: Option<std::time::Instant>,
    ) -> Result<Mainline, MainlineError> {
        let root = self.info(pos, pos.halfmoves().saturating_sub(1));
        if root.dtz.is_none() {
            return Err(MainlineError::NotCovered);
        }
        let mut line = Vec::new();
        let mut pos = pos.clone();
        if root.dtz.is_some_and(|d| d != 0) {
            while pos.halfmoves() < RULE_PLIES
                && line.len() < MAX_MAINLINE_PLIES
                && deadline.is_none_or(|d| std::time::Instant::now() < d)
            {
                let Some(best) = self.moves(&pos).into_iter().next() else {
                    break;
                };
                if best.pos.dtz.is_none() {
                    break;
                }
                let Some(m) = pos.legal_moves().into_iter().find(|m| {
                    UciMove::from_move(*m, CastlingMode::Standard).to_string() == best.uci
                }) else {
                    break;
                };
                pos.play_unchecked(m);
                line.push(MainlineStep {
                    uci: best.uci,
                    san: best.san,
                    dtz: best.pos.dtz,
                    precise_dtz: best.pos.precise_dtz,
                    dtm: best.pos.dtm,
                });
            }
        }
        let winner = pos.is_checkmate().then(|| match pos.turn() {
            Color::White => 'b',
            Color::Black => 'w',
        });
        Ok(Mainline {
            dtz: root.dtz,
            precise_dtz: root.precise_dtz,
            dtm: root.dtm,
            mainline: line,
            winner,
        })
    }
}

/// Logs a probe failure that is not simply a position beyond the tables.
fn logged(e: &ProbeError) {
    match e {
        ProbeError::Castling
        | ProbeError::TooManyPieces(_)
        | ProbeError::MissingTable(_)
        | ProbeError::NotIndexable(_) => {}
        ProbeError::BadTable(_) | ProbeError::Overflow => log::warn!("table probe: {e}"),
    }
}

/// The FEN of a position (en passant square only where a capture is legal).
pub fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Chess {
        retro_engine::fen::parse_fen(fen).expect("test FEN")
    }

    #[test]
    fn categories_flip_and_order_as_lichess_sorts_them() {
        let order = [
            Category::Loss,
            Category::Unknown,
            Category::SyzygyLoss,
            Category::BlessedLoss,
            Category::Draw,
            Category::CursedWin,
            Category::SyzygyWin,
            Category::Win,
        ];
        assert!(order.windows(2).all(|w| w[0] < w[1]));
        for c in order {
            assert_eq!(c.flip().flip(), c);
            assert_eq!(
                serde_json::to_string(&c).expect("json"),
                format!("\"{}\"", c.as_str())
            );
        }
        assert_eq!(Category::Win.flip(), Category::Loss);
        assert_eq!(Category::SyzygyWin.flip(), Category::SyzygyLoss);
    }

    #[test]
    fn the_mate_metric_puts_the_fastest_mate_first_and_the_longest_resistance_last() {
        let mut v = vec![Some(2), None, Some(-2), Some(0), Some(-1), Some(1)];
        v.sort_by_key(|m| tightening(*m));
        assert_eq!(v, vec![Some(-1), Some(-2), None, Some(0), Some(2), Some(1)]);
    }

    #[test]
    fn without_tables_every_move_is_unknown_but_mates_and_stalemates_are_known() {
        let ex = Explorer::default();
        let s = ex.standard(&pos("8/8/8/8/8/8/8/K1k5 w - - 0 1"));
        assert_eq!(s.pos.category, Category::Draw);
        assert!(s.pos.insufficient_material);
        // Black to move is checkmated: a loss whatever the tables.
        let s = ex.standard(&pos("k1R5/8/1K6/8/8/8/8/8 b - - 0 1"));
        assert!(s.pos.checkmate);
        assert_eq!(s.pos.category, Category::Loss);
        assert!(s.moves.is_empty());
        // Mate in one: the mating move first, as a loss for the opponent; the rest unknown.
        let s = ex.standard(&pos("k7/8/1K6/8/8/8/8/2R5 w - - 0 1"));
        assert_eq!(s.moves[0].uci, "c1c8");
        assert_eq!(s.moves[0].san, "Rc8#");
        assert!(s.moves[0].pos.checkmate);
        assert_eq!(s.moves[0].pos.category, Category::Loss);
        assert_eq!(s.pos.category, Category::Win);
        assert!(s.moves[1..]
            .iter()
            .all(|m| m.pos.category == Category::Unknown));
    }

    #[test]
    fn the_json_has_lichess_field_names_and_the_move_fen() {
        let ex = Explorer::default();
        let s = ex.standard(&pos("k7/8/1K6/8/8/8/8/2R5 w - - 0 1"));
        let v: serde_json::Value = serde_json::to_value(&s).expect("json");
        for key in [
            "checkmate",
            "stalemate",
            "variant_win",
            "variant_loss",
            "insufficient_material",
            "dtz",
            "precise_dtz",
            "dtm",
            "category",
            "moves",
        ] {
            assert!(v.get(key).is_some(), "missing {key}");
        }
        let m = &v["moves"][0];
        for key in [
            "uci",
            "san",
            "zeroing",
            "checkmate",
            "stalemate",
            "insufficient_material",
            "dtz",
            "precise_dtz",
            "dtm",
            "category",
            "fen",
        ] {
            assert!(m.get(key).is_some(), "missing moves[0].{key}");
        }
        assert_eq!(m["category"], "loss");
        assert_eq!(m["fen"], "k1R5/8/1K6/8/8/8/8/8 b - - 1 1");
        assert!(m.get("capture").is_none());
        assert_eq!(v["dtz"], serde_json::Value::Null);
    }

    #[test]
    fn a_mainline_needs_a_covered_position() {
        let ex = Explorer::default();
        assert_eq!(
            ex.mainline(&pos("k7/8/1K6/8/8/8/8/2R5 w - - 0 1"), None),
            Err(MainlineError::NotCovered)
        );
    }
}
