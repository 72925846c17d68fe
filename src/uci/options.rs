//! The UCI options: their declarations for `uci`, and `setoption` with range checks.

use std::path::PathBuf;

use crate::config::{Config, HASH_RANGE, OVERHEAD_RANGE, THREADS_RANGE};

/// The option values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Hash in MB.
    pub hash: usize,
    /// Search threads.
    pub threads: usize,
    /// Move Overhead in ms.
    pub move_overhead: u64,
    /// TablePath (empty: no tables).
    pub table_path: PathBuf,
    /// Ponder (the GUI tells whether it will send `go ponder`; nothing changes here).
    pub ponder: bool,
}

/// What a `setoption` changed that the engine must act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionChange {
    /// Nothing more to do.
    None,
    /// Resize the hash table (the old size, to go back to if that fails).
    Hash(usize),
    /// The Clear Hash button.
    ClearHash,
    /// Open the tables of the new path.
    TablePath,
    /// The Show DTM button.
    ShowDtm,
    /// The Show Legality button.
    ShowLegality,
}

impl Options {
    /// The defaults of `engine.toml`.
    pub fn from_config(c: &Config) -> Options {
        Options {
            hash: c.hash,
            threads: c.threads,
            move_overhead: c.move_overhead,
            table_path: c.table_path.clone(),
            ponder: false,
        }
    }

    /// The `option` lines of the `uci` answer.
    pub fn declarations(&self) -> Vec<String> {
        vec![
            format!(
                "option name Hash type spin default {} min {} max {}",
                self.hash,
                HASH_RANGE.start(),
                HASH_RANGE.end()
            ),
            format!(
                "option name Threads type spin default {} min {} max {}",
                self.threads,
                THREADS_RANGE.start(),
                THREADS_RANGE.end()
            ),
            format!(
                "option name Move Overhead type spin default {} min {} max {}",
                self.move_overhead,
                OVERHEAD_RANGE.start(),
                OVERHEAD_RANGE.end()
            ),
            format!(
                "option name TablePath type string default {}",
                if self.table_path.as_os_str().is_empty() {
                    "<empty>".to_string()
                } else {
                    self.table_path.display().to_string()
                }
            ),
            "option name Ponder type check default false".to_string(),
            "option name Clear Hash type button".to_string(),
            "option name Show DTM type button".to_string(),
            "option name Show Legality type button".to_string(),
        ]
    }

    /// Applies `setoption name <name> value <value>`. Names are matched without regard to
    /// case.
    ///
    /// # Errors
    /// An unknown option, a missing or malformed value, or one out of range; the option keeps
    /// its value.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<OptionChange, String> {
        let key = name.trim().to_ascii_lowercase();
        let need = |v: Option<&str>| {
            v.map(str::trim)
                .filter(|v| !v.is_empty())
                .ok_or_else(|| format!("option {name} needs a value"))
                .map(str::to_string)
        };
        match key.as_str() {
            "hash" => {
                let old = self.hash;
                self.hash = spin(name, &need(value)?, HASH_RANGE)?;
                Ok(OptionChange::Hash(old))
            }
            "threads" => {
                self.threads = spin(name, &need(value)?, THREADS_RANGE)?;
                Ok(OptionChange::None)
            }
            "move overhead" => {
                self.move_overhead = spin(name, &need(value)?, OVERHEAD_RANGE)?;
                Ok(OptionChange::None)
            }
            "tablepath" => {
                let v = value.map(str::trim).unwrap_or("");
                let path = if v.is_empty() || v == "<empty>" {
                    PathBuf::new()
                } else {
                    PathBuf::from(v)
                };
                if !path.as_os_str().is_empty() && !path.is_dir() {
                    return Err(format!(
                        "TablePath: '{}' is not a directory; keeping {}",
                        path.display(),
                        self.table_path.display()
                    ));
                }
                self.table_path = path;
                Ok(OptionChange::TablePath)
            }
            "ponder" => {
                self.ponder = match need(value)?.to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    v => return Err(format!("option Ponder takes true or false, not '{v}'")),
                };
                Ok(OptionChange::None)
            }
            "clear hash" => Ok(OptionChange::ClearHash),
            "show dtm" => Ok(OptionChange::ShowDtm),
            "show legality" => Ok(OptionChange::ShowLegality),
            _ => Err(format!("unknown option '{name}'")),
        }
    }
}

fn spin<T>(name: &str, v: &str, range: std::ops::RangeInclusive<T>) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy,
{
    let n: T = v
        .parse()
        .map_err(|_| format!("option {name}: '{v}' is not a whole number"))?;
    if !range.contains(&n) {
        return Err(format!(
            "option {name}: {n} is out of range {} to {}; unchanged",
            range.start(),
            range.end()
        ));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked_and_kept_on_error() {
        let mut o = Options::from_config(&Config::default());
        assert_eq!(o.set("Hash", Some("64")), Ok(OptionChange::Hash(16)));
        assert_eq!(o.hash, 64);
        assert!(o.set("Hash", Some("0")).is_err());
        assert!(o.set("hash", Some("lots")).is_err());
        assert!(o.set("Hash", None).is_err());
        assert_eq!(o.hash, 64);
        assert_eq!(o.set("move overhead", Some("100")), Ok(OptionChange::None));
        assert_eq!(o.move_overhead, 100);
        assert!(o.set("Threads", Some("9999")).is_err());
        assert_eq!(o.threads, 1);
        assert!(o.set("TablePath", Some("/no/such/dir")).is_err());
        assert_eq!(
            o.set("TablePath", Some("<empty>")),
            Ok(OptionChange::TablePath)
        );
        assert!(o.table_path.as_os_str().is_empty());
        assert!(o.set("Ponder", Some("maybe")).is_err());
        assert_eq!(o.set("Show DTM", None), Ok(OptionChange::ShowDtm));
        let e = o.set("Frobnicate", Some("1")).expect_err("unknown");
        assert!(e.contains("unknown option 'Frobnicate'"), "{e}");
        assert_eq!(o.declarations().len(), 8);
    }
}
