//! The legality analysis against labelled positions (tests/data/legality, copied from
//! ../shared/legality): texel's own unit-test expectations and a random sample of the
//! ChessPositionRanking project's positions. A legal position called illegal fails every test.

use std::collections::BTreeSet;

use retro_legality::{
    analyze, replay,
    revmoves::{castling_letters, generate, Kind, RevMove},
    Limits, RawPosition, Status,
};
use shakmaty::Square;

/// Rows of a labelled file: (FEN, label, detail column).
fn rows(name: &str) -> Vec<(String, String, String)> {
    let path = format!("{}/tests/data/legality/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("labelled file");
    let header: Vec<&str> = text.lines().next().expect("header").split('\t').collect();
    let detail = header
        .iter()
        .position(|h| *h == "detail" || *h == "label_detail")
        .expect("detail column");
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                f[0].to_string(),
                f[1].to_string(),
                f.get(detail).unwrap_or(&"").to_string(),
            )
        })
        .collect()
}

fn position(fen: &str) -> RawPosition {
    RawPosition::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The verdict of the illegality analysis alone (no proof game search).
fn status(fen: &str) -> (Status, String) {
    let limits = Limits {
        proof_nodes: 0,
        ..Limits::default()
    };
    let v = analyze(&position(fen), limits);
    (v.status, v.reason.to_string())
}

/// The full analysis with a proof game search of `proof_nodes` positions; a `legal` verdict
/// must come with a proof game that replays to the position.
fn proven(fen: &str, proof_nodes: u64) -> (Status, Option<usize>) {
    let goal = position(fen);
    let limits = Limits {
        proof_nodes,
        ..Limits::default()
    };
    let v = analyze(&goal, limits);
    if v.status != Status::Legal {
        assert!(v.proof.is_none(), "{fen}: a proof game without `legal`");
        return (v.status, None);
    }
    let game = v
        .proof
        .unwrap_or_else(|| panic!("{fen}: legal without a proof game"));
    let uci = game.uci();
    assert_eq!(replay::check_uci(&goal, &uci), Ok(()), "{fen}: {uci:?}");
    (v.status, Some(game.plies()))
}

#[test]
fn texel_legal_positions_are_proven_by_replayed_proof_games() {
    let mut plies = Vec::new();
    for (fen, _, detail) in rows("texel_tests.tsv")
        .into_iter()
        .filter(|r| r.1 == "legal")
    {
        let (s, n) = proven(&fen, 200_000);
        assert_eq!(s, Status::Legal, "{fen} ({detail})");
        plies.push(n.unwrap_or(0));
    }
    assert_eq!(plies.len(), 15);
}

#[test]
fn a_random_legal_position_gets_its_proof_game_along_the_initial_path() {
    // A legal position of cpr1k.tsv with promoted pieces on both sides: its game needs well
    // over 100 plies, which the search straight to the goal alone never found.
    let fen = "kBr1r3/2p1Q2p/nQ5P/p3n1R1/b2R1p1q/PRpr2RB/5PN1/2K1brr1 b - - 0 1";
    let (s, plies) = proven(fen, 600_000);
    assert_eq!(s, Status::Legal, "{fen}");
    assert!(plies.is_some_and(|n| n > 100), "{plies:?}");
}

#[test]
fn goals_with_an_en_passant_square_or_castling_rights_get_proof_games() {
    for fen in [
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 1",
        "rnbqkbnr/pp1ppppp/8/8/2pPP3/7P/PPP2PP1/RNBQKBNR b KQkq d3 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w Kq - 0 1",
        "r3kbnr/pppqpppp/2n1b3/3p4/3P4/2N1B3/PPPQPPPP/R3KBNR w KQkq - 0 1",
    ] {
        let (s, n) = proven(fen, 200_000);
        assert_eq!(s, Status::Legal, "{fen}");
        assert!(n.is_some_and(|n| n > 0), "{fen}");
    }
}

#[test]
fn illegal_positions_never_get_a_proof_game() {
    for fen in [
        // Kings adjacent; a white pawn on the first rank; black in check with white to move.
        "8/8/8/8/8/8/8/Kk6 w - - 0 1",
        "4k3/8/8/8/8/8/8/P3K3 w - - 0 1",
        "4k3/4R3/8/8/8/8/8/4K3 w - - 0 1",
        // The start position with black to move: no game gets there.
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1",
    ] {
        let (s, n) = proven(fen, 20_000);
        assert_ne!(s, Status::Legal, "{fen}");
        assert_eq!(n, None);
    }
}

/// Proof games for all the legal positions of the random sample, each replayed (slow: minutes;
/// a node budget and no deadline, so that the searches do not depend on the machine's speed).
#[test]
#[ignore]
fn cpr1k_legal_positions_are_proven_by_replayed_proof_games() {
    let (mut legal, mut other) = (0, 0);
    for (fen, _, _) in rows("cpr1k.tsv").into_iter().filter(|r| r.1 == "legal") {
        let started = std::time::Instant::now();
        let (status, plies) = proven(&fen, 300_000_000);
        println!(
            "{status:?} {plies:?} {:.1} s {fen}",
            started.elapsed().as_secs_f64()
        );
        match status {
            Status::Legal => legal += 1,
            _ => other += 1,
        }
    }
    println!("cpr1k legal rows: {legal} proven legal, {other} not");
    assert_eq!(other, 0);
}

#[test]
fn no_legal_position_is_called_illegal() {
    let mut checked = 0;
    for (fen, label, _) in rows("cpr1k.tsv")
        .into_iter()
        .chain(rows("texel_tests.tsv"))
        .filter(|r| r.1 == "legal" || r.1 == "not_illegal")
    {
        let (s, reason) = status(&fen);
        assert_ne!(
            s,
            Status::Illegal,
            "{label} position called illegal ({reason}): {fen}"
        );
        checked += 1;
    }
    assert_eq!(checked, 51 + 15 + 2);
}

/// Figures for the closing note, and a floor under them: a change that proves fewer of the
/// sample's illegal positions fails.
#[test]
fn cpr1k_illegal_positions_proven() {
    let (mut proven, mut unknown, mut legal_wrong, mut total) = (0, 0, 0, 0);
    for (fen, label, _) in rows("cpr1k.tsv") {
        let (s, _) = status(&fen);
        match (label.as_str(), s) {
            ("illegal", Status::Illegal) => proven += 1,
            ("illegal", _) => unknown += 1,
            ("legal", Status::Illegal) => legal_wrong += 1,
            _ => {}
        }
        total += 1;
    }
    println!("cpr1k: {total} positions, {proven} illegal proven, {unknown} illegal unknown, {legal_wrong} legal called illegal");
    assert_eq!(total, 1000);
    assert_eq!(legal_wrong, 0);
    assert!(
        proven >= 947,
        "only {proven} of 949 illegal positions proven"
    );
}

#[test]
fn texel_illegal_positions_proven_by_the_rules_here() {
    // The illegal positions of texel's tests that static rules, proof kernels and last-move
    // analysis settle here; the others need extended kernels and blocked squares.
    let proven: Vec<String> = rows("texel_tests.tsv")
        .into_iter()
        .filter(|r| r.1 == "illegal")
        .filter(|r| status(&r.0).0 == Status::Illegal)
        .map(|r| r.0)
        .collect();
    println!("texel: {} illegal positions proven", proven.len());
    assert!(proven.len() >= 24, "{proven:?}");
}

/// Texel's positions that have no extended proof kernel (all illegal): the ones settled here
/// by kernels, blocked promotion squares, trapped bishops and extended kernels.
#[test]
fn texel_positions_without_an_extended_kernel_proven() {
    let rows: Vec<String> = rows("texel_tests.tsv")
        .into_iter()
        .filter(|r| r.1 == "no_ext_proof_kernel")
        .map(|r| r.0)
        .collect();
    let proven = rows
        .iter()
        .filter(|fen| status(fen).0 == Status::Illegal)
        .count();
    println!(
        "texel: {proven} of {} without an extended kernel proven illegal",
        rows.len()
    );
    assert_eq!(rows.len(), 9);
    assert!(proven >= 7, "only {proven}");
}

/// The quoted strings of a detail like `expected: {"a6b8", "c6b8"}`.
fn quoted(detail: &str) -> BTreeSet<String> {
    detail
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn reverse_moves_are_exactly_texels() {
    let mut n = 0;
    for (fen, _, detail) in rows("texel_tests.tsv")
        .into_iter()
        .filter(|r| r.1 == "revmoves_exact")
    {
        let ours: BTreeSet<String> = generate(&position(&fen)).iter().map(RevMove::uci).collect();
        assert_eq!(ours, quoted(&detail), "{fen}");
        n += 1;
    }
    assert_eq!(n, 33);
}

#[test]
fn restored_castling_rights_are_texels() {
    let mut n = 0;
    for (fen, _, detail) in rows("texel_tests.tsv")
        .into_iter()
        .filter(|r| r.1 == "revmoves_castlemask")
    {
        let mv = quoted(&detail).into_iter().next().expect("a move");
        let inside = detail
            .split('{')
            .nth(1)
            .and_then(|s| s.split('}').next())
            .expect("a set");
        let want: BTreeSet<String> = inside
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|mask| {
                let mut b = shakmaty::Bitboard::EMPTY;
                for sq in mask.split('|').filter(|s| *s != "0") {
                    b |= sq.parse::<Square>().expect("square");
                }
                castling_letters(b)
            })
            .collect();
        let ours: BTreeSet<String> = generate(&position(&fen))
            .iter()
            .filter(|m| m.uci() == mv)
            .map(|m| castling_letters(m.prior.castling))
            .collect();
        assert_eq!(ours, want, "{fen} {mv}");
        n += 1;
    }
    assert_eq!(n, 36);
}

/// texel's `UM("c5b6", bknight, 0, invSq)`: the move, the piece captured, the castling rights
/// before it (`a1C|h1C`, `0` for none) and the en passant square before it (`invSq` for none).
fn undo_moves(set: &str) -> BTreeSet<String> {
    set.split("UM(")
        .skip(1)
        .map(|um| {
            let inner = um.split(')').next().expect("closing parenthesis");
            let f: Vec<String> = inner
                .split(',')
                .map(|s| s.trim().to_ascii_lowercase())
                .collect();
            let mv = f[0].trim_matches('"').to_string();
            let capture = ["queen", "rook", "bishop", "knight", "pawn"]
                .iter()
                .zip(["Q", "R", "B", "N", "P"])
                .find(|(name, _)| f[1].contains(*name))
                .map_or("-", |(_, c)| c);
            let mut rights = shakmaty::Bitboard::EMPTY;
            for sq in f[2].split('|').filter(|s| *s != "0") {
                rights |= sq.trim_end_matches('c').parse::<Square>().expect("square");
            }
            let ep = if f[3] == "invsq" {
                "-".to_string()
            } else {
                f[3].clone()
            };
            format!("{mv} {capture} {} {ep}", castling_letters(rights))
        })
        .collect()
}

/// Our candidate as texel writes it; texel's generator leaves the captured piece of an en
/// passant capture empty.
fn undo_of(m: &RevMove) -> String {
    let capture = match m.kind {
        Kind::EnPassant => None,
        _ => m.capture,
    };
    format!(
        "{} {} {} {}",
        m.uci(),
        capture.map_or("-".to_string(), |r| r.upper_char().to_string()),
        castling_letters(m.prior.castling),
        m.prior.ep.map_or("-".to_string(), |s| s.to_string())
    )
}

#[test]
fn filtered_reverse_moves_are_texels() {
    let mut n = 0;
    for (fen, _, detail) in rows("texel_tests.tsv")
        .into_iter()
        .filter(|r| r.1 == "revmoves_filtered")
    {
        let mut words = detail.trim_start_matches("expected:").split_whitespace();
        let square = |w: Option<&str>| -> Option<Square> {
            w.filter(|w| *w != "invSq")
                .map(|w| w.to_ascii_lowercase().parse().expect("square"))
        };
        let (from, to) = (square(words.next()), square(words.next()));
        let want = undo_moves(&detail);
        let ours: BTreeSet<String> = generate(&position(&fen))
            .iter()
            .filter(|m| from.is_none_or(|f| m.from == f) && to.is_none_or(|t| m.to == t))
            // These tests run texel's generator without the en passant rights the earlier
            // position may have had (see the revmoves_epsquare rows); an en passant capture's
            // own right stays.
            .filter(|m| m.prior.ep.is_none() || m.kind == Kind::EnPassant)
            .map(undo_of)
            .collect();
        assert_eq!(ours, want, "{fen}: {detail}");
        n += 1;
    }
    assert_eq!(n, 17);
}

/// texel's en passant tests: the candidates between two squares (`invSq`: any) whose earlier
/// position had an en passant right, with the right; texel's flag says whether its generator
/// was asked for those rights at all (`false`: only an en passant capture keeps its own).
#[test]
fn en_passant_rights_before_the_last_move_are_texels() {
    let mut n = 0;
    for (fen, _, detail) in rows("texel_tests.tsv")
        .into_iter()
        .filter(|r| r.1 == "revmoves_epsquare")
    {
        let mut words = detail.trim_start_matches("expected:").split_whitespace();
        let square = |w: Option<&str>| -> Option<Square> {
            w.filter(|w| *w != "invSq")
                .map(|w| w.to_ascii_lowercase().parse().expect("square"))
        };
        let (from, to) = (square(words.next()), square(words.next()));
        let asked = words.next() != Some("false");
        let want = undo_moves(&detail);
        let ours: BTreeSet<String> = generate(&position(&fen))
            .iter()
            .filter(|m| from.is_none_or(|f| m.from == f) && to.is_none_or(|t| m.to == t))
            .filter(|m| {
                if asked {
                    m.prior.ep.is_some()
                } else {
                    m.kind == Kind::EnPassant
                }
            })
            .map(undo_of)
            .collect();
        assert_eq!(ours, want, "{fen}: {detail}");
        n += 1;
    }
    assert_eq!(n, 27);
}

/// The figures of the closing note: per labelled file, the verdicts per label and the time per
/// position (median and maximum) with 2 threads. Run with
/// `cargo test --release --test legality -- --ignored --nocapture`.
#[test]
#[ignore]
fn figures_per_file() {
    use rayon::prelude::*;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("pool");
    for name in ["cpr1k.tsv", "texel_tests.tsv"] {
        let rows = rows(name);
        let started = std::time::Instant::now();
        let results: Vec<(String, Status, String, f64)> = pool.install(|| {
            rows.par_iter()
                .map(|(fen, label, _)| {
                    let t = std::time::Instant::now();
                    let v = analyze(&position(fen), Limits::default());
                    (
                        label.clone(),
                        v.status,
                        v.reason.to_string(),
                        t.elapsed().as_secs_f64(),
                    )
                })
                .collect()
        });
        let wall = started.elapsed().as_secs_f64();
        let mut counts = std::collections::BTreeMap::new();
        for (label, status, _, _) in &results {
            *counts.entry((label.clone(), *status)).or_insert(0) += 1;
        }
        let mut times: Vec<f64> = results.iter().map(|r| r.3).collect();
        times.sort_by(f64::total_cmp);
        println!(
            "{name}: {} positions, {wall:.1} s wall; per position median {:.2} ms, max {:.0} ms",
            times.len(),
            1e3 * times[times.len() / 2],
            1e3 * times[times.len() - 1]
        );
        for ((label, status), n) in counts {
            println!("  {label:<22} {status:<8} {n}");
        }
        let slow = results.iter().filter(|r| r.3 > 1.0).count();
        println!("  positions over 1 s: {slow}");
        let mut plies: Vec<usize> = results
            .iter()
            .filter(|r| r.1 == Status::Legal)
            .filter_map(|r| {
                r.2.strip_prefix("proof game: ")?
                    .split(' ')
                    .next()?
                    .parse()
                    .ok()
            })
            .collect();
        plies.sort_unstable();
        let mut legal_times: Vec<f64> = results
            .iter()
            .filter(|r| r.1 == Status::Legal)
            .map(|r| r.3)
            .collect();
        legal_times.sort_by(f64::total_cmp);
        if let (Some(&most), Some(&slowest)) = (plies.last(), legal_times.last()) {
            println!(
                "  proven legal: {} games of {} to {most} plies (median {}), in a median {:.3} s, at most {slowest:.2} s",
                plies.len(),
                plies[0],
                plies[plies.len() / 2],
                legal_times[legal_times.len() / 2],
            );
        }
        assert!(
            !results
                .iter()
                .any(|r| (r.0 == "legal" || r.0 == "not_illegal") && r.1 == Status::Illegal),
            "a legal position called illegal"
        );
    }
}

/// The kernel model is a relaxation of real games: wherever texel finds a kernel, or the
/// position is legal, ours must find one too (finding none there would be a wrong proof). And
/// texel's two positions without a kernel have none here either.
#[test]
fn proof_kernels_agree_with_texels() {
    use retro_legality::{kernel::search, KernelResult, Kind};
    let start = RawPosition::start();
    let (mut found, mut none) = (0, 0);
    for (fen, label, _) in rows("texel_tests.tsv") {
        let must_exist = matches!(
            label.as_str(),
            "legal"
                | "not_illegal"
                | "has_proof_kernel"
                | "has_ext_proof_kernel"
                | "unknown_has_kernel"
        );
        let must_not = label == "no_proof_kernel";
        if !must_exist && !must_not {
            continue;
        }
        let r = search(&start, &position(&fen), Kind::Plain, &mut nodes(2_000_000))
            .unwrap_or_else(|e| panic!("{fen}: {e:?}"));
        match r {
            KernelResult::Found(_) => {
                assert!(!must_not, "{label}: a kernel found for {fen}");
                found += 1;
            }
            KernelResult::None => {
                assert!(!must_exist, "{label}: no kernel found for {fen}");
                none += 1;
            }
        }
    }
    assert_eq!((found, none), (15 + 2 + 1 + 12 + 22, 2));
}

/// Extended kernels (ranks as a constraint problem) are a relaxation too: wherever texel finds
/// one, or the position is legal, ours must not prove that none exists (a search that runs out
/// of nodes proves nothing and is counted apart). Of texel's nine positions without an extended
/// kernel, the ones ours also has none for are counted, with a floor.
#[test]
fn extended_kernels_agree_with_texels() {
    use retro_legality::{kernel::search, KernelResult, Kind};
    let start = RawPosition::start();
    let (mut found, mut out_of_nodes, mut none, mut refuted) = (0, 0, 0, 0);
    for (fen, label, _) in rows("texel_tests.tsv") {
        let must_exist = matches!(
            label.as_str(),
            "legal" | "not_illegal" | "has_ext_proof_kernel" | "unknown_has_kernel"
        );
        let must_not = label == "no_ext_proof_kernel";
        if !must_exist && !must_not {
            continue;
        }
        match (
            search(&start, &position(&fen), Kind::Extended, &mut nodes(200_000)),
            must_exist,
        ) {
            (Ok(KernelResult::Found(_)), true) => found += 1,
            (Ok(KernelResult::None), true) => {
                panic!("{label}: no extended kernel found for {fen}")
            }
            (Err(_), true) => out_of_nodes += 1,
            (Ok(KernelResult::Found(_)), false) => none += 1,
            (Ok(KernelResult::None), false) => refuted += 1,
            (Err(e), false) => panic!("{fen}: {e:?}"),
        }
    }
    println!(
        "extended kernels: {found} found where texel has one ({out_of_nodes} out of nodes), \
         {refuted} of texel's 9 refuted"
    );
    assert_eq!(found + out_of_nodes, 15 + 2 + 12 + 22);
    assert!(
        out_of_nodes <= 1,
        "{out_of_nodes} searches ran out of nodes"
    );
    assert_eq!(refuted + none, 9);
    assert!(refuted >= 7, "only {refuted}");
}

/// A budget of `max_nodes` nodes and no deadline.
fn nodes(max_nodes: u64) -> retro_legality::limits::Counter {
    retro_legality::Limits {
        max_nodes,
        deadline: None,
        proof_nodes: 0,
        cancel: None,
    }
    .counter()
}
