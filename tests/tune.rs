//! End-to-end tests of `retro datagen` and `retro tune`: self-play data with table labels, a
//! fit that lowers the error and writes a weights file the tuner reads back, and bad input.

mod common;

use common::{all_tables, retro, text};
use retro::tune::weights_file;

#[test]
fn datagen_then_tune_writes_a_readable_weights_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data.tsv");
    let tables = all_tables().to_str().expect("utf-8");
    let d = data.to_str().expect("utf-8");
    let out = retro(
        &[
            "datagen",
            "--tables",
            tables,
            "--games",
            "4",
            "--nodes",
            "400",
            "--threads",
            "2",
            "--out",
            d,
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("datagen: 4 games"),
        "{}",
        text(&out.stderr)
    );
    let lines = std::fs::read_to_string(&data).expect("data written");
    assert!(lines.lines().count() > 20, "{lines}");
    let rows: Vec<Vec<&str>> = lines.lines().map(|l| l.split('\t').collect()).collect();
    for (i, cols) in rows.iter().enumerate() {
        assert_eq!(cols.len(), 4, "{cols:?}");
        assert!(["1", "0.5", "0"].contains(&cols[1]), "{cols:?}");
        let score: i32 = cols[3].parse().expect("the search score in centipawns");
        assert!(score.abs() <= 30_000, "{cols:?}");
        assert!(
            ["game", "adjudicated", "table"].contains(&cols[2]),
            "{cols:?}"
        );
        // A game the tables decide ends with the position they cover, written last.
        let run_ends = rows.get(i + 1).is_none_or(|next| next[2] != "table");
        if cols[2] == "table" && run_ends {
            let pos = retro_engine::fen::parse_fen(cols[0]).expect("FEN");
            assert!(
                shakmaty::Position::board(&pos).occupied().count() <= 4,
                "{cols:?}"
            );
        }
    }

    let weights = dir.path().join("weights.rs");
    let w = weights.to_str().expect("utf-8");
    let out = retro(
        &["tune", "--epochs", "20", "--rate", "2", "--out", w, d],
        "",
    );
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    let error = |label: &str| -> f64 {
        let line = err.lines().find(|l| l.contains(label)).expect(label);
        let at = line.find(label).expect("label") + label.len();
        line[at..]
            .split_whitespace()
            .next()
            .and_then(|x| x.parse().ok())
            .expect("an error figure")
    };
    assert!(
        error("error after 20 epochs: ") < error("error before: "),
        "{err}"
    );
    let written = std::fs::read_to_string(&weights).expect("weights written");
    assert!(weights_file::parse(&written).is_ok(), "{written}");
}

#[test]
fn bad_data_and_weights_are_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("bad.tsv");
    std::fs::write(
        &data,
        "4k3/8/8/8/8/8/8/R3K3 w - - 0 1\t1\tgame\nnot a fen\t1\tgame\n",
    )
    .expect("write");
    let w = dir.path().join("w.rs");
    let tune = |start: &[&str], message: &str| {
        let mut args = vec!["tune"];
        args.extend_from_slice(start);
        args.extend(["--out", w.to_str().expect("utf-8")]);
        args.push(data.to_str().expect("utf-8"));
        let out = retro(&args, "");
        assert_eq!(out.status.code(), Some(2));
        assert!(text(&out.stderr).contains(message), "{}", text(&out.stderr));
        assert!(!w.exists());
    };
    tune(&[], "line 2");

    let start = dir.path().join("start.rs");
    std::fs::write(&start, "pub static WEIGHTS: [S; 1] = [S(1, 2)];").expect("write");
    std::fs::write(&data, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1\t1\tgame\n").expect("write");
    tune(
        &["--start", start.to_str().expect("utf-8")],
        "1 weights, expected",
    );
}
