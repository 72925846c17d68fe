//! Every position of every 3- and 4-piece table against Gaviota's DTM tables, through Debian's
//! libgaviotatb. Run by hand (it needs the library and ../shared/oracle/gaviota):
//! `cargo test --release --features gaviota --test gaviota -- --nocapture`.
#![cfg(feature = "gaviota")]

mod common;

use std::{
    ffi::{c_char, c_int, c_uint, CString},
    path::PathBuf,
    sync::atomic::{AtomicU64, Ordering::Relaxed},
};

use rayon::prelude::*;
use retro_tables::{
    index::IndexScheme,
    pieces::{attacked, occupancy},
    Material, Tablebase, Tables, Value,
};
use shakmaty::{Color, Position, Role};

#[link(name = "gaviotatb")]
extern "C" {
    fn tb_init(verbosity: c_int, scheme: c_int, paths: *const *const c_char) -> *mut c_char;
    fn tbcache_init(cache_mem: usize, wdl_fraction: c_int) -> c_int;
    fn tbpaths_init() -> *const *const c_char;
    fn tbpaths_add(ps: *const *const c_char, p: *const c_char) -> *const *const c_char;
    fn tb_probe_hard(
        stm: c_uint,
        epsq: c_uint,
        castles: c_uint,
        w_sq: *const c_uint,
        b_sq: *const c_uint,
        w_pc: *const u8,
        b_pc: *const u8,
        info: *mut c_uint,
        plies: *mut c_uint,
    ) -> c_int;
}

const NO_SQUARE: c_uint = 64;

fn gaviota_dir() -> PathBuf {
    std::env::var_os("RETRO_GAVIOTA")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/oracle/gaviota")
        })
}

fn piece_code(role: Role) -> u8 {
    match role {
        Role::Pawn => 1,
        Role::Knight => 2,
        Role::Bishop => 3,
        Role::Rook => 4,
        Role::Queen => 5,
        Role::King => 6,
    }
}

/// Gaviota's value for a position as ours: `None` if it has none.
fn gaviota(slots: &[(Color, Role)], sq: &[u8], white: bool) -> Option<Value> {
    gaviota_ep(slots, sq, white, NO_SQUARE)
}

fn gaviota_ep(slots: &[(Color, Role)], sq: &[u8], white: bool, ep: c_uint) -> Option<Value> {
    let mut w_sq = [NO_SQUARE; 8];
    let mut b_sq = [NO_SQUARE; 8];
    let mut w_pc = [0u8; 8];
    let mut b_pc = [0u8; 8];
    let (mut nw, mut nb) = (0, 0);
    for (i, &(c, r)) in slots.iter().enumerate() {
        if c == Color::White {
            w_sq[nw] = c_uint::from(sq[i]);
            w_pc[nw] = piece_code(r);
            nw += 1;
        } else {
            b_sq[nb] = c_uint::from(sq[i]);
            b_pc[nb] = piece_code(r);
            nb += 1;
        }
    }
    let (mut info, mut plies): (c_uint, c_uint) = (0, 0);
    // SAFETY: the arrays are terminated by NO_SQUARE / 0 as the C API requires and outlive the
    // call; the out pointers point to live locals.
    let ok = unsafe {
        tb_probe_hard(
            if white { 0 } else { 1 },
            ep,
            0,
            w_sq.as_ptr(),
            b_sq.as_ptr(),
            w_pc.as_ptr(),
            b_pc.as_ptr(),
            &mut info,
            &mut plies,
        )
    };
    if ok == 0 {
        return None;
    }
    match info {
        0 => Some(Value::DRAW),
        1 | 2 => {
            let stm_wins = (info == 1) == white;
            if stm_wins {
                Value::win(plies)
            } else {
                Value::loss(plies)
            }
        }
        _ => None,
    }
}

fn init_gaviota() {
    static INIT: std::sync::Once = std::sync::Once::new();
    INIT.call_once(|| {
        let dir = gaviota_dir();
        let path = CString::new(dir.to_string_lossy().as_bytes()).expect("path");
        // SAFETY: plain calls of the C API with a NUL-terminated path; the path is leaked so it
        // outlives the library's use of it.
        unsafe {
            let path = path.into_raw();
            let paths = tbpaths_add(tbpaths_init(), path);
            tb_init(0, 4, paths);
            tbcache_init(64 << 20, 0);
        }
    });
}

/// Exact DTM of every KPvKP position with an en passant capture available.
#[test]
fn en_passant_positions_agree_with_gaviota() {
    init_gaviota();
    let tb = Tablebase::open(common::all_tables()).expect("tables");
    let (mut n, mut bad) = (0, 0);
    for fen in common::en_passant_positions() {
        let pos = retro_engine::fen::parse_fen(&fen).expect("legal");
        let ours = tb.probe(&pos).expect("probe");
        let board = pos.board();
        let mut slots = Vec::new();
        let mut sq = Vec::new();
        for s in board.occupied() {
            let p = board.piece_at(s).expect("piece");
            slots.push((p.color, p.role));
            sq.push(s as u8);
        }
        let ep = pos.legal_ep_square().map_or(NO_SQUARE, |s| s as c_uint);
        let white = pos.turn() == Color::White;
        let theirs = gaviota_ep(&slots, &sq, white, ep).expect("gaviota answers");
        n += 1;
        if ours != theirs {
            bad += 1;
            if bad <= 5 {
                eprintln!("{fen}: retro {ours}, gaviota {theirs}");
            }
        }
    }
    println!("{n} en passant positions compared with Gaviota DTM, {bad} mismatches");
    assert_eq!(bad, 0);
}

#[test]
fn every_position_agrees_with_gaviota() {
    init_gaviota();
    let tables = common::all_tables();
    let tb = Tablebase::open(tables).expect("tables");
    let (mut total, mut total_bad) = (0u64, 0u64);
    for m in Material::all(4) {
        let table = tb.table(m).expect("table");
        let ix = IndexScheme::new(m);
        let slots = ix.slots().to_vec();
        let n = slots.len();
        let compared = AtomicU64::new(0);
        let bad = AtomicU64::new(0);
        let missing = AtomicU64::new(0);
        let size = ix.size();
        (0..2 * size as usize)
            .into_par_iter()
            .with_min_len(4096)
            .for_each(|k| {
                let k = k as u64;
                let white = k < size;
                let idx = k % size;
                let Some(sq) = ix.decode(idx) else { return };
                let side_not_to_move = if white { 1 } else { 0 };
                let attacker = if white { Color::White } else { Color::Black };
                if attacked(
                    &slots,
                    &sq,
                    sq[side_not_to_move],
                    attacker,
                    occupancy(&sq, n),
                    usize::MAX,
                ) {
                    return;
                }
                let ours = table.get(white, idx).expect("raw table");
                match gaviota(&slots, &sq[..n], white) {
                    None => {
                        missing.fetch_add(1, Relaxed);
                    }
                    Some(g) => {
                        compared.fetch_add(1, Relaxed);
                        if g != ours && bad.fetch_add(1, Relaxed) < 3 {
                            eprintln!(
                                "{} {:?} white={white}: retro {ours}, gaviota {g}",
                                m.name(),
                                &sq[..n]
                            );
                        }
                    }
                }
            });
        let (c, b, miss) = (
            compared.load(Relaxed),
            bad.load(Relaxed),
            missing.load(Relaxed),
        );
        println!(
            "{:<8} compared {c:>9}  mismatches {b}  not answered by gaviota {miss}",
            m.name()
        );
        total += c;
        total_bad += b;
    }
    println!("total: {total} positions compared, {total_bad} mismatches");
    assert_eq!(total_bad, 0);
}
