use shakmaty::{fen::Fen, CastlingMode, Chess, Position};

use super::*;

/// Floating-point weights drawn with a seed, in the ranges a trained network has.
struct FloatNet {
    kings: KingBuckets,
    ft_weights: Vec<f32>,
    ft_bias: Vec<f32>,
    out_weights: Vec<f32>,
    out_bias: Vec<f32>,
}

impl FloatNet {
    /// A network of one output bucket.
    fn random(seed: u64) -> FloatNet {
        FloatNet::with_buckets(seed, 1)
    }

    fn with_buckets(seed: u64, buckets: usize) -> FloatNet {
        FloatNet::with_kings(seed, buckets, KingBuckets::NONE)
    }

    fn with_kings(seed: u64, buckets: usize, kings: KingBuckets) -> FloatNet {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut uniform = |lo: f32, hi: f32| lo + (hi - lo) * rng.f32();
        FloatNet {
            kings,
            ft_weights: (0..kings.count() * INPUTS * HIDDEN)
                .map(|_| uniform(-0.1, 0.1))
                .collect(),
            ft_bias: (0..HIDDEN).map(|_| uniform(0.0, 0.5)).collect(),
            out_weights: (0..buckets * 2 * HIDDEN)
                .map(|_| uniform(-1.0, 1.0))
                .collect(),
            out_bias: (0..buckets).map(|_| uniform(-0.1, 0.1)).collect(),
        }
    }

    fn quantised(&self) -> Network {
        Network::quantise(
            self.kings,
            &self.ft_weights,
            &self.ft_bias,
            &self.out_weights,
            &self.out_bias,
        )
        .expect("shapes")
    }

    /// The evaluation in floating point (centipawns, not rounded) and the bound on the
    /// difference the integer network may show: the first layer's rounding (half a unit per
    /// weight and bias), through the activation's slope of at most 2, the output weights'
    /// rounding, the bias's, and the two integer divisions.
    fn evaluate(&self, pos: &Chess) -> (f64, f64) {
        let n = pos.board().occupied().count();
        let bucket = bucket_of(self.out_bias.len(), n);
        let out_weights = &self.out_weights[bucket * 2 * HIDDEN..][..2 * HIDDEN];
        let mut out = f64::from(self.out_bias[bucket]);
        let mut bound = 0.5 / f64::from(QA * QB);
        let pieces = n as f64;
        let delta = (pieces + 1.0) * 0.5 / f64::from(QA);
        for (k, color) in [pos.turn(), !pos.turn()].into_iter().enumerate() {
            let mut acc: Vec<f64> = self.ft_bias.iter().map(|&b| f64::from(b)).collect();
            let view = self.kings.view_of(color, pos.board());
            for (sq, piece) in pos.board().iter() {
                let f = view.input(color, piece, sq);
                for (j, a) in acc.iter_mut().enumerate() {
                    *a += f64::from(self.ft_weights[f * HIDDEN + j]);
                }
            }
            for (j, a) in acc.iter().enumerate() {
                let act = a.clamp(0.0, 1.0).powi(2);
                let w = f64::from(out_weights[k * HIDDEN + j]);
                out += act * w;
                bound += w.abs() * (2.0 * delta + delta * delta) + act * 0.5 / f64::from(QB);
            }
        }
        let scale = f64::from(SCALE);
        (
            out * scale,
            bound * scale + scale / f64::from(QA * QB) + 1.0,
        )
    }
}

fn pos(fen: &str) -> Chess {
    crate::fen::parse_fen(fen).expect("legal FEN")
}

/// Perft's standard positions: castling, en passant, promotions and captures among their
/// moves.
const POSITIONS: [&str; 5] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
];

/// Counts of what a walk of [`updated_accumulators_equal_refreshed_ones`] met: castles, en
/// passant captures, promotions, captures, nodes compared, and king moves that changed their
/// side's view (resummed from the cache).
type Kinds = [u64; 6];

fn walk(
    net: &Network,
    cache: &mut Option<RefreshCache>,
    p: &Chess,
    acc: &Accumulator,
    depth: u32,
    kinds: &mut Kinds,
) {
    assert_eq!(
        *acc,
        net.refresh(p.board()),
        "{}",
        Fen::from_position(p, shakmaty::EnPassantMode::Legal)
    );
    kinds[4] += 1;
    if depth == 0 {
        return;
    }
    let kings = net.king_buckets();
    for m in p.legal_moves() {
        kinds[0] += u64::from(m.is_castle());
        kinds[1] += u64::from(m.is_en_passant());
        kinds[2] += u64::from(m.is_promotion());
        kinds[3] += u64::from(m.is_capture());
        let mut child = p.clone();
        child.play_unchecked(m);
        let us = p.turn();
        kinds[5] += u64::from(kings.view_of(us, p.board()) != kings.view_of(us, child.board()));
        let mut next = acc.clone();
        net.apply(
            &mut next,
            &Delta::of_move(us, &m),
            child.board(),
            cache.as_mut(),
        );
        walk(net, cache, &child, &next, depth - 1, kinds);
    }
}

#[test]
fn updated_accumulators_equal_refreshed_ones() {
    let net = FloatNet::random(1).quantised();
    let mut kinds = Kinds::default();
    for fen in POSITIONS {
        let p = pos(fen);
        walk(&net, &mut None, &p, &net.refresh(p.board()), 3, &mut kinds);
    }
    assert!(kinds[..5].iter().all(|&k| k > 0), "{kinds:?}");
    assert_eq!(kinds[5], 0, "one view");
    // Perft 0 to 3 of the five positions: 1 + 20 + 400 + 8,902 nodes of the first, and so on.
    let perft = [
        1 + 20 + 400 + 8_902,
        1 + 48 + 2_039 + 97_862,
        1 + 14 + 191 + 2_812,
        1 + 6 + 264 + 9_467,
        1 + 44 + 1_486 + 62_379,
    ];
    assert_eq!(kinds[4], perft.iter().sum::<u64>(), "{kinds:?}");
}

/// With king buckets: a king move that changes its side's view is summed again from the cache
/// of the new view (or from scratch without one), every other update is incremental, and all
/// equal a full refresh at every node of perft 3 of the five positions.
#[test]
fn updated_accumulators_equal_refreshed_ones_with_king_buckets() {
    for count in [1, 4, 16, 32] {
        let kings = KingBuckets::standard(count).expect("a standard layout");
        let net = FloatNet::with_kings(20 + u64::from(count), 1, kings).quantised();
        for with_cache in [true, false] {
            let mut cache = with_cache.then(|| net.refresh_cache());
            let mut kinds = Kinds::default();
            for fen in POSITIONS {
                let p = pos(fen);
                walk(&net, &mut cache, &p, &net.refresh(p.board()), 3, &mut kinds);
            }
            assert!(kinds.iter().all(|&k| k > 0), "{count} buckets: {kinds:?}");
        }
    }
}

/// A cache made by another network is not used: the sums are made from scratch.
#[test]
fn a_cache_of_another_network_is_not_used() {
    let kings = KingBuckets::standard(32).expect("a standard layout");
    let net = FloatNet::with_kings(30, 1, kings).quantised();
    let other = FloatNet::with_kings(31, 1, kings).quantised();
    let mut cache = Some(other.refresh_cache());
    let mut kinds = Kinds::default();
    let p = pos(POSITIONS[1]);
    walk(&net, &mut cache, &p, &net.refresh(p.board()), 3, &mut kinds);
    assert!(kinds[5] > 0, "{kinds:?}");
}

/// Positions from random games, every phase.
fn random_positions(n: usize, seed: u64) -> Vec<Chess> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut p = Chess::default();
        for _ in 0..rng.usize(0..160) {
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Captures first half the time, so that the games reach endgames.
            let captures: Vec<_> = moves.iter().filter(|m| m.is_capture()).collect();
            let m = if !captures.is_empty() && rng.bool() {
                *captures[rng.usize(..captures.len())]
            } else {
                moves[rng.usize(..moves.len())]
            };
            p.play_unchecked(m);
        }
        out.push(p);
    }
    out
}

#[test]
fn the_integer_network_agrees_with_its_floating_point_weights() {
    for buckets in [1, OUTPUT_BUCKETS] {
        agrees_with_floating_point(&FloatNet::with_buckets(2, buckets));
    }
    for count in [1, 8] {
        let kings = KingBuckets::standard(count).expect("a standard layout");
        agrees_with_floating_point(&FloatNet::with_kings(40, 1, kings));
    }
}

fn agrees_with_floating_point(float: &FloatNet) {
    let net = float.quantised();
    let mut worst: f64 = 0.0;
    for p in random_positions(10_000, 3) {
        let (exact, bound) = float.evaluate(&p);
        let exact = exact.clamp(-f64::from(EVAL_LIMIT), f64::from(EVAL_LIMIT));
        let got = f64::from(net.evaluate_position(&p));
        assert!(
            (got - exact).abs() <= bound,
            "{}: integer {got}, float {exact:.2}, bound {bound:.2}",
            p.board()
        );
        worst = worst.max((got - exact).abs());
    }
    // The comparison is not vacuous: the rounding shows.
    assert!(worst > 0.0);
}

#[test]
fn a_position_and_its_mirror_evaluate_alike() {
    for buckets in [1, OUTPUT_BUCKETS] {
        mirrors_evaluate_alike(&FloatNet::with_buckets(4, buckets).quantised());
    }
    let kings = KingBuckets::standard(16).expect("a standard layout");
    mirrors_evaluate_alike(&FloatNet::with_kings(41, OUTPUT_BUCKETS, kings).quantised());
}

/// With king buckets each view is turned to its king's half of the board, so a position and
/// its mirror left to right evaluate alike (positions without castling rights, which the
/// inputs do not show but which the mirror would lose); without, they do not always.
#[test]
fn with_king_buckets_a_position_and_its_mirror_left_to_right_evaluate_alike() {
    let differ = |net: &Network| {
        let mut differ = 0;
        for p in random_positions(2000, 7) {
            let mut setup = p.clone().to_setup(shakmaty::EnPassantMode::Legal);
            setup.castling_rights = shakmaty::Bitboard::EMPTY;
            setup.board.flip_horizontal();
            if let Some(sq) = setup.ep_square.as_mut() {
                *sq = sq.flip_horizontal();
            }
            let Ok(mirror) = setup.position::<Chess>(CastlingMode::Standard) else {
                continue;
            };
            differ += u32::from(net.evaluate_position(&p) != net.evaluate_position(&mirror));
        }
        differ
    };
    for count in [1, 4, 32] {
        let kings = KingBuckets::standard(count).expect("a standard layout");
        assert_eq!(differ(&FloatNet::with_kings(42, 1, kings).quantised()), 0);
    }
    assert!(differ(&FloatNet::random(42).quantised()) > 0);
}

fn mirrors_evaluate_alike(net: &Network) {
    for p in random_positions(2000, 5) {
        let mirror = p
            .clone()
            .to_setup(shakmaty::EnPassantMode::Legal)
            .into_mirrored();
        let mirror: Chess = mirror
            .position(CastlingMode::Standard)
            .expect("the mirror of a legal position is legal");
        assert_eq!(
            net.evaluate_position(&p),
            net.evaluate_position(&mirror),
            "{}",
            p.board()
        );
    }
}

#[test]
fn files_round_trip_and_bad_files_are_refused() {
    let net = FloatNet::random(6).quantised();
    let bytes = net.to_bytes();
    let back = Network::from_bytes(&bytes).expect("its own file");
    let p = pos(POSITIONS[1]);
    assert_eq!(back.evaluate_position(&p), net.evaluate_position(&p));
    assert_eq!(back.checksum(), net.checksum());

    let truncated = &bytes[..bytes.len() - 1];
    assert!(matches!(
        Network::from_bytes(truncated),
        Err(NetworkError::Truncated { .. })
    ));
    assert!(matches!(
        Network::from_bytes(&bytes[..20]),
        Err(NetworkError::Truncated { .. })
    ));
    let mut long = bytes.clone();
    long.push(0);
    assert!(matches!(
        Network::from_bytes(&long),
        Err(NetworkError::Oversized { .. })
    ));
    let mut corrupt = bytes.clone();
    let mid = corrupt.len() / 2;
    corrupt[mid] ^= 0x10;
    assert!(matches!(
        Network::from_bytes(&corrupt),
        Err(NetworkError::Checksum { .. })
    ));
    assert!(matches!(
        Network::from_bytes(b"not a network at all"),
        Err(NetworkError::Magic)
    ));
    assert!(matches!(Network::from_bytes(&[]), Err(NetworkError::Magic)));
    let mut other = bytes.clone();
    other[16] = 64; // hidden
    assert!(matches!(
        Network::from_bytes(&other),
        Err(NetworkError::Architecture {
            field: "hidden",
            ..
        })
    ));
    let mut version = bytes;
    version[8] = 9;
    assert!(matches!(
        Network::from_bytes(&version),
        Err(NetworkError::Version { found: 9 })
    ));
    // Random bytes behind a valid header never panic.
    let mut rng = fastrand::Rng::with_seed(7);
    for len in [0, 7, 8, 39, 40, 41, 1000] {
        let mut junk: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
        if len >= 8 {
            junk[..8].copy_from_slice(&FILE_MAGIC);
        }
        assert!(Network::from_bytes(&junk).is_err());
    }
}

#[test]
fn an_output_weight_out_of_range_is_refused() {
    for buckets in [1, OUTPUT_BUCKETS] {
        let mut net = FloatNet::with_buckets(8, buckets).quantised();
        net.out_weights[buckets - 1][3] = MAX_OUTPUT_WEIGHT + 1;
        assert!(matches!(
            Network::from_bytes(&net.to_bytes()),
            Err(NetworkError::OutputWeight { found: 128 })
        ));
    }
}

#[test]
fn output_buckets_follow_the_number_of_pieces() {
    let expected = [
        (2, 0),
        (5, 0),
        (6, 1),
        (9, 1),
        (10, 2),
        (29, 6),
        (30, 7),
        (32, 7),
    ];
    for (pieces, bucket) in expected {
        assert_eq!(output_bucket(pieces), bucket, "{pieces} pieces");
    }
    // A bucketed network evaluates each position with its bucket's weights: the same first
    // layer with the output weights of other buckets gives other scores.
    let float = FloatNet::with_buckets(9, OUTPUT_BUCKETS);
    let net = float.quantised();
    let p = pos(POSITIONS[1]);
    let acc = net.refresh(p.board());
    let score = |n| net.evaluate(&acc, p.turn(), n);
    // The same bucket, the same weights; the next bucket, others.
    for first in (2..32).step_by(4) {
        let last = (first + 3).min(32);
        assert_eq!(score(first), score(last), "{first}-{last} pieces");
        if last < 32 {
            assert_ne!(
                score(last),
                score(last + 1),
                "{last} and {} pieces",
                last + 1
            );
        }
    }
    // One bucket: the number of pieces does not matter.
    let single = FloatNet::with_buckets(9, 1).quantised();
    let acc = single.refresh(p.board());
    assert_eq!(
        single.evaluate(&acc, p.turn(), 2),
        single.evaluate(&acc, p.turn(), 32)
    );
}

#[test]
fn any_payload_of_the_right_size_loads_or_is_refused_without_panic() {
    let mut rng = fastrand::Rng::with_seed(13);
    let p = pos(POSITIONS[1]);
    let (mut loaded, mut refused) = (0, 0);
    let four = KingBuckets::standard(4).expect("a standard layout");
    for (version, buckets, kings) in [
        (1u32, 1usize, KingBuckets::NONE),
        (2, 1, KingBuckets::NONE),
        (2, OUTPUT_BUCKETS, KingBuckets::NONE),
        (3, OUTPUT_BUCKETS, four),
    ] {
        let rows = kings.count() * INPUTS;
        let len = 2 * (rows * HIDDEN + HIDDEN + buckets * 2 * HIDDEN) + 4 * buckets;
        let out_start = 2 * (rows * HIDDEN + HIDDEN);
        for trial in 0..6 {
            let mut payload: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
            // Half the trials with output weights in range, so that some load and evaluate;
            // the first of those with the extremes of the first layer's weights.
            if trial % 2 == 0 {
                for w in payload[out_start..out_start + buckets * 4 * HIDDEN].chunks_exact_mut(2) {
                    let v = rng.i16(-MAX_OUTPUT_WEIGHT..=MAX_OUTPUT_WEIGHT);
                    w.copy_from_slice(&v.to_le_bytes());
                }
            }
            if trial == 0 {
                for (k, w) in payload[..out_start].chunks_exact_mut(2).enumerate() {
                    let v = if k % 2 == 0 { i16::MIN } else { i16::MAX };
                    w.copy_from_slice(&v.to_le_bytes());
                }
            }
            let bytes = file::file_bytes(version, buckets as u32, &kings, &payload);
            // A file of the build's own width reads the same widened.
            let widened = Network::from_bytes_widened(&bytes).map(|(n, h)| (n.to_bytes(), h));
            match Network::from_bytes(&bytes) {
                Ok(net) => {
                    loaded += 1;
                    let s = net.evaluate_position(&p);
                    assert!(s.abs() <= EVAL_LIMIT);
                    assert_eq!(widened.ok(), Some((net.to_bytes(), HIDDEN)));
                }
                Err(NetworkError::OutputWeight { .. }) => {
                    refused += 1;
                    assert!(matches!(widened, Err(NetworkError::OutputWeight { .. })));
                }
                Err(e) => panic!("version {version}, {buckets} buckets: {e}"),
            }
        }
    }
    assert_eq!((loaded, refused), (12, 12));
}

#[test]
fn the_smallest_output_weight_is_refused() {
    // -32768 is out of range, and its absolute value does not exist in i16.
    let mut net = FloatNet::random(14).quantised();
    net.out_weights[0][5] = i16::MIN;
    assert!(matches!(
        Network::from_bytes(&net.to_bytes()),
        Err(NetworkError::OutputWeight { found: i16::MIN })
    ));
}

#[test]
fn a_version_2_file_of_one_bucket_reads_as_version_1() {
    let net = FloatNet::random(15).quantised();
    let v1 = net.to_bytes();
    let v2 = file::file_bytes(2, 1, &KingBuckets::NONE, &v1[40..]);
    let back = Network::from_bytes(&v2).expect("version 2, one bucket");
    assert_eq!(back.buckets(), 1);
    assert_eq!(back.checksum(), net.checksum());
    assert_eq!(back.to_bytes(), v1);
    let mut reserved = v2;
    reserved[36] = 1;
    assert!(matches!(
        Network::from_bytes(&reserved),
        Err(NetworkError::Reserved { found: 1 })
    ));
}

#[test]
fn files_of_king_buckets_round_trip_and_bad_ones_are_refused() {
    let kings = KingBuckets::standard(8).expect("a standard layout");
    let net = FloatNet::with_kings(16, OUTPUT_BUCKETS, kings).quantised();
    let bytes = net.to_bytes();
    assert_eq!(bytes[8], 3, "version 3");
    assert_eq!(
        bytes.len(),
        80 + 2 * (8 * INPUTS * HIDDEN + HIDDEN + 8 * 2 * HIDDEN) + 4 * 8
    );
    let back = Network::from_bytes(&bytes).expect("its own file");
    assert_eq!(back.king_buckets(), kings);
    assert_eq!(back.to_bytes(), bytes);
    for p in random_positions(200, 17) {
        assert_eq!(back.evaluate_position(&p), net.evaluate_position(&p));
    }
    // Mirroring alone is version 3 too.
    let mirrored = FloatNet::with_kings(16, 1, KingBuckets::standard(1).expect("layout"));
    assert_eq!(mirrored.quantised().to_bytes()[8], 3);
    // The header's fields: the number of king buckets, the map (checked before the checksum,
    // which also covers them).
    let with = |at: usize, v: u8| {
        let mut b = bytes.clone();
        b[at] = v;
        Network::from_bytes(&b)
    };
    assert!(matches!(
        with(44, 0),
        Err(NetworkError::KingBuckets(KingBucketError::Count {
            found: 0
        }))
    ));
    assert!(matches!(
        with(44, 33),
        Err(NetworkError::KingBuckets(KingBucketError::Count {
            found: 33
        }))
    ));
    assert!(matches!(
        with(48 + 5, 8),
        Err(NetworkError::KingBuckets(KingBucketError::Bucket {
            index: 5,
            found: 8,
            count: 8
        }))
    ));
    assert!(matches!(
        with(48 + 5, 7),
        Err(NetworkError::Checksum { .. })
    ));
    assert!(matches!(with(40, 1), Err(NetworkError::Oversized { .. })));
    assert!(matches!(
        Network::from_bytes(&bytes[..bytes.len() - 1]),
        Err(NetworkError::Truncated { .. })
    ));
    assert!(matches!(
        Network::from_bytes(&bytes[..60]),
        Err(NetworkError::Truncated { .. })
    ));
    let mut long = bytes.clone();
    long.push(0);
    assert!(matches!(
        Network::from_bytes(&long),
        Err(NetworkError::Oversized { .. })
    ));
    let mut corrupt = bytes;
    let mid = corrupt.len() / 2;
    corrupt[mid] ^= 1;
    assert!(matches!(
        Network::from_bytes(&corrupt),
        Err(NetworkError::Checksum { .. })
    ));
    // Every standard layout is a valid map; other numbers have none.
    for count in [1, 4, 8, 16, 32] {
        let k = KingBuckets::standard(count).expect("a standard layout");
        assert_eq!(k.count(), count as usize);
        assert!(k.map().iter().all(|&b| u32::from(b) < count));
        for b in 0..count as u8 {
            assert!(k.map().contains(&b), "{count}: bucket {b} used");
        }
    }
    assert_eq!(KingBuckets::standard(3), None);
}

#[test]
fn bucketed_files_round_trip_and_bad_ones_are_refused() {
    let net = FloatNet::with_buckets(10, OUTPUT_BUCKETS).quantised();
    let bytes = net.to_bytes();
    assert_eq!(bytes[8], 2, "version 2");
    let back = Network::from_bytes(&bytes).expect("its own file");
    assert_eq!(back.buckets(), OUTPUT_BUCKETS);
    assert_eq!(back.checksum(), net.checksum());
    for p in random_positions(200, 11) {
        assert_eq!(back.evaluate_position(&p), net.evaluate_position(&p));
    }
    // A network of one bucket is still written as version 1, readable by earlier builds.
    assert_eq!(FloatNet::random(10).quantised().to_bytes()[8], 1);
    let mut three = bytes.clone();
    three[32] = 3;
    assert!(matches!(
        Network::from_bytes(&three),
        Err(NetworkError::OutputBuckets { found: 3 })
    ));
    assert!(matches!(
        Network::from_bytes(&bytes[..bytes.len() - 1]),
        Err(NetworkError::Truncated { .. })
    ));
    assert!(matches!(
        Network::from_bytes(&bytes[..44]),
        Err(NetworkError::Truncated { .. })
    ));
    let mut long = bytes.clone();
    long.extend_from_slice(&[0; 4]);
    assert!(matches!(
        Network::from_bytes(&long),
        Err(NetworkError::Oversized { .. })
    ));
    let mut corrupt = bytes.clone();
    let last = corrupt.len() - 2;
    corrupt[last] ^= 1;
    assert!(matches!(
        Network::from_bytes(&corrupt),
        Err(NetworkError::Checksum { .. })
    ));
    // Random bytes behind a version 2 header never panic.
    let mut rng = fastrand::Rng::with_seed(12);
    for len in [12, 40, 47, 48, 49, 1000] {
        let mut junk: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
        junk[..8].copy_from_slice(&FILE_MAGIC);
        junk[8..12].copy_from_slice(&2u32.to_le_bytes());
        if len >= 36 {
            junk[32..36].copy_from_slice(&(OUTPUT_BUCKETS as u32).to_le_bytes());
        }
        assert!(Network::from_bytes(&junk).is_err());
    }
}

#[cfg(not(feature = "hidden-512"))]
#[test]
fn the_embedded_network_loads() {
    let net = Network::from_bytes(EMBEDDED_BYTES).expect("the embedded network is valid");
    assert_eq!(net.checksum(), Network::embedded().checksum());
}

/// A 512-neuron build reads the network given to it as `RETRO_EVALFILE`; without one it has
/// the 256-neuron default, which it refuses (and says so at run time).
#[cfg(feature = "hidden-512")]
#[test]
fn the_embedded_network_loads_when_given_at_its_width() {
    match option_env!("RETRO_EVALFILE") {
        Some(p) if !p.is_empty() => {
            let net = Network::from_bytes(EMBEDDED_BYTES).expect("the embedded network is valid");
            assert_eq!(net.checksum(), Network::embedded().checksum());
        }
        _ => assert!(matches!(
            Network::embedded_error(),
            Some(NetworkError::Architecture {
                field: "hidden",
                found: 256,
                ..
            })
        )),
    }
}

/// A network file of fewer neurons is refused by `from_bytes` and read by `load_widened` as
/// the same network with the missing neurons zero: written at the build's width it is, byte for
/// byte, the network it was made from, for each format version. A file of more neurons, or of
/// a count that is not whole blocks, is refused.
#[test]
fn a_narrower_network_widens_to_the_same_network() {
    for narrow in [HIDDEN / 2, 100] {
        a_network_of_neurons_widens(narrow);
    }
}

fn a_network_of_neurons_widens(narrow: usize) {
    let four = KingBuckets::standard(4).expect("a standard layout");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("narrow.nnue");
    let p = pos(POSITIONS[2]);
    for (seed, buckets, kings) in [
        (21, 1, KingBuckets::NONE),
        (22, OUTPUT_BUCKETS, KingBuckets::NONE),
        (23, OUTPUT_BUCKETS, four),
    ] {
        let mut f = FloatNet::with_kings(seed, buckets, kings);
        for row in f.ft_weights.chunks_exact_mut(HIDDEN) {
            row[narrow..].fill(0.0);
        }
        f.ft_bias[narrow..].fill(0.0);
        for half in f.out_weights.chunks_exact_mut(HIDDEN) {
            half[narrow..].fill(0.0);
        }
        let wide = f.quantised();
        // The same weights written at `narrow` neurons a side.
        let mut payload = Vec::new();
        let mut put = |w: &[i16]| {
            for x in w {
                payload.extend_from_slice(&x.to_le_bytes());
            }
        };
        for row in &wide.ft_weights {
            put(&row[..narrow]);
        }
        put(&wide.ft_bias[..narrow]);
        for bucket in &wide.out_weights[..buckets] {
            put(&bucket[..narrow]);
            put(&bucket[HIDDEN..HIDDEN + narrow]);
        }
        for b in &wide.out_bias[..buckets] {
            payload.extend_from_slice(&b.to_le_bytes());
        }
        let version = if kings.by_king() {
            3
        } else if buckets == 1 {
            1
        } else {
            2
        };
        let bytes = file::file_bytes_of(version, narrow as u32, buckets as u32, &kings, &payload);
        assert!(matches!(
            Network::from_bytes(&bytes),
            Err(NetworkError::Architecture { field: "hidden", found, .. }) if found as usize == narrow
        ));
        std::fs::write(&path, &bytes).expect("written");
        let (net, neurons) = Network::load_widened(&path).expect("a narrower network widens");
        assert_eq!(neurons, narrow);
        assert_eq!(
            net.to_bytes(),
            wide.to_bytes(),
            "version {version}, {narrow} neurons"
        );
        assert_eq!(net.evaluate_position(&p), wide.evaluate_position(&p));
    }
    for hidden in [2 * HIDDEN as u32, HIDDEN as u32 + 1, 0] {
        let bytes = file::file_bytes_of(1, hidden, 1, &KingBuckets::NONE, &[]);
        assert!(matches!(
            Network::from_bytes_widened(&bytes),
            Err(NetworkError::Architecture {
                field: "hidden",
                ..
            })
        ));
    }
}
