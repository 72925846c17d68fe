//! The job graph of a build spread over a batch scheduler: one job per material still to
//! build, each after the jobs of the tables its captures and promotions lead to. The graph is
//! the scheduler-free half of `build-tables --slurm`; submitting it is the front end's.

use retro_tables::{index::IndexScheme, Material};

use crate::{compact, kernel::Stage, structure, successors_reaching};

/// Bytes a part of a solve by structure holds per entry of the part (both sides to move): the
/// DTM cells (4 bytes a side), the nodes waiting in the depth buckets (8 bytes each, counted
/// for half the entries of both sides) and the legal bits (a byte, rounded up).
const PART_BYTES_PER_ENTRY: u64 = 2 * 4 + 8 + 1;

/// As [`PART_BYTES_PER_ENTRY`] for a part of the DTZ50 solve by structure: its cells are 2
/// bytes a side.
const DTZ_PART_BYTES_PER_ENTRY: u64 = 2 * 2 + 8 + 1;

/// What a job does, for [`job_memory`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Task {
    /// The material's own job: its whole build, or (by structure) the gathering of its DTM
    /// parts and its DTZ50 solve part by part.
    Table,
    /// One part of its pawn structures (a task of a level's job array).
    Part(usize),
}

/// The bytes a job on `material` (canonical) with `threads` threads is expected to hold at its
/// peak, for a batch scheduler's memory request; `None` below 6 pieces, where a job's default
/// share of a node is enough. Without pawns it is the compact build's estimate
/// ([`compact::needs`]); with pawns (solved by structure) the sub-tables read into memory (one
/// byte an entry of each side read; the tables of promotions without a capture only for the
/// parts whose pawns can promote) and, per thread, a part's cells
/// ([`PART_BYTES_PER_ENTRY`]; the material's own job solves the DTZ50 parts,
/// [`DTZ_PART_BYTES_PER_ENTRY`], and holds the table's bits, a bit an entry of each side, while
/// it writes a table).
pub fn job_memory(material: Material, task: Task, threads: usize) -> Option<u64> {
    if material.piece_count() < 6 {
        return None;
    }
    if !material.has_pawns() {
        return Some(compact::needs(material).memory);
    }
    let ix = IndexScheme::new(material);
    Some(match task {
        Task::Part(p) => {
            sub_table_bytes(material, structure::part_promotes(material, p))
                + part_bytes(material, structure::Kind::Dtm)
        }
        Task::Table => {
            // The DTZ50 parts that promote one at a time beside the large tables they read,
            // the others `threads` at a time ([`parts_at_once`] holds the job to this).
            let dtz = part_bytes(material, structure::Kind::Dtz);
            let promoting = sub_table_bytes(material, true) + dtz;
            let others = sub_table_bytes(material, false) + threads.max(1) as u64 * dtz;
            promoting.max(others).max(2 * ix.size() / 8)
        }
    })
}

/// The bytes of the sub-tables of 5 pieces and more that a solve by structure of `material`
/// reads into memory (a byte an entry of each side read); the tables of promotions without a
/// capture only with `promotions`.
fn sub_table_bytes(material: Material, promotions: bool) -> u64 {
    successors_reaching(material, Stage::InitBoth, promotions)
        .into_iter()
        .filter(|(m, _)| m.piece_count() >= 5)
        .map(|(m, sides)| IndexScheme::new(m).size() * sides.iter().filter(|&&s| s).count() as u64)
        .sum()
}

/// The bytes one part of `material`'s solve by structure of `kind` holds while it is solved.
fn part_bytes(material: Material, kind: structure::Kind) -> u64 {
    // A part is one structure, or one and its mirror image.
    let part = 2 * IndexScheme::new(material).structure_len();
    part * match kind {
        structure::Kind::Dtm => PART_BYTES_PER_ENTRY,
        structure::Kind::Dtz => DTZ_PART_BYTES_PER_ENTRY,
    }
}

/// The memory a build by structure may fill ([`memory_budget`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Budget {
    /// What the job asked for, the sub-tables it reads included (Slurm's memory of the job).
    Job(u64),
    /// What is left now, the sub-tables already read (the system's available memory, or a
    /// control group's limit).
    Left(u64),
}

/// How many parts of `material`'s solve by structure of `kind` to solve at once with
/// `threads` threads, in levels that read the promotions' tables or not (`promotions`): as
/// many as the memory allows beside the sub-tables, at least one, at most `threads`
/// (`budget` `None`: no bound).
pub(crate) fn parts_at_once(
    material: Material,
    kind: structure::Kind,
    promotions: bool,
    threads: usize,
    budget: Option<Budget>,
) -> usize {
    let threads = threads.max(1);
    let free = match budget {
        None => return threads,
        Some(Budget::Job(b)) => b.saturating_sub(sub_table_bytes(material, promotions)),
        Some(Budget::Left(b)) => b,
    };
    let fit = free / part_bytes(material, kind).max(1);
    (fit.min(threads as u64) as usize).max(1)
}

/// [`parts_at_once`] for this process (its threads, [`memory_budget`] read once), asked
/// whether a level's parts promote.
pub(crate) fn parts_limit(material: Material, kind: structure::Kind) -> impl Fn(bool) -> usize {
    let budget = memory_budget();
    let threads = rayon::current_num_threads();
    move |promotions| parts_at_once(material, kind, promotions, threads, budget)
}

/// The memory this process may fill: under Slurm the job's (`SLURM_MEM_PER_NODE`, or
/// `SLURM_MEM_PER_CPU` times `SLURM_CPUS_PER_TASK`, in megabytes); else the memory the system
/// has available (`MemAvailable` of /proc/meminfo), or the control group's limit less its use
/// where that is less; `None` where none is known.
pub(crate) fn memory_budget() -> Option<Budget> {
    let var = |name: &str| std::env::var(name).ok()?.trim().parse::<u64>().ok();
    if let Some(mb) = var("SLURM_MEM_PER_NODE") {
        return Some(Budget::Job(mb << 20));
    }
    if let Some(mb) = var("SLURM_MEM_PER_CPU") {
        return Some(Budget::Job(
            (mb << 20) * var("SLURM_CPUS_PER_TASK").unwrap_or(1),
        ));
    }
    let available = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| meminfo_available(&m));
    let read = |p: &str| std::fs::read_to_string(p).ok();
    let cgroup = cgroup_left(
        read("/sys/fs/cgroup/memory.max").as_deref(),
        read("/sys/fs/cgroup/memory.current").as_deref(),
    );
    match (available, cgroup) {
        (Some(a), Some(c)) => Some(Budget::Left(a.min(c))),
        (a, c) => a.or(c).map(Budget::Left),
    }
}

/// What a control group (v2) may still take: its `memory.max` less its `memory.current`;
/// `None` without a limit ("max") or either file.
fn cgroup_left(max: Option<&str>, current: Option<&str>) -> Option<u64> {
    let max = max?.trim().parse::<u64>().ok()?;
    let current = current?.trim().parse::<u64>().ok()?;
    Some(max.saturating_sub(current))
}

/// `MemAvailable` of a /proc/meminfo text, in bytes.
fn meminfo_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb = line.split_whitespace().nth(1)?.parse::<u64>().ok()?;
    Some(kb << 10)
}

/// One material to build, after the jobs it reads from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// The material this job builds (its DTM and DTZ50 tables).
    pub material: Material,
    /// Indices (into the graph) of the jobs that build the sub-tables this one reads. Sub-tables
    /// already present have no job and are not waited for.
    pub after: Vec<usize>,
}

/// The jobs that build `requested` and everything it needs that `present` says is missing, in
/// build order (each job after every job it waits for, so submitting them in this order names
/// only jobs already submitted).
pub fn job_graph(requested: &[Material], present: impl Fn(Material) -> bool) -> Vec<Job> {
    let todo: Vec<Material> = crate::plan(requested)
        .into_iter()
        .filter(|m| !present(*m))
        .collect();
    todo.iter()
        .map(|&material| {
            let mut after: Vec<usize> = material
                .successors()
                .into_iter()
                .filter_map(|s| todo.iter().position(|&t| t == s))
                .collect();
            after.sort_unstable();
            Job { material, after }
        })
        .collect()
}

/// The waves of a graph: the jobs grouped by their depth in it (wave 0 waits for nothing, wave
/// `k` for at least one job of wave `k - 1`); the jobs of one wave are independent.
pub fn waves(jobs: &[Job]) -> Vec<Vec<usize>> {
    let mut depth = vec![0usize; jobs.len()];
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        // The graph is in build order: every job waited for comes earlier.
        depth[i] = job.after.iter().map(|&a| depth[a] + 1).max().unwrap_or(0);
        if out.len() <= depth[i] {
            out.resize_with(depth[i] + 1, Vec::new);
        }
        out[depth[i]].push(i);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(name: &str) -> Material {
        name.parse().expect("material")
    }

    fn names(jobs: &[Job], idx: &[usize]) -> Vec<String> {
        idx.iter().map(|&i| jobs[i].material.name()).collect()
    }

    /// Memory requests: none below 6 pieces, the compact estimate without pawns, and for a
    /// 6-piece table with pawns the promotions' tables only in the parts that promote.
    #[test]
    fn jobs_of_six_pieces_ask_for_their_memory() {
        assert_eq!(job_memory(m("KRPvKR"), Task::Table, 2), None);
        let krnvknn = m("KRNvKNN");
        let whole = compact::needs(krnvknn).memory;
        assert_eq!(job_memory(krnvknn, Task::Table, 1), Some(whole));
        assert!(whole > 8_000_000_000 && whole < 12_000_000_000, "{whole}");
        let t = m("KRRvKRP");
        let levels = structure::structure_levels(t);
        let first = job_memory(t, Task::Part(0), 1).expect("a request");
        let last = job_memory(t, Task::Part(levels.iter().sum::<usize>() - 1), 1).expect("too");
        // The four 6-piece promotion tables, a side each: about 13.3 GB more.
        let promotions = first - last;
        assert!(
            promotions > 13_000_000_000 && promotions < 14_000_000_000,
            "{promotions}"
        );
        assert!(last < 10_000_000_000, "{last}");
        let table = job_memory(t, Task::Table, 1).expect("a request");
        assert!(table < first, "{table} {first}");
        let two = job_memory(t, Task::Table, 2).expect("a request");
        assert!(two >= table, "{two} {table}");
        eprintln!("KRRvKRP: a promoting part {first}, the last part {last}, the table {table}");
        // The table's job with two threads solves the DTZ50 parts that promote one at a
        // time and the others two at a time within what it asked for.
        let dtz = structure::Kind::Dtz;
        assert_eq!(parts_at_once(t, dtz, true, 2, Some(Budget::Job(two))), 1);
        assert_eq!(parts_at_once(t, dtz, false, 2, Some(Budget::Job(two))), 2);
        assert!(two < 23_000_000_000, "{two}");
    }

    /// As many parts at once as fit beside the sub-tables, at least one, at most one a thread;
    /// every thread where the memory is not known.
    #[test]
    fn parts_run_at_once_as_the_memory_allows() {
        let t = m("KRRvKRP");
        let (dtm, dtz) = (structure::Kind::Dtm, structure::Kind::Dtz);
        let part = part_bytes(t, dtm);
        let sub = sub_table_bytes(t, false);
        assert!(part_bytes(t, dtz) < part);
        let job = |b| Some(Budget::Job(b));
        assert_eq!(parts_at_once(t, dtm, false, 4, None), 4);
        assert_eq!(parts_at_once(t, dtm, false, 4, job(sub + 3 * part)), 3);
        assert_eq!(parts_at_once(t, dtm, false, 4, job(sub + 3 * part - 1)), 2);
        assert_eq!(parts_at_once(t, dtm, false, 4, job(0)), 1);
        assert_eq!(parts_at_once(t, dtm, true, 4, job(sub + 3 * part)), 1);
        assert_eq!(parts_at_once(t, dtm, false, 0, None), 1);
        // Memory left after the sub-tables were read counts whole.
        assert_eq!(
            parts_at_once(t, dtm, true, 4, Some(Budget::Left(3 * part))),
            3
        );
        // A 5-piece table reads no table into memory: its parts are small.
        let k = m("KRPvKR");
        assert_eq!(parts_at_once(k, dtm, true, 2, job(4 << 30)), 2);
        assert_eq!(cgroup_left(Some("max\n"), Some("5\n")), None);
        assert_eq!(cgroup_left(Some("100\n"), Some("30\n")), Some(70));
        assert_eq!(cgroup_left(Some("100\n"), None), None);
        let meminfo =
            "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   20000000 kB\n";
        assert_eq!(meminfo_available(meminfo), Some(20_000_000 << 10));
        assert_eq!(meminfo_available("MemTotal: 5 kB\n"), None);
    }

    #[test]
    fn a_material_waits_for_its_captures_and_promotions() {
        let jobs = job_graph(&[m("KPvK"), m("KQvKR")], |_| false);
        let all: Vec<String> = jobs.iter().map(|j| j.material.name()).collect();
        assert_eq!(all, ["KBvK", "KNvK", "KQvK", "KRvK", "KPvK", "KQvKR"]);
        let job = |n: &str| &jobs[all.iter().position(|x| x == n).expect("a job")];
        // KvK is no table; a bare king and minor piece are leaves.
        assert!(job("KBvK").after.is_empty());
        assert!(job("KQvK").after.is_empty());
        // A pawn promotes to four pieces.
        assert_eq!(
            names(&jobs, &job("KPvK").after),
            ["KBvK", "KNvK", "KQvK", "KRvK"]
        );
        // A capture of either piece: KRvK (the queen taken, colours exchanged) and KQvK.
        assert_eq!(names(&jobs, &job("KQvKR").after), ["KQvK", "KRvK"]);
        // Every job waits only for earlier ones.
        for (i, j) in jobs.iter().enumerate() {
            assert!(j.after.iter().all(|&a| a < i), "{}", j.material);
        }
    }

    #[test]
    fn present_tables_get_no_job_and_no_wait() {
        let jobs = job_graph(&[m("KQvKR")], |x| x.name() == "KQvK");
        let all: Vec<String> = jobs.iter().map(|j| j.material.name()).collect();
        assert_eq!(all, ["KRvK", "KQvKR"]);
        assert_eq!(names(&jobs, &jobs[1].after), ["KRvK"]);
        assert!(job_graph(&[m("KQvKR")], |_| true).is_empty());
    }

    #[test]
    fn the_waves_of_the_four_piece_set_are_independent_inside() {
        let jobs = job_graph(&Material::all(4), |_| false);
        assert_eq!(jobs.len(), 35);
        let w = waves(&jobs);
        // 3 pieces without pawns; then KPvK and the 4-piece tables without pawns, which need
        // only 3-piece ones; then one pawn; then two.
        assert_eq!(w[0].len(), 4, "{:?}", names(&jobs, &w[0]));
        assert!(names(&jobs, &w[1]).contains(&"KPvK".to_string()));
        let mut seen = 0;
        for wave in &w {
            for &i in wave {
                assert!(jobs[i].after.iter().all(|a| !wave.contains(a)));
                seen += 1;
            }
        }
        assert_eq!(seen, 35);
    }
}
