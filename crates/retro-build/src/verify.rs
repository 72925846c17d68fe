//! `build-tables --verify`: an independent check of every position of a table. Each value is
//! recomputed from the values of its children, with shakmaty's legal move generation and the
//! probe of the whole directory (other tables for captures and promotions, one ply of search
//! for en passant). A table passes when every entry equals the best of its children: since a
//! win must be one ply longer than a loss it leads to, this fixes every value from the mates up.
//! DTZ50 tables are checked the same way against their children's DTZ50 values
//! ([`dtz_from_children`]).

use std::{
    path::Path,
    sync::{
        atomic::{AtomicU64, Ordering::Relaxed},
        Mutex,
    },
};

use rayon::prelude::*;
use shakmaty::{
    fen::Fen, Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, Move, Piece, Position,
    Setup,
};

use crate::{
    metric::{DtmMoves, Dtz50Moves},
    progress::Progress,
};
use retro_tables::{
    format::Table,
    index::{IndexScheme, Squares},
    pieces::square,
    Dtz, Material, ProbeError, Tablebase, Tables, Value, Wdl50,
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
    pub examples: Vec<(String, String, String)>,
    /// Why the table could not be checked at all.
    pub error: Option<String>,
}

/// The side to move and the entry of `pos` in the table of index `ix`, which is of its
/// material or of that material with the colours exchanged (for the tests' position-by-position
/// checks).
#[cfg(test)]
pub(crate) fn entry_of(ix: &IndexScheme, pos: &Chess) -> (Color, usize) {
    let m = Material::of_board(pos.board());
    let swap = ix.material() != m;
    let pieces = retro_tables::pieces::pieces_of_board(pos.board()).expect("pieces");
    let sq = retro_tables::pieces::to_slots(pieces.as_slice(), ix.slots(), swap).expect("slots");
    let idx = ix.index(&sq).expect("index");
    let side = if swap { pos.turn().other() } else { pos.turn() };
    (side, idx as usize)
}

/// `check` of every entry of the table of index `ix` with either side to move, in parallel,
/// folded by `add` from `C::default()` (for the tests' position-by-position checks).
#[cfg(test)]
pub(crate) fn fold_entries<C: Default + Send>(
    ix: &IndexScheme,
    check: impl Fn(u64, Color) -> C + Sync + Send,
    add: impl Fn(C, C) -> C + Sync + Send,
) -> C {
    [Color::White, Color::Black]
        .into_par_iter()
        .flat_map(|side| (0..ix.size()).into_par_iter().map(move |idx| (side, idx)))
        .map(|(side, idx)| check(idx, side))
        .reduce(C::default, add)
}

/// Whether a table entry, `turn` to move, is a valid position as shakmaty accepts it: legal
/// (the side not to move is not in check), and without an impossible check (one no move could have given, such as two rooks checking
/// along one line, which tables hold as other generators do, but no game reaches). The examples
/// a build shows are taken among these.
pub fn entry_is_valid_position(slots: &[(Color, shakmaty::Role)], sq: &[u8], turn: Color) -> bool {
    entry_setup(slots, sq, turn)
        .position::<Chess>(CastlingMode::Standard)
        .is_ok()
}

/// The setup of a table entry, `turn` to move, without castling rights or en passant.
fn entry_setup(slots: &[(Color, shakmaty::Role)], sq: &[u8], turn: Color) -> Setup {
    let mut board = Board::empty();
    for (i, &(color, role)) in slots.iter().enumerate() {
        board.set_piece_at(square(sq[i]), Piece { color, role });
    }
    let mut setup = Setup::empty();
    setup.board = board;
    setup.turn = turn;
    setup.castling_rights = Bitboard::EMPTY;
    setup
}

/// The position of a table entry, `turn` to move, as a shakmaty position; `None` if it is not
/// legal.
pub fn entry_position(slots: &[(Color, shakmaty::Role)], sq: &[u8], turn: Color) -> Option<Chess> {
    match entry_setup(slots, sq, turn).position::<Chess>(CastlingMode::Standard) {
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

/// Verifies the DTM table of `material` in `dir` against its children.
pub fn verify(dir: &Path, material: Material, progress: &dyn Progress) -> VerifyReport {
    verify_with(
        dir,
        material,
        progress,
        "verify",
        &|tb, table, scheme, sq, idx, side, pos| {
            let stored = table.get(side, idx)?;
            let mut moves = DtmMoves::default();
            let mut long_win = false;
            for m in pos.legal_moves() {
                let child = match quiet_child(scheme, sq, &m) {
                    Some(ci) => table.get(side.other(), ci).map(Value::from_child),
                    None => tb.move_value_within_range(pos, &m),
                }?;
                match child {
                    Some(v) => moves.add_own(v),
                    // A win in 255 plies: slower than any storable win (see below).
                    None => long_win = true,
                }
            }
            if long_win
                && moves
                    .best()
                    .is_none_or(|b| b.wdl() != retro_tables::Wdl::Win)
            {
                // The position itself would be won in 255 plies, which no entry can hold.
                return Ok(Some((stored.to_string(), "a win in 255 plies".to_string())));
            }
            let expect = moves.value(|| pos.is_check());
            Ok((expect != stored).then(|| (stored.to_string(), expect.to_string())))
        },
    )
}

/// Verifies the DTZ50 table of `material` in `dir` (with its DTM table) against the children
/// of every position (see [`dtz_from_children`]). The file holds only the class of a loss: a
/// first pass computes every loss's distance from its moves (wins the file holds) and checks
/// its class, then every position is checked against its children with those distances.
pub fn verify_dtz(dir: &Path, material: Material, progress: &dyn Progress) -> VerifyReport {
    let mut tb = match Tablebase::open_in_memory(dir) {
        Ok(tb) => tb,
        Err(e) => return VerifyReport::failed(material, e.to_string()),
    };
    let completed = match complete_losses(&tb, material, progress) {
        Ok(c) => c,
        Err(e) => return VerifyReport::failed(material, e.to_string()),
    };
    if let Err(e) = tb.set_dtz_table(material, completed.table) {
        return VerifyReport::failed(material, e.to_string());
    }
    let mut report = verify_in(
        &tb,
        material,
        progress,
        "verify dtz",
        &|tb, _, _, _, _, _, pos| {
            let stored = tb.probe_dtz(pos)?;
            let expect = dtz_from_children(tb, pos)?;
            Ok((expect != stored).then(|| (stored.to_string(), expect.to_string())))
        },
    );
    report.mismatches += completed.mismatches;
    let mut examples = completed.examples;
    examples.append(&mut report.examples);
    examples.truncate(5);
    report.examples = examples;
    report
}

/// A DTZ50 table whose losses hold their distance, and the losses whose stored class their
/// moves contradict.
struct Completed {
    table: Table,
    mismatches: u64,
    examples: Vec<(String, String, String)>,
}

/// The DTZ50 table of `material` with every loss's exact distance, computed from its moves.
fn complete_losses(
    tb: &Tablebase,
    material: Material,
    progress: &dyn Progress,
) -> Result<Completed, ProbeError> {
    let dtm = tb.table(material)?;
    let dtz = tb.dtz_table(material)?;
    let scheme = dtz.scheme().clone();
    let size = scheme.size();
    let chunk = 1u64 << 14;
    progress.begin(&material.name(), "losses", Some(2 * size.div_ceil(chunk)));
    let mismatches = AtomicU64::new(0);
    let examples = Mutex::new(Vec::new());
    let entry = |side: Color, idx: u64| -> Result<u8, ProbeError> {
        let (m, z) = (dtm.get_byte(side, idx)?, dtz.get_byte(side, idx)?);
        if Value::from_byte(m).wdl() != retro_tables::Wdl::Loss {
            return Ok(z);
        }
        let Some(pos) = scheme
            .decode(idx)
            .and_then(|sq| entry_position(scheme.slots(), &sq, side))
        else {
            return Ok(z);
        };
        let stored = Dtz::from_tables(m, z);
        let searched = tb.dtz_as_loss(&pos)?;
        match searched {
            Some(d) if stored.map(Dtz::wdl50) == Some(d.wdl50()) => {
                d.plies().try_into().map_err(|_| ProbeError::Overflow)
            }
            _ => {
                mismatches.fetch_add(1, Relaxed);
                if let Ok(mut g) = examples.lock() {
                    if g.len() < 5 {
                        let fen = Fen::from_position(&pos, EnPassantMode::Legal);
                        let show = |d: Option<Dtz>| d.map_or("none".into(), |d| d.to_string());
                        g.push((fen.to_string(), show(stored), show(searched)));
                    }
                }
                Ok(z)
            }
        }
    };
    let side_bytes = |side: Color| -> Result<Vec<u8>, ProbeError> {
        let parts = (0..size.div_ceil(chunk))
            .into_par_iter()
            .map(|c| {
                let part = (c * chunk..((c + 1) * chunk).min(size))
                    .map(|idx| entry(side, idx))
                    .collect::<Result<Vec<u8>, ProbeError>>();
                progress.advance(1);
                part
            })
            .collect::<Result<Vec<Vec<u8>>, ProbeError>>()?;
        Ok(parts.concat())
    };
    let halves = [side_bytes(Color::White)?, side_bytes(Color::Black)?];
    progress.end();
    let path = dtz.path().to_path_buf();
    let table = Table::open_dtz(&path, Some(material))
        .and_then(|t| t.with_exact_losses(halves))
        .map_err(|e| ProbeError::BadTable(std::sync::Arc::new(e)))?;
    Ok(Completed {
        table,
        mismatches: mismatches.into_inner(),
        examples: examples.into_inner().unwrap_or_default(),
    })
}

/// The DTZ50 of `pos` recomputed from the probed values of its children, by Syzygy's rules: a
/// winner takes the least of its winning moves (a zeroing move into a loss 1, into a blessed
/// loss 101; another move one more than the child's depth), a loser the most of its moves (a
/// zeroing move into a win 1, into a cursed win 101; another one more than the child's DTZ),
/// and a position with neither kind is a draw. A child's depth is its DTZ, less one where the
/// child's best move zeroes (see the `dtz` module).
///
/// # Errors
/// Any probe that fails.
pub fn dtz_from_children(tb: &Tablebase, pos: &Chess) -> Result<Dtz, ProbeError> {
    let mut moves = Dtz50Moves::default();
    for m in &pos.legal_moves() {
        let mut after = pos.clone();
        after.play_unchecked(*m);
        if m.is_zeroing() {
            // Only the class counts (a loss's class is read, not searched).
            moves.zeroing(tb.probe_wdl50(&after)?);
            continue;
        }
        let d = tb.probe_dtz(&after)?;
        match d.0 {
            ..0 => {
                let zeroes = best_move_zeroes(tb, &after, d)?;
                moves.quiet_to_loss(d.0.unsigned_abs() - u16::from(zeroes));
            }
            0 => moves.quiet_to_draw(),
            _ => moves.quiet_to_win(d.0.unsigned_abs()),
        }
    }
    moves
        .value(|| pos.is_check())
        .map(|r| r.dtz)
        .ok_or(ProbeError::Overflow)
}

/// Whether the best move of a lost position (DTZ `d`) zeroes: mate, or a zeroing move whose
/// value (1, or 101 into a cursed win) is above every other move's.
fn best_move_zeroes(tb: &Tablebase, pos: &Chess, d: Dtz) -> Result<bool, ProbeError> {
    if d.0 != -1 && d.0 != -101 {
        return Ok(false);
    }
    let mut zeroing = 0;
    let mut other = 0;
    for m in &pos.legal_moves() {
        let mut after = pos.clone();
        after.play_unchecked(*m);
        if m.is_zeroing() {
            zeroing = zeroing.max(match tb.probe_wdl50(&after)? {
                Wdl50::Win => 1,
                Wdl50::CursedWin => 101,
                _ => 0,
            });
        } else {
            let c = tb.probe_dtz(&after)?;
            if c.0 > 0 {
                other = other.max(c.0 + 1);
            }
        }
    }
    Ok(zeroing > other || pos.is_checkmate())
}

impl VerifyReport {
    /// The report of a table that could not be checked.
    pub(crate) fn failed(material: Material, why: String) -> VerifyReport {
        VerifyReport {
            material,
            checked: 0,
            mismatches: 0,
            examples: Vec::new(),
            error: Some(why),
        }
    }
}

/// The signature of a check: the stored and the recomputed value of a position when they
/// differ.
type Check<'a> = dyn Fn(
        &Tablebase,
        &Table,
        &IndexScheme,
        &Squares,
        u64,
        Color,
        &Chess,
    ) -> Result<Option<(String, String)>, ProbeError>
    + Sync
    + 'a;

/// Checks every legal position of a table with `check`, which returns the stored and the
/// recomputed value when they differ.
fn verify_with(
    dir: &Path,
    material: Material,
    progress: &dyn Progress,
    what: &str,
    check: &Check<'_>,
) -> VerifyReport {
    match Tablebase::open_in_memory(dir) {
        Ok(tb) => verify_in(&tb, material, progress, what, check),
        Err(e) => VerifyReport::failed(material, e.to_string()),
    }
}

/// [`verify_with`] on the open tables `tb`.
fn verify_in(
    tb: &Tablebase,
    material: Material,
    progress: &dyn Progress,
    what: &str,
    check: &Check<'_>,
) -> VerifyReport {
    let table = match tb.table(material) {
        Ok(t) => t,
        Err(e) => return VerifyReport::failed(material, e.to_string()),
    };
    let scheme = table.scheme().clone();
    let size = scheme.size();
    let chunk = 1u64 << 14;
    let chunks = size.div_ceil(chunk);
    progress.begin(&material.name(), what, Some(2 * chunks));
    let checked = AtomicU64::new(0);
    let mismatches = AtomicU64::new(0);
    let examples = Mutex::new(Vec::new());
    let error = Mutex::new(None::<String>);
    (0..2 * chunks).into_par_iter().for_each(|c| {
        let side = if c < chunks {
            Color::White
        } else {
            Color::Black
        };
        let start = (c % chunks) * chunk;
        let end = (start + chunk).min(size);
        let (mut n, mut bad) = (0u64, 0u64);
        for idx in start..end {
            let Some(sq) = scheme.decode(idx) else {
                continue;
            };
            let Some(pos) = entry_position(scheme.slots(), &sq, side) else {
                continue;
            };
            n += 1;
            match check(tb, table, &scheme, &sq, idx, side, &pos) {
                Ok(None) => {}
                Ok(Some((stored, expect))) => {
                    bad += 1;
                    if let Ok(mut g) = examples.lock() {
                        if g.len() < 5 {
                            let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
                            g.push((fen, stored, expect));
                        }
                    }
                }
                Err(e) => {
                    if let Ok(mut g) = error.lock() {
                        g.get_or_insert_with(|| e.to_string());
                    }
                }
            }
        }
        checked.fetch_add(n, Relaxed);
        mismatches.fetch_add(bad, Relaxed);
        progress.advance(1);
    });
    progress.end();
    VerifyReport {
        material,
        checked: checked.load(Relaxed),
        mismatches: mismatches.load(Relaxed),
        examples: examples.into_inner().unwrap_or_default(),
        error: error.into_inner().unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Role;

    /// White's king on d1 with Black's king on g1 and rooks on c1 and e1 is a legal setup in
    /// check twice along one rank (a check no move gives): a table entry, but no example.
    #[test]
    fn an_impossible_check_is_a_position_but_no_example() {
        let slots = [
            (Color::White, Role::King),
            (Color::Black, Role::King),
            (Color::Black, Role::Rook),
            (Color::Black, Role::Rook),
        ];
        let double_on_a_line = [3, 6, 2, 4];
        assert!(entry_position(&slots, &double_on_a_line, Color::White).is_some());
        assert!(!entry_is_valid_position(
            &slots,
            &double_on_a_line,
            Color::White
        ));
        let one_check = [3, 6, 2, 60];
        assert!(entry_is_valid_position(&slots, &one_check, Color::White));
        // Black to move with White's king in check is no position at all.
        assert!(entry_position(&slots, &one_check, Color::Black).is_none());
        assert!(!entry_is_valid_position(&slots, &one_check, Color::Black));
    }
}
