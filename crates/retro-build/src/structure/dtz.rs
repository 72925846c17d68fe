//! DTZ50 of a material with pawns, solved one part (a pawn structure and its mirror image) at a
//! time from the DTM parts of the solve by structure, with the cells of one part in memory.
//!
//! The values are those of the whole-table DTZ50 solve ([`crate::dtz`], whose module docs give
//! the rules and Syzygy's convention): only the wins and losses of the DTM values take part; a
//! zeroing move (capture, promotion, pawn move) is an exit valued by its class under the rule,
//! from a sub-table or, for a pawn move, from the parts already solved (the DTM and DTZ50
//! bytes of the entry it leads to give its class); the other moves stay in the part and are
//! solved depth by depth. Each part is a work file of its own ([`Kind::Dtz`]: the table bytes
//! and the bits of the wins and losses, with the part's longest win and loss in its header),
//! so a solve stopped part way goes on from the parts done.

use std::{io, marker::PhantomData, ops::Range, path::Path};

use shakmaty::{ByColor, Color, Role};

use super::{
    part::{self, Buckets, Joins, PartMetric},
    Done, Kind, PartFiles, Places,
};
use crate::{
    dtz::{
        dtz_of, moves_of_win_or_loss, step, MovesFound, Position, Step, Wdl50Tables, COUNT,
        DECIDED, DEPTH, EXIT_SHIFT, LOSER, LOSS, WINNER, ZEROES,
    },
    error::{DtzError, Inconsistency},
    kernel::{
        exits::{exit_plans, for_each_en_passant, ExitPlan},
        moves::{legal_targets, LegalTargets},
        SIDES,
    },
    metric::{Dtz50, Zeroing},
    progress::Progress,
};
use retro_tables::{
    index::{IndexScheme, Squares},
    Dtz, Material, Value, Wdl, Wdl50,
};

/// What every part reads, for the zeroing metric `M`.
struct Table<'a, M> {
    material: Material,
    ix: IndexScheme,
    slots: Vec<(Color, Role)>,
    n: usize,
    plans: Vec<Option<ExitPlan>>,
    sub: &'a Wdl50Tables,
    /// The DTM parts (every one done).
    dtm: PartFiles,
    /// The DTZ50 parts.
    dtz: PartFiles,
    metric: PhantomData<fn() -> M>,
}

/// Solves the DTZ50 of `material` (with pawns, canonical) part by part from the DTM parts in
/// `work` (every one done), zeroing moves looked up in `sub`: the parts not done yet of the
/// levels in `levels` (numbered as [`super::structure_levels`] lists them; those before must
/// be done). Its parts' files go to `work` too, and a solve stopped part way goes on from those
/// there. `progress` counts the parts.
///
/// # Errors
/// A DTM part missing, a sub-table missing, a part of an earlier level not done, values that
/// contradict the DTM values, a DTZ longer than a byte holds, or a work file that cannot be
/// written.
pub(crate) fn solve(
    material: Material,
    sub: &Wdl50Tables,
    work: &Path,
    progress: &dyn Progress,
    levels: Range<usize>,
) -> Result<(), DtzError> {
    solve_metric::<Dtz50>(material, sub, work, progress, levels)
}

/// [`solve`] in the zeroing metric `M` (the classes in `sub` are those under its rule).
///
/// # Errors
/// As [`solve`].
pub(crate) fn solve_metric<M: Zeroing>(
    material: Material,
    sub: &Wdl50Tables,
    work: &Path,
    progress: &dyn Progress,
    levels: Range<usize>,
) -> Result<(), DtzError> {
    let ix = IndexScheme::new(material);
    let t = Table::<M> {
        material,
        slots: ix.slots().to_vec(),
        n: ix.piece_count(),
        plans: exit_plans(ix.slots()),
        sub,
        dtm: PartFiles::new(material, work, Kind::Dtm),
        dtz: PartFiles::new(material, work, Kind::Dtz),
        ix,
        metric: PhantomData,
    };
    let parts = t.dtm.plan.parts.len();
    let mut dtm = Done {
        maps: (0..parts).map(|_| None).collect(),
    };
    t.dtm.map_done(&mut dtm, 0..parts);
    if let Some(p) = dtm.maps.iter().position(Option::is_none) {
        return Err(DtzError::Work(
            work.to_path_buf(),
            io::Error::other(format!("the DTM of structure part {p} is not there")),
        ));
    }
    let mut dtz = Done {
        maps: (0..parts).map(|_| None).collect(),
    };
    progress.begin(&material.name(), "DTZ50 structures", Some(parts as u64));
    t.dtz.run_levels(
        &mut dtz,
        levels,
        crate::jobs::parts_limit(material, Kind::Dtz),
        progress,
        |_, p, _| {
            DtzError::Work(
                work.to_path_buf(),
                io::Error::other(format!("the DTZ50 of structure part {p} is not there")),
            )
        },
        |dtz, p| Part::new(&t, &dtm, dtz, p).solve(),
        |_| Ok(()),
    )?;
    progress.end();
    Ok(())
}

/// [`solve_metric`], then the table's bytes gathered from the parts in memory.
#[cfg(test)]
pub(crate) fn solve_gathered<M: Zeroing>(
    material: Material,
    sub: &Wdl50Tables,
    work: &Path,
    progress: &dyn Progress,
) -> Result<crate::dtz::DtzSolved, DtzError> {
    solve_metric::<M>(material, sub, work, progress, 0..usize::MAX)?;
    let g = super::gathered(material, work, Kind::Dtz)
        .map_err(|e| DtzError::Work(work.to_path_buf(), io::Error::other(e.to_string())))?;
    Ok(crate::dtz::DtzSolved {
        white: g.values.white.to_vec(),
        black: g.values.black.to_vec(),
        longest_win: g.stats[0],
        longest_loss: g.stats[1],
        kept: g.bits.clone(),
    })
}

impl<M: Zeroing> Table<'_, M> {
    fn inconsistent(&self, idx: u64, side: Color, why: Inconsistency) -> DtzError {
        DtzError::Inconsistent {
            material: self.material.name(),
            idx,
            side,
            why,
        }
    }

    /// A sub-table's class, for `side` to move, of `sq` without slot `skip` and with the
    /// promotion `promo`.
    fn sub_class(
        &self,
        sq: &Squares,
        skip: usize,
        promo: Option<(usize, Role)>,
        side: Color,
    ) -> Result<Wdl50, DtzError> {
        self.sub
            .exit_class(self.material, &self.plans, sq, skip, promo, side)
    }

    /// The class, for `side` to move, of this table's entry `idx` in a part done.
    fn own_class(&self, dtm: &Done, dtz: &Done, side: Color, idx: u64) -> Result<Wdl50, DtzError> {
        let missing = || self.inconsistent(idx, side, Inconsistency::UndecidedAfterPawnMove);
        let (p, place) = self.dtm.locate(idx).ok_or_else(missing)?;
        let (m, _) = self.dtm.read(dtm, side, p, place).ok_or_else(missing)?;
        let (z, _) = self.dtz.read(dtz, side, p, place).ok_or_else(missing)?;
        Dtz::from_tables(m, z).map(M::class).ok_or_else(missing)
    }

    /// The best en passant capture for `side` after the opponent's pawn in slot `pawn` pushed
    /// two squares to give `sq`, as `side`'s class; `None` without a legal one.
    fn en_passant(
        &self,
        sq: &Squares,
        side: Color,
        pawn: usize,
    ) -> Result<Option<Wdl50>, DtzError> {
        let mut best: Result<Option<Wdl50>, DtzError> = Ok(None);
        for_each_en_passant(&self.slots, sq, side, pawn, |after| {
            if let Ok(b) = &mut best {
                match self.sub_class(after, pawn, None, side.other()) {
                    Ok(theirs) => {
                        let mine = theirs.flip();
                        *b = Some(b.map_or(mine, |x| x.max(mine)));
                    }
                    Err(e) => best = Err(e),
                }
            }
        });
        best
    }
}

/// The DTZ rules of a part's passes: a cell as the whole-table solve's ([`crate::dtz`]).
impl<M: Zeroing> PartMetric for Table<'_, M> {
    type Cell = u16;
    type Error = DtzError;
    const DISTINCT: bool = true;
    const DEPTHS: usize = DEPTH as usize;

    fn overflow(&self) -> DtzError {
        DtzError::Overflow(self.material.name())
    }

    fn join_seed(&self, cell: &mut u16, d: usize) -> Result<bool, DtzError> {
        // A winner whose best zeroing move leads to a blessed loss, unless a faster win came.
        if *cell & (DECIDED | WINNER) != WINNER {
            return Ok(false);
        }
        *cell = DECIDED | d as u16;
        Ok(true)
    }

    fn lost(&self, cell: u16) -> bool {
        cell & LOSS != 0
    }

    fn update(
        &self,
        cell: &mut u16,
        lost: bool,
        d: usize,
        (idx, side): (u64, Color),
    ) -> Result<Option<usize>, DtzError> {
        // At most `DEPTH` for a win: past it, the bucket is the overflow.
        match step::<M>(*cell, lost, d as u16) {
            Step::Keep => Ok(None),
            Step::Counted(c) => {
                *cell = c;
                Ok(None)
            }
            Step::Decided(c, v) => {
                *cell = c;
                Ok(Some(usize::from(v)))
            }
            Step::Overcounted => {
                Err(self.inconsistent(idx, side, Inconsistency::MoreDecidedThanMoves))
            }
        }
    }
}

/// One part being solved.
struct Part<'t, 'a, M> {
    t: &'t Table<'a, M>,
    dtm: &'t Done,
    dtz: &'t Done,
    number: usize,
    places: Places<'t>,
    cells: ByColor<Vec<u16>>,
    /// The nodes by the depth they join at: the init's, then what the passes decide.
    buckets: Buckets,
}

impl<'t, 'a, M: Zeroing> Part<'t, 'a, M> {
    fn new(t: &'t Table<'a, M>, dtm: &'t Done, dtz: &'t Done, number: usize) -> Self {
        let places = t.dtz.places(number);
        let cells = places.count();
        Part {
            t,
            dtm,
            dtz,
            number,
            places,
            cells: ByColor::new_with(|_| vec![0u16; cells]),
            buckets: Buckets::new(<Table<'a, M> as PartMetric>::DEPTHS),
        }
    }

    fn solve(mut self) -> Result<(), DtzError> {
        let mut legal = LegalTargets::new();
        let mut keys = Vec::new();
        for place in 0..self.cells.white.len() {
            let idx = self.places.entry(place);
            let Some(sq) = self.t.ix.decode(idx) else {
                continue;
            };
            for side in SIDES {
                self.init(&sq, idx, place, side, &mut legal, &mut keys)?;
            }
        }
        let scope = part::Scope {
            ix: &self.t.ix,
            slots: &self.t.slots,
            places: self.places,
        };
        part::passes(self.t, &scope, &mut self.cells, &mut self.buckets)?;
        self.write()
    }

    /// The init of entry `idx` (`sq`, at `place`) with `side` to move.
    fn init(
        &mut self,
        sq: &Squares,
        idx: u64,
        place: usize,
        side: Color,
        legal: &mut LegalTargets,
        keys: &mut Vec<u64>,
    ) -> Result<(), DtzError> {
        let t = self.t;
        let byte = t
            .dtm
            .read(self.dtm, side, self.number, place)
            .map(|(b, _)| b)
            .ok_or_else(|| t.inconsistent(idx, side, Inconsistency::NeverDecided))?;
        let v = Value::from_byte(byte);
        let winner = match v.wdl() {
            Wdl::Draw => return Ok(()),
            Wdl::Win => true,
            Wdl::Loss => false,
        };
        // No position: the side not to move is in check.
        if !legal_targets(&t.slots, sq, t.n, side, legal) {
            return Ok(());
        }
        if v == Value::MATED {
            self.cells[side][place] = DECIDED | LOSS | ZEROES;
            return self.buckets.add(t, (side, place), 0, Joins::Decided);
        }
        // A loser's counter counts distinct successors: where two moves may reach the same
        // entry, the entries are listed and deduplicated.
        let dedupe = !winner && t.ix.may_coincide(sq, side.other());
        let (dtm, dtz) = (self.dtm, self.dtz);
        let MovesFound {
            mut counted,
            exit,
            moves,
        } = moves_of_win_or_loss::<M, _>(
            Position {
                ix: &t.ix,
                slots: &t.slots,
                idx,
                sq,
                legal,
            },
            winner,
            dedupe,
            keys,
            |after, mv| {
                if mv.capture != usize::MAX || mv.promotion.is_some() {
                    let promo = mv.promotion.map(|r| (mv.slot, r));
                    return t.sub_class(after, mv.capture, promo, side.other());
                }
                // A pawn push: a part of a higher level, already final.
                let child =
                    t.ix.moved(idx, sq, mv.slot, after[mv.slot])
                        .or_else(|| t.ix.index(after))
                        .ok_or_else(|| DtzError::NotIndexable(t.material.name()))?;
                let mut class = t.own_class(dtm, dtz, side.other(), child)?;
                if mv.double {
                    if let Some(ep) = t.en_passant(after, side.other(), mv.slot)? {
                        class = class.max(ep);
                    }
                }
                Ok(class)
            },
            |c| t.inconsistent(idx, side, Inconsistency::LossWithMoveTo(c)),
        )?;
        if winner {
            if exit == 1 {
                // A winning zeroing move: 1 ply, the least a win has.
                self.cells[side][place] = DECIDED | 1;
                return self.buckets.add(t, (side, place), 1, Joins::Decided);
            }
            self.cells[side][place] = WINNER;
            if exit > 0 {
                self.buckets
                    .add(t, (side, place), usize::from(exit), Joins::Seed)?;
            }
            return Ok(());
        }
        if dedupe {
            keys.sort_unstable();
            keys.dedup();
            counted = keys.len();
        }
        if counted > usize::from(COUNT) {
            return Err(t.inconsistent(idx, side, Inconsistency::Successors(counted)));
        }
        if counted == 0 {
            if exit == 0 {
                let why = if moves == 0 {
                    Inconsistency::NoMoveNoExit
                } else {
                    Inconsistency::LossWithoutExit(moves)
                };
                return Err(t.inconsistent(idx, side, why));
            }
            // Every move zeroes: like a mate, its depth one less than its DTZ.
            let v = M::loss_at(0, usize::from(exit)).depth as u16;
            self.cells[side][place] = DECIDED | LOSS | ZEROES | v;
            return self
                .buckets
                .add(t, (side, place), usize::from(v), Joins::Decided);
        }
        let code = match exit {
            0 => 0,
            1 => 1,
            _ => 2,
        };
        self.cells[side][place] = LOSER | (code << EXIT_SHIFT) | counted as u16;
        Ok(())
    }

    /// Writes the part's file: the table bytes of each side and the bits of its wins and
    /// losses, its longest win and loss in the header.
    fn write(&self) -> Result<(), DtzError> {
        let t = self.t;
        let n = self.cells.white.len();
        let mut bytes: ByColor<Vec<u8>> = ByColor::new_with(|_| vec![0u8; n]);
        let mut kept: ByColor<Vec<u64>> = ByColor::new_with(|_| vec![0u64; n.div_ceil(64)]);
        let (mut win, mut loss) = (0u32, 0u32);
        for side in SIDES {
            for (place, &cell) in self.cells[side].iter().enumerate() {
                if cell & DECIDED == 0 {
                    if cell & (WINNER | LOSER) != 0 {
                        let idx = self.places.entry(place);
                        return Err(t.inconsistent(idx, side, Inconsistency::NeverDecided));
                    }
                    continue;
                }
                let dtz = dtz_of(cell);
                bytes[side][place] =
                    M::table_byte(dtz).ok_or_else(|| DtzError::TooLong(t.material.name(), dtz))?;
                kept[side][place / 64] |= 1 << (place % 64);
                if dtz.0 > 0 {
                    win = win.max(dtz.plies());
                } else {
                    loss = loss.max(dtz.plies());
                }
            }
        }
        let fill = |side: Color, run: std::ops::Range<usize>, buf: &mut Vec<u8>| {
            buf.extend_from_slice(&bytes[side][run]);
        };
        t.dtz
            .write_part(self.number, [win, loss], fill, &kept)
            .map_err(|(path, e)| DtzError::Work(path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        dtz::DtzSolver,
        structure::{tests::for_each_material, Scope},
        Silent,
    };

    /// Tables of 3 and 4 pieces with pawns: the DTZ50 bytes, the entries kept and the longest
    /// win and loss of the solve by structure are those of the whole-table solve, also when
    /// some parts' files are lost and solved again.
    #[test]
    fn the_dtz50_by_structure_is_the_whole_table_solve() {
        let names = ["KPvK", "KPvKP", "KRPvK", "KPPvK", "KBPvK", "KQvKP"];
        for_each_material(&names, |_, dir, m, sub, work| {
            let dtm = super::super::solve(m, sub, work, &Silent, Scope::All, None)
                .expect("DTM by structure")
                .expect("values");
            let wdl50 = Wdl50Tables::open_for(dir, m).expect("WDL50 sub-tables");
            let whole = DtzSolver::new(
                m,
                ByColor {
                    white: &dtm.white[..],
                    black: &dtm.black[..],
                },
                &wdl50,
            )
            .solve()
            .expect("whole DTZ50");
            let parts =
                solve_gathered::<Dtz50>(m, &wdl50, work, &Silent).expect("DTZ50 by structure");
            let same = |a: &crate::dtz::DtzSolved, b: &crate::dtz::DtzSolved| {
                assert!(a.white == b.white, "{}: white's bytes differ", m.name());
                assert!(a.black == b.black, "{}: black's bytes differ", m.name());
                assert!(a.kept == b.kept, "{}: kept bits differ", m.name());
                assert_eq!(
                    (a.longest_win, a.longest_loss),
                    (b.longest_win, b.longest_loss),
                    "{}",
                    m.name()
                );
            };
            same(&parts, &whole);
            // Every other DTZ50 part file lost: those are solved again, the same.
            let mut lost = 0;
            for (k, e) in std::fs::read_dir(work).expect("work").enumerate() {
                let path = e.expect("entry").path();
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
                if k % 2 == 0 && name.is_some_and(|n| n.starts_with("dtz-")) {
                    std::fs::remove_file(&path).expect("remove");
                    lost += 1;
                }
            }
            assert!(lost > 0, "{}", m.name());
            let again = solve_gathered::<Dtz50>(m, &wdl50, work, &Silent).expect("DTZ50 again");
            same(&again, &whole);
            assert!(
                whole.white.iter().any(|&b| b != 0),
                "{}: no win or loss",
                m.name()
            );
        });
    }
}
