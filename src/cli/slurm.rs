//! `build-tables --slurm`: a build spread over a Slurm cluster. The job graph
//! ([`retro_build::jobs`]) becomes one batch job per material, each after the jobs of the
//! tables it reads (`afterok`), all writing into one shared table folder; `--wait` follows
//! them to the end. A job is a shell script in `OUT/.slurm/` that runs this same binary with
//! `--only` on its material, so a job that fails or is killed is simply submitted again by
//! running the same command: present tables are skipped, jobs still queued are reused (found
//! by name), and a compact solve resumes from its checkpoint.

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
    /// Further arguments for sbatch (`--partition=...`, `--mem=...`, `--time=...`).
    pub sbatch_args: Vec<String>,
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

/// The shell script of one job.
pub fn script(exe: &Path, sub: &Submission, material: Material) -> String {
    let mut cmd = vec![
        quote(&exe.to_string_lossy()),
        "--out".to_string(),
        quote(&sub.out.to_string_lossy()),
        "--only".to_string(),
        "--quiet".to_string(),
        "--threads".to_string(),
        sub.cpus.to_string(),
    ];
    cmd.extend(sub.build_args.iter().map(|a| quote(a)));
    cmd.push(material.name());
    format!(
        "#!/bin/sh\n# Builds {material} into the shared table folder; written by build-tables --slurm.\nexec {}\n",
        cmd.join(" ")
    )
}

/// The sbatch command line of a job, after the jobs `after`.
pub fn sbatch_args(
    sub: &Submission,
    material: Material,
    after: &[u64],
    script: &Path,
) -> Vec<String> {
    let logs = sub.out.join(".slurm");
    let mut args = vec![
        "--parsable".to_string(),
        format!("--job-name={}", job_name(&sub.out, material)),
        format!("--output={}/{material}-%j.log", logs.display()),
        format!("--cpus-per-task={}", sub.cpus),
        "--ntasks=1".to_string(),
        "--requeue".to_string(),
    ];
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
            "%i %j".into(),
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
    let mut done: Vec<Submitted> = Vec::with_capacity(jobs.len());
    for job in jobs {
        let name = job_name(&sub.out, job.material);
        if let Some(&id) = queued.get(&name) {
            done.push(Submitted {
                material: job.material,
                id,
                reused: true,
            });
            continue;
        }
        let path = dir.join(format!("{}.sh", job.material));
        let body = script(&exe, sub, job.material);
        retro_tables::write_atomic(&path, |w| w.write_all(body.as_bytes())).map_err(|source| {
            SlurmError::Write {
                path: path.clone(),
                source,
            }
        })?;
        let after: Vec<u64> = job.after.iter().map(|&i| done[i].id).collect();
        let reply = output("sbatch", &sbatch_args(sub, job.material, &after, &path))?;
        // `--parsable` prints `id` or `id;cluster`.
        let id_text = reply.trim().split(';').next().unwrap_or("");
        let id = id_text
            .parse()
            .map_err(|_| SlurmError::BadReply(reply.trim().to_string()))?;
        log::info!("submitted {} as job {id}", job.material);
        done.push(Submitted {
            material: job.material,
            id,
            reused: false,
        });
    }
    Ok(done)
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
            sbatch_args: vec!["--partition=big".into()],
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

    #[test]
    fn dependencies_are_afterok_and_cancel_on_failure() {
        let m: Material = "KQvKR".parse().expect("material");
        let a = sbatch_args(&sub(), m, &[12, 14], Path::new("/x/KQvKR.sh"));
        assert!(
            a.contains(&"--dependency=afterok:12:14".to_string()),
            "{a:?}"
        );
        assert!(a.contains(&"--kill-on-invalid-dep=yes".to_string()));
        assert!(a.contains(&"--cpus-per-task=2".to_string()));
        assert!(a.contains(&"--partition=big".to_string()));
        assert_eq!(a.last().map(String::as_str), Some("/x/KQvKR.sh"));
        let none = sbatch_args(&sub(), m, &[], Path::new("/x/KQvKR.sh"));
        assert!(none.iter().all(|x| !x.starts_with("--dependency")));
        // One folder and material, one name; another folder, another name.
        assert_eq!(job_name(Path::new("/a"), m), job_name(Path::new("/a"), m));
        assert_ne!(job_name(Path::new("/a"), m), job_name(Path::new("/b"), m));
    }
}
