//! `build-tables --verify`: an independent check of every position of a table. Each value is
//! recomputed from the values of its children, with shakmaty's legal move generation and the
//! probe of the whole directory (other tables for captures and promotions, one ply of search
//! for en passant). A table passes when every entry equals the best of its children: since a
//! win must be one ply longer than a loss it leads to, this fixes every value from the mates up.

use std::{
    path::Path,
    sync::{
        atomic::{AtomicU64, Ordering::Relaxed},
        Mutex,
    },
};

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use shakmaty::{
    fen::Fen, Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, Move, Piece, Position,
    Setup,
};

use crate::tablebase::{
    index::{IndexScheme, Squares},
    pieces::square,
    Material, Tablebase, Tables, Value,
};

/// The outcome of verifying one table.
#[derive(Clone, Debug)]
pub struct VerifyReport {
    /// The material.
    pub material: Material,
    /// Positions checked (legal ones, both sides to move).
    pub checked: u64,
    /// Entries that differ from the value recomputed from their children.
    pub mismatches: u64,
    /// A few mismatching positions: FEN, stored value, recomputed value.
    pub examples: Vec<(String, Value, Value)>,
    /// Why the table could not be checked at all.
    pub error: Option<String>,
}

/// The position of a table entry as a shakmaty position; `None` if it is not legal.
pub fn entry_position(
    slots: &[(Color, shakmaty::Role)],
    sq: &[u8],
    white_to_move: bool,
) -> Option<Chess> {
    let mut board = Board::empty();
    for (i, &(color, role)) in slots.iter().enumerate() {
        board.set_piece_at(square(sq[i]), Piece { color, role });
    }
    let mut setup = Setup::empty();
    setup.board = board;
    setup.turn = if white_to_move {
        Color::White
    } else {
        Color::Black
    };
    setup.castling_rights = Bitboard::EMPTY;
    match setup.position::<Chess>(CastlingMode::Standard) {
        Ok(p) => Some(p),
        Err(e) => e.ignore_impossible_check().ok(),
    }
}

/// The index, in the table being verified, of the position after `m` when `m` keeps the
/// material and can give no en passant right (a quiet move that is not a double pawn push): the
/// mover's slot moves to the target square and the other side is to move. `None` for every other
/// move, which goes through the general probe.
fn quiet_child(scheme: &IndexScheme, sq: &Squares, m: &Move) -> Option<u64> {
    let Move::Normal {
        role,
        from,
        capture: None,
        to,
        promotion: None,
    } = *m
    else {
        return None;
    };
    if role == shakmaty::Role::Pawn && (u32::from(to)).abs_diff(u32::from(from)) == 16 {
        return None;
    }
    let n = scheme.piece_count();
    let i = sq[..n].iter().position(|&s| s == from as u8)?;
    let mut child = *sq;
    child[i] = to as u8;
    scheme.index(&child)
}

/// Verifies the table of `material` in `dir` against its children.
pub fn verify(dir: &Path, material: Material, progress: bool) -> VerifyReport {
    let mut report = VerifyReport {
        material,
        checked: 0,
        mismatches: 0,
        examples: Vec::new(),
        error: None,
    };
    let tb = match Tablebase::open_in_memory(dir) {
        Ok(tb) => tb,
        Err(e) => {
            report.error = Some(e.to_string());
            return report;
        }
    };
    let table = match tb.table(material) {
        Ok(t) => t,
        Err(e) => {
            report.error = Some(e.to_string());
            return report;
        }
    };
    let scheme = table.scheme().clone();
    let size = scheme.size();
    let chunk = 1u64 << 14;
    let chunks = size.div_ceil(chunk);
    let bar = if progress {
        ProgressBar::new(2 * chunks)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{prefix:>8} verify         [{bar:30}] {pos}/{len}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_prefix(material.name());
    let checked = AtomicU64::new(0);
    let mismatches = AtomicU64::new(0);
    let examples = Mutex::new(Vec::new());
    let error = Mutex::new(None::<String>);
    (0..2 * chunks).into_par_iter().for_each(|c| {
        let white = c < chunks;
        let start = (c % chunks) * chunk;
        let end = (start + chunk).min(size);
        let (mut n, mut bad) = (0u64, 0u64);
        for idx in start..end {
            let Some(sq) = scheme.decode(idx) else {
                continue;
            };
            let Some(pos) = entry_position(scheme.slots(), &sq, white) else {
                continue;
            };
            n += 1;
            let stored = match table.get(white, idx) {
                Ok(v) => v,
                Err(e) => {
                    if let Ok(mut g) = error.lock() {
                        g.get_or_insert_with(|| e.to_string());
                    }
                    continue;
                }
            };
            let mut best: Option<Value> = None;
            let mut long_win = false;
            let mut failed = false;
            for m in pos.legal_moves() {
                let child = match quiet_child(&scheme, &sq, &m) {
                    Some(ci) => table.get(!white, ci).map(Value::from_child),
                    None => tb.move_value_within_range(&pos, &m),
                };
                match child {
                    Ok(Some(v)) => best = Some(best.map_or(v, |b| b.max(v))),
                    // A win in 255 plies: slower than any storable win (see below).
                    Ok(None) => long_win = true,
                    Err(e) => {
                        if let Ok(mut g) = error.lock() {
                            g.get_or_insert_with(|| e.to_string());
                        }
                        failed = true;
                        break;
                    }
                }
            }
            if failed {
                continue;
            }
            if long_win && best.is_none_or(|b| b.wdl() != crate::tablebase::Wdl::Win) {
                // The position itself would be won in 255 plies, which no entry can hold.
                bad += 1;
                continue;
            }
            let expect = best.unwrap_or(if pos.is_check() {
                Value::MATED
            } else {
                Value::DRAW
            });
            if expect != stored {
                bad += 1;
                if let Ok(mut g) = examples.lock() {
                    if g.len() < 5 {
                        let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
                        g.push((fen, stored, expect));
                    }
                }
            }
        }
        checked.fetch_add(n, Relaxed);
        mismatches.fetch_add(bad, Relaxed);
        bar.inc(1);
    });
    bar.finish_and_clear();
    report.checked = checked.load(Relaxed);
    report.mismatches = mismatches.load(Relaxed);
    report.examples = examples.into_inner().unwrap_or_default();
    report.error = error.into_inner().unwrap_or_default();
    report
}
