#!/usr/bin/env python3
"""Compares Retro's perft with python-chess's on random Chess960 positions. Not part of the
test suite.

Each position is a random Chess960 start position (one of the 960, drawn with the seed)
followed by 0..K random legal plies played with python-chess (a game that ends on the way is
drawn again). Retro runs as a plain subprocess (perft is a console command, not UCI): it gets
`setoption name UCI_Chess960 value true`, then for each position `position fen FEN` and
`perft D`, and its divide lines (`MOVE: COUNT`) and total (`perft D: N nodes ...`) are read back.
The FEN alternates between X-FEN (KQkq where unambiguous) and Shredder-FEN (rook files), so
both castling notations are exercised. Python-chess counts the same tree (`chess.Board(fen,
chess960=True)`, the last ply in bulk with `legal_moves.count()`); the totals are compared and,
on a mismatch, the per-move counts, printing the first difference. Exits 1 on any mismatch.

Retro starts in a scratch directory with an engine.toml that turns its table build off.

    nice -n 5 scripts/chess960-perft.py --engine /work/data/bin/retro-960 --positions 1000 --depth 4
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time

import chess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))

DIVIDE = re.compile(r"^([a-h][1-8][a-h][1-8][qrbn]?):\s*(\d+)$")


def random_position(rng, max_plies):
    """A random Chess960 start position followed by 0..max_plies random legal plies, redrawn
    when the game ends on the way (or at the end)."""
    while True:
        n = rng.randrange(960)
        board = chess.Board.from_chess960_pos(n)
        plies = rng.randint(0, max_plies)
        ok = True
        for _ in range(plies):
            moves = list(board.legal_moves)
            if not moves:
                ok = False
                break
            board.push(rng.choice(moves))
        if ok and any(True for _ in board.legal_moves) and not board.is_insufficient_material():
            return n, plies, board


def perft(board, depth):
    """Leaf count of the tree of legal moves to `depth` (>= 1), the last ply counted in bulk."""
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total


def divide(board, depth):
    """Per root move (king-takes-rook castling, as a chess960 board writes it): its leaf count."""
    out = {}
    for move in board.legal_moves:
        if depth == 1:
            out[board.uci(move)] = 1
            continue
        board.push(move)
        count = perft(board, depth - 1)
        board.pop()
        out[board.uci(move)] = count
    return out


class Retro:
    def __init__(self, command):
        self.dir = tempfile.mkdtemp(prefix="retro-960perft-")
        config = os.path.join(self.dir, "engine.toml")
        with open(config, "w") as f:
            f.write('build_missing_tables = false\ntable_path = ""\n')
        self.proc = subprocess.Popen(
            command + ["--config", config],
            cwd=self.dir,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.send("uci")
        self.wait_for(lambda l: l == "uciok")
        self.send("setoption name UCI_Chess960 value true")
        self.send("isready")
        self.wait_for(lambda l: l == "readyok")

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def readline(self):
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"Retro exited (code {self.proc.poll()}) while reading its output")
        return line.strip()

    def wait_for(self, pred):
        lines = []
        while True:
            line = self.readline()
            lines.append(line)
            if pred(line):
                return lines

    def perft(self, fen, depth):
        """Retro's divide (move -> count), total and reported milliseconds."""
        self.send(f"position fen {fen}")
        self.send(f"perft {depth}")
        head = f"perft {depth}:"
        lines = self.wait_for(lambda l: l.startswith(head))
        moves = {}
        for line in lines[:-1]:
            m = DIVIDE.match(line)
            if m:
                moves[m.group(1)] = int(m.group(2))
        last = lines[-1].split()
        total = int(last[2])
        ms = int(last[5]) if len(last) > 5 and last[5].isdigit() else 0
        return moves, total, ms

    def close(self):
        try:
            self.send("quit")
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()


def first_difference(ours, theirs):
    """The first root move (in sorted order) whose counts differ, or that only one side has."""
    for move in sorted(set(ours) | set(theirs)):
        a, b = ours.get(move), theirs.get(move)
        if a != b:
            return move, a, b
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--engine", default=os.path.join(ROOT, "target", "release", "retro"),
                   help="Retro's binary (with its arguments)")
    p.add_argument("--positions", type=int, default=1000)
    p.add_argument("--plies", type=int, default=12, help="at most this many random plies")
    p.add_argument("--depth", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--progress", type=int, default=100, help="print a line every N positions (0: never)")
    args = p.parse_args()
    if args.depth < 1:
        raise SystemExit("--depth must be at least 1")

    rng = random.Random(args.seed)
    retro = Retro(args.engine.split())
    started = time.monotonic()
    nodes = 0
    mismatches = 0
    retro_ms = 0
    py_s = 0.0
    with_castling = 0
    starts = set()
    try:
        for k in range(args.positions):
            n, plies, board = random_position(rng, args.plies)
            starts.add(n)
            # Alternate X-FEN and Shredder-FEN.
            fen = board.fen(shredder=bool(k % 2))
            if any(board.is_castling(m) for m in board.legal_moves):
                with_castling += 1
            theirs, total, ms = retro.perft(fen, args.depth)
            retro_ms += ms
            t0 = time.monotonic()
            check = chess.Board(fen, chess960=True)
            ours = divide(check, args.depth)
            py_s += time.monotonic() - t0
            expected = sum(ours.values())
            nodes += expected
            if total != expected or ours != theirs:
                mismatches += 1
                print(f"MISMATCH #{k}: start {n} + {plies} plies, fen {fen}, depth {args.depth}: "
                      f"Retro {total}, python-chess {expected}")
                diff = first_difference(ours, theirs)
                if diff:
                    move, a, b = diff
                    print(f"  first difference: {move}: python-chess {a}, Retro {b}")
                elif total != sum(theirs.values()):
                    print(f"  divide lines agree but Retro's total {total} != their sum {sum(theirs.values())}")
                sys.stdout.flush()
            if args.progress and (k + 1) % args.progress == 0:
                print(f"{k + 1} positions, {nodes} nodes, {mismatches} mismatches, "
                      f"{time.monotonic() - started:.0f} s", flush=True)
    finally:
        retro.close()
    elapsed = time.monotonic() - started
    print(f"\npositions: {args.positions} (depth {args.depth}, 0..{args.plies} random plies, seed {args.seed}; "
          f"{len(starts)} distinct start positions, {with_castling} with a legal castling at the root)")
    print(f"nodes compared: {nodes}")
    print(f"mismatches: {mismatches}")
    print(f"time: {elapsed:.1f} s (python-chess {py_s:.1f} s, Retro {retro_ms / 1000:.1f} s)")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
