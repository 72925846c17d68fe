//! Builds past one process: `build-tables --only` (one cluster job's build) and `--slurm`.
//! The end-to-end Slurm test is ignored: it needs a running cluster
//! (`sudo scripts/local-cluster.sh start`), and runs with
//! `cargo test --release --test cluster -- --ignored`.

mod common;
use common::{build_tables, text};

use std::{path::Path, process::Command};

/// The table files in `dir`, by name.
fn table_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".rdtm") || n.ends_with(".rdtz"))
        .collect();
    v.sort();
    v
}

/// Every table file of `a` is in `b` with the same bytes, and the other way round.
fn assert_same_tables(a: &Path, b: &Path) {
    let names = table_files(a);
    assert_eq!(names, table_files(b));
    for n in &names {
        let x = std::fs::read(a.join(n)).expect("read");
        let y = std::fs::read(b.join(n)).expect("read");
        assert!(x == y, "{n} differs");
    }
}

#[test]
fn only_builds_the_named_material_from_present_sub_tables() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().to_str().expect("utf-8 path");
    // Without its sub-tables, KQvKR is refused, and nothing is written.
    let r = build_tables(&["-q", "--only", "--out", out, "KQvKR"]);
    assert!(!r.status.success());
    let err = text(&r.stderr);
    assert!(err.contains("KQvK") || err.contains("KRvK"), "{err}");
    assert!(table_files(dir.path()).is_empty());
    // With them, only KQvKR is built, and it equals the whole build's.
    let r = build_tables(&["-q", "--only", "--out", out, "KRvK", "KQvK"]);
    assert!(r.status.success(), "{}", text(&r.stderr));
    let r = build_tables(&["-q", "--only", "--out", out, "KQvKR"]);
    assert!(r.status.success(), "{}", text(&r.stderr));
    assert_eq!(
        table_files(dir.path()),
        [
            "KQvK.rdtm",
            "KQvK.rdtz",
            "KQvKR.rdtm",
            "KQvKR.rdtz",
            "KRvK.rdtm",
            "KRvK.rdtz"
        ]
    );
    let whole = tempfile::tempdir().expect("tempdir");
    common::build_into(whole.path(), &[common::material("KQvKR")]);
    assert_same_tables(dir.path(), whole.path());
}

#[test]
fn slurm_without_slurm_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let empty = tempfile::tempdir().expect("tempdir");
    let r = Command::new(env!("CARGO_BIN_EXE_build-tables"))
        .args(["--slurm", "--out"])
        .arg(dir.path())
        .arg("KQvK")
        .env("PATH", empty.path())
        .output()
        .expect("build-tables runs");
    assert_eq!(r.status.code(), Some(1));
    let err = text(&r.stderr);
    assert!(err.contains("is Slurm installed"), "{err}");
    // --wait alone, or --only with --slurm, are refused by the parser.
    let r = build_tables(&["--wait", "KQvK"]);
    assert_eq!(r.status.code(), Some(2), "{}", text(&r.stderr));
    let r = build_tables(&["--only", "--slurm", "KQvK"]);
    assert_eq!(r.status.code(), Some(2), "{}", text(&r.stderr));
}

/// The 35 tables of 3 and 4 pieces through Slurm, one job a material, equal the local build;
/// a second submission finds nothing to do.
#[test]
#[ignore = "needs a Slurm cluster: sudo scripts/local-cluster.sh start"]
fn slurm_builds_the_four_piece_set_byte_for_byte() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().to_str().expect("utf-8 path");
    let r = build_tables(&["--slurm", "--wait", "--out", out, "--max-pieces", "4"]);
    assert!(r.status.success(), "{}{}", text(&r.stdout), text(&r.stderr));
    let said = text(&r.stdout);
    assert!(said.contains("35 jobs"), "{said}");
    assert!(said.contains("all 35 tables built"), "{said}");
    assert_same_tables(dir.path(), common::all_tables());
    let r = build_tables(&["--slurm", "--wait", "--out", out, "--max-pieces", "4"]);
    assert!(r.status.success());
    assert!(text(&r.stdout).contains("nothing to submit"));
}

/// Two tables with pawns through Slurm by structure (a job array a level of their pawn
/// structures, then a job each that gathers the parts) equal the local build.
#[test]
#[ignore = "needs a Slurm cluster: sudo scripts/local-cluster.sh start"]
fn slurm_solves_pawn_tables_structure_by_structure() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().to_str().expect("utf-8 path");
    let pawns = ["KRPvK", "KBPvK"];
    for f in table_files(common::all_tables()) {
        if !pawns.iter().any(|m| f.starts_with(&format!("{m}."))) {
            std::fs::copy(common::all_tables().join(&f), dir.path().join(&f)).expect("copy");
        }
    }
    let mut args = vec!["--slurm", "--wait", "--by-structure", "--out", out];
    args.extend(pawns);
    let r = build_tables(&args);
    assert!(r.status.success(), "{}{}", text(&r.stdout), text(&r.stderr));
    let said = text(&r.stdout);
    assert!(said.contains("2 jobs"), "{said}");
    assert!(said.contains("job arrays"), "{said}");
    assert!(said.contains("all 2 tables built"), "{said}");
    assert_same_tables(dir.path(), common::all_tables());
    let left = std::fs::read_dir(dir.path())
        .expect("dir")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".structures"))
        .count();
    assert_eq!(left, 0, "work folders left");
}

/// `build-tables --mpi` refuses in a build without the feature, with the command that makes one.
#[cfg(not(feature = "mpi"))]
#[test]
fn mpi_needs_the_feature() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().to_str().expect("utf-8 path");
    let r = build_tables(&["-q", "--mpi", "--out", out, "KQvKR"]);
    assert_eq!(r.status.code(), Some(2));
    assert!(
        text(&r.stderr).contains("--features mpi"),
        "{}",
        text(&r.stderr)
    );
    assert!(table_files(dir.path()).is_empty());
}

/// `mpirun -np N build-tables --mpi` with 1, 2 and 3 processes writes KQvKR and KRNvK byte for
/// byte as the single-process build with the same solve (`--compact`), and their sub-tables as
/// the ordinary build. Needs OpenMPI
/// (`apt-get install openmpi-bin libopenmpi-dev libclang-dev`) and the feature:
/// `cargo test --release --features mpi --test cluster -- --ignored mpi`.
#[cfg(feature = "mpi")]
#[test]
#[ignore = "needs mpirun (OpenMPI)"]
fn mpi_builds_equal_the_single_process_build() {
    let exe = env!("CARGO_BIN_EXE_build-tables");
    let reference = tempfile::tempdir().expect("tempdir");
    let refdir = reference.path().to_str().expect("utf-8 path");
    let materials = ["KQvKR", "KRNvK"];
    // The tables they need as an ordinary build makes them (rank 0 builds those alone), the
    // materials themselves with the compact solve, which the ranks split.
    let mut args = vec!["-q", "--out", refdir];
    args.extend(materials);
    common::build_tables_ok(&args);
    let mut args = vec!["-q", "--compact", "--force", "--only", "--out", refdir];
    args.extend(materials);
    common::build_tables_ok(&args);
    for ranks in ["1", "2", "3"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().to_str().expect("utf-8 path");
        let mut cmd = Command::new("mpirun");
        cmd.args(["--oversubscribe", "-np", ranks]);
        // OpenMPI refuses root without this (CI and containers run as root).
        cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        cmd.args([exe, "-q", "--threads", "1", "--mpi", "--out", out]);
        cmd.args(materials);
        let r = cmd.output().expect("mpirun");
        assert!(
            r.status.success(),
            "{ranks} ranks: {}{}",
            text(&r.stdout),
            text(&r.stderr)
        );
        let said = text(&r.stdout);
        assert!(
            said.contains(&format!("{ranks} MPI ranks")),
            "{ranks} ranks: {said}"
        );
        assert_same_tables(reference.path(), dir.path());
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .expect("read dir")
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(left.is_empty(), "{ranks} ranks left {left:?}");
    }
}
