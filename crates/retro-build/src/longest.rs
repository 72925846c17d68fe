//! The longest mate and the longest DTZ50 win of built tables, each with a position that has
//! it, by one pass over each table's blocks.
//!
//! The positions are taken among those without an impossible check (see
//! [`entry_is_valid_position`]): a table holds such positions, as other generators' tables do,
//! but no game reaches them, so they make poor examples, and the longest mate of a table can be
//! one (KQRvKRR's 113 plies start with White's king checked by two rooks on one rank). The
//! table's own longest, over all its entries, is its header's and is given beside.
//!
//! Of the positions of equal length, the example is the first with White to move, else Black,
//! in index order: the same on every run.

use crate::verify::entry_is_valid_position;
use rayon::prelude::*;
use retro_tables::{
    format::{Metric, Table},
    Dtz, Material, ProbeError, TableError, Value, Wdl,
};
use shakmaty::Color;
use std::{
    path::Path,
    sync::atomic::{AtomicU32, Ordering::Relaxed},
};

/// Entries per pass of a table stored raw (3 and 4 pieces), which has no blocks.
const RAW_CHUNK: u64 = 1 << 16;

/// A longest value of a table and a position that has it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deepest {
    /// Its length, in plies.
    pub plies: u32,
    /// Whether the side to move wins (else it loses).
    pub win: bool,
    /// The position, as a FEN.
    pub fen: String,
}

/// What [`longest`] finds in the tables of one material.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Longest {
    /// The material.
    pub material: Material,
    /// The longest mate, won or lost, of a position without an impossible check; `None` when
    /// every position is drawn.
    pub mate: Option<Deepest>,
    /// The DTM table's longest mate over all its entries (its header's).
    pub mate_of_any_entry: u32,
    /// The longest DTZ50 of a win (a cursed win's too) of a position without an impossible
    /// check; `None` when there is no DTZ50 table or no win.
    pub dtz_win: Option<Deepest>,
    /// The DTZ50 table's longest win over all its entries (its header's), when it is present.
    pub dtz_win_of_any_entry: Option<u32>,
}

/// Why the tables could not be read through.
#[derive(Debug, thiserror::Error)]
pub enum LongestError {
    /// A table that cannot be opened, or a block that fails its check.
    #[error(transparent)]
    Table(#[from] TableError),
    /// An entry that cannot be read.
    #[error(transparent)]
    Probe(#[from] ProbeError),
}

/// A candidate found in a pass: its length, whether it is a win, the side to move and the entry.
type Found = (u32, bool, Color, u64);

/// The longest mate and DTZ50 win of `material`'s tables in `dir` (the DTZ50 table only when it
/// is present), each with a position (see the module docs).
///
/// # Errors
/// A table that cannot be opened or a block that fails its check.
pub fn longest(dir: &Path, material: Material) -> Result<Longest, LongestError> {
    let dtm = Table::open(&dir.join(Metric::Dtm.file_name(material)), Some(material))?;
    let scheme = dtm.scheme();
    let possible = |side: Color, idx: u64| {
        scheme
            .decode(idx)
            .is_some_and(|sq| entry_is_valid_position(scheme.slots(), &sq, side))
    };
    let mate = deepest(
        &dtm,
        |first, ext| {
            let v = Value::from_planes(first, ext);
            match v.wdl() {
                Wdl::Draw => None,
                w => Some((v.plies(), w == Wdl::Win)),
            }
        },
        |side, idx| Ok(possible(side, idx)),
    )?;
    let stats = dtm.stats();
    let dtz_path = dir.join(Metric::Dtz.file_name(material));
    let (dtz_win, dtz_win_of_any_entry) = if dtz_path.exists() {
        let dtz = Table::open_dtz(&dtz_path, Some(material))?;
        // A stored number is a win's DTZ50 or a loss's class: the DTM table tells which.
        let found = deepest(
            &dtz,
            |first, ext| {
                let stored = Dtz::stored_from_planes(first, ext);
                (stored > 0).then_some((u32::from(stored), true))
            },
            |side, idx| {
                let won = dtm.get(side, idx)?.wdl() == Wdl::Win;
                Ok(won && possible(side, idx))
            },
        )?;
        (found, Some(dtz.stats().longest_win))
    } else {
        (None, None)
    };
    let example = |found: Option<Found>| {
        found.and_then(|(plies, win, side, idx)| {
            let sq = scheme.decode(idx)?;
            let p = crate::verify::entry_position(scheme.slots(), &sq, side)?;
            let fen = shakmaty::fen::Fen::from_position(&p, shakmaty::EnPassantMode::Legal);
            Some(Deepest {
                plies,
                win,
                fen: fen.to_string(),
            })
        })
    };
    Ok(Longest {
        material,
        mate: example(mate),
        mate_of_any_entry: stats.longest_win.max(stats.longest_loss),
        dtz_win: example(dtz_win),
        dtz_win_of_any_entry,
    })
}

/// The entry of `table` with the largest `measure` (of its first and extension bytes) that
/// `accept` takes, first by side (White before Black) and index among equals. `accept` is asked
/// only of entries at least as long as the longest accepted so far.
fn deepest(
    table: &Table,
    measure: impl Fn(u8, u8) -> Option<(u32, bool)> + Sync,
    accept: impl Fn(Color, u64) -> Result<bool, LongestError> + Sync,
) -> Result<Option<Found>, LongestError> {
    let size = table.scheme().size();
    let (blocks, block_len) = match table.blocks() {
        Some((b, len)) => (b, u64::from(len)),
        None => (size.div_ceil(RAW_CHUNK), RAW_CHUNK),
    };
    let best = AtomicU32::new(0);
    let mut found: Option<Found> = None;
    for side in [Color::White, Color::Black] {
        let side_best = (0..blocks)
            .into_par_iter()
            .map_init(
                || (Vec::new(), Vec::new()),
                |(first, ext), b| -> Result<Option<Found>, LongestError> {
                    bytes(table, side, b, block_len, first, ext)?;
                    let mut local: Option<Found> = None;
                    for (k, &f) in first.iter().enumerate() {
                        let Some((plies, win)) = measure(f, ext.get(k).copied().unwrap_or(0))
                        else {
                            continue;
                        };
                        if plies < best.load(Relaxed) {
                            continue;
                        }
                        let idx = table.index_at(side, b * block_len + k as u64);
                        if idx >= size || !accept(side, idx)? {
                            continue;
                        }
                        best.fetch_max(plies, Relaxed);
                        let cand = (plies, win, side, idx);
                        local = Some(local.map_or(cand, |l| better(l, cand)));
                    }
                    Ok(local)
                },
            )
            .try_reduce(
                || None,
                |a, b| {
                    Ok(match (a, b) {
                        (Some(a), Some(b)) => Some(better(a, b)),
                        (a, b) => a.or(b),
                    })
                },
            )?;
        if let Some(s) = side_best {
            found = Some(found.map_or(s, |f| better(f, s)));
        }
    }
    Ok(found)
}

/// The longer of two candidates; of equal ones the first by side, then by index.
fn better(a: Found, b: Found) -> Found {
    let key = |f: &Found| (std::cmp::Reverse(f.0), f.2 == Color::Black, f.3);
    if key(&b) < key(&a) {
        b
    } else {
        a
    }
}

/// The first bytes (into `first`) and extension bytes (into `ext`, none for a table of one
/// plane) of block `b` of `side` to move: a compressed block, or `block_len` entries of a raw
/// table from `b * block_len` on.
fn bytes(
    table: &Table,
    side: Color,
    b: u64,
    block_len: u64,
    first: &mut Vec<u8>,
    ext: &mut Vec<u8>,
) -> Result<(), LongestError> {
    ext.clear();
    if table.blocks().is_some() {
        table.read_block(side, 0, b, first)?;
        if table.planes() > 1 {
            table.read_block(side, 1, b, ext)?;
        }
        return Ok(());
    }
    first.clear();
    let end = ((b + 1) * block_len).min(table.scheme().size());
    for idx in b * block_len..end {
        first.push(table.get_byte(side, idx)?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pass over blocks (DTZ50, compressed) and over raw bytes (DTM, 4 pieces) finds what
    /// probing every entry one at a time finds: the same length, outcome and position. KRRvK
    /// has decided entries with an impossible check (Black's king between two rooks on a line).
    #[test]
    fn the_pass_finds_what_probing_every_entry_finds() {
        let dir = crate::tables_for_test(&["KQvKR", "KRRvK"]);
        assert_eq!(agrees(dir.path(), "KQvKR"), 0);
        assert!(agrees(dir.path(), "KRRvK") > 0);
        let m: Material = "KRRvK".parse().expect("material");
        let raw = Table::open(&dir.path().join(Metric::Dtm.file_name(m)), Some(m)).expect("dtm");
        assert!(raw.blocks().is_none(), "4-piece DTM tables are raw");
        // Built by the compact solve, whose DTM table is in compressed blocks (as 6-piece
        // tables are): the same again, and the build's examples are among the same positions.
        let compact = tempfile::tempdir().expect("dir");
        let opts = crate::BuildOptions {
            compact: true,
            ..crate::BuildOptions::quiet(compact.path().to_path_buf())
        };
        let built = crate::build(&[m], &opts, |_| {}).expect("compact build");
        let path = compact.path().join(Metric::Dtm.file_name(m));
        assert!(Table::open(&path, Some(m)).expect("dtm").blocks().is_some());
        assert!(agrees(compact.path(), "KRRvK") > 0);
        let raw = longest(dir.path(), m).expect("longest");
        let got = longest(compact.path(), m).expect("longest");
        assert_eq!(got, raw);
        let summary = built.iter().find(|s| s.material == m).expect("KRRvK built");
        let mate = got.mate.expect("a mate");
        let (what, fen) = &summary.examples[0];
        assert!(
            what.starts_with("longest mate (loss in 32 plies)"),
            "{what}"
        );
        assert_eq!(mate.plies, 32);
        // The example is a valid position (`into_position` refuses an impossible check).
        let example: Result<shakmaty::Chess, _> = fen
            .parse::<shakmaty::fen::Fen>()
            .expect("fen")
            .into_position(shakmaty::CastlingMode::Standard);
        assert!(example.is_ok(), "{fen}");
    }

    /// Checks [`longest`] for `name` against probing every entry; the decided entries refused.
    fn agrees(dir: &Path, name: &str) -> u64 {
        let m: Material = name.parse().expect("material");
        let got = longest(dir, m).expect("longest");
        let dtm = Table::open(&dir.join(Metric::Dtm.file_name(m)), Some(m)).expect("dtm");
        let dtz = Table::open_dtz(&dir.join(Metric::Dtz.file_name(m)), Some(m)).expect("dtz");
        assert!(dtz.blocks().is_some());
        let scheme = dtm.scheme();
        let (mut mate, mut win): (Option<Found>, Option<Found>) = (None, None);
        let mut refused = 0u64;
        for side in [Color::White, Color::Black] {
            for idx in 0..scheme.size() {
                let v = dtm.get(side, idx).expect("probe");
                if v.wdl() == Wdl::Draw {
                    continue;
                }
                let Some(sq) = scheme.decode(idx) else {
                    continue;
                };
                if !entry_is_valid_position(scheme.slots(), &sq, side) {
                    refused += 1;
                    continue;
                }
                let cand = (v.plies(), v.wdl() == Wdl::Win, side, idx);
                mate = Some(mate.map_or(cand, |b| better(b, cand)));
                if v.wdl() == Wdl::Win {
                    let stored = u32::from(dtz.get_stored(side, idx).expect("dtz"));
                    let cand = (stored, true, side, idx);
                    win = Some(win.map_or(cand, |b| better(b, cand)));
                }
            }
        }
        let fen = |f: Found| {
            let sq = scheme.decode(f.3).expect("entry");
            let p = crate::verify::entry_position(scheme.slots(), &sq, f.2).expect("position");
            shakmaty::fen::Fen::from_position(&p, shakmaty::EnPassantMode::Legal).to_string()
        };
        let want = |f: Option<Found>| {
            f.map(|f| Deepest {
                plies: f.0,
                win: f.1,
                fen: fen(f),
            })
        };
        assert_eq!(got.mate, want(mate));
        assert_eq!(got.dtz_win, want(win));
        let mate = got.mate.expect("a mate");
        assert_eq!(
            got.mate_of_any_entry,
            dtm.stats().longest_win.max(dtm.stats().longest_loss)
        );
        assert!(mate.plies <= got.mate_of_any_entry && mate.plies > 1);
        assert_eq!(got.dtz_win_of_any_entry, Some(dtz.stats().longest_win));
        refused
    }

    /// A material without a DTZ50 table gives its mate only; a missing table is an error.
    #[test]
    fn a_missing_table_is_an_error_and_a_missing_dtz50_table_no_example() {
        let dir = crate::tables_for_test(&["KRvK"]);
        let m: Material = "KRvK".parse().expect("material");
        std::fs::remove_file(dir.path().join(Metric::Dtz.file_name(m))).expect("remove");
        let got = longest(dir.path(), m).expect("longest");
        assert_eq!((got.dtz_win, got.dtz_win_of_any_entry), (None, None));
        assert_eq!(got.mate.map(|d| (d.plies, d.win)), Some((32, false)));
        let missing: Material = "KQvK".parse().expect("material");
        assert!(matches!(
            longest(dir.path(), missing),
            Err(LongestError::Table(_))
        ));
    }
}
