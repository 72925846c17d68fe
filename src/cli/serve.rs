//! `retro serve`: the local explorer's server, with the tables, Syzygy path and evaluation of
//! `engine.toml` unless the command line names others.

use std::{net::SocketAddr, path::PathBuf, sync::Arc};

use retro_engine::{config::Config, eval::Evaluator};
use retro_serve::{Explorer, Settings};
use retro_tables::{Syzygy, Tablebase};

use super::CliError;

/// The options of `retro serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The address to listen on (port 0: any free port).
    #[arg(long, default_value = retro_serve::DEFAULT_BIND)]
    pub bind: SocketAddr,
    /// Directory of Retro's tables (default: table_path of engine.toml, else `retro/tables`
    /// in the platform's data folder).
    #[arg(long)]
    pub tables: Option<PathBuf>,
    /// Directories of Syzygy tables separated by ':' (default: syzygy_path of engine.toml).
    #[arg(long)]
    pub syzygy: Option<String>,
    /// Connections served at once.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub max_connections: u32,
    /// Legality and analysis jobs run at once (default: one per core but one, at least one).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub job_slots: Option<u32>,
    /// Megabytes of decompressed table blocks kept in memory (the 5-piece tables are
    /// compressed; the cache fills as positions are probed).
    #[arg(long, default_value_t = DEFAULT_CACHE_MB, value_parser = clap::value_parser!(u64).range(1..=MAX_CACHE_MB))]
    pub cache_mb: u64,
}

/// The largest block cache, in MB (its slots are made when the server starts).
pub const MAX_CACHE_MB: u64 = 32_768;

/// The block cache of the server by default, in MB: big enough for the blocks of about two
/// 5-piece tables (DTM and DTZ50), the default engine's 32 MB being sized for a search.
pub const DEFAULT_CACHE_MB: u64 = 1024;

/// Opens the tables and serves until Ctrl-C.
///
/// # Errors
/// A table directory that cannot be read, Syzygy directories without tables, a network file
/// that cannot be loaded, or an address that cannot be listened on.
pub fn run_serve(args: ServeArgs, config: &Config) -> Result<(), CliError> {
    let cache_bytes = usize::try_from(args.cache_mb << 20).unwrap_or(usize::MAX);
    if !retro_tables::set_block_cache_bytes(cache_bytes) {
        log::warn!("the table block cache was already made; --cache-mb is ignored");
    }
    let dir = args.tables.unwrap_or_else(|| config.table_path.clone());
    let tables = Tablebase::open(&dir)?;
    let materials = tables.materials().len();
    if materials == 0 {
        log::warn!(
            "no tables in {} (build them with build-tables --out {})",
            dir.display(),
            dir.display()
        );
    }
    let syzygy = match args.syzygy.or_else(|| config.syzygy_path.clone()) {
        Some(path) if !path.trim().is_empty() => Some(Arc::new(Syzygy::open(&path)?)),
        _ => None,
    };
    let syzygy_files = syzygy.as_ref().map_or(0, |s| s.files());
    let mut settings = Settings::new(Explorer::new(Some(Arc::new(tables)), syzygy));
    settings.max_connections = args.max_connections as usize;
    if let Some(n) = args.job_slots {
        settings.job_slots = n as usize;
    }
    settings.hash_mb = config.hash;
    settings.rule50 = config.syzygy_50_move_rule;
    settings.eval = Evaluator::configured(config.use_nnue, config.eval_file.as_deref())
        .map_err(CliError::Network)?;
    retro_serve::run_until_signal(settings, args.bind, |addr| {
        super::say(&format!(
            "retro serve: open http://{addr}/ in a browser ({materials} Retro tables in {}, \
             {syzygy_files} Syzygy files); Ctrl-C stops it",
            dir.display()
        ));
    })?;
    Ok(())
}
