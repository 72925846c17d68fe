#!/usr/bin/env python3
"""SPSA tuning of the search constants of crates/retro-engine/src/tunables.rs.

The engine is a build with the cargo feature `tune` (`cargo build --release --features tune`),
which declares each tuned constant as a UCI spin option with its range. Each iteration k draws
a direction D (each constant +1 or -1), plays game pairs (each opening of the book with both
colours) between the engine at theta + c_k D and at theta - c_k D, and moves theta by
a_k * (wins - losses of the plus side) * D / c_k, with fishtest's schedule: c_k = c_end *
(N / k)^0.101, a_k = a_end * ((A + N) / (A + k))^0.602, A = N / 10, a_end = r_end * c_end^2,
c_end a twentieth of each constant's range (at least 1) unless given; the schedule and the
constants are fixed when the run starts and kept by its state.

The run's state (theta, the iteration, the games and their results) is written atomically to
--state after every iteration: the same command resumes a stopped run, and `--show` prints the
values so far. Games go through the match runner's game loop (scripts/match.py, python-chess).

  scripts/spsa.py --engine /path/retro-tune --state ~/spsa/run1.json --iterations 5000 \\
      --nodes 5000 --book ../shared/books/8moves_v3.epd --concurrency 2 \\
      --option TablePath=/path/tables
"""

import argparse
import json
import os
import random
import sys
import tempfile
import threading
import time
from types import SimpleNamespace

import chess
import chess.engine

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import match  # noqa: E402

ALPHA = 0.602
GAMMA = 0.101


def tunables(engine):
    """The tuned constants the engine declares: spins named in capitals and underscores."""
    out = {}
    for name, opt in engine.options.items():
        if opt.type == "spin" and name.replace("_", "").isupper() and "_" in name:
            out[name] = {"default": opt.default, "min": opt.min, "max": opt.max}
    return out


def write_atomic(path, state):
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        json.dump(state, f, indent=1)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def values(theta, params, c, direction, sign):
    """Integer option values of theta + sign * c * direction, within each range."""
    out = {}
    for name, p in params.items():
        v = theta[name] + sign * c[name] * direction[name]
        out[name] = int(min(max(round(v), p["min"]), p["max"]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", help="a retro build with --features tune")
    ap.add_argument("--state", required=True, help="the run's state file (JSON), resumed when present")
    ap.add_argument("--iterations", type=int, default=5000, help="N: iterations of the schedule")
    ap.add_argument("--params", help="comma-separated constants to tune (default: all the engine declares)")
    ap.add_argument("--r-end", type=float, default=0.002, help="fishtest's r_end")
    ap.add_argument("--c-end", type=float, default=None, help="c_end of every constant (default: a twentieth of its range)")
    ap.add_argument("--nodes", type=int, default=5000, help="nodes a move (without --tc)")
    ap.add_argument("--tc", help="time control base+inc in seconds instead of nodes")
    ap.add_argument("--book", help="EPD openings")
    ap.add_argument("--concurrency", type=int, default=1, help="game pairs played at once (one per iteration step)")
    ap.add_argument("--option", action="append", default=[], help="NAME=VALUE set in both engines (Hash, TablePath)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", action="store_true", help="print the state and stop")
    args = ap.parse_args()

    state = None
    if os.path.exists(args.state):
        with open(args.state) as f:
            state = json.load(f)
    if args.show:
        if state is None:
            raise SystemExit(f"{args.state}: no run")
        for name, p in state["params"].items():
            print(f"{name:22} {p['default']:>7} -> {state['theta'][name]:9.2f}  [{p['min']}, {p['max']}]")
        print(f"iteration {state['k']} of {state['iterations']}, {state['games']} games, "
              f"plus side {state['wins']}-{state['draws']}-{state['losses']}")
        return

    if not args.engine or not args.book:
        raise SystemExit("--engine and --book are needed to play")
    probe = chess.engine.SimpleEngine.popen_uci([os.path.abspath(args.engine)])
    declared = tunables(probe)
    probe.quit()
    if not declared:
        raise SystemExit(f"{args.engine}: declares no tuned constants (build it with --features tune)")
    wanted = args.params.split(",") if args.params else sorted(declared)
    for name in wanted:
        if name not in declared:
            raise SystemExit(f"{args.engine}: no tuned constant {name!r}")
    if state is None:
        params = {n: declared[n] for n in wanted}
        state = {
            "params": params,
            "theta": {n: float(p["default"]) for n, p in params.items()},
            "iterations": args.iterations,
            "k": 0,
            "games": 0,
            "wins": 0,
            "draws": 0,
            "losses": 0,
            "seed": args.seed,
            "history": [],
        }
        # c_end at least 1: a smaller step rounds theta + c and theta - c to the same integer.
        state["c_end"] = {n: args.c_end or max((p["max"] - p["min"]) / 20, 1.0) for n, p in params.items()}
        state["r_end"] = args.r_end
    params = state["params"]
    n_iter = state["iterations"]
    big_a = n_iter / 10
    # The schedule is the run's own: a resumed run keeps it whatever the flags say.
    c_end = state["c_end"]
    a_end = {n: state["r_end"] * c_end[n] ** 2 for n in params}

    fens = match.read_book(args.book)
    extra = {}
    for item in args.option:
        k, eq, v = item.partition("=")
        if not eq:
            raise SystemExit(f"--option {item!r} is not NAME=VALUE")
        extra[k] = v
    game_args = SimpleNamespace(chess960=False, resign=1000, resign_moves=4, nodes=args.nodes,
                                event="Retro SPSA")
    tc = match.parse_tc(args.tc) if args.tc else None
    # The engines run in a scratch directory (their logs and any files they write).
    cwd = tempfile.mkdtemp(prefix="retro-spsa-")

    def start():
        e = chess.engine.SimpleEngine.popen_uci([os.path.abspath(args.engine)], cwd=cwd)
        if extra:
            e.configure({k: (int(v) if e.options[k].type == "spin" else v) for k, v in extra.items()})
        return e

    slots = [(start(), start()) for _ in range(max(1, args.concurrency))]
    began, start_k = time.monotonic(), state["k"]
    try:
        while state["k"] < n_iter:
            k = state["k"] + 1
            rng = random.Random(f"{state['seed']}-{k}")
            direction = {n: rng.choice((-1, 1)) for n in params}
            c = {n: c_end[n] * (n_iter / k) ** GAMMA for n in params}
            a = {n: a_end[n] * ((big_a + n_iter) / (big_a + k)) ** ALPHA for n in params}
            plus = values(state["theta"], params, c, direction, +1)
            minus = values(state["theta"], params, c, direction, -1)
            results = [None] * len(slots)

            def play(i):
                ep, em = slots[i]
                ep.configure(plus)
                em.configure(minus)
                fen = fens[random.Random(f"{state['seed']}-{k}-{i}").randrange(len(fens))]
                score = 0.0
                outcome = []
                for white, black, plus_white in ((ep, em, True), (em, ep, False)):
                    engines = {chess.WHITE: white, chess.BLACK: black}
                    names = {chess.WHITE: "plus" if plus_white else "minus",
                             chess.BLACK: "minus" if plus_white else "plus"}
                    result, term, fault, _ = match.play_game(engines, names, fen, f"{k}-{i}-{plus_white}", game_args, tc)
                    if fault is not None:
                        raise RuntimeError(f"iteration {k}: {term}")
                    s = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
                    s = s if plus_white else 1.0 - s
                    outcome.append(s)
                results[i] = outcome

            threads = [threading.Thread(target=play, args=(i,)) for i in range(len(slots))]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            if any(r is None for r in results):
                raise SystemExit(f"iteration {k}: a game failed; the state is kept at iteration {k - 1}")
            scores = [s for r in results for s in r]
            wins = sum(1 for s in scores if s == 1.0)
            losses = sum(1 for s in scores if s == 0.0)
            for n in params:
                p = params[n]
                moved = state["theta"][n] + a[n] * (wins - losses) * direction[n] / c[n]
                state["theta"][n] = min(max(moved, p["min"]), p["max"])
            state["k"] = k
            state["games"] += len(scores)
            state["wins"] += wins
            state["losses"] += losses
            state["draws"] += len(scores) - wins - losses
            if k % 50 == 0 or k == n_iter:
                state["history"].append({"k": k, "theta": dict(state["theta"])})
            write_atomic(args.state, state)
            done = k - start_k
            rate = done / max(time.monotonic() - began, 1e-9)
            eta = (n_iter - k) / rate if rate > 0 else 0
            print(f"spsa: iteration {k}/{n_iter}, {state['games']} games, plus {wins}-{losses} "
                  f"this step; eta {eta / 3600:.1f} h", file=sys.stderr, flush=True)
    finally:
        for pair in slots:
            for e in pair:
                try:
                    e.quit()
                except Exception:
                    pass


if __name__ == "__main__":
    main()
