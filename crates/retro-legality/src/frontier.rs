//! The two containers of the proof game search: the open positions by priority, and the set of
//! positions generated.
//!
//! The open list is a binary heap of small keys whose entries (positions, a couple of hundred
//! bytes) stay put in a slab. The seen set is an open-addressing table of 64-bit Zobrist keys,
//! one probe sequence in one array: a key is already random, so its top bits pick its slot.

use std::{cmp::Reverse, collections::BinaryHeap};

/// A queue priority: lower comes first.
pub type Priority = (u32, u8, u32);

/// Open entries by priority. The heap orders small keys, each naming the slot of its entry in
/// a slab (whose free slots are used again), so that the heap's sifting moves 16 bytes where
/// an entry holding a position is ten times that.
pub struct Open<T> {
    heap: BinaryHeap<Reverse<(Priority, u32)>>,
    slab: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Default for Open<T> {
    fn default() -> Open<T> {
        Open::new()
    }
}

impl<T> Open<T> {
    /// An empty queue.
    pub fn new() -> Open<T> {
        Open {
            heap: BinaryHeap::new(),
            slab: Vec::new(),
            free: Vec::new(),
        }
    }

    /// Adds `item` at `priority`; `false` when the slab is full (2^32 entries).
    pub fn push(&mut self, priority: Priority, item: T) -> bool {
        let slot = match self.free.pop() {
            Some(slot) => match self.slab.get_mut(slot as usize) {
                Some(s) => {
                    *s = Some(item);
                    slot
                }
                None => return false,
            },
            None => {
                let Ok(slot) = u32::try_from(self.slab.len()) else {
                    return false;
                };
                self.slab.push(Some(item));
                slot
            }
        };
        self.heap.push(Reverse((priority, slot)));
        true
    }

    /// Takes an entry of the lowest priority held (of equal ones, that in the lowest slot).
    pub fn pop(&mut self) -> Option<T> {
        let Reverse((_, slot)) = self.heap.pop()?;
        let item = self.slab.get_mut(slot as usize)?.take();
        self.free.push(slot);
        item
    }

    /// The number of entries held.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether it holds none.
    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

/// A set of 64-bit keys (Zobrist keys: random already). Key 0 shares a slot value with key 1,
/// as two positions may share a Zobrist key: a search that skips a position for it only loses
/// a line, and every game found is replayed.
pub struct Seen {
    /// Slots: 0 is empty.
    slots: Vec<u64>,
    /// Keys held.
    len: usize,
    /// `64 - log2(slots.len())`: a key's top bits are its first slot.
    shift: u32,
}

/// The slots of a new set (a power of two).
const FIRST_SLOTS: usize = 1 << 12;

impl Default for Seen {
    fn default() -> Seen {
        Seen::new()
    }
}

impl Seen {
    /// An empty set.
    pub fn new() -> Seen {
        Seen {
            slots: vec![0; FIRST_SLOTS],
            len: 0,
            shift: 64 - FIRST_SLOTS.trailing_zeros(),
        }
    }

    /// Adds `key`; whether it was new.
    pub fn insert(&mut self, key: u64) -> bool {
        let key = key.max(1);
        // Grow at half full: probe sequences stay short.
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        if place(&mut self.slots, self.shift, key) {
            self.len += 1;
            true
        } else {
            false
        }
    }

    /// The number of keys held.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds none.
    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Reads the slot where a search for `key` starts, so that a later [`insert`](Seen::insert)
    /// finds it in the cache: the reads of a position's children overlap in memory where
    /// their inserts, each behind the work on the child before, would not.
    pub fn touch(&self, key: u64) {
        let i = (key.max(1) >> self.shift) as usize & (self.slots.len() - 1);
        std::hint::black_box(self.slots.get(i).copied());
    }

    fn grow(&mut self) {
        let size = self.slots.len() * 2;
        let shift = self.shift - 1;
        let mut slots = vec![0u64; size];
        for &k in &self.slots {
            if k != 0 {
                place(&mut slots, shift, k);
            }
        }
        self.slots = slots;
        self.shift = shift;
    }
}

/// Puts the non-zero `key` into `slots` (a power of two long, less than full) by linear
/// probing from its top bits; whether it was not there.
fn place(slots: &mut [u64], shift: u32, key: u64) -> bool {
    let mask = slots.len() - 1;
    let mut i = (key >> shift) as usize & mask;
    loop {
        let Some(s) = slots.get_mut(i) else {
            return false;
        };
        if *s == key {
            return false;
        }
        if *s == 0 {
            *s = key;
            return true;
        }
        i = (i + 1) & mask;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, HashSet};

    #[test]
    fn the_queue_pops_lowest_first_and_every_entry_once() {
        let mut q = Open::new();
        let mut rng = fastrand::Rng::with_seed(1);
        let mut expected: BTreeMap<Priority, usize> = BTreeMap::new();
        let mut popped = Vec::new();
        for i in 0..5_000u32 {
            let p = (rng.u32(..300), rng.u8(..5), rng.u32(..4));
            assert!(q.push(p, (p, i)));
            *expected.entry(p).or_default() += 1;
            // Pops between the pushes, so that slots are used again.
            if i % 3 == 0 {
                popped.extend(q.pop());
            }
        }
        assert_eq!(q.len() + popped.len(), 5_000);
        let mut ids = HashSet::new();
        let mut last = (0, 0, 0);
        while let Some((p, i)) = q.pop() {
            assert!(p >= last, "{p:?} after {last:?}");
            last = p;
            popped.push((p, i));
        }
        assert!(q.is_empty());
        for (p, i) in popped {
            assert!(ids.insert(i));
            let n = expected.get_mut(&p).expect("pushed");
            *n -= 1;
        }
        assert!(expected.values().all(|&n| n == 0));
    }

    #[test]
    fn a_lower_push_after_pops_comes_next() {
        let mut q = Open::new();
        q.push((10, 0, 0), 'a');
        q.push((20, 0, 0), 'b');
        assert_eq!(q.pop(), Some('a'));
        q.push((5, 0, 0), 'c');
        assert_eq!(q.pop(), Some('c'));
        assert_eq!(q.pop(), Some('b'));
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn the_seen_set_agrees_with_a_hash_set() {
        let mut s = Seen::new();
        let mut reference = HashSet::new();
        let mut rng = fastrand::Rng::with_seed(5);
        for _ in 0..100_000 {
            // A narrow range, so that keys repeat; and keys that differ only in low bits.
            let k = rng.u64(1..60_000) << (rng.u32(0..4) * 16);
            assert_eq!(s.insert(k), reference.insert(k), "{k}");
        }
        assert_eq!(s.len(), reference.len());
        assert!(!s.is_empty());
    }
}
