//! `retro serve`: a local endgame and legality explorer. An HTTP server (axum on tokio) that
//! answers lichess's tablebase API (`/standard`, `/standard/mainline`) from Retro's own tables
//! (exact DTM and DTZ50) and Syzygy's beyond them, Retro's own `/legal` (the legality analysis,
//! with the proof game) and `/analyse` (the engine, where the tables end), and a page at `/`
//! built from assets embedded in the binary.
//!
//! Bad input never crashes it: every malformed or hostile request gets a 4xx answer with a JSON
//! `{"error": ...}`; legality and analysis run on a bounded pool of job slots with time caps
//! (the table probes never wait for them), and the connections served at once are capped.

#![deny(missing_docs)]

mod assets;
pub mod error;
pub mod explorer;
pub mod query;
mod server;

use std::net::SocketAddr;
use std::time::Duration;

pub use self::{
    error::ApiError,
    explorer::{Category, Explorer, Mainline, MoveInfo, PositionInfo, Standard},
    server::{router, serve, Settings},
};

/// The longest query string read, in bytes; a longer one is answered 414.
pub const MAX_QUERY_BYTES: usize = 2048;

/// The address served by default (this machine only).
pub const DEFAULT_BIND: &str = "127.0.0.1:8080";

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The address cannot be listened on.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// What the system said.
        source: std::io::Error,
    },
    /// The runtime could not start, or the listener failed.
    #[error("server: {0}")]
    Io(#[from] std::io::Error),
}

/// Runs the server on `addr` until Ctrl-C (or SIGTERM), on a runtime of its own. `ready` is
/// called with the address bound (the port chosen when `addr`'s port is 0) before the first
/// request is taken.
///
/// # Errors
/// The address cannot be listened on, or the runtime cannot start.
pub fn run_until_signal(
    settings: Settings,
    addr: SocketAddr,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("retro-serve")
        .build()?;
    let result = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Bind { addr, source })?;
        ready(listener.local_addr()?);
        let (stopping, mut stopped) = tokio::sync::watch::channel(None);
        let mut until_stopped = stopped.clone();
        let shutdown = async move {
            let name = signal().await;
            say(&format!(
                "retro serve: {name}: stopping (requests under way get {} s to finish)",
                SHUTDOWN_GRACE.as_secs_f64()
            ));
            let _ = stopping.send(Some(name));
        };
        tokio::spawn(shutdown);
        let server = serve(listener, settings, async move {
            let _ = until_stopped.wait_for(Option::is_some).await;
        });
        tokio::pin!(server);
        let grace = async {
            let _ = stopped.wait_for(Option::is_some).await;
            tokio::time::sleep(SHUTDOWN_GRACE).await;
        };
        tokio::select! {
            r = &mut server => r?,
            // Dropping the server drops the requests under way, which stops their searches.
            () = grace => say("retro serve: requests still under way were cut off"),
        }
        say("retro serve: stopped");
        Ok(())
    });
    // The searches of requests cut off stop at once; none is waited for longer.
    runtime.shutdown_timeout(SHUTDOWN_GRACE);
    result
}

/// Prints a line of the server's status on standard output; a closed output (the reader went
/// away) does not stop the server.
fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

/// How long requests under way may take to finish once a stop is asked for.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(500);

/// Completes at Ctrl-C or, on Unix, SIGTERM, with the signal's name.
async fn signal() -> &'static str {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            log::warn!("Ctrl-C cannot be caught: {e}");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                log::warn!("SIGTERM cannot be caught: {e}");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => "Ctrl-C",
        () = term => "SIGTERM",
    }
}
