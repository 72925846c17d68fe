//! Exits: moves that leave the material (captures, promotions, en passant captures), valued
//! by probing the sub-tables, with the mapping of each kind of exit onto its sub-table worked out
//! once (`ExitPlan`).

use std::sync::atomic::Ordering::Relaxed;

use shakmaty::{Color, Role};

use super::{color_of, Solver, SubTableError};
use crate::dtz::Records;
use retro_tables::{
    index::Squares,
    material::{key_of_piece, MAX_PIECES},
    pieces::{attacked, occupancy, slot_key},
    ProbeError, Tables, Value, Wdl50,
};

/// The roles a pawn promotes to, in the order of `plan_slot`.
const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

/// Where the plan of an exit is kept: capture of slot `skip` (`usize::MAX`: none) and the
/// promotion `promo`.
#[inline]
pub(crate) fn plan_slot(skip: usize, promo: Option<(usize, Role)>) -> usize {
    let s = skip.min(MAX_PIECES);
    let p = match promo {
        None => 0,
        Some((slot, role)) => {
            let r = PROMOTIONS.iter().position(|&x| x == role).unwrap_or(0);
            1 + slot.min(MAX_PIECES - 1) * 4 + r
        }
    };
    s * (1 + 4 * MAX_PIECES) + p
}

/// How the pieces after one kind of exit map onto its sub-table: the sub-table's material key,
/// and for each of its slots the slot of this table the piece comes from, in the sub-table's
/// orientation (`order[0]`) and in the colour-swapped one (`order[1]`).
#[derive(Clone, Copy)]
pub(crate) struct ExitPlan {
    key: u64,
    len: usize,
    order: [[u8; MAX_PIECES]; 2],
}

impl ExitPlan {
    pub(super) fn new(
        slots: &[(Color, Role)],
        skip: usize,
        promo: Option<(usize, Role)>,
    ) -> ExitPlan {
        let pieces: Vec<(usize, Color, Role)> = slots
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != skip)
            .map(|(i, &(c, r))| match promo {
                Some((slot, role)) if slot == i => (i, c, role),
                _ => (i, c, r),
            })
            .collect();
        let key = pieces.iter().map(|&(_, c, r)| key_of_piece(c, r)).sum();
        let mut order = [[0u8; MAX_PIECES]; 2];
        for (swap, o) in order.iter_mut().enumerate() {
            let mut sorted = pieces.clone();
            // Stable, as `to_slots` is: identical pieces keep their order.
            sorted.sort_by_key(|&(_, c, r)| slot_key(if swap == 1 { c.other() } else { c }, r));
            for (k, &(i, _, _)) in sorted.iter().enumerate() {
                o[k] = i as u8;
            }
        }
        ExitPlan {
            key,
            len: pieces.len(),
            order,
        }
    }

    /// The sub-table's material key (0 for bare kings).
    #[inline]
    pub(crate) fn key(&self) -> u64 {
        self.key
    }

    /// The squares of `sq` in the sub-table's slot order: in its own orientation, or with the
    /// colours exchanged and the ranks mirrored when `swap`.
    #[inline]
    pub(crate) fn map(&self, sq: &Squares, swap: bool) -> Squares {
        let order = &self.order[usize::from(swap)];
        let mut mapped = [0u8; MAX_PIECES];
        for k in 0..self.len {
            let s = sq[usize::from(order[k])];
            mapped[k] = if swap { s ^ 56 } else { s };
        }
        mapped
    }
}

/// The plans of every exit of a material, by `plan_slot` (`None` where no exit is).
pub(crate) fn exit_plans(slots: &[(Color, Role)]) -> Vec<Option<ExitPlan>> {
    let n = slots.len();
    let mut plans = vec![None; plan_slot(MAX_PIECES, Some((MAX_PIECES - 1, Role::Knight))) + 1];
    for skip in (2..n).chain([usize::MAX]) {
        plans[plan_slot(skip, None)] = Some(ExitPlan::new(slots, skip, None));
        for (i, &(_, r)) in slots.iter().enumerate() {
            if r != Role::Pawn || i == skip {
                continue;
            }
            for role in PROMOTIONS {
                let promo = Some((i, role));
                plans[plan_slot(skip, promo)] = Some(ExitPlan::new(slots, skip, promo));
            }
        }
    }
    plans
}

impl<T: Tables + Sync + Default> Solver<T> {
    /// The value of a position outside this table, for the side to move (`side`): the position
    /// `sq` without the piece in slot `skip` (`usize::MAX` for none) and with the pawn in
    /// `promo.0` promoted to `promo.1`. Probed as [`retro_tables::lookup`] does, with the
    /// sub-table's material and slot order worked out once per kind of exit (see `ExitPlan`).
    pub(super) fn exit_value(
        &self,
        sq: &Squares,
        skip: usize,
        promo: Option<(usize, Role)>,
        side: usize,
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
        side: usize,
    ) -> (Value, Option<Wdl50>) {
        match self.probe_exit(sq, skip, promo, side) {
            None => (Value::DRAW, None),
            Some((v, None)) => (v, Some(Wdl50::Draw)), // bare kings
            Some((v, Some((key, idx, white)))) => match records.class(key, idx, white, v) {
                Ok(c) => (v, Some(c)),
                Err(e) => {
                    self.note_sub_error(SubTableError::Dtz50(Box::new(e)));
                    (v, None)
                }
            },
        }
    }

    /// The exit's value (see [`Solver::exit_value`]) and where it was read: the sub-table's
    /// material key, the entry and whether white is to move there in the table's own
    /// orientation (`None` for bare kings). `None` after noting an error.
    #[inline]
    #[allow(clippy::type_complexity)]
    fn probe_exit(
        &self,
        sq: &Squares,
        skip: usize,
        promo: Option<(usize, Role)>,
        side: usize,
    ) -> Option<(Value, Option<(u64, u64, bool)>)> {
        let Some(Some(plan)) = self.plans.get(plan_slot(skip, promo)) else {
            self.note_sub_error(SubTableError::NoExitPlan {
                slot: skip,
                promotion: promo,
            });
            return None;
        };
        if plan.key == 0 {
            return Some((Value::DRAW, None)); // bare kings
        }
        let probed = self.sub.table_by_key(plan.key).and_then(|(table, swap)| {
            let idx = table
                .scheme()
                .index(&plan.map(sq, swap))
                .ok_or_else(|| ProbeError::NotIndexable(table.material().name()))?;
            let white = (side == 0) ^ swap;
            Ok((table.get(white, idx)?, idx, white))
        });
        match probed {
            Ok((v, idx, white)) => Some((v, Some((plan.key, idx, white)))),
            Err(e) => {
                self.note_sub_error(e.into());
                None
            }
        }
    }

    /// The value of the move to a child outside the table, for the mover.
    pub(super) fn exit_move_value(&self, child: Value) -> Value {
        match Value::byte_from_child(child) {
            Some(v) => v,
            None => {
                self.overflow.store(true, Relaxed);
                Value::DRAW
            }
        }
    }

    /// Whether the king of `side` is attacked in `sq` with `occ`, ignoring slot `skip`.
    #[inline]
    pub(super) fn in_check(&self, sq: &Squares, side: usize, occ: u64, skip: usize) -> bool {
        attacked(&self.slots, sq, sq[side], color_of(1 - side), occ, skip)
    }

    /// En passant after `side`'s opponent pushed the pawn in slot `pawn` two squares: `None` if
    /// no legal capture exists, else the best capture's value for `side` (to move).
    pub(super) fn ep_value(&self, sq: &Squares, side: usize, pawn: usize) -> Option<Value> {
        let mut best: Option<Value> = None;
        for_each_en_passant(&self.slots, sq, side, pawn, |after| {
            let child = self.exit_value(after, pawn, None, 1 - side);
            let v = self.exit_move_value(child);
            best = Some(best.map_or(v, |b| b.max(v)));
        });
        best
    }
}

/// Calls `f` with the position after each legal en passant capture of `side` (to move in
/// `sq`, whose pieces are `slots`), after the opponent's pawn in slot `pawn` pushed two
/// squares; the captured pawn keeps its square in `after` (the caller leaves its slot out).
pub(crate) fn for_each_en_passant(
    slots: &[(Color, Role)],
    sq: &Squares,
    side: usize,
    pawn: usize,
    mut f: impl FnMut(&Squares),
) {
    let to = sq[pawn];
    let target = if side == 0 { to + 8 } else { to - 8 };
    let occ = occupancy(sq, slots.len());
    for (i, &(c, r)) in slots.iter().enumerate() {
        if c != color_of(side) || r != Role::Pawn {
            continue;
        }
        let from = sq[i];
        if from >> 3 != to >> 3 || (from & 7).abs_diff(to & 7) != 1 {
            continue;
        }
        let mut after = *sq;
        after[i] = target;
        let occ2 = (occ & !(1u64 << from) & !(1u64 << to)) | (1u64 << target);
        if !attacked(slots, &after, after[side], color_of(1 - side), occ2, pawn) {
            f(&after);
        }
    }
}
