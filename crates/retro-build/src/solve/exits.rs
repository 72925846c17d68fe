//! Exits: moves that leave the material (captures, promotions, en passant captures), valued
//! by probing the sub-tables, with the mapping of each kind of exit onto its sub-table worked out
//! once (`ExitPlan`).

use std::sync::atomic::Ordering::Relaxed;

use shakmaty::{Color, Role};

use super::{Solver, SubTableError};
use crate::dtz::Records;
use crate::kernel::{
    exits::{for_each_en_passant, probe_exit, ExitEntry},
    king_slot,
};
use crate::metric::Mating;
use retro_tables::{index::Squares, pieces::attacked, Tables, Value, Wdl50};

impl<T: Tables + Sync + Default, M: Mating> Solver<T, M> {
    /// The value of a position outside this table, for the side to move (`side`): the position
    /// `sq` without the piece in slot `skip` (`usize::MAX` for none) and with the pawn in
    /// `promo.0` promoted to `promo.1`. Probed as [`retro_tables::lookup`] does, with the
    /// sub-table's material and slot order worked out once per kind of exit (see `ExitPlan`).
    pub(super) fn exit_value(
        &self,
        sq: &Squares,
        skip: usize,
        promo: Option<(usize, Role)>,
        side: Color,
    ) -> Value {
        self.probe_exit(sq, skip, promo, side)
            .map_or(Value::DRAW, |(v, _)| v)
    }

    /// As [`Solver::exit_value`], and the position's class under the 50-move rule
    /// ([`Records::class`]; `None` after noting an error): the index is computed once for both.
    pub(super) fn exit_value_and_class(
        &self,
        records: &Records,
        sq: &Squares,
        skip: usize,
        promo: Option<(usize, Role)>,
        side: Color,
    ) -> (Value, Option<Wdl50>) {
        match self.probe_exit(sq, skip, promo, side) {
            None => (Value::DRAW, None),
            Some((v, None)) => (v, Some(Wdl50::Draw)), // bare kings
            Some((v, Some((key, idx, plane)))) => match records.class(key, idx, plane, v) {
                Ok(c) => (v, Some(c)),
                Err(e) => {
                    self.note_sub_error(SubTableError::Dtz50(Box::new(e)));
                    (v, None)
                }
            },
        }
    }

    /// The exit's value (see [`Solver::exit_value`]) and where it was read (see
    /// [`probe_exit`]); `None` after noting an error.
    #[inline]
    fn probe_exit(
        &self,
        sq: &Squares,
        skip: usize,
        promo: Option<(usize, Role)>,
        side: Color,
    ) -> Option<(Value, Option<ExitEntry>)> {
        probe_exit(&self.plans, &self.sub, sq, skip, promo, side)
            .map_err(|e| self.note_sub_error(e))
            .ok()
    }

    /// The value of the move to a child outside the table, for the mover, as the metric values
    /// an exit ([`Mating::exit_child`]).
    pub(super) fn exit_move_value(&self, child: Value) -> Value {
        match Value::byte_from_child(M::exit_child(child)) {
            Some(v) => v,
            None => {
                self.overflow.store(true, Relaxed);
                Value::DRAW
            }
        }
    }

    /// Whether the king of `side` is attacked in `sq` with `occ`, ignoring slot `skip`.
    #[inline]
    pub(super) fn in_check(&self, sq: &Squares, side: Color, occ: u64, skip: usize) -> bool {
        attacked(
            &self.slots,
            sq,
            sq[king_slot(side)],
            side.other(),
            occ,
            skip,
        )
    }

    /// En passant after `side`'s opponent pushed the pawn in slot `pawn` two squares: `None` if
    /// no legal capture exists, else the best capture's value for `side` (to move).
    pub(super) fn ep_value(&self, sq: &Squares, side: Color, pawn: usize) -> Option<Value> {
        let mut best: Option<Value> = None;
        for_each_en_passant(&self.slots, sq, side, pawn, |after| {
            let child = self.exit_value(after, pawn, None, side.other());
            let v = self.exit_move_value(child);
            best = Some(best.map_or(v, |b| b.max(v)));
        });
        best
    }
}
