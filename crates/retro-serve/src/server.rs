//! The HTTP server: routes, the bounded pool of legality and analysis jobs, the cap on
//! connections, request logging and shutdown.

use std::{
    future::Future,
    io,
    net::SocketAddr,
    pin::Pin,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
    task::{Context, Poll},
    time::{Duration, Instant},
};

use axum::{
    extract::{Request, State},
    http::{header, HeaderValue, Method, Uri},
    middleware::{self, Next},
    response::{IntoResponse, Response},
    routing::get,
    Json, Router,
};
use hyper_util::{
    rt::{TokioIo, TokioTimer},
    server::graceful::GracefulShutdown,
    service::TowerToHyperService,
};
use serde::Serialize;
use shakmaty::{san::SanPlus, uci::UciMove, CastlingMode, Chess, Position};
use tokio::{
    io::{AsyncRead, AsyncWrite, ReadBuf},
    net::{TcpListener, TcpStream},
    sync::{OwnedSemaphorePermit, Semaphore},
};

use retro_engine::{
    eval::Evaluator,
    search::{SearchControl, SearchParams},
    think, HeuristicsPool, Report, Score, SearchInfo, SearchLimits, TranspositionTable,
};
use retro_legality::{Limits, RawPosition};

use crate::{
    assets,
    error::ApiError,
    explorer::{fen_of, Explorer},
    query::{position, Params},
};

/// The settings of a server.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The tables.
    pub explorer: Explorer,
    /// Connections served at once; more wait to be accepted.
    pub max_connections: usize,
    /// Legality and analysis jobs run at once (each takes a core).
    pub job_slots: usize,
    /// How long a request waits for a job slot before it is answered 429.
    pub queue_wait: Duration,
    /// The time of a legality analysis when the request gives none, and the most it may ask.
    pub legal_time: (f64, f64),
    /// The time of an engine analysis when the request gives none, and the most it may ask.
    pub analyse_time: (f64, f64),
    /// Hash table of each engine analysis, in MB.
    pub hash_mb: usize,
    /// The engine's evaluation.
    pub eval: Evaluator,
    /// Table positions are played and scored under the 50-move rule, as the engine's
    /// `Syzygy50MoveRule` does.
    pub rule50: bool,
    /// A connection that sends nothing, or takes nothing of an answer, for this long is closed
    /// (its slot freed).
    pub idle_timeout: Duration,
    /// A request whose head (request line and headers) has not all come this long after the
    /// server began to wait for it (the connection's start, or the previous answer) is refused
    /// and its connection closed, however steadily it trickles in; so this is also how long an
    /// open connection may wait between requests.
    pub header_timeout: Duration,
    /// The most bytes of a request's head; a longer one is refused (431) and its connection
    /// closed. At least 8192.
    pub max_head_bytes: usize,
    /// The most time a mainline may take; a longer line ends where it got to.
    pub mainline_time: Duration,
}

impl Settings {
    /// The defaults around `explorer`: 256 connections, one job slot per core but one (at
    /// least one), legality 5 s by default and 30 s at most, analysis 1 s and 10 s, 16 MB hash,
    /// connections idle for 60 s closed, request heads within 10 s and 16 KiB, mainlines cut
    /// at 2 s.
    pub fn new(explorer: Explorer) -> Settings {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Settings {
            explorer,
            max_connections: 256,
            job_slots: cores.saturating_sub(1).max(1),
            queue_wait: Duration::from_secs(2),
            legal_time: (5.0, 30.0),
            analyse_time: (1.0, 10.0),
            hash_mb: 16,
            eval: Evaluator::default(),
            rule50: true,
            idle_timeout: Duration::from_secs(60),
            header_timeout: Duration::from_secs(10),
            max_head_bytes: 16 * 1024,
            mainline_time: Duration::from_secs(2),
        }
    }
}

/// What the handlers share.
struct AppState {
    settings: Settings,
    /// Legality and analysis jobs.
    jobs: Arc<Semaphore>,
    /// Mainlines (each a few thousand probes), one per core.
    lines: Arc<Semaphore>,
    /// One cancel flag per job slot, free ones in the list: a legality analysis takes one so
    /// that a request whose client goes away stops its job (the analysis's limits hold a
    /// `'static` flag, so the flags are made once for the server's lifetime).
    flags: Mutex<Vec<&'static AtomicBool>>,
}

/// The routes of the server over `settings`.
pub fn router(settings: Settings) -> Router {
    let slots = settings.job_slots.max(1);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let flags = (0..slots)
        .map(|_| &*Box::leak(Box::new(AtomicBool::new(false))))
        .collect();
    let state = Arc::new(AppState {
        settings,
        jobs: Arc::new(Semaphore::new(slots)),
        lines: Arc::new(Semaphore::new(cores)),
        flags: Mutex::new(flags),
    });
    Router::new()
        .route("/", get(assets::index))
        .route("/app.js", get(assets::script))
        .route("/style.css", get(assets::style))
        .route("/standard", get(standard))
        .route("/standard/mainline", get(mainline))
        .route("/legal", get(legal))
        .route("/analyse", get(analyse))
        .fallback(unknown_path)
        .method_not_allowed_fallback(wrong_method)
        .with_state(state)
        .layer(middleware::from_fn(logged))
}

/// Serves `settings` on `listener` until `shutdown` completes, then finishes the requests
/// under way.
///
/// # Errors
/// An I/O error of the listener.
pub async fn serve(
    listener: TcpListener,
    settings: Settings,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let mut capped = CappedListener {
        slots: Arc::new(Semaphore::new(settings.max_connections.max(1))),
        inner: listener,
        idle: settings.idle_timeout,
    };
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(settings.header_timeout)
        .max_buf_size(settings.max_head_bytes.max(MIN_HEAD_BYTES));
    let app = router(settings);
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            (stream, addr) = capped.accept() => {
                let service = TowerToHyperService::new(app.clone());
                let conn = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
                tokio::spawn(async move {
                    if let Err(e) = conn.await {
                        log::debug!("connection from {addr}: {e}");
                    }
                });
            }
            () = &mut shutdown => break,
        }
    }
    // No new connections; those under way finish their requests and close.
    drop(capped);
    graceful.shutdown().await;
    Ok(())
}

/// The least buffer hyper reads a request's head into.
const MIN_HEAD_BYTES: usize = 8192;

/// Logs each request at `info` (method, path, status, microseconds) and lets any page call the
/// API (lichess's server allows every origin too).
async fn logged(req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = req.method().clone();
    let path: String = req.uri().path().chars().take(100).collect();
    let query_len = req.uri().query().map_or(0, str::len);
    let mut res = next.run(req).await;
    res.headers_mut().insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    log::info!(
        "{method} {path} ({query_len} bytes of query) {} {} us",
        res.status().as_u16(),
        started.elapsed().as_micros()
    );
    res
}

async fn unknown_path(uri: Uri) -> ApiError {
    ApiError::UnknownPath(uri.path().chars().take(100).collect())
}

async fn wrong_method(method: Method) -> ApiError {
    ApiError::Method(method.as_str().chars().take(20).collect())
}

/// `GET /standard?fen=...`.
async fn standard(State(s): State<Arc<AppState>>, uri: Uri) -> Result<Response, ApiError> {
    let params = Params::parse(uri.query(), &["fen"])?;
    let pos = position(&params.fen()?)?;
    let answer = s.settings.explorer.standard(&pos);
    Ok(Json(answer).into_response())
}

/// `GET /standard/mainline?fen=...`.
async fn mainline(State(s): State<Arc<AppState>>, uri: Uri) -> Result<Response, ApiError> {
    let params = Params::parse(uri.query(), &["fen"])?;
    let pos = position(&params.fen()?)?;
    let permit = slot(&s.lines, s.settings.queue_wait).await?;
    let explorer = s.settings.explorer.clone();
    let deadline = Instant::now() + s.settings.mainline_time;
    let line = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        explorer.mainline(&pos, Some(deadline))
    })
    .await
    .map_err(|_| ApiError::Internal)??;
    Ok(Json(line).into_response())
}

/// Takes a slot of `pool`, waiting at most `wait`.
async fn slot(pool: &Arc<Semaphore>, wait: Duration) -> Result<OwnedSemaphorePermit, ApiError> {
    match tokio::time::timeout(wait, pool.clone().acquire_owned()).await {
        Ok(Ok(permit)) => Ok(permit),
        _ => Err(ApiError::Busy),
    }
}

/// Sets its flag when dropped: a handler dropped before its job ends (the client went away)
/// stops the job.
struct CancelOnDrop<F: Fn()>(F);

impl<F: Fn()> Drop for CancelOnDrop<F> {
    fn drop(&mut self) {
        (self.0)();
    }
}

/// A proof game, move by move.
#[derive(Serialize)]
struct ProofJson {
    plies: usize,
    uci: Vec<String>,
    san: Vec<String>,
    /// The FEN after each move, the starting position first.
    fens: Vec<String>,
}

/// The answer of `/legal`.
#[derive(Serialize)]
struct LegalJson {
    fen: String,
    verdict: String,
    reason: String,
    nodes: u64,
    time_ms: u128,
    proof: Option<ProofJson>,
}

/// `GET /legal?fen=...&time=S`: the legality analysis on a job slot, within the time asked
/// (capped).
async fn legal(State(s): State<Arc<AppState>>, uri: Uri) -> Result<Response, ApiError> {
    let params = Params::parse(uri.query(), &["fen", "time"])?;
    let fen = params.fen()?;
    let (default, cap) = s.settings.legal_time;
    let time = params.time(default, cap)?;
    let raw = RawPosition::from_fen(&fen).map_err(|e| ApiError::Fen(e.to_string()))?;
    let permit = slot(&s.jobs, s.settings.queue_wait).await?;
    let lease = Arc::new(Lease::take(Arc::clone(&s), permit));
    let _cancel = {
        let lease = Arc::clone(&lease);
        CancelOnDrop(move || lease.cancel())
    };
    let job = Arc::clone(&lease);
    let answer = tokio::task::spawn_blocking(move || {
        let answer = legal_answer(fen, &raw, time, job.flag);
        job.done.store(true, Ordering::Relaxed);
        answer
    })
    .await
    .map_err(|_| ApiError::Internal)?;
    Ok(Json(answer).into_response())
}

/// A legality job's slot and cancel flag, shared by the job and its handler: both go back to
/// the pool when the last of the two lets go, so a flag is never handed to the next job while
/// the handler of the last one may still set it.
struct Lease {
    state: Arc<AppState>,
    flag: Option<&'static AtomicBool>,
    done: AtomicBool,
    _permit: OwnedSemaphorePermit,
}

impl Lease {
    /// A free flag (there are as many flags as job slots, so a permit finds one), cleared.
    fn take(state: Arc<AppState>, permit: OwnedSemaphorePermit) -> Lease {
        let flag = state.flags.lock().ok().and_then(|mut f| f.pop());
        if let Some(f) = flag {
            f.store(false, Ordering::Relaxed);
        }
        Lease {
            state,
            flag,
            done: AtomicBool::new(false),
            _permit: permit,
        }
    }

    /// Stops the job if it is still running.
    fn cancel(&self) {
        if let Some(f) = self.flag {
            if !self.done.load(Ordering::Relaxed) {
                f.store(true, Ordering::Relaxed);
            }
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let (Some(f), Ok(mut free)) = (self.flag, self.state.flags.lock()) {
            free.push(f);
        }
    }
}

/// The legality analysis of `raw` within `time`, or until `cancel` is set.
fn legal_answer(
    fen: String,
    raw: &RawPosition,
    time: Duration,
    cancel: Option<&'static AtomicBool>,
) -> LegalJson {
    let started = Instant::now();
    let limits = Limits {
        max_nodes: LEGAL_MAX_NODES,
        deadline: Some(started + time),
        proof_nodes: LEGAL_MAX_NODES,
        cancel,
    };
    let verdict = retro_legality::analyze(raw, limits);
    let proof = verdict.proof.as_ref().map(|game| {
        let mut pos = Chess::default();
        let mut fens = vec![fen_of(&pos)];
        let mut san = Vec::with_capacity(game.plies());
        for m in &game.moves {
            san.push(SanPlus::from_move_and_play_unchecked(&mut pos, *m).to_string());
            fens.push(fen_of(&pos));
        }
        ProofJson {
            plies: game.plies(),
            uci: game.uci(),
            san,
            fens,
        }
    });
    LegalJson {
        fen,
        verdict: verdict.status.to_string(),
        reason: verdict.reason.to_string(),
        nodes: verdict.nodes,
        time_ms: started.elapsed().as_millis(),
        proof,
    }
}

/// The node budget of a legality analysis (the time limit ends it first in practice).
const LEGAL_MAX_NODES: u64 = 50_000_000;

/// An engine score.
#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum ScoreJson {
    /// Centipawns for the side to move.
    Cp(i32),
    /// Mate in this many moves (negative: mated).
    Mate(i32),
}

/// The most pieces of a position probed in the Syzygy tables (all there are).
const SYZYGY_PIECES: usize = 7;

/// The answer of `/analyse`.
#[derive(Serialize)]
struct AnalyseJson {
    fen: String,
    depth: u32,
    nodes: u64,
    time_ms: u128,
    score: ScoreJson,
    bestmove: Option<String>,
    pv: Vec<String>,
    pv_san: Vec<String>,
}

/// `GET /analyse?fen=...&time=S`: a search on a job slot for the time asked (capped).
async fn analyse(State(s): State<Arc<AppState>>, uri: Uri) -> Result<Response, ApiError> {
    let params = Params::parse(uri.query(), &["fen", "time"])?;
    let pos = position(&params.fen()?)?;
    let (default, cap) = s.settings.analyse_time;
    let time = params.time(default, cap)?;
    let permit = slot(&s.jobs, s.settings.queue_wait).await?;
    let settings = s.settings.clone();
    let control = Arc::new(SearchControl::new(false));
    let stopper = Arc::clone(&control);
    let _cancel = CancelOnDrop(move || stopper.stop());
    let answer = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        analyse_answer(&settings, pos, time, &control)
    })
    .await
    .map_err(|_| ApiError::Internal)??;
    Ok(Json(answer).into_response())
}

/// The engine's answer for `pos` in `time` (or until `control` is stopped), on one thread: as
/// `go movetime` gives it, so the move, line, score and depth are the engine's own (in a table
/// position the tables' choice under the 50-move rule and the whole table line; elsewhere the
/// search, with the tables below the root).
fn analyse_answer(
    settings: &Settings,
    pos: Chess,
    time: Duration,
    control: &SearchControl,
) -> Result<AnalyseJson, ApiError> {
    let started = Instant::now();
    let fen = fen_of(&pos);
    let tt = TranspositionTable::new(settings.hash_mb).map_err(|_| ApiError::Internal)?;
    let mut params = SearchParams::fixed_depth(pos.clone(), 0);
    params.limits = SearchLimits {
        move_time: Some(time),
        ..SearchLimits::default()
    };
    params.report = true;
    params.eval = settings.eval.clone();
    params.rule50 = settings.rule50;
    params.syzygy = settings.explorer.syzygy().cloned();
    params.syzygy_limit = SYZYGY_PIECES;
    let last: Mutex<Option<SearchInfo>> = Mutex::new(None);
    let tables = settings.explorer.tables().map(|t| t.as_ref());
    let result = think(
        &params,
        &tt,
        &HeuristicsPool::new(),
        tables,
        control,
        &|report: Report| {
            if let Report::Info(info) = report {
                if info.multipv == 1 {
                    if let Ok(mut l) = last.lock() {
                        *l = Some(info);
                    }
                }
            }
        },
    );
    let info = last.into_inner().ok().flatten();
    let pv: Vec<shakmaty::Move> = match &info {
        Some(i) if !i.pv.is_empty() => i.pv.clone(),
        _ => result.best.into_iter().collect(),
    };
    let mut p = pos;
    let mut pv_san = Vec::with_capacity(pv.len());
    let mut pv_uci = Vec::with_capacity(pv.len());
    for m in &pv {
        if !p.is_legal(*m) {
            break;
        }
        pv_uci.push(UciMove::from_move(*m, CastlingMode::Standard).to_string());
        pv_san.push(SanPlus::from_move_and_play_unchecked(&mut p, *m).to_string());
    }
    let score = match info
        .as_ref()
        .map_or(Score::from_search(result.score), |i| i.score)
    {
        Score::Cp(cp) => ScoreJson::Cp(cp),
        Score::Mate(n) => ScoreJson::Mate(n),
    };
    Ok(AnalyseJson {
        fen,
        depth: info.as_ref().map_or(result.depth, |i| i.depth),
        nodes: result.nodes,
        time_ms: started.elapsed().as_millis(),
        score,
        bestmove: result
            .best
            .map(|m| UciMove::from_move(m, CastlingMode::Standard).to_string()),
        pv: pv_uci,
        pv_san,
    })
}

/// A listener that serves at most a fixed number of connections at once: the next is accepted
/// only when one closes.
struct CappedListener {
    inner: TcpListener,
    slots: Arc<Semaphore>,
    idle: Duration,
}

/// A connection holding its slot until it is dropped; reading fails (and the connection
/// closes) when nothing arrives for the idle time, so that silent clients cannot keep the slots.
struct CappedStream {
    stream: TcpStream,
    _slot: Option<OwnedSemaphorePermit>,
    idle: Duration,
    deadline: Pin<Box<tokio::time::Sleep>>,
}

impl CappedListener {
    /// The next connection, once a slot is free.
    async fn accept(&mut self) -> (CappedStream, SocketAddr) {
        // The semaphore is never closed, so a slot always comes.
        let slot = self.slots.clone().acquire_owned().await.ok();
        loop {
            match self.inner.accept().await {
                Ok((stream, addr)) => {
                    if let Err(e) = stream.set_nodelay(true) {
                        log::debug!("TCP_NODELAY on {addr}: {e}");
                    }
                    let deadline = Box::pin(tokio::time::sleep(self.idle));
                    return (
                        CappedStream {
                            stream,
                            _slot: slot,
                            idle: self.idle,
                            deadline,
                        },
                        addr,
                    );
                }
                Err(e) => {
                    // Out of file descriptors and the like: wait and accept again.
                    log::warn!("accept: {e}");
                    tokio::time::sleep(ACCEPT_RETRY).await;
                }
            }
        }
    }
}

/// The pause after a failed accept.
const ACCEPT_RETRY: Duration = Duration::from_millis(50);

impl AsyncRead for CappedStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        match Pin::new(&mut self.stream).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    let next = tokio::time::Instant::now() + self.idle;
                    self.deadline.as_mut().reset(next);
                }
                Poll::Ready(Ok(()))
            }
            Poll::Pending => match self.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "connection idle",
                ))),
                Poll::Pending => Poll::Pending,
            },
            other => other,
        }
    }
}

impl CappedStream {
    /// A write's outcome: progress resets the idle deadline; a client that takes nothing of the
    /// answer until the deadline has its connection closed.
    fn written<T>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        match polled {
            Poll::Ready(r) => {
                let next = tokio::time::Instant::now() + self.idle;
                self.deadline.as_mut().reset(next);
                Poll::Ready(r)
            }
            Poll::Pending => match self.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "client takes no answer",
                ))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

impl AsyncWrite for CappedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.written(cx, polled)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.stream).poll_flush(cx);
        self.written(cx, polled)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.written(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A server over no tables on a free port, with `settings` changed by `f`.
    async fn start(f: impl FnOnce(&mut Settings)) -> SocketAddr {
        let mut settings = Settings::new(Explorer::default());
        f(&mut settings);
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("address");
        tokio::spawn(serve(listener, settings, std::future::pending()));
        addr
    }

    /// GET `path` on a connection of its own: the status and the body.
    async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
        let mut s = TcpStream::connect(addr).await.expect("connect");
        let req = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        s.write_all(req.as_bytes()).await.expect("write");
        let mut answer = String::new();
        s.read_to_string(&mut answer).await.expect("read");
        let status = answer[9..12].parse().expect("status");
        let body = answer.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
        (status, body)
    }

    /// A request head sent a byte at a time (never idle for long) is cut off at the header
    /// timeout, and the other connections are answered meanwhile.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_head_trickling_in_is_cut_off_at_the_header_timeout() {
        let addr = start(|s| {
            s.max_connections = 2;
            s.header_timeout = Duration::from_millis(400);
            s.idle_timeout = Duration::from_secs(30);
        })
        .await;
        let started = Instant::now();
        let mut slow = TcpStream::connect(addr).await.expect("connect");
        let answered = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            get(addr, "/standard?fen=8/8/8/8/8/8/8/K1k5_w_-_-_0_1").await
        });
        let mut cut_off = false;
        for &b in b"GET /standard?fen=".iter().cycle().take(200) {
            if slow.write_all(&[b]).await.is_err() {
                cut_off = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            let mut buf = [0u8; 256];
            if let Ok(Ok(n)) =
                tokio::time::timeout(Duration::from_millis(1), slow.read(&mut buf)).await
            {
                // The server's answer (408) or the end of the connection.
                cut_off = n == 0 || buf.starts_with(b"HTTP/1.1 408");
                if cut_off {
                    break;
                }
            }
        }
        assert!(cut_off, "the trickling request is still open");
        assert!(started.elapsed() < Duration::from_secs(9));
        let (status, body) = answered.await.expect("answered");
        assert_eq!(status, 200, "{body}");
    }

    /// A client that sends requests and takes none of the answers has its connection closed
    /// after the idle time, which frees its slot.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_client_taking_no_answer_is_closed_after_the_idle_time() {
        let addr = start(|s| {
            s.max_connections = 1;
            s.idle_timeout = Duration::from_millis(300);
        })
        .await;
        let mut greedy = TcpStream::connect(addr).await.expect("connect");
        // 3,000 pipelined requests of a 15 kB page: far more than the socket buffers hold.
        let many = "GET /app.js HTTP/1.1\r\nHost: x\r\n\r\n".repeat(3000);
        let _ = greedy.write_all(many.as_bytes()).await;
        let (status, _) = tokio::time::timeout(Duration::from_secs(10), get(addr, "/style.css"))
            .await
            .expect("the only slot is freed");
        assert_eq!(status, 200);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_silent_connection_is_closed_after_the_idle_time_and_frees_its_slot() {
        let addr = start(|s| {
            s.max_connections = 1;
            s.idle_timeout = Duration::from_millis(300);
        })
        .await;
        let started = Instant::now();
        let mut silent = TcpStream::connect(addr).await.expect("connect");
        let mut buf = [0u8; 16];
        let n = tokio::time::timeout(Duration::from_secs(10), silent.read(&mut buf))
            .await
            .expect("closed before 10 s")
            .unwrap_or(0);
        assert_eq!(n, 0, "the server closes the connection");
        assert!(started.elapsed() >= Duration::from_millis(250));
        // The only slot is free again.
        let (status, body) = tokio::time::timeout(
            Duration::from_secs(10),
            get(addr, "/standard?fen=8/8/8/8/8/8/8/K1k5_w_-_-_0_1"),
        )
        .await
        .expect("served");
        assert_eq!(status, 200, "{body}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_analysis_whose_client_left_gives_its_slot_back() {
        let addr = start(|s| {
            s.job_slots = 1;
            s.queue_wait = Duration::from_secs(3);
            s.analyse_time = (10.0, 10.0);
        })
        .await;
        // A ten-second search, abandoned after 300 ms.
        let mut s = TcpStream::connect(addr).await.expect("connect");
        let req = "GET /analyse?fen=r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R_w_KQkq_-_2_3&time=10 HTTP/1.1\r\nHost: x\r\n\r\n";
        s.write_all(req.as_bytes()).await.expect("write");
        tokio::time::sleep(Duration::from_millis(300)).await;
        drop(s);
        // The one slot comes free long before the first search's 10 s and the queue's 3 s.
        let started = Instant::now();
        let (status, body) = get(
            addr,
            "/analyse?fen=6k1/5ppp/8/8/8/8/8/R5K1_w_-_-_0_1&time=0.2",
        )
        .await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("\"bestmove\":\"a1a8\""), "{body}");
        assert!(started.elapsed() < Duration::from_secs(3));
    }
}
