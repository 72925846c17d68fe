#!/usr/bin/env python3
"""Engine matches for measuring strength, through python-chess's chess.engine (a real UCI
client): a sequential probability ratio test (SPRT) of one build against another, or a
gauntlet of one engine against several opponents. Not part of the test suite.

Openings come from an EPD book (default ../shared/books/8moves_v3.epd beside the project),
drawn at random with a seed; each is played twice with colours swapped (a game pair). Engines
stay running between games (`ucinewgame` between them), one set per concurrent game. They run
in a scratch directory holding an engine.toml that points Retro at the project's tables and
turns the background table build off.

An engine is given as `COMMAND[,NAME=VALUE...]`: the command (with its arguments) and the UCI
options to set, e.g. `/usr/games/stockfish,UCI_LimitStrength=true,UCI_Elo=2200` or
`gnuchess --uci`.

SPRT of a new build against an old one, at fixed nodes (or --tc 10+0.1):

    scripts/match.py sprt --new target/release/retro --old /tmp/retro-old --nodes 20000 \\
        --elo0 0 --elo1 5 --pgn sprt.pgn

The SPRT is the generalised SPRT on game pairs (pentanomial model: a pair scores 0, 1/2, 1,
3/2 or 2), with the log-likelihood ratio approximated as engine-testing frameworks do:
LLR = N (s1 - s0) (2 m - s0 - s1) / (2 v), where m and v are the mean and variance of a pair's
score (per game), and s0, s1 the expected scores of elo0 and elo1 (logistic). It stops when the
LLR leaves [ln(beta / (1 - alpha)), ln((1 - beta) / alpha)].

Gauntlet at a time control:

    scripts/match.py gauntlet --engine target/release/retro,Hash=64 --games 200 --tc 10+0.1 \\
        --opponent /usr/games/toga2 --opponent '/usr/games/stockfish,UCI_LimitStrength=true,UCI_Elo=2200'

Both print W/D/L, the score, the Elo difference with its 95% interval, and every time loss,
illegal move or crash, and write the games as PGN with --pgn.

Resuming: with --journal FILE every finished game pair is appended to FILE (a JSON line) as it
ends. Run the same command again after a stop and the pairs in FILE are counted, not played
again: the openings are drawn from the seed, so the run goes on where it stopped. The first
line of FILE records the run's settings, and a journal of other settings is refused. With
--journal, --pgn appends instead of overwriting.

Chess960 (Fischer random): with --chess960 the book is not read; each pair's opening is one of
the 960 start positions drawn with the seed (python-chess's chess.Board.from_chess960_pos), the
games are played on a chess960 board, so python-chess sets `UCI_Chess960 true` in every engine
(and sends Shredder-FEN and king-takes-rook castling), and the PGN carries `Variant "Chess960"`
with the `FEN` and `SetUp` headers. --uci-log FILE writes the UCI traffic (python-chess's debug
log) to FILE, e.g. to check that for a game or two:

    scripts/match.py gauntlet --chess960 --engine target/release/retro,Hash=64 --games 100 \\
        --opponent /usr/games/ethereal-chess --tc 10+0.1 --concurrency 1 --pgn chess960.pgn
"""

import argparse
import concurrent.futures
import json
import logging
import math
import os
import random
import shlex
import sys
import tempfile
import threading
import time

import chess
import chess.engine
import chess.pgn

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))


class Spec:
    """An engine to start: its command line, UCI options and a display name."""

    def __init__(self, text):
        parts = text.split(",")
        self.command = shlex.split(parts[0])
        if not self.command:
            raise SystemExit(f"no command in engine spec {text!r}")
        # The engines run in a scratch directory: a relative path is taken from here.
        if os.sep in self.command[0]:
            self.command[0] = os.path.abspath(self.command[0])
        self.options = {}
        for item in parts[1:]:
            name, eq, value = item.partition("=")
            if not eq:
                raise SystemExit(f"engine option {item!r} is not NAME=VALUE")
            self.options[name.strip()] = value.strip()
        base = os.path.basename(self.command[0])
        extra = " ".join(f"{k}={v}" for k, v in self.options.items() if k not in ("Hash", "Threads"))
        self.name = base + (f" ({extra})" if extra else "")

    def start(self, cwd):
        engine = chess.engine.SimpleEngine.popen_uci(self.command, cwd=cwd)
        opts = {}
        for k, v in self.options.items():
            opt = engine.options.get(k)
            if opt is None:
                engine.quit()
                raise SystemExit(f"{self.name}: no UCI option {k!r}")
            if opt.type == "check":
                opts[k] = v.lower() in ("true", "1", "yes")
            elif opt.type == "spin":
                opts[k] = int(v)
            else:
                opts[k] = v
        engine.configure(opts)
        return engine


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


def parse_tc(tc):
    base, _, inc = tc.partition("+")
    return float(base), float(inc or 0)


class Adjudicator:
    """Ends a game early when both engines agree: a win when the side to move has reported at
    least `resign` centipawns (or a mate) and its opponent at most minus that, each over its last
    `moves` moves; a draw after move 40 when both have reported at most 10 centipawns either way
    over their last 8 moves. Scores are from the mover's point of view."""

    def __init__(self, resign, moves):
        self.resign = resign
        self.moves = moves
        self.scores = {chess.WHITE: [], chess.BLACK: []}

    def record(self, colour, score):
        self.scores[colour].append(score)

    def verdict(self, board):
        if self.resign <= 0:
            return None
        w, b = self.scores[chess.WHITE], self.scores[chess.BLACK]
        n = self.moves
        if len(w) >= n and len(b) >= n:
            if all(s is not None and s >= self.resign for s in w[-n:]) and all(
                s is not None and s <= -self.resign for s in b[-n:]
            ):
                return "1-0", "adjudicated win"
            if all(s is not None and s >= self.resign for s in b[-n:]) and all(
                s is not None and s <= -self.resign for s in w[-n:]
            ):
                return "0-1", "adjudicated win"
        if board.fullmove_number > 40 and len(w) >= 8 and len(b) >= 8:
            if all(s is not None and abs(s) <= 10 for s in w[-8:] + b[-8:]):
                return "1/2-1/2", "adjudicated draw"
        return None


def play_game(engines, names, fen, key, args, tc):
    """Plays one game from `fen`: `engines[colour]` moves for `colour`. Returns the result, the
    termination, the loser's colour when it lost by a fault (time, illegal move, crash), and the
    PGN text."""
    board = chess.Board(fen, chess960=args.chess960)
    adj = Adjudicator(args.resign, args.resign_moves)
    clock = {chess.WHITE: tc[0], chess.BLACK: tc[0]} if tc else None
    fault = None
    termination = None
    result = None
    spent = {chess.WHITE: 0.0, chess.BLACK: 0.0}
    moves = {chess.WHITE: 0, chess.BLACK: 0}
    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result, termination = outcome.result(), outcome.termination.name.lower()
            break
        verdict = adj.verdict(board)
        if verdict is not None:
            result, termination = verdict
            break
        if board.ply() > 600:
            result, termination = "1/2-1/2", "adjudicated draw (300 moves)"
            break
        mover = board.turn
        if tc:
            limit = chess.engine.Limit(
                white_clock=max(clock[chess.WHITE], 0.001),
                black_clock=max(clock[chess.BLACK], 0.001),
                white_inc=tc[1],
                black_inc=tc[1],
            )
        else:
            limit = chess.engine.Limit(nodes=args.nodes)
        t0 = time.monotonic()
        try:
            res = engines[mover].play(board, limit, game=key, info=chess.engine.INFO_SCORE)
        except chess.engine.EngineError as e:
            fault, termination = mover, f"illegal move or engine error: {e}"
            break
        except chess.engine.EngineTerminatedError as e:
            fault, termination = mover, f"engine died: {e}"
            break
        used = time.monotonic() - t0
        spent[mover] += used
        moves[mover] += 1
        if tc:
            clock[mover] -= used
            if clock[mover] < 0:
                fault, termination = mover, f"time forfeit ({-clock[mover] * 1000:.0f} ms over)"
                break
            clock[mover] += tc[1]
        if res.move is None:
            fault, termination = mover, "no move"
            break
        score = res.info.get("score")
        adj.record(mover, score.relative.score(mate_score=100_000) if score else None)
        board.push(res.move)
    if fault is not None:
        result = "0-1" if fault == chess.WHITE else "1-0"
    game = chess.pgn.Game.from_board(board)
    game.headers["Event"] = args.event
    game.headers["White"] = names[chess.WHITE]
    game.headers["Black"] = names[chess.BLACK]
    game.headers["Result"] = result
    game.headers["Termination"] = termination
    if args.chess960:
        # from_board leaves out FEN and SetUp for the standard start position (number 518).
        game.headers["Variant"] = "Chess960"
        game.headers["FEN"] = board.root().fen()
        game.headers["SetUp"] = "1"
    # Thinking time: seconds used over moves played, and the clock left at the end.
    for colour, side in ((chess.WHITE, "White"), (chess.BLACK, "Black")):
        left = f" left {clock[colour]:.2f}" if tc else ""
        game.headers[f"{side}Time"] = f"{spent[colour]:.2f}s/{moves[colour]}{left}"
    return result, termination, fault, str(game)


class Worker:
    """One concurrent game slot: its own running engines, restarted after a crash."""

    def __init__(self, cwd):
        self.cwd = cwd
        self.running = {}

    def engine(self, spec):
        e = self.running.get(id(spec))
        if e is None:
            e = spec.start(self.cwd)
            self.running[id(spec)] = e
        return e

    def drop(self, spec):
        e = self.running.pop(id(spec), None)
        if e is not None:
            try:
                e.quit()
            except Exception:
                pass

    def close(self):
        for e in list(self.running.values()):
            try:
                e.quit()
            except Exception:
                pass
        self.running.clear()


def play_pair(worker, first, second, fen, pair, args, tc):
    """Plays the opening `fen` twice, `first` with white and then with black. Returns
    `first`'s two scores, the faults of each engine and the two games' PGN."""
    scores, faults, pgns, terms = [], {id(first): [], id(second): []}, [], []
    for g, (white, black) in enumerate([(first, second), (second, first)]):
        engines = {chess.WHITE: worker.engine(white), chess.BLACK: worker.engine(black)}
        names = {chess.WHITE: white.name, chess.BLACK: black.name}
        result, term, fault, pgn = play_game(engines, names, fen, f"{pair}-{g}", args, tc)
        if fault is not None:
            culprit = white if fault == chess.WHITE else black
            faults[id(culprit)].append(term)
            if term.startswith("engine died") or term.startswith("illegal"):
                worker.drop(culprit)
        s = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
        scores.append(s if white is first else 1.0 - s)
        pgns.append(pgn)
        terms.append(term)
    return scores, faults, pgns, terms


def elo(score):
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


class Tally:
    """Pair results of one engine against one opponent."""

    def __init__(self):
        self.pent = [0] * 5  # pairs scoring 0, 1/2, 1, 3/2, 2
        self.wdl = [0, 0, 0]
        self.faults = []
        self.opp_faults = []

    def add(self, scores):
        self.pent[int(round(2 * sum(scores)))] += 1
        for s in scores:
            self.wdl[0 if s == 1.0 else 1 if s == 0.5 else 2] += 1

    def pairs(self):
        return sum(self.pent)

    def mean_var(self, pent=None):
        """The mean and variance of a pair's score per game, over `pent` (default: the
        pairs played)."""
        pent = self.pent if pent is None else pent
        n = sum(pent)
        if n == 0:
            return 0.5, 0.0
        m = sum(c * k / 4 for k, c in enumerate(pent)) / n
        v = sum(c * (k / 4 - m) ** 2 for k, c in enumerate(pent)) / n
        return m, v

    def elo_interval(self):
        n = self.pairs()
        m, v = self.mean_var()
        se = math.sqrt(v / n) if n else 0.0
        return elo(m), elo(m - 1.96 * se), elo(m + 1.96 * se)

    def llr(self, elo0, elo1):
        n = self.pairs()
        if n < 2:
            return 0.0
        # Regularise an empty outcome so that the variance is never zero.
        m, v = self.mean_var([c + (0.05 if c == 0 else 0) for c in self.pent])
        s0 = 1 / (1 + 10 ** (-elo0 / 400))
        s1 = 1 / (1 + 10 ** (-elo1 / 400))
        return n * (s1 - s0) * (2 * m - s0 - s1) / (2 * v)

    def line(self):
        w, d, l = self.wdl
        games = w + d + l
        e, lo, hi = self.elo_interval()
        score = (w + d / 2) / games if games else 0
        return (
            f"{games} games +{w} ={d} -{l} ({100 * score:.1f}%), pairs {self.pent}, "
            f"Elo {e:+.1f} (95%: {lo:+.1f} to {hi:+.1f})"
        )


class ProtocolErrors(logging.Handler):
    """Counts the protocol errors python-chess logs and goes on from."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def write_pgn(pgn, games):
    if pgn:
        for g in games:
            pgn.write(g + "\n\n")
        pgn.flush()


class Journal:
    """The finished pairs of a run, one JSON line each after a line of the run's settings, so
    that the same command resumes after a stop (see the module's doc)."""

    def __init__(self, path, settings):
        self.path = path
        self.records = []
        self.file = None
        if path is None:
            return
        if os.path.exists(path):
            with open(path) as f:
                lines = f.read().split("\n")
            # A line cut short by a stop (the last one, without its newline) is dropped.
            complete = lines[:-1]
            if not complete:
                raise SystemExit(f"{path}: no settings line; remove the file to start over")
            try:
                head = json.loads(complete[0])
            except ValueError:
                raise SystemExit(f"{path}: the first line is not JSON")
            if head != settings:
                raise SystemExit(f"{path}: recorded for other settings ({head}); "
                                 f"this run is {settings}")
            for n, line in enumerate(complete[1:], start=2):
                try:
                    rec = json.loads(line)
                    int(rec["pair"]), int(rec["second"]), list(rec["scores"])
                except (ValueError, KeyError, TypeError):
                    raise SystemExit(f"{path}:{n}: not a pair record")
                self.records.append(rec)
            with open(path, "w") as f:
                f.write("\n".join(complete) + "\n")
            self.file = open(path, "a")
        else:
            self.file = open(path, "w")
            self.file.write(json.dumps(settings) + "\n")
            self.file.flush()

    def done(self):
        """The numbers of the pairs already played."""
        return {rec["pair"] for rec in self.records}

    def record(self, pair, second, scores, faults, terms):
        """Appends one finished pair: `second` is the opponent's index, `faults` the lists of
        the first engine's and the opponent's faults."""
        if self.file:
            rec = {"pair": pair, "second": second, "scores": scores,
                   "faults": faults, "terms": terms}
            self.file.write(json.dumps(rec) + "\n")
            self.file.flush()
            os.fsync(self.file.fileno())


def scratch_dir(tables):
    d = tempfile.mkdtemp(prefix="retro-match-")
    with open(os.path.join(d, "engine.toml"), "w") as f:
        f.write(f'table_path = "{os.path.abspath(tables)}"\nbuild_missing_tables = false\n')
    return d


def run(args, pairings, on_pair, should_stop, journal, index_of):
    """Plays the game pairs of `pairings` (first, second, opening, number) on `args.concurrency`
    workers, calling `on_pair(first, second, scores, faults, pgns, terms)` under a lock after
    each pair, until `should_stop()`. Pairs whose number is in `journal` are skipped; each new
    one is recorded there, its opponent as `index_of(second)`."""
    played = journal.done()
    if should_stop():
        return
    cwd = scratch_dir(args.tables)
    tc = parse_tc(args.tc) if args.tc else None
    local = threading.local()
    workers = []
    lock = threading.Lock()
    stop = threading.Event()

    def job(first, second, fen, pair):
        if stop.is_set():
            return
        if not hasattr(local, "worker"):
            local.worker = Worker(cwd)
            with lock:
                workers.append(local.worker)
        scores, faults, pgns, terms = play_pair(local.worker, first, second, fen, pair, args, tc)
        with lock:
            on_pair(first, second, scores, faults, pgns, terms)
            journal.record(pair, index_of(second), scores,
                           [faults[id(first)], faults[id(second)]], terms)
            if should_stop():
                stop.set()

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.concurrency) as pool:
        pending = set()
        for p in pairings:
            if stop.is_set():
                break
            if p[3] in played:
                continue
            pending.add(pool.submit(job, *p))
            if len(pending) >= 2 * args.concurrency:
                done, pending = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
                for f in done:
                    f.result()
        for f in pending:
            f.result()
    for w in workers:
        w.close()


def replay(journal, first, opponents, on_pair):
    """Counts the pairs of `journal` as if just played: `first` against
    `opponents[record's index]`."""
    for rec in journal.records:
        if not 0 <= rec["second"] < len(opponents):
            raise SystemExit(f"{journal.path}: opponent {rec['second']} is not in this run")
        second = opponents[rec["second"]]
        faults = {id(first): rec["faults"][0], id(second): rec["faults"][1]}
        on_pair(first, second, rec["scores"], faults, [], rec["terms"], quiet=True)
    if journal.records:
        print(f"{journal.path}: {len(journal.records)} pairs already played, going on", flush=True)


def settings(args, engines):
    """What a journal must match to be resumed."""
    keys = ("mode", "tc", "nodes", "seed", "chess960", "resign", "resign_moves",
            "elo0", "elo1", "alpha", "beta")
    d = {k: getattr(args, k) for k in keys if hasattr(args, k)}
    d["book"] = None if args.chess960 else os.path.abspath(args.book)
    d["engines"] = engines
    return d


def open_pgn(args):
    """The PGN file: appended to when a journal resumes the run."""
    if not args.pgn:
        return None
    return open(args.pgn, "a" if args.journal else "w")


def openings(args):
    rng = random.Random(args.seed)
    if args.chess960:
        while True:
            yield chess.Board.from_chess960_pos(rng.randrange(960)).fen()
    book = read_book(args.book)
    while True:
        yield rng.choice(book)


def cmd_sprt(args):
    new, old = Spec(args.new), Spec(args.old)
    if new.name == old.name:
        new.name += " (new)"
        old.name += " (old)"
    tally = Tally()
    lower = math.log(args.beta / (1 - args.alpha))
    upper = math.log((1 - args.beta) / args.alpha)
    journal = Journal(args.journal, settings(args, [args.new, args.old]))
    pgn = open_pgn(args)
    started = time.monotonic()
    state = {"verdict": None}

    def on_pair(first, second, scores, faults, pgns, terms, quiet=False):
        tally.add(scores)
        tally.faults.extend(faults[id(new)])
        tally.opp_faults.extend(faults[id(old)])
        write_pgn(pgn, pgns)
        llr = tally.llr(args.elo0, args.elo1)
        if llr >= upper:
            state["verdict"] = "H1 accepted (the new build is stronger)"
        elif llr <= lower:
            state["verdict"] = "H0 accepted (no gain of elo1)"
        elif 2 * tally.pairs() >= args.max_games:
            state["verdict"] = "inconclusive (game limit)"
        if not quiet:
            print(f"{tally.line()}, LLR {llr:+.2f} ({lower:+.2f}, {upper:+.2f})", flush=True)

    replay(journal, new, [old], on_pair)
    pairings = ((new, old, fen, k) for k, fen in enumerate(openings(args)))
    run(args, pairings, on_pair, lambda: state["verdict"] is not None, journal, lambda _: 0)
    limit = f"{args.nodes} nodes" if not args.tc else args.tc
    print(f"\nSPRT {new.name} vs {old.name}, {limit}, elo0 {args.elo0} elo1 {args.elo1} "
          f"alpha {args.alpha} beta {args.beta}, {time.monotonic() - started:.0f} s")
    print(f"{tally.line()}, LLR {tally.llr(args.elo0, args.elo1):+.2f} ({lower:+.2f}, {upper:+.2f})")
    print(f"verdict: {state['verdict'] or 'stopped'}")
    print(f"faults of the new build: {len(tally.faults)}, of the old: {len(tally.opp_faults)}")
    for f in tally.faults[:10] + tally.opp_faults[:10]:
        print(f"  {f}")
    return 0 if not tally.faults and not tally.opp_faults else 1


def cmd_gauntlet(args):
    me = Spec(args.engine)
    opponents = [Spec(o) for o in args.opponent]
    tallies = {id(o): Tally() for o in opponents}
    journal = Journal(args.journal, settings(args, [args.engine] + args.opponent))
    pgn = open_pgn(args)
    started = time.monotonic()

    def on_pair(first, second, scores, faults, pgns, terms, quiet=False):
        t = tallies[id(second)]
        t.add(scores)
        t.faults.extend(faults[id(first)])
        t.opp_faults.extend(faults[id(second)])
        write_pgn(pgn, pgns)
        if not quiet:
            print(f"vs {second.name}: {t.line()}  [{terms[0]}; {terms[1]}]", flush=True)

    replay(journal, me, opponents, on_pair)
    books = openings(args)
    pairs = args.games // 2
    pairings = []
    for k in range(pairs):
        fen = next(books)
        for o in opponents:
            pairings.append((me, o, fen, len(pairings)))
    run(args, iter(pairings), on_pair, lambda: False, journal, lambda o: opponents.index(o))
    print(f"\nGauntlet of {me.name} at {args.tc}, {args.games} games per opponent, "
          f"{time.monotonic() - started:.0f} s")
    bad = 0
    for o in opponents:
        t = tallies[id(o)]
        print(f"vs {o.name}: {t.line()}")
        print(f"   faults of {me.name}: {len(t.faults)} {t.faults[:5]}; of the opponent: "
              f"{len(t.opp_faults)} {t.opp_faults[:5]}")
        bad += len(t.faults)
    return 0 if bad == 0 else 1


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="mode", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--book", default=os.path.join(ROOT, "..", "shared", "books", "8moves_v3.epd"))
    common.add_argument("--seed", type=int, default=1)
    common.add_argument("--concurrency", type=int, default=2)
    common.add_argument("--tables", default=os.path.join(ROOT, "tables"),
                        help="Retro's table directory (default: the project's tables/)")
    common.add_argument("--pgn", default=None)
    common.add_argument("--journal", default=None,
                        help="record each finished pair here, and resume from it (see above)")
    common.add_argument("--resign", type=int, default=1000,
                        help="adjudication threshold in centipawns (0: play every game out)")
    common.add_argument("--resign-moves", type=int, default=4)
    common.add_argument("--chess960", action="store_true",
                        help="Chess960: random start positions (of the 960) instead of the book")
    common.add_argument("--uci-log", default=None,
                        help="write the UCI traffic (python-chess's debug log) to this file")
    s = sub.add_parser("sprt", parents=[common], help="SPRT of a new build against an old one")
    s.add_argument("--new", required=True)
    s.add_argument("--old", required=True)
    s.add_argument("--nodes", type=int, default=20000, help="nodes per move (without --tc)")
    s.add_argument("--tc", default=None, help="seconds+increment per game instead of nodes")
    s.add_argument("--elo0", type=float, default=0.0)
    s.add_argument("--elo1", type=float, default=5.0)
    s.add_argument("--alpha", type=float, default=0.05)
    s.add_argument("--beta", type=float, default=0.05)
    s.add_argument("--max-games", type=int, default=20000)
    g = sub.add_parser("gauntlet", parents=[common], help="one engine against several")
    g.add_argument("--engine", default=os.path.join(ROOT, "target", "release", "retro"))
    g.add_argument("--opponent", action="append", required=True)
    g.add_argument("--games", type=int, default=200, help="games per opponent")
    g.add_argument("--tc", default="10+0.1")
    args = p.parse_args()
    args.event = f"Retro {args.mode}" + (" (Chess960)" if args.chess960 else "")
    if args.mode == "sprt" and not args.tc and args.nodes <= 0:
        raise SystemExit("--nodes must be positive")
    errors = ProtocolErrors()
    logging.getLogger("chess.engine").addHandler(errors)
    logging.getLogger("chess.engine").propagate = False
    if args.uci_log:
        traffic = logging.FileHandler(args.uci_log, mode="w")
        traffic.setLevel(logging.DEBUG)
        traffic.setFormatter(logging.Formatter("%(relativeCreated)d %(threadName)s %(message)s"))
        logging.getLogger("chess.engine").addHandler(traffic)
        logging.getLogger("chess.engine").setLevel(logging.DEBUG)
    code = cmd_sprt(args) if args.mode == "sprt" else cmd_gauntlet(args)
    print(f"protocol errors logged by python-chess: {len(errors.messages)}")
    for m in sorted(set(errors.messages))[:10]:
        print(f"  {m}")
    return code


if __name__ == "__main__":
    sys.exit(main())
