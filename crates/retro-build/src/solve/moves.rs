//! Forward move generation for the init pass: a position's legal moves, with exits valued and
//! in-table moves counted, and when two moves may reach the same entry.

use shakmaty::{Color, Role};

use super::{item::item, Solver};
use crate::dtz::{Record, Records};
use crate::kernel::moves::{legal_targets, LegalTargets};
use crate::metric::Mating;
use retro_tables::{index::Squares, Tables, Value, Wdl};

/// How a position's in-table moves are counted.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Keys {
    /// One per move.
    Count,
    /// One per distinct successor entry.
    Dedupe,
}

/// Summary of one position's moves.
pub(super) struct MoveSummary {
    /// Number of legal moves.
    pub(super) moves: u32,
    /// Best value of a move leaving the table.
    pub(super) best_exit: Option<Value>,
    /// Longest loss through an exit (plies, for the mover).
    pub(super) longest_losing_exit: u32,
    /// Distinct in-table successors.
    pub(super) keys: [u64; 128],
    pub(super) nkeys: usize,
    /// For the DTZ50 records (only when the solver keeps them): the mover's best class under
    /// the 50-move rule after a capture or promotion, the distinct successors by quiet moves of
    /// pieces other than pawns, and the legal pawn pushes (see `crate::dtz::Record`).
    pub(super) record: Record,
    /// The legal targets of the position's pieces (see [`legal_targets`]), kept here so that
    /// they are filled in place.
    legal: LegalTargets,
}

impl MoveSummary {
    pub(super) fn new() -> MoveSummary {
        MoveSummary {
            moves: 0,
            best_exit: None,
            longest_losing_exit: 0,
            keys: [0; 128],
            nkeys: 0,
            record: Record {
                quiet: 0,
                best: None,
                pushes: 0,
            },
            legal: LegalTargets::new(),
        }
    }
}

impl<T: Tables + Sync + Default, M: Mating> Solver<T, M> {
    /// Generates the legal moves of `side` in the decoded position `sq` (entry `idx`): exits
    /// are valued; in-table moves are counted (`Keys::Count`) or recorded as distinct entries
    /// (`Keys::Dedupe`). `false`, with `out`'s counts untouched, when the position is no legal
    /// one (the king of the side not to move is attacked): the mover's attacks are computed
    /// once, for that test and for the moves.
    pub(super) fn summarize(
        &self,
        sq: &Squares,
        idx: u64,
        side: Color,
        keys: Keys,
        out: &mut MoveSummary,
    ) -> bool {
        if !legal_targets(&self.slots, sq, self.n, side, &mut out.legal) {
            return false;
        }
        let occ = out.legal.occ;
        out.moves = 0;
        out.best_exit = None;
        out.longest_losing_exit = 0;
        out.nkeys = 0;
        let records = self.records.as_ref();
        out.record = Record {
            quiet: 0,
            best: None,
            pushes: 0,
        };
        for i in 0..self.n {
            let mut targets = out.legal.targets[i];
            if targets == 0 {
                continue;
            }
            let role = self.slots[i].1;
            let double = out.legal.double[i];
            if keys == Keys::Count {
                // Every target is legal here: count the quiet moves at once and enumerate only
                // the captures and promotions.
                let promo_ranks = if role == Role::Pawn {
                    0xFF00_0000_0000_00FFu64
                } else {
                    0
                };
                let quiet = targets & !occ & !promo_ranks;
                let n = quiet.count_ones();
                out.moves += n;
                out.nkeys += n as usize;
                targets &= !quiet;
                if let Some(r) = records {
                    if role == Role::Pawn {
                        if quiet & !double != 0 {
                            out.record.pushes |= r.push_bit(i, false);
                        }
                        if quiet & double != 0 {
                            out.record.pushes |= r.push_bit(i, true);
                        }
                    } else {
                        out.record.quiet += n as u16;
                    }
                }
            }
            while targets != 0 {
                let to = targets.trailing_zeros() as u8;
                targets &= targets - 1;
                let to_bit = 1u64 << to;
                let captured = if occ & to_bit != 0 {
                    (0..self.n).find(|&j| sq[j] == to)
                } else {
                    None
                };
                if let Some(j) = captured {
                    if j < 2 {
                        continue; // a king cannot be taken in a legal position
                    }
                }
                let mut after = *sq;
                after[i] = to;
                let skip = captured.unwrap_or(usize::MAX);
                out.moves += 1;
                let promotes = role == Role::Pawn && (to >> 3 == 7 || to >> 3 == 0);
                if promotes {
                    for p in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                        self.add_exit_move(records, out, &after, skip, Some((i, p)), side);
                    }
                    out.moves += 3;
                } else if captured.is_some() {
                    self.add_exit_move(records, out, &after, skip, None, side);
                } else {
                    if let (Some(r), true) = (records, role == Role::Pawn) {
                        out.record.pushes |= r.push_bit(i, double & to_bit != 0);
                    }
                    match keys {
                        Keys::Count => {
                            out.nkeys += 1;
                            if role != Role::Pawn && records.is_some() {
                                out.record.quiet += 1;
                            }
                        }
                        Keys::Dedupe => {
                            let child = self
                                .ix
                                .moved(idx, sq, i, to)
                                .or_else(|| self.ix.index(&after));
                            let Some(child) = child else {
                                continue;
                            };
                            let mut key = child;
                            if double & to_bit != 0
                                && self.ep_value(&after, side.other(), i).is_some()
                            {
                                key = item(child, Color::White, (to & 7) + 1);
                            }
                            if !out.keys[..out.nkeys].contains(&key) && out.nkeys < out.keys.len() {
                                out.keys[out.nkeys] = key;
                                out.nkeys += 1;
                                // A pawn move changes the pawn structure, a piece move does
                                // not: their successors never coincide.
                                if role != Role::Pawn && records.is_some() {
                                    out.record.quiet += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
        true
    }

    /// How in-table moves from `sq` (with `side` to move) must be counted: as distinct entries
    /// only where two of them may reach the same one (see `may_coincide`).
    pub(super) fn keys_mode(&self, sq: &Squares, side: Color) -> Keys {
        if self.ix.may_coincide(sq, side.other()) {
            Keys::Dedupe
        } else {
            Keys::Count
        }
    }

    /// Adds a capture or promotion of `side` to `out`: the position after it, `after` without
    /// slot `skip` and with `promo`, is looked up in the sub-tables, for the DTZ50 record too
    /// when there is one.
    fn add_exit_move(
        &self,
        records: Option<&Records>,
        out: &mut MoveSummary,
        after: &Squares,
        skip: usize,
        promo: Option<(usize, Role)>,
        side: Color,
    ) {
        let Some(r) = records else {
            let child = self.exit_value(after, skip, promo, side.other());
            self.add_exit(out, self.exit_move_value(child));
            return;
        };
        let (child, theirs) = self.exit_value_and_class(r, after, skip, promo, side.other());
        self.add_exit(out, self.exit_move_value(child));
        if let Some(theirs) = theirs {
            let mine = theirs.flip();
            out.record.best = Some(out.record.best.map_or(mine, |b| b.max(mine)));
        }
    }

    fn add_exit(&self, out: &mut MoveSummary, v: Value) {
        out.best_exit = Some(out.best_exit.map_or(v, |b| b.max(v)));
        if v.wdl() == Wdl::Loss {
            out.longest_losing_exit = out.longest_losing_exit.max(v.plies());
        }
    }
}
