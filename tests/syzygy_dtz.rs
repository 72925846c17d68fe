//! DTZ50 and WDL50 of the positions of every 3- and 4-piece table against the Syzygy tables in
//! tests/data/syzygy (probed with shakmaty-syzygy): every position in the ignored test, every
//! 17th in the suite. WDL50 must be equal. DTZ must be equal where shakmaty-syzygy says the
//! value is precise; where it says `MaybeRounded::Rounded(n)` (Syzygy stored full moves there, not
//! plies) it must be within one ply of `n`. The counts printed say how often it is one ply
//! nearer zero or further.

mod common;

use std::sync::{
    atomic::{AtomicU64, Ordering::Relaxed},
    Arc,
};

use rayon::prelude::*;
use retro::{
    build::{
        dtz::{dtm_values, DtzSolver, Wdl50Data, Wdl50Tables},
        verify::entry_position,
    },
    tablebase::{
        index::IndexScheme, material::sort_build_order, Material, Tablebase, Tables, Wdl50,
    },
};
use shakmaty::{Chess, Position};
use shakmaty_syzygy::{MaybeRounded, Tablebase as Syzygy, Wdl as SWdl};

fn syzygy_class(w: SWdl) -> Wdl50 {
    match w {
        SWdl::Loss => Wdl50::Loss,
        SWdl::BlessedLoss => Wdl50::BlessedLoss,
        SWdl::Draw => Wdl50::Draw,
        SWdl::CursedWin => Wdl50::CursedWin,
        SWdl::Win => Wdl50::Win,
    }
}

#[test]
fn sampled_positions_agree_with_syzygy_dtz() {
    compare(17);
}

#[test]
#[ignore = "every position of 35 tables: about 5 minutes on 2 cores"]
fn every_position_agrees_with_syzygy_dtz() {
    compare(1);
}

fn compare(step: usize) {
    // SAFETY: the Syzygy files in tests/data are not modified while the test maps them.
    let mut syzygy = unsafe { Syzygy::<Chess>::with_mmap_filesystem() };
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy");
    syzygy.add_directory(&dir).expect("syzygy directory");
    let tb = Tablebase::open(common::all_tables()).expect("tables");
    let mut materials = Material::all(4);
    sort_build_order(&mut materials);
    let mut sub = Wdl50Tables::default();
    let (mut total, mut total_bad, mut rounded) = (0u64, 0u64, 0u64);
    for m in materials {
        let table = tb.table(m).expect("table");
        let dtm = dtm_values(table).expect("dtm values");
        let t0 = std::time::Instant::now();
        let solved = DtzSolver::new(m, [&dtm[0], &dtm[1]], &sub)
            .solve()
            .unwrap_or_else(|e| panic!("{}: {e}", m.name()));
        let secs = t0.elapsed().as_secs_f64();
        sub.insert(Arc::new(Wdl50Data::from_dtz(
            m,
            &solved.white,
            &solved.black,
        )));
        let ix = IndexScheme::new(m);
        let size = ix.size() as usize;
        let compared = AtomicU64::new(0);
        let bad = AtomicU64::new(0);
        let round = AtomicU64::new(0);
        let below = AtomicU64::new(0);
        let above = AtomicU64::new(0);
        let longest = AtomicU64::new(0);
        (0..2 * size)
            .into_par_iter()
            .with_min_len(4096)
            .for_each(|k| {
                let white = k < size;
                let idx = k % size;
                if k % step != 0 {
                    return;
                }
                let Some(sq) = ix.decode(idx as u64) else {
                    return;
                };
                let Some(pos) = entry_position(ix.slots(), &sq, white) else {
                    return;
                };
                let ours = if white {
                    solved.white[idx]
                } else {
                    solved.black[idx]
                };
                longest.fetch_max(u64::from(ours.plies()), Relaxed);
                let wdl = syzygy_class(syzygy.probe_wdl_after_zeroing(&pos).expect("wdl"));
                let (theirs, ok) = match syzygy.probe_dtz(&pos).expect("dtz") {
                    MaybeRounded::Precise(d) => (d.0, ours.0 as i32 == d.0),
                    MaybeRounded::Rounded(d) => {
                        round.fetch_add(1, Relaxed);
                        let o = ours.0 as i32;
                        if o == d.0 - d.0.signum() {
                            below.fetch_add(1, Relaxed);
                        }
                        if o == d.0 + d.0.signum() {
                            above.fetch_add(1, Relaxed);
                        }
                        (d.0, (o - d.0).abs() <= 1)
                    }
                };
                compared.fetch_add(1, Relaxed);
                if (!ok || ours.wdl50() != wdl) && bad.fetch_add(1, Relaxed) < 5 {
                    eprintln!(
                        "{} {:?} white={white}: retro {} {}, syzygy {} {wdl}",
                        m.name(),
                        pos.board().to_string(),
                        ours.0,
                        ours.wdl50(),
                        theirs
                    );
                }
            });
        let (c, b) = (compared.load(Relaxed), bad.load(Relaxed));
        println!(
            "{:<8} solved in {secs:.2} s, compared {c:>9}  mismatches {b}  rounded {} (ours n-1: {}, n+1: {})  longest {}",
            m.name(),
            round.load(Relaxed),
            below.load(Relaxed),
            above.load(Relaxed),
            longest.load(Relaxed)
        );
        total += c;
        total_bad += b;
        rounded += round.load(Relaxed);
    }
    println!("total: {total} positions compared with Syzygy DTZ, {total_bad} mismatches, {rounded} rounded");
    assert_eq!(total_bad, 0);
}
