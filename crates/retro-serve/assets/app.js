// Retro explorer: the page of `retro serve`. Plain script, no libraries: the board is drawn
// with CSS squares and Unicode chess symbols; the server does the chess (moves come with the
// FEN after them), this page only edits a board and shows what the API answers.
"use strict";

const START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const GLYPH = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
const TEXT = "\uFE0E"; // text presentation, never an emoji
const FILES = "abcdefgh";
const RESULT = {
  win: "win", "cursed-win": "cursed win", "syzygy-win": "win or 50-move draw", draw: "draw",
  "blessed-loss": "blessed loss", "syzygy-loss": "loss or 50-move draw", loss: "loss",
  unknown: "unknown",
};
const FLIP = {
  win: "loss", "cursed-win": "blessed-loss", "syzygy-win": "syzygy-loss", draw: "draw",
  "blessed-loss": "cursed-win", "syzygy-loss": "syzygy-win", loss: "win", unknown: "unknown",
};

// The position shown: board[rank][file] with rank 0 the eighth rank, a piece letter or "".
const state = {
  board: [], turn: "w", castling: "", ep: "-", halfmoves: 0, fullmoves: 1,
  flipped: false, history: [], at: -1, lastMove: null, proof: null, request: 0,
  jobs: null, // an AbortController for the analysis and legality requests of this position
};

const $ = (id) => document.getElementById(id);

function parseFen(fen) {
  const parts = fen.trim().split(/\s+/);
  const rows = (parts[0] || "").split("/");
  if (rows.length !== 8) throw new Error("a FEN has 8 ranks separated by /");
  const board = rows.map((row) => {
    const out = [];
    for (const c of row) {
      if (/[1-8]/.test(c)) for (let i = 0; i < +c; i++) out.push("");
      else if (/[kqrbnpKQRBNP]/.test(c)) out.push(c);
      else throw new Error("unexpected character " + c + " in the board");
    }
    if (out.length !== 8) throw new Error("a rank of the FEN does not have 8 squares");
    return out;
  });
  return {
    board, turn: parts[1] === "b" ? "b" : "w",
    castling: parts[2] && parts[2] !== "-" ? parts[2] : "", ep: parts[3] || "-",
    halfmoves: parseInt(parts[4] || "0", 10) || 0, fullmoves: parseInt(parts[5] || "1", 10) || 1,
  };
}

function boardFen(board) {
  return board.map((row) => {
    let s = "", empty = 0;
    for (const p of row) {
      if (p) { if (empty) s += empty; empty = 0; s += p; } else empty++;
    }
    return empty ? s + empty : s;
  }).join("/");
}

function fen() {
  return [boardFen(state.board), state.turn, state.castling || "-", state.ep,
    state.halfmoves, state.fullmoves].join(" ");
}

// Shows `f` and looks it up; `push` adds it to the back/forward history and the URL.
function setFen(f, push = true, lastMove = null) {
  let p;
  try { p = parseFen(f); } catch (e) { showError("invalid FEN: " + e.message); return; }
  Object.assign(state, p);
  state.lastMove = lastMove;
  if (push) {
    state.history = state.history.slice(0, state.at + 1);
    state.history.push(fen());
    state.at = state.history.length - 1;
  }
  const url = "?fen=" + encodeURIComponent(fen()).replace(/%20/g, "_").replace(/%2F/g, "/");
  history.replaceState(null, "", url);
  render();
  lookup();
}

// After an edit of the board (a drag, a button): the clocks start again.
function edited() {
  state.ep = "-"; state.halfmoves = 0; state.fullmoves = 1;
  state.castling = state.castling.split("").filter(castlingPossible).join("");
  setFen(fen(), true);
}

function castlingPossible(c) {
  const b = state.board;
  const white = c === c.toUpperCase();
  const rank = white ? 7 : 0, king = white ? "K" : "k", rook = white ? "R" : "r";
  const file = c.toLowerCase() === "k" ? 7 : 0;
  return b[rank][4] === king && b[rank][file] === rook;
}

function squareName(r, f) { return FILES[f] + (8 - r); }

function render() {
  const el = $("board");
  el.innerHTML = "";
  for (let i = 0; i < 64; i++) {
    const r = state.flipped ? 7 - Math.floor(i / 8) : Math.floor(i / 8);
    const f = state.flipped ? 7 - (i % 8) : i % 8;
    const sq = document.createElement("div");
    sq.className = "sq " + ((r + f) % 2 ? "dark" : "light");
    sq.dataset.square = squareName(r, f);
    sq.dataset.r = r; sq.dataset.f = f;
    if (state.lastMove && (state.lastMove.slice(0, 2) === sq.dataset.square
      || state.lastMove.slice(2, 4) === sq.dataset.square)) sq.classList.add("to");
    const p = state.board[r][f];
    if (p) sq.appendChild(pieceEl(p, { r, f }));
    if (i % 8 === 0) sq.appendChild(coord("rank", 8 - r));
    if (i >= 56) sq.appendChild(coord("file", FILES[f]));
    el.appendChild(sq);
  }
  $("fen").value = fen();
  $("white-to-move").classList.toggle("on", state.turn === "w");
  $("black-to-move").classList.toggle("on", state.turn === "b");
  for (const c of "KQkq") $("castle-" + c).checked = state.castling.includes(c);
  $("back").disabled = state.at <= 0;
  $("forward").disabled = state.at >= state.history.length - 1;
}

function coord(kind, text) {
  const s = document.createElement("span");
  s.className = "coord " + kind; s.textContent = text;
  return s;
}

function pieceEl(p, from) {
  const s = document.createElement("span");
  s.className = "piece " + (p === p.toUpperCase() ? "w" : "b");
  s.textContent = GLYPH[p.toLowerCase()] + TEXT;
  s.dataset.piece = p;
  s.addEventListener("pointerdown", (ev) => startDrag(ev, p, from));
  return s;
}

function buildPalettes() {
  for (const [id, letters] of [["palette-white", "KQRBNP"], ["palette-black", "kqrbnp"]]) {
    const el = $(id);
    for (const p of letters) el.appendChild(pieceEl(p, null));
  }
}

// Dragging with pointer events: a piece from the board (moved, or removed when dropped off the
// board) or from a palette (added).
function startDrag(ev, p, from) {
  ev.preventDefault();
  const source = ev.currentTarget;
  source.setPointerCapture(ev.pointerId);
  const ghost = pieceEl(p, null);
  ghost.classList.add("dragging");
  document.body.appendChild(ghost);
  const move = (e) => { ghost.style.left = e.clientX + "px"; ghost.style.top = e.clientY + "px"; };
  move(ev);
  const end = () => {
    source.removeEventListener("pointermove", move);
    source.removeEventListener("pointerup", up);
    source.removeEventListener("pointercancel", end);
    ghost.remove();
  };
  const up = (e) => {
    end();
    const target = document.elementsFromPoint(e.clientX, e.clientY).find((x) => x.classList.contains("sq"));
    if (from) state.board[from.r][from.f] = "";
    if (target) state.board[+target.dataset.r][+target.dataset.f] = p;
    if (from || target) edited();
  };
  source.addEventListener("pointermove", move);
  source.addEventListener("pointerup", up);
  source.addEventListener("pointercancel", end);
}

function showError(text) {
  const s = $("status");
  s.className = "error"; s.textContent = text;
  $("moves").querySelector("tbody").innerHTML = "";
}

function describe(info, turn) {
  const side = turn === "w" ? "White" : "Black";
  if (info.checkmate) return side + " is checkmated";
  if (info.stalemate) return side + " is stalemated";
  if (info.insufficient_material) return "draw: insufficient material";
  const cat = info.category;
  let text = side + " to move: " + RESULT[cat];
  if (info.dtm !== null && info.dtm !== 0) {
    const n = Math.abs(info.dtm);
    text += info.dtm > 0 ? ", mates in " + n + " plies" : ", mated in " + n + " plies";
  }
  if (info.dtz !== null && info.dtz !== 0) text += ", DTZ50 " + Math.abs(info.dtz);
  return text;
}

// Fetches JSON; a failure (no server, an aborted request) is an answer with an error.
async function getJson(url, signal) {
  let res;
  try { res = await fetch(url, { signal }); } catch (e) {
    return { ok: false, aborted: e.name === "AbortError", body: { error: "no answer from the server" } };
  }
  let body;
  try { body = await res.json(); } catch (e) { body = { error: "bad answer from the server" }; }
  return { ok: res.ok, body };
}

// Asks /standard for the position and fills the status and the move list.
async function lookup() {
  const id = ++state.request;
  const f = fen();
  if (state.jobs) state.jobs.abort(); // the server stops the searches of the last position
  state.jobs = new AbortController();
  $("engine").hidden = true;
  $("legal-out").textContent = "";
  $("proof").hidden = true;
  const { ok, body } = await getJson("/standard?fen=" + encodeURIComponent(f));
  if (id !== state.request) return;
  if (!ok) { showError(body.error || "error"); return; }
  const s = $("status");
  s.className = body.category;
  s.textContent = describe(body, state.turn);
  const tbody = $("moves").querySelector("tbody");
  tbody.innerHTML = "";
  for (const m of body.moves) {
    const mine = FLIP[m.category];
    const tr = document.createElement("tr");
    tr.className = mine;
    tr.dataset.uci = m.uci;
    const dtm = m.checkmate ? "#" : m.dtm === null ? "" : String(Math.abs(m.dtm));
    const dtz = m.checkmate ? "" : m.dtz === null ? "" : String(Math.abs(m.dtz));
    const result = m.stalemate ? "stalemate" : m.insufficient_material ? "insufficient material" : RESULT[mine];
    for (const text of [m.san, result, dtm, dtz]) {
      const td = document.createElement("td"); td.textContent = text; tr.appendChild(td);
    }
    tr.addEventListener("click", () => setFen(m.fen, true, m.uci));
    tbody.appendChild(tr);
  }
  grade(tbody, body.moves);
  // Beyond the tables every row would say "unknown": the engine's panel comes first and the
  // list is left out.
  const beyond = body.moves.length > 0 && body.moves.every((m) => m.category === "unknown");
  $("moves").hidden = beyond;
  $("beyond").hidden = !beyond;
  $("beyond").textContent = beyond
    ? "No table covers the moves of this position (" + body.moves.length + " legal moves): the engine's view above."
    : "";
  // The engine's own answer: its line where the tables end (first, above the list), and in
  // the tables the move it plays under the 50-move rule with the whole table line (after the
  // list, which it agrees with).
  const engine = $("engine");
  if (beyond) $("beyond").before(engine); else $("moves").after(engine);
  if (body.moves.length > 0) analyse(f, id);
}

// Grades the winning and losing rows as lichess does: the faster a win, the deeper its green;
// the faster a loss, the deeper its red (the longest resistance is the palest).
function grade(tbody, moves) {
  const distance = (m) => Math.abs(m.dtm !== null ? m.dtm : m.dtz !== null ? m.dtz : 0);
  const rows = [...tbody.children];
  for (const [cat, hue] of [["win", 100], ["loss", 4]]) {
    const ds = moves.filter((m) => FLIP[m.category] === cat).map(distance);
    if (ds.length === 0) continue;
    // Graded by rank among the distinct distances, so that near distances still differ.
    const steps = [...new Set(ds)].sort((a, b) => a - b);
    moves.forEach((m, i) => {
      if (FLIP[m.category] !== cat) return;
      const t = steps.length > 1 ? steps.indexOf(distance(m)) / (steps.length - 1) : 0;
      const lightness = 58 + Math.round(30 * t);
      rows[i].firstChild.style.background = "hsl(" + hue + ", 50%, " + lightness + "%)";
      rows[i].dataset.shade = String(lightness);
    });
  }
}

// The engine's answer for the position (/analyse): the move it plays and its line.
async function analyse(f, id) {
  const out = $("engine-out");
  $("engine").hidden = false;
  out.textContent = "thinking...";
  const { ok, body } = await getJson("/analyse?fen=" + encodeURIComponent(f) + "&time=1", state.jobs.signal);
  if (id !== state.request) return;
  if (!ok) { out.textContent = body.error || "error"; return; }
  const score = "mate" in body.score
    ? "mate in " + body.score.mate
    : (body.score.cp >= 0 ? "+" : "") + (body.score.cp / 100).toFixed(2);
  out.textContent = "plays " + (body.pv_san[0] || "-") + ", " + score + " (depth " + body.depth +
    ", side to move's view): " + body.pv_san.join(" ");
}

async function checkLegal() {
  const f = fen();
  const out = $("legal-out");
  out.textContent = "analysing (up to 5 s)...";
  $("proof").hidden = true;
  const { ok, body, aborted } = await getJson("/legal?fen=" + encodeURIComponent(f) + "&time=5", state.jobs.signal);
  if (aborted || f !== fen()) { if (f !== fen()) out.textContent = ""; return; }
  if (!ok) { out.textContent = body.error || "error"; return; }
  out.innerHTML = "";
  const v = document.createElement("span");
  v.className = "verdict-" + body.verdict; v.textContent = body.verdict;
  out.append(v, ": " + body.reason);
  if (body.proof && body.proof.plies > 0) {
    state.proof = { game: body.proof, at: body.proof.plies, home: f };
    const ol = $("proof-moves");
    ol.innerHTML = "";
    body.proof.san.forEach((san, i) => {
      const li = document.createElement("li");
      li.textContent = (i % 2 === 0 ? Math.floor(i / 2) + 1 + ". " : "") + san;
      li.addEventListener("click", () => proofStep(i + 1));
      ol.appendChild(li);
    });
    $("proof").hidden = false;
    proofStep(0);
  }
}

// Shows the proof game after `ply` plies on the board (without looking it up).
function proofStep(ply) {
  const p = state.proof;
  if (!p) return;
  p.at = Math.max(0, Math.min(p.game.plies, ply));
  Object.assign(state, parseFen(p.game.fens[p.at]));
  state.lastMove = p.at > 0 ? p.game.uci[p.at - 1] : null;
  render();
  const s = $("status");
  s.className = "";
  s.textContent = "proof game, ply " + p.at + " of " + p.game.plies + " (the move list is the position's)";
  $("proof-ply").textContent = "ply " + p.at + " of " + p.game.plies;
  [...$("proof-moves").children].forEach((li, i) => li.classList.toggle("current", i === p.at - 1));
}

function go(delta) {
  const to = state.at + delta;
  if (to < 0 || to >= state.history.length) return;
  state.at = to;
  setFen(state.history[to], false);
}

function init() {
  buildPalettes();
  $("back").addEventListener("click", () => go(-1));
  $("forward").addEventListener("click", () => go(1));
  $("flip").addEventListener("click", () => { state.flipped = !state.flipped; render(); });
  $("start").addEventListener("click", () => setFen(START));
  $("clear").addEventListener("click", () => {
    state.board = state.board.map((row) => row.map(() => "")); edited();
  });
  $("white-to-move").addEventListener("click", () => { state.turn = "w"; state.ep = "-"; setFen(fen()); });
  $("black-to-move").addEventListener("click", () => { state.turn = "b"; state.ep = "-"; setFen(fen()); });
  for (const c of "KQkq") {
    $("castle-" + c).addEventListener("change", (e) => {
      const set = new Set(state.castling.split("").filter(Boolean));
      if (e.target.checked) set.add(c); else set.delete(c);
      state.castling = "KQkq".split("").filter((x) => set.has(x)).join("");
      setFen(fen());
    });
  }
  $("fen-form").addEventListener("submit", (e) => { e.preventDefault(); setFen($("fen").value.replace(/_/g, " ")); });
  $("check-legal").addEventListener("click", checkLegal);
  $("proof-first").addEventListener("click", () => proofStep(0));
  $("proof-prev").addEventListener("click", () => proofStep(state.proof.at - 1));
  $("proof-next").addEventListener("click", () => proofStep(state.proof.at + 1));
  $("proof-last").addEventListener("click", () => proofStep(state.proof.game.plies));
  $("proof-done").addEventListener("click", () => { $("proof").hidden = true; setFen(state.proof.home, false); });
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT") return;
    if (e.key === "ArrowLeft") go(-1);
    if (e.key === "ArrowRight") go(1);
  });
  const given = new URLSearchParams(location.search).get("fen");
  setFen(given ? given.replace(/_/g, " ") : START);
}

init();
