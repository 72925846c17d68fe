//! Distance to zeroing under the 50-move rule, as Syzygy defines it (see `retro_tables::Dtz`).

use std::marker::PhantomData;

use retro_tables::{format::Metric, Dtz, Wdl50, RULE_PLIES};

use super::{zeroing_loss_at, LossAt, Rules, Zeroing, ZeroingFiles};

/// DTZ50. An exit is a zeroing move: 1 ply into a position lost (for the winner) or won (for
/// the loser) under the rule, 101 into a blessed loss or a cursed win. A loss whose best move
/// zeroes is decided one ply before its exit, as a mate is at 0 with a DTZ of -1: the winner's
/// moves into it count from there, and its DTZ is one more than its depth.
pub struct Dtz50;

impl Rules for Dtz50 {
    #[inline]
    fn loss_at(first: usize, exit: usize) -> LossAt {
        zeroing_loss_at(first, exit)
    }
}

impl Zeroing for Dtz50 {
    const RULE: u16 = RULE_PLIES as u16;
}

impl ZeroingFiles for Dtz50 {
    const FILE: Metric = Metric::Dtz;
}

/// A DTZ50 value recomputed from a position's moves ([`Dtz50Moves`]): the DTZ, and whether a
/// loss's best move zeroes (mate counts as zeroing), so that the winner's moves into it count
/// from one ply less.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Recomputed {
    pub(crate) dtz: Dtz,
    pub(crate) zeroes: bool,
}

impl Recomputed {
    /// The depth of a loss as its parents see it: its DTZ's plies, less one where its best
    /// move zeroes.
    pub(crate) fn loss_depth(self) -> u16 {
        self.dtz.0.unsigned_abs() - u16::from(self.zeroes)
    }
}

/// The DTZ50 of a position from its moves ([`ZeroingMoves`] of DTZ50).
pub(crate) type Dtz50Moves = ZeroingMoves<Dtz50>;

/// The DTZ of a position in the zeroing metric `M` from its moves, one at a time (for DTZ50 by
/// Syzygy's rules): what the verifiers check every stored value against. A zeroing move
/// (capture, promotion, pawn move) is valued by the class it leads to; a quiet move by the
/// value of the position it leads to. The best win is the shortest; a loss (every move loses)
/// is decided by its longest quiet move and its longest zeroing move as [`Rules::loss_at`]
/// says.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ZeroingMoves<M> {
    /// The shortest win found, in plies.
    win: Option<u16>,
    /// The longest loss by a zeroing move (1 or 101 plies), and by a quiet move.
    zeroing_loss: u16,
    quiet_loss: u16,
    /// A move that does not lose.
    saves: bool,
    /// Any move at all.
    any: bool,
    metric: PhantomData<fn() -> M>,
}

impl<M> Default for ZeroingMoves<M> {
    fn default() -> Self {
        ZeroingMoves {
            win: None,
            zeroing_loss: 0,
            quiet_loss: 0,
            saves: false,
            any: false,
            metric: PhantomData,
        }
    }
}

impl<M: Zeroing> ZeroingMoves<M> {
    fn win(&mut self, plies: u16) {
        self.any = true;
        self.win = Some(self.win.map_or(plies, |b| b.min(plies)));
    }

    /// A zeroing move into a position of class `theirs` for the opponent.
    #[inline]
    pub(crate) fn zeroing(&mut self, theirs: Wdl50) {
        self.any = true;
        if let Some(plies) = M::winner_exit(theirs) {
            self.win(plies);
        } else if let Ok(plies) = M::loser_exit(theirs) {
            self.zeroing_loss = self.zeroing_loss.max(plies);
        } else {
            self.saves = true;
        }
    }

    /// A quiet move into a draw.
    #[inline]
    pub(crate) fn quiet_to_draw(&mut self) {
        self.any = true;
        self.saves = true;
    }

    /// A quiet move into a loss for the opponent at `depth` ([`Recomputed::loss_depth`]).
    #[inline]
    pub(crate) fn quiet_to_loss(&mut self, depth: u16) {
        self.win(depth + 1);
    }

    /// A quiet move into a win of the opponent of DTZ `dtz`.
    #[inline]
    pub(crate) fn quiet_to_win(&mut self, dtz: u16) {
        self.any = true;
        self.quiet_loss = self.quiet_loss.max(dtz + 1);
    }

    /// The value, once every move is in; `in_check` (asked only when there was no move) tells
    /// mate from stalemate. `None` for a DTZ past what a [`Dtz`] holds.
    pub(crate) fn value(self, in_check: impl FnOnce() -> bool) -> Option<Recomputed> {
        let loss = |first: u16, exit: u16| {
            let at = M::loss_at(usize::from(first), usize::from(exit));
            let plies = i16::try_from(at.depth + usize::from(at.by_exit)).ok()?;
            Some(Recomputed {
                dtz: Dtz(-plies),
                zeroes: at.by_exit,
            })
        };
        let draw = Recomputed {
            dtz: Dtz(0),
            zeroes: false,
        };
        if !self.any {
            // Mate is a loss whose every move zeroes, in one ply.
            return if in_check() { loss(0, 1) } else { Some(draw) };
        }
        match self.win {
            Some(w) => Some(Recomputed {
                dtz: Dtz(i16::try_from(w).ok()?),
                zeroes: false,
            }),
            None if !self.saves => loss(self.quiet_loss, self.zeroing_loss),
            None => Some(draw),
        }
    }
}
