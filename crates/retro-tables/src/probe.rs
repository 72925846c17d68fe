//! Probing: a directory of tables opened lazily, the lookup of any piece list (colour-swapped
//! material answered from the canonical table), and the probe of shakmaty positions (en passant
//! and move ranking included).

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{Arc, OnceLock},
};

use shakmaty::{Board, Chess, Color, Move, Position, Role};

use super::{
    dtz::{Dtz, Wdl50},
    error::FormatError,
    error::{ProbeError, TableError},
    format::{file_name, Metric, Table, EXTENSION},
    index::Squares,
    material::{key_of_piece, Material, MAX_PIECES},
    pieces::{to_slots, Piece},
    value::Value,
};

/// A source of tables.
pub trait Tables {
    /// The table of a material given by its key ([`Material::key`]) in either orientation, and
    /// whether the key is the colour-swapped orientation of the table's material.
    ///
    /// # Errors
    /// [`ProbeError::MissingTable`] or [`ProbeError::BadTable`].
    fn table_by_key(&self, key: u64) -> Result<(&Table, bool), ProbeError>;

    /// The table of a canonical material.
    ///
    /// # Errors
    /// [`ProbeError::MissingTable`] or [`ProbeError::BadTable`].
    fn table(&self, material: Material) -> Result<&Table, ProbeError> {
        self.table_by_key(material.canonical().key())
            .map(|(t, _)| t)
    }
}

/// The value of the position made of `pieces` with `side` to move, for the side to move. Bare
/// kings are a draw without a table.
///
/// # Errors
/// When the material has no usable table or the pieces cannot be indexed.
#[inline]
pub fn lookup<T: Tables + ?Sized>(
    tables: &T,
    pieces: &[Piece],
    side: Color,
) -> Result<Value, ProbeError> {
    if pieces.len() > MAX_PIECES {
        return Err(ProbeError::TooManyPieces(pieces.len()));
    }
    let mut key = 0;
    let mut kings = 0;
    for &(color, role, _) in pieces {
        if role == Role::King {
            kings += if color == Color::White { 1 } else { 16 };
        }
        key += key_of_piece(color, role);
    }
    if kings != 17 {
        return Err(ProbeError::NotIndexable("kings".to_string()));
    }
    if key == 0 {
        return Ok(Value::DRAW);
    }
    let (table, swap) = tables.table_by_key(key)?;
    let sq = to_slots(pieces, table.scheme().slots(), swap)
        .ok_or_else(|| ProbeError::NotIndexable(table.material().name()))?;
    probe_in(table, &sq, oriented(side, swap))
}

/// The value of the position `sq`, in `table`'s slot order and orientation, with the table's
/// `side` (in the table's orientation) to move.
///
/// # Errors
/// When the squares cannot be indexed or the table cannot be read.
#[inline]
pub fn probe_in(table: &Table, sq: &Squares, side: Color) -> Result<Value, ProbeError> {
    let idx = table
        .scheme()
        .index(sq)
        .ok_or_else(|| ProbeError::NotIndexable(table.material().name()))?;
    table.get(side, idx)
}

/// `side` in the orientation of a table whose colours are exchanged (`swap`) or not.
#[inline]
fn oriented(side: Color, swap: bool) -> Color {
    if swap {
        side.other()
    } else {
        side
    }
}

/// Hashes a material key (already unique and well spread in its low bits) by one multiply.
#[derive(Default, Clone, Copy)]
struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = (k ^ (k >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type KeyMap<V> = HashMap<u64, V, std::hash::BuildHasherDefault<KeyHasher>>;

/// A table, opened on its first probe (or the reason it was refused).
type Opened = OnceLock<Result<Table, Arc<TableError>>>;

struct Slot {
    material: Material,
    /// The DTM file's path; the other metrics' files are beside it.
    path: PathBuf,
    /// The tables of each metric ([`Metric::index`]).
    tables: [Opened; Metric::COUNT],
}

/// A directory of tables, each opened (and checked) on its first probe.
pub struct Tablebase {
    dir: PathBuf,
    slots: Vec<Slot>,
    /// Material key (either orientation) to slot and whether it is the swapped orientation.
    keys: KeyMap<(usize, bool)>,
    /// Whether tables are opened with all their values in memory.
    in_memory: bool,
}

impl Tables for Tablebase {
    fn table_by_key(&self, key: u64) -> Result<(&Table, bool), ProbeError> {
        let (i, swap) = self.slot_of(key)?;
        self.slot_table(i).map(|t| (t, swap))
    }
}

/// Where a probed position's entry is.
#[derive(Clone, Copy)]
struct Entry {
    slot: usize,
    /// The side to move in the table's orientation.
    side: Color,
    idx: u64,
}

impl Tablebase {
    /// Registers the table files of a directory (`*.rdtm` named after canonical materials);
    /// files are opened and validated on first use. A directory that does not exist holds no
    /// tables.
    ///
    /// # Errors
    /// When the directory exists but cannot be read.
    ///
    /// # Safety of the map
    /// Each table file is memory-mapped when it is opened (on its first probe, or by
    /// [`Tablebase::preload`]) and stays mapped while the tablebase lives, under the contract
    /// that [`Table::open`] describes (*Safety of the map*): from then on no process may
    /// truncate a table file of the directory or write into it. Replacing one by a rename, as
    /// this crate's writer does ([`crate::write_atomic`]), is safe: a table already open goes
    /// on reading the old file. A read past the end of a file made shorter raises `SIGBUS` and
    /// ends the process; a file written in place gives wrong values from a raw table and, from
    /// a compressed one, [`ProbeError::BadTable`] when a changed block is next decompressed
    /// (but for a change that passes the block's checksum). [`Tablebase::open_in_memory`]
    /// keeps compressed tables in memory instead.
    pub fn open(dir: &Path) -> Result<Tablebase, TableError> {
        let mut slots = Vec::new();
        let mut keys = KeyMap::default();
        if dir.is_dir() {
            let rd = std::fs::read_dir(dir).map_err(|source| TableError::Io {
                path: dir.to_path_buf(),
                source,
            })?;
            for entry in rd.flatten() {
                let path = entry.path();
                if path.extension().and_then(|e| e.to_str()) != Some(EXTENSION) {
                    continue;
                }
                let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
                    continue;
                };
                if let Ok(m) = stem.parse::<Material>() {
                    if m.is_canonical() && path.file_name() == Some(file_name(m).as_ref()) {
                        keys.insert(m.swapped().key(), (slots.len(), true));
                        keys.insert(m.key(), (slots.len(), false));
                        slots.push(Slot {
                            material: m,
                            path,
                            tables: Default::default(),
                        });
                    }
                }
            }
        }
        Ok(Tablebase {
            dir: dir.to_path_buf(),
            slots,
            keys,
            in_memory: false,
        })
    }

    /// As [`Tablebase::open`], but each table is read whole into memory (compressed blocks
    /// decompressed and checked) on its first use: for passes over whole tables, such as
    /// `build-tables --verify`, which would otherwise decompress blocks again and again.
    ///
    /// # Errors
    /// As [`Tablebase::open`].
    ///
    /// # Safety of the map
    /// A compressed table of one byte plane is read into memory when it is opened, and its
    /// file is no longer mapped after that; raw tables and tables with extension bytes stay
    /// mapped under the contract of [`Tablebase::open`].
    pub fn open_in_memory(dir: &Path) -> Result<Tablebase, TableError> {
        let mut tb = Tablebase::open(dir)?;
        tb.in_memory = true;
        Ok(tb)
    }

    /// Opens and validates every table now rather than on its first probe, so that a search
    /// under a tight clock does not pay for it. Returns the tables that were refused, with why.
    pub fn preload(&self) -> Vec<(Material, String)> {
        let mut refused = Vec::new();
        for slot in &self.slots {
            if let Err(e) = self.table(slot.material) {
                refused.push((slot.material, e.to_string()));
            }
        }
        refused
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The materials whose files are present (not yet validated), sorted by name.
    pub fn materials(&self) -> Vec<Material> {
        let mut v: Vec<Material> = self.slots.iter().map(|s| s.material).collect();
        v.sort_by_key(|m| (m.piece_count(), m.name()));
        v
    }

    /// The most pieces of any table present (0 when there is none).
    pub fn max_pieces(&self) -> usize {
        self.slots
            .iter()
            .map(|s| s.material.piece_count())
            .max()
            .unwrap_or(0)
    }

    /// The value of a position for the side to move, en passant included.
    ///
    /// # Errors
    /// Castling rights, too many pieces, or no usable table for the material (or for a position
    /// one move away, when an en passant capture is possible).
    pub fn probe(&self, pos: &Chess) -> Result<Value, ProbeError> {
        if pos.castles().any() {
            return Err(ProbeError::Castling);
        }
        if pos.legal_ep_square().is_some() {
            // The table holds the position without the en passant right: search one ply.
            let mut best: Option<Value> = None;
            let mut long_win = false;
            for m in pos.legal_moves() {
                match self.move_value_within_range(pos, &m)? {
                    Some(v) => best = Some(best.map_or(v, |b| b.max(v))),
                    None => long_win = true,
                }
            }
            return best_with_long_wins(best, long_win);
        }
        self.probe_board(pos.board(), pos.turn())
    }

    /// The table value of a placement without en passant right.
    fn probe_board(&self, board: &Board, side: Color) -> Result<Value, ProbeError> {
        match self.locate(board, side)? {
            None => Ok(Value::DRAW),
            Some(at) => self.slot_table(at.slot)?.get(at.side, at.idx),
        }
    }

    /// Where the entry of a placement without en passant right is (at most [`MAX_PIECES`]
    /// pieces, one king each); `None` for bare kings. The squares are read straight from the
    /// role bitboards into the table's slot order, in the table's orientation.
    fn locate(&self, board: &Board, side: Color) -> Result<Option<Entry>, ProbeError> {
        const ROLES: [Role; 5] = [
            Role::Queen,
            Role::Rook,
            Role::Bishop,
            Role::Knight,
            Role::Pawn,
        ];
        // One pass in white's slot order: kings, white pieces, black pieces.
        let mut sq = [0u8; MAX_PIECES];
        let mut n = 2;
        let mut white_pieces = 0;
        let mut key = 0;
        for (c, color) in Color::ALL.into_iter().enumerate() {
            let k = board
                .king_of(color)
                .ok_or_else(|| ProbeError::NotIndexable("kings".to_string()))?;
            sq[c] = k as u8;
            let mine = board.by_color(color);
            for role in ROLES {
                let add = key_of_piece(color, role);
                for s in mine & board.by_role(role) {
                    if n == MAX_PIECES {
                        return Err(ProbeError::TooManyPieces(board.occupied().count()));
                    }
                    sq[n] = s as u8;
                    n += 1;
                    key += add;
                }
            }
            if color == Color::White {
                white_pieces = n - 2;
            }
        }
        if key == 0 {
            return Ok(None);
        }
        let (slot, swap) = self.slot_of(key)?;
        let table = self.slot_table(slot)?;
        if swap {
            // Black becomes white: black king, white king, black pieces, white pieces, with
            // the ranks mirrored.
            let mut t = [0u8; MAX_PIECES];
            t[0] = sq[1] ^ 56;
            t[1] = sq[0] ^ 56;
            let black_pieces = n - 2 - white_pieces;
            for i in 0..black_pieces {
                t[2 + i] = sq[2 + white_pieces + i] ^ 56;
            }
            for i in 0..white_pieces {
                t[2 + black_pieces + i] = sq[2 + i] ^ 56;
            }
            sq = t;
        }
        let idx = table
            .scheme()
            .index(&sq)
            .ok_or_else(|| ProbeError::NotIndexable(table.material().name()))?;
        Ok(Some(Entry {
            slot,
            side: oriented(side, swap),
            idx,
        }))
    }

    /// The slot of a material key (either orientation) and whether the key is the swapped one.
    fn slot_of(&self, key: u64) -> Result<(usize, bool), ProbeError> {
        self.keys
            .get(&key)
            .copied()
            .ok_or_else(|| ProbeError::MissingTable(Material::from_key(key).canonical().name()))
    }

    /// The DTM table of a slot, opened (and checked) on first use.
    fn slot_table(&self, i: usize) -> Result<&Table, ProbeError> {
        self.slot_metric(i, Metric::Dtm)
    }

    /// The DTZ50 table of a slot, the file beside its DTM table, opened on first use.
    fn slot_dtz(&self, i: usize) -> Result<&Table, ProbeError> {
        self.slot_metric(i, Metric::Dtz)
    }

    /// The table of `metric` of a slot, opened (and checked) on first use.
    fn slot_metric(&self, i: usize, metric: Metric) -> Result<&Table, ProbeError> {
        let slot = &self.slots[i];
        slot.tables[metric.index()]
            .get_or_init(|| {
                let path = slot.path.with_extension(metric.extension());
                let table = Table::open_metric(&path, Some(slot.material), metric);
                if self.in_memory {
                    table.and_then(|t| t.into_memory([true, true]))
                } else {
                    table
                }
                .map_err(Arc::new)
            })
            .as_ref()
            .map_err(|e| ProbeError::BadTable(Arc::clone(e)))
    }

    /// The distance to zeroing under the 50-move rule of a position, for the side to move, en
    /// passant included; its class ([`Dtz::wdl50`]) is the result under the rule with the clock
    /// at 0. A win is read from the table; a loss, whose class only the table holds, is one
    /// ply of search over its moves, which all lead to wins the table holds.
    ///
    /// # Errors
    /// As [`Tablebase::probe`], a missing or refused DTZ50 table, and a pair of DTM and DTZ50
    /// tables that contradict each other.
    pub fn probe_dtz(&self, pos: &Chess) -> Result<Dtz, ProbeError> {
        self.dtz_of(pos, Some(0))
    }

    /// The class under the 50-move rule of a position with the clock at 0, for the side to
    /// move, en passant included: [`Tablebase::probe_dtz`] without the search of a loss's
    /// distance.
    ///
    /// # Errors
    /// As [`Tablebase::probe_dtz`].
    pub fn probe_wdl50(&self, pos: &Chess) -> Result<Wdl50, ProbeError> {
        self.dtz_of(pos, None).map(Dtz::wdl50)
    }

    /// [`Tablebase::probe_dtz`] with the losses searched (`exact`, the number of searches this
    /// one is nested in) or only classified (`None`).
    fn dtz_of(&self, pos: &Chess, exact: Option<u8>) -> Result<Dtz, ProbeError> {
        if pos.castles().any() {
            return Err(ProbeError::Castling);
        }
        let base = self.probe_dtz_board(pos, exact)?;
        if pos.legal_ep_square().is_none() {
            return Ok(base);
        }
        // The table holds the position without the en passant right, whose moves are the same
        // but for the en passant captures: they zero, so only their class counts.
        let mut best_ep: Option<Wdl50> = None;
        for m in pos.legal_moves().iter().filter(|m| m.is_en_passant()) {
            let mut after = pos.clone();
            after.play_unchecked(*m);
            let c = self.dtz_of(&after, None)?.wdl50().flip();
            best_ep = Some(best_ep.map_or(c, |b| b.max(c)));
        }
        Ok(match best_ep {
            Some(c) if c > base.wdl50() || (c == base.wdl50() && c > Wdl50::Draw) => {
                // A zeroing move at least as good: for a winner it is the shortest way.
                let z = Dtz::before_zeroing(c.flip());
                if c == base.wdl50() {
                    base.min(z)
                } else {
                    z
                }
            }
            _ => base,
        })
    }

    /// The DTZ of `pos`'s placement without en passant right: as stored, and for a loss (when
    /// `exact`) from the moves of that placement.
    fn probe_dtz_board(&self, pos: &Chess, exact: Option<u8>) -> Result<Dtz, ProbeError> {
        let Some(at) = self.locate(pos.board(), pos.turn())? else {
            return Ok(Dtz::DRAW);
        };
        let dtm = self.slot_table(at.slot)?.get_byte(at.side, at.idx)?;
        let dtz_table = self.slot_dtz(at.slot)?;
        let z = dtz_table.get_stored(at.side, at.idx)?;
        let stored = Dtz::from_stored(dtm, z)
            .ok_or_else(|| contradiction(dtz_table, FormatError::NoDistance(at.idx)))?;
        match exact {
            Some(nested) if stored.0 < 0 && !dtz_table.exact_losses() => {
                let searched = self.loss_dtz(pos, nested, dtz_table)?;
                if searched.wdl50() == stored.wdl50() {
                    Ok(searched)
                } else {
                    Err(contradiction(
                        dtz_table,
                        FormatError::LossClass {
                            entry: at.idx,
                            stored: stored.wdl50(),
                            searched: searched.wdl50(),
                        },
                    ))
                }
            }
            _ => Ok(stored),
        }
    }

    /// The DTZ of a lost placement (`pos` without its en passant captures) from its moves
    /// ([`Dtz::loss_from_moves`]). Only a move into a position with an en passant right can
    /// nest a search, and only a few deep (each takes a double pawn push).
    fn loss_dtz(&self, pos: &Chess, nested: u8, table: &Table) -> Result<Dtz, ProbeError> {
        const MAX_NESTED: u8 = 16;
        if nested >= MAX_NESTED {
            return Err(contradiction(table, FormatError::EndlessLossSearch));
        }
        self.loss_from_moves(pos, nested + 1)?.ok_or_else(|| {
            contradiction(
                table,
                FormatError::LossWithEscape {
                    fen: shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
                        .to_string(),
                },
            )
        })
    }

    /// The DTZ50 of `pos` (without its en passant captures) as a lost position, from the values
    /// of its moves ([`Dtz::loss_from_moves`]), whatever its own entry holds; `None` when a move
    /// does not lead to a win for the opponent (then `pos` is no loss).
    ///
    /// # Errors
    /// Any probe of a position after a move that fails.
    pub fn dtz_as_loss(&self, pos: &Chess) -> Result<Option<Dtz>, ProbeError> {
        self.loss_from_moves(pos, 1)
    }

    fn loss_from_moves(&self, pos: &Chess, nested: u8) -> Result<Option<Dtz>, ProbeError> {
        let mut values = Vec::new();
        for m in pos.legal_moves().iter().filter(|m| !m.is_en_passant()) {
            let mut after = pos.clone();
            after.play_unchecked(*m);
            let zeroing = m.is_zeroing();
            // After a zeroing move only the class counts.
            let d = self.dtz_of(&after, (!zeroing).then_some(nested))?;
            values.push((zeroing, d));
        }
        Ok(Dtz::loss_from_moves(values))
    }

    /// The DTZ50 table of `material`, opened (and checked) on first use.
    ///
    /// # Errors
    /// A missing or refused DTM or DTZ50 table.
    pub fn dtz_table(&self, material: Material) -> Result<&Table, ProbeError> {
        let (i, _) = self.slot_of(material.canonical().key())?;
        self.slot_table(i)?;
        self.slot_dtz(i)
    }

    /// Replaces the DTZ50 table of `material` (for one whose losses hold their exact distance,
    /// [`Table::with_exact_losses`]); later probes read it.
    ///
    /// # Errors
    /// When the directory has no table of `material`.
    pub fn set_dtz_table(&mut self, material: Material, table: Table) -> Result<(), ProbeError> {
        let (i, _) = self.slot_of(material.canonical().key())?;
        self.slots[i].tables[Metric::Dtz.index()] = OnceLock::from(Ok(table));
        Ok(())
    }

    /// The class under the 50-move rule of the position after `m`, for the side that plays
    /// it, with its DTZ (for the side to move after it).
    ///
    /// # Errors
    /// As [`Tablebase::probe_dtz`] for the position after the move.
    pub fn move_dtz(&self, pos: &Chess, m: &Move) -> Result<Dtz, ProbeError> {
        let mut child = pos.clone();
        child.play_unchecked(*m);
        self.probe_dtz(&child)
    }

    /// The value of playing `m` in `pos`, for the side that plays it.
    ///
    /// # Errors
    /// As [`Tablebase::probe`] for the position after the move.
    pub fn move_value(&self, pos: &Chess, m: &Move) -> Result<Value, ProbeError> {
        self.move_value_within_range(pos, m)?
            .ok_or(ProbeError::Overflow)
    }

    /// As [`Tablebase::move_value`], with `None` for a move into a loss in 254 plies: a win in
    /// 255, longer than a value can hold. Such a move is never best where it occurs (KPPvKP),
    /// since a position won in 255 plies cannot be stored and the build would have failed.
    ///
    /// # Errors
    /// As [`Tablebase::probe`] for the position after the move.
    pub fn move_value_within_range(
        &self,
        pos: &Chess,
        m: &Move,
    ) -> Result<Option<Value>, ProbeError> {
        let mut child = pos.clone();
        child.play_unchecked(*m);
        Ok(Value::from_child(self.probe(&child)?))
    }

    /// The legal moves of a position with their values for the side to move, best first (fastest
    /// mate, then slowest loss); ties keep move generation order.
    ///
    /// # Errors
    /// As [`Tablebase::probe`], for any position after a legal move.
    pub fn rank_moves(&self, pos: &Chess) -> Result<Vec<(Move, Value)>, ProbeError> {
        if pos.castles().any() {
            return Err(ProbeError::Castling);
        }
        let mut v = Vec::new();
        let mut long_win = false;
        for m in pos.legal_moves() {
            match self.move_value_within_range(pos, &m)? {
                Some(val) => v.push((m, val)),
                // Left out: a slower win than the best, which is then a win too (checked below).
                None => long_win = true,
            }
        }
        v.sort_by_key(|e| std::cmp::Reverse(e.1));
        best_with_long_wins(v.first().map(|e| e.1), long_win)?;
        Ok(v)
    }
}

/// The error of a DTZ50 table that contradicts its DTM table or itself.
fn contradiction(table: &Table, why: FormatError) -> ProbeError {
    ProbeError::BadTable(Arc::new(TableError::Format {
        path: table.path().to_path_buf(),
        why,
    }))
}

/// The best of a position's move values when some moves (`long_win`) win in more than 253
/// plies: those are slower than any other win, so the best stands if it is a win; otherwise
/// the position would be won in more plies than a value holds.
///
/// # Errors
/// [`ProbeError::Overflow`] in that case, or when there is no move at all.
pub fn best_with_long_wins(best: Option<Value>, long_win: bool) -> Result<Value, ProbeError> {
    match best {
        Some(b) if !long_win || b.wdl() == crate::Wdl::Win => Ok(b),
        _ => Err(ProbeError::Overflow),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_directory_has_no_tables() {
        let tb = Tablebase::open(Path::new("/nonexistent/retro/tables")).expect("no error");
        assert_eq!(tb.max_pieces(), 0);
        let pos: Chess = "k7/8/8/8/8/8/8/KQ6 w - - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .ok()
            .and_then(|f| f.into_position(shakmaty::CastlingMode::Standard).ok())
            .expect("legal");
        assert_eq!(tb.probe(&pos), Err(ProbeError::MissingTable("KQvK".into())));
        let start = Chess::default();
        assert_eq!(tb.probe(&start), Err(ProbeError::Castling));
    }
}
