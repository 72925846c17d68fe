//! End-to-end tests of `retro datagen` and `retro tune`: self-play data with table labels, a
//! fit that lowers the error and writes a weights file the tuner reads back, and bad input.

mod common;

use common::{all_tables, retro, text};
use retro::tune::weights_file;
use retro_engine::nnue::{Network, HIDDEN, INPUTS};

/// A version 1 network file (one output bucket, no king buckets) of `bytes` cut to its first
/// `neurons` neurons a side, with its header and checksum made again.
fn narrowed(bytes: &[u8], neurons: usize) -> Vec<u8> {
    const HEADER: usize = 40;
    assert_eq!(bytes[8..12], 1u32.to_le_bytes(), "a version 1 file");
    let words: Vec<&[u8]> = bytes[HEADER..].chunks(2).collect();
    let mut payload = Vec::new();
    // The first layer's rows and biases, then the two halves of the output weights.
    for row in words[..(INPUTS + 1) * HIDDEN + 2 * HIDDEN].chunks(HIDDEN) {
        payload.extend(row[..neurons].concat());
    }
    payload.extend_from_slice(&bytes[bytes.len() - 4..]);
    let mut out = bytes[..HEADER].to_vec();
    out[16..20].copy_from_slice(&(neurons as u32).to_le_bytes());
    // FNV-1a 64 of the payload.
    let sum = payload.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    out[32..40].copy_from_slice(&sum.to_le_bytes());
    out.extend(payload);
    out
}

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

/// `retro datagen --dir`: six games or as given, two a part, 300 nodes a move, one thread.
fn datagen_dir(dir: &std::path::Path, games: &str) -> std::process::Output {
    datagen_shard(dir, games, &[])
}

/// `retro bench` to `depth` with the network `net` (through an engine.toml written in `dir`):
/// its standard output, once it has succeeded.
fn bench_with(dir: &std::path::Path, net: &std::path::Path, depth: &str) -> String {
    let cfg = dir.join("engine.toml");
    std::fs::write(
        &cfg,
        format!(
            "table_path = \"\"\nbuild_missing_tables = false\nuse_nnue = true\neval_file = \"{}\"\n",
            net.display()
        ),
    )
    .expect("write");
    let out = retro(
        &[
            "--config",
            cfg.to_str().expect("utf-8"),
            "bench",
            "--depth",
            depth,
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

/// `retro datagen --dir` with two games a part and `more` arguments.
fn datagen_shard(dir: &std::path::Path, games: &str, more: &[&str]) -> std::process::Output {
    let tables = all_tables().to_str().expect("utf-8");
    let mut args = vec![
        "datagen",
        "--tables",
        tables,
        "--games",
        games,
        "--part-games",
        "2",
        "--nodes",
        "300",
        "--threads",
        "1",
        "--dir",
        dir.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(more);
    retro(&args, "")
}

/// Shards made apart (`--parts 0..2` and `--parts 2..9`, the second cut at the three parts that
/// six games make) are, file for file, the parts of one run with the same seeds.
#[test]
fn sharded_datagen_makes_the_parts_of_one_run() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let whole = tmp.path().join("whole");
    let out = datagen_dir(&whole, "6");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for (dir, range) in [(&a, "0..2"), (&b, "2..9")] {
        let out = datagen_shard(dir, "6", &["--parts", range]);
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let names = |d: &std::path::Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(names(&a), ["part-00000.rgms", "part-00001.rgms"]);
    assert_eq!(names(&b), ["part-00002.rgms"]);
    for k in 0..3 {
        let name = format!("part-{k:05}.rgms");
        let shard = if k < 2 { &a } else { &b };
        assert_eq!(
            std::fs::read(shard.join(&name)).expect("shard part"),
            std::fs::read(whole.join(&name)).expect("whole part"),
            "{name}"
        );
    }
    let bad = datagen_shard(&a, "6", &["--parts", "3..3"]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad.stderr));

    // The games search with the built-in network unless told otherwise: --classic (the
    // hand-written evaluation) plays other games; a bad --eval-file is named and plays none.
    let c = tmp.path().join("c");
    let junk = tmp.path().join("junk.nnue");
    std::fs::write(&junk, b"not a network").expect("write");
    let bad = datagen_shard(&c, "2", &["--eval-file", junk.to_str().expect("utf-8")]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad.stderr));
    assert!(
        text(&bad.stderr).contains("junk.nnue: not a Retro network file"),
        "{}",
        text(&bad.stderr)
    );
    assert!(!c.exists());
    let classic = datagen_shard(&c, "2", &["--classic"]);
    assert!(classic.status.success(), "{}", text(&classic.stderr));
    assert!(text(&classic.stderr).contains("hand-written evaluation"));
    assert!(text(&out.stderr).contains("built-in network"));
    let part = "part-00000.rgms";
    assert_ne!(
        std::fs::read(c.join(part)).expect("classic part"),
        std::fs::read(whole.join(part)).expect("network part"),
    );
}

#[test]
fn datagen_dir_resumes_and_train_writes_a_network_the_engine_loads() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let data = tmp.path().join("data");
    let out = datagen_dir(&data, "6");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let parts: Vec<_> = (0..3)
        .map(|k| data.join(format!("part-{k:05}.rgms")))
        .collect();
    let first: Vec<Vec<u8>> = parts
        .iter()
        .map(|p| std::fs::read(p).expect("part written"))
        .collect();
    let games = retro_train::games::read_games_file(&parts[1]).expect("a games file");
    assert_eq!(games.len(), 2);
    let positions: usize = games.iter().map(|g| g.records().len()).sum();
    assert!(positions > 10, "{positions}");
    // A stop after part 0: parts 1 and 2 are missing, and the same command makes them again,
    // the same games from the same seeds.
    std::fs::remove_file(&parts[1]).expect("rm");
    std::fs::remove_file(&parts[2]).expect("rm");
    let out = datagen_dir(&data, "6");
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("1 of 3 parts"), "{err}");
    assert!(err.contains("datagen: 4 games"), "{err}");
    for (p, before) in parts.iter().zip(&first) {
        assert_eq!(&std::fs::read(p).expect("part"), before, "{}", p.display());
    }

    let net = tmp.path().join("net.nnue");
    let out = retro(
        &[
            "train",
            "--epochs",
            "3",
            "--batch-size",
            "256",
            "--hold-out-every",
            "0",
            "--out",
            net.to_str().expect("utf-8"),
            data.to_str().expect("utf-8"),
        ],
        "",
    );
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("epoch   3/3"), "{err}");
    let loaded = retro_engine::nnue::Network::load(&net).expect("a network file");
    assert_ne!(
        loaded.checksum(),
        retro_engine::nnue::Network::zero().checksum()
    );
    // The engine searches with it.
    let bench = bench_with(tmp.path(), &net, "3");
    assert!(bench.contains("bench: "), "{bench}");
}

/// `retro convert-data` turns records into games without losing one: `retro train` with the
/// same seed makes the same network, byte for byte, from the records and from their games; and
/// `retro train --init` starts from the network it is given.
#[test]
fn converted_records_train_the_same_network() {
    use shakmaty::Position;
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut records = Vec::new();
    let mut rng = fastrand::Rng::with_seed(5);
    while records.len() < 600 {
        let mut pos = shakmaty::Chess::default();
        for _ in 0..rng.usize(4..40) {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.play_unchecked(moves[rng.usize(..moves.len())]);
        }
        let result = [
            retro_train::data::Outcome::Loss,
            retro_train::data::Outcome::Draw,
            retro_train::data::Outcome::Win,
        ][rng.usize(..3)];
        records.push(retro_train::data::Record::new(
            &pos,
            rng.i16(-600..600),
            result,
            None,
        ));
    }
    let rdat = tmp.path().join("part-00000.rdat");
    retro_train::data::write_file(&rdat, &records).expect("write");
    let games_dir = tmp.path().join("games");
    let out = retro(
        &[
            "convert-data",
            "--out",
            games_dir.to_str().expect("utf-8"),
            rdat.to_str().expect("utf-8"),
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("part-00000.rgms: 600 positions"));
    let train = |data: &std::path::Path, net: &std::path::Path, extra: &[&str]| {
        let mut args = vec![
            "train",
            "--epochs",
            "2",
            "--batch-size",
            "128",
            "--threads",
            "1",
            "--seed",
            "3",
            "--out",
            net.to_str().expect("utf-8"),
            data.to_str().expect("utf-8"),
        ];
        args.extend_from_slice(extra);
        let out = retro(&args, "");
        assert!(out.status.success(), "{}", text(&out.stderr));
        (std::fs::read(net).expect("network"), text(&out.stderr))
    };
    let (from_records, log) = train(&rdat, &tmp.path().join("a.nnue"), &[]);
    assert!(log.contains("in memory"), "{log}");
    let (from_games, _) = train(
        &games_dir.join("part-00000.rgms"),
        &tmp.path().join("b.nnue"),
        &[],
    );
    assert!(
        from_records == from_games,
        "the networks differ ({} and {} bytes)",
        from_records.len(),
        from_games.len()
    );
    // Streamed through a buffer of 100 positions (the 600 and their mirrors read again every
    // epoch), the same from either format; at most the buffer, the batches read ahead and the
    // held-out positions are held at once.
    let streamed = |data: &std::path::Path, net: &str| {
        train(data, &tmp.path().join(net), &["--shuffle-buffer", "100"])
    };
    let (a, log) = streamed(&rdat, "c.nnue");
    let (b, _) = streamed(&games_dir.join("part-00000.rgms"), "d.nnue");
    assert!(a == b, "the streamed networks differ");
    assert!(
        a != from_records,
        "streaming mixes otherwise than in memory"
    );
    assert!(
        log.contains("read every epoch through a shuffle buffer of 100"),
        "{log}"
    );
    let held_at_once: usize = log
        .split("at most ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no peak in {log}"));
    assert!(held_at_once <= 100 + 6 * 128, "{held_at_once} held at once");
    // `retro train --init` from `init` with `more` arguments, one thread, nothing held out.
    let warm_train = |init: &std::path::Path, more: &[&str], out_net: &std::path::Path| {
        let mut args = vec!["train", "--init", init.to_str().expect("utf-8")];
        args.extend_from_slice(more);
        args.extend_from_slice(&["--hold-out-every", "0", "--threads", "1", "--out"]);
        args.extend_from_slice(&[
            out_net.to_str().expect("utf-8"),
            rdat.to_str().expect("utf-8"),
        ]);
        retro(&args, "")
    };
    // A warm start begins at the network given: with a step size of 0 the epoch changes
    // nothing, and the network written is that network, byte for byte.
    let warm = tmp.path().join("warm.nnue");
    let a = tmp.path().join("a.nnue");
    let out = warm_train(&a, &["--epochs", "1", "--lr", "0"], &warm);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        std::fs::read(&warm).expect("warm network") == from_records,
        "the warm start moved"
    );
    // With no epoch the network written is the start, as it is.
    let zero = tmp.path().join("zero.nnue");
    let out = warm_train(&a, &["--epochs", "0"], &zero);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        std::fs::read(&zero).expect("a network after no epoch") == from_records,
        "no epoch moved the network"
    );

    // A network of half the neurons starts this build's width through the command line: it
    // evaluates as it did, and its new neurons are drawn.
    let half = tmp.path().join("half.nnue");
    std::fs::write(&half, narrowed(&from_records, HIDDEN / 2)).expect("written");
    let widened = tmp.path().join("widened.nnue");
    let out = warm_train(&half, &["--epochs", "0"], &widened);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    let said = format!(
        "widening the network from {} neurons a side to {HIDDEN}",
        HIDDEN / 2
    );
    assert!(err.contains(&said), "{err}");
    let (narrow, neurons) = Network::load_widened(&half).expect("the narrow network");
    assert_eq!(neurons, HIDDEN / 2);
    let wide = Network::load(&widened).expect("a network of this build's width");
    assert_ne!(wide.to_bytes(), narrow.to_bytes(), "no neuron was drawn");
    // Positions of random games, at every length to 80 plies.
    let mut rng = fastrand::Rng::with_seed(17);
    for plies in 0..80 {
        let mut p = shakmaty::Chess::default();
        for _ in 0..plies {
            let moves = shakmaty::Position::legal_moves(&p);
            if moves.is_empty() {
                break;
            }
            shakmaty::Position::play_unchecked(&mut p, moves[rng.usize(..moves.len())]);
        }
        assert_eq!(wide.evaluate_position(&p), narrow.evaluate_position(&p));
    }

    // The same network starts one of eight king buckets, which the engine searches with; a
    // network of eight buckets does not start one of sixteen, and there is no layout of three.
    let bucketed = tmp.path().join("kings.nnue");
    let train_kings = |init: &std::path::Path, buckets: &str, out_net: &std::path::Path| {
        warm_train(init, &["--king-buckets", buckets, "--epochs", "1"], out_net)
    };
    let out = train_kings(&a, "8", &bucketed);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("8 king buckets, mirrored"), "{err}");
    let net = retro_engine::nnue::Network::load(&bucketed).expect("a network file");
    assert_eq!(net.king_buckets().count(), 8);
    let bench = bench_with(tmp.path(), &bucketed, "5");
    assert!(bench.contains(" nodes "), "{bench}");
    let out = train_kings(&bucketed, "16", &tmp.path().join("sixteen.nnue"));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("8 king buckets of its own, not the 16"),
        "{}",
        text(&out.stderr)
    );
    let out = train_kings(&a, "3", &tmp.path().join("three.nnue"));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("expected 1, 4, 8, 16 or 32"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn train_names_a_bad_data_file() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let bad = tmp.path().join("bad.rdat");
    std::fs::write(&bad, b"RETRODAT\x01\0\0\0\x05\0\0\0 too short").expect("write");
    let net = tmp.path().join("net.nnue");
    let out = retro(
        &[
            "train",
            "--out",
            net.to_str().expect("utf-8"),
            bad.to_str().expect("utf-8"),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("bad.rdat") && err.contains("bytes"), "{err}");
    assert!(!net.exists());
}

#[test]
fn positions_the_tables_cover_carry_their_exact_value() {
    use retro::tune::datagen::{play_game, DatagenOptions, Source};
    use retro_tables::Wdl50;
    let tb = retro_tables::Tablebase::open(all_tables()).expect("tables");
    let tt = retro_engine::TranspositionTable::new(1).expect("1 MB");
    for (fen, want) in [
        // Black to move, lost; the game is decided at once by the tables.
        ("8/8/8/4k3/8/8/3QK3/8 b - - 0 1", Wdl50::Loss),
        // Knight against bishop: drawn, though mate is not impossible.
        ("8/8/4k3/8/8/3NK3/8/5b2 w - - 0 1", Wdl50::Draw),
    ] {
        let opts = DatagenOptions {
            nodes: 200,
            random_plies: 0,
            book: vec![retro_engine::fen::parse_fen(fen).expect("FEN")],
            ..DatagenOptions::default()
        };
        let game = play_game(&opts, 1, &tt, Some(&tb));
        assert_eq!(game.source, Source::Table, "{fen}");
        let records: Vec<_> = game.records().collect();
        let last = records.last().expect("the table position is written");
        assert_eq!(last.wdl50, Some(want), "{fen}");
        let result = match want {
            Wdl50::Loss => retro_train::data::Outcome::Loss,
            _ => retro_train::data::Outcome::Draw,
        };
        assert_eq!(last.result, result, "{fen}");
        // The bytes keep the label.
        let back = retro_train::data::Record::decode(&last.encode()).expect("decode");
        assert_eq!(back.wdl50, Some(want));
    }
}

/// `retro convert-data --to-text`: the games of `retro datagen --dir` as text are the lines
/// `retro datagen --out` writes for the same games (adjudicated games named `game`: the games
/// format does not keep adjudication), other files of the directory left alone; a file named
/// that is not a games file writes nothing.
#[test]
fn games_as_text_are_the_lines_of_datagen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tables = all_tables().to_str().expect("utf-8");
    let lines = dir.path().join("lines.tsv");
    let common = [
        "datagen", "--tables", tables, "--games", "3", "--nodes", "300",
    ];
    let out = retro(
        &[
            &common[..],
            &["--threads", "1", "--out", lines.to_str().expect("utf-8")],
        ]
        .concat(),
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let games = dir.path().join("games");
    let out = datagen_dir(&games, "3");
    assert!(out.status.success(), "{}", text(&out.stderr));
    // A records file beside the games is not read (not a games file).
    std::fs::write(games.join("old.rdat"), b"records").expect("rdat");
    let converted = dir.path().join("converted.tsv");
    let c = converted.to_str().expect("utf-8");
    let out = retro(
        &[
            "convert-data",
            "--to-text",
            "--out",
            c,
            games.to_str().expect("utf-8"),
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let want = std::fs::read_to_string(&lines).expect("lines");
    let got = std::fs::read_to_string(&converted).expect("converted");
    assert!(want.lines().count() > 30, "{want}");
    assert!(
        text(&out.stdout).contains(&format!("3 games, {} positions", want.lines().count())),
        "{}",
        text(&out.stdout)
    );
    let as_games = want.replace("\tadjudicated\t", "\tgame\t");
    assert_eq!(got, as_games);
    let junk = dir.path().join("junk.rgms");
    std::fs::write(&junk, b"not games").expect("junk");
    let bad = dir.path().join("bad.tsv");
    let out = retro(
        &[
            "convert-data",
            "--to-text",
            "--out",
            bad.to_str().expect("utf-8"),
            junk.to_str().expect("utf-8"),
        ],
        "",
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("junk.rgms"),
        "{}",
        text(&out.stderr)
    );
    assert!(!bad.exists(), "nothing written");
}
