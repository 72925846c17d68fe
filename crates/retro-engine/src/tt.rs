//! The transposition table: a fixed number of two-entry buckets shared by the search threads
//! without locks.
//!
//! Each entry is two 64-bit words: the position's key XOR its data, and the data. A torn write
//! (one word from one thread, the other from another) makes the key check fail, so a reader
//! never takes data that belongs to another position.

use std::sync::atomic::{AtomicU64, Ordering};

use memmap2::{MmapOptions, MmapRaw};

/// The bound a stored score is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The exact score.
    Exact,
    /// At least the score (a fail high).
    Lower,
    /// At most the score (a fail low).
    Upper,
}

/// What the table remembers of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The best move found, encoded by [`crate::vocab::encode_move`] (0: none).
    pub mv: u16,
    /// The score, with mate scores relative to this position.
    pub score: i16,
    /// The static evaluation.
    pub eval: i16,
    /// The depth searched.
    pub depth: u8,
    /// The kind of bound.
    pub bound: Bound,
}

/// One entry: the key XOR the data, and the data.
struct Slot<'a> {
    check: &'a AtomicU64,
    data: &'a AtomicU64,
}

/// Two entries of two words each, aligned so that a bucket never straddles two cache lines
/// (a probe touches one line).
#[repr(C, align(32))]
struct Bucket([AtomicU64; 4]);

/// The buckets' memory: an anonymous map where the system gives one (asked for huge pages), else
/// the heap.
///
/// A probe reads one bucket at a random place of a table of tens or hundreds of MB. With 4 KB
/// pages nearly every probe also misses the processor's address translation cache (TLB), and
/// under virtualisation that miss walks two page tables: profiling the search at Hash 64 on the
/// 2-core machine put a third of its time on the probe and the prefetch before it. Huge pages
/// (2 MB) cover 512 times as much memory per TLB entry; with transparent huge pages in `madvise`
/// mode (a common default) only memory that asks for them gets them.
enum Storage {
    /// A zero-filled map and the number of buckets it holds, only ever accessed through a raw
    /// pointer (never through a `&[u8]` of its bytes, which the atomics' writes would
    /// contradict).
    Map(MmapRaw, usize),
    Heap(Vec<Bucket>),
}

impl Storage {
    /// `n` zeroed buckets (`n >= 1`); `None` when the memory cannot be had; an error when `n`
    /// buckets overflow the address space.
    fn zeroed(n: usize) -> Result<Option<Storage>, std::alloc::LayoutError> {
        let layout = std::alloc::Layout::array::<Bucket>(n)?;
        if let Ok(map) = MmapOptions::new().len(layout.size()).map_anon() {
            let map = MmapRaw::from(map);
            // Only a hint: without huge pages the map works the same.
            #[cfg(target_os = "linux")]
            if let Err(e) = map.advise(memmap2::Advice::HugePage) {
                log::debug!("no huge pages for the hash table: {e}");
            }
            return Ok(Some(Storage::Map(map, n)));
        }
        Ok(Storage::heap(n))
    }

    /// `n` zeroed buckets (`n >= 1`) from the global allocator; `None` when it refuses or the
    /// size overflows.
    fn heap(n: usize) -> Option<Storage> {
        let n = n.max(1);
        let layout = std::alloc::Layout::array::<Bucket>(n).ok()?;
        // SAFETY: the layout has a non-zero size (n >= 1 bucket of 32 bytes).
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<Bucket>();
        if ptr.is_null() {
            return None;
        }
        // SAFETY: `ptr` was allocated by the global allocator with the layout of `n` buckets
        // (size and alignment), which is what a Vec of capacity `n` frees; all-zero bytes are a
        // valid `Bucket` (four `AtomicU64`s of value 0), so all `n` elements are initialised.
        Some(Storage::Heap(unsafe { Vec::from_raw_parts(ptr, n, n) }))
    }

    #[inline]
    fn buckets(&self) -> &[Bucket] {
        match self {
            // SAFETY: the map is page-aligned, so aligned for `Bucket` (32 bytes), and holds
            // `len` buckets' bytes, zero-filled by the kernel and written since only through
            // the buckets' atomics (all-zero bytes are a valid `Bucket`). The pointer comes
            // from `MmapRaw`, which makes no reference to the bytes, so the only references to
            // them are these shared slices of atomics, whose interior mutability allows the
            // concurrent writes. The map lives as long as `self`, which the slice borrows.
            Storage::Map(map, len) => unsafe {
                std::slice::from_raw_parts(map.as_mut_ptr().cast::<Bucket>().cast_const(), *len)
            },
            Storage::Heap(v) => v,
        }
    }
}

/// A lock-free hash table of search results.
pub struct TranspositionTable {
    storage: Storage,
    age: AtomicU64,
}

const SLOT_BYTES: usize = 16;

/// Asks the processor to bring the cache line of `value` into its caches, so that a read soon
/// after does not wait for memory: the engine's one prefetch. A hint only: it reads nothing
/// the program sees and changes no value; elsewhere than on x86_64 it does nothing.
#[inline]
fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        let ptr = std::ptr::from_ref(value).cast::<i8>();
        // SAFETY: `_mm_prefetch` is unsafe only because it takes a raw pointer and needs SSE.
        // The instruction never dereferences the pointer for the program and cannot fault
        // (even on an invalid address); this one comes from a reference, so it points into
        // live memory anyway. SSE is part of every x86_64 processor (the target's baseline).
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(ptr);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Why a hash table could not be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HashError {
    /// The size overflows the address space.
    #[error("a hash table of {0} MB is too large")]
    TooLarge(usize),
    /// The allocator refused the memory.
    #[error("cannot allocate a hash table of {0} MB")]
    NoMemory(usize),
}

impl TranspositionTable {
    /// A table of about `mb` megabytes (at least one bucket), zeroed, in huge pages where the
    /// system gives them (pages are made resident as the search first writes them).
    ///
    /// # Errors
    /// When the memory cannot be had.
    pub fn new(mb: usize) -> Result<TranspositionTable, HashError> {
        let n = (mb.max(1).saturating_mul(1 << 20) / SLOT_BYTES / 2).max(1);
        let storage = Storage::zeroed(n)
            .map_err(|_| HashError::TooLarge(mb))?
            .ok_or(HashError::NoMemory(mb))?;
        Ok(TranspositionTable {
            storage,
            age: AtomicU64::new(0),
        })
    }

    #[inline]
    fn buckets(&self) -> &[Bucket] {
        self.storage.buckets()
    }

    fn slot(&self, i: usize) -> Slot<'_> {
        let [c0, d0, c1, d1] = &self.buckets()[i / 2].0;
        if i.is_multiple_of(2) {
            Slot {
                check: c0,
                data: d0,
            }
        } else {
            Slot {
                check: c1,
                data: d1,
            }
        }
    }

    fn entries(&self) -> usize {
        self.buckets().len() * 2
    }

    /// Makes every page of the table resident now, rather than when a search first writes
    /// it (a first search would otherwise wait for the kernel to find and zero its pages, tens
    /// of milliseconds for huge pages). The contents stay as they are, so this is safe beside
    /// a running search: the kernel is asked to populate the map for writing, or, where it
    /// cannot, each page gets a `compare_exchange(0, 0)` (a write fault that changes nothing;
    /// a plain load would map the shared zero page, and `fetch_or(0)` compiles to a load).
    pub fn make_resident(&self) {
        const PAGE: usize = 4096;
        #[cfg(target_os = "linux")]
        if let Storage::Map(map, _) = &self.storage {
            if map.advise(memmap2::Advice::PopulateWrite).is_ok() {
                return;
            }
        }
        let per_page = (PAGE / std::mem::size_of::<Bucket>()).max(1);
        for b in self.buckets().iter().step_by(per_page) {
            let _ = b.0[0].compare_exchange(0, 0, Ordering::Relaxed, Ordering::Relaxed);
        }
    }

    /// Forgets everything.
    pub fn clear(&self) {
        for w in self.buckets().iter().flat_map(|b| &b.0) {
            w.store(0, Ordering::Relaxed);
        }
        self.age.store(0, Ordering::Relaxed);
    }

    /// Asks the processor to bring the bucket of `key` into its cache, so that a probe soon
    /// after does not wait for memory. A hint only: it changes no result.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        prefetch(&self.buckets()[self.bucket(key) / 2]);
    }

    /// Marks the start of a new search, so entries of older ones are replaced first.
    pub fn new_search(&self) {
        self.age.fetch_add(1, Ordering::Relaxed);
    }

    fn age(&self) -> u64 {
        self.age.load(Ordering::Relaxed) & 0x3f
    }

    /// The index of the first entry of `key`'s bucket.
    fn bucket(&self, key: u64) -> usize {
        let buckets = self.buckets().len() as u128;
        (((u128::from(key)) * buckets) >> 64) as usize * 2
    }

    /// The entry of `key`, if stored.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let b = self.bucket(key);
        for i in b..b + 2 {
            let s = self.slot(i);
            let data = s.data.load(Ordering::Relaxed);
            if data != 0 && s.check.load(Ordering::Relaxed) ^ data == key {
                return Some(unpack(data));
            }
        }
        None
    }

    /// Stores a result, replacing the same position or the less valuable entry of the bucket.
    pub fn store(&self, key: u64, e: Entry) {
        let b = self.bucket(key);
        let age = self.age();
        let mut victim = b;
        let mut worst = i32::MAX;
        for i in b..b + 2 {
            let s = self.slot(i);
            let data = s.data.load(Ordering::Relaxed);
            if data == 0 || s.check.load(Ordering::Relaxed) ^ data == key {
                // Keep the old move when the new result has none.
                let mut e = e;
                if e.mv == 0 && data != 0 {
                    e.mv = unpack(data).mv;
                }
                write(&s, key, e, age);
                return;
            }
            let old = unpack(data);
            let old_age = (data >> 58) & 0x3f;
            let value = i32::from(old.depth) - if old_age == age { 0 } else { 64 };
            if value < worst {
                worst = value;
                victim = i;
            }
        }
        write(&self.slot(victim), key, e, age);
    }

    /// Permille of a sample of entries written in the current search.
    pub fn hashfull(&self) -> u32 {
        let age = self.age();
        let n = self.entries().min(1000);
        let used = (0..n)
            .filter(|&i| {
                let d = self.slot(i).data.load(Ordering::Relaxed);
                d != 0 && (d >> 58) & 0x3f == age
            })
            .count();
        (used * 1000 / n.max(1)) as u32
    }
}

fn write(s: &Slot<'_>, key: u64, e: Entry, age: u64) {
    let data = pack(e, age);
    s.data.store(data, Ordering::Relaxed);
    s.check.store(key ^ data, Ordering::Relaxed);
}

fn pack(e: Entry, age: u64) -> u64 {
    let bound = match e.bound {
        Bound::Exact => 1u64,
        Bound::Lower => 2,
        Bound::Upper => 3,
    };
    u64::from(e.mv)
        | u64::from(e.score as u16) << 16
        | u64::from(e.eval as u16) << 32
        | u64::from(e.depth) << 48
        | bound << 56
        | age << 58
}

fn unpack(d: u64) -> Entry {
    Entry {
        mv: d as u16,
        score: (d >> 16) as u16 as i16,
        eval: (d >> 32) as u16 as i16,
        depth: (d >> 48) as u8,
        bound: match (d >> 56) & 3 {
            2 => Bound::Lower,
            3 => Bound::Upper,
            _ => Bound::Exact,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_finds_entries() {
        let tt = TranspositionTable::new(1).expect("1 MB");
        let e = Entry {
            mv: 0x1234,
            score: -31000,
            eval: 55,
            depth: 17,
            bound: Bound::Lower,
        };
        tt.store(0xdead_beef_0000_0001, e);
        assert_eq!(tt.probe(0xdead_beef_0000_0001), Some(e));
        assert_eq!(tt.probe(0xdead_beef_0000_0002), None);
        // A result without a move keeps the stored move.
        tt.store(
            0xdead_beef_0000_0001,
            Entry {
                mv: 0,
                depth: 3,
                ..e
            },
        );
        assert_eq!(
            tt.probe(0xdead_beef_0000_0001).map(|x| (x.mv, x.depth)),
            Some((0x1234, 3))
        );
        tt.clear();
        assert_eq!(tt.probe(0xdead_beef_0000_0001), None);
    }

    #[test]
    fn deeper_entries_of_the_current_search_survive() {
        let tt = TranspositionTable::new(1).expect("1 MB");
        // Keys in one bucket: the same high bits.
        let keys = [
            0x8000_0000_0000_0001u64,
            0x8000_0000_0000_0002,
            0x8000_0000_0000_0003,
        ];
        let e = |depth| Entry {
            mv: 1,
            score: 0,
            eval: 0,
            depth,
            bound: Bound::Exact,
        };
        tt.store(keys[0], e(20));
        tt.store(keys[1], e(2));
        tt.store(keys[2], e(5));
        assert!(tt.probe(keys[0]).is_some());
        assert!(tt.probe(keys[1]).is_none());
        assert!(tt.probe(keys[2]).is_some());
        assert!(tt.hashfull() <= 1000);
    }

    #[test]
    fn buckets_lie_within_cache_lines() {
        let tt = TranspositionTable::new(1).expect("1 MB");
        assert_eq!(std::mem::size_of::<Bucket>(), 32);
        assert_eq!(tt.buckets().as_ptr() as usize % 32, 0);
        assert_eq!(tt.entries(), (1 << 20) / SLOT_BYTES);
        // Prefetching any key is harmless.
        tt.prefetch(u64::MAX);
        tt.prefetch(0);
    }

    #[test]
    fn the_heap_fallback_is_zeroed_and_aligned() {
        let n = 1000;
        let storage = Storage::heap(n).expect("a small allocation");
        assert!(matches!(storage, Storage::Heap(_)));
        let tt = TranspositionTable {
            storage,
            age: AtomicU64::new(0),
        };
        assert_eq!(tt.buckets().len(), n);
        assert_eq!(tt.buckets().as_ptr() as usize % 32, 0);
        assert!(tt
            .buckets()
            .iter()
            .flat_map(|b| &b.0)
            .all(|w| w.load(Ordering::Relaxed) == 0));
        let e = Entry {
            mv: 7,
            score: 1,
            eval: 2,
            depth: 3,
            bound: Bound::Upper,
        };
        tt.store(42, e);
        assert_eq!(tt.probe(42), Some(e));
    }

    #[test]
    fn impossible_sizes_are_errors() {
        // More bytes than an allocation may have.
        assert!(TranspositionTable::new(usize::MAX).is_err());
        assert!(TranspositionTable::new(usize::MAX >> 20).is_err());
    }
}
