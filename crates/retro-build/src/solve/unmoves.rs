//! Un-move generation: the predecessors of a decided node, those known to be decided dropped and
//! the cells of the others prefetched.

use shakmaty::{Color, Role};

use super::{
    item::{item_ep, item_idx, item_side, Item},
    Solver,
};
use crate::kernel::{
    prefetch,
    unmoves::{discovery_masks, legal_origins},
};
use crate::metric::Mating;
use retro_tables::{
    pieces::{attacks_from, occupancy},
    Tables, Value,
};

/// The predecessors of one decided node, before their cells are updated.
pub(super) struct Preds {
    /// Predecessor entries (distinct when they could coincide).
    pub(super) preds: [u64; 160],
    pub(super) np: usize,
    /// Predecessors through an en passant node.
    pub(super) ep_preds: [u64; 8],
    pub(super) nep: usize,
    /// The side to move in the predecessors.
    pub(super) mover: Color,
    /// Predecessors generated, before those known to be decided were dropped.
    pub(super) generated: usize,
}

impl Preds {
    pub(super) fn new() -> Preds {
        Preds {
            preds: [0; 160],
            np: 0,
            ep_preds: [0; 8],
            nep: 0,
            mover: Color::White,
            generated: 0,
        }
    }
}

impl<T: Tables + Sync + Default, M: Mating> Solver<T, M> {
    /// The predecessors of a node decided at depth `d`, into `found`: those not known to be
    /// decided, with their cells prefetched for `update_all`.
    pub(super) fn predecessors(&self, it: Item, d: usize, found: &mut Preds) {
        found.np = 0;
        found.nep = 0;
        let (side, idx, ep) = (item_side(it), item_idx(it), item_ep(it));
        found.mover = side.other();
        let Some(sq) = self.ix.decode(idx) else {
            return;
        };
        let mover = side.other(); // the side that just moved, to move in the predecessors
                                  // Predecessors of a loss that are decided already (mostly faster wins) need no update
                                  // and are left out. Predecessors of a win are rarely decided (KQRvKR: 0.6%), so there
                                  // the bitmap would cost a cache miss for nothing: the update reads the cell anyway.
        let lost = d.is_multiple_of(2);
        let occ = occupancy(&sq, self.n);
        let child_value = if lost {
            Value::byte_loss(d as u32)
        } else {
            Value::byte_win(d as u32)
        };
        let Some(child_value) = child_value else {
            return;
        };
        // Predecessors can coincide only in nearly symmetric pawnless positions (see
        // `may_coincide`).
        let dedupe = self.ix.may_coincide(&sq, side);
        let discovered = discovery_masks(&self.slots, self.n, &sq, occ, side);
        let Preds {
            preds,
            np,
            ep_preds,
            nep,
            ..
        } = found;
        for i in 0..self.n {
            let (c, role) = self.slots[i];
            if c != mover {
                continue;
            }
            let to = sq[i];
            if ep != 0 {
                // An en passant node has one predecessor: the double push of its pawn.
                if role != Role::Pawn || (to & 7) + 1 != ep {
                    continue;
                }
            }
            let mut origins;
            let mut double_from = 64u8;
            if role == Role::Pawn {
                let back: i8 = if mover.is_white() { -8 } else { 8 };
                let one = (to as i8 + back) as u8;
                let home_rank = if mover.is_white() { 1 } else { 6 };
                origins = 0;
                // A pawn on its second rank has no square behind it to come from.
                let on_second = to >> 3 == home_rank;
                if !on_second && occ & (1u64 << one) == 0 {
                    if ep == 0 {
                        origins |= 1u64 << one;
                    }
                    let fourth = if mover.is_white() { 3 } else { 4 };
                    if to >> 3 == fourth {
                        let two = (one as i8 + back) as u8;
                        if occ & (1u64 << two) == 0 {
                            double_from = two;
                        }
                    }
                }
            } else {
                origins = attacks_from(c, role, to, occ) & !occ;
            }
            let allowed = legal_origins(&self.slots, &sq, occ, side, i, &discovered);
            origins &= allowed;
            if allowed & (1u64 << double_from.min(63)) == 0 {
                double_from = 64;
            }
            let emit = |from: u8, list: &mut [u64], count: &mut usize, dedupe: bool| {
                let pi = match self.ix.moved(idx, &sq, i, from) {
                    Some(pi) => pi,
                    None => {
                        let mut p = sq;
                        p[i] = from;
                        match self.ix.index(&p) {
                            Some(pi) => pi,
                            None => return,
                        }
                    }
                };
                if (!dedupe || !list[..*count].contains(&pi)) && *count < list.len() {
                    list[*count] = pi;
                    *count += 1;
                }
            };
            match self.ix.stride(&sq, i) {
                // A lone piece other than a king: the index moves by its stride per square.
                Some(st) if !dedupe => {
                    if lost {
                        origins &= !self.decided_on_line(mover, i, idx);
                    }
                    let base = idx - u64::from(to) * st;
                    while origins != 0 && *np < preds.len() {
                        let from = u64::from(origins.trailing_zeros());
                        origins &= origins - 1;
                        preds[*np] = base + from * st;
                        *np += 1;
                    }
                }
                _ => {
                    while origins != 0 {
                        let from = origins.trailing_zeros() as u8;
                        origins &= origins - 1;
                        emit(from, preds, np, dedupe);
                    }
                }
            }
            if double_from < 64 {
                if ep != 0 {
                    emit(double_from, ep_preds, nep, false);
                } else {
                    match self.ep_value(&sq, side, i) {
                        None => emit(double_from, preds, np, dedupe),
                        Some(e) => {
                            // The node with the capture available is worth the better of its
                            // entry and the capture; it is decided now if that is the entry.
                            if child_value >= e {
                                emit(double_from, ep_preds, nep, false);
                            }
                        }
                    }
                }
            }
        }
        // Drop the predecessors of a loss known to be decided, and start loading the cells of
        // the others now: the caller updates them after it has generated the next node's
        // predecessors, so that the cache misses overlap that work.
        found.generated = *np + *nep;
        if lost {
            let mut keep = 0;
            for k in 0..*np {
                let p = preds[k];
                if !self.known_decided(mover, p) {
                    prefetch(&self.cells[mover], p as usize);
                    preds[keep] = p;
                    keep += 1;
                }
            }
            *np = keep;
        } else {
            for &p in preds[..*np].iter() {
                prefetch(&self.cells[mover], p as usize);
            }
        }
        for &p in ep_preds[..*nep].iter() {
            prefetch(&self.cells[mover], p as usize);
        }
    }
}
