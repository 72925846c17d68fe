//! The compact solve split over ranks (processes, possibly on several machines) by king
//! placement.
//!
//! Each rank owns a run of king placements ([`Share`]): the state bytes and frontier bits of
//! their entries, its own seeds, value logs and checkpoints. An un-move of a piece other than a
//! king leaves both kings where they were (up to the index's symmetry, which maps a placement
//! onto itself), so its predecessor is the rank's own; a king's un-move may reach an entry of
//! another rank. Those predecessors are batched per destination rank and handed to the
//! [`Exchange`], which sends them while the rank goes on un-moving and takes in the batches the
//! other ranks send it; once every rank has said it sent everything of the pass, each applies
//! what it received to its own state. A reduction of the frontier sizes ends each depth.
//!
//! The transport is a seam: MPI between processes (`mpi_exchange`, cargo feature `mpi`), and
//! threads of one process in the tests ([`Threads`]).

use std::{
    fs::{self, File},
    io::{self, BufReader, BufWriter, Read, Write},
    path::{Path, PathBuf},
    sync::{
        mpsc::{self, Receiver, SyncSender},
        Arc, Barrier, Mutex,
    },
};

use shakmaty::Color;

use retro_tables::index::IndexScheme;

/// Predecessors of other ranks sent in one message, at most (8 bytes each).
pub(crate) const BATCH: usize = 1 << 16;

/// Batches waiting to be sent at most, per rank: a pass that outruns the transport waits.
const QUEUED: usize = 64;

/// Received predecessors kept in memory at most before the rest goes to a work file.
const INBOX_MEMORY: usize = 32 << 20;

/// The king placements one rank owns: the entries `lo()..hi()` of each side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Share {
    /// This rank, `0..ranks`.
    pub rank: usize,
    /// Ranks in all.
    pub ranks: usize,
    /// King placements of the table.
    placements: u64,
    /// Entries per king placement.
    stride: u64,
}

impl Share {
    /// Rank `rank`'s share of `ix` among `ranks` ranks: the placements split into runs as even
    /// as they can be, rank 0 the first. `None` when `rank` is not below `ranks` or there are
    /// more ranks than placements.
    pub fn of(ix: &IndexScheme, rank: usize, ranks: usize) -> Option<Share> {
        let placements = ix.king_placements().len() as u64;
        (rank < ranks && ranks as u64 <= placements).then_some(Share {
            rank,
            ranks,
            placements,
            stride: ix.king_stride(),
        })
    }

    /// The whole table, one rank.
    pub fn whole(ix: &IndexScheme) -> Share {
        Share {
            rank: 0,
            ranks: 1,
            placements: ix.king_placements().len() as u64,
            stride: ix.king_stride(),
        }
    }

    /// The first king placement of rank `r`.
    fn first_of(&self, r: usize) -> u64 {
        self.placements * r as u64 / self.ranks as u64
    }

    /// This rank's king placements.
    pub fn placements(&self) -> std::ops::Range<u64> {
        self.first_of(self.rank)..self.first_of(self.rank + 1)
    }

    /// This rank's first entry.
    pub fn lo(&self) -> u64 {
        self.first_of(self.rank) * self.stride
    }

    /// The entry after this rank's last.
    pub fn hi(&self) -> u64 {
        self.first_of(self.rank + 1) * self.stride
    }

    /// Entries this rank owns, per side.
    pub fn len(&self) -> u64 {
        self.hi() - self.lo()
    }

    /// Whether this rank owns no entry (never, since each rank has a placement).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rank that owns entry `idx` (of either side).
    pub fn owner(&self, idx: u64) -> usize {
        let p = (idx / self.stride).min(self.placements - 1);
        // The inverse of `first_of`, then a step where the rounding put it one off.
        let mut r = ((p * self.ranks as u64) / self.placements) as usize;
        while r + 1 < self.ranks && self.first_of(r + 1) <= p {
            r += 1;
        }
        while r > 0 && self.first_of(r) > p {
            r -= 1;
        }
        r
    }

    /// This rank's work directory inside the material's `work` directory.
    pub fn work(&self, work: &Path) -> PathBuf {
        if self.ranks == 1 {
            work.to_path_buf()
        } else {
            work.join(format!("rank-{}-of-{}", self.rank, self.ranks))
        }
    }
}

/// `exchange`'s share of `ix`, or why there is none.
///
/// # Errors
/// More ranks than king placements.
pub(crate) fn share_of(exchange: &dyn Exchange, ix: &IndexScheme) -> Result<Share, ExchangeError> {
    exchange.share(ix).ok_or(ExchangeError::TooManyRanks {
        placements: ix.king_placements().len(),
    })
}

/// The partitions of a pass (see `kernel::pass::partitions`) restricted to the king placements
/// `share` owns, numbered from its first placement.
pub(crate) fn own_partitions(all: Vec<(Color, Vec<u64>)>, share: &Share) -> Vec<(Color, Vec<u64>)> {
    let own = share.placements();
    all.into_iter()
        .filter_map(|(side, v)| {
            let v: Vec<u64> = v
                .into_iter()
                .filter(|p| own.contains(p))
                .map(|p| p - own.start)
                .collect();
            (!v.is_empty()).then_some((side, v))
        })
        .collect()
}

/// Whether the ranks resume from their checkpoints: every one of the `ranks` has one
/// (`depth`), all of the same depth. When not, each starts again ([`start_again`]), as ranks
/// stopped between their checkpoints must.
pub(crate) fn agree(
    depth: Option<usize>,
    x: &dyn Exchange,
    ranks: usize,
) -> Result<bool, ExchangeError> {
    let d = depth.unwrap_or(0) as u64;
    let mut have = [u64::from(depth.is_some())];
    x.sum(&mut have)?;
    let mut range = [d, u64::MAX - d];
    x.max(&mut range)?;
    let same = range[0] == u64::MAX - range[1];
    if have[0] > 0 && !(have[0] == ranks as u64 && same) {
        log::warn!("the ranks' checkpoints differ; they start again");
    }
    Ok(have[0] == ranks as u64 && same)
}

/// Clears a rank's work directory `work` for a fresh start.
pub(crate) fn start_again(work: &Path) -> io::Result<()> {
    let _ = fs::remove_dir_all(work);
    fs::create_dir_all(work)
}

/// The bits of a predecessor's word that are not its entry.
const FLAGS: u64 = 3 << 62;

/// A predecessor for another rank: its entry, the side to move in it in the top bit, and in
/// the next one a flag of the node it came from (whether it was lost; the DTM solve reads
/// that from the depth's parity instead).
pub(crate) fn encode(mover: Color, idx: u64, flag: bool) -> u64 {
    idx | (u64::from(mover == Color::Black) << 63) | (u64::from(flag) << 62)
}

/// The side to move, entry and flag of a predecessor another rank sent.
pub(crate) fn decode(word: u64) -> (Color, u64, bool) {
    let side = if word >> 63 == 1 {
        Color::Black
    } else {
        Color::White
    };
    (side, word & !FLAGS, word >> 62 & 1 == 1)
}

pub use crate::error::ExchangeError;

/// Where a pass posts the predecessors owned by other ranks (from any of its threads).
pub struct Post {
    tx: SyncSender<(usize, Vec<u64>)>,
}

impl Post {
    /// Sends `batch` (encoded predecessors) to rank `dest`, waiting while too many batches are
    /// queued.
    pub(crate) fn send(&self, dest: usize, batch: Vec<u64>) {
        // The receiver lives until the pass has returned, so a send cannot fail while one runs.
        let _ = self.tx.send((dest, batch));
    }
}

/// A bounded queue of batches to send, and the `Post` that fills it.
pub(crate) fn post_queue() -> (Post, Receiver<(usize, Vec<u64>)>) {
    let (tx, rx) = mpsc::sync_channel(QUEUED);
    (Post { tx }, rx)
}

/// How the ranks of a split solve talk (see the module docs). Every rank calls the same
/// methods in the same order.
pub trait Exchange {
    /// This rank's share of the table `ix`; `None` when there are more ranks than king
    /// placements.
    fn share(&self, ix: &IndexScheme) -> Option<Share>;

    /// Replaces each value by its sum over the ranks.
    ///
    /// # Errors
    /// The transport failed.
    fn sum(&self, values: &mut [u64]) -> Result<(), ExchangeError>;

    /// Replaces each value by its largest over the ranks.
    ///
    /// # Errors
    /// The transport failed.
    fn max(&self, values: &mut [u64]) -> Result<(), ExchangeError>;

    /// Returns once every rank has called it: where the other ranks wait for rank 0's work
    /// alone (merging logs, writing files, building a sub-table), a transport that can sleeps
    /// while it waits rather than spinning on a core rank 0 needs.
    ///
    /// # Errors
    /// The transport failed.
    fn wait_all(&self) -> Result<(), ExchangeError> {
        self.sum(&mut [0])
    }

    /// Runs `pass` (on a thread of its own or this one) while sending each batch it posts to
    /// its rank, and gives `receive` every batch the other ranks post during the same pass.
    /// Returns once `pass` has returned and every rank has sent everything of this pass.
    ///
    /// # Errors
    /// The transport failed.
    fn pass(
        &self,
        pass: &(dyn Fn(&Post) + Sync),
        receive: &mut dyn FnMut(Vec<u64>),
    ) -> Result<(), ExchangeError>;
}

/// The batches sent to one rank of [`Threads`] (`None`: a sender's end of the pass).
type Mailbox = Mutex<Vec<Option<Vec<u64>>>>;

/// Ranks as threads of one process, for the tests: a mailbox per rank.
pub struct Threads {
    rank: usize,
    ranks: usize,
    /// Per rank, the batches sent to it this pass (`None`: the sender's end of the pass).
    boxes: Arc<Vec<Mailbox>>,
    /// Per rank, the values given to the current reduction.
    values: Arc<Mutex<Vec<Vec<u64>>>>,
    barrier: Arc<Barrier>,
    /// Predecessors this rank received in all.
    received: std::sync::atomic::AtomicU64,
}

impl Threads {
    /// Predecessors this rank has received from the others so far.
    pub fn received(&self) -> u64 {
        self.received.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The exchanges of `ranks` ranks, one for each thread.
    pub fn group(ranks: usize) -> Vec<Threads> {
        let boxes = Arc::new(
            (0..ranks)
                .map(|_| Mutex::new(Vec::new()))
                .collect::<Vec<_>>(),
        );
        let values = Arc::new(Mutex::new(vec![Vec::new(); ranks]));
        let barrier = Arc::new(Barrier::new(ranks));
        (0..ranks)
            .map(|rank| Threads {
                rank,
                ranks,
                boxes: Arc::clone(&boxes),
                values: Arc::clone(&values),
                barrier: Arc::clone(&barrier),
                received: std::sync::atomic::AtomicU64::new(0),
            })
            .collect()
    }

    fn reduce(&self, values: &mut [u64], op: fn(u64, u64) -> u64) -> Result<(), ExchangeError> {
        let poisoned = || ExchangeError::Transport("a rank's thread panicked");
        self.values.lock().map_err(|_| poisoned())?[self.rank] = values.to_vec();
        self.barrier.wait();
        {
            let all = self.values.lock().map_err(|_| poisoned())?;
            for (k, v) in values.iter_mut().enumerate() {
                *v = all
                    .iter()
                    .filter_map(|r| r.get(k).copied())
                    .reduce(op)
                    .unwrap_or(0);
            }
        }
        self.barrier.wait();
        Ok(())
    }
}

impl Exchange for Threads {
    fn share(&self, ix: &IndexScheme) -> Option<Share> {
        Share::of(ix, self.rank, self.ranks)
    }

    fn sum(&self, values: &mut [u64]) -> Result<(), ExchangeError> {
        self.reduce(values, u64::wrapping_add)
    }

    fn max(&self, values: &mut [u64]) -> Result<(), ExchangeError> {
        self.reduce(values, u64::max)
    }

    fn pass(
        &self,
        pass: &(dyn Fn(&Post) + Sync),
        receive: &mut dyn FnMut(Vec<u64>),
    ) -> Result<(), ExchangeError> {
        let poisoned = || ExchangeError::Transport("a rank's thread panicked");
        let (post, rx) = post_queue();
        std::thread::scope(|s| -> Result<(), ExchangeError> {
            let worker = s.spawn(move || pass(&post));
            for (dest, batch) in rx {
                self.boxes[dest]
                    .lock()
                    .map_err(|_| poisoned())?
                    .push(Some(batch));
            }
            worker.join().map_err(|_| poisoned())?;
            Ok(())
        })?;
        for b in self.boxes.iter() {
            b.lock().map_err(|_| poisoned())?.push(None);
        }
        self.barrier.wait();
        let mine = std::mem::take(&mut *self.boxes[self.rank].lock().map_err(|_| poisoned())?);
        let ends = mine.iter().filter(|b| b.is_none()).count();
        if ends != self.ranks {
            return Err(ExchangeError::Transport("a rank's end of pass is missing"));
        }
        for batch in mine.into_iter().flatten() {
            self.received
                .fetch_add(batch.len() as u64, std::sync::atomic::Ordering::Relaxed);
            receive(batch);
        }
        self.barrier.wait();
        Ok(())
    }
}

/// One pass of a split solve: runs `pass` (which posts the predecessors of other ranks and
/// returns what it found) while exchanging with the other ranks, keeping what arrives in an
/// inbox whose overflow goes to `inbox`; then calls `apply` on every predecessor received, in
/// local entries of `share` (side to move, entry - `share.lo()`, flag). Returns what `pass` returned
/// and how many predecessors arrived.
///
/// # Errors
/// The exchange failed, the inbox's work file failed, or a predecessor arrived that this
/// rank does not own.
pub(crate) fn split_pass<R: Send>(
    x: &dyn Exchange,
    share: &Share,
    inbox: PathBuf,
    pass: impl Fn(&Post) -> R + Sync,
    mut apply: impl FnMut(Color, u64, bool),
) -> Result<(R, u64), ExchangeError> {
    let found = Mutex::new(None);
    let mut inbox = Inbox::new(inbox);
    x.pass(
        &|post| {
            let r = pass(post);
            if let Ok(mut g) = found.lock() {
                *g = Some(r);
            }
        },
        &mut |batch| inbox.push(&batch),
    )?;
    let r = found
        .into_inner()
        .ok()
        .flatten()
        .ok_or(ExchangeError::Transport(
            "the pass ended without its result",
        ))?;
    let received = inbox.len();
    let (lo, len) = (share.lo(), share.len());
    let mut misrouted = 0u64;
    inbox.drain(|words| {
        for &w in words {
            let (mover, p, flag) = decode(w);
            let l = p.wrapping_sub(lo);
            if l < len {
                apply(mover, l, flag);
            } else {
                misrouted += 1;
            }
        }
    })?;
    if misrouted > 0 {
        return Err(ExchangeError::Misrouted(misrouted));
    }
    Ok((r, received))
}

/// Runs `f` on a thread per rank of `group` and returns what each returned, rank 0 first.
///
/// # Panics
/// When a rank's thread panics (a test's assertion).
#[cfg(test)]
pub(crate) fn on_ranks<R: Send>(group: &[Threads], f: impl Fn(&Threads) -> R + Sync) -> Vec<R> {
    std::thread::scope(|s| {
        let f = &f;
        let hs: Vec<_> = group.iter().map(|x| s.spawn(move || f(x))).collect();
        hs.into_iter().map(|h| h.join().expect("rank")).collect()
    })
}

/// The predecessors a rank received during a pass, to apply after it: in memory up to
/// [`INBOX_MEMORY`], the rest in a work file.
pub(crate) struct Inbox {
    kept: Vec<u64>,
    path: PathBuf,
    spill: Option<BufWriter<File>>,
    spilled: u64,
    failed: Option<io::Error>,
}

impl Inbox {
    /// An empty inbox whose overflow goes to `path`.
    pub(crate) fn new(path: PathBuf) -> Inbox {
        Inbox {
            kept: Vec::new(),
            path,
            spill: None,
            spilled: 0,
            failed: None,
        }
    }

    /// Adds a received batch.
    pub(crate) fn push(&mut self, batch: &[u64]) {
        if self.kept.len() + batch.len() <= INBOX_MEMORY / 8 {
            self.kept.extend_from_slice(batch);
            return;
        }
        if self.failed.is_some() {
            return;
        }
        let r = (|| -> io::Result<()> {
            if self.spill.is_none() {
                self.spill = Some(BufWriter::new(File::create(&self.path)?));
            }
            if let Some(w) = self.spill.as_mut() {
                for &x in batch {
                    w.write_all(&x.to_le_bytes())?;
                }
            }
            Ok(())
        })();
        match r {
            Ok(()) => self.spilled += batch.len() as u64,
            Err(e) => self.failed = Some(e),
        }
    }

    /// Predecessors received in all.
    pub(crate) fn len(&self) -> u64 {
        self.kept.len() as u64 + self.spilled
    }

    /// Calls `f` on every received predecessor in slices, then empties the inbox.
    ///
    /// # Errors
    /// The overflow file could not be written or read.
    pub(crate) fn drain(&mut self, mut f: impl FnMut(&[u64])) -> io::Result<()> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        f(&self.kept);
        self.kept.clear();
        if let Some(w) = self.spill.take() {
            w.into_inner().map_err(|e| e.into_error())?;
            let mut r = BufReader::new(File::open(&self.path)?);
            let mut buf = vec![0u8; 8 * BATCH];
            let mut words = Vec::with_capacity(BATCH);
            let mut left = self.spilled;
            while left > 0 {
                let n = left.min(BATCH as u64) as usize;
                r.read_exact(&mut buf[..8 * n])?;
                words.clear();
                words.extend(
                    buf[..8 * n].chunks_exact(8).map(|c| {
                        u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])
                    }),
                );
                f(&words);
                left -= n as u64;
            }
            fs::remove_file(&self.path)?;
            self.spilled = 0;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_tables::Material;

    #[test]
    fn the_shares_cover_the_table_once_and_owner_finds_them() {
        for name in ["KQvK", "KQvKR", "KRNvKNN", "KNNvK"] {
            let ix = IndexScheme::new(name.parse::<Material>().expect("material").canonical());
            for ranks in [1, 2, 3, 4, 7, 462] {
                let shares: Vec<Share> = (0..ranks)
                    .map(|r| Share::of(&ix, r, ranks).expect("share"))
                    .collect();
                assert_eq!(shares[0].lo(), 0);
                assert_eq!(shares[ranks - 1].hi(), ix.size());
                for w in shares.windows(2) {
                    assert_eq!(w[0].hi(), w[1].lo(), "{name}, {ranks} ranks");
                }
                for s in &shares {
                    assert!(!s.is_empty());
                    for idx in [s.lo(), s.hi() - 1, (s.lo() + s.hi()) / 2] {
                        assert_eq!(shares[0].owner(idx), s.rank, "{name} entry {idx}");
                    }
                }
            }
            assert!(Share::of(&ix, 0, 463).is_none() && Share::of(&ix, 3, 3).is_none());
        }
    }

    /// What the split rests on: moving any piece but a king keeps the entry in its king
    /// placement (so on its rank), whatever symmetry the index applies; moving a king is what
    /// crosses (it does for some entries, or the split would not need to exchange anything).
    #[test]
    fn only_king_moves_leave_a_rank() {
        let mut rng = fastrand::Rng::with_seed(7);
        for name in ["KQvKR", "KRNvKNN", "KNNvK", "KBBvKN"] {
            let ix = IndexScheme::new(name.parse::<Material>().expect("material").canonical());
            let n = ix.piece_count();
            let (mut moved, mut crossed) = (0, 0);
            for _ in 0..20_000 {
                let idx = rng.u64(0..ix.size());
                let Some(sq) = ix.decode(idx) else {
                    continue;
                };
                let slot = rng.usize(0..n);
                let to = rng.u8(0..64);
                if sq[..n].contains(&to) {
                    continue;
                }
                let mut after = sq;
                after[slot] = to;
                let Some(p) = ix.index(&after) else {
                    continue;
                };
                let ranks = rng.usize(2..8);
                let share = Share::of(&ix, 0, ranks).expect("share");
                if slot >= 2 {
                    moved += 1;
                    assert_eq!(
                        p / ix.king_stride(),
                        idx / ix.king_stride(),
                        "{name}: {idx} -> {p}"
                    );
                    assert_eq!(share.owner(p), share.owner(idx));
                } else if share.owner(p) != share.owner(idx) {
                    crossed += 1;
                }
            }
            assert!(
                moved > 1000 && crossed > 100,
                "{name}: {moved} moved, {crossed} crossed"
            );
        }
    }

    #[test]
    fn more_ranks_than_placements_are_refused() {
        let ix = IndexScheme::new("KQvK".parse::<Material>().expect("material"));
        let group = Threads::group(463);
        assert!(matches!(
            share_of(&group[0], &ix),
            Err(ExchangeError::TooManyRanks { placements: 462 })
        ));
        assert!(share_of(&Threads::group(462)[461], &ix).is_ok());
    }

    #[test]
    fn predecessors_encode_their_side() {
        for (side, idx) in [
            (Color::White, 0),
            (Color::Black, 0),
            (Color::Black, (1 << 40) + 3),
        ] {
            for flag in [false, true] {
                assert_eq!(decode(encode(side, idx, flag)), (side, idx, flag));
            }
        }
    }

    #[test]
    fn an_inbox_gives_back_what_it_kept_and_spilled() {
        let dir = tempfile::tempdir().expect("dir");
        let mut inbox = Inbox::new(dir.path().join("inbox.bin"));
        let n = INBOX_MEMORY / 8 + 3 * BATCH + 5;
        let all: Vec<u64> = (0..n as u64).map(|i| i * 7).collect();
        for c in all.chunks(1000) {
            inbox.push(c);
        }
        assert_eq!(inbox.len(), n as u64);
        let mut got = Vec::new();
        inbox.drain(|s| got.extend_from_slice(s)).expect("drain");
        assert_eq!(got, all);
        assert!(!dir.path().join("inbox.bin").exists());
    }

    #[test]
    fn threads_reduce_and_deliver_every_batch() {
        let group = Threads::group(3);
        let got: Vec<(Vec<u64>, Vec<u64>)> = std::thread::scope(|s| {
            let handles: Vec<_> = group
                .iter()
                .map(|x| {
                    s.spawn(move || {
                        let mut v = [x.rank as u64 + 1, 10];
                        x.sum(&mut v).expect("sum");
                        let mut m = [x.rank as u64];
                        x.max(&mut m).expect("max");
                        let mut received = Vec::new();
                        x.pass(
                            &|post| {
                                for dest in 0..3 {
                                    post.send(dest, vec![x.rank as u64 * 10 + dest as u64]);
                                }
                            },
                            &mut |b| received.extend(b),
                        )
                        .expect("pass");
                        received.sort_unstable();
                        (vec![v[0], v[1], m[0]], received)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("rank"))
                .collect()
        });
        for (r, (sums, received)) in got.into_iter().enumerate() {
            assert_eq!(sums, vec![6, 30, 2]);
            let r = r as u64;
            assert_eq!(received, vec![r, 10 + r, 20 + r]);
        }
    }
}
