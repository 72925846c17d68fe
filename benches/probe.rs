//! Probe latency on random positions with the tables memory-mapped.
//!
//! `cargo bench --bench probe`. Builds the tables it needs into a temporary directory first
//! (or uses `RETRO_BENCH_TABLES`, building what is missing there).

use std::{hint::black_box, path::PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use retro::{
    build::{build, BuildOptions},
    tablebase::{
        lookup,
        pieces::{pieces_of_board, to_slots},
        Material, Tablebase, Tables,
    },
};
use shakmaty::{Bitboard, Board, CastlingMode, Chess, Color, Piece, Position, Setup, Square};

const MATERIALS: [&str; 5] = ["KQvKR", "KPvKP", "KRPvK", "KBNvK", "KQvK"];

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

fn random_positions(n: usize, materials: &[&str]) -> Vec<Chess> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let m: Material = materials[out.len() % materials.len()]
            .parse()
            .expect("material");
        let mut board = Board::empty();
        let mut ok = true;
        for (color, role) in m.slots() {
            let sq = Square::new((rng.next() % 64) as u32);
            if board.piece_at(sq).is_some() {
                ok = false;
                break;
            }
            board.set_piece_at(sq, Piece { color, role });
        }
        if !ok {
            continue;
        }
        let mut setup = Setup::empty();
        setup.board = board;
        setup.turn = if rng.next().is_multiple_of(2) {
            Color::White
        } else {
            Color::Black
        };
        setup.castling_rights = Bitboard::EMPTY;
        if let Ok(pos) = setup.position::<Chess>(CastlingMode::Standard) {
            if pos.legal_ep_square().is_none() {
                out.push(pos);
            }
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let (_tmp, dir) = match std::env::var_os("RETRO_BENCH_TABLES") {
        Some(p) => (None, PathBuf::from(p)),
        None => {
            let t = tempfile::tempdir().expect("tempdir");
            let p = t.path().to_path_buf();
            (Some(t), p)
        }
    };
    let materials: Vec<Material> = MATERIALS
        .iter()
        .map(|m| m.parse().expect("material"))
        .collect();
    let opts = BuildOptions {
        out: dir.clone(),
        force: false,
        progress: false,
        compression: Default::default(),
    };
    build(&materials, &opts, |_| {}).expect("tables build");
    let tb = Tablebase::open(&dir).expect("tables");
    let positions = random_positions(4096, &MATERIALS);
    let small = random_positions(4096, &["KQvK"]);
    // Open every table and touch the pages once.
    for p in positions.iter().chain(&small) {
        tb.probe(p).expect("probe");
    }
    let pieces: Vec<_> = positions
        .iter()
        .map(|p| {
            (
                pieces_of_board(p.board()).expect("few pieces"),
                p.turn() == Color::White,
            )
        })
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
            for (pl, white) in &pieces {
                black_box(lookup(&tb, black_box(pl.as_slice()), *white).ok());
            }
        })
    });
    g.finish();
    five_pieces(c, &tb);
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
                .and_then(|i| table.block_of(p.turn() == Color::White, i));
            key.is_some_and(|(side, block, _)| seen.insert((side, block)))
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
