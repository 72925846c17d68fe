//! Where a long check (`--verify` of a 6-piece table) has got to, kept in a small file so that
//! a stopped check goes on from the last batch it finished, not from the start.
//!
//! The file names the tables it belongs to by their lengths and modification times (a table
//! rebuilt since starts the check over) and holds the stage (a side or a pass), the next batch
//! of blocks, the counts so far, one more number of the check's own (a work file's length), and
//! the examples of mismatches found so far.

use std::{
    fs, io,
    path::{Path, PathBuf},
    time::UNIX_EPOCH,
};

/// A check's progress.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Reached {
    /// The stage (a side to move, a pass).
    pub(crate) stage: u64,
    /// The first batch of blocks of the stage not done.
    pub(crate) next: u64,
    /// Positions checked.
    pub(crate) checked: u64,
    /// Mismatches found.
    pub(crate) mismatches: u64,
    /// A number of the check's own.
    pub(crate) extra: u64,
    /// Examples of mismatches: FEN, stored, recomputed.
    pub(crate) examples: Vec<(String, String, String)>,
}

/// The progress file of one check.
pub(crate) struct ProgressFile {
    path: PathBuf,
    fingerprint: String,
}

/// The lengths and modification times of `tables`.
fn fingerprint(tables: &[&Path]) -> io::Result<String> {
    let mut parts = Vec::new();
    for t in tables {
        let m = fs::metadata(t)?;
        let nanos = m
            .modified()?
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        parts.push(format!("{}:{nanos}", m.len()));
    }
    Ok(parts.join(" "))
}

impl ProgressFile {
    /// The progress file `name` in `work` of a check of `tables`.
    pub(crate) fn new(work: &Path, name: &str, tables: &[&Path]) -> io::Result<ProgressFile> {
        Ok(ProgressFile {
            path: work.join(format!("{name}.progress")),
            fingerprint: fingerprint(tables)?,
        })
    }

    /// The progress saved for the same tables, if there is one (else a check starts over).
    pub(crate) fn load(&self) -> Option<Reached> {
        let text = fs::read_to_string(&self.path).ok()?;
        let mut lines = text.lines();
        if lines.next()? != self.fingerprint {
            return None;
        }
        let nums: Vec<u64> = lines
            .next()?
            .split_whitespace()
            .map(|t| t.parse().ok())
            .collect::<Option<_>>()?;
        let [stage, next, checked, mismatches, extra] = nums[..] else {
            return None;
        };
        let examples = lines
            .map(|l| {
                let mut f = l.split('\t').map(str::to_string);
                Some((f.next()?, f.next()?, f.next()?))
            })
            .collect::<Option<_>>()?;
        Some(Reached {
            stage,
            next,
            checked,
            mismatches,
            extra,
            examples,
        })
    }

    /// Saves `p` (atomically: a stop while saving leaves the one before).
    pub(crate) fn save(&self, p: &Reached) -> io::Result<()> {
        let mut text = format!(
            "{}\n{} {} {} {} {}\n",
            self.fingerprint, p.stage, p.next, p.checked, p.mismatches, p.extra
        );
        for (a, b, c) in &p.examples {
            text.push_str(&format!("{a}\t{b}\t{c}\n"));
        }
        retro_tables::write_atomic(&self.path, |f| io::Write::write_all(f, text.as_bytes()))
            .map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_reads_back_for_the_same_tables_only() {
        let dir = tempfile::tempdir().expect("dir");
        let table = dir.path().join("t.rtbw");
        fs::write(&table, b"abc").expect("write");
        let f = ProgressFile::new(dir.path(), "dtm", &[&table]).expect("file");
        assert_eq!(f.load(), None);
        let p = Reached {
            stage: 1,
            next: 40,
            checked: 123,
            mismatches: 2,
            extra: 9,
            examples: vec![("8/8/8 w - - 0 1".into(), "win 3".into(), "win 5".into())],
        };
        f.save(&p).expect("saved");
        assert_eq!(f.load(), Some(p));
        fs::write(&table, b"abcd").expect("rewrite");
        let g = ProgressFile::new(dir.path(), "dtm", &[&table]).expect("file");
        assert_eq!(g.load(), None, "a rebuilt table starts over");
    }
}
