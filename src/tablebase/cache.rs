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
    data: Vec<u8>,
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
                    })
                })
                .collect(),
            shift: 64 - n.trailing_zeros(),
        }
    }

    /// Reads from the block `key` (never 0) with `read`, which gets at least `need + 1` bytes
    /// of it; when the slot does not hold that much of the block, `fill` first writes (a prefix
    /// of) the block into the slot's buffer, replacing what it held. A failed fill leaves the
    /// slot empty.
    ///
    /// # Errors
    /// What `fill` returns.
    #[inline]
    pub fn with<R, E>(
        &self,
        key: u64,
        need: usize,
        fill: impl FnOnce(&mut Vec<u8>) -> Result<(), E>,
        read: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, E> {
        let i = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize;
        let slot = &self.slots[i & (self.slots.len() - 1)];
        // A panic while a slot was held cannot leave it inconsistent in a way that matters:
        // the key is set only after a successful fill.
        let mut g = slot.lock().unwrap_or_else(|p| p.into_inner());
        if g.key != key || g.data.len() <= need {
            g.key = 0;
            fill(&mut g.data)?;
            g.key = key;
        }
        Ok(read(&g.data))
    }
}

/// The cache every table shares.
pub fn global() -> &'static BlockCache {
    static CACHE: OnceLock<BlockCache> = OnceLock::new();
    CACHE.get_or_init(|| BlockCache::new(SLOTS))
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
                        |buf| {
                            fills += 1;
                            buf.clear();
                            buf.extend_from_slice(&[key as u8; 8]);
                            Ok::<(), ()>(())
                        },
                        |b| b[5],
                    )
                    .expect("fill");
                assert_eq!(v, key as u8, "round {round}");
            }
        }
        assert!(fills >= 3);
        // A failed fill is reported and not cached.
        assert_eq!(c.with(9, 0, |_| Err("bad"), |b| b.len()), Err("bad"));
        let n = c
            .with(
                9,
                0,
                |buf| {
                    buf.clear();
                    buf.push(1);
                    Ok::<(), &str>(())
                },
                |b| b.len(),
            )
            .expect("fill");
        assert_eq!(n, 1);
    }
}
