//! `build-tables --slurm`: a build spread over a Slurm cluster. The job graph
//! ([`retro_build::jobs`]) becomes one batch job per material, each after the jobs of the
//! tables it reads (`afterok`), all writing into one shared table folder; `--wait` follows
//! them to the end. A job is a shell script in `OUT/.slurm/` that runs this same binary with
//! `--only` on its material, so a job that fails or is killed is simply submitted again by
//! running the same command: present tables are skipped, jobs still queued are reused (found
//! by name), and a compact solve resumes from its checkpoint.
//!
//! With `--by-structure`, a material with pawns is more jobs: per level of its pawn structures
//! ([`retro_build::structure_levels`]) a job array, one task per part not yet done, each level
//! after the one before (the first after the tables it reads), and then the material's job,
//! which gathers the parts into its table and builds its DTZ50 table.

use std::{
    collections::HashMap,
    io::Write,
    path::{Path, PathBuf},
    process::Command,
    time::{Duration, Instant},
};

use retro_build::jobs::Job;
use retro_tables::Material;

/// Why a submission or a wait failed.
#[derive(Debug, thiserror::Error)]
pub enum SlurmError {
    /// A Slurm command could not be started (Slurm not installed, or not on the PATH).
    #[error("cannot run `{program}` (is Slurm installed and on the PATH?): {source}")]
    Spawn {
        /// The command.
        program: &'static str,
        /// Why not.
        source: std::io::Error,
    },
    /// A Slurm command refused.
    #[error("`{program}` failed ({status}): {stderr}")]
    Refused {
        /// The command.
        program: &'static str,
        /// Its exit status.
        status: std::process::ExitStatus,
        /// What it said.
        stderr: String,
    },
    /// `sbatch --parsable` answered something other than a job id.
    #[error("sbatch answered `{0}`, not a job id")]
    BadReply(String),
    /// A job script or its folder could not be written.
    #[error("writing {}: {source}", .path.display())]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// Why not.
        source: std::io::Error,
    },
    /// This program's own path is unknown (the jobs run it).
    #[error("cannot find this program's path: {0}")]
    Exe(std::io::Error),
}

/// How the jobs are made.
#[derive(Debug, Clone)]
pub struct Submission {
    /// The shared table folder (absolute: the jobs run elsewhere).
    pub out: PathBuf,
    /// The options each job passes on to `build-tables --only` (compression, compact, ...).
    pub build_args: Vec<String>,
    /// CPUs a job asks for and uses (its `--threads`).
    pub cpus: usize,
    /// CPUs a material's own job asks for and uses: for a 6-piece material solved by
    /// structure, its DTZ50 parts run this many at a time where the memory it asks for allows
    /// (those that read the promotions' tables one at a time).
    pub table_cpus: usize,
    /// Further arguments for sbatch (`--partition=...`, `--mem=...`, `--time=...`).
    pub sbatch_args: Vec<String>,
    /// Solve materials with pawns by structure, a job array per level.
    pub by_structure: bool,
}

/// A job array of one level of a material's parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelArray {
    /// Its level (0: the most advanced structures).
    pub level: usize,
    /// The number of its level's first part: task `t` solves part `first + t`.
    pub first: usize,
    /// The tasks to run (parts not done, less `first`).
    pub tasks: Vec<usize>,
}

impl LevelArray {
    /// Slurm's `--array` list: runs of tasks as `a-b`, joined by commas.
    pub fn spec(&self) -> String {
        let mut runs: Vec<String> = Vec::new();
        let mut k = 0;
        while k < self.tasks.len() {
            let start = self.tasks[k];
            while k + 1 < self.tasks.len() && self.tasks[k + 1] == self.tasks[k] + 1 {
                k += 1;
            }
            runs.push(if self.tasks[k] == start {
                start.to_string()
            } else {
                format!("{start}-{}", self.tasks[k])
            });
            k += 1;
        }
        runs.join(",")
    }
}

/// The job arrays of `material`'s parts not done (`done` says which are, by number), level by
/// level; levels with every part done have none.
pub fn level_arrays(material: Material, done: impl Fn(usize) -> bool) -> Vec<LevelArray> {
    let mut first = 0;
    let mut arrays = Vec::new();
    for (level, len) in retro_build::structure_levels(material)
        .into_iter()
        .enumerate()
    {
        let tasks: Vec<usize> = (0..len).filter(|&t| !done(first + t)).collect();
        if !tasks.is_empty() {
            arrays.push(LevelArray {
                level,
                first,
                tasks,
            });
        }
        first += len;
    }
    arrays
}

/// A submitted job.
#[derive(Debug, Clone)]
pub struct Submitted {
    /// Its material.
    pub material: Material,
    /// Slurm's job id.
    pub id: u64,
    /// Whether it was already queued by an earlier submission (and reused).
    pub reused: bool,
    /// The job arrays it waits for (by structure: one a level), and their tasks in all.
    pub arrays: usize,
    /// The tasks of those arrays (parts of its pawn structures to solve).
    pub tasks: usize,
}

/// Quotes `s` for a POSIX shell.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The job name of `material` for the table folder `out`: the same folder and material give
/// the same name, so a second submission finds the jobs of the first still queued.
pub fn job_name(out: &Path, material: Material) -> String {
    // FNV-1a of the folder's path, short: names stay readable in `squeue`.
    let mut h: u32 = 0x811c_9dc5;
    for b in out.as_os_str().as_encoded_bytes() {
        h = (h ^ u32::from(*b)).wrapping_mul(0x0100_0193);
    }
    format!("retro-{material}-{h:08x}")
}

/// The job name of level `level` of `material`'s parts for the table folder `out`.
pub fn level_job_name(out: &Path, material: Material, level: usize) -> String {
    format!("{}-L{level}", job_name(out, material))
}

/// The shell script of one job.
pub fn script(exe: &Path, sub: &Submission, material: Material) -> String {
    let cmd = command(exe, sub, material, sub.table_cpus);
    format!(
        "#!/bin/sh\n# Builds {material} into the shared table folder; written by build-tables --slurm.\nexec {}\n",
        cmd.join(" ")
    )
}

/// The shell script of the job array of `array`'s level of `material`: each task solves the
/// part its index says.
pub fn level_script(
    exe: &Path,
    sub: &Submission,
    material: Material,
    array: &LevelArray,
) -> String {
    let mut cmd = command(exe, sub, material, sub.cpus);
    let name = cmd.pop().unwrap_or_default();
    cmd.push("--structure-part".to_string());
    cmd.push(format!("\"$(({} + SLURM_ARRAY_TASK_ID))\"", array.first));
    cmd.push(name);
    format!(
        "#!/bin/sh\n# Solves the structure parts of level {} of {material} into the shared table folder;\n# written by build-tables --slurm.\nexec {}\n",
        array.level,
        cmd.join(" ")
    )
}

/// The command line of a job on `material` with `cpus` threads, its material last.
fn command(exe: &Path, sub: &Submission, material: Material, cpus: usize) -> Vec<String> {
    let mut cmd = vec![
        quote(&exe.to_string_lossy()),
        "--out".to_string(),
        quote(&sub.out.to_string_lossy()),
        "--only".to_string(),
        "--quiet".to_string(),
        "--threads".to_string(),
        cpus.to_string(),
    ];
    cmd.extend(sub.build_args.iter().map(|a| quote(a)));
    cmd.push(material.name());
    cmd
}

/// The bytes a job on `material` asks for ([`retro_build::jobs::job_memory`]): for a job
/// array, the most any of its tasks needs; `None` for a table small enough for a job's default
/// share.
pub fn memory_request(
    sub: &Submission,
    material: Material,
    array: Option<&LevelArray>,
) -> Option<u64> {
    use retro_build::jobs::{job_memory, Task};
    match array {
        None => job_memory(material, Task::Table, sub.table_cpus),
        Some(a) => a
            .tasks
            .iter()
            .filter_map(|&t| job_memory(material, Task::Part(a.first + t), sub.cpus))
            .max(),
    }
}

/// The sbatch command line of a job, after the jobs `after`; with `array`, the job array of
/// that level of `material`'s parts.
pub fn sbatch_args(
    sub: &Submission,
    material: Material,
    array: Option<&LevelArray>,
    after: &[u64],
    script: &Path,
) -> Vec<String> {
    let logs = sub.out.join(".slurm");
    let mut args = vec!["--parsable".to_string()];
    match array {
        None => args.extend([
            format!("--job-name={}", job_name(&sub.out, material)),
            format!("--output={}/{material}-%j.log", logs.display()),
        ]),
        Some(a) => args.extend([
            format!("--job-name={}", level_job_name(&sub.out, material, a.level)),
            format!(
                "--output={}/{material}-L{}-%A_%a.log",
                logs.display(),
                a.level
            ),
            format!("--array={}", a.spec()),
        ]),
    }
    let cpus = match array {
        None => sub.table_cpus,
        Some(_) => sub.cpus,
    };
    args.extend([
        format!("--cpus-per-task={cpus}"),
        "--ntasks=1".to_string(),
        "--requeue".to_string(),
    ]);
    // The memory a large job needs, so that the scheduler starts it only where it fits (and
    // no two beside each other that together do not); unless the caller asked for some.
    let asked = sub.sbatch_args.iter().any(|a| a.starts_with("--mem"));
    if let Some(bytes) = memory_request(sub, material, array).filter(|_| !asked) {
        args.push(format!("--mem={}M", bytes.div_ceil(1 << 20)));
    }
    if !after.is_empty() {
        let ids: Vec<String> = after.iter().map(u64::to_string).collect();
        args.push(format!("--dependency=afterok:{}", ids.join(":")));
        args.push("--kill-on-invalid-dep=yes".to_string());
    }
    args.extend(sub.sbatch_args.iter().cloned());
    args.push(script.to_string_lossy().into_owned());
    args
}

fn output(program: &'static str, args: &[String]) -> Result<String, SlurmError> {
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|source| SlurmError::Spawn { program, source })?;
    if !out.status.success() {
        return Err(SlurmError::Refused {
            program,
            status: out.status,
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The jobs queued (pending, running, finishing) by name, with their ids.
fn queued() -> Result<HashMap<String, u64>, SlurmError> {
    let text = output(
        "squeue",
        &[
            "-h".into(),
            "-t".into(),
            "PD,R,CG,CF,S".into(),
            "-o".into(),
            // The array's job id for every task of an array (`%i` would be `id_task`).
            "%F %j".into(),
        ],
    )?;
    Ok(text
        .lines()
        .filter_map(|l| {
            let (id, name) = l.trim().split_once(' ')?;
            Some((name.to_string(), id.parse().ok()?))
        })
        .collect())
}

/// Submits `jobs` (in their order, so that every dependency is submitted first), reusing jobs
/// of the same name still queued.
///
/// # Errors
/// A script that cannot be written, or sbatch or squeue refusing.
pub fn submit(jobs: &[Job], sub: &Submission) -> Result<Vec<Submitted>, SlurmError> {
    let exe = std::env::current_exe().map_err(SlurmError::Exe)?;
    let dir = sub.out.join(".slurm");
    std::fs::create_dir_all(&dir).map_err(|source| SlurmError::Write {
        path: dir.clone(),
        source,
    })?;
    let queued = queued()?;
    let write = |path: &Path, body: String| {
        retro_tables::write_atomic(path, |w| w.write_all(body.as_bytes())).map_err(|source| {
            SlurmError::Write {
                path: path.to_path_buf(),
                source,
            }
        })
    };
    let sbatch = |args: Vec<String>| -> Result<u64, SlurmError> {
        let reply = output("sbatch", &args)?;
        // `--parsable` prints `id` or `id;cluster`.
        let id_text = reply.trim().split(';').next().unwrap_or("");
        id_text
            .parse()
            .map_err(|_| SlurmError::BadReply(reply.trim().to_string()))
    };
    let mut done: Vec<Submitted> = Vec::with_capacity(jobs.len());
    for job in jobs {
        let m = job.material;
        let name = job_name(&sub.out, m);
        if let Some(&id) = queued.get(&name) {
            done.push(Submitted {
                material: m,
                id,
                reused: true,
                arrays: 0,
                tasks: 0,
            });
            continue;
        }
        let mut after: Vec<u64> = job.after.iter().map(|&i| done[i].id).collect();
        let (mut arrays, mut tasks) = (0, 0);
        if sub.by_structure && m.has_pawns() && !dtm_present(&sub.out, m) {
            for array in level_arrays(m, |p| retro_build::structure_part_done(&sub.out, m, p)) {
                let level_name = level_job_name(&sub.out, m, array.level);
                let id = match queued.get(&level_name) {
                    Some(&id) => id,
                    None => {
                        let path = dir.join(format!("{m}-L{}.sh", array.level));
                        write(&path, level_script(&exe, sub, m, &array))?;
                        let id = sbatch(sbatch_args(sub, m, Some(&array), &after, &path))?;
                        log::info!(
                            "submitted level {} of {m} ({} parts) as job array {id}",
                            array.level,
                            array.tasks.len()
                        );
                        id
                    }
                };
                after = vec![id];
                arrays += 1;
                tasks += array.tasks.len();
            }
        }
        let path = dir.join(format!("{m}.sh"));
        write(&path, script(&exe, sub, m))?;
        let id = sbatch(sbatch_args(sub, m, None, &after, &path))?;
        log::info!("submitted {m} as job {id}");
        done.push(Submitted {
            material: m,
            id,
            reused: false,
            arrays,
            tasks,
        });
    }
    Ok(done)
}

/// Whether `material`'s DTM table is in `out` (its header and size right).
fn dtm_present(out: &Path, material: Material) -> bool {
    let path = out.join(retro_tables::format::Metric::Dtm.file_name(material));
    retro_tables::format::Table::open(&path, Some(material)).is_ok()
}

/// Waits until none of `jobs` is queued any more, printing a line on stderr whenever the
/// counts change (with an estimate of the time left from the jobs done so far).
///
/// # Errors
/// squeue failing.
pub fn wait(jobs: &[Submitted], poll: Duration) -> Result<(), SlurmError> {
    let start = Instant::now();
    let mut last = String::new();
    loop {
        let text = output(
            "squeue",
            &[
                "-h".into(),
                "-t".into(),
                "all".into(),
                "-o".into(),
                "%i %T".into(),
            ],
        )?;
        let states: HashMap<u64, String> = text
            .lines()
            .filter_map(|l| {
                let (id, st) = l.trim().split_once(' ')?;
                Some((id.parse().ok()?, st.to_string()))
            })
            .collect();
        let (mut pending, mut running, mut ended) = (0, 0, 0);
        for j in jobs {
            match states.get(&j.id).map(String::as_str) {
                Some("PENDING" | "REQUEUED" | "REQUEUE_HOLD" | "SUSPENDED" | "CONFIGURING") => {
                    pending += 1
                }
                Some("RUNNING" | "COMPLETING" | "RESIZING" | "SIGNALING" | "STAGE_OUT") => {
                    running += 1
                }
                // Completed, failed, cancelled, timed out, ... or no longer known.
                _ => ended += 1,
            }
        }
        let elapsed = start.elapsed().as_secs_f64();
        let line = format!(
            "{ended} of {} ended, {running} running, {pending} pending",
            jobs.len()
        );
        if line != last {
            let eta = if ended > 0 && ended < jobs.len() {
                format!(
                    ", about {:.0} s left",
                    elapsed / ended as f64 * (jobs.len() - ended) as f64
                )
            } else {
                String::new()
            };
            eprintln!("slurm: {line} after {elapsed:.0} s{eta}");
            last = line;
        }
        if ended == jobs.len() {
            return Ok(());
        }
        std::thread::sleep(poll);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub() -> Submission {
        Submission {
            out: PathBuf::from("/shared/tables it's"),
            build_args: vec!["--level".into(), "19".into()],
            cpus: 2,
            table_cpus: 2,
            sbatch_args: vec!["--partition=big".into()],
            by_structure: true,
        }
    }

    #[test]
    fn a_job_runs_this_binary_on_its_material_only() {
        let m: Material = "KQvKR".parse().expect("material");
        let s = script(Path::new("/opt/retro/build-tables"), &sub(), m);
        assert!(s.starts_with("#!/bin/sh\n"));
        assert!(
            s.contains(
                "exec '/opt/retro/build-tables' --out '/shared/tables it'\\''s' --only --quiet \
                 --threads 2 '--level' '19' KQvKR\n"
            ),
            "{s}"
        );
    }

    /// 6-piece jobs ask for their memory (a job array for its most demanding task), smaller
    /// ones for none, and a request of the caller's own wins.
    #[test]
    fn large_jobs_ask_for_their_memory() {
        let script = Path::new("/x/job.sh");
        let mem = |a: &[String]| -> Vec<String> {
            a.iter()
                .filter(|x| x.starts_with("--mem"))
                .cloned()
                .collect()
        };
        let small: Material = "KQRvKR".parse().expect("material");
        assert!(mem(&sbatch_args(&sub(), small, None, &[], script)).is_empty());
        let six: Material = "KRNvKNN".parse().expect("material");
        let want = retro_build::compact::needs(six).memory.div_ceil(1 << 20);
        assert_eq!(
            mem(&sbatch_args(&sub(), six, None, &[], script)),
            [format!("--mem={want}M")]
        );
        let pawns: Material = "KRRvKRP".parse().expect("material");
        let levels = retro_build::structure_levels(pawns);
        let (top, bottom) = (
            level_arrays(pawns, |_| false).remove(0),
            level_arrays(pawns, |_| false).pop().expect("a level"),
        );
        assert_eq!(top.tasks.len(), levels[0]);
        let ask = |a: &LevelArray| memory_request(&sub(), pawns, Some(a)).expect("a request");
        assert!(
            ask(&top) > ask(&bottom) + 13_000_000_000,
            "the promotions' tables"
        );
        let mut own = sub();
        own.sbatch_args.push("--mem=4G".into());
        let a = sbatch_args(&own, six, None, &[], script);
        assert_eq!(mem(&a), ["--mem=4G"]);
    }

    /// A material's own job takes --table-threads (its CPUs, its --threads and the memory for
    /// its DTZ50 parts at once); the structure parts' arrays keep --threads.
    #[test]
    fn the_table_job_has_its_own_threads() {
        let script = Path::new("/x/job.sh");
        let pawns: Material = "KRRvKRP".parse().expect("material");
        let mut s = sub();
        s.cpus = 1;
        s.table_cpus = 2;
        let own = sbatch_args(&s, pawns, None, &[], script);
        assert!(own.contains(&"--cpus-per-task=2".to_string()), "{own:?}");
        let exe = Path::new("/opt/retro/build-tables");
        assert!(super::script(exe, &s, pawns).contains("--threads 2"));
        let top = level_arrays(pawns, |_| false).remove(0);
        let part = sbatch_args(&s, pawns, Some(&top), &[], script);
        assert!(part.contains(&"--cpus-per-task=1".to_string()), "{part:?}");
        assert!(level_script(exe, &s, pawns, &top).contains("--threads 1"));
        // The parts that promote, one at a time beside the promotions' tables, need more than
        // the others two at a time: two threads ask for what one does, within this machine's
        // 23 GB node.
        let two = memory_request(&s, pawns, None).expect("a request");
        s.table_cpus = 1;
        let one = memory_request(&s, pawns, None).expect("a request");
        assert!(two == one && two < 23_000_000_000, "{two} {one}");
        s.table_cpus = 8;
        let eight = memory_request(&s, pawns, None).expect("a request");
        assert!(eight > two, "{eight} {two}");
    }

    #[test]
    fn dependencies_are_afterok_and_cancel_on_failure() {
        let m: Material = "KQvKR".parse().expect("material");
        let a = sbatch_args(&sub(), m, None, &[12, 14], Path::new("/x/KQvKR.sh"));
        assert!(
            a.contains(&"--dependency=afterok:12:14".to_string()),
            "{a:?}"
        );
        assert!(a.contains(&"--kill-on-invalid-dep=yes".to_string()));
        assert!(a.contains(&"--cpus-per-task=2".to_string()));
        assert!(a.contains(&"--partition=big".to_string()));
        assert_eq!(a.last().map(String::as_str), Some("/x/KQvKR.sh"));
        let none = sbatch_args(&sub(), m, None, &[], Path::new("/x/KQvKR.sh"));
        assert!(none.iter().all(|x| !x.starts_with("--dependency")));
        // One folder and material, one name; another folder, another name.
        assert_eq!(job_name(Path::new("/a"), m), job_name(Path::new("/a"), m));
        assert_ne!(job_name(Path::new("/a"), m), job_name(Path::new("/b"), m));
    }

    #[test]
    fn a_level_of_structures_is_a_job_array_of_its_parts_not_done() {
        let m: Material = "KPvKP".parse().expect("material");
        let levels = retro_build::structure_levels(m);
        let all = level_arrays(m, |_| false);
        assert_eq!(all.len(), levels.len());
        assert_eq!(
            all.iter().map(|a| a.tasks.len()).collect::<Vec<_>>(),
            levels
        );
        assert_eq!(all[0].spec(), format!("0-{}", levels[0] - 1));
        // Parts done are left out; a level all done has no array.
        let some = level_arrays(m, |p| p < levels[0] || p == levels[0] + 1);
        assert_eq!(some.len(), levels.len() - 1);
        assert_eq!(some[0].level, 1);
        assert_eq!(some[0].first, levels[0]);
        assert_eq!(some[0].spec(), format!("0,2-{}", levels[1] - 1));
        let exe = Path::new("/opt/retro/build-tables");
        let s = level_script(exe, &sub(), m, &some[0]);
        assert!(
            s.contains(&format!(
                "--level' '19' --structure-part \"$(({} + SLURM_ARRAY_TASK_ID))\" KPvKP\n",
                levels[0]
            )),
            "{s}"
        );
        let a = sbatch_args(&sub(), m, Some(&some[0]), &[7], Path::new("/x/KPvKP-L1.sh"));
        assert!(a.contains(&format!("--array={}", some[0].spec())), "{a:?}");
        assert!(a.contains(&"--dependency=afterok:7".to_string()));
        assert!(a
            .iter()
            .any(|x| x.ends_with("-L1") && x.starts_with("--job-name=")));
    }
}
