//! A thread of the engine's: a search or a console job (perft, bench), with what the engine
//! needs to stop it, to wait for it, and to know when it has given its last report.

use std::{
    io,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    thread::JoinHandle,
};

use super::{
    report::{Report, Reporter},
    search::SearchControl,
};

/// The stack of a job's thread: the search recurses up to its ply limit.
const STACK: usize = 64 << 20;

/// What runs on a job's thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobKind {
    /// A search, which must give its best move.
    Search,
    /// A console job (perft, bench).
    Console,
    /// The legality analysis (`legal`, Show Legality), which `go` stops rather than waits for.
    Legality,
}

/// A running job.
pub struct Job {
    kind: JobKind,
    control: Arc<SearchControl>,
    /// Set just before the job's last report: from then on the thread only ends, and a new
    /// job may start.
    done: Arc<AtomicBool>,
    handle: JoinHandle<()>,
}

impl Job {
    /// Runs `work` on a thread named `name`. The report it returns is sent to `reporter` last,
    /// after the job counts as done, so that a command sent on seeing it is not refused as
    /// busy.
    ///
    /// # Errors
    /// The thread could not be started.
    pub fn spawn(
        kind: JobKind,
        name: &str,
        control: Arc<SearchControl>,
        reporter: Reporter,
        work: impl FnOnce(&SearchControl) -> Report + Send + 'static,
    ) -> io::Result<Job> {
        let done = Arc::new(AtomicBool::new(false));
        let (c, d) = (Arc::clone(&control), Arc::clone(&done));
        let handle = std::thread::Builder::new()
            .name(name.into())
            .stack_size(STACK)
            .spawn(move || {
                let last = work(&c);
                d.store(true, Ordering::Release);
                reporter(last);
            })?;
        Ok(Job {
            kind,
            control,
            done,
            handle,
        })
    }

    /// What the job is.
    pub fn kind(&self) -> JobKind {
        self.kind
    }

    /// Whether the job has given its last report (or ended).
    pub fn is_done(&self) -> bool {
        self.done.load(Ordering::Acquire) || self.handle.is_finished()
    }

    /// Whether the thread is still running.
    pub fn is_running(&self) -> bool {
        !self.handle.is_finished()
    }

    /// Asks the job to end (a search then gives its best move).
    pub fn stop(&self) {
        self.control.stop();
    }

    /// The opponent played the expected move.
    pub fn ponderhit(&self) {
        self.control.ponderhit();
    }

    /// Waits for the thread to end.
    pub fn join(self) {
        if self.handle.join().is_err() {
            log::error!("a job's thread panicked");
        }
    }
}
