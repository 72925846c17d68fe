#!/usr/bin/env python3
"""Plays a match between Retro and another UCI engine through python-chess's chess.engine (a
real UCI client), keeping the clocks as a GUI does, and prints the score, the Elo difference
with its 95% error bars, time losses and illegal moves. Not part of the test suite.

Needs: pip install chess; an opponent such as Debian's stockfish (apt-get install stockfish,
/usr/games/stockfish) or glaurung or toga2.

    scripts/match.py --games 100 --tc 10+0.1 --opponent /usr/games/stockfish \
        --opponent-option "Skill Level=3" --pgn match.pgn
"""

import argparse
import concurrent.futures
import logging
import math
import os
import sys
import threading
import time

import chess
import chess.engine
import chess.pgn

# Openings (moves from the initial position); each is played twice, colours reversed.
OPENINGS = [
    "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6",
    "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6",
    "e2e4 e7e6 d2d4 d7d5 b1c3 g8f6",
    "e2e4 c7c6 d2d4 d7d5 e4e5 c8f5",
    "d2d4 d7d5 c2c4 e7e6 b1c3 g8f6",
    "d2d4 g8f6 c2c4 g7g6 b1c3 f8g7 e2e4 d7d6",
    "d2d4 g8f6 c2c4 e7e6 b1c3 f8b4",
    "c2c4 e7e5 b1c3 g8f6 g2g3 d7d5",
    "g1f3 d7d5 g2g3 g8f6 f1g2 c7c6",
    "e2e4 e7e5 g1f3 g8f6 f3e5 d7d6",
    "e2e4 d7d5 e4d5 d8d5 b1c3 d5a5",
    "d2d4 f7f5 g2g3 g8f6 f1g2 g7g6",
    "e2e4 g7g6 d2d4 f8g7 b1c3 d7d6",
    "e2e4 c7c5 b1c3 b8c6 g2g3 g7g6",
    "d2d4 d7d5 c2c4 c7c6 g1f3 g8f6 b1c3 d5c4",
    "e2e4 e7e5 f1c4 g8f6 d2d3 c7c6",
    "c2c4 c7c5 g1f3 g8f6 b1c3 b8c6",
    "e2e4 c7c5 g1f3 e7e6 d2d4 c5d4 f3d4 a7a6",
    "d2d4 g8f6 g1f3 e7e6 c1g5 h7h6",
    "b2b3 e7e5 c1b2 b8c6 e2e3 g8f6",
    "e2e4 e7e5 b1c3 g8f6 f2f4 d7d5",
    "d2d4 d7d5 c1f4 g8f6 e2e3 c7c5",
    "e2e4 b8c6 d2d4 d7d5 b1c3 d5e4",
    "g2g3 d7d5 f1g2 e7e5 d2d3 g8f6",
    "e2e4 e7e5 g1f3 b8c6 d2d4 e5d4 f3d4 g8f6",
]


def parse_tc(tc):
    base, _, inc = tc.partition("+")
    return float(base), float(inc or 0)


def parse_options(items):
    out = {}
    for item in items or []:
        name, _, value = item.partition("=")
        try:
            out[name] = int(value)
        except ValueError:
            out[name] = value
    return out


def play_game(args, index, opening, retro_white):
    base, inc = parse_tc(args.tc)
    retro = chess.engine.SimpleEngine.popen_uci(args.retro)
    opp = chess.engine.SimpleEngine.popen_uci(args.opponent)
    try:
        retro.configure(parse_options(args.retro_option))
        opp.configure(parse_options(args.opponent_option))
        board = chess.Board()
        for m in opening.split():
            board.push_uci(m)
        clock = {chess.WHITE: base, chess.BLACK: base}
        termination = None
        loser = None
        while True:
            outcome = board.outcome(claim_draw=True)
            if outcome is not None:
                termination = outcome.termination.name.lower()
                result = outcome.result()
                break
            if board.fullmove_number > 300:
                termination, result = "adjudicated draw (300 moves)", "1/2-1/2"
                break
            mover = board.turn
            is_retro = (mover == chess.WHITE) == retro_white
            eng = retro if is_retro else opp
            limit = chess.engine.Limit(
                white_clock=max(clock[chess.WHITE], 0.001),
                black_clock=max(clock[chess.BLACK], 0.001),
                white_inc=inc,
                black_inc=inc,
            )
            t0 = time.monotonic()
            try:
                res = eng.play(board, limit, game=index)
            except chess.engine.EngineError as e:
                termination, loser = f"illegal move or engine error: {e}", mover
                break
            except chess.engine.EngineTerminatedError as e:
                termination, loser = f"engine died: {e}", mover
                break
            used = time.monotonic() - t0
            clock[mover] -= used
            if clock[mover] < 0:
                termination, loser = f"time forfeit ({-clock[mover] * 1000:.0f} ms over)", mover
                break
            clock[mover] += inc
            if res.move is None:
                termination, loser = "no move", mover
                break
            board.push(res.move)
        if loser is not None:
            result = "0-1" if loser == chess.WHITE else "1-0"
        retro_score = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
        if not retro_white:
            retro_score = 1.0 - retro_score
        game = chess.pgn.Game.from_board(board)
        game.headers["Event"] = f"Retro match {args.tc}"
        game.headers["Round"] = str(index + 1)
        game.headers["White"] = "Retro" if retro_white else args.name
        game.headers["Black"] = args.name if retro_white else "Retro"
        game.headers["Result"] = result
        game.headers["Termination"] = termination
        return {
            "index": index,
            "retro_white": retro_white,
            "result": result,
            "score": retro_score,
            "termination": termination,
            "loser_is_retro": loser is not None and ((loser == chess.WHITE) == retro_white),
            "plies": len(board.move_stack),
            "pgn": str(game),
        }
    finally:
        for e in (retro, opp):
            try:
                e.quit()
            except Exception:
                pass


class ProtocolErrors(logging.Handler):
    """Counts the protocol errors python-chess logs and goes on from (invalid ponder moves,
    unexpected output)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def elo(score):
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--retro", default=os.path.join(here, "..", "target", "release", "retro"))
    p.add_argument("--retro-option", action="append", help="NAME=VALUE, repeatable")
    p.add_argument("--opponent", default="/usr/games/stockfish")
    p.add_argument("--opponent-option", action="append", help="NAME=VALUE, repeatable")
    p.add_argument("--name", default=None, help="opponent name in the PGN")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--tc", default="10+0.1", help="seconds+increment per game")
    p.add_argument("--concurrency", type=int, default=2)
    p.add_argument("--pgn", default=None)
    args = p.parse_args()
    args.name = args.name or os.path.basename(args.opponent)

    errors = ProtocolErrors()
    logging.getLogger("chess.engine").addHandler(errors)
    logging.getLogger("chess.engine").propagate = False
    jobs = []
    for i in range(args.games):
        opening = OPENINGS[(i // 2) % len(OPENINGS)]
        jobs.append((i, opening, i % 2 == 0))
    results = []
    lock = threading.Lock()
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.concurrency) as pool:
        futures = [pool.submit(play_game, args, *j) for j in jobs]
        for f in concurrent.futures.as_completed(futures):
            r = f.result()
            with lock:
                results.append(r)
                w = sum(1 for x in results if x["score"] == 1.0)
                d = sum(1 for x in results if x["score"] == 0.5)
                l = sum(1 for x in results if x["score"] == 0.0)
                colour = "white" if r["retro_white"] else "black"
                print(
                    f"game {r['index'] + 1:3d} retro {colour}: {r['result']:7s} {r['termination']} "
                    f"({r['plies']} plies)  running +{w} ={d} -{l}",
                    flush=True,
                )
    n = len(results)
    w = sum(1 for x in results if x["score"] == 1.0)
    d = sum(1 for x in results if x["score"] == 0.5)
    l = sum(1 for x in results if x["score"] == 0.0)
    s = (w + d / 2) / n
    var = (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l * (0 - s) ** 2) / n
    se = math.sqrt(var / n)
    lo, hi = elo(s - 1.96 * se), elo(s + 1.96 * se)
    time_losses = sum(1 for x in results if x["loser_is_retro"] and x["termination"].startswith("time"))
    illegal = sum(1 for x in results if x["loser_is_retro"] and x["termination"].startswith("illegal"))
    opp_time = sum(1 for x in results if not x["loser_is_retro"] and x["termination"].startswith("time"))
    print(f"\nRetro vs {args.name} {parse_options(args.opponent_option)} at {args.tc}, {n} games "
          f"in {time.monotonic() - started:.0f} s")
    print(f"score: +{w} ={d} -{l}  {100 * s:.1f}%")
    print(f"Elo difference: {elo(s):+.0f} (95%: {lo:+.0f} to {hi:+.0f})")
    print(f"Retro time losses: {time_losses}, Retro illegal moves or errors: {illegal}, "
          f"opponent time losses: {opp_time}")
    print(f"protocol errors logged by python-chess (either engine): {len(errors.messages)}")
    for m in sorted(set(errors.messages))[:10]:
        print(f"  {m}")
    if args.pgn:
        with open(args.pgn, "w") as f:
            for r in sorted(results, key=lambda x: x["index"]):
                f.write(r["pgn"] + "\n\n")
    return 0 if time_losses == 0 and illegal == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
