#!/usr/bin/env python3
"""Soak test of Retro as a UCI engine: many fast games against Debian's engines, through
python-chess's chess.engine (a real UCI client), with Retro's settings varied, counting every
fault. Not part of the test suite.

    scripts/soak.py --engine /work/data/bin/retro-960 --tables /work/data/tables \\
        --games 1000 --tc 1+0.01 --seed 1 --pgn soak.pgn

What it does:

- The games are split into equal blocks, one per configuration of Retro: by default four,
  Threads 1 and 2 times MultiPV 1 and 3 (--configs 1x1,1x3,2x1,2x3, THREADSxMULTIPV). One Retro
  process plays a whole block (it is restarted only when the configuration changes, or after
  it crashed or stalled). Retro runs in a scratch directory
  holding an engine.toml with `table_path = TABLES` and `build_missing_tables = false`, started
  as `ENGINE --config DIR/engine.toml`; Move Overhead stays at its default.
- Before every game Retro's Hash is set with `setoption` to the next of 1, 16, 64, 256 MB (the
  cycle is shifted every four games so that each size meets both colours), so the table is
  resized in the same process between games. Then `ucinewgame` and `isready` are sent and
  `readyok` awaited, outside the clocks (as a GUI does before a game).
- Games are played one at a time. Game k uses opening pair k // 2 (drawn from the EPD book
  with the seed) and opponent (k // 2) mod N, Retro white in even games: each opening is
  played twice against the same opponent with colours swapped, and the opponents rotate.
- Default opponents (each at Hash 16, one thread, own book off): Stockfish 15.1 with
  UCI_LimitStrength=true and UCI_Elo=2200 (full strength would win nearly every game; its
  weakening picks among several moves, so games vary), Ethereal 12, Toga II 3.0, Glaurung 2.2,
  GNU Chess 6 (`gnuchess --uci`). Fairy-Max is not used: it speaks only xboard and does not
  declare `setboard`, which python-chess requires to start from a book position.
- The clocks are kept here: the wall time of each `play` call (python-chess's `position`/`go`
  round trip, measured with time.monotonic) is taken off the mover's clock and the increment
  is added after the move. A clock below 0 when the move comes back is a time loss, with no
  allowance: the time charged includes python-chess's own overhead, which is measured for every
  Retro move (the wall time of `play` minus the time from writing `go` to reading `bestmove`,
  both taken in python-chess's I/O thread) and reported. Each time loss says how long the
  engine took from `go` to `bestmove`, how long python-chess took before `go` and after
  `bestmove`, how much CPU the process used meanwhile (/proc/PID/stat, all threads, 10 ms
  ticks) and the machine's load, so that a flag fall from a starved process or a slow harness
  can be told from one of the engine's time management; the summary splits Retro's time losses
  into engine-side (go-to-bestmove alone exceeded the clock) and harness-side, and lists the
  wall and CPU time of Retro's moves over 200 ms.
- Games end on checkmate, stalemate, insufficient material, the 75-move rule or fivefold
  repetition, and on draws that can be claimed (50 moves, threefold), i.e. python-chess's
  `is_game_over(claim_draw=True)`; after 200 full moves they are adjudicated drawn. Nobody
  resigns.

Faults, counted for Retro and, separately, for the opponents:

- time: the mover's clock is below 0 when its `bestmove` arrives;
- illegal: `bestmove` with an illegal or unparseable move, `bestmove (none)` / `0000` in a
  position with legal moves, or a move written otherwise than UCI's standard notation;
- crash: the process ended (EOF on its output) during a game or between games, or exited with
  a code other than 0 after `quit`;
- stall: no `bestmove` within the mover's clock plus --grace seconds (the process is then
  killed), or no `readyok` within 10 s;
- protocol: an output line that does not parse as UCI (unknown command, unknown or malformed
  `info` field), anything python-chess logs as a warning or error (unexpected output, an
  unparseable `info` field, an illegal move in a `pv`, a bad ponder move), a line on stderr,
  and an `info string` that reports an error (cannot / refused / failed / error / invalid /
  unknown / ignored / keeping the current table / using 1 MB ...). Retro's lines are checked
  from its start; an opponent's from its first game (Toga prints banners before `uci`).

Retro's `info` lines are parsed with python-chess's INFO_ALL (so every `pv` is checked for
legality). Every fault writes the UCI traffic of the culprit's game (python-chess's debug log,
with monotonic times) to --fault-dir; --uci-log writes all the traffic of the run.

Retro's resident memory: VmRSS from /proc/PID/status after the first game of each block
(start) and after its last game (end), and VmHWM (peak) at the end; also VmRSS, split into
RssAnon (heap: the hash table and the rest) and RssFile (the mapped tables), after the first
and the last game played at each Hash size.

Progress goes to stderr, one line per game; the summary table to stdout. Exit status 1 if
Retro had any fault, 0 otherwise.
"""

import argparse
import asyncio
import dataclasses
import logging
import os
import random
import re
import shlex
import signal
import statistics
import sys
import tempfile
import threading
import time

import chess
import chess.engine
import chess.pgn

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))

HASH_CYCLE = [1, 16, 64, 256]
KINDS = ["time", "illegal", "crash", "stall", "protocol"]
DEFAULT_OPPONENTS = [
    "/usr/games/stockfish,Hash=16,Threads=1,UCI_LimitStrength=true,UCI_Elo=2200",
    "/usr/games/ethereal-chess,Hash=16,Threads=1",
    "/usr/games/toga2,Hash=16,OwnBook=false",
    "/usr/games/glaurung,Hash=16,Threads=1,OwnBook=false",
    "/usr/games/gnuchess --uci,Hash=16,OwnBook=false",
]
MAX_PLIES = 400  # 200 full moves, then a draw
READY_TIMEOUT = 10.0

UCI_COMMANDS = {"id", "option", "uciok", "readyok", "bestmove", "info", "copyprotection", "registration"}
INT_FIELDS = {"depth", "seldepth", "time", "nodes", "multipv", "currmovenumber", "hashfull", "nps",
              "tbhits", "sbhits", "cpuload"}
MOVE_RE = re.compile(r"^([a-h][1-8][a-h][1-8][qrbn]?|0000)$")
INT_RE = re.compile(r"^-?\d+$")
ERROR_STRING_RE = re.compile(
    r"error|panic|fail|invalid|unknown|cannot|can't|could not|refused|illegal|not legal|"
    r"ignored|keeping the current|using 1 MB|stopping it|before position|missing|not used|"
    r"try again|warning|unsupported|not supported", re.I)
STDERR_BENIGN_RE = re.compile(r"^$")


def parse_tc(tc):
    base, _, inc = tc.partition("+")
    return float(base), float(inc or 0)


def read_book(path):
    fens = []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 4:
                fens.append(" ".join(fields[:4]) + " 0 1")
    if not fens:
        raise SystemExit(f"{path}: no positions")
    return fens


TICK = os.sysconf("SC_CLK_TCK")


def cpu_stat(pid):
    """The CPU seconds (user + system, all threads, dead ones included; in clock ticks) and
    the major page faults of a process so far, from /proc/PID/stat (None when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # Fields after the command: state is field 3, majflt 12, utime 14, stime 15.
    return (int(fields[11]) + int(fields[12])) / TICK, int(fields[9])


def machine_load():
    """The load average and the number of runnable tasks now."""
    try:
        with open("/proc/loadavg") as f:
            la = f.read().split()
        return f"load {la[0]}, runnable {la[3].split('/')[0]}"
    except OSError:
        return "load ?"


def proc_status(pid):
    """VmRSS and VmHWM of a process in MB, and VmRSS split into RssAnon (heap: the hash table
    and the rest) and RssFile (mapped files: the tables); None when it is gone."""
    out = {"VmRSS": None, "VmHWM": None, "RssAnon": None, "RssFile": None}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in out:
                    out[key] = int(value.split()[0]) / 1024
    except OSError:
        pass
    return out["VmRSS"], out["VmHWM"], (out["RssAnon"], out["RssFile"])


def check_info(rest):
    """Checks the fields of an `info` line (after `info`): None or what is wrong. Returns
    (problem, string) where string is the text of `info string`, if any."""
    toks = rest.split()
    i = 0
    while i < len(toks):
        t = toks[i]
        if t == "string":
            return None, " ".join(toks[i + 1:])
        if t in INT_FIELDS:
            if i + 1 >= len(toks) or not INT_RE.match(toks[i + 1]):
                return f"info field {t} without an integer", None
            i += 2
        elif t == "score":
            if i + 2 >= len(toks) or toks[i + 1] not in ("cp", "mate") or not INT_RE.match(toks[i + 2]):
                return "malformed score", None
            i += 3
            if i < len(toks) and toks[i] in ("lowerbound", "upperbound"):
                i += 1
        elif t == "wdl":
            if i + 3 >= len(toks) or not all(INT_RE.match(x) for x in toks[i + 1:i + 4]):
                return "malformed wdl", None
            i += 4
        elif t == "currmove":
            if i + 1 >= len(toks) or not MOVE_RE.match(toks[i + 1]):
                return "malformed currmove", None
            i += 2
        elif t in ("pv", "refutation", "currline"):
            i += 1
            if t == "currline" and i < len(toks) and INT_RE.match(toks[i]):
                i += 1
            start = i
            while i < len(toks) and MOVE_RE.match(toks[i]):
                i += 1
            if t == "pv" and i == start:
                return "empty pv", None
        else:
            return f"unknown info field {t!r}", None
    return None, None


class Monitor:
    """The UCI traffic of one engine process, as python-chess logs it, and the protocol
    problems found in it."""

    def __init__(self, pid):
        self.pid = pid
        self.name = f"pid {pid}"
        self.judge = False  # check the lines (an opponent's from its first game on)
        self.lines = []  # this game's traffic: (monotonic time, direction, text)
        self.issues = []  # protocol problems not yet collected
        self.info_strings = {}  # text (digits masked) -> count
        self.go_time = None
        self.bestmove_time = None
        self.bestmove_line = None
        self.max_multipv = 0

    def reset_game(self):
        self.lines = []

    def begin_move(self):
        self.go_time = None
        self.bestmove_time = None
        self.bestmove_line = None
        self.max_multipv = 0

    def feed(self, now, direction, text):
        self.lines.append((now, direction, text))
        if direction == "<<":  # to the engine
            if text.startswith("go"):
                self.go_time = now
            return
        if direction == "!!":  # python-chess's warnings and errors
            if self.judge:
                # A line already counted as unparseable is not counted again.
                m = re.search(r"Unexpected engine output: (.*)$", text)
                if not (m and self.issues and self.issues[-1] == f"unparseable line: {m.group(1)}"):
                    self.issues.append(f"python-chess: {text}")
            return
        if direction != ">>":
            return
        tok, _, rest = text.strip().partition(" ")
        if tok == "bestmove":
            self.bestmove_time = now
            self.bestmove_line = text.strip()
        if not self.judge:
            return
        if tok not in UCI_COMMANDS:
            if text.strip():
                self.issues.append(f"unparseable line: {text!r}")
            return
        if tok == "info":
            problem, string = check_info(rest)
            if problem:
                self.issues.append(f"{problem}: {text!r}")
            if string is not None:
                key = re.sub(r"\d+", "N", string)
                self.info_strings[key] = self.info_strings.get(key, 0) + 1
                if ERROR_STRING_RE.search(string):
                    self.issues.append(f"info string reporting an error: {text!r}")
            m = re.search(r"\bmultipv (\d+)", rest)
            if m:
                self.max_multipv = max(self.max_multipv, int(m.group(1)))

    def take_issues(self):
        issues, self.issues = self.issues, []
        return issues

    def dump(self, path, header):
        with open(path, "w") as f:
            f.write(header + "\n")
            t0 = self.lines[0][0] if self.lines else 0
            for t, d, text in self.lines:
                f.write(f"{t - t0:10.4f} {d} {text}\n")


class Traffic(logging.Handler):
    """Routes python-chess's log records to the monitor of the engine process they are
    about (python-chess names each engine's I/O thread `SimpleEngine (pid=N)`)."""

    def __init__(self, log_path=None):
        super().__init__(logging.DEBUG)
        self.monitors = {}
        self.file = open(log_path, "w") if log_path else None

    def monitor(self, pid):
        m = self.monitors.get(pid)
        if m is None:
            m = self.monitors[pid] = Monitor(pid)
        return m

    def emit(self, record):
        now = time.monotonic()
        m = re.search(r"\(pid=(\d+)\)", record.threadName or "")
        if m is None:
            m = re.search(r"\(pid=(\d+)\)", record.getMessage())
        msg = record.msg
        if msg == "%s: << %s":
            direction, text = "<<", str(record.args[1])
        elif msg == "%s: >> %s":
            direction, text = ">>", str(record.args[1])
        elif record.levelno >= logging.WARNING:
            direction, text = "!!", record.getMessage()
            if record.exc_info and record.exc_info[1] is not None:
                text += f" ({record.exc_info[1]!r})"
        else:
            direction, text = "..", record.getMessage()
        if self.file:
            self.file.write(f"{now:.4f} {m.group(1) if m else '?'} {direction} {text}\n")
        if m is not None:
            self.monitor(int(m.group(1))).feed(now, direction, text)
        elif direction == "!!":
            # Not attributable to an engine: kept on a pseudo-monitor, reported as a note.
            self.monitor(0).feed(now, direction, text)


class Spec:
    """An engine to start: `COMMAND[,NAME=VALUE...]`, as scripts/match.py takes them."""

    def __init__(self, text):
        parts = text.split(",")
        self.command = shlex.split(parts[0])
        if os.sep in self.command[0]:
            self.command[0] = os.path.abspath(self.command[0])
        self.options = {}
        for item in parts[1:]:
            name, eq, value = item.partition("=")
            if not eq:
                raise SystemExit(f"engine option {item!r} is not NAME=VALUE")
            self.options[name.strip()] = value.strip()
        self.name = os.path.basename(self.command[0])
        if "UCI_Elo" in self.options and self.options.get("UCI_LimitStrength", "").lower() == "true":
            self.name += f" (Elo {self.options['UCI_Elo']})"

    def typed_options(self, engine):
        opts = {}
        for k, v in self.options.items():
            opt = engine.options.get(k)
            if opt is None:
                raise SystemExit(f"{self.name}: no UCI option {k!r}")
            if opt.type == "check":
                opts[k] = v.lower() in ("true", "1", "yes")
            elif opt.type == "spin":
                opts[k] = int(v)
            else:
                opts[k] = v
        return opts


class Player:
    """A running engine: its SimpleEngine, pid and monitor."""

    def __init__(self, name, command, cwd, traffic, judge_from_start):
        self.name = name
        self.engine = chess.engine.SimpleEngine.popen_uci(command, cwd=cwd, timeout=READY_TIMEOUT)
        self.pid = self.engine.protocol.transport.get_pid()
        self.monitor = traffic.monitor(self.pid)
        self.monitor.name = name
        self.monitor.judge = judge_from_start
        self.killed = False
        self.multipv = 1

    def set_multipv(self, n):
        """python-chess manages MultiPV and resets it to the option's default before every
        `play`; so the default it knows is made `n`, and `setoption MultiPV` is sent before
        the next game."""
        self.multipv = n

        async def patch():
            p = self.engine.protocol
            p.options["MultiPV"] = dataclasses.replace(p.options["MultiPV"], default=n)

        asyncio.run_coroutine_threadsafe(patch(), self.engine.protocol.loop).result()

    def new_game(self, key):
        """`ucinewgame` and `isready`/`readyok` before the clocks start; `play` then goes
        straight to `position` and `go` for game `key`."""

        async def start():
            p = self.engine.protocol
            # The options `play` would otherwise send just before the first `position`.
            if "UCI_AnalyseMode" in p.options and "UCI_AnalyseMode" not in p.target_config:
                p._setoption("UCI_AnalyseMode", False)
            if "Ponder" in p.options:
                p._setoption("Ponder", False)
            if "MultiPV" in p.options:
                p._setoption("MultiPV", self.multipv)
            p._ucinewgame()
            p.game = key

        self.monitor.judge = True
        asyncio.run_coroutine_threadsafe(start(), self.engine.protocol.loop).result()
        self.engine.ping()

    def kill(self):
        self.killed = True
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass

    def alive(self):
        return not self.engine.returncode.done()

    def quit(self):
        """Sends `quit` and returns the exit code (None if it had to be killed)."""
        try:
            self.engine.quit()
            return self.engine.returncode.result(timeout=READY_TIMEOUT)
        except Exception:
            self.kill()
            try:
                self.engine.close()
            except Exception:
                pass
            return None


class Block:
    """The tallies of one configuration."""

    def __init__(self, threads, multipv):
        self.threads, self.multipv = threads, multipv
        self.games = 0
        self.wdl = [0, 0, 0]
        self.faults = {k: 0 for k in KINDS}
        self.opp_faults = {k: 0 for k in KINDS}
        self.rss_start = self.rss_end = self.hwm = None
        self.split_start = self.split_end = (None, None)  # (RssAnon, RssFile) MB
        self.time_engine = 0  # time losses where go-to-bestmove alone exceeded the clock
        self.rss_by_hash = {}  # Hash -> [first, last]
        self.restarts = 0
        self.overhead = []  # seconds per Retro move
        self.move_times = []
        self.min_clock = None  # Retro's lowest clock left after a move (before the increment)
        self.short_multipv = 0  # Retro moves with MultiPV > 1 but fewer lines than it could give
        self.retro_moves = 0
        self.slow_moves = []  # Retro's moves over 200 ms: (wall, CPU) seconds
        self.elapsed = 0.0

    def label(self):
        return f"Threads {self.threads} MultiPV {self.multipv}"


def fault_dump(args, game_no, kind, player, header):
    os.makedirs(args.fault_dir, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9]+", "-", player.name).strip("-")
    path = os.path.join(args.fault_dir, f"game{game_no:04d}-{kind}-{safe}.log")
    player.monitor.dump(path, header)
    return path


def play_game(args, game_no, retro, opp, retro_white, fen, tc, block, faults, hash_mb):
    """Plays one game. Returns (result, termination, pgn text, faulty players to restart)."""
    base, inc = tc
    board = chess.Board(fen)
    key = f"soak-{game_no}"
    players = {chess.WHITE: retro if retro_white else opp, chess.BLACK: opp if retro_white else retro}
    clock = {chess.WHITE: base, chess.BLACK: base}
    restart = []
    termination = result = None
    comments = []
    header = f"game {game_no + 1}: {players[chess.WHITE].name} vs {players[chess.BLACK].name}, {fen}, " \
             f"{block.label()} Hash {hash_mb}"

    dumped = {}

    def fault(player, kind, detail):
        is_retro = player is retro
        (block.faults if is_retro else block.opp_faults)[kind] += 1
        # One traffic dump per engine and kind of fault in a game (written again at the end).
        if (id(player), kind) in dumped:
            path = dumped[(id(player), kind)][1]
        else:
            path = fault_dump(args, game_no + 1, kind, player, header + f"\n{kind}: {detail}")
            dumped[(id(player), kind)] = (player, path, kind, detail)
        faults.append({"game": game_no + 1, "config": block.label(), "hash": hash_mb, "engine": player.name,
                       "retro": is_retro, "kind": kind, "detail": detail, "ply": board.ply(),
                       "fen": board.fen(), "log": path})

    # Start both engines' game outside the clocks.
    for p in (retro, opp):
        p.monitor.reset_game()
        try:
            p.new_game(key)
        except chess.engine.EngineTerminatedError as e:
            fault(p, "crash", f"died before the game: {e}")
            restart.append(p)
        except (asyncio.TimeoutError, TimeoutError, chess.engine.EngineError) as e:
            fault(p, "stall", f"no readyok within {READY_TIMEOUT:.0f} s before the game: {e!r}")
            p.kill()
            restart.append(p)
    for p in (retro, opp):
        for issue in p.monitor.take_issues():
            fault(p, "protocol", issue)
    if restart:
        return None, "not played (engine failed before the game)", None, restart

    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result, termination = outcome.result(), outcome.termination.name.lower()
            break
        if board.ply() >= MAX_PLIES:
            result, termination = "1/2-1/2", "adjudicated draw (200 moves)"
            break
        mover = board.turn
        player = players[mover]
        is_retro = player is retro
        limit = chess.engine.Limit(white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
                                   white_inc=inc, black_inc=inc)
        player.monitor.begin_move()
        cpu0 = cpu_stat(player.pid)
        player.killed = False
        deadline = clock[mover] + args.grace
        watchdog = threading.Timer(deadline, player.kill)
        watchdog.daemon = True
        failed = None
        res = None
        t0 = time.monotonic()
        watchdog.start()
        try:
            res = player.engine.play(board, limit, game=key,
                                     info=chess.engine.INFO_ALL if is_retro else chess.engine.INFO_NONE)
        except chess.engine.EngineTerminatedError as e:
            if player.killed:
                failed = ("stall", f"no bestmove within the clock ({clock[mover]:.3f} s) plus {args.grace:.0f} s: killed")
            else:
                failed = ("crash", f"engine died during its move: {e}")
        except chess.engine.EngineError as e:
            text = str(e)
            if "illegal uci" in text or "invalid uci" in text:
                failed = ("illegal", f"bestmove not legal: {text} ({player.monitor.bestmove_line!r})")
            else:
                failed = ("protocol", f"python-chess EngineError: {text}")
        finally:
            watchdog.cancel()
        t1 = time.monotonic()
        used = t1 - t0
        cpu1 = cpu_stat(player.pid)
        cpu_note = ""
        if cpu0 and cpu1:
            cpu_note = (f"; the process used {1000 * (cpu1[0] - cpu0[0]):.0f} ms of CPU in that time "
                        f"({1000 / TICK:.0f} ms ticks), {cpu1[1] - cpu0[1]} major page faults; {machine_load()}")
        if failed is None and player.killed:
            failed = ("stall", f"killed by the watchdog ({clock[mover]:.3f} s clock plus {args.grace:.0f} s)")
        mon = player.monitor
        for issue in mon.take_issues():
            fault(player, "protocol", issue)
        if failed:
            fault(player, *failed)
            restart.append(player)
            termination = f"{player.name}: {failed[0]} ({failed[1]})"
            result = "0-1" if mover == chess.WHITE else "1-0"
            break
        clock[mover] -= used
        if is_retro:
            block.retro_moves += 1
            block.move_times.append(used)
            if used > 0.2 and cpu0 and cpu1:
                block.slow_moves.append((used, cpu1[0] - cpu0[0]))
            if mon.go_time is not None and mon.bestmove_time is not None:
                block.overhead.append(used - (mon.bestmove_time - mon.go_time))
            if block.min_clock is None or clock[mover] < block.min_clock:
                block.min_clock = clock[mover]
            legal = board.legal_moves.count()
            if block.multipv > 1 and mon.max_multipv < min(block.multipv, legal):
                block.short_multipv += 1
        # The bestmove itself: legal, and in standard UCI notation.
        move = res.move
        bad = None
        raw = (mon.bestmove_line or "").split()
        if move is None or not move:
            bad = f"bestmove without a move in a position with legal moves: {mon.bestmove_line!r}"
        elif move not in board.legal_moves:
            bad = f"bestmove {move.uci()} not legal: {mon.bestmove_line!r}"
        elif len(raw) < 2 or raw[1] != board.uci(move):
            bad = f"bestmove not in standard UCI notation (expected {board.uci(move)}): {mon.bestmove_line!r}"
        elif len(raw) not in (2, 4) or (len(raw) == 4 and raw[2] != "ponder"):
            bad = f"malformed bestmove line: {mon.bestmove_line!r}"
        if bad:
            fault(player, "illegal" if "legal" in bad or "without a move" in bad else "protocol", bad)
            restart.append(player)
            termination = f"{player.name}: illegal move ({bad})"
            result = "0-1" if mover == chess.WHITE else "1-0"
            break
        if clock[mover] < 0:
            engine_side = ""
            if mon.go_time is not None and mon.bestmove_time is not None:
                engine = mon.bestmove_time - mon.go_time
                engine_side = (f", go-to-bestmove {1000 * engine:.0f} ms, python-chess "
                               f"{1000 * (mon.go_time - t0):.0f} ms before go and "
                               f"{1000 * (t1 - mon.bestmove_time):.0f} ms after bestmove")
                if is_retro and engine > clock[mover] + used:
                    block.time_engine += 1
            detail = (f"flag fell: move {board.fullmove_number} {board.san(move)} took {1000 * used:.0f} ms "
                      f"with {1000 * (clock[mover] + used):.0f} ms left ({-1000 * clock[mover]:.0f} ms over"
                      f"{engine_side}){cpu_note}")
            fault(player, "time", detail)
            termination = f"{player.name}: time forfeit ({-1000 * clock[mover]:.0f} ms over)"
            result = "0-1" if mover == chess.WHITE else "1-0"
            comments.append(f"{used:.3f}s flag")
            board.push(move)
            break
        clock[mover] += inc
        comments.append(f"{used:.3f}s clk {clock[mover]:.3f}")
        board.push(move)

    # The fault dumps again, now with the whole game's traffic.
    for player, path, kind, detail in dumped.values():
        player.monitor.dump(path, header + f"\n{kind}: {detail}\nresult {result} {termination}")
    game = chess.pgn.Game.from_board(board)
    node = game
    for c in comments:
        node = node.variations[0] if node.variations else node
        node.comment = c
    game.headers["Event"] = "Retro soak"
    game.headers["Site"] = os.uname().nodename
    game.headers["Round"] = str(game_no + 1)
    game.headers["White"] = players[chess.WHITE].name
    game.headers["Black"] = players[chess.BLACK].name
    game.headers["Result"] = result
    game.headers["Termination"] = termination
    game.headers["TimeControl"] = args.tc
    game.headers["RetroConfig"] = f"{block.label()} Hash {hash_mb}"
    game.headers["WhiteClock"] = f"{clock[chess.WHITE]:.3f}"
    game.headers["BlackClock"] = f"{clock[chess.BLACK]:.3f}"
    return result, termination, str(game), restart


def start_retro(args, cwd, traffic, threads, multipv):
    p = Player("Retro", [args.engine, "--config", os.path.join(cwd, "engine.toml")], cwd, traffic, True)
    p.engine.configure({"Threads": threads})
    p.set_multipv(multipv)
    for issue in p.monitor.take_issues():
        raise SystemExit(f"Retro at start: {issue}")
    return p


def start_opponent(spec, cwd, traffic):
    p = Player(spec.name, spec.command, cwd, traffic, False)
    p.engine.configure(spec.typed_options(p.engine))
    return p


def fmt_mb(x):
    return "-" if x is None else f"{x:.0f}"


def summary(blocks, faults, opponents, opp_wdl, started, traffic, args, tc):
    wall = time.monotonic() - started
    out = []
    out.append(f"\nSoak of {args.engine} at {args.tc}, seed {args.seed}: "
               f"{sum(b.games for b in blocks)} games in {wall / 60:.1f} min")
    head = (f"{'configuration':<22} {'games':>5} {'Retro W/D/L':>13} {'score':>6} | "
            f"{'Retro faults t/i/c/s/p':>22} | {'opp. faults t/i/c/s/p':>21} | "
            f"{'RSS MB start/end/peak':>21} {'restarts':>8}")
    out.append(head)
    out.append("-" * len(head))
    tot = Block(0, 0)
    for b in blocks:
        w, d, l = b.wdl
        score = (w + d / 2) / b.games * 100 if b.games else 0
        rf = "/".join(str(b.faults[k]) for k in KINDS)
        of = "/".join(str(b.opp_faults[k]) for k in KINDS)
        rss = f"{fmt_mb(b.rss_start)}/{fmt_mb(b.rss_end)}/{fmt_mb(b.hwm)}"
        out.append(f"{b.label():<22} {b.games:>5} {f'{w}/{d}/{l}':>13} {score:>5.1f}% | {rf:>22} | "
                   f"{of:>21} | {rss:>21} {b.restarts:>8}")
        tot.games += b.games
        for i in range(3):
            tot.wdl[i] += b.wdl[i]
        for k in KINDS:
            tot.faults[k] += b.faults[k]
            tot.opp_faults[k] += b.opp_faults[k]
        tot.restarts += b.restarts
    w, d, l = tot.wdl
    score = (w + d / 2) / tot.games * 100 if tot.games else 0
    out.append("-" * len(head))
    out.append(f"{'total':<22} {tot.games:>5} {f'{w}/{d}/{l}':>13} {score:>5.1f}% | "
               f"{'/'.join(str(tot.faults[k]) for k in KINDS):>22} | "
               f"{'/'.join(str(tot.opp_faults[k]) for k in KINDS):>21} | {'':>21} {tot.restarts:>8}")
    out.append("(faults: t time, i illegal move, c crash, s stall, p protocol)")
    out.append("")
    out.append("Retro's RSS (MB) after the first and the last game at each Hash size "
               "(VmRSS, and in brackets RssAnon+RssFile):")
    for b in blocks:
        parts = [f"Hash {h}: {fmt_mb(v[0])} ({fmt_mb(v[2][0])}+{fmt_mb(v[2][1])}) -> {fmt_mb(v[1])} "
                 f"({fmt_mb(v[3][0])}+{fmt_mb(v[3][1])})" for h, v in sorted(b.rss_by_hash.items())]
        if parts:
            out.append(f"  {b.label():<22} " + "; ".join(parts))
    out.append("")
    out.append("Retro's time losses: those where the engine itself (go written to bestmove read) took "
               "more than the clock, and those where python-chess's side made the difference:")
    for b in blocks:
        if b.games:
            out.append(f"  {b.label():<22} {b.faults['time']} = {b.time_engine} engine-side + "
                       f"{b.faults['time'] - b.time_engine} harness-side")
    out.append("")
    out.append("Retro's timing per configuration (ms): moves, median/max time per move, lowest clock "
               "left after a move, python-chess overhead (play wall time minus go-to-bestmove) "
               "median/p99/max")
    for b in blocks:
        if not b.move_times:
            continue
        ov = sorted(b.overhead)
        p99 = ov[min(len(ov) - 1, int(0.99 * len(ov)))] if ov else 0
        out.append(f"  {b.label():<22} {b.retro_moves:>6} moves, {1000 * statistics.median(b.move_times):.0f}/"
                   f"{1000 * max(b.move_times):.0f}, min clock {1000 * b.min_clock:.0f}, overhead "
                   f"{1000 * statistics.median(ov):.1f}/{1000 * p99:.1f}/{1000 * max(ov):.1f}"
                   + (f", moves with fewer MultiPV lines than possible: {b.short_multipv}" if b.multipv > 1 else "")
                   + (f"; moves over 200 ms: {len(b.slow_moves)} (" + ", ".join(
                       f"{1000 * w:.0f}/{1000 * c:.0f}" for w, c in sorted(b.slow_moves, reverse=True)[:6])
                      + " ms wall/CPU)" if b.slow_moves else ""))
    out.append("")
    out.append("Retro against each opponent (W/D/L):")
    for o in opponents:
        w, d, l = opp_wdl[o.name]
        out.append(f"  {o.name:<28} {w}/{d}/{l}")
    strings = {}
    retro_pids = [pid for pid, m in traffic.monitors.items() if m.name == "Retro"]
    for pid in retro_pids:
        for k, v in traffic.monitors[pid].info_strings.items():
            strings[k] = strings.get(k, 0) + v
    out.append("")
    out.append(f"Retro's info strings (digits as N): {len(strings)} distinct")
    for k, v in sorted(strings.items(), key=lambda kv: -kv[1])[:15]:
        out.append(f"  {v:>6} x {k}")
    stray = traffic.monitors.get(0)
    if stray and stray.lines:
        out.append(f"python-chess warnings not attributable to an engine: {len(stray.lines)}")
        for _, _, text in stray.lines[:5]:
            out.append(f"  {text}")
    out.append("")
    retro_faults = [f for f in faults if f["retro"]]
    opp_faults = [f for f in faults if not f["retro"]]
    out.append(f"Retro's faults: {len(retro_faults)}")
    for f in retro_faults[:50]:
        out.append(f"  game {f['game']} ({f['config']}, Hash {f['hash']}) ply {f['ply']}: {f['kind']}: "
                   f"{f['detail']}\n      fen {f['fen']}\n      log {f['log']}")
    out.append(f"Opponents' faults: {len(opp_faults)}")
    for f in opp_faults[:50]:
        out.append(f"  game {f['game']} {f['engine']} ply {f['ply']}: {f['kind']}: {f['detail']}")
    return "\n".join(out)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--engine", default=os.path.join(ROOT, "target", "release", "retro"))
    p.add_argument("--games", type=int, default=1000, help="games in all, split over the configurations")
    p.add_argument("--configs", default="1x1,1x3,2x1,2x3",
                   help="Retro's configurations as THREADSxMULTIPV, comma-separated, one block each")
    p.add_argument("--tc", default="1+0.01", help="seconds per game + increment per move")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--pgn", default=None)
    p.add_argument("--tables", default=os.path.join(ROOT, "tables"), help="Retro's table directory")
    p.add_argument("--book", default=os.path.join(ROOT, "..", "shared", "books", "8moves_v3.epd"))
    p.add_argument("--opponents", nargs="+", default=DEFAULT_OPPONENTS,
                   help="opponents as COMMAND[,NAME=VALUE...] (UCI engines)")
    p.add_argument("--grace", type=float, default=5.0,
                   help="seconds beyond the mover's clock before a move counts as a stall")
    p.add_argument("--fault-dir", default=None,
                   help="where the UCI traffic of faulty games goes (default: PGN.faults or a temp dir)")
    p.add_argument("--uci-log", default=None, help="write all the UCI traffic here (large)")
    args = p.parse_args()
    if args.games < 1:
        raise SystemExit("--games must be positive")
    if args.fault_dir is None:
        args.fault_dir = (args.pgn + ".faults") if args.pgn else tempfile.mkdtemp(prefix="soak-faults-")
    args.engine = os.path.abspath(args.engine)
    tc = parse_tc(args.tc)

    traffic = Traffic(args.uci_log)
    log = logging.getLogger("chess.engine")
    log.addHandler(traffic)
    log.setLevel(logging.DEBUG)
    log.propagate = False

    cwd = tempfile.mkdtemp(prefix="retro-soak-")
    with open(os.path.join(cwd, "engine.toml"), "w") as f:
        f.write(f'table_path = "{os.path.abspath(args.tables)}"\nbuild_missing_tables = false\n')

    book = read_book(args.book)
    rng = random.Random(args.seed)
    specs = [Spec(o) for o in args.opponents]
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        for i, s in enumerate(specs):
            s.name += f" #{i + 1}"
    opp_wdl = {s.name: [0, 0, 0] for s in specs}
    configs = []
    for c in args.configs.split(","):
        t, _, m = c.strip().partition("x")
        configs.append((int(t), int(m or 1)))
    blocks = [Block(t, m) for t, m in configs]
    nb = len(blocks)
    sizes = [args.games // nb + (1 if i < args.games % nb else 0) for i in range(nb)]
    faults = []
    pgn = open(args.pgn, "w") if args.pgn else None
    opponents = {}
    started = time.monotonic()
    fen = None
    game_no = 0
    print(f"soak: {args.games} games at {args.tc}, seed {args.seed}, Retro {args.engine}, "
          f"opponents: {', '.join(s.name for s in specs)}; scratch dir {cwd}; fault logs {args.fault_dir}",
          file=sys.stderr, flush=True)
    try:
        for block, size in zip(blocks, sizes):
            if size == 0:
                continue
            retro = start_retro(args, cwd, traffic, block.threads, block.multipv)
            t_block = time.monotonic()
            for j in range(size):
                pair = game_no // 2
                if game_no % 2 == 0:
                    fen = rng.choice(book)
                retro_white = game_no % 2 == 0
                spec = specs[pair % len(specs)]
                opp = opponents.get(spec.name)
                if opp is None:
                    opp = opponents[spec.name] = start_opponent(spec, cwd, traffic)
                hash_mb = HASH_CYCLE[(j + j // 4) % len(HASH_CYCLE)]
                try:
                    retro.engine.configure({"Hash": hash_mb})
                except chess.engine.EngineTerminatedError:
                    pass  # found by new_game below
                result, term, text, restart = play_game(args, game_no, retro, opp, retro_white, fen, tc,
                                                        block, faults, hash_mb)
                if result is not None:
                    block.games += 1
                    s = {"1-0": 0, "0-1": 2}.get(result, 1)
                    if not retro_white and s != 1:
                        s = 2 - s
                    block.wdl[s] += 1
                    opp_wdl[spec.name][s] += 1
                if pgn and text:
                    pgn.write(text + "\n\n")
                    pgn.flush()
                rss, hwm, split = proc_status(retro.pid)
                if j == 0 or block.rss_start is None:
                    block.rss_start = rss
                    block.split_start = split
                if rss is not None:
                    block.rss_end = rss
                    block.split_end = split
                    block.hwm = max(block.hwm or 0, hwm or 0)
                    v = block.rss_by_hash.setdefault(hash_mb, [rss, rss, split, split])
                    v[1] = rss
                    v[3] = split
                for pl in restart:
                    if pl is retro:
                        block.restarts += 1
                        retro.kill()
                        retro.quit()
                        retro = start_retro(args, cwd, traffic, block.threads, block.multipv)
                    else:
                        pl.kill()
                        pl.quit()
                        opponents.pop(spec.name, None)
                # An engine that died after its last move is found here rather than in the next game.
                if retro not in restart and not retro.alive():
                    faults.append({"game": game_no + 1, "config": block.label(), "hash": hash_mb, "engine": "Retro",
                                   "retro": True, "kind": "crash", "detail": "process gone after the game",
                                   "ply": 0, "fen": "", "log": ""})
                    block.faults["crash"] += 1
                    block.restarts += 1
                    retro = start_retro(args, cwd, traffic, block.threads, block.multipv)
                game_no += 1
                done = game_no
                elapsed = time.monotonic() - started
                eta = elapsed / done * (args.games - done)
                nr = sum(1 for f in faults if f["retro"])
                no = len(faults) - nr
                print(f"[{done}/{args.games}] {block.label()} Hash {hash_mb:>3} Retro "
                      f"{'white' if retro_white else 'black'} vs {spec.name}: {result} {term} | "
                      f"block W/D/L {'/'.join(map(str, block.wdl))} | faults Retro {nr} opp {no} | "
                      f"RSS {fmt_mb(rss)} MB | {elapsed / 60:.1f} min, ETA {eta / 60:.1f} min",
                      file=sys.stderr, flush=True)
            # The end of the block: peak memory, then quit and check the exit code.
            rss, hwm, _ = proc_status(retro.pid)
            if hwm is not None:
                block.hwm = max(block.hwm or 0, hwm)
            for issue in retro.monitor.take_issues():
                faults.append({"game": game_no, "config": block.label(), "hash": None, "engine": "Retro",
                               "retro": True, "kind": "protocol", "detail": issue, "ply": 0, "fen": "", "log": ""})
                block.faults["protocol"] += 1
            code = retro.quit()
            if code != 0:
                faults.append({"game": game_no, "config": block.label(), "hash": None, "engine": "Retro",
                               "retro": True, "kind": "crash", "detail": f"exit code {code} after quit",
                               "ply": 0, "fen": "", "log": ""})
                block.faults["crash"] += 1
            block.elapsed = time.monotonic() - t_block
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
    finally:
        for o in opponents.values():
            o.quit()
        if pgn:
            pgn.close()
    print(summary(blocks, faults, specs, opp_wdl, started, traffic, args, tc), flush=True)
    return 1 if any(f["retro"] for f in faults) else 0


if __name__ == "__main__":
    sys.exit(main())
