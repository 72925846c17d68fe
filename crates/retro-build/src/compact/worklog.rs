//! Ascending entry numbers on disk, delta-coded: the values of the compact solve, depth by depth
//! ([`DepthLog`]), and its seeds, one file per side and depth.
//!
//! A file is a sequence of records: depth (u16), entry count (u64), byte length (u64), then the
//! entries as LEB128 varints, the first one whole and each next one as its difference from the
//! one before (entries of a record ascend strictly). All integers little-endian.

use std::{
    fs::{File, OpenOptions},
    io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write},
    path::{Path, PathBuf},
};

/// Bytes of a record's head: depth, count, byte length.
const HEAD: usize = 2 + 8 + 8;

/// Appends `v` as a LEB128 varint.
#[inline]
fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Ascending entries being delta-coded into one record.
#[derive(Default)]
pub(super) struct Run {
    bytes: Vec<u8>,
    count: u64,
    last: Option<u64>,
}

impl Run {
    /// Adds `idx`, which must be above the last one added.
    #[inline]
    pub(super) fn push(&mut self, idx: u64) {
        let delta = match self.last {
            Some(l) => idx.wrapping_sub(l),
            None => idx,
        };
        put_varint(&mut self.bytes, delta);
        self.last = Some(idx);
        self.count += 1;
    }

    /// Entries added.
    pub(super) fn len(&self) -> u64 {
        self.count
    }

    /// Bytes taken so far.
    pub(super) fn bytes(&self) -> usize {
        self.bytes.len()
    }

    /// Writes the run as one record of `depth` and empties it.
    pub(super) fn write_to(&mut self, depth: u16, w: &mut impl Write) -> io::Result<()> {
        if self.count == 0 {
            return Ok(());
        }
        w.write_all(&depth.to_le_bytes())?;
        w.write_all(&self.count.to_le_bytes())?;
        w.write_all(&(self.bytes.len() as u64).to_le_bytes())?;
        w.write_all(&self.bytes)?;
        *self = Run::default();
        Ok(())
    }
}

/// Reads every record of the file at `path` (none if it does not exist), calling `f` with each
/// record's depth and entries, in the file's order.
///
/// # Errors
/// An I/O error, or a record that is cut short or does not decode to its count (a work file
/// damaged by something else than this process).
pub(super) fn read_records(path: &Path, mut f: impl FnMut(u16, &[u64])) -> io::Result<()> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let mut r = BufReader::with_capacity(1 << 20, file);
    let mut head = [0u8; HEAD];
    let mut bytes = Vec::new();
    let mut entries = Vec::new();
    let bad = |why: &str| io::Error::new(io::ErrorKind::InvalidData, format!("{path:?}: {why}"));
    loop {
        match r.read_exact(&mut head) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e),
        }
        let depth = u16::from_le_bytes([head[0], head[1]]);
        let mut w = [0u8; 8];
        w.copy_from_slice(&head[2..10]);
        let count = u64::from_le_bytes(w);
        w.copy_from_slice(&head[10..18]);
        let len = u64::from_le_bytes(w);
        // A varint takes at least one byte and at most ten.
        if count > len || len > count.saturating_mul(10) || len > 1 << 34 {
            return Err(bad("a record's head does not match its length"));
        }
        bytes.resize(len as usize, 0);
        r.read_exact(&mut bytes)?;
        entries.clear();
        let (mut v, mut shift, mut last) = (0u64, 0u32, None::<u64>);
        for &b in &bytes {
            if shift >= 64 {
                return Err(bad("a varint longer than 64 bits"));
            }
            v |= u64::from(b & 0x7F) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                let idx = match last {
                    Some(l) => l.wrapping_add(v),
                    None => v,
                };
                entries.push(idx);
                last = Some(idx);
                v = 0;
                shift = 0;
            }
        }
        if entries.len() as u64 != count || shift != 0 {
            return Err(bad("a record does not decode to its count"));
        }
        f(depth, &entries);
    }
}

/// Files of ascending entries by key (one per side and depth, say), created as the first
/// entries of a key come, each written as records of its depth once it holds a megabyte and at
/// [`SeedFiles::finish`].
#[derive(Default)]
pub(super) struct SeedFiles {
    files: std::collections::BTreeMap<PathBuf, (BufWriter<File>, Run, u16)>,
}

impl SeedFiles {
    /// Appends `entries` (ascending, above those appended before to the same file) to the file
    /// at `path`, as entries of `depth`.
    pub(super) fn push(&mut self, path: PathBuf, depth: u16, entries: &[u64]) -> io::Result<()> {
        let slot = match self.files.entry(path) {
            std::collections::btree_map::Entry::Occupied(o) => o.into_mut(),
            std::collections::btree_map::Entry::Vacant(v) => {
                let f = File::create(v.key())?;
                v.insert((BufWriter::with_capacity(1 << 16, f), Run::default(), depth))
            }
        };
        for &i in entries {
            slot.1.push(i);
        }
        if slot.1.bytes() > 1 << 20 {
            slot.1.write_to(slot.2, &mut slot.0)?;
        }
        Ok(())
    }

    /// Writes what is left and closes the files.
    pub(super) fn finish(self) -> io::Result<()> {
        for (_, (mut w, mut run, depth)) in self.files {
            run.write_to(depth, &mut w)?;
            w.flush()?;
        }
        Ok(())
    }
}

/// The file of one side's values, depth by depth, appended to as the solve goes: a decided
/// entry's depth is the depth of the record that holds it.
pub(super) struct DepthLog {
    path: PathBuf,
    out: BufWriter<File>,
}

impl DepthLog {
    /// Opens `path` for appending, cut to `keep` bytes (what a checkpoint recorded; 0 for a new
    /// solve).
    pub(super) fn open(path: PathBuf, keep: u64) -> io::Result<DepthLog> {
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .write(true)
            .truncate(false)
            .open(&path)?;
        file.set_len(keep)?;
        file.seek(SeekFrom::End(0))?;
        Ok(DepthLog {
            path,
            out: BufWriter::with_capacity(1 << 20, file),
        })
    }

    /// Appends `run` as a record of `depth` (emptying it).
    pub(super) fn append(&mut self, depth: u16, run: &mut Run) -> io::Result<()> {
        run.write_to(depth, &mut self.out)
    }

    /// Writes what is buffered and syncs the file; returns its length.
    pub(super) fn sync(&mut self) -> io::Result<u64> {
        self.out.flush()?;
        let f = self.out.get_ref();
        f.sync_data()?;
        f.metadata().map(|m| m.len())
    }

    /// The file.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_damage_is_an_error() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("log");
        let mut log = DepthLog::open(path.clone(), 0).expect("open");
        let mut run = Run::default();
        let a: Vec<u64> = vec![0, 1, 127, 128, 16_384, 1 << 40, (1 << 40) + 3];
        for &i in &a {
            run.push(i);
        }
        log.append(7, &mut run).expect("append");
        assert_eq!(run.len(), 0);
        run.push(5);
        log.append(523, &mut run).expect("append");
        let len = log.sync().expect("sync");
        let mut got = Vec::new();
        read_records(&path, |d, e| got.push((d, e.to_vec()))).expect("read");
        assert_eq!(got, vec![(7, a.clone()), (523, vec![5])]);
        // Reopened at a checkpoint's length: what came after is gone.
        let mut log = DepthLog::open(path.clone(), len).expect("open");
        run.push(9);
        log.append(8, &mut run).expect("append");
        log.sync().expect("sync");
        let mut log = DepthLog::open(path.clone(), len).expect("open");
        log.sync().expect("sync");
        let mut n = 0;
        read_records(&path, |_, _| n += 1).expect("read");
        assert_eq!(n, 2);
        // A record cut short.
        let bytes = std::fs::read(&path).expect("read");
        std::fs::write(&path, &bytes[..bytes.len() - 1]).expect("write");
        assert!(read_records(&path, |_, _| {}).is_err());
        // A head that claims more than it holds.
        let mut bad = bytes.clone();
        bad[2] = 0xFF;
        std::fs::write(&path, &bad).expect("write");
        assert!(read_records(&path, |_, _| {}).is_err());
        assert!(read_records(&dir.path().join("none"), |_, _| {}).is_ok());
    }
}
