//! Probing: positions with an en passant capture available (which no table entry stores: the
//! probe adds one ply of search) against Syzygy's WDL, the move ranking against the probe, and
//! the board probe against piece-list lookups and colour-flipped positions.

mod common;

use retro_engine::fen::parse_fen;
use retro_tables::Wdl;
use shakmaty::{Chess, Position};
use shakmaty_syzygy::{Tablebase as Syzygy, Wdl as SWdl};

#[test]
fn en_passant_positions_agree_with_syzygy() {
    let (_dir, tb) = common::tablebase_of(&["KPvKP"]);
    // SAFETY: the Syzygy files in tests/data are not modified while the test maps them.
    let mut syzygy = unsafe { Syzygy::<Chess>::with_mmap_filesystem() };
    syzygy
        .add_directory(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy"))
        .expect("syzygy");
    let fens = common::en_passant_positions();
    assert!(fens.len() > 10_000, "{} positions", fens.len());
    let (mut changed, mut bad) = (0, 0);
    for fen in &fens {
        let pos = parse_fen(fen).expect("legal");
        let ours = tb.probe(&pos).expect("probe").wdl();
        let theirs = match syzygy.probe_wdl_after_zeroing(&pos).expect("syzygy") {
            SWdl::Win | SWdl::CursedWin => Wdl::Win,
            SWdl::Draw => Wdl::Draw,
            SWdl::Loss | SWdl::BlessedLoss => Wdl::Loss,
        };
        if ours != theirs {
            bad += 1;
            eprintln!("{fen}: retro {ours}, syzygy {theirs}");
        }
        // The same placement without the en passant right, from the table alone.
        let without = fen.replace(
            &format!(" {} ", fen.split(' ').nth(3).unwrap_or("-")),
            " - ",
        );
        let plain = tb
            .probe(&parse_fen(&without).expect("legal"))
            .expect("probe");
        if plain.wdl() != ours {
            changed += 1;
        }
    }
    println!(
        "{} en passant positions, {changed} whose result the capture changes, {bad} mismatches",
        fens.len()
    );
    assert!(
        changed > 0,
        "the test exercises positions where en passant matters"
    );
    assert_eq!(bad, 0);
}

#[test]
fn ranked_moves_start_with_the_probed_value() {
    let (_dir, tb) = common::tablebase_of(&["KRvK", "KPvK"]);
    for fen in [
        "8/8/8/4k3/8/8/8/R3K3 w - - 0 1",
        "8/8/8/4k3/8/8/8/R3K3 b - - 0 1",
        "8/8/8/8/8/2k5/4P3/4K3 w - - 0 1",
        "8/4P3/8/8/8/2k5/8/4K3 w - - 0 1",
        "7k/8/8/8/8/8/3K4/R7 w - - 0 1",
    ] {
        let pos = parse_fen(fen).expect("legal");
        let value = tb.probe(&pos).expect("probe");
        let ranked = tb.rank_moves(&pos).expect("rank");
        assert_eq!(ranked.len(), pos.legal_moves().len());
        assert_eq!(
            ranked[0].1, value,
            "{fen}: best move has the position's value"
        );
        assert!(ranked.windows(2).all(|w| w[0].1 >= w[1].1), "{fen}: sorted");
    }
}

/// `probe` (squares read from the board) agrees with `lookup` (piece lists) and gives the same
/// value to the colour-flipped position, for random positions of materials in both orientations.
#[test]
fn probe_agrees_with_lookup_and_colour_flip() {
    use retro_tables::{lookup, pieces::PieceList};
    use shakmaty::{Bitboard, Board, CastlingMode, Color, Piece, Setup, Square};

    let (_dir, tb) = common::tablebase_of(&["KQvKR", "KRvKP"]);
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        rng ^= rng >> 12;
        rng ^= rng << 25;
        rng ^= rng >> 27;
        rng.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    };
    let mut checked = 0;
    for name in ["KQvKR", "KRvKQ", "KRvKP", "KPvKR", "KQvK", "KvKR"] {
        let m = common::material(name);
        let mut n = 0;
        while n < 2000 {
            let mut board = Board::empty();
            let mut pieces = PieceList::new();
            let mut ok = true;
            for (color, role) in m.slots() {
                let sq = Square::new((next() % 64) as u32);
                if board.piece_at(sq).is_some() {
                    ok = false;
                    break;
                }
                board.set_piece_at(sq, Piece { color, role });
                pieces.push((color, role, sq as u8));
            }
            if !ok {
                continue;
            }
            let mut setup = Setup::empty();
            setup.board = board;
            setup.turn = if next() % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            setup.castling_rights = Bitboard::EMPTY;
            let Ok(pos) = setup.clone().position::<Chess>(CastlingMode::Standard) else {
                continue;
            };
            if pos.legal_ep_square().is_some() {
                continue;
            }
            let v = tb.probe(&pos).expect("probe");
            assert_eq!(
                lookup(&tb, pieces.as_slice(), setup.turn).expect("lookup"),
                v,
                "{name}"
            );
            let flipped: Chess = setup
                .into_mirrored()
                .position(CastlingMode::Standard)
                .expect("mirror of a legal position is legal");
            assert_eq!(tb.probe(&flipped).expect("probe"), v, "{name} flipped");
            n += 1;
        }
        checked += n;
    }
    assert_eq!(checked, 12_000);
}
