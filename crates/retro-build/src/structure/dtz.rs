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

use std::{
    collections::BTreeMap,
    io::{self, Write},
    path::Path,
    sync::Mutex,
};

use rayon::prelude::*;
use shakmaty::{ByColor, Color, Role};

use super::{Done, Kind, PartFiles, Plan};
use crate::{
    dtz::{DtzSolved, Wdl50Tables},
    error::{DtzError, Inconsistency},
    kernel::{
        exits::{exit_plans, for_each_en_passant, plan_slot, ExitPlan, PROMOTIONS},
        moves::{legal_targets, LegalTargets},
        unmoves::{discovery_masks, legal_origins},
        SIDES,
    },
    progress::Progress,
};
use retro_tables::{
    index::{IndexScheme, Squares},
    pieces::{attacks_from, occupancy},
    Dtz, Material, Value, Wdl, Wdl50,
};

/// A decided cell: the depth in the low bits, `LOSS` for a loss.
const DECIDED: u16 = 1 << 15;
const LOSS: u16 = 1 << 14;
const DEPTH: u16 = 0x0FFF;
/// An undecided win (DTM says so).
const WINNER: u16 = 1 << 13;
/// An undecided loss: successors still open in the low byte, its worst exit in bits 8..10
/// (0 none, 1 a zeroing move into a win, 2 into a cursed win).
const LOSER: u16 = 1 << 12;
/// In a decided loss: its best move zeroes (or it is mate), so that its DTZ is one more than
/// its depth.
const ZEROES: u16 = 1 << 12;
/// In a decided win: decided by its exit in the init, it joins the frontier from the seeds.
const SEEDED: u16 = 1 << 12;
const EXIT_SHIFT: u32 = 8;
const COUNT: u16 = 0xFF;

/// The plies a loser's worst exit (cell code) stands for.
const fn exit_plies(code: u16) -> u16 {
    match code {
        0 => 0,
        1 => 1,
        _ => 101,
    }
}

/// The exact DTZ of a decided cell.
fn dtz_of(cell: u16) -> Dtz {
    let d = (cell & DEPTH) as i16;
    if cell & LOSS != 0 {
        Dtz(-d - i16::from(cell & ZEROES != 0))
    } else {
        Dtz(d)
    }
}

/// What every part reads.
struct Table<'a> {
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
    error: Mutex<Option<DtzError>>,
}

/// Solves the DTZ50 of `material` (with pawns, canonical) part by part from the DTM parts in
/// `work` (every one done), zeroing moves looked up in `sub`; its parts' files go to `work`
/// too, and a solve stopped part way goes on from those there. `progress` counts the parts.
///
/// # Errors
/// A DTM part missing, a sub-table missing, values that contradict the DTM values, a DTZ
/// longer than a byte holds, or a work file that cannot be written.
pub(crate) fn solve(
    material: Material,
    sub: &Wdl50Tables,
    work: &Path,
    progress: &dyn Progress,
) -> Result<DtzSolved, DtzError> {
    let ix = IndexScheme::new(material);
    let files = |kind| PartFiles {
        material,
        ix: ix.clone(),
        plan: Plan::new(&ix),
        work: work.to_path_buf(),
        kind,
    };
    let t = Table {
        material,
        slots: ix.slots().to_vec(),
        n: ix.piece_count(),
        plans: exit_plans(ix.slots()),
        sub,
        dtm: files(Kind::Dtm),
        dtz: files(Kind::Dtz),
        error: Mutex::new(None),
        ix,
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
    for level in t.dtz.plan.levels.clone() {
        t.dtz.map_done(&mut dtz, level.clone());
        let todo: Vec<usize> = level.clone().filter(|&p| dtz.maps[p].is_none()).collect();
        progress.advance((level.len() - todo.len()) as u64);
        todo.par_iter().for_each(|&p| {
            if let Err(e) = Part::new(&t, &dtm, &dtz, p).solve() {
                t.note(e);
            }
            progress.advance(1);
        });
        t.check()?;
        t.dtz.map_done(&mut dtz, level);
    }
    progress.end();
    let stats = dtz
        .maps
        .iter()
        .flatten()
        .map(PartFiles::stats)
        .fold([0, 0], |a, b| [a[0].max(b[0]), a[1].max(b[1])]);
    let gathered = t.dtz.gather(&dtz).map_err(|e| {
        DtzError::Work(
            work.to_path_buf(),
            io::Error::other(format!("gathering the DTZ50 parts: {e}")),
        )
    })?;
    Ok(DtzSolved {
        white: gathered.white,
        black: gathered.black,
        longest_win: stats[0],
        longest_loss: stats[1],
        kept: gathered.legal,
    })
}

impl Table<'_> {
    fn note(&self, e: DtzError) {
        if let Ok(mut g) = self.error.lock() {
            g.get_or_insert(e);
        }
    }

    fn check(&self) -> Result<(), DtzError> {
        match self.error.lock().map(|mut g| g.take()) {
            Ok(Some(e)) => Err(e),
            _ => Ok(()),
        }
    }

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
        let Some(Some(plan)) = self.plans.get(plan_slot(skip, promo)) else {
            return Err(DtzError::MissingSubTable(format!(
                "{} (no exit plan for slot {skip})",
                self.material.name()
            )));
        };
        self.sub.class(plan, sq, side)
    }

    /// The class, for `side` to move, of this table's entry `idx` in a part done.
    fn own_class(&self, dtm: &Done, dtz: &Done, side: Color, idx: u64) -> Result<Wdl50, DtzError> {
        let missing = || self.inconsistent(idx, side, Inconsistency::UndecidedAfterPawnMove);
        let (p, place) = self.dtm.locate(idx).ok_or_else(missing)?;
        let (m, _) = self.dtm.read(dtm, side, p, place).ok_or_else(missing)?;
        let (z, _) = self.dtz.read(dtz, side, p, place).ok_or_else(missing)?;
        Dtz::from_tables(m, z).map(Dtz::wdl50).ok_or_else(missing)
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

/// A node of a pass: side to move, place in the part, and whether it is a loss.
type Node = (Color, u32, bool);

/// One part being solved.
struct Part<'t, 'a> {
    t: &'t Table<'a>,
    dtm: &'t Done,
    dtz: &'t Done,
    number: usize,
    structures: &'t [u64],
    len: u64,
    cells: ByColor<Vec<u16>>,
    /// What joins the frontier at a later depth: the init's seeds and late losses.
    seeds: BTreeMap<u16, Vec<(Color, u32)>>,
}

impl<'t, 'a> Part<'t, 'a> {
    fn new(t: &'t Table<'a>, dtm: &'t Done, dtz: &'t Done, number: usize) -> Self {
        let structures = &t.dtz.plan.parts[number];
        let len = t.ix.structure_len();
        let cells = structures.len() * len as usize;
        Part {
            t,
            dtm,
            dtz,
            number,
            structures,
            len,
            cells: ByColor::new_with(|_| vec![0u16; cells]),
            seeds: BTreeMap::new(),
        }
    }

    /// The place in this part of entry `idx`; `None` when it is in another part.
    #[inline]
    fn place(&self, idx: u64) -> Option<usize> {
        let (s, r) = self.t.ix.split_structure(idx);
        let k = self.structures.iter().position(|&x| x == s)?;
        Some(k * self.len as usize + r as usize)
    }

    /// The entry at `place`.
    #[inline]
    fn entry(&self, place: usize) -> u64 {
        let (k, r) = (place as u64 / self.len, place as u64 % self.len);
        self.t.ix.join_structure(self.structures[k as usize], r)
    }

    fn seed(&mut self, d: u16, side: Color, place: usize) {
        self.seeds.entry(d).or_default().push((side, place as u32));
    }

    fn solve(mut self) -> Result<(), DtzError> {
        let mut legal = LegalTargets::new();
        let mut keys = Vec::new();
        for place in 0..self.cells.white.len() {
            let idx = self.entry(place);
            let Some(sq) = self.t.ix.decode(idx) else {
                continue;
            };
            for side in SIDES {
                self.init(&sq, idx, place, side, &mut legal, &mut keys)?;
            }
        }
        let mut frontier: Vec<Node> = Vec::new();
        let mut d: u16 = 0;
        loop {
            if let Some(seeds) = self.seeds.remove(&d) {
                for (side, place) in seeds {
                    if let Some(lost) = self.join_seed(side, place as usize, d) {
                        frontier.push((side, place, lost));
                    }
                }
            }
            if frontier.is_empty() {
                match self.seeds.keys().next() {
                    Some(&next) => {
                        d = next;
                        continue;
                    }
                    None => break,
                }
            }
            if d >= DEPTH - 1 {
                return Err(DtzError::Overflow(self.t.material.name()));
            }
            frontier = self.pass(&frontier, d)?;
            d += 1;
        }
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
            self.seed(0, side, place);
            return Ok(());
        }
        keys.clear();
        // A loser's counter counts distinct successors: where two moves may reach the same
        // entry, the entries are listed and deduplicated.
        let dedupe = !winner && t.ix.may_coincide(sq, side.other());
        let mut counted = 0usize;
        // Winner: the fewest plies an exit gives (1 or 101); loser: the most.
        let mut exit: u16 = 0;
        let mut moves = 0u32;
        let occ = legal.occ;
        for i in 0..t.n {
            let all = legal.targets[i];
            if all == 0 {
                continue;
            }
            let pawn = t.slots[i].1 == Role::Pawn;
            let quiet = if pawn { 0 } else { all & !occ };
            if !winner && !dedupe {
                counted += quiet.count_ones() as usize;
            }
            moves += quiet.count_ones();
            let mut listed = if winner || !dedupe { all & !quiet } else { all };
            while listed != 0 {
                let to = listed.trailing_zeros() as u8;
                listed &= listed - 1;
                let mut after = *sq;
                after[i] = to;
                if quiet & (1u64 << to) != 0 {
                    let key = t.ix.moved(idx, sq, i, to).or_else(|| t.ix.index(&after));
                    if let Some(k) = key {
                        keys.push(k);
                    }
                    continue;
                }
                let capture = if occ & (1u64 << to) != 0 {
                    match (0..t.n).find(|&j| sq[j] == to) {
                        Some(j) if j >= 2 => j,
                        _ => continue, // a king is never taken
                    }
                } else {
                    usize::MAX
                };
                let promotes = pawn && (to >> 3 == 7 || to >> 3 == 0);
                let roles: &[Option<Role>] = if promotes {
                    &[
                        Some(PROMOTIONS[0]),
                        Some(PROMOTIONS[1]),
                        Some(PROMOTIONS[2]),
                        Some(PROMOTIONS[3]),
                    ]
                } else {
                    &[None]
                };
                for &promotion in roles {
                    moves += 1;
                    let theirs = if capture != usize::MAX || promotion.is_some() {
                        t.sub_class(&after, capture, promotion.map(|r| (i, r)), side.other())?
                    } else {
                        // A pawn push: a part of a higher level, already final.
                        let child =
                            t.ix.moved(idx, sq, i, to)
                                .or_else(|| t.ix.index(&after))
                                .ok_or_else(|| DtzError::NotIndexable(t.material.name()))?;
                        let mut class = t.own_class(self.dtm, self.dtz, side.other(), child)?;
                        if legal.double[i] & (1u64 << to) != 0 {
                            if let Some(ep) = t.en_passant(&after, side.other(), i)? {
                                class = class.max(ep);
                            }
                        }
                        class
                    };
                    let plies = match (winner, theirs) {
                        (true, Wdl50::Loss) | (false, Wdl50::Win) => 1,
                        (true, Wdl50::BlessedLoss) | (false, Wdl50::CursedWin) => 101,
                        (true, _) => continue,
                        (false, c) => {
                            return Err(t.inconsistent(idx, side, Inconsistency::LossWithMoveTo(c)))
                        }
                    };
                    exit = match (exit, winner) {
                        (0, _) => plies,
                        (_, true) => exit.min(plies),
                        (_, false) => exit.max(plies),
                    };
                }
            }
        }
        if winner {
            if exit == 1 {
                // A winning zeroing move: 1 ply, the least a win has.
                self.cells[side][place] = DECIDED | SEEDED | 1;
            } else {
                self.cells[side][place] = WINNER;
            }
            if exit > 0 {
                self.seed(exit, side, place);
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
            self.cells[side][place] = DECIDED | LOSS | ZEROES | (exit - 1);
            self.seed(exit - 1, side, place);
            return Ok(());
        }
        let code = match exit {
            0 => 0,
            1 => 1,
            _ => 2,
        };
        self.cells[side][place] = LOSER | (code << EXIT_SHIFT) | counted as u16;
        Ok(())
    }

    /// Whether a seed joins the frontier of depth `d`, and if so whether it is a loss: a winner
    /// not decided sooner is decided now; one decided in the init joins at its depth.
    fn join_seed(&mut self, side: Color, place: usize, d: u16) -> Option<bool> {
        let cell = self.cells[side].get_mut(place)?;
        let cur = *cell;
        if cur & DECIDED != 0 {
            let joins = (cur & LOSS != 0 || cur & SEEDED != 0) && cur & DEPTH == d;
            return joins.then_some(cur & LOSS != 0);
        }
        if cur & WINNER != 0 {
            *cell = DECIDED | d;
            return Some(false);
        }
        None
    }

    /// The un-moves from the nodes decided at depth `d`: a predecessor of a loss wins at
    /// `d + 1`, one of a win has its counter lowered and is lost when it runs out (at `d + 1`,
    /// or later by its exits: a seed). What is decided at `d + 1` is returned.
    fn pass(&mut self, frontier: &[Node], d: u16) -> Result<Vec<Node>, DtzError> {
        let t = self.t;
        let mut next = Vec::new();
        let mut preds: Vec<u64> = Vec::new();
        for &(side, place, lost) in frontier {
            let idx = self.entry(place as usize);
            let Some(sq) = t.ix.decode(idx) else {
                continue;
            };
            let mover = side.other();
            preds.clear();
            let occ = occupancy(&sq, t.n);
            let masks = discovery_masks(&t.slots, t.n, &sq, occ, side);
            for i in 0..t.n {
                let (c, role) = t.slots[i];
                if c != mover || role == Role::Pawn {
                    continue;
                }
                let mut origins = attacks_from(c, role, sq[i], occ)
                    & !occ
                    & legal_origins(&t.slots, &sq, occ, side, i, &masks);
                while origins != 0 {
                    let from = origins.trailing_zeros() as u8;
                    origins &= origins - 1;
                    let mut pred = sq;
                    pred[i] = from;
                    if let Some(p) = t.ix.moved(idx, &sq, i, from).or_else(|| t.ix.index(&pred)) {
                        preds.push(p);
                    }
                }
            }
            if !lost && t.ix.may_coincide(&sq, side) {
                // A loser's counter counts distinct successors.
                preds.sort_unstable();
                preds.dedup();
            }
            for &p in &preds {
                let Some(pp) = self.place(p) else {
                    continue;
                };
                let cur = self.cells[mover][pp];
                if cur & DECIDED != 0 {
                    continue;
                }
                if lost {
                    if cur & WINNER != 0 {
                        self.cells[mover][pp] = DECIDED | (d + 1);
                        next.push((mover, pp as u32, false));
                    }
                } else if cur & LOSER != 0 {
                    match cur & COUNT {
                        0 => {
                            return Err(t.inconsistent(
                                p,
                                mover,
                                Inconsistency::MoreDecidedThanMoves,
                            ))
                        }
                        1 => {
                            // Its depth, from which the winner's moves into it count, is one
                            // ply less than its DTZ when its best move zeroes.
                            let exit = exit_plies((cur >> EXIT_SHIFT) & 3);
                            let (v, zeroes) = if exit > d + 1 {
                                (exit - 1, ZEROES)
                            } else {
                                (d + 1, 0)
                            };
                            self.cells[mover][pp] = DECIDED | LOSS | zeroes | v;
                            if v == d + 1 {
                                next.push((mover, pp as u32, true));
                            } else {
                                self.seed(v, mover, pp);
                            }
                        }
                        _ => self.cells[mover][pp] = cur - 1,
                    }
                }
            }
        }
        Ok(next)
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
                        let idx = self.entry(place);
                        return Err(t.inconsistent(idx, side, Inconsistency::NeverDecided));
                    }
                    continue;
                }
                let dtz = dtz_of(cell);
                bytes[side][place] = dtz
                    .to_table_byte()
                    .ok_or_else(|| DtzError::TooLong(t.material.name(), dtz))?;
                kept[side][place / 64] |= 1 << (place % 64);
                if dtz.0 > 0 {
                    win = win.max(dtz.plies());
                } else {
                    loss = loss.max(dtz.plies());
                }
            }
        }
        let path = t.dtz.work.join(Kind::Dtz.file(self.structures[0]));
        let (bits_at, _) = t.dtz.part_layout(self.number);
        retro_tables::write_atomic(&path, |w| {
            w.write_all(&t.dtz.header(self.number, [win, loss]))?;
            for side in SIDES {
                w.write_all(&bytes[side])?;
            }
            w.write_all(&[0u8; 8][..bits_at - (super::PART_HEADER + 2 * n)])?;
            for side in SIDES {
                let words: Vec<u8> = kept[side].iter().flat_map(|w| w.to_le_bytes()).collect();
                w.write_all(&words)?;
            }
            Ok::<(), io::Error>(())
        })
        .map(|_| ())
        .map_err(|e| DtzError::Work(path.clone(), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{dtz::DtzSolver, structure::Scope, Silent, Stage, SubTables};

    /// Tables of 3 and 4 pieces with pawns: the DTZ50 bytes, the entries kept and the longest
    /// win and loss of the solve by structure are those of the whole-table solve, also when
    /// some parts' files are lost and solved again.
    #[test]
    fn the_dtz50_by_structure_is_the_whole_table_solve() {
        let dir = tempfile::tempdir().expect("dir");
        let dir = dir.path();
        let materials: Vec<Material> = ["KPvK", "KPvKP", "KRPvK", "KPPvK", "KBPvK", "KQvKP"]
            .iter()
            .map(|m| m.parse().expect("material"))
            .collect();
        crate::build_for_test(dir, &materials);
        for m in materials {
            let m = m.canonical();
            let sub = SubTables::open_for(dir, m, Stage::InitBoth).expect("sub-tables");
            let work = dir.join(format!("work-{}", m.name()));
            let dtm = super::super::solve(m, &sub, &work, &Silent, Scope::All, None)
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
            let parts = solve(m, &wdl50, &work, &Silent).expect("DTZ50 by structure");
            let same = |a: &DtzSolved, b: &DtzSolved| {
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
            for (k, e) in std::fs::read_dir(&work).expect("work").enumerate() {
                let path = e.expect("entry").path();
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
                if k % 2 == 0 && name.is_some_and(|n| n.starts_with("dtz-")) {
                    std::fs::remove_file(&path).expect("remove");
                    lost += 1;
                }
            }
            assert!(lost > 0, "{}", m.name());
            let again = solve(m, &wdl50, &work, &Silent).expect("DTZ50 again");
            same(&again, &whole);
            assert!(
                whole.white.iter().any(|&b| b != 0),
                "{}: no win or loss",
                m.name()
            );
        }
    }
}
