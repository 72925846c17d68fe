//! The engine's options: their values, their kinds and ranges (which the UCI front end
//! declares), and setting one by name with range checks.

use std::path::PathBuf;

use super::strength::{DEFAULT_ELO, ELO_RANGE};
use crate::config::{Config, HASH_RANGE, OVERHEAD_RANGE, SYZYGY_PROBE_LIMIT_RANGE, THREADS_RANGE};

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
    /// UCI_LimitStrength: play at the level of `elo`.
    pub limit_strength: bool,
    /// UCI_Elo: the level of a limited strength.
    pub elo: u32,
    /// Syzygy50MoveRule: table positions are played and scored under the 50-move rule (with
    /// the position's halfmove clock); off, by pure DTM.
    pub rule50: bool,
    /// SyzygyPath: directories of Syzygy tables, separated by `:` (empty: none).
    pub syzygy_path: String,
    /// SyzygyProbeLimit: the most pieces a position may have to be probed in them.
    pub syzygy_probe_limit: usize,
    /// MultiPV: how many best lines a search reports (every legal move, from the tables, when
    /// it is at least their number).
    pub multipv: usize,
    /// UCI_ShowWDL: win, draw and loss chances in `info` lines.
    pub show_wdl: bool,
    /// UCI_Chess960: positions and moves of Chess960 (castling written king takes rook).
    pub chess960: bool,
    /// Use NNUE: evaluate with the neural network, else with the hand-written evaluation.
    pub use_nnue: bool,
    /// EvalFile: the network file (empty: the network built into the binary).
    pub eval_file: PathBuf,
}

/// How EvalFile names the network built into the binary.
pub const EMBEDDED_NETWORK: &str = "<embedded>";

/// The values `MultiPV` takes (Stockfish's range).
pub const MULTIPV_RANGE: std::ops::RangeInclusive<usize> = 1..=500;

/// What a `setoption` changed that the engine must act on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionChange {
    /// Nothing more to do.
    None,
    /// Resize the hash table (the old size, to go back to if that fails).
    Hash(usize),
    /// The Clear Hash button.
    ClearHash,
    /// Open the tables of the new path.
    TablePath,
    /// Open the Syzygy tables of the new path.
    SyzygyPath,
    /// Load the network of the new EvalFile (the old value, to go back to if that fails).
    EvalFile(PathBuf),
    /// The Show DTM button.
    ShowDtm,
    /// The Show Legality button.
    ShowLegality,
}

/// Why an option was not set; it keeps its value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// No option has this name.
    #[error("unknown option '{0}'")]
    Unknown(String),
    /// The option needs a value and none was given.
    #[error("option {0} needs a value")]
    NoValue(String),
    /// A spin option's value is not a whole number.
    #[error("option {name}: '{value}' is not a whole number")]
    NotANumber {
        /// The option.
        name: String,
        /// The value given.
        value: String,
    },
    /// A spin option's value is out of its range.
    #[error("option {name}: {value} is out of range {min} to {max}; unchanged")]
    OutOfRange {
        /// The option.
        name: String,
        /// The value given.
        value: String,
        /// The least value.
        min: String,
        /// The greatest value.
        max: String,
    },
    /// A check option's value is neither true nor false.
    #[error("option {name} takes true or false, not '{value}'")]
    NotABool {
        /// The option.
        name: String,
        /// The value given.
        value: String,
    },
    /// A path option names no directory.
    #[error("{name}: '{value}' is not a directory; keeping {kept}")]
    NotADirectory {
        /// The option.
        name: String,
        /// The value given.
        value: String,
        /// The path kept.
        kept: String,
    },
}

/// The kind of an option, its default and its range, as the front end declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// A whole number in a range.
    Spin {
        /// The value now (declared as the default).
        default: i64,
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
    },
    /// A boolean.
    Check {
        /// The default.
        default: bool,
    },
    /// Text; empty is declared as `<empty>`.
    Text {
        /// The default.
        default: String,
    },
    /// An action without a value.
    Button,
}

/// An option as the front end declares it: its name and kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// The name.
    pub name: &'static str,
    /// The kind, default and range.
    pub kind: OptionKind,
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
            limit_strength: false,
            rule50: c.syzygy_50_move_rule,
            syzygy_path: c.syzygy_path.clone().unwrap_or_default(),
            syzygy_probe_limit: c.syzygy_probe_limit,
            elo: DEFAULT_ELO,
            multipv: 1,
            show_wdl: false,
            chess960: false,
            use_nnue: c.use_nnue,
            eval_file: c.eval_file.clone().unwrap_or_default(),
        }
    }

    /// The options, with the current values as their defaults, in the order `uci` declares them.
    pub fn specs(&self) -> Vec<OptionSpec> {
        let specs = OPTIONS.iter().map(|&(id, name)| OptionSpec {
            name,
            kind: self.kind(id),
        });
        #[cfg(feature = "tune")]
        let specs = specs.chain(crate::tunables::TUNABLES.iter().map(|t| OptionSpec {
            name: t.name,
            kind: OptionKind::Spin {
                default: i64::from(t.value.load(std::sync::atomic::Ordering::Relaxed)),
                min: i64::from(t.min),
                max: i64::from(t.max),
            },
        }));
        specs.collect()
    }

    /// The kind of option `id`, with its current value as the default.
    fn kind(&self, id: OptionId) -> OptionKind {
        let wide = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        let wide64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        let spin = |default: i64, min: i64, max: i64| OptionKind::Spin { default, min, max };
        match id {
            OptionId::Hash => spin(
                wide(self.hash),
                wide(*HASH_RANGE.start()),
                wide(*HASH_RANGE.end()),
            ),
            OptionId::Threads => spin(
                wide(self.threads),
                wide(*THREADS_RANGE.start()),
                wide(*THREADS_RANGE.end()),
            ),
            OptionId::MoveOverhead => spin(
                wide64(self.move_overhead),
                wide64(*OVERHEAD_RANGE.start()),
                wide64(*OVERHEAD_RANGE.end()),
            ),
            OptionId::TablePath => OptionKind::Text {
                default: self.table_path.display().to_string(),
            },
            OptionId::Ponder => OptionKind::Check { default: false },
            OptionId::LimitStrength => OptionKind::Check {
                default: self.limit_strength,
            },
            OptionId::Elo => spin(
                i64::from(self.elo),
                i64::from(*ELO_RANGE.start()),
                i64::from(*ELO_RANGE.end()),
            ),
            OptionId::Rule50 => OptionKind::Check {
                default: self.rule50,
            },
            OptionId::SyzygyPath => OptionKind::Text {
                default: if self.syzygy_path.is_empty() {
                    "<empty>".to_string()
                } else {
                    self.syzygy_path.clone()
                },
            },
            OptionId::SyzygyProbeLimit => spin(
                wide(self.syzygy_probe_limit),
                wide(*SYZYGY_PROBE_LIMIT_RANGE.start()),
                wide(*SYZYGY_PROBE_LIMIT_RANGE.end()),
            ),
            OptionId::MultiPv => spin(
                wide(self.multipv),
                wide(*MULTIPV_RANGE.start()),
                wide(*MULTIPV_RANGE.end()),
            ),
            OptionId::ShowWdl => OptionKind::Check {
                default: self.show_wdl,
            },
            OptionId::Chess960 => OptionKind::Check {
                default: self.chess960,
            },
            OptionId::UseNnue => OptionKind::Check {
                default: self.use_nnue,
            },
            OptionId::EvalFile => OptionKind::Text {
                default: if self.eval_file.as_os_str().is_empty() {
                    EMBEDDED_NETWORK.to_string()
                } else {
                    self.eval_file.display().to_string()
                },
            },
            OptionId::ClearHash | OptionId::ShowDtm | OptionId::ShowLegality => OptionKind::Button,
        }
    }

    /// Applies `setoption name <name> value <value>`. Names are matched without regard to
    /// case.
    ///
    /// # Errors
    /// An unknown option, a missing or malformed value, or one out of range; the option keeps
    /// its value.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<OptionChange, OptionError> {
        let wanted = name.trim();
        let Some(&(id, _)) = OPTIONS.iter().find(|(_, n)| n.eq_ignore_ascii_case(wanted)) else {
            #[cfg(feature = "tune")]
            if let Some(t) = crate::tunables::TUNABLES
                .iter()
                .find(|t| t.name.eq_ignore_ascii_case(wanted))
            {
                let v = value.map(str::trim).unwrap_or("");
                let n = spin(name, v, t.min..=t.max)?;
                t.value.store(n, std::sync::atomic::Ordering::Relaxed);
                return Ok(OptionChange::None);
            }
            return Err(OptionError::Unknown(name.to_string()));
        };
        let need = |v: Option<&str>| {
            v.map(str::trim)
                .filter(|v| !v.is_empty())
                .ok_or_else(|| OptionError::NoValue(name.to_string()))
                .map(str::to_string)
        };
        match id {
            OptionId::Hash => {
                let old = self.hash;
                self.hash = spin(name, &need(value)?, HASH_RANGE)?;
                Ok(OptionChange::Hash(old))
            }
            OptionId::Threads => {
                self.threads = spin(name, &need(value)?, THREADS_RANGE)?;
                Ok(OptionChange::None)
            }
            OptionId::MoveOverhead => {
                self.move_overhead = spin(name, &need(value)?, OVERHEAD_RANGE)?;
                Ok(OptionChange::None)
            }
            OptionId::TablePath => {
                let v = value.map(str::trim).unwrap_or("");
                let path = if v.is_empty() || v == "<empty>" {
                    PathBuf::new()
                } else {
                    PathBuf::from(v)
                };
                if !path.as_os_str().is_empty() && !path.is_dir() {
                    return Err(OptionError::NotADirectory {
                        name: name.to_string(),
                        value: path.display().to_string(),
                        kept: self.table_path.display().to_string(),
                    });
                }
                self.table_path = path;
                Ok(OptionChange::TablePath)
            }
            OptionId::Ponder => {
                self.ponder = check(name, &need(value)?)?;
                Ok(OptionChange::None)
            }
            OptionId::LimitStrength => {
                self.limit_strength = check(name, &need(value)?)?;
                Ok(OptionChange::None)
            }
            OptionId::Elo => {
                self.elo = spin(name, &need(value)?, ELO_RANGE)?;
                Ok(OptionChange::None)
            }
            OptionId::Rule50 => {
                self.rule50 = check(name, &need(value)?)?;
                Ok(OptionChange::None)
            }
            OptionId::SyzygyPath => {
                let v = value.map(str::trim).unwrap_or("");
                self.syzygy_path = if v == "<empty>" {
                    String::new()
                } else {
                    v.to_string()
                };
                Ok(OptionChange::SyzygyPath)
            }
            OptionId::SyzygyProbeLimit => {
                self.syzygy_probe_limit = spin(name, &need(value)?, SYZYGY_PROBE_LIMIT_RANGE)?;
                Ok(OptionChange::None)
            }
            OptionId::MultiPv => {
                self.multipv = spin(name, &need(value)?, MULTIPV_RANGE)?;
                Ok(OptionChange::None)
            }
            OptionId::ShowWdl => {
                self.show_wdl = check(name, &need(value)?)?;
                Ok(OptionChange::None)
            }
            OptionId::Chess960 => {
                self.chess960 = check(name, &need(value)?)?;
                Ok(OptionChange::None)
            }
            OptionId::UseNnue => {
                self.use_nnue = check(name, &need(value)?)?;
                Ok(OptionChange::None)
            }
            OptionId::EvalFile => {
                let v = value.map(str::trim).unwrap_or("");
                let old = std::mem::replace(
                    &mut self.eval_file,
                    if v.is_empty() || v == EMBEDDED_NETWORK {
                        PathBuf::new()
                    } else {
                        PathBuf::from(v)
                    },
                );
                Ok(OptionChange::EvalFile(old))
            }
            OptionId::ClearHash => Ok(OptionChange::ClearHash),
            OptionId::ShowDtm => Ok(OptionChange::ShowDtm),
            OptionId::ShowLegality => Ok(OptionChange::ShowLegality),
        }
    }
}

/// The engine's options, each declared once in [`OPTIONS`] with its UCI name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OptionId {
    Hash,
    Threads,
    MoveOverhead,
    TablePath,
    Ponder,
    LimitStrength,
    Elo,
    Rule50,
    SyzygyPath,
    SyzygyProbeLimit,
    MultiPv,
    ShowWdl,
    Chess960,
    UseNnue,
    EvalFile,
    ClearHash,
    ShowDtm,
    ShowLegality,
}

/// Every option with its UCI name, in the order `uci` declares them; [`Options::specs`] and
/// [`Options::set`] both read this table, so a name is written once.
const OPTIONS: &[(OptionId, &str)] = &[
    (OptionId::Hash, "Hash"),
    (OptionId::Threads, "Threads"),
    (OptionId::MoveOverhead, "Move Overhead"),
    (OptionId::TablePath, "TablePath"),
    (OptionId::Ponder, "Ponder"),
    (OptionId::LimitStrength, "UCI_LimitStrength"),
    (OptionId::Elo, "UCI_Elo"),
    (OptionId::Rule50, "Syzygy50MoveRule"),
    (OptionId::SyzygyPath, "SyzygyPath"),
    (OptionId::SyzygyProbeLimit, "SyzygyProbeLimit"),
    (OptionId::MultiPv, "MultiPV"),
    (OptionId::ShowWdl, "UCI_ShowWDL"),
    (OptionId::Chess960, "UCI_Chess960"),
    (OptionId::UseNnue, "Use NNUE"),
    (OptionId::EvalFile, "EvalFile"),
    (OptionId::ClearHash, "Clear Hash"),
    (OptionId::ShowDtm, "Show DTM"),
    (OptionId::ShowLegality, "Show Legality"),
];

/// A check option's value `v`: true or false, in any case.
fn check(name: &str, v: &str) -> Result<bool, OptionError> {
    match v.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(OptionError::NotABool {
            name: name.to_string(),
            value: v.to_string(),
        }),
    }
}

/// A spin option's value `v`, checked against `range`.
fn spin<T>(name: &str, v: &str, range: std::ops::RangeInclusive<T>) -> Result<T, OptionError>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy,
{
    let n: T = v.parse().map_err(|_| OptionError::NotANumber {
        name: name.to_string(),
        value: v.to_string(),
    })?;
    if !range.contains(&n) {
        return Err(OptionError::OutOfRange {
            name: name.to_string(),
            value: n.to_string(),
            min: range.start().to_string(),
            max: range.end().to_string(),
        });
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `tune` build declares each tuned constant as a spin of its range, and `setoption`
    /// changes what the search reads (`cargo test --release --features tune -p retro-engine
    /// --lib options`).
    #[cfg(feature = "tune")]
    #[test]
    fn tuned_constants_are_options_in_a_tune_build() {
        use crate::tunables::RFP_MARGIN_PER_PLY;
        let mut o = Options::from_config(&Config::default());
        let spec = o
            .specs()
            .into_iter()
            .find(|s| s.name == "RFP_MARGIN_PER_PLY");
        assert_eq!(
            spec.map(|s| s.kind),
            Some(OptionKind::Spin {
                default: 80,
                min: 30,
                max: 200
            })
        );
        assert_eq!(
            o.set("rfp_margin_per_ply", Some("120")),
            Ok(OptionChange::None)
        );
        assert_eq!(RFP_MARGIN_PER_PLY(), 120);
        assert!(o.set("RFP_MARGIN_PER_PLY", Some("201")).is_err());
        assert!(o.set("RFP_MARGIN_PER_PLY", Some("x")).is_err());
        assert!(o.set("RFP_MARGIN_PER_PLY", None).is_err());
        assert_eq!(RFP_MARGIN_PER_PLY(), 120, "kept on error");
        assert_eq!(
            o.set("RFP_MARGIN_PER_PLY", Some("80")),
            Ok(OptionChange::None)
        );
    }

    #[test]
    fn every_declared_option_is_settable_by_its_name_in_any_case() {
        let mut o = Options::from_config(&Config::default());
        let specs = o.specs();
        let tuned = if cfg!(feature = "tune") {
            crate::tunables::TUNABLES.len()
        } else {
            0
        };
        assert_eq!(specs.len(), OPTIONS.len() + tuned);
        for (i, spec) in specs.iter().enumerate() {
            assert!(
                specs[..i].iter().all(|s| s.name != spec.name),
                "{} declared twice",
                spec.name
            );
            let value = match &spec.kind {
                OptionKind::Spin { default, .. } => Some(default.to_string()),
                OptionKind::Check { default } => Some(default.to_string()),
                OptionKind::Text { .. } => Some("<empty>".to_string()),
                OptionKind::Button => None,
            };
            let upper = spec.name.to_ascii_uppercase();
            assert!(
                o.set(&upper, value.as_deref()).is_ok(),
                "{} not accepted",
                spec.name
            );
        }
        assert_eq!(
            o.set("No Such Option", Some("1")),
            Err(OptionError::Unknown("No Such Option".to_string()))
        );
    }

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
        assert!(e.to_string().contains("unknown option 'Frobnicate'"), "{e}");
        assert_eq!(
            o.set("uci_limitstrength", Some("TRUE")),
            Ok(OptionChange::None)
        );
        assert!(o.limit_strength);
        assert_eq!(o.set("UCI_Elo", Some("1800")), Ok(OptionChange::None));
        assert!(o.set("UCI_Elo", Some("100")).is_err());
        assert!(o.set("UCI_LimitStrength", Some("yes")).is_err());
        assert_eq!((o.elo, o.limit_strength), (1800, true));
        assert!(o.rule50);
        assert_eq!(
            o.set("syzygy50moverule", Some("false")),
            Ok(OptionChange::None)
        );
        assert!(!o.rule50);
        assert!(o.set("Syzygy50MoveRule", Some("0")).is_err());
        assert!(!o.rule50);
        assert_eq!(o.set("SyzygyProbeLimit", Some("5")), Ok(OptionChange::None));
        assert!(o.set("SyzygyProbeLimit", Some("8")).is_err());
        assert_eq!(o.syzygy_probe_limit, 5);
        assert_eq!(
            o.set("SyzygyPath", Some("/a:/b")),
            Ok(OptionChange::SyzygyPath)
        );
        assert_eq!(o.syzygy_path, "/a:/b");
        assert_eq!(o.set("MultiPV", Some("256")), Ok(OptionChange::None));
        assert_eq!(o.multipv, 256);
        assert!(o.set("MultiPV", Some("0")).is_err());
        assert!(o.set("MultiPV", Some("501")).is_err());
        assert_eq!(o.multipv, 256);
        assert_eq!(o.set("uci_showwdl", Some("true")), Ok(OptionChange::None));
        assert_eq!(o.set("UCI_Chess960", Some("true")), Ok(OptionChange::None));
        assert!(o.show_wdl && o.chess960);
        assert_eq!(o.set("use nnue", Some("true")), Ok(OptionChange::None));
        assert!(o.use_nnue);
        assert!(o.set("Use NNUE", Some("yes")).is_err());
        assert!(o.use_nnue);
        assert_eq!(
            o.set("EvalFile", Some(" net/a.nnue ")),
            Ok(OptionChange::EvalFile(PathBuf::new()))
        );
        assert_eq!(o.eval_file, PathBuf::from("net/a.nnue"));
        assert_eq!(
            o.set("EvalFile", Some(EMBEDDED_NETWORK)),
            Ok(OptionChange::EvalFile(PathBuf::from("net/a.nnue")))
        );
        assert_eq!(o.eval_file, PathBuf::new());
        let tuned = if cfg!(feature = "tune") {
            crate::tunables::TUNABLES.len()
        } else {
            0
        };
        assert_eq!(o.specs().len(), 18 + tuned);
    }

    #[test]
    fn the_syzygy_options_take_their_defaults_from_the_config() {
        let d = Options::from_config(&Config::default());
        assert_eq!(
            (d.syzygy_path.as_str(), d.syzygy_probe_limit, d.rule50),
            ("", 7, true)
        );
        let c = Config::parse(
            "syzygy_path = \"syz\"\nsyzygy_probe_limit = 4\nsyzygy_50_move_rule = false",
            std::path::Path::new("/cfg/engine.toml"),
        )
        .expect("valid");
        let o = Options::from_config(&c);
        assert_eq!(o.syzygy_path, "/cfg/syz");
        assert_eq!(o.syzygy_probe_limit, 4);
        assert!(!o.rule50);
        let kind = |name: &str| {
            o.specs()
                .into_iter()
                .find(|s| s.name == name)
                .map(|s| s.kind)
                .expect(name)
        };
        assert_eq!(
            kind("SyzygyPath"),
            OptionKind::Text {
                default: "/cfg/syz".to_string()
            }
        );
        assert_eq!(
            kind("SyzygyProbeLimit"),
            OptionKind::Spin {
                default: 4,
                min: 0,
                max: 7
            }
        );
        assert_eq!(
            kind("Syzygy50MoveRule"),
            OptionKind::Check { default: false }
        );
    }
}
