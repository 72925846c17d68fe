//! Last-move analysis: a position is illegal when it has no proof kernel, or when every
//! candidate last move comes from an illegal position. The earlier positions are analysed recursively only where that cannot go
//! on forever: after a capture (captures are finite), when the side to move is in check (both
//! sides cannot give check on every move forever), and when a single candidate is left. A node
//! and time budget bounds the rest.

use std::{collections::HashMap, time::Instant};

use super::{
    kernel::{self, Kind},
    kernel_move::{KernelMove, KernelResult},
    limits::{Limits, Stop},
    position::RawPosition,
    reason::Illegality,
    revmoves, rules,
};

/// The deepest chain of earlier positions followed.
const MAX_DEPTH: usize = 64;

/// Nodes an extended kernel search may take before it is given up as inconclusive (the
/// analysis then goes on with the last moves).
const EXTENDED_NODES: u64 = 50_000;

/// The search state of one analysis: the budget and the positions already settled (exact keys:
/// a cached result is a proven one).
pub struct Analysis {
    limits: Limits,
    /// Positions analysed so far.
    pub nodes: u64,
    proven: HashMap<RawPosition, Option<Illegality>>,
    /// Whether a proof kernel was found for the position analysed (once searched).
    pub root_kernel: Option<bool>,
    start: RawPosition,
}

impl Analysis {
    /// A fresh analysis with `limits`.
    pub fn new(limits: Limits) -> Analysis {
        Analysis {
            limits,
            nodes: 0,
            proven: HashMap::new(),
            root_kernel: None,
            start: RawPosition::start(),
        }
    }

    /// Moves the deadline: an analysis that ran out of time goes on from the positions it has
    /// settled.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.limits.deadline = deadline;
    }

    fn tick(&mut self) -> Result<(), Stop> {
        self.nodes += 1;
        self.limits.check(self.nodes)
    }

    /// `Some(reason)` when `p` is proven illegal, `None` when no proof was found.
    ///
    /// # Errors
    /// The budget ran out before the analysis ended.
    pub fn illegal(&mut self, p: &RawPosition) -> Result<Option<Illegality>, Stop> {
        self.illegal_at(p, 0)
    }

    fn illegal_at(&mut self, p: &RawPosition, depth: usize) -> Result<Option<Illegality>, Stop> {
        if let Some(r) = rules::check(p) {
            return Ok(Some(Illegality::Rule(r)));
        }
        if p.is_start() {
            return Ok(None);
        }
        if let Some(known) = self.proven.get(p) {
            return Ok(*known);
        }
        self.tick()?;
        let start = self.start.clone();
        let kernel = kernel::search(&start, p, Kind::Plain, &mut || self.tick())?;
        if depth == 0 {
            self.root_kernel = Some(matches!(kernel, KernelResult::Found(_)));
        }
        let KernelResult::Found(plain) = kernel else {
            let found = Some(Illegality::NoKernel);
            self.proven.insert(p.clone(), found);
            return Ok(found);
        };
        if super::unsolvable(p) {
            let found = Some(Illegality::Unsolvable);
            self.proven.insert(p.clone(), found);
            return Ok(found);
        }
        if depth == 0 && self.no_extended_kernel(p, &plain)? {
            let found = Some(Illegality::NoExtendedKernel);
            self.proven.insert(p.clone(), found);
            return Ok(found);
        }
        let found = self.last_moves(p, depth)?;
        self.proven.insert(p.clone(), found);
        Ok(found)
    }

    /// Whether the extended kernel search, given `plain`, a kernel of `p` found already,
    /// proves `p` illegal within `EXTENDED_NODES` nodes (which also count against the
    /// analysis' budget).
    ///
    /// # Errors
    /// The analysis' own budget ran out.
    fn no_extended_kernel(&mut self, p: &RawPosition, plain: &[KernelMove]) -> Result<bool, Stop> {
        let start = self.start.clone();
        let mut local = 0u64;
        let mut gave_up = false;
        let result = kernel::search(&start, p, Kind::ExtendedFrom(plain), &mut || {
            local += 1;
            if local > EXTENDED_NODES {
                gave_up = true;
                return Err(Stop::Nodes);
            }
            self.tick()
        });
        match result {
            Ok(r) => Ok(r == KernelResult::None),
            Err(_) if gave_up => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Whether the kernel search or the relaxed problem ([`unsolvable`](super::unsolvable))
    /// alone proves `p` (a candidate's earlier position, which
    /// passed the static rules) illegal.
    fn no_kernel(&mut self, p: &RawPosition) -> Result<bool, Stop> {
        if let Some(known) = self.proven.get(p) {
            return Ok(known.is_some());
        }
        let start = self.start.clone();
        let kernel = kernel::search(&start, p, Kind::Plain, &mut || self.tick())?;
        if kernel == KernelResult::None {
            self.proven.insert(p.clone(), Some(Illegality::NoKernel));
            return Ok(true);
        }
        if super::unsolvable(p) {
            self.proven.insert(p.clone(), Some(Illegality::Unsolvable));
            return Ok(true);
        }
        Ok(false)
    }

    fn last_moves(&mut self, p: &RawPosition, depth: usize) -> Result<Option<Illegality>, Stop> {
        const ALL_ILLEGAL: Illegality = Illegality::AllLastMovesIllegal;
        let candidates = revmoves::generate(p);
        if candidates.is_empty() {
            return Ok(Some(Illegality::NoLastMove));
        }
        // First the cheap proof: earlier positions without a proof kernel.
        let mut remaining = Vec::new();
        for c in candidates {
            if !self.no_kernel(&c.prior)? {
                remaining.push(c);
            }
        }
        if remaining.is_empty() {
            return Ok(Some(ALL_ILLEGAL));
        }
        if depth >= MAX_DEPTH {
            return Ok(None);
        }
        // Then recursion, only where it ends: after captures, when in check, or on the one
        // candidate left. Two candidates left that are neither leave the position unproven.
        let in_check = p.checkers(p.turn).any();
        let (recursed, open): (Vec<_>, Vec<_>) = remaining
            .iter()
            .partition(|c| in_check || c.capture.is_some());
        if open.len() >= 2 {
            return Ok(None);
        }
        for c in recursed {
            if self.illegal_at(&c.prior, depth + 1)?.is_none() {
                return Ok(None);
            }
        }
        match open.as_slice() {
            [] => Ok(Some(ALL_ILLEGAL)),
            [only] => Ok(self
                .illegal_at(&only.prior, depth + 1)?
                .map(|_| ALL_ILLEGAL)),
            _ => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(fen: &str) -> Option<String> {
        let p = RawPosition::from_fen(fen).expect("fen");
        Analysis::new(Limits::default())
            .illegal(&p)
            .expect("in budget")
            .map(|r| r.to_string())
    }

    #[test]
    fn a_double_check_no_move_gives_is_illegal() {
        // The king on d8 checked along the rank by a rook on a8 and
        // along the file by a rook on d1: no single move opens one line and enters the other.
        assert_eq!(
            verdict("R2k4/8/8/8/8/8/8/3RK3 b - - 0 1").as_deref(),
            Some("no possible last move")
        );
    }

    #[test]
    fn the_bishop_with_no_way_in() {
        assert_eq!(
            verdict("3k4/8/8/B7/1P6/8/8/4K3 b - - 0 1").as_deref(),
            Some("no possible last move")
        );
    }

    #[test]
    fn en_passant_claim_with_an_unexplained_check_before_it() {
        // b7-b5 must have been the last move, blocking a check by Ba4 that white could not
        // have given: the bishop's way in is blocked by b3.
        assert_eq!(
            verdict("4k3/8/8/1pP5/B7/1P6/8/4K3 w - b6 0 1").as_deref(),
            Some("every possible last move comes from an illegal position")
        );
    }

    #[test]
    fn unmoved_king_and_rook_with_nothing_else_to_move() {
        // White keeps the right to castle, so neither piece has moved: no last move.
        assert_eq!(
            verdict("4k3/8/8/8/8/8/8/4K2R b K - 0 1").as_deref(),
            Some("no possible last move")
        );
    }

    #[test]
    fn ordinary_positions_are_not_proven_illegal() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            "4k3/8/8/8/8/7P/8/4K2R b K - 0 1",
            "k7/8/8/8/8/8/8/KR6 b - - 0 1",
            "R2k4/8/8/8/8/8/8/4K3 b - - 0 1",
        ] {
            assert_eq!(verdict(fen), None, "{fen}");
        }
    }

    #[test]
    fn an_analysis_out_of_time_goes_on_with_a_new_deadline() {
        // A cpr1k position without a proof kernel: the search takes more nodes than the first
        // look at the clock (after 64).
        let fen = "b1B1rR2/6k1/P2Q3r/r2PqB1n/1b3Nn1/2q1qbKq/B1P2pB1/1q2R2N w - - 0 1";
        let p = RawPosition::from_fen(fen).expect("fen");
        let mut fresh = Analysis::new(Limits::default());
        let proof = fresh.illegal(&p).expect("in budget");
        assert!(
            proof.is_some() && fresh.nodes > 64,
            "{proof:?} in {} nodes",
            fresh.nodes
        );
        let mut late = Analysis::new(Limits {
            deadline: Some(Instant::now()),
            ..Limits::default()
        });
        assert_eq!(late.illegal(&p), Err(Stop::Time));
        late.set_deadline(None);
        assert_eq!(late.illegal(&p), Ok(proof));
    }
}
