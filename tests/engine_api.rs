//! The engine's public API on edge inputs: a defined answer, never a panic.

use std::{
    path::PathBuf,
    sync::{mpsc, Arc, Mutex},
    time::{Duration, Instant},
};

use retro_engine::{config::Config, Engine, Report, Reporter};

/// An engine without tables whose reports arrive on the returned channel.
fn engine() -> (Engine, mpsc::Receiver<Report>) {
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(tx);
    let reporter: Reporter = Arc::new(move |r| {
        if let Ok(t) = tx.lock() {
            let _ = t.send(r);
        }
    });
    let config = Config {
        table_path: PathBuf::new(),
        build_missing_tables: false,
        ..Config::default()
    };
    (Engine::new(&config, reporter), rx)
}

/// The depth and node count of the next `PerftDone`, waiting at most a minute (a liveness
/// bound: a job that panicked never reports).
fn perft_done(rx: &mpsc::Receiver<Report>) -> Option<(u32, u64)> {
    let end = Instant::now() + Duration::from_secs(60);
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(Report::PerftDone { depth, nodes, .. }) => return Some((depth, nodes)),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    None
}

#[test]
fn perft_zero_counts_the_position_itself() {
    let (mut e, rx) = engine();
    e.perft(0).expect("perft 0 starts");
    assert_eq!(perft_done(&rx), Some((0, 1)));
    e.perft(1).expect("perft 1 starts");
    assert_eq!(perft_done(&rx), Some((1, 20)));
    e.quit();
}
