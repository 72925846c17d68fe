//! Writing a file atomically: readers see the old file or the whole new one, never a part.

use std::{
    fs::{self, File},
    io::{self, BufWriter, Write},
    path::Path,
};

/// Writes the file `path` through `write`, atomically: into a temporary file beside it (hidden,
/// named for the file and this process, so that two processes never share one), flushed,
/// synced and renamed into place. On an error the temporary file is removed and the old file,
/// if any, stays. Returns the new file's length.
///
/// # Errors
/// The first error of `write`, or an I/O error (as `E`) creating, syncing or renaming the file.
pub fn write_atomic<E: From<io::Error>>(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<(), E>,
) -> Result<u64, E> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp.{}", std::process::id()));
    let result = (|| {
        let mut f = BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        write(&mut f)?;
        f.flush()?;
        let f = f.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        let len = f.metadata()?.len();
        drop(f);
        fs::rename(&tmp, path)?;
        Ok(len)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary_one() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("f.bin");
        let n = write_atomic::<io::Error>(&path, |f| f.write_all(b"old")).expect("written");
        assert_eq!(n, 3);
        let failed = write_atomic::<io::Error>(&path, |f| {
            f.write_all(b"new, half")?;
            Err(io::Error::other("interrupted"))
        });
        assert!(failed.is_err());
        assert_eq!(fs::read(&path).expect("read"), b"old");
        let names: Vec<_> = fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("f.bin")]);
    }
}
