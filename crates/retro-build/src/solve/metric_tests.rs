//! The seam of the DTM family: a metric other than DTM ([`Conversion`], a distance to
//! conversion, each exit valued by its sub-table's class alone) solved by the cells solve, the
//! compact solve and the solve by structure, its values checked position by position against
//! that metric's own rules from each position's moves, and the same check passed by DTM (so
//! that the check itself is right).

use std::{collections::HashMap, path::Path};

use shakmaty::{ByColor, Chess, Color, Position as _};

use super::Solver;
use crate::{
    compact::CompactSolver,
    error::SolveError,
    kernel::{Stage, SIDES},
    metric::{Conversion, Dtm, DtmMoves, Mating},
    structure::{self, Scope},
    verify::{entry_of, entry_position, fold_entries},
    Silent, SubTables,
};
use retro_tables::{index::IndexScheme, Material, Tablebase, Value, Wdl};

/// The materials of the tests (their sub-tables are read as DTM tables): captures into won and
/// lost sub-tables (KQvKR, KRvKN), a winner's promotions (KPvK) and a loser's (KQvKP).
const MATERIALS: [&str; 6] = ["KQvK", "KRvK", "KPvK", "KQvKR", "KRvKN", "KQvKP"];

/// The values of the materials solved so far in one metric, by canonical material.
#[derive(Default)]
struct Solved {
    tables: HashMap<u64, (IndexScheme, ByColor<Vec<u8>>)>,
}

impl Solved {
    /// The value of `pos` (of a material solved) for its side to move.
    fn value(&self, pos: &Chess) -> Value {
        let m = Material::of_board(pos.board()).canonical();
        let (ix, values) = &self.tables[&m.key()];
        let (side, idx) = entry_of(ix, pos);
        Value::from_byte(values[side][idx])
    }
}

/// What the check of one material counted.
#[derive(Default, Clone, Copy)]
struct Counts {
    checked: u64,
    wins: u64,
    /// Positions whose value differs from their DTM.
    differ: u64,
}

impl Counts {
    fn add(self, o: Counts) -> Counts {
        Counts {
            checked: self.checked + o.checked,
            wins: self.wins + o.wins,
            differ: self.differ + o.differ,
        }
    }
}

/// Checks the value of entry `idx` (`side` to move) of `m` (index `ix`) against `M`'s rules
/// from its moves: an in-table move valued by the position it leads to in `solved`, an exit by
/// [`Mating::exit_child`] of its DTM in `dtm`.
fn check_entry<M: Mating>(
    solved: &Solved,
    dtm: &Tablebase,
    m: Material,
    idx: u64,
    side: Color,
) -> Counts {
    let ix = &solved.tables[&m.key()].0;
    let Some(pos) = ix
        .decode(idx)
        .and_then(|sq| entry_position(ix.slots(), &sq, side))
    else {
        return Counts::default();
    };
    let mut moves = DtmMoves::default();
    for mv in &pos.legal_moves() {
        let mut after = pos.clone();
        after.play_unchecked(*mv);
        let inside = Material::of_board(after.board()).canonical() == m;
        let child = if inside {
            solved.value(&after)
        } else {
            M::exit_child(dtm.probe(&after).expect("sub-table"))
        };
        moves.add(child).expect("fits a value");
    }
    let want = moves.value(|| pos.is_check());
    let got = solved.value(&pos);
    assert_eq!(got, want, "{pos:?}: entry {idx}, {side} to move");
    let dtm_value = dtm.probe(&pos).expect("DTM");
    assert_eq!(got.wdl(), dtm_value.wdl(), "{pos:?}: the class is DTM's");
    Counts {
        checked: 1,
        wins: u64::from(got.wdl() == Wdl::Win),
        differ: u64::from(got != dtm_value),
    }
}

/// The sub-tables (DTM files in `dir`) one stage of solving `m` reads.
fn stage_tables(dir: &Path, m: Material, stage: Stage) -> Result<SubTables, SolveError> {
    SubTables::open_for(dir, m, stage).map_err(|e| SolveError::SubTable {
        material: m.name(),
        source: e.into(),
    })
}

/// Solves every material of [`MATERIALS`] in the metric `M` with the cells solve, its exits
/// read from the DTM tables in `dir`, and checks every position's value against `M`'s rules
/// from its moves: returns the values and what the checks counted.
fn solve_and_check<M: Mating>(dir: &Path) -> (Solved, Counts) {
    let dtm = Tablebase::open(dir).expect("DTM tables");
    let mut solved = Solved::default();
    let mut total = Counts::default();
    for name in MATERIALS {
        let m: Material = name.parse::<Material>().expect("material").canonical();
        let values = Solver::<SubTables, M>::of_metric(m, SubTables::default())
            .solve(&Silent, |stage| stage_tables(dir, m, stage))
            .expect("solved");
        solved.tables.insert(
            m.key(),
            (
                IndexScheme::new(m),
                ByColor {
                    white: values.white,
                    black: values.black,
                },
            ),
        );
        let counts = fold_entries(
            &solved.tables[&m.key()].0,
            |idx, side| check_entry::<M>(&solved, &dtm, m, idx, side),
            Counts::add,
        );
        assert!(
            counts.checked > 0 && counts.wins > 0,
            "{name}: {} {}",
            counts.checked,
            counts.wins
        );
        total = total.add(counts);
    }
    (solved, total)
}

/// The cells solve of a new metric of the DTM family gives values its own rules agree with, as
/// DTM's do (and DTM's equal its files); the compact solve and the solve by structure give the
/// cells solve's values.
#[test]
fn a_metric_of_the_dtm_family_solves_to_its_own_rules() {
    let dir = crate::tables_for_test(&MATERIALS);
    let (_, dtm) = solve_and_check::<Dtm>(dir.path());
    let (conversion, c) = solve_and_check::<Conversion>(dir.path());
    assert_eq!(dtm.checked, c.checked);
    assert_eq!(
        dtm.differ, 0,
        "the DTM solve through the seam is the DTM tables"
    );
    assert!(c.differ > 100_000, "{} values differ from DTM", c.differ);

    // The compact solve (without pawns) and the solve by structure (with pawns) of the same
    // metric.
    let kqkr: Material = "KQvKR".parse().expect("material");
    let sub = SubTables::open_for(dir.path(), kqkr, Stage::InitBoth).expect("sub-tables");
    let work = dir.path().join("work-compact");
    let compact = CompactSolver::<_, Conversion>::of_metric(kqkr, &sub, &work)
        .expect("compact solver")
        .solve(&Silent)
        .expect("compact solved");
    let (ix, want) = &conversion.tables[&kqkr.key()];
    for side in SIDES {
        let planes = compact.side_planes(side, |_| true).expect("planes");
        for idx in 0..ix.size() as usize {
            if compact.legal[side][idx / 64] & (1 << (idx % 64)) != 0 {
                let got = Value::from_planes(planes.first[idx], planes.ext[idx]);
                let want = Value::from_byte(want[side][idx]);
                assert_eq!(got, want, "KQvKR compact: {idx}, {side}");
            }
        }
    }
    let kqkp: Material = "KQvKP".parse().expect("material");
    let sub = SubTables::open_for(dir.path(), kqkp, Stage::InitBoth).expect("sub-tables");
    let work = dir.path().join("work-structure");
    let parts =
        structure::solve_metric::<Conversion, _>(kqkp, &sub, &work, &Silent, Scope::All, None)
            .expect("by structure")
            .expect("gathered");
    let (ix, want) = &conversion.tables[&kqkp.key()];
    for (side, got) in [(Color::White, &parts.white), (Color::Black, &parts.black)] {
        for idx in 0..ix.size() as usize {
            if parts.legal[side][idx / 64] & (1 << (idx % 64)) != 0 {
                assert_eq!(
                    got[idx], want[side][idx],
                    "KQvKP by structure: {idx}, {side}"
                );
            }
        }
    }
}
