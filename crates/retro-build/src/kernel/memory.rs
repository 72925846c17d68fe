//! Large arrays of atomics for the solver, in anonymous memory maps that the kernel may be asked
//! to back with huge pages (2 MB on x86_64; see [`Pages`]).
//!
//! The solver's cells and bitmaps take hundreds of MB and are read and written at scattered
//! places: with 4 KB pages nearly every access to another part of them also misses the
//! processor's address translation cache (TLB), and under virtualisation a miss walks two
//! page tables. Huge pages cover 512 times as much memory per TLB entry. Where the system has
//! transparent huge pages in `madvise` mode (a common default) only memory that asks for them
//! gets them, which is what this module does. Where the map cannot be made, the array falls back
//! to an ordinary vector: only the speed differs.

use std::{
    marker::PhantomData,
    sync::atomic::{AtomicU16, AtomicU64},
};

use memmap2::{Advice, MmapMut, MmapOptions};
use rayon::prelude::*;

mod sealed {
    pub trait Sealed {}
    impl Sealed for std::sync::atomic::AtomicU8 {}
    impl Sealed for std::sync::atomic::AtomicU16 {}
    impl Sealed for std::sync::atomic::AtomicU64 {}
}

/// An atomic integer type whose all-zero bytes are the value 0 (so a zero-filled map holds
/// valid elements), with the alignment of its size.
pub trait ZeroAtomic: sealed::Sealed + Sync + Send + Sized {
    /// The atomic holding `0`.
    fn zero() -> Self;
}

impl ZeroAtomic for std::sync::atomic::AtomicU8 {
    fn zero() -> Self {
        std::sync::atomic::AtomicU8::new(0)
    }
}

impl ZeroAtomic for AtomicU16 {
    fn zero() -> Self {
        AtomicU16::new(0)
    }
}

impl ZeroAtomic for AtomicU64 {
    fn zero() -> Self {
        AtomicU64::new(0)
    }
}

enum Storage<A> {
    /// A zero-filled anonymous map of at least `len * size_of::<A>()` bytes.
    Map(MmapMut),
    Heap(Vec<A>),
}

/// Which pages an array asks for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Pages {
    /// Huge pages where the system gives them: for arrays read at scattered places, whose
    /// every access would otherwise miss the TLB.
    Huge,
    /// The system's default pages: for the 5-piece solver's cells a huge page cost more to
    /// fault in (measured on a virtual machine: filling KQRvKR's 460 MB of cells took 0.3 to
    /// 0.5 s with huge pages and 0.1 s without), which can outweigh the misses it saves. Arrays
    /// of gigabytes fault in faster in huge pages (6 GB: 2.3 s against 14.8 s on the 2-core
    /// machine), and the 6-piece solve and checks use them.
    Default,
}

/// A fixed-length array of atomics, zeroed when made.
pub struct Atomics<A: ZeroAtomic> {
    storage: Storage<A>,
    len: usize,
    _elements: PhantomData<A>,
}

impl<A: ZeroAtomic> Atomics<A> {
    /// `len` atomics holding 0, in the `pages` asked for where the system gives them.
    pub fn zeroed(len: usize, pages: Pages) -> Atomics<A> {
        let bytes = len.saturating_mul(std::mem::size_of::<A>());
        let storage = match MmapOptions::new().len(bytes.max(1)).map_anon() {
            Ok(map) => {
                // Only a hint: without huge pages the map works the same.
                if pages == Pages::Huge {
                    if let Err(e) = map.advise(Advice::HugePage) {
                        log::debug!("no huge pages for {bytes} bytes: {e}");
                    }
                }
                Storage::Map(map)
            }
            Err(e) => {
                log::debug!("anonymous map of {bytes} bytes refused ({e}): using the heap");
                Storage::Heap((0..len).into_par_iter().map(|_| A::zero()).collect())
            }
        };
        Atomics {
            storage,
            len,
            _elements: PhantomData,
        }
    }

    /// The elements.
    #[inline]
    pub fn as_slice(&self) -> &[A] {
        match &self.storage {
            // SAFETY: the map is page-aligned, so aligned for `A` (1, 2 or 8 bytes), and holds at
            // least `len * size_of::<A>()` bytes, zero-filled by the kernel or written since
            // only through atomics of type `A`; all-zero bytes are a valid `A` (see
            // `ZeroAtomic`). The map lives as long as `self` and is never accessed other than
            // through this shared slice of atomics (no `&mut` to its bytes is ever made after
            // `zeroed`), so concurrent use goes through the atomics' own synchronisation.
            Storage::Map(map) => unsafe {
                std::slice::from_raw_parts(map.as_ptr().cast::<A>(), self.len)
            },
            Storage::Heap(v) => v,
        }
    }
}

impl<A: ZeroAtomic> std::ops::Deref for Atomics<A> {
    type Target = [A];

    #[inline]
    fn deref(&self) -> &[A] {
        self.as_slice()
    }
}

/// The resident memory of this process, for the logs.
pub fn memory_in_use() -> String {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or_else(
            || "resident memory unknown".to_string(),
            |pages| format!("{} MB resident", pages * 4096 / 1_000_000),
        )
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering::Relaxed;

    use super::*;

    #[test]
    fn zeroed_and_writable() {
        for len in [0usize, 1, 1000, 3 << 20] {
            let a: Atomics<AtomicU16> = Atomics::zeroed(len, Pages::Default);
            assert_eq!(a.len(), len);
            assert!(a.iter().all(|x| x.load(Relaxed) == 0));
            if len > 1 {
                a[len - 1].store(7, Relaxed);
                a[0].fetch_add(3, Relaxed);
                assert_eq!((a[0].load(Relaxed), a[len - 1].load(Relaxed)), (3, 7));
            }
            let b: Atomics<AtomicU64> = Atomics::zeroed(len, Pages::Huge);
            assert!(b.par_iter().all(|x| x.load(Relaxed) == 0));
        }
    }
}
