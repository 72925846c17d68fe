//! Exits: moves that leave the material (captures, promotions, en passant captures), with
//! the mapping of each kind of exit onto its sub-table worked out once (`ExitPlan`).

use shakmaty::{Color, Role};

use super::king_slot;
use crate::error::SubTableError;
use retro_tables::{
    index::Squares,
    material::{key_of_piece, MAX_PIECES},
    pieces::{attacked, occupancy, slot_key},
    ProbeError, Tables, Value,
};

/// The roles a pawn promotes to, in the order of `plan_slot`.
pub(crate) const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

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
    fn new(slots: &[(Color, Role)], skip: usize, promo: Option<(usize, Role)>) -> ExitPlan {
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

/// Where an exit's value was read: the sub-table's material key, the entry, and the side to
/// move there in the table's own orientation.
pub(crate) type ExitEntry = (u64, u64, Color);

/// The value, for `side` to move, of the position after an exit: `sq` without the piece in
/// slot `skip` (`usize::MAX` for none) and with the pawn in `promo.0` promoted to `promo.1`,
/// probed in `sub` as [`retro_tables::lookup`] does, through the exit's plan in `plans` (see
/// [`exit_plans`]); with where it was read (`None` for bare kings, a draw).
///
/// # Errors
/// No plan for this kind of exit, or the sub-table cannot be probed.
#[inline]
pub(crate) fn probe_exit<T: Tables>(
    plans: &[Option<ExitPlan>],
    sub: &T,
    sq: &Squares,
    skip: usize,
    promo: Option<(usize, Role)>,
    side: Color,
) -> Result<(Value, Option<ExitEntry>), SubTableError> {
    let Some(Some(plan)) = plans.get(plan_slot(skip, promo)) else {
        return Err(SubTableError::NoExitPlan {
            slot: skip,
            promotion: promo,
        });
    };
    if plan.key() == 0 {
        return Ok((Value::DRAW, None)); // bare kings
    }
    let (table, swap) = sub.table_by_key(plan.key())?;
    let idx = table
        .scheme()
        .index(&plan.map(sq, swap))
        .ok_or_else(|| ProbeError::NotIndexable(table.material().name()))?;
    // The side to move in the table's own orientation.
    let plane = if swap { side.other() } else { side };
    Ok((table.get(plane, idx)?, Some((plan.key(), idx, plane))))
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

/// Calls `f` with the position after each legal en passant capture of `side` (to move in
/// `sq`, whose pieces are `slots`), after the opponent's pawn in slot `pawn` pushed two
/// squares; the captured pawn keeps its square in `after` (the caller leaves its slot out).
pub(crate) fn for_each_en_passant(
    slots: &[(Color, Role)],
    sq: &Squares,
    side: Color,
    pawn: usize,
    mut f: impl FnMut(&Squares),
) {
    let to = sq[pawn];
    let target = if side.is_white() { to + 8 } else { to - 8 };
    let occ = occupancy(sq, slots.len());
    for (i, &(c, r)) in slots.iter().enumerate() {
        if c != side || r != Role::Pawn {
            continue;
        }
        let from = sq[i];
        if from >> 3 != to >> 3 || (from & 7).abs_diff(to & 7) != 1 {
            continue;
        }
        let mut after = *sq;
        after[i] = target;
        let occ2 = (occ & !(1u64 << from) & !(1u64 << to)) | (1u64 << target);
        if !attacked(
            slots,
            &after,
            after[king_slot(side)],
            side.other(),
            occ2,
            pawn,
        ) {
            f(&after);
        }
    }
}
