//! Win/draw/loss of every position of every 3- and 4-piece table against the Syzygy tables in
//! tests/data/syzygy (probed with shakmaty-syzygy). Syzygy's cursed wins and blessed losses are
//! wins and losses here, since Retro's tables ignore the 50-move rule.

mod common;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;
use retro_build::verify::entry_position;
use retro_tables::{index::IndexScheme, Material, Tablebase, Tables, Wdl};
use shakmaty::{Chess, Color};
use shakmaty_syzygy::{Tablebase as Syzygy, Wdl as SWdl};

#[test]
fn every_position_agrees_with_syzygy_wdl() {
    // SAFETY: the Syzygy files in tests/data are not modified while the test maps them.
    let mut syzygy = unsafe { Syzygy::<Chess>::with_mmap_filesystem() };
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy");
    let added = syzygy.add_directory(&dir).expect("syzygy directory");
    assert_eq!(added, 70, "Syzygy files in {}", dir.display());
    let tb = Tablebase::open(common::all_tables()).expect("tables");
    let (mut total, mut total_bad) = (0u64, 0u64);
    for m in Material::all(4) {
        let table = tb.table(m).expect("table");
        let ix = IndexScheme::new(m);
        let size = ix.size() as usize;
        let compared = AtomicU64::new(0);
        let bad = AtomicU64::new(0);
        (0..2 * size)
            .into_par_iter()
            .with_min_len(4096)
            .for_each(|k| {
                let side = if k < size { Color::White } else { Color::Black };
                let idx = (k % size) as u64;
                let Some(sq) = ix.decode(idx) else { return };
                let Some(pos) = entry_position(ix.slots(), &sq, side) else {
                    return;
                };
                let theirs = match syzygy.probe_wdl_after_zeroing(&pos) {
                    Ok(SWdl::Win | SWdl::CursedWin) => Wdl::Win,
                    Ok(SWdl::Draw) => Wdl::Draw,
                    Ok(SWdl::Loss | SWdl::BlessedLoss) => Wdl::Loss,
                    Err(e) => panic!("syzygy probe of {} failed: {e}", m.name()),
                };
                compared.fetch_add(1, Relaxed);
                let ours = table.get(side, idx).expect("raw table").wdl();
                if ours != theirs && bad.fetch_add(1, Relaxed) < 3 {
                    eprintln!(
                        "{} {:?} {side} to move: retro {ours}, syzygy {theirs}",
                        m.name(),
                        sq
                    );
                }
            });
        let (c, b) = (compared.load(Relaxed), bad.load(Relaxed));
        println!("{:<8} compared {c:>9}  mismatches {b}", m.name());
        assert!(c > 0, "{}: no position compared", m.name());
        total += c;
        total_bad += b;
    }
    println!("total: {total} positions compared with Syzygy WDL, {total_bad} mismatches");
    assert_eq!(total_bad, 0);
}
