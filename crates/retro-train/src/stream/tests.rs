use shakmaty::{Chess, Color, Position};

use super::*;
use crate::{
    data::Outcome,
    games::{GameRecord, Ply},
};

/// Random games of random lengths, each move scored by material (centipawns for its side to
/// move), the result by the material at the end.
fn games(count: usize, seed: u64) -> Vec<GameRecord> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let material = |p: &Chess, c: Color| {
        let b = p.board();
        (b.by_color(c) & b.pawns()).count() as i32 * 100
            + (b.by_color(c) & (b.knights() | b.bishops())).count() as i32 * 300
            + (b.by_color(c) & b.rooks()).count() as i32 * 500
            + (b.by_color(c) & b.queens()).count() as i32 * 900
    };
    (0..count)
        .map(|_| {
            let start = Chess::default();
            let mut p = start.clone();
            let mut plies = Vec::new();
            for _ in 0..rng.usize(10..90) {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[rng.usize(..moves.len())];
                let score = material(&p, p.turn()) - material(&p, !p.turn());
                plies.push(Ply {
                    mv: Some(m),
                    score: score as i16,
                });
                p.play_unchecked(m);
            }
            let diff = material(&p, Color::White) - material(&p, Color::Black);
            let result = match diff {
                d if d > 150 => Outcome::Win,
                d if d < -150 => Outcome::Loss,
                _ => Outcome::Draw,
            };
            GameRecord {
                start,
                plies,
                result,
                label: None,
            }
        })
        .collect()
}

/// `games` written as files of the sizes `cuts` (games per file, the last takes the rest) into
/// `dir`, named in order.
fn write_parts(dir: &Path, games: &[GameRecord], cuts: &[usize]) -> DataFiles {
    let mut files = Vec::new();
    let mut at = 0usize;
    for (k, &n) in cuts.iter().chain(std::iter::once(&usize::MAX)).enumerate() {
        let end = at.saturating_add(n).min(games.len());
        if at == end && k > 0 {
            break;
        }
        let path = dir.join(format!("part-{k:05}.rgms"));
        games::write_games_file(&path, &games[at..end]).expect("written");
        files.push(path);
        at = end;
    }
    DataFiles::new(files)
}

fn options(buffer: usize) -> (StreamOptions, TrainOptions) {
    let stream = StreamOptions {
        buffer,
        hold_out_every: 5,
        hold_out_max: 700,
        mirror: true,
    };
    let train = TrainOptions {
        epochs: 3,
        batch_size: 64,
        learning_rate: 0.01,
        threads: 2,
        ..TrainOptions::default()
    };
    (stream, train)
}

fn run<P: Positions + ?Sized>(
    data: &P,
    stream: &StreamOptions,
    opts: &TrainOptions,
) -> (Weights, Survey, StreamReport, Vec<EpochReport>)
where
    P::Error: std::fmt::Debug,
{
    let start = Weights::random(opts.seed, 1, KingBuckets::NONE);
    let s = survey(data, start.kings, stream).expect("surveyed");
    let k = s.fit_k();
    let mut epochs = Vec::new();
    let (w, report) =
        train_streamed(start, data, &s, k, opts, &mut |_, r| epochs.push(*r)).expect("trained");
    (w, s, report, epochs)
}

#[test]
fn the_shuffle_buffer_gives_back_every_item_once() {
    let records: Vec<Record> = games(20, 3).iter().flat_map(GameRecord::records).collect();
    let samples: Vec<Sample> = records
        .iter()
        .map(|r| Sample::of(r, &KingBuckets::NONE))
        .collect();
    let key = |s: &Sample| format!("{s:?}");
    let mut expected: Vec<String> = samples.iter().map(key).collect();
    for capacity in [1, 7, 100, samples.len() + 5] {
        let mut buffer = ShuffleBuffer::new(capacity, 9);
        let mut out: Vec<String> = samples
            .iter()
            .filter_map(|s| buffer.push(s.clone()))
            .map(|s| key(&s))
            .collect();
        out.extend(buffer.drain().iter().map(key));
        let mixed = out != expected;
        out.sort();
        expected.sort();
        assert_eq!(out, expected, "capacity {capacity}");
        assert!(capacity == 1 || mixed, "capacity {capacity}: not mixed");
        expected = samples.iter().map(key).collect();
    }
}

/// Streamed through a buffer a tenth of the data, the same seed trains the same network
/// whether the games are in one file, in many, or in memory; the samples held at once stay
/// within the buffer, the batches read ahead and the held-out positions.
#[test]
fn streamed_training_is_the_same_from_one_file_or_many_within_its_buffer() {
    let games = games(250, 5);
    let records: Vec<Record> = games.iter().flat_map(GameRecord::records).collect();
    let dir = tempfile::tempdir().expect("temporary directory");
    let (one_dir, many_dir) = (dir.path().join("one"), dir.path().join("many"));
    std::fs::create_dir_all(&one_dir).expect("folder");
    std::fs::create_dir_all(&many_dir).expect("folder");
    let one = write_parts(&one_dir, &games, &[]);
    let many = write_parts(&many_dir, &games, &[1, 17, 3, 40, 9, 2]);
    assert_eq!(one.files().len(), 1);
    assert_eq!(many.files().len(), 7);

    // Data ten times the buffer: the buffer an eighth of the positions, the training positions
    // (all but a block held out) each trained with its mirror.
    let buffer = records.len() / 8;
    let (stream, opts) = options(buffer);
    let (w_one, s_one, report, epochs) = run(&one, &stream, &opts);
    let (w_many, s_many, _, _) = run(&many, &stream, &opts);
    let (w_memory, _, _, _) = run(records.as_slice(), &stream, &opts);
    assert!(!s_one.in_memory(), "streamed");
    assert!(
        s_one.fitted >= 10 * buffer as u64,
        "{} fitted",
        s_one.fitted
    );
    assert_eq!(s_one.positions, records.len() as u64);
    // Blocks 4 and 9 qualify; the first is held whole, reaching the most (700).
    assert!(records.len() > 10_000, "{} positions", records.len());
    assert_eq!(
        s_one.held.len(),
        1000,
        "held out up to the most, by whole blocks"
    );
    assert_eq!(
        (s_one.positions, s_one.fitted),
        (s_many.positions, s_many.fitted)
    );
    assert!(w_one == w_many, "one file and seven files train alike");
    assert!(w_one == w_memory, "files and memory train alike");

    let bound = buffer + (BATCHES_AHEAD + 2) * opts.batch_size + s_one.held.len();
    assert!(
        report.peak_samples <= bound,
        "{} samples held at once, bound {bound}",
        report.peak_samples
    );
    assert!(report.peak_samples >= buffer, "the buffer was filled");
    // Every training position and its mirror, every epoch; and it learns.
    assert!(epochs.iter().all(|e| e.positions_per_second > 0.0));
    assert!(
        epochs[2].held_out_loss < epochs[0].held_out_loss,
        "{epochs:?}"
    );

    // Another seed mixes otherwise.
    let other = TrainOptions {
        seed: 2,
        ..opts.clone()
    };
    let (w_other, _, _, _) = run(&one, &stream, &other);
    assert!(w_other != w_one);
}

/// Data that fits in the buffer is read once and trained from memory, as `train::train` does
/// with the same samples.
#[test]
fn data_within_the_buffer_trains_from_memory() {
    let games = games(30, 8);
    let records: Vec<Record> = games.iter().flat_map(GameRecord::records).collect();
    let (stream, opts) = options(10 * records.len());
    let (w, s, _, _) = run(records.as_slice(), &stream, &opts);
    assert!(s.in_memory());
    assert_eq!(s.samples().map(<[Sample]>::len), Some(s.fitted as usize));
    let refs: Vec<&Sample> = s.samples().into_iter().flatten().collect();
    let held: Vec<&Sample> = s.held.iter().collect();
    let start = Weights::random(opts.seed, 1, KingBuckets::NONE);
    let direct = train::train(start, &refs, &held, s.fit_k(), &opts, &mut |_, _| {});
    assert!(w == direct);
    // K as fitted to the samples themselves.
    let plain: Vec<&Sample> = s.samples().into_iter().flatten().step_by(2).collect();
    assert!((s.fit_k() - train::fit_k(&plain)).abs() < 0.01);
}

/// A games file cut short, after another, is named with its fault.
#[test]
fn a_bad_file_is_named() {
    let games = games(10, 4);
    let dir = tempfile::tempdir().expect("temporary directory");
    let files = write_parts(dir.path(), &games, &[5]);
    let bad = files.files()[1].clone();
    let mut bytes = std::fs::read(&bad).expect("read");
    bytes.truncate(bytes.len() - 3);
    std::fs::write(&bad, &bytes).expect("written");
    match survey(&files, KingBuckets::NONE, &StreamOptions::default()) {
        Err(ReadError::Games { path, .. }) => assert_eq!(path, bad),
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("a cut file read"),
    }
}
