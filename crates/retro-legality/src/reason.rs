//! Why a verdict is what it is, as typed values: an illegality proof ([`Illegality`]), a proof
//! game, or why neither was found ([`Undecided`], [`ProofSearchEnd`]). Their `Display` is the
//! text that `retro legal` prints.

use std::fmt;

use super::{rules::Rule, Status};

/// The proof of an `illegal` verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Illegality {
    /// A static rule is broken (kings, piece counts, checks, castling rights, en passant).
    Rule(Rule),
    /// No proof kernel: no sequence of captures leads from the starting position's pawns and
    /// pieces to the goal's.
    NoKernel,
    /// A proof kernel exists, but none whose captures fit the ranks (the extended kernel).
    NoExtendedKernel,
    /// The relaxed problem has no solution (see [`crate::unsolvable`]).
    Unsolvable,
    /// No move can have led to the position.
    NoLastMove,
    /// Every possible last move comes from an illegal position.
    AllLastMovesIllegal,
}

impl fmt::Display for Illegality {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Illegality::Rule(rule) => rule.fmt(f),
            Illegality::NoKernel => f.write_str("no proof kernel"),
            Illegality::NoExtendedKernel => f.write_str("no extended proof kernel"),
            Illegality::Unsolvable => f.write_str(
                "the starting position's pieces cannot become the goal's, even passing through \
                 each other",
            ),
            Illegality::NoLastMove => f.write_str("no possible last move"),
            Illegality::AllLastMovesIllegal => {
                f.write_str("every possible last move comes from an illegal position")
            }
        }
    }
}

/// Why the illegality analysis proved nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Undecided {
    /// It ended, a proof kernel was found, and no proof of illegality.
    KernelExists,
    /// It ended without a proof.
    NotProven,
    /// Its node limit was reached.
    NodeLimit,
    /// Its time limit was reached.
    TimeLimit,
    /// It was told to stop.
    Stopped,
}

impl fmt::Display for Undecided {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Undecided::KernelExists => "a proof kernel exists; not proven illegal",
            Undecided::NotProven => "not proven illegal",
            Undecided::NodeLimit => "node limit reached",
            Undecided::TimeLimit => "time limit reached",
            Undecided::Stopped => "stopped",
        })
    }
}

/// How a proof game search that found no game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProofSearchEnd {
    /// It searched its node budget, or all there was, without a game.
    NotFound,
    /// Its time ran out.
    TimeLimit,
    /// It was told to stop.
    Stopped,
}

impl fmt::Display for ProofSearchEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProofSearchEnd::NotFound => "no proof game found",
            ProofSearchEnd::TimeLimit => "time limit reached in the proof game search",
            ProofSearchEnd::Stopped => "proof game search stopped",
        })
    }
}

/// What decided a [`crate::Verdict`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Illegal, with its proof.
    Illegal(Illegality),
    /// The starting position itself (legal).
    StartingPosition,
    /// Legal: a proof game of this many plies replays to the position.
    ProofGame {
        /// The game's length in plies.
        plies: usize,
    },
    /// Neither proven: why the illegality analysis proved nothing, and how the proof game
    /// search ended when it ran.
    Unknown {
        /// Why no illegality proof.
        why: Undecided,
        /// The end of the proof game search, when one ran.
        proof_search: Option<ProofSearchEnd>,
    },
}

impl Reason {
    /// The status this reason decides.
    pub fn status(&self) -> Status {
        match self {
            Reason::Illegal(_) => Status::Illegal,
            Reason::StartingPosition | Reason::ProofGame { .. } => Status::Legal,
            Reason::Unknown { .. } => Status::Unknown,
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Illegal(why) => why.fmt(f),
            Reason::StartingPosition => f.write_str("the starting position"),
            Reason::ProofGame { plies } => write!(f, "proof game: {plies} plies"),
            Reason::Unknown {
                why,
                proof_search: None,
            } => why.fmt(f),
            Reason::Unknown {
                why,
                proof_search: Some(end),
            } => write!(f, "{why}; {end}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_read_as_retro_legal_prints_them() {
        let unknown = Reason::Unknown {
            why: Undecided::KernelExists,
            proof_search: Some(ProofSearchEnd::NotFound),
        };
        assert_eq!(
            unknown.to_string(),
            "a proof kernel exists; not proven illegal; no proof game found"
        );
        assert_eq!(
            Reason::ProofGame { plies: 12 }.to_string(),
            "proof game: 12 plies"
        );
        assert_eq!(
            Reason::Illegal(Illegality::NoLastMove).to_string(),
            "no possible last move"
        );
    }
}
