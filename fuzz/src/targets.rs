//! The bodies of the fuzz targets: each takes the fuzzer's bytes and feeds them to one reader of
//! untrusted input, checking what it can of the answer. A panic, an abort or a hang (the
//! watchdog aborts) is a failure. The fuzz binaries (`fuzz/src/bin`) call these through the
//! `afl` crate, and the project's test suite replays every input of `fuzz/corpus` through them
//! (`tests/fuzz_corpora.rs` includes this file), so a crash found once stays fixed.
//!
//! Only public APIs of the project's crates are used here.

use std::{
    io::Write,
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, Condvar, Mutex, OnceLock,
    },
    time::{Duration, Instant},
};

use shakmaty::{fen::Fen, EnPassantMode, Position};

/// A target's body.
pub type Target = fn(&[u8]);

/// The targets by name, as the corpus folders and the binaries are named.
pub const TARGETS: [(&str, Target); 9] = [
    ("table_file", table_file),
    ("zstd_prefix", zstd_prefix),
    ("network", network),
    ("fen_position", fen_position),
    ("uci_session", uci_session),
    ("pgn", pgn),
    ("engine_toml", engine_toml),
    ("training_data", training_data),
    ("http_request", http_request),
];

// ---------------------------------------------------------------------------------------------
// The watchdog: a hang is reported as a crash, with what was running.

/// Milliseconds since the watchdog started at which the process aborts (0: none set).
static DEADLINE_MS: AtomicU64 = AtomicU64::new(0);
/// What runs under the deadline, for the message.
static DOING: Mutex<String> = Mutex::new(String::new());

fn watchdog_epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(|| {
        let epoch = Instant::now();
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(20));
            let deadline = DEADLINE_MS.load(Ordering::SeqCst);
            if deadline != 0 && epoch.elapsed().as_millis() as u64 > deadline {
                let doing = DOING.lock().map(|d| d.clone()).unwrap_or_default();
                eprintln!("hang: no answer in time while {doing}");
                std::process::abort();
            }
        });
        epoch
    })
}

/// Runs `f`, aborting the process when it takes longer than `limit`.
fn within<T>(limit: Duration, doing: &str, f: impl FnOnce() -> T) -> T {
    let epoch = watchdog_epoch();
    if let Ok(mut d) = DOING.lock() {
        d.clear();
        d.push_str(doing);
    }
    let deadline = (epoch.elapsed() + limit).as_millis() as u64;
    DEADLINE_MS.store(deadline.max(1), Ordering::SeqCst);
    let out = f();
    DEADLINE_MS.store(0, Ordering::SeqCst);
    out
}

/// A file of this process's for a target's input, in memory-backed storage when there is one.
fn scratch_path(name: &str) -> PathBuf {
    let shm = Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    dir.join(format!("retro-fuzz-{}-{name}", std::process::id()))
}

/// A 64-bit mix of `data`, to pick entries to probe.
fn mix(data: &[u8]) -> u64 {
    let mut h = 0x9E37_79B9_7F4A_7C15u64 ^ data.len() as u64;
    for &b in data {
        h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x517C_C1B7_2722_0A95);
    }
    h
}

// ---------------------------------------------------------------------------------------------
// Table files.

/// The file header's length.
const TABLE_HEADER: usize = 96;

/// Writes the checksums a table file holds (the block sums, the body's and the header's) as
/// tables/README.md defines them, wherever the header says enough to find them, so that the
/// fuzzer's changes reach the readers behind the checksums.
pub fn fix_table_sums(f: &mut [u8]) {
    use retro_tables::{format::checksum, index::IndexScheme, Material};
    if f.len() < TABLE_HEADER {
        return;
    }
    let u64_at = |f: &[u8], o: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&f[o..o + 8]);
        u64::from_le_bytes(b)
    };
    let name: Vec<u8> = f[16..32].iter().copied().take_while(|&b| b != 0).collect();
    let material = std::str::from_utf8(&name)
        .ok()
        .and_then(|s| s.parse::<Material>().ok());
    if let Some(m) = material.filter(|m| m.is_canonical()) {
        let n = IndexScheme::new(m).size();
        if f[38] == 0 {
            let sum = checksum(&f[TABLE_HEADER..]);
            f[72..80].copy_from_slice(&sum.to_le_bytes());
        } else if f[38] == 1 {
            let block_len = u64::from(u32::from_le_bytes([f[48], f[49], f[50], f[51]]));
            if block_len > 0 {
                let lanes = 2 * (u64::from(f[39]) + 1);
                let keys = lanes * n.div_ceil(block_len);
                let offsets_end = TABLE_HEADER as u64 + 8 * (keys + 1);
                let index_end = offsets_end + 4 * keys;
                if index_end <= f.len() as u64 {
                    let (offsets_end, index_end) = (offsets_end as usize, index_end as usize);
                    for k in 0..keys as usize {
                        let at = TABLE_HEADER + 8 * k;
                        let (a, b) = (u64_at(f, at), u64_at(f, at + 8));
                        let frame = (index_end as u64)
                            .checked_add(a)
                            .zip((index_end as u64).checked_add(b))
                            .filter(|(s, e)| s <= e && *e <= f.len() as u64);
                        if let Some((s, e)) = frame {
                            let sum = checksum(&f[s as usize..e as usize]) as u32;
                            let at = offsets_end + 4 * k;
                            f[at..at + 4].copy_from_slice(&sum.to_le_bytes());
                        }
                    }
                    let sum = checksum(&f[TABLE_HEADER..index_end]);
                    f[72..80].copy_from_slice(&sum.to_le_bytes());
                }
            }
        }
    }
    let sum = checksum(&f[..88]);
    f[88..96].copy_from_slice(&sum.to_le_bytes());
}

/// A table file: the first byte chooses whether the checksums are made right first (bit 0),
/// the rest is the file. An opened table is probed at both ends and at entries picked from the
/// input, through the prefix decoder and its cache; the same entries read from the table
/// opened whole into memory (libzstd, every block checked) must have the same values.
pub fn table_file(data: &[u8]) {
    use retro_tables::format::Table;
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut file = rest.to_vec();
    if mode & 1 == 1 {
        fix_table_sums(&mut file);
    }
    let path = scratch_path("table");
    if std::fs::write(&path, &file).is_err() {
        return;
    }
    let Ok(table) = Table::open_any(&path, None) else {
        return;
    };
    let n = table.scheme().size();
    let mut picks = vec![0, n.saturating_sub(1), n, u64::MAX];
    let mut h = mix(data);
    for _ in 0..16 {
        h = h.rotate_left(17).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xA5A5;
        picks.push(h % n.max(1));
    }
    let probed: Vec<_> = picks
        .iter()
        .flat_map(|&i| shakmaty::Color::ALL.map(|c| table.get(c, i).ok()))
        .collect();
    let _ = table.stats();
    drop(table);
    if let Ok(whole) = Table::open_in_memory(&path, None) {
        let again: Vec<_> = picks
            .iter()
            .flat_map(|&i| shakmaty::Color::ALL.map(|c| whole.get(c, i).ok()))
            .collect();
        for (k, (a, b)) in probed.iter().zip(&again).enumerate() {
            if let (Some(a), Some(b)) = (a, b) {
                assert_eq!(a, b, "entry {} (side {}) differs", picks[k / 2], k % 2);
            }
        }
    }
    let _ = std::fs::remove_file(&path);
}

/// Retro's zstd prefix decoder on its own: two bytes choose the byte to decode up to, the
/// rest is the frame. Where both it and libzstd decode the frame (one frame stating its
/// content size), the bytes must be the same; where only libzstd does (it reads some malformed
/// frames), the content compressed properly must decode to the same bytes.
pub fn zstd_prefix(data: &[u8]) {
    use retro_tables::zstd_prefix::{Decoded, PrefixDecoder};
    use zstd::zstd_safe;
    const MAX_LEN: usize = 1 << 17;
    let Some((ctl, frame)) = data.split_first_chunk::<2>() else {
        return;
    };
    let need = usize::from(u16::from_le_bytes(*ctl)) * 4;
    let mut out = Vec::new();
    let ours = PrefixDecoder::new().decode(frame, &mut out, need, MAX_LEN);
    let reference = zstd_safe::find_frame_compressed_size(frame)
        .ok()
        .filter(|_| matches!(zstd_safe::get_frame_content_size(frame), Ok(Some(s)) if s <= MAX_LEN as u64))
        .and_then(|len| zstd::bulk::decompress(&frame[..len], MAX_LEN).ok());
    match (ours, reference) {
        (Ok(d), Some(r)) => {
            let got = d.bytes();
            assert!(
                got <= r.len(),
                "decoded {got} bytes of a frame of {}",
                r.len()
            );
            assert_eq!(out[..got], r[..got], "decoded bytes differ from libzstd's");
            match d {
                Decoded::Whole(n) => assert_eq!(n, r.len(), "a whole frame of another length"),
                Decoded::Prefix(n) => assert!(n > need && n <= r.len(), "prefix {n} for {need}"),
            }
        }
        (Err(_), Some(r)) => {
            // libzstd decodes some malformed frames (a Huffman stream not read to its end, say)
            // that the decoder refuses; a refusal is no wrong answer. But the same content,
            // compressed properly, must decode to the same bytes.
            let frame = zstd::bulk::compress(&r, 3).expect("libzstd compresses");
            let mut again = Vec::new();
            let got = PrefixDecoder::new().decode(&frame, &mut again, usize::MAX, MAX_LEN);
            assert_eq!(
                got,
                Ok(Decoded::Whole(r.len())),
                "a proper frame was refused"
            );
            assert_eq!(
                again[..r.len()],
                r[..],
                "a proper frame decoded to other bytes"
            );
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// Network files.

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = 0xCBF2_9CE4_8422_2325u64;
    for &b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

/// A network file: bit 0 of the first byte makes its checksum right first (the header is 40
/// bytes for version 1, 48 otherwise; the checksum is the header's last 8 bytes). A network
/// that loads evaluates a few positions.
pub fn network(data: &[u8]) {
    use retro_engine::nnue::Network;
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut file = rest.to_vec();
    if mode & 1 == 1 && file.len() >= 12 {
        // Where each version keeps its checksum, and where the bytes it covers start.
        let (at, from) = match file[8] {
            1 => (32, 40),
            2 => (40, 48),
            _ => (32, 40),
        };
        if file.len() >= from {
            let sum = fnv1a(&file[from..]);
            file[at..at + 8].copy_from_slice(&sum.to_le_bytes());
        }
    }
    let Ok(net) = Network::from_bytes(&file) else {
        return;
    };
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
        "8/8/8/4k3/8/8/8/4K2Q w - - 0 1",
    ] {
        if let Ok(pos) = retro_engine::fen::parse_fen(fen) {
            let _ = net.evaluate_position(&pos);
        }
    }
    // The sums updated move by move (with the cache of views, and without) equal those made
    // from scratch, whatever the weights: kings crossing between files d and e (a mirrored
    // view), moving between ranks (another bucket), castling both ways, captures, en passant
    // and promotions.
    for (fen, moves) in NETWORK_LINES {
        let Ok(start) = retro_engine::fen::parse_fen(fen) else {
            panic!("a line's start does not parse: {fen}");
        };
        for with_cache in [true, false] {
            let mut cache = with_cache.then(|| net.refresh_cache());
            let mut pos = start.clone();
            let mut acc = net.refresh(pos.board());
            for text in moves.split_whitespace() {
                let m = text
                    .parse::<shakmaty::uci::UciMove>()
                    .ok()
                    .and_then(|u| u.to_move(&pos).ok())
                    .unwrap_or_else(|| panic!("a line's move is not legal: {text} in {fen}"));
                let us = pos.turn();
                pos.play_unchecked(m);
                net.apply(
                    &mut acc,
                    &retro_engine::nnue::Delta::of_move(us, &m),
                    pos.board(),
                    cache.as_mut(),
                );
                assert!(
                    acc == net.refresh(pos.board()),
                    "the sums updated by {text} differ from a refresh (cache {with_cache})"
                );
                let _ = net.evaluate(&acc, pos.turn(), pos.board().occupied().count());
            }
        }
    }
}

/// Positions and moves for the network target's updates.
const NETWORK_LINES: [(&str, &str); 3] = [
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "e2e4 d7d5 e4d5 e8d7 e1e2 d7d6 e2d3 d6d5 d3e3 d5e5 e3f3 e5f5 f3g3 c7c5 d2d4 c5d4 g3h4",
    ),
    (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "e1c1 e8g8 c1b1 g8h8 b1a1 h8g8 a2a4 b4a3 d5e6 a3a2",
    ),
    (
        "4k3/1P6/8/8/3pP3/8/6p1/4K3 b - e3 0 1",
        "d4e3 b7b8q e8d7 b8b5 d7d6 e1e2 g2g1n e2e3 g1h3 e3d4 h3f2 b5c5 d6e6 d4e3 f2d1 e3d3",
    ),
];

// ---------------------------------------------------------------------------------------------
// FENs and the `position` command.

fn position_engine() -> &'static Mutex<retro_engine::Engine> {
    static ENGINE: OnceLock<Mutex<retro_engine::Engine>> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let reporter: retro_engine::Reporter = Arc::new(|_| {});
        Mutex::new(retro_engine::Engine::new(&quiet_config(), reporter))
    })
}

/// Each line as a FEN (a position read must write back as a FEN that reads as the same
/// position) and as a UCI command (a `position` command is set on an engine).
pub fn fen_position(data: &[u8]) {
    use retro::uci::{command, Command, Start};
    let text = String::from_utf8_lossy(data);
    for line in text.lines().take(16) {
        if let Ok(pos) = retro_engine::fen::parse_fen(line) {
            let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
            let back = retro_engine::fen::parse_fen(&fen)
                .unwrap_or_else(|e| panic!("{fen}, written from {line:?}, does not read: {e}"));
            assert_eq!(
                Fen::from_position(&back, EnPassantMode::Legal).to_string(),
                fen,
                "{line:?} does not round-trip"
            );
            assert_eq!(back.board(), pos.board());
        }
        if let Ok(Command::Position { start, moves }) = command::parse(line) {
            let fen = match &start {
                Start::StartPos => None,
                Start::Fen(f) => Some(f.as_str()),
            };
            let Ok(mut engine) = position_engine().lock() else {
                return;
            };
            let before = engine.position().clone();
            match engine.set_position(fen, &moves) {
                Ok(()) => {}
                Err(_) => assert_eq!(engine.position(), &before, "a refused position changed it"),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// A whole UCI session.

/// An engine configuration that reads and writes no files: no tables, no table build, 1 MB
/// of hash.
fn quiet_config() -> retro_engine::config::Config {
    retro_engine::config::Config {
        table_path: PathBuf::from("/nonexistent/retro-fuzz-tables"),
        build_missing_tables: false,
        hash: 1,
        ..retro_engine::config::Config::default()
    }
}

/// The engine's output so far: the start of a line not ended yet, and how many `bestmove`
/// lines came.
#[derive(Default)]
struct Seen {
    partial: Vec<u8>,
    bestmoves: u64,
}

/// Where the engine writes, shared with the session that waits for its answers.
#[derive(Clone, Default)]
struct Answers(Arc<(Mutex<Seen>, Condvar)>);

impl Write for Answers {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        let (lock, cv) = &*self.0;
        if let Ok(mut g) = lock.lock() {
            g.partial.extend_from_slice(b);
            while let Some(end) = g.partial.iter().position(|&c| c == b'\n') {
                let line: Vec<u8> = g.partial.drain(..=end).collect();
                if line.starts_with(b"bestmove") {
                    g.bestmoves += 1;
                    cv.notify_all();
                }
            }
        }
        Ok(b.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Answers {
    fn bestmoves(&self) -> u64 {
        self.0 .0.lock().map(|g| g.bestmoves).unwrap_or(0)
    }

    /// Waits until `count` `bestmove` lines came, at most `limit`.
    fn wait_for(&self, count: u64, limit: Duration) -> bool {
        let (lock, cv) = &*self.0;
        let end = Instant::now() + limit;
        let Ok(mut g) = lock.lock() else {
            return false;
        };
        while g.bestmoves < count {
            let now = Instant::now();
            if now >= end {
                return false;
            }
            match cv.wait_timeout(g, end - now) {
                Ok((next, _)) => g = next,
                Err(_) => return false,
            }
        }
        true
    }
}

/// The most time any one command may hold the protocol before it answers, and the margin a
/// `bestmove` has past its search's limit.
const ANSWER_MARGIN: Duration = Duration::from_millis(2000);
/// A `go` whose limits are at most this long is waited for; a longer one is stopped.
const SHORT_GO: Duration = Duration::from_millis(50);

/// Whether `go` stops on its own within about `SHORT_GO`, and by when it must answer.
fn own_limit(go: &retro::uci::go::Go, turn: shakmaty::Color) -> Option<Duration> {
    let l = &go.limits;
    if l.infinite || l.ponder {
        return None;
    }
    if let Some(t) = l.move_time {
        return (t <= SHORT_GO).then_some(t);
    }
    if l.nodes.is_some_and(|n| n <= 20_000) || l.depth.is_some_and(|d| d <= 3) {
        return Some(SHORT_GO);
    }
    let clock = match turn {
        shakmaty::Color::White => l.white.0,
        shakmaty::Color::Black => l.black.0,
    };
    clock.filter(|&t| t <= SHORT_GO)
}

/// A whole UCI session, one command a line (at most 64 lines): every command returns within
/// `ANSWER_MARGIN`; every `go` the engine accepts while idle is answered by a `bestmove`,
/// within its own limit plus the margin when that is short, or within the margin after a
/// `stop` sent 5 ms later. A `stop`, `ponderhit` or `isready` right after a `go` is sent at
/// once, to the running search. At the end of the input the engine stops within the margin.
pub fn uci_session(data: &[u8]) {
    use retro::uci::{command, Command, Output, Protocol};
    let answers = Answers::default();
    let mut protocol = within(ANSWER_MARGIN, "starting the engine", || {
        Protocol::new(&quiet_config(), Output::new(Box::new(answers.clone())))
    });
    let text = String::from_utf8_lossy(data);
    let lines: Vec<&str> = text.split('\n').take(64).collect();
    let mut expected = 0u64;
    // The `go` under way: its line and its own limit.
    let mut pending: Option<(String, Option<Duration>)> = None;
    let settle = |protocol: &mut Protocol,
                  pending: &mut Option<(String, Option<Duration>)>,
                  expected: u64| {
        if let Some((line, limit)) = pending.take() {
            if let Some(limit) = limit {
                if !answers.wait_for(expected, limit + ANSWER_MARGIN) {
                    panic!("no bestmove within {limit:?} and the margin after {line:?}");
                }
            } else {
                std::thread::sleep(Duration::from_millis(5));
                within(ANSWER_MARGIN, &format!("stop after {line:?}"), || {
                    protocol.handle_line("stop")
                });
                if !answers.wait_for(expected, ANSWER_MARGIN) {
                    panic!("no bestmove after stop, after {line:?}");
                }
            }
        }
    };
    for line in lines {
        let parsed = command::parse(line);
        let to_running = matches!(
            parsed,
            Ok(Command::Stop | Command::PonderHit | Command::IsReady)
        );
        if !to_running {
            settle(&mut protocol, &mut pending, expected);
        }
        let idle = !protocol.engine().is_busy();
        let turn = protocol.engine().position().turn();
        // Counted before the line: a short search may answer before `handle_line` returns.
        let before = answers.bestmoves();
        let flow = within(ANSWER_MARGIN, &format!("handling {line:?}"), || {
            protocol.handle_line(line)
        });
        if let Ok(Command::Go(go)) = &parsed {
            if idle {
                expected = before.max(expected) + 1;
                pending = Some((line.to_string(), own_limit(go, turn)));
            }
        }
        if flow == retro::uci::Flow::Quit {
            break;
        }
    }
    settle(&mut protocol, &mut pending, expected);
    within(ANSWER_MARGIN, "stopping at the end of the input", || {
        protocol.handle_line("stop");
        protocol.stop_and_wait();
    });
}

// ---------------------------------------------------------------------------------------------
// PGN, engine.toml, training data.

/// PGN text: every game read writes back as PGN that reads as the same moves from the same
/// start.
pub fn pgn(data: &[u8]) {
    use retro::play::pgn;
    let text = String::from_utf8_lossy(data);
    let Ok(games) = pgn::read(&text) else {
        return;
    };
    for game in &games {
        let _ = game.positions();
        let written = pgn::write(game);
        let back = pgn::read(&written)
            .unwrap_or_else(|e| panic!("the PGN written does not read: {e}\n{written}"));
        assert_eq!(
            back.len(),
            1,
            "one game written, {} read:\n{written}",
            back.len()
        );
        assert_eq!(back[0].start, game.start, "another start:\n{written}");
        assert_eq!(back[0].moves, game.moves, "other moves:\n{written}");
    }
}

/// engine.toml: a configuration read has every value in its range.
pub fn engine_toml(data: &[u8]) {
    use retro_engine::config::{
        Config, HASH_RANGE, OVERHEAD_RANGE, SYZYGY_PROBE_LIMIT_RANGE, THREADS_RANGE,
    };
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(c) = Config::parse(text, Path::new("/fuzz/engine.toml")) {
        assert!(HASH_RANGE.contains(&c.hash), "hash {}", c.hash);
        assert!(THREADS_RANGE.contains(&c.threads), "threads {}", c.threads);
        assert!(
            OVERHEAD_RANGE.contains(&c.move_overhead),
            "overhead {}",
            c.move_overhead
        );
        assert!(
            SYZYGY_PROBE_LIMIT_RANGE.contains(&c.syzygy_probe_limit),
            "probe limit {}",
            c.syzygy_probe_limit
        );
    }
}

/// Training data: the first byte chooses the 32-byte records (even) or the games format
/// (odd). Every record read encodes back to its bytes; every game read encodes to a game
/// that reads back the same.
pub fn training_data(data: &[u8]) {
    use retro_train::{data, games};
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode & 1 == 0 {
        if let Ok(records) = data::read_records(rest) {
            for (k, r) in records.iter().enumerate() {
                let bytes = r.encode();
                let again = data::Record::decode(&bytes).expect("an encoded record reads");
                assert_eq!(&again, r, "record {k} does not round-trip");
            }
        }
    } else if let Ok(read) = games::read_games(rest) {
        for g in &read {
            let _ = g.records();
            let mut bytes = Vec::new();
            if g.encode(&mut bytes).is_ok() {
                let (again, used) =
                    games::GameRecord::decode(&bytes).expect("an encoded game reads");
                assert_eq!(used, bytes.len());
                assert_eq!(&again, g, "a game does not round-trip");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// HTTP requests of `retro serve`.

struct Server {
    runtime: tokio::runtime::Runtime,
    router: axum::Router,
    _tables: Option<tempfile::TempDir>,
}

/// The server's routes over the 3-piece tables (from `RETRO_FUZZ_TABLES`, else built once
/// into a temporary folder), with short job times.
fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        use retro_serve::{Explorer, Settings};
        let (dir, keep) = match std::env::var_os("RETRO_FUZZ_TABLES") {
            Some(d) => (PathBuf::from(d), None),
            None => {
                let tmp = tempfile::tempdir().expect("a temporary folder");
                let opts = retro_build::BuildOptions::quiet(tmp.path().to_path_buf());
                retro_build::build(&retro_tables::Material::all(3), &opts, |_| {})
                    .expect("the 3-piece tables build");
                (tmp.path().to_path_buf(), Some(tmp))
            }
        };
        let tables = retro_tables::Tablebase::open(&dir).ok().map(Arc::new);
        let mut settings = Settings::new(Explorer::new(tables, None));
        settings.legal_time = (0.02, 0.05);
        settings.analyse_time = (0.02, 0.05);
        settings.mainline_time = Duration::from_millis(50);
        settings.queue_wait = Duration::from_millis(50);
        settings.hash_mb = 1;
        Server {
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime"),
            router: retro_serve::router(settings),
            _tables: keep,
        }
    })
}

/// A request: the input is its target (path and query) and, after a first newline, its method.
/// Every answer comes within the margin and none is a server error (500).
pub fn http_request(data: &[u8]) {
    use axum::{body::Body, http::Request};
    use tower::ServiceExt;
    let text = String::from_utf8_lossy(data);
    let (target, method) = text.split_once('\n').unwrap_or((&text, "GET"));
    let Ok(req) = Request::builder()
        .method(method.trim())
        .uri(target)
        .body(Body::empty())
    else {
        return;
    };
    let s = server();
    let status = within(ANSWER_MARGIN, &format!("answering {target:?}"), || {
        s.runtime.block_on(async {
            let resp = s.router.clone().oneshot(req).await.expect("infallible");
            let status = resp.status();
            let _ = axum::body::to_bytes(resp.into_body(), 1 << 24).await;
            status
        })
    });
    assert_ne!(status.as_u16(), 500, "a server error for {target:?}");
}
