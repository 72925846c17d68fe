//! DTZ50 and WDL50 of the positions of every 3- and 4-piece table against the Syzygy tables in
//! tests/data/syzygy (probed with shakmaty-syzygy), as `build-tables` writes them and
//! `Tablebase::probe_dtz` reads them: every position in the ignored test, every
//! 17th in the suite. WDL50 must be equal. DTZ must be equal where shakmaty-syzygy says the
//! value is precise; where it says `MaybeRounded::Rounded(n)` (Syzygy stored full moves there, not
//! plies) it must be within one ply of `n`. The counts printed say how often it is one ply
//! nearer zero or further.

mod common;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;
use retro_build::verify::entry_position;
use retro_tables::{index::IndexScheme, Material, Tablebase, Wdl, Wdl50};
use shakmaty::{Chess, Color, Position};
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
    let (mut total, mut total_bad, mut rounded) = (0u64, 0u64, 0u64);
    for m in Material::all(4) {
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
                if k % step != 0 {
                    return;
                }
                let side = if k < size { Color::White } else { Color::Black };
                let Some(sq) = ix.decode((k % size) as u64) else {
                    return;
                };
                let Some(pos) = entry_position(ix.slots(), &sq, side) else {
                    return;
                };
                let ours = tb.probe_dtz(&pos).expect("retro dtz");
                longest.fetch_max(u64::from(ours.plies()), Relaxed);
                // A mate within the rule bounds the DTZ (the engine's search relies on it): the
                // DTM line zeroes by then into positions whose mates fit the rule too.
                let dtm = tb.probe(&pos).expect("retro dtm");
                if dtm.wdl() != Wdl::Draw && dtm.plies() <= 100 {
                    assert!(
                        ours.plies() <= dtm.plies().max(1),
                        "{} {pos:?}: DTZ {ours} beyond DTM {dtm}",
                        m.name()
                    );
                }
                let wdl = syzygy_class(syzygy.probe_wdl_after_zeroing(&pos).expect("wdl"));
                let o = i32::from(ours.0);
                let (theirs, ok) = match syzygy.probe_dtz(&pos).expect("dtz") {
                    MaybeRounded::Precise(d) => (d.0, o == d.0),
                    MaybeRounded::Rounded(d) => {
                        round.fetch_add(1, Relaxed);
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
                        "{} {:?} {side} to move: retro {o} {}, syzygy {theirs} {wdl}",
                        m.name(),
                        pos.board().to_string(),
                        ours.wdl50(),
                    );
                }
            });
        let (c, b) = (compared.load(Relaxed), bad.load(Relaxed));
        println!(
            "{:<8} compared {c:>9}  mismatches {b}  rounded {} (retro a ply nearer zero {}, further {})  longest {}",
            m.name(),
            round.load(Relaxed),
            below.load(Relaxed),
            above.load(Relaxed),
            longest.load(Relaxed)
        );
        assert!(c > 0, "{}: nothing compared", m.name());
        total += c;
        total_bad += b;
        rounded += round.load(Relaxed);
    }
    println!(
        "total: {total} positions compared with Syzygy DTZ, {total_bad} mismatches, {rounded} rounded"
    );
    assert_eq!(total_bad, 0);
}
