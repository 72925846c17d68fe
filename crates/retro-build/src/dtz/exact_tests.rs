//! The DTZ50 solver's exact distances against what the written table answers.

use retro_tables::{
    format::{
        file_name, recompress_dtz, write_table_as, Compression, Encoding, Metric, Table, TableData,
    },
    Dtz, Material, Tablebase,
};

use super::{dtm_values, DtzSolver, Wdl50Tables};
use crate::verify::entry_position;

/// A DTZ50 file stores a loss by its class only; the probe's one-ply search gives every loss the
/// distance the solver computed. A file written with the solver's exact distances (as earlier
/// builds wrote) answers every probe the same, and `recompress_dtz` rewrites it as a build
/// does now: smaller, with the same answers.
#[test]
fn losses_searched_by_the_probe_equal_the_solved_distances() {
    let m: Material = "KRvKN".parse().expect("material");
    let dir = tempfile::tempdir().expect("tempdir");
    crate::build_for_test(dir.path(), &[m]);
    let dtz_path = dir.path().join(Metric::Dtz.file_name(m));
    let built = std::fs::read(&dtz_path).expect("dtz written");
    let dtm_table = Table::open(&dir.path().join(file_name(m)), Some(m)).expect("dtm");
    let dtm = dtm_values(&dtm_table).expect("dtm values");
    let sub = Wdl50Tables::open_for(dir.path(), m).expect("sub-tables");
    let solved = DtzSolver::new(m, dtm.as_ref().map(Vec::as_slice), &sub)
        .solve_exact()
        .expect("solved");
    let scheme = dtm_table.scheme().clone();
    let probe_all = |tb: &Tablebase| -> (u64, u64) {
        let (mut losses, mut compared) = (0, 0);
        for (side, values) in solved.as_ref().zip_color() {
            for (i, &want) in values.iter().enumerate() {
                let Some(pos) = scheme
                    .decode(i as u64)
                    .and_then(|sq| entry_position(scheme.slots(), &sq, side))
                else {
                    continue;
                };
                assert_eq!(tb.probe_dtz(&pos), Ok(want), "entry {i}");
                compared += 1;
                losses += u64::from(want.0 < 0);
            }
        }
        (losses, compared)
    };
    let tb = Tablebase::open(dir.path()).expect("tables");
    let (losses, compared) = probe_all(&tb);
    assert!(
        losses > 100_000 && compared > 1_000_000,
        "{losses} {compared}"
    );
    drop(tb);
    // The exact distances, raw.
    let exact = |v: &[Dtz]| -> Vec<u8> { v.iter().map(|d| d.plies() as u8).collect() };
    let (white, black) = (exact(&solved.white), exact(&solved.black));
    let stats = Table::open_dtz(&dtz_path, Some(m)).expect("dtz").stats();
    let data = TableData {
        white: &white,
        black: &black,
        legal: None,
        ext: None,
    };
    write_table_as(dir.path(), Metric::Dtz, m, data, stats, Encoding::Raw).expect("written");
    let exact_len = std::fs::metadata(&dtz_path).expect("file").len();
    let tb = Tablebase::open(dir.path()).expect("tables");
    assert_eq!(probe_all(&tb), (losses, compared));
    drop(tb);
    let w = recompress_dtz(&dtz_path, Compression::default()).expect("recompressed");
    assert!(w.bytes < exact_len && w.bytes <= built.len() as u64 + built.len() as u64 / 50);
    let tb = Tablebase::open(dir.path()).expect("tables");
    assert_eq!(probe_all(&tb), (losses, compared));
}
