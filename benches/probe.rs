//! Probe latency on random positions with the tables memory-mapped.
//!
//! `cargo bench --bench probe`. Builds the tables it needs into a temporary directory first
//! (or uses `RETRO_BENCH_TABLES`, building what is missing there).
//!
//! Group `probe`, on 4096 random positions of the 3-4-piece [`MATERIALS`] (throughput: one
//! element per probe):
//! - `position`: Retro's DTM probe ([`Tablebase::probe`]);
//! - `position_cached_table`: the same on KQvK alone, whose table stays in the cache;
//! - `piece_list`: the DTM lookup from a ready piece list, without the board's conversion;
//! - `dtz`: Retro's DTZ50 probe ([`Tablebase::probe_dtz`], the DTM and the DTZ50 table; a loss
//!   searches its moves, since the file holds only its class);
//! - `wdl50`: the class under the 50-move rule alone ([`Tablebase::probe_wdl50`], no search).
//!
//! Group `syzygy`, the same positions probed in the Syzygy files of `tests/data/syzygy` through
//! shakmaty-syzygy (memory-mapped, as the engine opens them with [`Syzygy::open`]):
//! - `wdl`: the WDL class just after a zeroing move (the `.rtbw` file);
//! - `dtz`: the DTZ (the `.rtbz` file; it stores one side to move, so the other side's DTZ
//!   probes the positions after each move).
//!
//! A material of [`MATERIALS`] without both Syzygy files there is left out of every benchmark,
//! so that Retro and Syzygy are timed on the same positions; without the directory the `syzygy`
//! group is skipped.
//!
//! Group `probe5`: a compressed 5-piece table, when `RETRO_BENCH_TABLES` holds KQRvKR.

use std::{
    hint::black_box,
    path::{Path, PathBuf},
};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use retro_build::{build, BuildOptions};
use retro_tables::{
    lookup,
    pieces::{pieces_of_board, to_slots},
    Material, Syzygy, Tablebase, Tables,
};
use shakmaty::{Chess, Position};

const MATERIALS: [&str; 5] = ["KQvKR", "KPvKP", "KRPvK", "KBNvK", "KQvK"];

#[path = "../tests/common/random.rs"]
mod random;

fn random_positions(n: usize, materials: &[&str]) -> Vec<Chess> {
    let mut rng = random::Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let m: Material = materials[out.len() % materials.len()]
            .parse()
            .expect("material");
        if let Some(pos) = random::random_position(m, 0, &mut rng) {
            out.push(pos);
        }
    }
    out
}

/// The Syzygy tables of `tests/data/syzygy` and the materials of [`MATERIALS`] they hold (both
/// files: a position of the material probes in each), or `None` and all of [`MATERIALS`] when
/// the directory cannot be opened.
fn syzygy_and_materials() -> (Option<Syzygy>, Vec<&'static str>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy");
    let sz = match Syzygy::open(dir.to_str().expect("utf-8 path")) {
        Ok(sz) => sz,
        Err(e) => {
            eprintln!("syzygy: {e}; the syzygy benchmarks are skipped");
            return (None, MATERIALS.to_vec());
        }
    };
    let (have, missing): (Vec<&str>, Vec<&str>) = MATERIALS.iter().partition(|m| {
        let pos = &random_positions(1, &[**m])[0];
        sz.probe_wdl(pos).is_some() && sz.probe_dtz(pos).is_some()
    });
    if !missing.is_empty() {
        eprintln!(
            "syzygy: no Syzygy files for {missing:?} in {}; left out of every benchmark",
            dir.display()
        );
    }
    if have.is_empty() {
        return (None, MATERIALS.to_vec());
    }
    (Some(sz), have)
}

fn bench(c: &mut Criterion) {
    let (syzygy, materials) = syzygy_and_materials();
    let (_tmp, dir) = match std::env::var_os("RETRO_BENCH_TABLES") {
        Some(p) => (None, PathBuf::from(p)),
        None => {
            let t = tempfile::tempdir().expect("tempdir");
            let p = t.path().to_path_buf();
            (Some(t), p)
        }
    };
    let mut to_build: Vec<Material> = materials
        .iter()
        .map(|m| m.parse().expect("material"))
        .collect();
    let kqvk: Material = "KQvK".parse().expect("material");
    if !to_build.contains(&kqvk) {
        to_build.push(kqvk);
    }
    let opts = BuildOptions::quiet(dir.clone());
    build(&to_build, &opts, |_| {}).expect("tables build");
    let tb = Tablebase::open(&dir).expect("tables");
    let positions = random_positions(4096, &materials);
    let small = random_positions(4096, &["KQvK"]);
    // Open every table and touch the pages once.
    for p in positions.iter().chain(&small) {
        tb.probe(p).expect("probe");
    }
    for p in &positions {
        tb.probe_dtz(p).expect("DTZ50 probe");
    }
    let pieces: Vec<_> = positions
        .iter()
        .map(|p| (pieces_of_board(p.board()).expect("few pieces"), p.turn()))
        .collect();
    let mut g = c.benchmark_group("probe");
    g.throughput(Throughput::Elements(positions.len() as u64));
    g.bench_function("position", |b| {
        b.iter(|| {
            for p in &positions {
                black_box(tb.probe(black_box(p)).ok());
            }
        })
    });
    // One 59 KB table: the cost of the computation alone, without cache misses.
    g.bench_function("position_cached_table", |b| {
        b.iter(|| {
            for p in &small {
                black_box(tb.probe(black_box(p)).ok());
            }
        })
    });
    g.bench_function("piece_list", |b| {
        b.iter(|| {
            for (pl, turn) in &pieces {
                black_box(lookup(&tb, black_box(pl.as_slice()), *turn).ok());
            }
        })
    });
    g.bench_function("dtz", |b| {
        b.iter(|| {
            for p in &positions {
                black_box(tb.probe_dtz(black_box(p)).ok());
            }
        })
    });
    g.bench_function("wdl50", |b| {
        b.iter(|| {
            for p in &positions {
                black_box(tb.probe_wdl50(black_box(p)).ok());
            }
        })
    });
    g.finish();
    if let Some(sz) = &syzygy {
        syzygy_probes(c, sz, &positions);
    }
    five_pieces(c, &tb);
}

/// The same positions probed in the Syzygy tables: WDL after a zeroing move, and DTZ.
fn syzygy_probes(c: &mut Criterion, sz: &Syzygy, positions: &[Chess]) {
    // Open every file and touch the pages once.
    for p in positions {
        sz.probe_wdl(p).expect("Syzygy WDL probe");
        sz.probe_dtz(p).expect("Syzygy DTZ probe");
    }
    let mut g = c.benchmark_group("syzygy");
    g.throughput(Throughput::Elements(positions.len() as u64));
    g.bench_function("wdl", |b| {
        b.iter(|| {
            for p in positions {
                black_box(sz.probe_wdl(black_box(p)));
            }
        })
    });
    g.bench_function("dtz", |b| {
        b.iter(|| {
            for p in positions {
                black_box(sz.probe_dtz(black_box(p)));
            }
        })
    });
    g.finish();
}

/// A compressed 5-piece table, when `RETRO_BENCH_TABLES` holds KQRvKR (it is not built here:
/// that takes a minute). Cold: random positions, one per block, over the whole table, so every
/// probe decompresses (part of) a block. Cached: a few positions probed again and again.
fn five_pieces(c: &mut Criterion, tb: &Tablebase) {
    let m: Material = "KQRvKR".parse().expect("material");
    if tb.table(m).is_err() {
        eprintln!("probe5: no KQRvKR table in RETRO_BENCH_TABLES, skipped");
        return;
    }
    // One position per block, so that a block comes round again only after some 57,000 others
    // have passed through the cache's 8192 slots: every probe decompresses.
    let table = tb.table(m).expect("table");
    let mut seen = std::collections::HashSet::new();
    let cold: Vec<Chess> = random_positions(400_000, &["KQRvKR"])
        .into_iter()
        .filter(|p| {
            let key = pieces_of_board(p.board())
                .and_then(|pl| to_slots(pl.as_slice(), table.scheme().slots(), false))
                .and_then(|sq| table.scheme().index(&sq))
                .and_then(|i| table.block_of(p.turn(), i));
            key.is_some_and(|(block, _)| seen.insert((p.turn(), block)))
        })
        .collect();
    eprintln!("probe5: {} positions in distinct blocks", cold.len());
    let hot = random_positions(64, &["KQRvKR"]);
    for p in cold.iter().chain(&hot) {
        tb.probe(p).expect("probe");
    }
    let mut g = c.benchmark_group("probe5");
    g.throughput(Throughput::Elements(1));
    let mut i = 0;
    g.bench_function("cold_block", |b| {
        b.iter(|| {
            i = (i + 1) % cold.len();
            black_box(tb.probe(black_box(&cold[i])).ok())
        })
    });
    let mut j = 0;
    g.bench_function("cached_block", |b| {
        b.iter(|| {
            j = (j + 1) % hot.len();
            black_box(tb.probe(black_box(&hot[j])).ok())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
