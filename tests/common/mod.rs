//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::{
    io::Write,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    sync::OnceLock,
};

use retro_build::{build, BuildOptions};
use retro_tables::Material;

/// Runs `build-tables` with `args` in the system's temporary folder, so that a test that
/// reaches the default `--out` by mistake cannot fill the project's table directory.
pub fn build_tables(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_build-tables"))
        .current_dir(std::env::temp_dir())
        .args(args)
        .output()
        .expect("build-tables runs")
}

/// Runs `build-tables` with `args`, which must succeed: its standard output.
pub fn build_tables_ok(args: &[&str]) -> String {
    let out = build_tables(args);
    assert!(
        out.status.success(),
        "build-tables {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A directory holding all 3- and 4-piece tables, built once per test binary (or taken from
/// `RETRO_TEST_TABLES` when set, to reuse tables built earlier).
pub fn all_tables() -> &'static Path {
    static DIR: OnceLock<(Option<tempfile::TempDir>, PathBuf)> = OnceLock::new();
    tables_once(&DIR, &Material::all(4))
}

/// The tables of `materials` (with their sub-tables), built once per test binary into a
/// temporary directory kept in `cell`, or into `RETRO_TEST_TABLES` when set.
pub fn tables_once(
    cell: &'static OnceLock<(Option<tempfile::TempDir>, PathBuf)>,
    materials: &[Material],
) -> &'static Path {
    let (_, path) = cell.get_or_init(|| {
        if let Some(p) = std::env::var_os("RETRO_TEST_TABLES") {
            let p = PathBuf::from(p);
            build_into(&p, materials);
            return (None, p);
        }
        let dir = tempfile::tempdir().expect("temporary directory");
        let p = dir.path().to_path_buf();
        build_into(&p, materials);
        (Some(dir), p)
    });
    path
}

/// Builds `materials` (with their sub-tables) into `dir`.
pub fn build_into(dir: &Path, materials: &[Material]) {
    let opts = BuildOptions::quiet(dir.to_path_buf());
    build(materials, &opts, |_| {}).expect("tables build");
}

/// A temporary directory with the tables of `names` (and their sub-tables), opened.
pub fn tablebase_of(names: &[&str]) -> (tempfile::TempDir, retro_tables::Tablebase) {
    let dir = tempfile::tempdir().expect("tempdir");
    let materials: Vec<Material> = names.iter().map(|n| material(n)).collect();
    build_into(dir.path(), &materials);
    let tb = retro_tables::Tablebase::open(dir.path()).expect("tables");
    (dir, tb)
}

/// A material from its name.
pub fn material(name: &str) -> Material {
    name.parse().expect("material name")
}

/// FENs of every legal KPvKP position in which the side to move can take en passant.
pub fn en_passant_positions() -> Vec<String> {
    let sq = |f: usize, r: usize| format!("{}{}", (b'a' + f as u8) as char, r + 1);
    let mut out = Vec::new();
    for white_to_move in [false, true] {
        for file in 0..8 {
            for side in [-1i32, 1] {
                let cf = file as i32 + side;
                if !(0..8).contains(&cf) {
                    continue;
                }
                for wk in 0..64 {
                    for bk in 0..64 {
                        let mut board = [['.'; 8]; 8];
                        // The pawn that just moved two squares, and the one that can take it.
                        let (pushed_rank, pawn, taker) = if white_to_move {
                            (4, 'p', 'P')
                        } else {
                            (3, 'P', 'p')
                        };
                        board[pushed_rank][file] = pawn;
                        board[pushed_rank][cf as usize] = taker;
                        let (wr, wf, br, bf) = (wk / 8, wk % 8, bk / 8, bk % 8);
                        if board[wr][wf] != '.' || board[br][bf] != '.' || wk == bk {
                            continue;
                        }
                        board[wr][wf] = 'K';
                        board[br][bf] = 'k';
                        let mut fen = String::new();
                        for r in (0..8).rev() {
                            let mut empty = 0;
                            for &cell in &board[r] {
                                if cell == '.' {
                                    empty += 1;
                                } else {
                                    if empty > 0 {
                                        fen.push_str(&empty.to_string());
                                        empty = 0;
                                    }
                                    fen.push(cell);
                                }
                            }
                            if empty > 0 {
                                fen.push_str(&empty.to_string());
                            }
                            if r > 0 {
                                fen.push('/');
                            }
                        }
                        let ep = if white_to_move {
                            sq(file, 5)
                        } else {
                            sq(file, 2)
                        };
                        let turn = if white_to_move { "w" } else { "b" };
                        let fen = format!("{fen} {turn} - {ep} 0 1");
                        if let Ok(pos) = retro_engine::fen::parse_fen(&fen) {
                            if shakmaty::Position::legal_ep_square(&pos).is_some() {
                                out.push(fen);
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// Starts the `retro` engine with the configuration file `cfg`, its standard input and output
/// piped and its standard error dropped.
pub fn spawn_engine(cfg: &Path) -> std::process::Child {
    spawn_engine_with(cfg, &[])
}

/// As [`spawn_engine`], with these environment variables set (or removed, where the value is
/// `None`).
pub fn spawn_engine_with(cfg: &Path, env: &[(&str, Option<&Path>)]) -> std::process::Child {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_retro"));
    for (key, value) in env {
        match value {
            Some(v) => command.env(key, v),
            None => command.env_remove(key),
        };
    }
    command
        .arg("--config")
        .arg(cfg)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start retro")
}

/// Runs the `retro` binary with `args`, writing `stdin` to its standard input.
pub fn retro(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("retro runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("retro ends")
}

/// Output bytes as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Rewrites the DTM table of `m` in `dir` (a byte an entry) with the first White win longer
/// than 20 plies made two plies longer, as a compressed file: a table that a check must fail.
pub fn lengthen_a_long_win(dir: &Path, m: Material) {
    use retro_tables::{
        format::{file_name, write_table_as, Encoding, Metric, Table, TableData},
        Value, Wdl,
    };
    use shakmaty::Color;
    let t = Table::open(&dir.join(file_name(m)), Some(m)).expect("dtm");
    let side = |mover: Color| -> Vec<u8> {
        (0..t.scheme().size())
            .map(|i| t.get(mover, i).expect("probe").to_byte().expect("a byte"))
            .collect()
    };
    let (mut white, black) = (side(Color::White), side(Color::Black));
    let stats = t.stats();
    drop(t);
    let i = white
        .iter()
        .position(|&b| {
            let v = Value::from_byte(b);
            v.wdl() == Wdl::Win && v.plies() > 20
        })
        .expect("a long win");
    let v = Value::from_byte(white[i]);
    white[i] = Value::win(v.plies() + 2)
        .and_then(Value::to_byte)
        .expect("a byte");
    let data = TableData {
        white: &white,
        black: &black,
        legal: None,
        ext: None,
    };
    let enc = Encoding::Blocks {
        block_len: 4096,
        level: 3,
    };
    write_table_as(dir, Metric::Dtm, m, data, stats, enc).expect("rewritten");
}
