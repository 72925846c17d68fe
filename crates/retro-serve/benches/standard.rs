//! The work of one `/standard` answer, without HTTP: [`Explorer::standard`] on the 5,000 KQRvKR
//! positions of `tests/data/syzygy5/KQRvKR.tsv` (5 pieces), and on the same positions without
//! the black rook (KQRvK, 4 pieces).
//!
//! `RETRO_BENCH_TABLES=DIR cargo bench -p retro-serve --bench standard`, DIR holding the KQRvKR
//! table and its sub-tables (`build-tables --out DIR KQRvKR`); without it the bench is skipped.
//! `RETRO_BENCH_CACHE_MB=N` sizes the block cache (`retro serve --cache-mb`).

use std::{hint::black_box, path::Path, sync::Arc};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use retro_serve::Explorer;
use retro_tables::Tablebase;
use shakmaty::{fen::Fen, CastlingMode, Chess, Color, FromSetup, Role};

fn positions() -> (Vec<Chess>, Vec<Chess>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/syzygy5/KQRvKR.tsv");
    let text = std::fs::read_to_string(path).expect("tests/data/syzygy5/KQRvKR.tsv");
    let mut five = Vec::new();
    let mut four = Vec::new();
    for line in text.lines() {
        let Some(fen) = line.split('\t').next() else {
            continue;
        };
        let Ok(parsed) = fen.parse::<Fen>() else {
            continue;
        };
        let mut setup = parsed.clone().into_setup();
        if let Ok(p) = parsed.into_position::<Chess>(CastlingMode::Standard) {
            five.push(p);
        }
        let rook = setup.board.by_piece(Role::Rook.of(Color::Black));
        if let Some(sq) = rook.first() {
            setup.board.discard_piece_at(sq);
            if let Ok(p) = Chess::from_setup(setup, CastlingMode::Standard) {
                four.push(p);
            }
        }
    }
    (five, four)
}

fn standard(c: &mut Criterion) {
    let Some(dir) = std::env::var_os("RETRO_BENCH_TABLES") else {
        eprintln!("RETRO_BENCH_TABLES not set: skipped");
        return;
    };
    if let Some(mb) = std::env::var("RETRO_BENCH_CACHE_MB")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
    {
        retro_tables::set_block_cache_bytes(mb << 20);
    }
    eprintln!("block cache: {} blocks", retro_tables::block_cache_slots());
    let tb = Tablebase::open(Path::new(&dir)).expect("tables");
    let explorer = Explorer::new(Some(Arc::new(tb)), None);
    let (five, four) = positions();
    let mut g = c.benchmark_group("standard");
    for (name, set) in [("kqrvkr", &five), ("kqrvk", &four)] {
        g.throughput(Throughput::Elements(1));
        let mut i = 0;
        g.bench_function(name, |b| {
            b.iter(|| {
                i = (i + 1) % set.len();
                black_box(explorer.standard(&set[i]))
            })
        });
    }
    g.finish();
}

criterion_group!(benches, standard);
criterion_main!(benches);
