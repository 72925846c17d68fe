//! The frontier by depth: the loop every solve of the generator runs after its init pass.
//!
//! At depth `d` the frontier is completed (the init pass's seeds of `d` and the losses decided
//! earlier for `d` join the entries decided by the pass from `d - 1`), then one pass un-moves
//! every node of it, deciding predecessors at `d + 1` and scheduling the losses their exits
//! make longer. The loop ends at the first depth whose frontier is empty with nothing scheduled
//! after it. A metric and a state store implement [`Depths`]; the loop is the same for all.

/// One solve seen depth by depth.
pub(crate) trait Depths {
    /// Why the solve failed.
    type Error;

    /// Completes the frontier of depth `d` (see the module docs) and returns how many nodes it
    /// holds. Work a solve does at the start of a depth (a checkpoint) is done here.
    fn complete(&mut self, d: usize) -> Result<u64, Self::Error>;

    /// Whether anything is scheduled for a depth after `d`.
    fn scheduled_after(&self, d: usize) -> bool;

    /// The pass from the frontier of depth `d` (`count` nodes): un-moves its nodes, decides
    /// their predecessors at `d + 1` (the next frontier) and schedules later losses; the next
    /// frontier then becomes the current one. A depth past what the solve stores is its
    /// overflow error.
    fn pass(&mut self, d: usize, count: u64) -> Result<(), Self::Error>;
}

/// Runs the passes of `solve` from depth `first` (0, or where a resumed solve stopped) until
/// its frontier is empty and nothing is scheduled; returns the depth it ended at.
///
/// # Errors
/// The first error of a completion or a pass.
pub(crate) fn by_depth<D: Depths>(solve: &mut D, first: usize) -> Result<usize, D::Error> {
    let mut d = first;
    loop {
        let count = solve.complete(d)?;
        if count == 0 && !solve.scheduled_after(d) {
            return Ok(d);
        }
        solve.pass(d, count)?;
        d += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A solve on a line of entries: entry `i` is decided at depth `i`; a node's predecessor
    /// is the next entry, and one loss is scheduled late, past an empty depth.
    struct Line {
        len: usize,
        frontier: Vec<usize>,
        late: Vec<(usize, usize)>,
        decided: Vec<Option<usize>>,
    }

    impl Depths for Line {
        type Error = usize;

        fn complete(&mut self, d: usize) -> Result<u64, usize> {
            let (now, later): (Vec<_>, Vec<_>) = self.late.iter().partition(|(at, _)| *at == d);
            self.late = later;
            for (_, e) in now {
                self.decided[e] = Some(d);
                self.frontier.push(e);
            }
            Ok(self.frontier.len() as u64)
        }

        fn scheduled_after(&self, d: usize) -> bool {
            self.late.iter().any(|(at, _)| *at > d)
        }

        fn pass(&mut self, d: usize, _count: u64) -> Result<(), usize> {
            if d > 50 {
                return Err(d);
            }
            let mut next = Vec::new();
            for &e in &self.frontier {
                if e + 1 < self.len && self.decided[e + 1].is_none() {
                    self.decided[e + 1] = Some(d + 1);
                    next.push(e + 1);
                }
            }
            self.frontier = next;
            Ok(())
        }
    }

    #[test]
    fn the_loop_goes_on_past_empty_depths_while_something_is_scheduled() {
        let mut line = Line {
            len: 3,
            frontier: vec![0],
            late: vec![(6, 4)],
            decided: vec![Some(0), None, None, None, None, None],
        };
        assert_eq!(by_depth(&mut line, 0), Ok(7));
        assert_eq!(
            line.decided,
            vec![Some(0), Some(1), Some(2), None, Some(6), None]
        );
    }

    #[test]
    fn an_error_of_a_pass_ends_the_loop() {
        let mut line = Line {
            len: 100,
            frontier: vec![0],
            late: Vec::new(),
            decided: vec![None; 100],
        };
        line.decided[0] = Some(0);
        assert_eq!(by_depth(&mut line, 0), Err(51));
    }
}
