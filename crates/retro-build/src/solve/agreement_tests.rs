//! Un-moves against moves: the predecessors the retrograde passes generate and the successors
//! the init pass generates describe the same move graph. A bug in either points here rather
//! than at a table that differs from Syzygy's.

use super::{
    item::{item, item_ep, item_idx},
    moves::{Keys, MoveSummary},
    unmoves::Preds,
    *,
};
use crate::{kernel::SIDES, SubTables};

/// Checks `positions` random legal positions of `name` both ways: every in-table successor of a
/// position lists it among its predecessors, and every predecessor lists it among its
/// successors (en passant nodes included). Returns how many successors were en passant nodes.
fn check_both_ways(name: &str, positions: usize, seed: u64) -> u64 {
    let m: Material = name.parse().expect("material");
    let solver = Solver::new(m, SubTables::default());
    let mut rng = fastrand::Rng::with_seed(seed);
    let (mut summary, mut back) = (MoveSummary::new(), MoveSummary::new());
    let mut found = Preds::new();
    let (mut checked, mut ep_keys, mut preds_seen) = (0usize, 0u64, 0u64);
    let mut tries = 0u64;
    while checked < positions {
        tries += 1;
        assert!(
            tries < 100 * positions as u64,
            "{name}: too few legal positions"
        );
        let idx = rng.u64(0..solver.ix.size());
        let Some(sq) = solver.ix.decode(idx) else {
            continue;
        };
        let side = SIDES[rng.usize(0..2)];
        if !solver.summarize(&sq, idx, side, Keys::Dedupe, &mut summary) {
            continue;
        }
        // Forward: each successor has this position among its predecessors.
        for &k in &summary.keys[..summary.nkeys] {
            let ep = item_ep(k);
            solver.predecessors(item(item_idx(k), side.other(), ep), 1, &mut found);
            let list = if ep != 0 {
                ep_keys += 1;
                &found.ep_preds[..found.nep]
            } else {
                &found.preds[..found.np]
            };
            assert!(
                list.contains(&idx),
                "{name}: entry {idx} ({side} to move) reaches {} (en passant {ep}), whose \
                 predecessors {list:?} leave it out",
                item_idx(k)
            );
        }
        // Backward: each predecessor has this position among its successors.
        solver.predecessors(item(idx, side, 0), 1, &mut found);
        let (preds, ep_preds) = (
            found.preds[..found.np].to_vec(),
            found.ep_preds[..found.nep].to_vec(),
        );
        for (p, through_ep) in preds
            .iter()
            .map(|&p| (p, false))
            .chain(ep_preds.iter().map(|&p| (p, true)))
        {
            preds_seen += 1;
            let psq = solver.ix.decode(p).expect("a predecessor decodes");
            assert!(
                solver.summarize(&psq, p, side.other(), Keys::Dedupe, &mut back),
                "{name}: predecessor {p} of entry {idx} is no legal position"
            );
            let keys = &back.keys[..back.nkeys];
            let reaches = if through_ep {
                keys.iter().any(|&k| item_idx(k) == idx && item_ep(k) != 0)
            } else {
                keys.contains(&idx)
            };
            assert!(
                reaches,
                "{name}: predecessor {p} of entry {idx} ({side} to move) does not reach it \
                 (en passant node: {through_ep})"
            );
        }
        checked += 1;
    }
    assert!(
        preds_seen > positions as u64,
        "{name}: {preds_seen} predecessors"
    );
    ep_keys
}

#[test]
fn predecessors_and_successors_agree_without_pawns() {
    for (i, name) in ["KRvKN", "KQvKR", "KBBvK", "KRNvKB"]
        .into_iter()
        .enumerate()
    {
        check_both_ways(name, 2000, 11 + i as u64);
    }
}

#[test]
fn predecessors_and_successors_agree_with_pawns_and_en_passant() {
    let mut ep = 0;
    for (i, name) in ["KPvKP", "KPvK", "KRPvKP", "KPPvKP"]
        .into_iter()
        .enumerate()
    {
        ep += check_both_ways(name, 3000, 101 + i as u64);
    }
    assert!(ep > 0, "no en passant node among the successors");
}

/// The value a solve of KQvK gives a placement (white king, black king, white queen; squares
/// 0 = a1 to 63 = h8) with `side` to move.
fn kqvk_value(solved: &Solved, ix: &IndexScheme, wk: u8, bk: u8, wq: u8, side: Color) -> Value {
    let mut sq = [0u8; retro_tables::MAX_PIECES];
    sq[..3].copy_from_slice(&[wk, bk, wq]);
    let idx = ix.index(&sq).expect("a legal placement has an index") as usize;
    let bytes = side.fold_wb(&solved.white, &solved.black);
    Value::from_byte(bytes[idx])
}

/// What the init pass decides by itself, seen in a whole solve of KQvK (its only exit, the
/// king taking the queen, leads to bare kings and needs no table): a checkmate is a loss in 0,
/// a stalemate and a position whose only way out takes the queen are draws, and the first
/// retrograde pass makes a mate in one a win in 1 ply.
#[test]
fn the_init_pass_decides_mates_stalemates_and_exits() {
    let m: Material = "KQvK".parse().expect("material");
    let solver = Solver::new(m, SubTables::default());
    let ix = IndexScheme::new(m);
    let bar = crate::Silent;
    let solved = solver
        .solve(&bar, |_| Ok(SubTables::default()))
        .expect("KQvK solves without sub-tables");
    // Black: Kh8, white: Kf7, Qg7 (defended): mate.
    assert_eq!(
        kqvk_value(&solved, &ix, 53, 63, 54, Color::Black),
        Value::MATED
    );
    // Black: Kh8, white: Kf7, Qg6: stalemate.
    assert_eq!(
        kqvk_value(&solved, &ix, 53, 63, 46, Color::Black),
        Value::DRAW
    );
    // Black: Ke5 in check from an undefended Qe4 (white Ka1): Kxe4 draws.
    assert_eq!(
        kqvk_value(&solved, &ix, 0, 36, 28, Color::Black),
        Value::DRAW
    );
    // White: Kf6, Qa7, black Kh8: Qg7 mates.
    assert_eq!(
        kqvk_value(&solved, &ix, 45, 63, 48, Color::White),
        Value::win(1).expect("a win in 1")
    );
    // Every legal position of KQvK with white to move is won or drawn; none is lost.
    assert!(solved
        .white
        .iter()
        .all(|&b| Value::from_byte(b).wdl() != retro_tables::Wdl::Loss));
}

/// The position of `sq` (pieces in `slots` order, the piece in slot `skip` left out) with
/// `side` to move, as the verifier builds one.
fn position_without(
    slots: &[(Color, Role)],
    sq: &retro_tables::index::Squares,
    skip: usize,
    side: Color,
) -> Option<shakmaty::Chess> {
    let (slots, sq): (Vec<_>, Vec<u8>) = slots
        .iter()
        .zip(sq)
        .enumerate()
        .filter(|&(i, _)| i != skip)
        .map(|(_, (&slot, &s))| (slot, s))
        .unzip();
    crate::verify::entry_position(&slots, &sq, side)
}

/// The exits against the sub-tables: the value the solver reads for a position with a piece
/// taken off equals what the prober (`Tablebase::probe`, an independent path through the
/// sub-table's own slot order and orientation) gives the same position, on random positions of
/// KRvKN (a rook taken leaves KvKN, stored as KNvK with the colours exchanged) and KQvKP.
#[test]
fn exit_values_equal_the_sub_tables_probed_directly() {
    for (name, seed) in [("KRvKN", 7u64), ("KQvKP", 8)] {
        let m: Material = name.parse().expect("material");
        let dir = tempfile::tempdir().expect("tempdir");
        crate::build_for_test(dir.path(), &m.successors());
        let tables = retro_tables::Tablebase::open(dir.path()).expect("sub-tables open");
        let sub = SubTables::open_for(dir.path(), m, Stage::InitBoth).expect("sub-tables");
        let solver = Solver::new(m, sub);
        let mut rng = fastrand::Rng::with_seed(seed);
        let (mut compared, mut swapped) = (0, 0);
        while compared < 3000 {
            let idx = rng.u64(0..solver.ix.size());
            let Some(sq) = solver.ix.decode(idx) else {
                continue;
            };
            let skip = rng.usize(2..solver.n);
            let side = SIDES[rng.usize(0..2)];
            let Some(pos) = position_without(&solver.slots, &sq, skip, side) else {
                continue;
            };
            let Ok(want) = tables.probe(&pos) else {
                continue;
            };
            let got = solver.exit_value(&sq, skip, None, side);
            assert_eq!(
                got, want,
                "{name}: entry {idx} without slot {skip}, side {side}"
            );
            compared += 1;
            swapped += usize::from(solver.slots[skip].0 == Color::White);
        }
        assert!(swapped > 0, "{name}: no exit into a swapped sub-table");
        assert!(solver.sub_error.lock().map_or(true, |e| e.is_none()));
    }
}
