//! Checkpoints of the compact passes, so that a stopped build resumes at the depth it had
//! reached instead of starting over: the state bytes and the frontier of the depth about to be
//! completed, a few numbers (the depth, the lengths of the logs), and what the solve keeps in
//! memory for later depths.
//!
//! A checkpoint's files carry its generation (the depth) in their names, and a small mark file,
//! written last through a rename, names the generation that is whole; the files of older
//! generations are removed after it. A build stopped while writing one resumes from the one
//! before.

use std::{
    fs,
    io::{self, BufReader, BufWriter, Read, Write},
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed},
};

use shakmaty::{ByColor, Color};

use crate::kernel::{frontier::Frontier, king_slot, memory::Atomics, side_of_bit, SIDES};

/// Bytes copied at a time.
const CHUNK: usize = 1 << 20;

/// A checkpoint's numbers: what the mark file holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Mark {
    /// The generation (the depth about to be completed).
    pub(super) depth: usize,
    /// Other numbers the solve needs back (log lengths, counts), in its own order.
    pub(super) numbers: Vec<u64>,
}

fn file(work: &Path, kind: &str, name: &str, generation: usize) -> PathBuf {
    work.join(format!("{kind}.ckpt.{name}.{generation}"))
}

fn mark_path(work: &Path, kind: &str) -> PathBuf {
    work.join(format!("{kind}.ckpt"))
}

fn bad(path: &Path, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {why}", path.display()),
    )
}

/// Writes the state bytes `bytes` to `path`, synced.
fn save_bytes(path: &Path, bytes: &[AtomicU8]) -> io::Result<()> {
    let mut w = BufWriter::with_capacity(CHUNK, fs::File::create(path)?);
    let mut buf = Vec::with_capacity(CHUNK);
    for chunk in bytes.chunks(CHUNK) {
        buf.clear();
        buf.extend(chunk.iter().map(|b| b.load(Relaxed)));
        w.write_all(&buf)?;
    }
    w.into_inner().map_err(|e| e.into_error())?.sync_all()
}

/// Reads the state bytes at `path` into `bytes` (the file must hold exactly as many).
fn load_bytes(path: &Path, bytes: &[AtomicU8]) -> io::Result<()> {
    let f = fs::File::open(path)?;
    if f.metadata()?.len() != bytes.len() as u64 {
        return Err(bad(path, "not the length of the state"));
    }
    let mut r = BufReader::with_capacity(CHUNK, f);
    let mut buf = vec![0u8; CHUNK];
    for chunk in bytes.chunks(CHUNK) {
        let b = &mut buf[..chunk.len()];
        r.read_exact(b)?;
        for (a, &v) in chunk.iter().zip(b.iter()) {
            a.store(v, Relaxed);
        }
    }
    Ok(())
}

/// Writes the words `words` (little-endian) to `path`, synced.
fn save_words(path: &Path, words: &[AtomicU64]) -> io::Result<()> {
    let mut w = BufWriter::with_capacity(CHUNK, fs::File::create(path)?);
    for x in words {
        w.write_all(&x.load(Relaxed).to_le_bytes())?;
    }
    w.into_inner().map_err(|e| e.into_error())?.sync_all()
}

/// Reads the words at `path` into `words`.
fn load_words(path: &Path, words: &[AtomicU64]) -> io::Result<()> {
    let f = fs::File::open(path)?;
    if f.metadata()?.len() != 8 * words.len() as u64 {
        return Err(bad(path, "not the length of the bitmap"));
    }
    let mut r = BufReader::with_capacity(CHUNK, f);
    let mut b = [0u8; 8];
    for x in words {
        r.read_exact(&mut b)?;
        x.store(u64::from_le_bytes(b), Relaxed);
    }
    Ok(())
}

/// Writes a checkpoint of kind `kind` (`dtm`, `dtz`): the state of both sides, the frontier
/// `cur`, the extra bytes `extra` (what the solve keeps for later depths) and `mark`; then
/// removes the files of the generation before (`previous`).
pub(super) fn save(
    work: &Path,
    kind: &str,
    state: &ByColor<Atomics<AtomicU8>>,
    cur: &Frontier,
    extra: &[u8],
    mark: &Mark,
    previous: Option<usize>,
) -> io::Result<()> {
    let g = mark.depth;
    for side in SIDES {
        let k = king_slot(side);
        save_bytes(&file(work, kind, &format!("state{k}"), g), &state[side])?;
        save_words(
            &file(work, kind, &format!("frontier{k}"), g),
            &cur.bits[side],
        )?;
    }
    let extra_path = file(work, kind, "extra", g);
    let mut f = fs::File::create(&extra_path)?;
    f.write_all(extra)?;
    f.sync_all()?;
    let text = std::iter::once(g as u64)
        .chain(mark.numbers.iter().copied())
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let tmp = mark_path(work, kind).with_extension("ckpt.tmp");
    let mut m = fs::File::create(&tmp)?;
    m.write_all(text.as_bytes())?;
    m.sync_all()?;
    fs::rename(&tmp, mark_path(work, kind))?;
    if let Some(p) = previous.filter(|&p| p != g) {
        remove(work, kind, p);
    }
    Ok(())
}

/// Removes the files of generation `g` (errors ignored: they are only left-overs).
fn remove(work: &Path, kind: &str, g: usize) {
    for name in ["state0", "state1", "frontier0", "frontier1", "extra"] {
        let _ = fs::remove_file(file(work, kind, name, g));
    }
}

/// Removes every checkpoint file of kind `kind` (the mark first, so that no half-removed
/// checkpoint is ever taken for a whole one): once the phase it served is done and marked, its
/// checkpoints are only disk space (for a 6-piece table, about two bytes a position).
pub(crate) fn discard(work: &Path, kind: &str) -> io::Result<()> {
    match fs::remove_file(mark_path(work, kind)) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let prefix = format!("{kind}.ckpt.");
    for entry in fs::read_dir(work)? {
        let entry = entry?;
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

/// The mark of the last whole checkpoint of kind `kind`, if there is one.
pub(super) fn mark(work: &Path, kind: &str) -> io::Result<Option<Mark>> {
    let path = mark_path(work, kind);
    let text = match fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let nums: Vec<u64> = text
        .split_whitespace()
        .map(|t| t.parse().map_err(|_| bad(&path, "not a number")))
        .collect::<io::Result<_>>()?;
    let Some((&g, rest)) = nums.split_first() else {
        return Err(bad(&path, "empty"));
    };
    Ok(Some(Mark {
        depth: g as usize,
        numbers: rest.to_vec(),
    }))
}

/// Reads checkpoint `mark` of kind `kind` back: the state of both sides and the frontier
/// into `state` and `cur`; returns the extra bytes.
pub(super) fn load(
    work: &Path,
    kind: &str,
    mark: &Mark,
    state: &ByColor<Atomics<AtomicU8>>,
    cur: &Frontier,
) -> io::Result<Vec<u8>> {
    let g = mark.depth;
    for side in SIDES {
        let k = king_slot(side);
        load_bytes(&file(work, kind, &format!("state{k}"), g), &state[side])?;
        load_words(
            &file(work, kind, &format!("frontier{k}"), g),
            &cur.bits[side],
        )?;
    }
    cur.summarize();
    fs::read(file(work, kind, "extra", g))
}

/// Packs `(depth, side, entry)` triples for a checkpoint's extra bytes (the side as one byte,
/// `king_slot`: 0 white, 1 black).
pub(super) fn pack_triples(v: impl Iterator<Item = (usize, Color, u64)>) -> Vec<u8> {
    let mut out = Vec::new();
    for (d, s, i) in v {
        out.extend_from_slice(&(d as u32).to_le_bytes());
        out.push(king_slot(s) as u8);
        out.extend_from_slice(&i.to_le_bytes());
    }
    out
}

/// The triples of [`pack_triples`]; `None` for bytes that are not whole triples.
pub(super) fn unpack_triples(b: &[u8]) -> Option<Vec<(usize, Color, u64)>> {
    if !b.len().is_multiple_of(13) {
        return None;
    }
    Some(
        b.chunks_exact(13)
            .map(|c| {
                let d = u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize;
                let mut w = [0u8; 8];
                w.copy_from_slice(&c[5..13]);
                (d, side_of_bit(u64::from(c[4])), u64::from_le_bytes(w))
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::memory::Pages;

    #[test]
    fn a_checkpoint_reads_back_and_replaces_the_one_before() {
        let dir = tempfile::tempdir().expect("dir");
        let n = 5000u64;
        let state = ByColor::new_with(|_| Atomics::<AtomicU8>::zeroed(n as usize, Pages::Default));
        for (i, b) in state.black.iter().enumerate() {
            b.store((i % 251) as u8, Relaxed);
        }
        let cur = Frontier::new(n);
        cur.mark(Color::White, 17);
        cur.mark(Color::Black, 4999);
        let extra =
            pack_triples([(523, Color::Black, 7u64), (100, Color::White, 1 << 40)].into_iter());
        let m = Mark {
            depth: 3,
            numbers: vec![11, 12],
        };
        save(dir.path(), "dtm", &state, &cur, &extra, &m, None).expect("saved");
        let m2 = Mark {
            depth: 4,
            numbers: vec![13],
        };
        save(dir.path(), "dtm", &state, &cur, &extra, &m2, Some(3)).expect("saved");
        assert!(!file(dir.path(), "dtm", "state0", 3).exists());
        let got = mark(dir.path(), "dtm").expect("read").expect("a mark");
        assert_eq!(got, m2);
        let back = ByColor::new_with(|_| Atomics::<AtomicU8>::zeroed(n as usize, Pages::Default));
        let cur2 = Frontier::new(n);
        let extra2 = load(dir.path(), "dtm", &got, &back, &cur2).expect("loaded");
        assert_eq!(unpack_triples(&extra2), unpack_triples(&extra));
        assert_eq!(
            unpack_triples(&extra2).expect("triples")[0],
            (523, Color::Black, 7)
        );
        for (i, b) in back.black.iter().enumerate() {
            assert_eq!(b.load(Relaxed), (i % 251) as u8);
        }
        let mut marked = Vec::new();
        cur2.take_range(Color::White, 0, n, |i| marked.push(i));
        cur2.take_range(Color::Black, 0, n, |i| marked.push(i));
        assert_eq!(marked, vec![17, 4999]);
        // A damaged state file is an error, not a wrong state.
        std::fs::write(file(dir.path(), "dtm", "state0", 4), b"short").expect("write");
        assert!(load(dir.path(), "dtm", &got, &back, &cur2).is_err());
        assert!(mark(&dir.path().join("none"), "dtm").expect("ok").is_none());
        std::fs::write(dir.path().join("dtz.ckpt"), b"1").expect("write");
        discard(dir.path(), "dtm").expect("discarded");
        assert!(mark(dir.path(), "dtm").expect("ok").is_none());
        assert!(!file(dir.path(), "dtm", "state0", 4).exists());
        assert!(
            dir.path().join("dtz.ckpt").exists(),
            "another kind's files stay"
        );
    }
}
