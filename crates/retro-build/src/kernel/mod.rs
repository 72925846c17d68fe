//! The retrograde kernel that every table of the generator is solved by.
//!
//! A solve has two seams: the **metric** (DTM, where a position's value is its distance to
//! mate; DTZ50, its distance to the next zeroing move under the 50-move rule) and the **state
//! store** (full cells in memory for up to 5 pieces; one counter byte an entry and work files
//! on disk for 6 pieces, `compact`). Everything else is this kernel, shared by the four
//! combinations:
//!
//! - [`moves`]: forward moves, a position's legal moves by target squares (the init passes);
//! - [`exits`]: moves that leave the material (captures, promotions, en passant), mapped onto
//!   their sub-tables once ([`exits::ExitPlan`]), and which sub-tables a [`Stage`] reads;
//! - [`unmoves`]: un-moves, where a piece of the side that moved may have come from;
//! - [`frontier`]: the entries decided at one depth and the decided bits by lines of a piece;
//! - [`pass`]: a pass over a frontier, split by the king of the side to move into partitions
//!   that share no predecessor, so that each task updates its predecessors with plain stores;
//! - [`depths`]: the frontier by depth, from the seeds of the init pass until nothing is left;
//! - [`memory`]: large arrays of atomics in (huge-page) memory maps, and the prefetch.
//!
//! A metric and store supply what differs: how an entry is valued by its exits in the init
//! pass, what a predecessor of a decided node becomes ([`depths::Depths`]), and where the
//! decided entries and their values are kept.

pub(crate) mod depths;
pub(crate) mod exits;
pub(crate) mod frontier;
pub(crate) mod memory;
pub(crate) mod moves;
pub(crate) mod pass;
pub(crate) mod unmoves;

use shakmaty::Color;

pub use self::memory::memory_in_use;

/// A stage of a solve, for which the caller supplies the sub-tables (so that only what a stage
/// needs is in memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The init pass over the entries with this side to move: exits are moves of
    /// that side, to tables with the other side to move.
    Init(Color),
    /// The init pass over the entries with either side to move, for material without pawns:
    /// exits are moves of either side.
    InitBoth,
    /// The retrograde passes: exits are en passant captures only.
    Retro,
}

/// The first error of the tasks of a parallel solve: each task notes what went wrong, and the
/// solve checks between its phases.
pub(crate) struct FirstError<E>(std::sync::Mutex<Option<E>>);

impl<E> FirstError<E> {
    pub(crate) const fn new() -> FirstError<E> {
        FirstError(std::sync::Mutex::new(None))
    }

    /// Keeps `e` unless an error was noted before.
    pub(crate) fn note(&self, e: E) {
        if let Ok(mut g) = self.0.lock() {
            g.get_or_insert(e);
        }
    }

    /// Whether an error was noted (and not taken out yet).
    pub(crate) fn failed(&self) -> bool {
        self.0.lock().map_or(true, |g| g.is_some())
    }

    /// The error noted, taken out.
    ///
    /// # Errors
    /// That error.
    pub(crate) fn check(&self) -> Result<(), E> {
        match self.0.lock().map(|mut g| g.take()) {
            Ok(Some(e)) => Err(e),
            _ => Ok(()),
        }
    }
}

/// Both sides, white first: the order of the planes of a table file and of every loop over
/// the sides.
pub(crate) const SIDES: [Color; 2] = [Color::White, Color::Black];

/// The slot of the king of `side` in a material's slots (white's king first), which is also
/// its index in the arrays and packed bits that keep white first.
#[inline]
pub(crate) const fn king_slot(side: Color) -> usize {
    match side {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// The side whose bit (white 0, black 1, as [`king_slot`] numbers them) is the low bit of
/// `bits`: the inverse of `king_slot` for the packed nodes and seeds.
#[inline]
pub(crate) const fn side_of_bit(bits: u64) -> Color {
    if bits & 1 == 0 {
        Color::White
    } else {
        Color::Black
    }
}

/// Asks the processor to start loading `items[i]` into the cache.
#[inline]
pub(crate) fn prefetch<T>(items: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(c) = items.get(i) {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE, which the intrinsic needs, is part of every x86_64 processor; a prefetch
        // is a hint that neither reads into the program nor faults, and the address is that of a
        // live element.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((c as *const T).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (items, i);
}
