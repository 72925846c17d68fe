#!/usr/bin/env python3
"""Fits the win-draw-loss model of UCI_ShowWDL (crates/retro-engine/src/winrate.rs) on Retro's own
self-play data, and reports the fit: data size, loss, and a calibration table on held-out games.

The data are `retro datagen` files (FEN<TAB>RESULT<TAB>SOURCE<TAB>SCORE, RESULT and SCORE for
white), e.g. the chunks of `scripts/datagen.sh`:

    scripts/datagen.sh /work/data/wdl 60 100 5000 1
    scripts/fit-wdl.py /work/data/wdl/chunk-*.tsv

or the parts of `retro datagen --dir`, each written as text by `retro convert-data --to-text`
(docs/engine.md, UCI_ShowWDL). Needs numpy and scipy (Debian: python3-numpy python3-scipy).

The model (Stockfish's form): at score v (centipawns, side to move) and material m (pawns 1,
knights and bishops 3, rooks 5, queens 9, both sides, clamped to 10..78, x = m / 58), the side to
move wins with probability 1 / (1 + exp((a(x) - v) / b(x))) and loses with that of -v; a and b
are quadratics in x. The six coefficients maximise the likelihood of the games' results
(win, draw or loss for the side to move). Positions of 4 pieces or fewer are left out: the
tables give their value exactly. Every tenth file (the first, the eleventh, ...) is held out:
its games are not fitted, and the calibration table compares the model's mean predicted win,
draw and loss rates with the observed ones per score bucket on them.

Prints the Rust constants A and B for winrate.rs and a Markdown report.
"""

import argparse
import math
import sys

import numpy as np
from scipy.optimize import minimize

VALUES = {"p": 1, "n": 3, "b": 3, "r": 5, "q": 9}
MATERIAL_MIN, MATERIAL_MAX, MATERIAL_SCALE = 10, 78, 58.0
TABLE_PIECES = 4
BUCKETS = [-10000, -600, -400, -300, -200, -150, -100, -50, -20, 20, 50, 100, 150, 200, 300, 400, 600, 10000]


def read(paths):
    """Rows of (score for the side to move, material, outcome index 0 win / 1 draw / 2 loss),
    split into fitted and held-out."""
    fit, held = [], []
    for i, path in enumerate(sorted(paths)):
        rows = held if i % 10 == 0 else fit
        with open(path) as f:
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if len(cols) < 4:
                    continue
                fen, result, _source, score = cols[:4]
                board, turn = fen.split(" ")[:2]
                pieces = sum(c.isalpha() for c in board)
                if pieces <= TABLE_PIECES:
                    continue
                material = sum(VALUES.get(c.lower(), 0) for c in board)
                white = turn == "w"
                v = int(score) if white else -int(score)
                r = float(result) if white else 1.0 - float(result)
                outcome = 0 if r > 0.75 else (1 if r > 0.25 else 2)
                rows.append((v, material, outcome))
    return np.array(fit, dtype=float), np.array(held, dtype=float)


def probabilities(params, v, m):
    x = np.clip(m, MATERIAL_MIN, MATERIAL_MAX) / MATERIAL_SCALE
    a = params[0] + x * (params[1] + x * params[2])
    b = np.maximum(params[3] + x * (params[4] + x * params[5]), 1.0)
    win = 1.0 / (1.0 + np.exp((a - v) / b))
    loss = 1.0 / (1.0 + np.exp((a + v) / b))
    draw = np.clip(1.0 - win - loss, 1e-9, 1.0)
    return win, draw, loss


def nll(params, data):
    v, m, o = data[:, 0], data[:, 1], data[:, 2].astype(int)
    p = np.stack(probabilities(params, v, m), axis=1)
    chosen = np.clip(p[np.arange(len(o)), o], 1e-12, 1.0)
    return -np.mean(np.log(chosen))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    fit, held = read(args.files)
    if len(fit) == 0 or len(held) == 0:
        sys.exit("need at least two data files (one is held out) with positions of 5 pieces or more")
    start = np.array([150.0, 0.0, 0.0, 80.0, 0.0, 0.0])
    res = minimize(nll, start, args=(fit,), method="Nelder-Mead",
                   options={"maxiter": 20000, "maxfev": 20000, "xatol": 1e-3, "fatol": 1e-9})
    res = minimize(nll, res.x, args=(fit,), method="BFGS")
    p = res.x
    counts = lambda d: [int((d[:, 2] == k).sum()) for k in range(3)]
    print(f"fitted positions: {len(fit)} (W/D/L {counts(fit)}), held out: {len(held)} (W/D/L {counts(held)})")
    print(f"mean negative log-likelihood: fitted {nll(p, fit):.4f}, held out {nll(p, held):.4f}")
    base = np.bincount(fit[:, 2].astype(int), minlength=3) / len(fit)
    base_nll = -np.mean(np.log(base[held[:, 2].astype(int)]))
    print(f"held out, the outcome frequencies alone (no score): {base_nll:.4f}")
    print()
    print("const A: [f64; 3] = [{:.2f}, {:.2f}, {:.2f}];".format(*p[:3]))
    print("const B: [f64; 3] = [{:.2f}, {:.2f}, {:.2f}];".format(*p[3:]))
    print()
    print("| score (cp) | positions | win predicted / observed | draw predicted / observed | loss predicted / observed |")
    print("|---|---|---|---|---|")
    v, m, o = held[:, 0], held[:, 1], held[:, 2].astype(int)
    w, d, l = probabilities(p, v, m)
    for lo, hi in zip(BUCKETS, BUCKETS[1:]):
        sel = (v >= lo) & (v < hi)
        n = int(sel.sum())
        if n == 0:
            continue
        obs = [float((o[sel] == k).mean()) for k in range(3)]
        pred = [float(w[sel].mean()), float(d[sel].mean()), float(l[sel].mean())]
        name = f"{lo} to {hi}" if abs(lo) < 10000 and abs(hi) < 10000 else (f"below {hi}" if lo <= -10000 else f"{lo} and more")
        print(f"| {name} | {n} | {pred[0]:.3f} / {obs[0]:.3f} | {pred[1]:.3f} / {obs[1]:.3f} | {pred[2]:.3f} / {obs[2]:.3f} |")


if __name__ == "__main__":
    main()
