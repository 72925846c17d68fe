//! The HTTP server: routes, the bounded pool of legality and analysis jobs, the cap on
//! connections, request logging and shutdown.

use std::{
    future::Future,
    io,
    net::SocketAddr,
    pin::Pin,
    sync::{Arc, Mutex},
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
use serde::Serialize;
use shakmaty::{san::SanPlus, uci::UciMove, CastlingMode, Chess, Position};
use tokio::{
    io::{AsyncRead, AsyncWrite, ReadBuf},
    net::{TcpListener, TcpStream},
    sync::{OwnedSemaphorePermit, Semaphore},
};

use retro_engine::{
    eval::Evaluator,
    search::{search, SearchControl, SearchParams},
    HeuristicsPool, Score, SearchInfo, SearchLimits, TranspositionTable,
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
}

impl Settings {
    /// The defaults around `explorer`: 256 connections, one job slot per core but one (at
    /// least one), legality 5 s by default and 30 s at most, analysis 1 s and 10 s, 16 MB hash.
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
        }
    }
}

/// What the handlers share.
struct AppState {
    settings: Settings,
    jobs: Arc<Semaphore>,
}

/// The routes of the server over `settings`.
pub fn router(settings: Settings) -> Router {
    let jobs = Arc::new(Semaphore::new(settings.job_slots.max(1)));
    let state = Arc::new(AppState { settings, jobs });
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
    let capped = CappedListener {
        slots: Arc::new(Semaphore::new(settings.max_connections.max(1))),
        inner: listener,
    };
    axum::serve(capped, router(settings))
        .with_graceful_shutdown(shutdown)
        .await
}

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
    let explorer = s.settings.explorer.clone();
    let line = tokio::task::spawn_blocking(move || explorer.mainline(&pos))
        .await
        .map_err(|_| ApiError::Internal)??;
    Ok(Json(line).into_response())
}

/// Takes a job slot, waiting at most the queue time.
async fn slot(s: &AppState) -> Result<OwnedSemaphorePermit, ApiError> {
    match tokio::time::timeout(s.settings.queue_wait, s.jobs.clone().acquire_owned()).await {
        Ok(Ok(permit)) => Ok(permit),
        _ => Err(ApiError::Busy),
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
    let permit = slot(&s).await?;
    let answer = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        legal_answer(fen, &raw, time)
    })
    .await
    .map_err(|_| ApiError::Internal)?;
    Ok(Json(answer).into_response())
}

/// The legality analysis of `raw` within `time`.
fn legal_answer(fen: String, raw: &RawPosition, time: Duration) -> LegalJson {
    let started = Instant::now();
    let limits = Limits {
        max_nodes: LEGAL_MAX_NODES,
        deadline: Some(started + time),
        proof_nodes: LEGAL_MAX_NODES,
        cancel: None,
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
    let permit = slot(&s).await?;
    let settings = s.settings.clone();
    let answer = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        analyse_answer(&settings, pos, time)
    })
    .await
    .map_err(|_| ApiError::Internal)??;
    Ok(Json(answer).into_response())
}

/// A one-thread search of `pos` for `time`, with the tables.
fn analyse_answer(
    settings: &Settings,
    pos: Chess,
    time: Duration,
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
    let last: Mutex<Option<SearchInfo>> = Mutex::new(None);
    let control = SearchControl::new(false);
    let tables = settings.explorer.tables().map(|t| t.as_ref());
    let result = search(
        &params,
        &tt,
        &HeuristicsPool::new(),
        tables,
        &control,
        &|info: SearchInfo| {
            if info.multipv == 1 {
                if let Ok(mut l) = last.lock() {
                    *l = Some(info);
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
}

/// A connection holding its slot until it is dropped.
struct CappedStream {
    stream: TcpStream,
    _slot: Option<OwnedSemaphorePermit>,
}

impl axum::serve::Listener for CappedListener {
    type Io = CappedStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (CappedStream, SocketAddr) {
        // The semaphore is never closed, so a slot always comes.
        let slot = self.slots.clone().acquire_owned().await.ok();
        loop {
            match self.inner.accept().await {
                Ok((stream, addr)) => {
                    if let Err(e) = stream.set_nodelay(true) {
                        log::debug!("TCP_NODELAY on {addr}: {e}");
                    }
                    return (
                        CappedStream {
                            stream,
                            _slot: slot,
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

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
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
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for CappedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}
