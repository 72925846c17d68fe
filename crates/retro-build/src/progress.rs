//! How a build or a check reports how far it has got. The library only counts; the front end
//! draws ([`Progress`] is implemented by `build-tables` with a progress bar on a terminal).

/// Where a build or a check reports its progress, one phase at a time.
pub trait Progress: Send + Sync {
    /// A phase of the work on `material` begins: `what` it is, and its length: `Some(n)`, a
    /// phase of `n` steps; `None`, a count of depths.
    fn begin(&self, material: &str, what: &str, steps: Option<u64>);
    /// The phase is at `position` (a step, or the depth), with a note (empty when there is none).
    fn at(&self, position: u64, note: &str);
    /// `n` more steps of the phase are done.
    fn advance(&self, n: u64);
    /// The phase is over.
    fn end(&self);
}

/// Progress that nobody sees: the engine's background build, the tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Progress for Silent {
    fn begin(&self, _material: &str, _what: &str, _steps: Option<u64>) {}
    fn at(&self, _position: u64, _note: &str) {}
    fn advance(&self, _n: u64) {}
    fn end(&self) {}
}
