//! `engine.toml`: the defaults of the `retro` command, read from `--config PATH`, else from beside
//! the binary, else from the working directory. Command-line options override it.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The file name looked for beside the binary and in the working directory.
pub const FILE_NAME: &str = "engine.toml";

/// An error reading the configuration.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not valid TOML or has a wrong key or value: toml's message, whose lines
    /// point at the place with a caret.
    #[error("{}:\n{}", .path.display(), .source.to_string().trim_end())]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong, with its line.
        source: toml::de::Error,
    },
    /// A value outside its range.
    #[error("{}: {key} = {value} is out of range {range}", .path.display())]
    OutOfRange {
        /// The file.
        path: PathBuf,
        /// The key.
        key: &'static str,
        /// The value given.
        value: String,
        /// The range allowed.
        range: String,
    },
    /// A directory of `syzygy_path` that, once resolved, cannot be written in the
    /// `:`-separated path of the SyzygyPath option.
    #[error("{}: syzygy_path: {} {reason}", .path.display(), .dir.display())]
    SyzygyDirectory {
        /// The file.
        path: PathBuf,
        /// The directory, resolved.
        dir: PathBuf,
        /// Why it cannot be used.
        reason: &'static str,
    },
}

/// The settings of `engine.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Directory of Retro's tables; a relative path is taken from the file's directory.
    pub table_path: PathBuf,
    /// Log level: off, error, warn, info, debug or trace.
    pub log_level: LogLevel,
    /// Log file (appended to); standard error when absent. Relative to the file's directory.
    pub log_file: Option<PathBuf>,
    /// Transposition table size in MB (UCI option Hash).
    pub hash: usize,
    /// Search threads (UCI option Threads).
    pub threads: usize,
    /// Milliseconds kept back from every move for communication (UCI option Move Overhead).
    pub move_overhead: u64,
    /// Build missing 3-4-piece tables into `table_path` in the background when the engine
    /// starts.
    pub build_missing_tables: bool,
    /// Where `retro play` saves its games; `games` in the working directory when absent.
    /// Relative to the file's directory.
    pub games_dir: Option<PathBuf>,
    /// Directories of Syzygy tables separated by `:` (UCI option SyzygyPath); none when
    /// absent. Each relative directory is taken from the file's directory.
    pub syzygy_path: Option<String>,
    /// The most pieces a position may have to be probed in the Syzygy tables (UCI option
    /// SyzygyProbeLimit).
    pub syzygy_probe_limit: usize,
    /// Table positions are played and scored under the 50-move rule (UCI option
    /// Syzygy50MoveRule); off, by pure DTM.
    pub syzygy_50_move_rule: bool,
    /// Evaluate with the neural network (UCI option Use NNUE); off, with the hand-written
    /// evaluation.
    pub use_nnue: bool,
    /// A network file to evaluate with instead of the one built in (UCI option EvalFile).
    /// Relative to the file's directory.
    pub eval_file: Option<PathBuf>,
}

/// The range of [`Config::hash`] and of the Hash option.
pub const HASH_RANGE: std::ops::RangeInclusive<usize> = 1..=65536;
/// The range of [`Config::threads`] and of the Threads option.
pub const THREADS_RANGE: std::ops::RangeInclusive<usize> = 1..=256;
/// The range of [`Config::move_overhead`] and of the Move Overhead option.
pub const OVERHEAD_RANGE: std::ops::RangeInclusive<u64> = 0..=5000;
/// The range of [`Config::syzygy_probe_limit`] and of the SyzygyProbeLimit option.
pub const SYZYGY_PROBE_LIMIT_RANGE: std::ops::RangeInclusive<usize> = 0..=7;

/// Whether the network evaluates by default (the hand-written evaluation otherwise).
pub const DEFAULT_USE_NNUE: bool = true;

/// A log level (the `log` crate's filter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// No logging.
    Off,
    /// Errors only.
    Error,
    /// Warnings and errors.
    Warn,
    /// Progress information.
    Info,
    /// Details for developers.
    Debug,
    /// Everything.
    Trace,
}

impl LogLevel {
    /// As a `log` filter.
    pub fn filter(self) -> log::LevelFilter {
        match self {
            LogLevel::Off => log::LevelFilter::Off,
            LogLevel::Error => log::LevelFilter::Error,
            LogLevel::Warn => log::LevelFilter::Warn,
            LogLevel::Info => log::LevelFilter::Info,
            LogLevel::Debug => log::LevelFilter::Debug,
            LogLevel::Trace => log::LevelFilter::Trace,
        }
    }
}

/// The table directory when engine.toml does not name one: `tables` in the platform's data
/// folder for Retro (`$XDG_DATA_HOME/retro`, by default `~/.local/share/retro`, on Linux;
/// `~/Library/Application Support/retro` on macOS; `%APPDATA%\\retro\\data` on Windows), or
/// `tables` in the working directory where the platform has none (no home directory).
pub fn default_table_path() -> PathBuf {
    directories::ProjectDirs::from("", "", "retro")
        .map_or_else(|| PathBuf::from("tables"), |d| d.data_dir().join("tables"))
}

impl Default for Config {
    fn default() -> Config {
        Config {
            table_path: default_table_path(),
            log_level: LogLevel::Warn,
            log_file: None,
            hash: 16,
            threads: 1,
            move_overhead: 30,
            build_missing_tables: true,
            games_dir: None,
            syzygy_path: None,
            syzygy_probe_limit: 7,
            syzygy_50_move_rule: true,
            use_nnue: DEFAULT_USE_NNUE,
            eval_file: None,
        }
    }
}

impl Config {
    /// Parses the text of a configuration file found at `path` (for messages and for resolving
    /// a relative table path).
    ///
    /// # Errors
    /// Invalid TOML, unknown keys or values of the wrong type, with the line.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let mut c: Config = toml::from_str(text).map_err(|source| ConfigError::Parse {
            path: path.to_path_buf(),
            source,
        })?;
        let range_error =
            |key: &'static str, value: String, range: String| ConfigError::OutOfRange {
                path: path.to_path_buf(),
                key,
                value,
                range,
            };
        if !HASH_RANGE.contains(&c.hash) {
            return Err(range_error(
                "hash",
                c.hash.to_string(),
                format!("{HASH_RANGE:?}"),
            ));
        }
        if !THREADS_RANGE.contains(&c.threads) {
            return Err(range_error(
                "threads",
                c.threads.to_string(),
                format!("{THREADS_RANGE:?}"),
            ));
        }
        if !OVERHEAD_RANGE.contains(&c.move_overhead) {
            return Err(range_error(
                "move_overhead",
                c.move_overhead.to_string(),
                format!("{OVERHEAD_RANGE:?}"),
            ));
        }
        if !SYZYGY_PROBE_LIMIT_RANGE.contains(&c.syzygy_probe_limit) {
            return Err(range_error(
                "syzygy_probe_limit",
                c.syzygy_probe_limit.to_string(),
                format!("{SYZYGY_PROBE_LIMIT_RANGE:?}"),
            ));
        }
        if let Some(dir) = path.parent() {
            // An empty table path means no tables.
            if c.table_path.is_relative() && !c.table_path.as_os_str().is_empty() {
                c.table_path = dir.join(&c.table_path);
            }
            for f in [&mut c.log_file, &mut c.games_dir, &mut c.eval_file] {
                if let Some(f) = f.as_mut().filter(|f| f.is_relative()) {
                    *f = dir.join(&*f);
                }
            }
            if let Some(p) = c.syzygy_path.take() {
                c.syzygy_path = Some(resolve_syzygy_path(&p, dir, path)?);
            }
        }
        Ok(c)
    }

    /// Reads `explicit` if given; else the first `engine.toml` beside the running binary or in
    /// the working directory; else the defaults. Returns the file used, if any.
    ///
    /// # Errors
    /// An explicit file that cannot be read, or any file found that does not parse.
    pub fn load(explicit: Option<&Path>) -> Result<(Config, Option<PathBuf>), ConfigError> {
        let candidates: Vec<PathBuf> = match explicit {
            Some(p) => vec![p.to_path_buf()],
            None => {
                let mut v = Vec::new();
                if let Some(dir) = std::env::current_exe()
                    .ok()
                    .and_then(|e| e.parent().map(Path::to_path_buf))
                {
                    v.push(dir.join(FILE_NAME));
                }
                v.push(PathBuf::from(FILE_NAME));
                v
            }
        };
        for path in candidates {
            match std::fs::read_to_string(&path) {
                Ok(text) => return Ok((Config::parse(&text, &path)?, Some(path))),
                Err(source) if explicit.is_some() => return Err(ConfigError::Io { path, source }),
                Err(_) => continue,
            }
        }
        Ok((Config::default(), None))
    }
}

/// The `:`-separated Syzygy path `p` with each relative directory taken from `dir` (the
/// directory of the file `file`); empty entries are dropped.
///
/// # Errors
/// A resolved directory that is not UTF-8 or holds the separator `:`.
fn resolve_syzygy_path(p: &str, dir: &Path, file: &Path) -> Result<String, ConfigError> {
    let mut out: Vec<String> = Vec::new();
    for entry in p.split(':').map(str::trim).filter(|e| !e.is_empty()) {
        let d = Path::new(entry);
        if d.is_absolute() {
            out.push(entry.to_string());
            continue;
        }
        let joined = dir.join(d);
        let error = |reason| ConfigError::SyzygyDirectory {
            path: file.to_path_buf(),
            dir: joined.clone(),
            reason,
        };
        let text = joined.to_str().ok_or_else(|| error("is not valid UTF-8"))?;
        if text.contains(':') {
            return Err(error("contains ':', the separator of the path"));
        }
        out.push(text.to_string());
    }
    Ok(out.join(":"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_values_are_refused() {
        let p = Path::new("/x/engine.toml");
        for (text, what) in [
            ("hash = 0", "hash = 0 is out of range 1..=65536"),
            ("threads = 1000", "threads = 1000 is out of range 1..=256"),
            (
                "move_overhead = 9999",
                "move_overhead = 9999 is out of range 0..=5000",
            ),
            (
                "syzygy_probe_limit = 8",
                "syzygy_probe_limit = 8 is out of range 0..=7",
            ),
            ("syzygy_probe_limit = -1", "line 1"),
            ("syzygy_50_move_rule = \"no\"", "line 1"),
            ("syzygy_path = 5", "line 1"),
            ("hash = -1", "line 1"),
        ] {
            let e = Config::parse(text, p).expect_err(text).to_string();
            assert!(e.contains(what), "{e}");
        }
        let c = Config::parse("log_file = \"retro.log\"\nhash = 64\ngames_dir = \"g\"", p)
            .expect("valid");
        assert_eq!(c.log_file.as_deref(), Some(Path::new("/x/retro.log")));
        assert_eq!(c.games_dir.as_deref(), Some(Path::new("/x/g")));
        assert_eq!(c.hash, 64);
    }

    #[test]
    fn bad_files_are_errors_with_the_line() {
        let p = Path::new("/x/engine.toml");
        for text in [
            "table_path = 3",
            "nonsense = true",
            "log_level = \"loud\"",
            "table_path = ",
        ] {
            let e = Config::parse(text, p).expect_err(text).to_string();
            // The file, then toml's message on its own lines (its caret under the fault).
            assert!(e.starts_with("/x/engine.toml:\n"), "{e}");
            assert!(e.contains("line 1"), "{e}");
            assert!(
                e.lines()
                    .any(|l| l.trim_start().starts_with("| ") && l.contains('^')),
                "{e}"
            );
        }
        let c = Config::parse("table_path = \"/abs\"", p).expect("valid");
        assert_eq!(c.table_path, Path::new("/abs"));
        assert_eq!(
            Config::parse("", p).expect("empty").log_level,
            LogLevel::Warn
        );
    }

    #[test]
    fn syzygy_keys_are_read_and_their_directories_resolved() {
        let p = Path::new("/x/engine.toml");
        let c = Config::parse(
            "syzygy_path = \"syzygy:/abs/wdl: ../dtz :\"\nsyzygy_probe_limit = 5\n\
             syzygy_50_move_rule = false",
            p,
        )
        .expect("valid");
        assert_eq!(
            c.syzygy_path.as_deref(),
            Some("/x/syzygy:/abs/wdl:/x/../dtz")
        );
        assert_eq!(c.syzygy_probe_limit, 5);
        assert!(!c.syzygy_50_move_rule);
        for limit in [0, 7] {
            let c = Config::parse(&format!("syzygy_probe_limit = {limit}"), p).expect("in range");
            assert_eq!(c.syzygy_probe_limit, limit);
        }
        let c = Config::parse("syzygy_path = \"\"", p).expect("valid");
        assert_eq!(c.syzygy_path.as_deref(), Some(""));
        let e = Config::parse("syzygy_path = \"s\"", Path::new("/a:b/engine.toml"))
            .expect_err("separator in the resolved directory")
            .to_string();
        assert_eq!(
            e,
            "/a:b/engine.toml: syzygy_path: /a:b/s contains ':', the separator of the path"
        );
    }
}
