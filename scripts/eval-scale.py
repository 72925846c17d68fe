#!/usr/bin/env python3
"""The scale of the network's centipawns against the hand-written evaluation's: both
evaluations (the console `eval` command, with `Use NNUE` off and on) of positions played out
randomly from the book, and the least-squares slope of one on the other.

    pip install chess numpy
    scripts/eval-scale.py --bin target/release/retro [--book ../shared/books/8moves_v3.epd]
        [--positions 400] [--eval-file NET]
"""

import argparse
import random
import subprocess
import tempfile

import chess
import numpy as np


def evals(binary, config, fens, nnue, eval_file):
    cmds = ["setoption name Use NNUE value %s" % ("true" if nnue else "false")]
    if eval_file:
        cmds.append(f"setoption name EvalFile value {eval_file}")
    for f in fens:
        cmds += ["position fen " + f, "eval"]
    p = subprocess.run([binary, "--config", config], input="\n".join(cmds + ["quit"]) + "\n",
                       capture_output=True, text=True)
    return [int(l.split()[1]) for l in p.stdout.splitlines() if l.startswith("eval:")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/retro")
    ap.add_argument("--book", default="../shared/books/8moves_v3.epd")
    ap.add_argument("--positions", type=int, default=400)
    ap.add_argument("--eval-file")
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    lines = [l for l in open(args.book).read().split("\n") if l.strip()]
    fens = []
    for l in rng.sample(lines, args.positions):
        b = chess.Board(" ".join(l.split()[:4]))
        # A random playout, half its moves captures where there are some: material imbalances.
        for _ in range(rng.randrange(0, 40)):
            moves = list(b.legal_moves)
            if not moves:
                break
            caps = [m for m in moves if b.is_capture(m)]
            b.push(rng.choice(caps if caps and rng.random() < 0.5 else moves))
        if not b.is_game_over() and not b.is_check():
            fens.append(b.fen())
    cfg = tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False)
    cfg.write("build_missing_tables = false\n")
    cfg.close()
    h = np.array(evals(args.bin, cfg.name, fens, False, None))
    n = np.array(evals(args.bin, cfg.name, fens, True, args.eval_file))
    keep = (abs(h) < 1500) & (abs(n) < 1500)
    slope, intercept = np.polyfit(h[keep], n[keep], 1)
    corr = np.corrcoef(h[keep], n[keep])[0, 1]
    print(f"{keep.sum()} positions (of {len(fens)}, both evaluations under 1500 cp): "
          f"network = {slope:.3f} x hand-written + {intercept:.1f} cp, correlation {corr:.4f}; "
          f"mean |hand-written| {abs(h[keep]).mean():.0f} cp, mean |network| {abs(n[keep]).mean():.0f} cp")


if __name__ == "__main__":
    main()
