//! The job graph of a build spread over a batch scheduler: one job per material still to
//! build, each after the jobs of the tables its captures and promotions lead to. The graph is
//! the scheduler-free half of `build-tables --slurm`; submitting it is the front end's.

use retro_tables::Material;

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
