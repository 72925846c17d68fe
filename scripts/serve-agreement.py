#!/usr/bin/env python3
"""`retro serve`'s /standard against the reference tables: every move (and the root) of random
3-4-piece positions, fresh each run, compared by a real HTTP client with Syzygy (category and
DTZ) and Gaviota (DTM), probed with python-chess.

    pip install chess
    scripts/serve-agreement.py --bin target/release/retro --tables DIR \
        --syzygy ../shared/oracle/syzygy --gaviota ../shared/oracle/gaviota [--positions 2000]

Category: Syzygy's WDL (after zeroing) read with the position's clock as lichess reads it; a
position whose DTZ plus clock passes 100 is a cursed win or blessed loss by the rule. DTZ: equal,
or one ply further from zero where Syzygy stores the value rounded (counted apart). DTM: equal to
Gaviota's (plies; 0 for draws and for a mated side). Exits 1 on any disagreement.
"""

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import chess
import chess.gaviota
import chess.syzygy

from serve_common import start_server

PIECES = "QRBNP"


def materials():
    """Every 3- and 4-piece material as (white extras, black extras)."""
    out = []
    for a in PIECES:
        out.append((a, ""))
    for a in PIECES:
        for b in PIECES:
            if PIECES.index(a) <= PIECES.index(b):
                out.append((a + b, ""))
            out.append((a, b))
    return out


def random_board(rng, white, black):
    while True:
        board = chess.Board(None)
        squares = rng.sample(range(64), 2 + len(white) + len(black))
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for sq, sym in zip(squares[2:], white + black.lower()):
            board.set_piece_at(sq, chess.Piece.from_symbol(sym))
        board.turn = rng.random() < 0.5
        board.halfmove_clock = rng.choice([0, 0, 0, rng.randrange(100)])
        if board.is_valid():
            return board


def category(wdl, dtz, halfmoves):
    """lichess's category of a position with Syzygy WDL `wdl` (after zeroing) and DTZ `dtz`,
    with `halfmoves` on its clock: a win or loss whose zeroing move comes after the clock reaches
    100 is a cursed win or blessed loss."""
    if wdl == 0 or dtz == 0:
        return "draw"
    if halfmoves == 0:
        return {2: "win", 1: "cursed-win", -1: "blessed-loss", -2: "loss"}[wdl]
    if abs(dtz) + halfmoves <= 100:
        return "win" if dtz > 0 else "loss"
    return "cursed-win" if dtz > 0 else "blessed-loss"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/retro")
    ap.add_argument("--tables", required=True)
    ap.add_argument("--syzygy", default="../shared/oracle/syzygy")
    ap.add_argument("--gaviota", default="../shared/oracle/gaviota")
    ap.add_argument("--positions", type=int, default=2000)
    ap.add_argument("--seed", type=int)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else int(time.time() * 1000) % 2**32
    rng = random.Random(seed)
    print(f"seed {seed}")

    server, addr = start_server(args.bin, args.tables)
    base = f"http://{addr}"
    syz = chess.syzygy.open_tablebase(args.syzygy)
    gav = chess.gaviota.open_tablebase(args.gaviota)
    mats = materials()
    counts = dict(positions=0, moves=0, category=0, dtz=0, dtz_rounded=0, dtm=0, clock_edge=0)
    bad = []

    def compare(board, got, what):
        """One position (the root, or the position after a move) against the oracles."""
        if board.is_checkmate():
            ok = got["checkmate"] and got["category"] in ("loss", "blessed-loss") and got["dtm"] == 0
            counts["category"] += 1
            counts["dtm"] += 1
            if not ok:
                bad.append(f"{what}: checkmate answered {got}")
            return
        wdl = syz.probe_wdl(board)
        dtz = syz.probe_dtz(board)
        dtm = gav.probe_dtm(board)
        ours = got["dtz"]
        if ours == dtz:
            counts["dtz"] += 1
        elif dtz != 0 and ours == dtz + (1 if dtz > 0 else -1):
            counts["dtz_rounded"] += 1
        else:
            bad.append(f"{what}: dtz {ours}, Syzygy {dtz}")
        want = category(wdl, dtz, board.halfmove_clock)
        if got["category"] == want:
            counts["category"] += 1
        elif ours != dtz and got["category"] == category(wdl, ours, board.halfmove_clock):
            # Syzygy's rounded DTZ is a ply short of the exact one at the clock's edge.
            counts["category"] += 1
            counts["clock_edge"] += 1
        else:
            bad.append(f"{what}: category {got['category']}, Syzygy wdl {wdl} dtz {dtz} clock "
                       f"{board.halfmove_clock} -> {want}")
        if got["dtm"] == dtm:
            counts["dtm"] += 1
        else:
            bad.append(f"{what}: dtm {got['dtm']}, Gaviota {dtm}")

    started = time.time()
    try:
        while counts["positions"] < args.positions:
            white, black = rng.choice(mats)
            if rng.random() < 0.5:
                white, black = black, white
            board = random_board(rng, white, black)
            fen = board.fen()
            url = f"{base}/standard?fen={urllib.parse.quote(fen.replace(' ', '_'))}"
            with urllib.request.urlopen(url, timeout=30) as r:
                answer = json.load(r)
            counts["positions"] += 1
            if not board.is_game_over():
                # The root's own category is its best move's, flipped; compare the root's
                # distances only where the clock is 0 (lichess judges the root one ply back).
                if board.halfmove_clock == 0:
                    compare(board, answer, fen)
            legal = {mv.uci(): mv for mv in board.legal_moves}
            if sorted(legal) != sorted(m["uci"] for m in answer["moves"]):
                bad.append(f"{fen}: moves differ")
                continue
            for mv in answer["moves"]:
                after = board.copy()
                after.push(legal[mv["uci"]])
                counts["moves"] += 1
                compare(after, mv, f"{fen} {mv['uci']}")
            if counts["positions"] % 500 == 0:
                print(f"{counts['positions']} positions, {counts['moves']} moves, "
                      f"{len(bad)} disagreements, {time.time() - started:.0f} s", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=10)
    print(json.dumps(counts))
    for line in bad[:20]:
        print("DISAGREE", line)
    print(f"{counts['positions']} positions, {counts['moves']} moves: category {counts['category']}, "
          f"dtz {counts['dtz']} (+{counts['dtz_rounded']} rounded by Syzygy), dtm {counts['dtm']}; "
          f"{len(bad)} disagreements; {time.time() - started:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
