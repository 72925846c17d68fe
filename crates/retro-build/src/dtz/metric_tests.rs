//! The zeroing metric seam: a metric other than DTZ50 ([`FiveMoveRule`], a DTZ under a
//! five-move rule) solved by the cells solve, the compact solve and the solve by structure, its
//! values checked position by position against that metric's own rules from each position's
//! moves ([`ZeroingMoves`]), and the same check passed by DTZ50 (so that the check itself is
//! right).

use std::{collections::HashMap, path::Path, sync::Arc};

use shakmaty::{ByColor, Chess, Color, Position as _};

use super::{dtm_values, DtzSolver, Wdl50Tables};
use crate::{
    compact::{dtz::CompactDtz, CompactSolver},
    kernel::{Stage, SIDES},
    metric::{Dtz50, FiveMoveRule, Recomputed, Zeroing, ZeroingMoves},
    structure::{self, Scope},
    verify::{entry_of, entry_position, fold_entries},
    Silent, SubTables,
};
use retro_tables::{
    format::{file_name, Table},
    index::IndexScheme,
    Dtz, Material, Wdl50,
};

use super::sub::Wdl50Data;

/// Every material of the tests, sub-tables first: wins longer than five moves (KQvK, KRvK,
/// KQvKR, KBNvK), a winner's promotions into them (KPvK) and a loser's (KQvKP).
const MATERIALS: [&str; 11] = [
    "KQvK", "KRvK", "KBvK", "KNvK", "KPvK", "KQvKR", "KBNvK", "KQvKQ", "KQvKB", "KQvKN", "KQvKP",
];

/// The values of the materials solved so far in one metric, by canonical material.
#[derive(Default)]
struct Solved {
    tables: HashMap<u64, (IndexScheme, ByColor<Vec<Recomputed>>)>,
    /// Their classes, as the solves of the next materials read their exits.
    classes: Wdl50Tables,
}

impl Solved {
    /// The value of `pos` for its side to move (bare kings: a draw).
    fn value(&self, pos: &Chess) -> Recomputed {
        let m = Material::of_board(pos.board());
        let draw = Recomputed {
            dtz: Dtz::DRAW,
            zeroes: false,
        };
        // Bare kings: the material of key 0.
        if m.key() == 0 {
            return draw;
        }
        let (ix, values) = &self.tables[&m.canonical().key()];
        let (side, idx) = entry_of(ix, pos);
        values[side][idx]
    }

    fn insert<M: Zeroing>(&mut self, m: Material, values: ByColor<Vec<Recomputed>>) {
        let classes = values
            .as_ref()
            .map(|v| Some(v.iter().map(|r| M::class(r.dtz).to_i8()).collect()));
        self.classes
            .insert(Arc::new(Wdl50Data::from_classes(m, classes)));
        self.tables.insert(m.key(), (IndexScheme::new(m), values));
    }
}

/// What the check of one material counted.
#[derive(Default, Clone, Copy)]
struct Counts {
    checked: u64,
    wins: u64,
    /// Cursed wins under the metric's rule.
    cursed: u64,
    /// Losses with a zeroing move into a cursed win and a quiet move too: those whose worst
    /// exit the solve keeps in the cell (its long exit) until their last successor is decided.
    long_exits: u64,
}

impl Counts {
    fn add(self, o: Counts) -> Counts {
        Counts {
            checked: self.checked + o.checked,
            wins: self.wins + o.wins,
            cursed: self.cursed + o.cursed,
            long_exits: self.long_exits + o.long_exits,
        }
    }
}

/// Checks the value of entry `idx` (`side` to move) of a material of index `ix` against `M`'s
/// rules from its moves (nothing for an entry that is no position).
fn check_entry<M: Zeroing>(solved: &Solved, ix: &IndexScheme, idx: u64, side: Color) -> Counts {
    let Some(pos) = ix
        .decode(idx)
        .and_then(|sq| entry_position(ix.slots(), &sq, side))
    else {
        return Counts::default();
    };
    let mut moves = ZeroingMoves::<M>::default();
    let (mut long, mut quiet) = (false, false);
    for mv in &pos.legal_moves() {
        let mut after = pos.clone();
        after.play_unchecked(*mv);
        let child = solved.value(&after);
        if mv.is_zeroing() {
            let class = M::class(child.dtz);
            long |= class == Wdl50::CursedWin;
            moves.zeroing(class);
            continue;
        }
        quiet = true;
        match child.dtz.0 {
            ..0 => moves.quiet_to_loss(child.loss_depth()),
            0 => moves.quiet_to_draw(),
            d => moves.quiet_to_win(d.unsigned_abs()),
        }
    }
    let want = moves.value(|| pos.is_check()).expect("fits");
    let got = solved.value(&pos);
    assert_eq!(got, want, "{pos:?}: entry {idx}, {side} to move");
    Counts {
        checked: 1,
        wins: u64::from(got.dtz.0 > 0),
        cursed: u64::from(M::class(got.dtz) == Wdl50::CursedWin),
        long_exits: u64::from(got.dtz.0 < 0 && long && quiet),
    }
}

/// Solves every material of [`MATERIALS`] in the metric `M` with the cells solve, and checks
/// every position's value against `M`'s rules from its moves: returns the values and what the
/// checks counted.
fn solve_and_check<M: Zeroing>(dir: &Path) -> (Solved, Counts) {
    let mut solved = Solved::default();
    let mut total = Counts::default();
    for name in MATERIALS {
        let m: Material = name.parse::<Material>().expect("material").canonical();
        let dtm = dtm_values(&Table::open(&dir.join(file_name(m)), Some(m)).expect("DTM"))
            .expect("DTM values");
        let values = DtzSolver::<M>::of_metric(m, dtm.as_ref().map(Vec::as_slice), &solved.classes)
            .solve_recomputed()
            .expect("solved");
        solved.insert::<M>(m, values);
        let ix = IndexScheme::new(m);
        let counts = fold_entries(
            &ix,
            |idx, side| check_entry::<M>(&solved, &ix, idx, side),
            Counts::add,
        );
        // KBvK and KNvK are drawn throughout.
        let drawn = name == "KBvK" || name == "KNvK";
        assert!(
            counts.checked > 0 && (counts.wins > 0) != drawn,
            "{name}: {} {}",
            counts.checked,
            counts.wins
        );
        total = total.add(counts);
    }
    (solved, total)
}

/// The cells solve of a new zeroing metric gives values its own rules agree with, as DTZ50's
/// do; under the five-move rule, wins of KQvK, KRvK, KBNvK, KQvKR and of KPvK's promotions
/// into them are cursed.
#[test]
fn a_zeroing_metric_of_another_rule_solves_to_its_own_rules() {
    let dir = crate::tables_for_test(&MATERIALS);
    let (_, c50) = solve_and_check::<Dtz50>(dir.path());
    let (five, c5) = solve_and_check::<FiveMoveRule>(dir.path());
    assert_eq!(c50.checked, c5.checked);
    assert_eq!((c50.cursed, c50.long_exits), (0, 0));
    assert!(
        c5.cursed > 100_000,
        "{} cursed wins (five-move rule)",
        c5.cursed
    );
    assert!(
        c5.long_exits > 1_000,
        "{} losses with a long exit",
        c5.long_exits
    );
    // KPvK: a pawn's promotion into a cursed win.
    let kpk: Material = "KPvK".parse().expect("material");
    let (_, values) = &five.tables[&kpk.key()];
    let cursed_kpk = values
        .iter()
        .flatten()
        .filter(|r| FiveMoveRule::class(r.dtz) == Wdl50::CursedWin)
        .count();
    assert!(
        cursed_kpk > 0,
        "KPvK: no cursed win under the five-move rule"
    );

    // The compact solve (without pawns) and the solve by structure (with pawns) of the same
    // metric give the cells solve's values.
    let kqkr: Material = "KQvKR".parse().expect("material");
    let sub = SubTables::open_for(dir.path(), kqkr, Stage::InitBoth).expect("sub-tables");
    let work = dir.path().join("work-compact");
    let dtm = CompactSolver::new(kqkr, &sub, &work)
        .expect("compact DTM")
        .solve(&Silent)
        .expect("compact DTM solved");
    let logs = CompactDtz::<FiveMoveRule>::of_metric(kqkr, &dtm.logs, &five.classes, &work)
        .expect("compact solver")
        .solve(&Silent)
        .expect("compact solved");
    let (ix, want) = &five.tables[&kqkr.key()];
    for side in SIDES {
        let got = logs.exact(side).expect("exact");
        for idx in 0..ix.size() as usize {
            if dtm.legal[side][idx / 64] & (1 << (idx % 64)) != 0 {
                assert_eq!(
                    got[idx], want[side][idx].dtz,
                    "KQvKR compact: {idx}, {side}"
                );
            }
        }
    }
    let sub = SubTables::open_for(dir.path(), kpk, Stage::InitBoth).expect("sub-tables");
    let work = dir.path().join("work-structure");
    structure::solve(kpk, &sub, &work, &Silent, Scope::All, None).expect("DTM by structure");
    let parts = structure::dtz::solve_gathered::<FiveMoveRule>(kpk, &five.classes, &work, &Silent)
        .expect("by structure");
    let (ix, want) = &five.tables[&kpk.key()];
    for (side, bytes) in [(Color::White, &parts.white), (Color::Black, &parts.black)] {
        for idx in 0..ix.size() as usize {
            if parts.kept[side][idx / 64] & (1 << (idx % 64)) != 0 {
                let byte = FiveMoveRule::table_byte(want[side][idx].dtz);
                assert_eq!(Some(bytes[idx]), byte, "KPvK by structure: {idx}, {side}");
            }
        }
    }
}
