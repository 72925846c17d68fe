//! A cache of decompressed table blocks, one for the whole process, shared by every thread and
//! every table. It is direct-mapped: a block's key (table, side, block number) picks one slot,
//! and a new block replaces whatever the slot held. Each slot has its own lock, so threads
//! probing different blocks do not wait for each other.

use std::sync::{Mutex, OnceLock};

/// Slots in the process-wide cache.
pub const SLOTS: usize = 8192;

struct Slot {
    /// 0 when empty.
    key: u64,
    /// The block's first `valid` bytes, then bytes left over from earlier fills (kept so that
    /// a fill need not clear the buffer).
    data: Vec<u8>,
    valid: usize,
}

/// Decompressed blocks by key.
pub struct BlockCache {
    slots: Box<[Mutex<Slot>]>,
    shift: u32,
}

impl BlockCache {
    /// A cache of `slots` blocks (rounded up to a power of two).
    pub fn new(slots: usize) -> BlockCache {
        let n = slots.max(2).next_power_of_two();
        BlockCache {
            slots: (0..n)
                .map(|_| {
                    Mutex::new(Slot {
                        key: 0,
                        data: Vec::new(),
                        valid: 0,
                    })
                })
                .collect(),
            shift: 64 - n.trailing_zeros(),
        }
    }

    /// Reads from the block `key` (never 0) with `read`, which gets at least `need + 1` bytes
    /// of it; when the slot does not hold that much of the block, `fill` first writes (a prefix
    /// of) the block at the start of the slot's buffer, over what it held, and returns how many
    /// bytes it wrote. `fill` is told whether the slot held a shorter prefix of the same block
    /// (a sign that more of the block will be wanted). A failed fill leaves the slot empty.
    ///
    /// # Errors
    /// What `fill` returns.
    #[inline]
    pub fn with<R, E>(
        &self,
        key: u64,
        need: usize,
        fill: impl FnOnce(&mut Vec<u8>, bool) -> Result<usize, E>,
        read: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, E> {
        let i = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize;
        let slot = &self.slots[i & (self.slots.len() - 1)];
        // A panic while a slot was held cannot leave it inconsistent in a way that matters:
        // the key is set only after a successful fill.
        let mut g = slot.lock().unwrap_or_else(|p| p.into_inner());
        if g.key != key || g.valid <= need {
            let again = g.key == key;
            g.key = 0;
            g.valid = 0;
            let n = fill(&mut g.data, again)?;
            g.valid = n.min(g.data.len());
            g.key = key;
        }
        Ok(read(&g.data[..g.valid]))
    }
}

/// The cache every table shares, made on first use with [`SLOTS`] slots unless
/// [`set_global_slots`] chose another size before.
pub fn global() -> &'static BlockCache {
    CACHE.get_or_init(|| BlockCache::new(SLOTS))
}

static CACHE: OnceLock<BlockCache> = OnceLock::new();

/// Makes the process-wide cache with `slots` slots (rounded up to a power of two); `false` when
/// it was already made (by an earlier call or a probe), which keeps its size.
pub fn set_global_slots(slots: usize) -> bool {
    let mut made = false;
    CACHE.get_or_init(|| {
        made = true;
        BlockCache::new(slots)
    });
    made
}

/// The number of slots of the process-wide cache (made now when it was not).
pub fn global_slots() -> usize {
    global().slots.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_misses_and_failed_fills() {
        let c = BlockCache::new(4);
        let mut fills = 0;
        for round in 0..3 {
            for key in 1..=3u64 {
                let v = c
                    .with(
                        key,
                        0,
                        |buf, _| {
                            fills += 1;
                            buf.clear();
                            buf.extend_from_slice(&[key as u8; 8]);
                            Ok::<usize, ()>(8)
                        },
                        |b| b[5],
                    )
                    .expect("fill");
                assert_eq!(v, key as u8, "round {round}");
            }
        }
        assert!(fills >= 3);
        // A failed fill is reported and not cached.
        assert_eq!(c.with(9, 0, |_, _| Err("bad"), |b| b.len()), Err("bad"));
        let n = c
            .with(
                9,
                0,
                |buf, again| {
                    assert!(!again);
                    buf.clear();
                    buf.push(1);
                    Ok::<usize, &str>(1)
                },
                |b| b.len(),
            )
            .expect("fill");
        assert_eq!(n, 1);
    }

    #[test]
    fn a_prefix_serves_what_it_holds_and_is_filled_again_for_more() {
        let c = BlockCache::new(4);
        let mut calls = Vec::new();
        let mut probe = |need: usize| {
            c.with(
                5,
                need,
                |buf, again| {
                    calls.push(again);
                    // A prefix of 10 bytes unless asked again, then the whole 100.
                    let n = if again { 100 } else { 10.max(need + 1) };
                    buf.resize(128, 0xEE);
                    for (i, x) in buf[..n].iter_mut().enumerate() {
                        *x = i as u8;
                    }
                    Ok::<usize, ()>(n)
                },
                |b| (b.len(), b[need]),
            )
            .expect("fill")
        };
        assert_eq!(probe(3), (10, 3));
        assert_eq!(probe(9), (10, 9));
        assert_eq!(probe(50), (100, 50));
        assert_eq!(probe(99), (100, 99));
        assert_eq!(calls, [false, true]);
    }
}
