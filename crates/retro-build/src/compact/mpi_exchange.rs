//! The [`Exchange`] of a split solve between MPI processes (cargo feature `mpi`, through the
//! rsmpi crate): reductions are `MPI_Allreduce`; during a pass, the thread that called
//! [`Exchange::pass`] sends each batch the pass posts with a non-blocking send to its rank,
//! taking in the batches other ranks send (matched probes) while the sends are in flight and
//! the pass's threads go on un-moving; then it tells every rank it is done and waits for the
//! same word from all. MPI is called only from that thread (`MPI_THREAD_FUNNELED`).

use std::{sync::mpsc::RecvTimeoutError, time::Duration};

use mpi::{
    collective::SystemOperation, environment::Universe, topology::SimpleCommunicator, traits::*,
    Tag, Threading,
};

use super::share::{post_queue, Exchange, ExchangeError, Post, Share};
use retro_tables::index::IndexScheme;

/// The tag of a batch of predecessors.
const DATA: Tag = 1;
/// The tag of a rank's word that it sent everything of the pass.
const END: Tag = 2;

/// How long a rank waiting for the others ([`Exchange::wait_all`]) sleeps between looks.
const IDLE_NAP: Duration = Duration::from_millis(10);

/// How long the sending thread waits for a batch before it looks for arrivals.
const POLL: Duration = Duration::from_millis(1);

/// The ranks of `MPI_COMM_WORLD` (see the module docs); MPI ends when it is dropped.
pub struct Mpi {
    world: SimpleCommunicator,
    _universe: Universe,
    /// Words sent to other ranks so far.
    sent: std::cell::Cell<u64>,
}

impl Mpi {
    /// Starts MPI on this thread, which is then the only one to call it.
    ///
    /// # Errors
    /// MPI was started before, or its library cannot call it from a process with threads.
    pub fn init() -> Result<Mpi, ExchangeError> {
        let (universe, threading) = mpi::initialize_with_threading(Threading::Funneled)
            .ok_or(ExchangeError::Transport("MPI was started before"))?;
        if threading == Threading::Single {
            return Err(ExchangeError::Transport(
                "this MPI library supports no threads (MPI_THREAD_FUNNELED)",
            ));
        }
        Ok(Mpi {
            world: universe.world(),
            _universe: universe,
            sent: std::cell::Cell::new(0),
        })
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        usize::try_from(self.world.rank()).unwrap_or(0)
    }

    /// The ranks.
    pub fn ranks(&self) -> usize {
        usize::try_from(self.world.size()).unwrap_or(1)
    }

    /// Predecessors (8 bytes each) this rank has sent to others so far.
    pub fn sent(&self) -> u64 {
        self.sent.get()
    }

    /// Ends every process of the job (after an error on one of them, which the others would
    /// otherwise wait for in vain).
    pub fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }

    /// Takes every message that has arrived: a batch to `receive`, an end counted in `ends`.
    fn take_arrivals(
        &self,
        receive: &mut dyn FnMut(Vec<u64>),
        ends: &mut usize,
        wait: bool,
    ) -> Result<(), ExchangeError> {
        loop {
            let probed = if wait {
                self.world.any_process().matched_probe()
            } else {
                match self.world.any_process().immediate_matched_probe() {
                    Some(x) => x,
                    None => return Ok(()),
                }
            };
            let (words, status) = probed.matched_receive_vec::<u64>();
            match status.tag() {
                DATA => receive(words),
                END if words.is_empty() => *ends += 1,
                _ => {
                    return Err(ExchangeError::Malformed {
                        from: usize::try_from(status.source_rank()).unwrap_or(usize::MAX),
                        len: 8 * words.len(),
                    })
                }
            }
            if wait {
                return Ok(());
            }
        }
    }

    /// Sends `batch` to `dest` without blocking, taking in arrivals until it has gone.
    fn send(
        &self,
        dest: usize,
        batch: &[u64],
        receive: &mut dyn FnMut(Vec<u64>),
        ends: &mut usize,
    ) -> Result<(), ExchangeError> {
        let rank = i32::try_from(dest).map_err(|_| ExchangeError::Transport("no such rank"))?;
        self.sent.set(self.sent.get() + batch.len() as u64);
        mpi::request::scope(|scope| -> Result<(), ExchangeError> {
            let mut req = self
                .world
                .process_at_rank(rank)
                .immediate_send_with_tag(scope, batch, DATA);
            loop {
                match req.test() {
                    Ok(_) => return Ok(()),
                    Err(r) => {
                        req = r;
                        self.take_arrivals(receive, ends, false)?;
                    }
                }
            }
        })
    }
}

impl Exchange for Mpi {
    fn share(&self, ix: &IndexScheme) -> Option<Share> {
        Share::of(ix, self.rank(), self.ranks())
    }

    fn sum(&self, values: &mut [u64]) -> Result<(), ExchangeError> {
        let mine = values.to_vec();
        self.world
            .all_reduce_into(&mine[..], values, SystemOperation::sum());
        Ok(())
    }

    fn max(&self, values: &mut [u64]) -> Result<(), ExchangeError> {
        let mine = values.to_vec();
        self.world
            .all_reduce_into(&mine[..], values, SystemOperation::max());
        Ok(())
    }

    fn wait_all(&self) -> Result<(), ExchangeError> {
        // A blocking barrier would spin (OpenMPI polls); a non-blocking one tested between
        // naps leaves the core to rank 0.
        let mut barrier = self.world.immediate_barrier();
        loop {
            match barrier.test() {
                Ok(_) => return Ok(()),
                Err(pending) => {
                    barrier = pending;
                    std::thread::sleep(IDLE_NAP);
                }
            }
        }
    }

    fn pass(
        &self,
        pass: &(dyn Fn(&Post) + Sync),
        receive: &mut dyn FnMut(Vec<u64>),
    ) -> Result<(), ExchangeError> {
        let (post, rx) = post_queue();
        let me = self.rank();
        let mut ends = 0usize;
        std::thread::scope(|s| -> Result<(), ExchangeError> {
            let worker = s.spawn(move || pass(&post));
            loop {
                match rx.recv_timeout(POLL) {
                    Ok((dest, batch)) if dest == me => receive(batch),
                    Ok((dest, batch)) => self.send(dest, &batch, receive, &mut ends)?,
                    Err(RecvTimeoutError::Timeout) => {
                        self.take_arrivals(receive, &mut ends, false)?;
                    }
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            }
            worker
                .join()
                .map_err(|_| ExchangeError::Transport("the pass panicked"))
        })?;
        let empty: [u64; 0] = [];
        for r in 0..self.ranks() {
            if r != me {
                let rank =
                    i32::try_from(r).map_err(|_| ExchangeError::Transport("no such rank"))?;
                self.world
                    .process_at_rank(rank)
                    .send_with_tag(&empty[..], END);
            }
        }
        while ends + 1 < self.ranks() {
            self.take_arrivals(receive, &mut ends, true)?;
        }
        Ok(())
    }
}
