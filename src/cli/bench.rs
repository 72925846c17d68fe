//! `retro bench`: a fixed set of positions searched to a fixed depth on one thread without
//! tables, each position's report and then the totals printed (OpenBench reads the last line:
//! the node count, which identifies a build, and the speed).

use retro_engine::{bench, config::Config};

use super::CliError;

/// The arguments of `retro bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Depth in plies.
    #[arg(long, default_value_t = bench::DEPTH, value_parser = clap::value_parser!(u32).range(1..=20))]
    pub depth: u32,
    /// Evaluate with the network (default: as engine.toml's use_nnue says).
    #[arg(long, conflicts_with = "classic")]
    pub nnue: bool,
    /// Evaluate with the hand-written evaluation.
    #[arg(long)]
    pub classic: bool,
}

impl BenchArgs {
    /// Runs the bench with the evaluation chosen by the flags and `config`, printing a line per
    /// position, then the depth, positions and time, then the nodes and nodes per second.
    ///
    /// # Errors
    /// [`CliError::Network`] when the network file of `config` cannot be loaded.
    pub fn run(self, config: &Config) -> Result<(), CliError> {
        let BenchArgs {
            depth,
            nnue,
            classic,
        } = self;
        let go = std::sync::atomic::AtomicBool::new(false);
        let use_nnue = nnue || (config.use_nnue && !classic);
        if let Some(e) = retro_engine::nnue::Network::embedded_error() {
            log::error!("the built-in network cannot be used ({e}): it scores every position 0");
        }
        let eval = retro_engine::eval::Evaluator::configured(use_nnue, config.eval_file.as_deref())
            .map_err(CliError::Network)?;
        let r = bench::run(depth, &eval, &go, |p| println!("{p}"));
        // OpenBench reads the last line: the node count, which identifies a build, and the
        // speed.
        println!(
            "bench: depth {depth}, {} positions, {} ms",
            bench::POSITIONS.len(),
            r.time.as_millis()
        );
        println!("{} nodes {} nps", r.nodes, r.nps());
        Ok(())
    }
}
