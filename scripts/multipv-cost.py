#!/usr/bin/env python3
"""What MultiPV costs in playing strength: one Retro build plays itself, one side searching with
MultiPV N (its move: the first move of line 1, as `bestmove` gives it), the other with MultiPV
1, at a fixed number of nodes per move (so the result does not depend on the machine's load).
Openings from the book, each played twice with colours swapped. Prints W/D/L of the MultiPV side
and the Elo difference with its 95% interval.

    scripts/multipv-cost.py --engine target/release/retro --multipv 3 --nodes 20000 --games 300

python-chess manages the MultiPV option itself, so the MultiPV side is asked through
`analyse(..., multipv=N)` and the other through `play`.
"""

import argparse
import math
import os
import random
import sys
import tempfile

import chess
import chess.engine

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))


def start(engine, tables, workdir):
    cfg = os.path.join(workdir, "engine.toml")
    with open(cfg, "w") as f:
        f.write(f'table_path = "{tables}"\nbuild_missing_tables = false\n')
    return chess.engine.SimpleEngine.popen_uci([engine, "--config", cfg])


def play_game(multi, single, multipv, fen, multi_white, nodes):
    board = chess.Board(fen)
    limit = chess.engine.Limit(nodes=nodes)
    while not board.is_game_over(claim_draw=True) and board.fullmove_number < 250:
        multi_to_move = (board.turn == chess.WHITE) == multi_white
        if multi_to_move:
            infos = multi.analyse(board, limit, multipv=multipv)
            move = infos[0]["pv"][0]
        else:
            move = single.play(board, limit).move
        if move not in board.legal_moves:
            raise SystemExit(f"illegal move {move} in {board.fen()}")
        board.push(move)
    outcome = board.outcome(claim_draw=True)
    if outcome is None or outcome.winner is None:
        return 0.5
    return 1.0 if (outcome.winner == chess.WHITE) == multi_white else 0.0


def elo(score):
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default=os.path.join(ROOT, "target", "release", "retro"))
    ap.add_argument("--multipv", type=int, default=3)
    ap.add_argument("--nodes", type=int, default=20000)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--book", default=os.path.join(ROOT, "..", "shared", "books", "8moves_v3.epd"))
    ap.add_argument("--tables", default=os.path.join(ROOT, "tables"))
    args = ap.parse_args()
    with open(args.book) as f:
        book = [" ".join(l.split()[:4]) + " 0 1" for l in f if l.strip()]
    rng = random.Random(args.seed)
    results = []
    with tempfile.TemporaryDirectory() as wa, tempfile.TemporaryDirectory() as wb:
        multi = start(args.engine, args.tables, wa)
        single = start(args.engine, args.tables, wb)
        try:
            for pair in range(args.games // 2):
                fen = rng.choice(book)
                for multi_white in (True, False):
                    results.append(play_game(multi, single, args.multipv, fen, multi_white, args.nodes))
                n = len(results)
                s = sum(results) / n
                print(f"{n} games: MultiPV {args.multipv} scores {s:.3f} ({elo(s):+.0f} Elo)", file=sys.stderr)
        finally:
            multi.quit()
            single.quit()
    n = len(results)
    w, d, l = results.count(1.0), results.count(0.5), results.count(0.0)
    s = sum(results) / n
    var = sum((r - s) ** 2 for r in results) / n
    se = math.sqrt(var / n)
    lo, hi = elo(s - 1.96 * se), elo(s + 1.96 * se)
    print(f"MultiPV {args.multipv} against MultiPV 1 at {args.nodes} nodes a move: {n} games, "
          f"+{w} ={d} -{l}, score {s:.3f}, Elo {elo(s):+.0f} (95%: {lo:+.0f} to {hi:+.0f})")


if __name__ == "__main__":
    main()
