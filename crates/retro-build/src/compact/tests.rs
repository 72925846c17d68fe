//! The compact solve against the tables of `solve`: the same value for every entry.

use super::*;
use crate::{
    build_for_test,
    dtz::{dtm_values, DtzSolver, Wdl50Tables},
    kernel::{Stage, SIDES},
    SubTables,
};
use retro_tables::{
    format::{file_name, Table},
    Dtz,
};

/// Builds `name` with `solve` (and its sub-tables) into a temporary directory, solves it again
/// with the compact solver, and compares every entry of both sides.
fn agrees_with_solve(name: &str) {
    let m: Material = name.parse::<Material>().expect("material").canonical();
    let dir = tempfile::tempdir().expect("dir");
    build_for_test(dir.path(), &[m]);
    let table = Table::open(&dir.path().join(file_name(m)), Some(m)).expect("table");
    let sub = SubTables::open_for(dir.path(), m, Stage::InitBoth).expect("sub-tables");
    let work = dir.path().join("work");
    let solver = CompactSolver::new(m, &sub, &work).expect("solver");
    let solved = solver.solve(&crate::Silent).expect("solved");
    let ix = IndexScheme::new(m);
    let mut decided = 0u64;
    for side in SIDES {
        let planes = solved.side_planes(side, |_| true).expect("planes");
        let mut checked = 0u64;
        for idx in 0..ix.size() {
            if solved.legal[side][(idx / 64) as usize] & (1 << (idx % 64)) == 0 {
                continue;
            }
            let i = idx as usize;
            let got = Value::from_planes(planes.first[i], planes.ext[i]);
            let want = table.get(side, idx).expect("probe");
            assert_eq!(got, want, "{name}: entry {idx}, side {side}");
            checked += 1;
        }
        assert_eq!(checked, solved.positions[side], "{name}: side {side}");
        assert!(planes.stats.longest_win <= table.stats().longest_win.max(1));
        decided += planes.wins + planes.losses;
    }
    assert!(decided > 0, "{name}: nothing decided");
    // DTZ50 from the value logs, against the DTZ50 solve's exact values (losses included).
    let wdl50 = Wdl50Tables::open_for(dir.path(), m).expect("classes");
    let logs = dtz::CompactDtz::new(m, &solved.logs, &wdl50, &work)
        .expect("dtz solver")
        .solve(&crate::Silent)
        .expect("dtz solved");
    let dtm = dtm_values(&table).expect("dtm");
    let want = DtzSolver::new(m, dtm.as_ref().map(Vec::as_slice), &wdl50)
        .solve_exact()
        .expect("exact");
    for (side, want) in want.as_ref().zip_color() {
        let got = logs.exact(side).expect("exact");
        let planes = logs.side_planes(side, |_| true).expect("planes");
        for idx in 0..ix.size() as usize {
            if solved.legal[side][idx / 64] & (1 << (idx % 64)) == 0 {
                continue;
            }
            assert_eq!(
                got[idx], want[idx],
                "{name}: DTZ of entry {idx}, side {side}"
            );
            let stored = Dtz::stored_from_planes(planes.first[idx], planes.ext[idx]);
            assert_eq!(stored, want[idx].to_stored(), "{name}: entry {idx}");
        }
    }
}

#[test]
fn three_and_four_pieces_agree_with_solve() {
    for name in ["KQvK", "KRvK", "KBNvK", "KNNvK", "KRvKN", "KQvKR", "KBvKN"] {
        agrees_with_solve(name);
    }
}

/// Identical pieces on both sides, and long mates and cursed wins.
#[test]
#[ignore = "builds 5-piece tables: about a minute"]
fn five_pieces_agree_with_solve() {
    for name in ["KRNvKN", "KBBvKN", "KQvKNN"] {
        agrees_with_solve(name);
    }
}

/// A checkpoint at every depth, and a stop at `stop_at`.
fn every_depth(stop_at: Option<usize>) -> Policy {
    Policy {
        every: std::time::Duration::ZERO,
        stop_at,
    }
}

/// An init longer than the time between checkpoints makes one due at the first depth, so that
/// a build stopped later does not do its init again; a short one does not.
#[test]
fn a_long_init_makes_a_checkpoint_due_at_the_first_depth() {
    let every = std::time::Duration::from_millis(20);
    let policy = Policy {
        every,
        stop_at: None,
    };
    let began = Instant::now();
    std::thread::sleep(every * 2);
    let clock = policy.start(None, began);
    assert!(clock.due(1));
    assert!(!clock.due(0), "never before the first depth");
    let hour = Policy {
        every: std::time::Duration::from_secs(3600),
        stop_at: None,
    };
    assert!(!hour.start(None, Instant::now()).due(1));
}

/// KQvKR built by `solve` into a temporary directory: the material, the directory, its table
/// and its sub-tables.
fn kqvkr() -> (Material, tempfile::TempDir, Table, SubTables) {
    let m: Material = "KQvKR".parse().expect("material");
    let dir = tempfile::tempdir().expect("dir");
    build_for_test(dir.path(), &[m]);
    let table = Table::open(&dir.path().join(file_name(m)), Some(m)).expect("table");
    let sub = SubTables::open_for(dir.path(), m, Stage::InitBoth).expect("sub-tables");
    (m, dir, table, sub)
}

/// The deepest example of the DTM and DTZ50 planes is the first entry of the deepest depth the
/// filter accepts: another entry, or a shallower depth, when the deepest one is refused; none
/// when the filter refuses every entry.
#[test]
fn the_deepest_example_is_one_the_filter_accepts() {
    let (m, dir, _table, sub) = kqvkr();
    let work = dir.path().join("work");
    let solved = CompactSolver::new(m, &sub, &work)
        .expect("solver")
        .solve(&crate::Silent)
        .expect("solved");
    let wdl50 = Wdl50Tables::open_for(dir.path(), m).expect("classes");
    let logs = dtz::CompactDtz::new(m, &solved.logs, &wdl50, &work)
        .expect("dtz solver")
        .solve(&crate::Silent)
        .expect("dtz solved");
    for side in SIDES {
        let all = solved.side_planes(side, |_| true).expect("planes");
        let (d, e) = all.deepest.expect("a deepest entry");
        let plies = |p: &SidePlanes, i: u64| {
            Value::from_planes(p.first[i as usize], p.ext[i as usize]).plies()
        };
        assert_eq!(plies(&all, e), d);
        assert_eq!(d, all.stats.longest_win.max(all.stats.longest_loss));
        let other = solved.side_planes(side, |i| i != e).expect("planes");
        let (d2, e2) = other.deepest.expect("another entry");
        assert_ne!(e2, e);
        assert!(d2 <= d);
        assert_eq!(plies(&other, e2), d2);
        let none = solved.side_planes(side, |_| false).expect("planes");
        assert_eq!(none.deepest, None);
        assert_eq!(none.first, all.first, "the filter changes only the example");
        let all = logs.side_planes(side, |_| true).expect("planes");
        if let Some((d, e)) = all.deepest_win {
            let dtz = |p: &dtz::DtzPlanes, i: u64| {
                Dtz::stored_from_planes(p.first[i as usize], p.ext[i as usize])
            };
            assert_eq!(dtz(&all, e), Dtz(d as i16).to_stored());
            let other = logs.side_planes(side, |i| i != e).expect("planes");
            let (d2, e2) = other.deepest_win.expect("another win");
            assert!(e2 != e && d2 <= d);
            assert_eq!(dtz(&other, e2), Dtz(d2 as i16).to_stored());
            let none = logs.side_planes(side, |_| false).expect("planes");
            assert_eq!(none.deepest_win, None);
        }
    }
}

/// A solve stopped in the middle of its passes resumes from its last checkpoint and ends with
/// the values of a solve that was never stopped.
#[test]
fn a_stopped_solve_resumes_from_its_checkpoint() {
    let (m, dir, table, sub) = kqvkr();
    let work = dir.path().join("work");
    let every = std::time::Duration::ZERO;
    let stopped = CompactSolver::new(m, &sub, &work)
        .expect("solver")
        .with_policy(Policy {
            every,
            stop_at: Some(37),
        })
        .solve(&crate::Silent);
    assert!(stopped.is_err(), "the solve was to stop at depth 37");
    let mark = checkpoint::mark(&work, CKPT)
        .expect("mark")
        .expect("a checkpoint");
    assert_eq!(mark.depth, 37);
    let solved = CompactSolver::new(m, &sub, &work)
        .expect("solver")
        .with_policy(Policy {
            every,
            stop_at: None,
        })
        .solve(&crate::Silent)
        .expect("resumed");
    let ix = IndexScheme::new(m);
    for side in SIDES {
        let planes = solved.side_planes(side, |_| true).expect("planes");
        for idx in 0..ix.size() {
            if solved.legal[side][(idx / 64) as usize] & (1 << (idx % 64)) == 0 {
                continue;
            }
            let got = Value::from_planes(planes.first[idx as usize], planes.ext[idx as usize]);
            assert_eq!(got, table.get(side, idx).expect("probe"), "entry {idx}");
        }
    }
    // The same for the DTZ50 passes.
    let wdl50 = Wdl50Tables::open_for(dir.path(), m).expect("classes");
    let dtm = dtm_values(&table).expect("dtm");
    let want = DtzSolver::new(m, dtm.as_ref().map(Vec::as_slice), &wdl50)
        .solve_exact()
        .expect("exact");
    for stop in [20, 45] {
        let work = dir.path().join(format!("dtz-work-{stop}"));
        std::fs::create_dir_all(&work).expect("dir");
        let stopped = dtz::CompactDtz::new(m, &solved.logs, &wdl50, &work)
            .expect("dtz solver")
            .with_policy(Policy {
                every,
                stop_at: Some(stop),
            })
            .solve(&crate::Silent);
        assert!(stopped.is_err());
        let logs = dtz::CompactDtz::new(m, &solved.logs, &wdl50, &work)
            .expect("dtz solver")
            .with_policy(Policy {
                every,
                stop_at: None,
            })
            .solve(&crate::Silent)
            .expect("resumed");
        for (side, want) in want.as_ref().zip_color() {
            let got = logs.exact(side).expect("exact");
            for idx in 0..ix.size() as usize {
                if solved.legal[side][idx / 64] & (1 << (idx % 64)) != 0 {
                    assert_eq!(got[idx], want[idx], "DTZ of entry {idx}, side {side}");
                }
            }
        }
    }
}

/// A solve split over three ranks, stopped at the same depth on every rank, resumes from the
/// ranks' checkpoints; each rank's values are then those of its share of the table.
#[test]
fn a_split_solve_resumes_from_the_ranks_checkpoints() {
    let (m, dir, table, sub) = kqvkr();
    let work = dir.path().join("work");
    let group = share::Threads::group(3);
    let run = |stop_at: Option<usize>| -> Vec<Option<Compacted>> {
        share::on_ranks(&group, |x| {
            CompactSolver::split(m, &sub, &work, x)
                .expect("solver")
                .with_policy(every_depth(stop_at))
                .solve(&crate::Silent)
                .ok()
        })
    };
    assert!(
        run(Some(23)).iter().all(Option::is_none),
        "every rank stops"
    );
    let ix = IndexScheme::new(m);
    for r in 0..3 {
        let share = share::Share::of(&ix, r, 3).expect("share");
        let mark = checkpoint::mark(&share.work(&work), CKPT).expect("mark");
        assert_eq!(mark.map(|m| m.depth), Some(23), "rank {r}");
    }
    let solved = run(None);
    let mut checked = 0u64;
    for (r, c) in solved.into_iter().enumerate() {
        let c = c.expect("resumed");
        let share = share::Share::of(&ix, r, 3).expect("share");
        for side in SIDES {
            let planes = c.side_planes(side, |_| true).expect("planes");
            for idx in share.lo()..share.hi() {
                let l = idx - share.lo();
                if c.legal[side][(l / 64) as usize] & (1 << (l % 64)) == 0 {
                    continue;
                }
                let i = idx as usize;
                let got = Value::from_planes(planes.first[i], planes.ext[i]);
                assert_eq!(got, table.get(side, idx).expect("probe"), "entry {idx}");
                checked += 1;
            }
        }
    }
    let whole = CompactSolver::new(m, &sub, &dir.path().join("whole"))
        .expect("solver")
        .solve(&crate::Silent)
        .expect("solved");
    assert_eq!(checked, whole.positions.white + whole.positions.black);
}

/// The DTZ50 solve split over three ranks, stopped at the same depth on every rank, resumes
/// from the ranks' checkpoints; each rank's DTZ50 of its share equals the DTZ50 solve's.
#[test]
fn a_split_dtz_solve_resumes_from_the_ranks_checkpoints() {
    let (m, dir, table, sub) = kqvkr();
    let whole = CompactSolver::new(m, &sub, &dir.path().join("whole"))
        .expect("solver")
        .solve(&crate::Silent)
        .expect("solved");
    let wdl50 = Wdl50Tables::open_for(dir.path(), m).expect("classes");
    let dtm = dtm_values(&table).expect("dtm");
    let want = DtzSolver::new(m, dtm.as_ref().map(Vec::as_slice), &wdl50)
        .solve_exact()
        .expect("exact");
    let work = dir.path().join("dtz-split");
    let group = share::Threads::group(3);
    let run = |stop_at: Option<usize>| -> Vec<Option<dtz::DtzLogs>> {
        share::on_ranks(&group, |x| {
            dtz::CompactDtz::split(m, &whole.logs, &wdl50, &work, x)
                .expect("solver")
                .with_policy(every_depth(stop_at))
                .solve(&crate::Silent)
                .ok()
        })
    };
    assert!(
        run(Some(31)).iter().all(Option::is_none),
        "every rank stops"
    );
    let ix = IndexScheme::new(m);
    let mut checked = 0u64;
    for (r, logs) in run(None).into_iter().enumerate() {
        let logs = logs.expect("resumed");
        let share = share::Share::of(&ix, r, 3).expect("share");
        for (side, want) in want.as_ref().zip_color() {
            let got = logs.exact(side).expect("exact");
            for idx in share.lo() as usize..share.hi() as usize {
                if whole.legal[side][idx / 64] & (1 << (idx % 64)) != 0 {
                    assert_eq!(got[idx], want[idx], "DTZ of entry {idx}, side {side}");
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, whole.positions.white + whole.positions.black);
}
