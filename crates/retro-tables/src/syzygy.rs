//! Syzygy tables (WDL `.rtbw` and DTZ `.rtbz` files, up to 7 pieces), probed with the
//! shakmaty-syzygy crate, for positions beyond Retro's own tables. A file that is missing or
//! cannot be read is a miss (`None`), never a panic.

use std::path::{Path, PathBuf};

use shakmaty::{Chess, Position};
use shakmaty_syzygy::{MaybeRounded, Tablebase as Tables, Wdl as SWdl};

use super::{Dtz, Wdl50};

/// The Syzygy tables of one or more directories.
pub struct Syzygy {
    tables: Tables<Chess>,
    dirs: Vec<PathBuf>,
    files: usize,
}

impl std::fmt::Debug for Syzygy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Syzygy")
            .field("dirs", &self.dirs)
            .field("files", &self.files)
            .finish()
    }
}

/// Why a Syzygy path could not be used.
#[derive(Debug, thiserror::Error)]
pub enum SyzygyError {
    /// A directory of the path cannot be read.
    #[error("Syzygy directory {dir}: {why}")]
    Directory {
        /// The directory.
        dir: PathBuf,
        /// What the system said.
        why: String,
    },
    /// The path names no table files.
    #[error("no Syzygy table files in {0}")]
    Empty(String),
}

impl Syzygy {
    /// The tables of the directories of `path`, separated by `:` (Stockfish's `SyzygyPath`).
    ///
    /// # Errors
    /// A directory that cannot be read, or no table file at all.
    ///
    /// # Safety of the map
    /// shakmaty-syzygy memory-maps each file on the first probe that needs it, and the map
    /// lasts as long as this value. The caller keeps the map's contract: no process may
    /// truncate a table file or write into it meanwhile (replacing one by a rename is safe).
    /// A read past the end of a file made shorter, or a read error of the disk under the map,
    /// raises `SIGBUS` and ends the process. shakmaty-syzygy checks no checksum of the files,
    /// so a file written in place gives wrong values or a failed probe (a miss, `None`);
    /// check downloaded files against their published checksums before use.
    pub fn open(path: &str) -> Result<Syzygy, SyzygyError> {
        // SAFETY: shakmaty-syzygy maps the table files read-only; its contract is that they are
        // not modified while mapped, which holds for table files (they are only ever read). A
        // file truncated by another program could raise SIGBUS, the documented limit of
        // memory-mapped I/O.
        let mut tables = unsafe { Tables::<Chess>::with_mmap_filesystem() };
        let mut dirs = Vec::new();
        let mut files = 0;
        for dir in path.split(':').map(str::trim).filter(|d| !d.is_empty()) {
            let dir = Path::new(dir);
            files += tables
                .add_directory(dir)
                .map_err(|e| SyzygyError::Directory {
                    dir: dir.to_path_buf(),
                    why: e.to_string(),
                })?;
            dirs.push(dir.to_path_buf());
        }
        if files == 0 {
            return Err(SyzygyError::Empty(path.to_string()));
        }
        Ok(Syzygy {
            tables,
            dirs,
            files,
        })
    }

    /// How many table files were added.
    pub fn files(&self) -> usize {
        self.files
    }

    /// The most pieces of any table added.
    pub fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }

    /// The class under the 50-move rule of a position just after a zeroing move (the clock
    /// at 0); `None` when no table covers it or a file cannot be read.
    pub fn probe_wdl(&self, pos: &Chess) -> Option<Wdl50> {
        if pos.castles().any() {
            return None;
        }
        self.tables
            .probe_wdl_after_zeroing(pos)
            .ok()
            .map(|w| match w {
                SWdl::Loss => Wdl50::Loss,
                SWdl::BlessedLoss => Wdl50::BlessedLoss,
                SWdl::Draw => Wdl50::Draw,
                SWdl::CursedWin => Wdl50::CursedWin,
                SWdl::Win => Wdl50::Win,
            })
    }

    /// The DTZ of a position, and whether Syzygy stored it rounded (then the true value may
    /// be one ply further from zero); `None` when no table covers it.
    pub fn probe_dtz(&self, pos: &Chess) -> Option<(Dtz, bool)> {
        if pos.castles().any() {
            return None;
        }
        let (d, rounded) = match self.tables.probe_dtz(pos).ok()? {
            MaybeRounded::Precise(d) => (d, false),
            MaybeRounded::Rounded(d) => (d, true),
        };
        Some((Dtz(i16::try_from(d.0).ok()?), rounded))
    }
}
