#!/usr/bin/env python3
"""Checks that Retro plays table positions perfectly through the UCI protocol (python-chess's
chess.engine as the client): from each position it mates in exactly the table's number of plies
against the table's best defence and in no more against other defenders (Debian's stockfish,
random moves); when losing it lasts exactly as long as the table says against the table's best
attack; when drawn it never lets the table value drop to a loss. Not part of the test suite.

The table values come from `retro probe` (Retro's own tables, checked against Gaviota's).

    scripts/endgames.py --tables tables [--stockfish /usr/games/stockfish]
"""

import argparse
import os
import random
import subprocess
import sys

import chess
import chess.engine

# Positions of several materials, side to move winning, losing or drawn.
POSITIONS = [
    "8/8/8/4k3/8/8/8/3QK3 w - - 0 1",
    "8/8/3k4/8/8/8/8/Q3K3 b - - 0 1",
    "7k/8/8/8/8/8/8/K2Q4 w - - 0 1",
    "8/8/8/4k3/8/8/8/R3K3 w - - 0 1",
    "8/8/8/3k4/8/8/8/1R2K3 b - - 0 1",
    "k7/8/8/8/8/8/8/6KR w - - 0 1",
    "8/8/8/4k3/8/8/8/2BNK3 w - - 0 1",
    "7k/8/8/8/8/8/8/KBN5 b - - 0 1",
    "8/8/3k4/8/8/2r5/8/1Q2K3 w - - 0 1",
    "3k4/8/8/8/8/8/3r4/Q3K3 w - - 0 1",
    "8/1k6/8/8/8/2r5/8/4K1Q1 b - - 0 1",
    "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
    "8/8/8/8/4k3/8/4P3/4K3 b - - 0 1",
    "8/8/8/8/8/2k5/5P2/6K1 w - - 0 1",
    "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1",
    "8/8/4k3/8/3K4/8/2R5/5b2 w - - 0 1",
    "8/8/4k3/8/3K4/8/2R5/5b2 b - - 0 1",
    "8/5k2/8/4p3/4P3/4K3/8/8 w - - 0 1",
    "8/8/2k5/8/8/8/1P4K1/4r3 b - - 0 1",
    "6k1/8/6K1/6P1/8/8/8/8 w - - 0 1",
]


class Tables:
    def __init__(self, retro, tables):
        self.retro, self.tables = retro, tables

    def values(self, fens):
        """(wdl, plies) for the side to move of each FEN."""
        if not fens:
            return []
        out = subprocess.run(
            [self.retro, "probe", "--tables", self.tables, *fens],
            capture_output=True, text=True, check=True,
        ).stdout.splitlines()
        vals = []
        for line in out:
            fen, wdl, plies = line.split("\t")
            if wdl == "error":
                raise RuntimeError(f"{fen}: {plies}")
            vals.append((wdl, int(plies)))
        return vals

    def value(self, board):
        return self.values([board.fen()])[0]

    def rank(self, board):
        """Legal moves with their value for the mover, best first."""
        moves = list(board.legal_moves)
        fens = []
        for m in moves:
            board.push(m)
            fens.append(board.fen())
            board.pop()
        ranked = []
        for m, (wdl, plies) in zip(moves, self.values(fens)):
            # The child's value is for the opponent.
            if wdl == "win":
                key = -1000 + plies + 1
            elif wdl == "loss":
                key = 1000 - plies - 1
            else:
                key = 0
            ranked.append((key, m))
        ranked.sort(key=lambda x: -x[0])
        return [m for _, m in ranked]


def play(board, retro, retro_color, opponent, tables, max_plies=300):
    """Plays out the game; returns (termination, plies, drops) where drops counts Retro moves
    that made its table value worse."""
    drops = 0
    plies = 0
    while plies < max_plies:
        if board.is_checkmate():
            return ("checkmate" if board.turn != retro_color else "mated"), plies, drops
        if board.is_stalemate() or board.is_insufficient_material():
            return "draw", plies, drops
        if board.is_repetition(3):
            return "repetition", plies, drops
        if board.turn == retro_color:
            before = tables.value(board)
            move = retro.play(board, chess.engine.Limit(time=0.05)).move
            board.push(move)
            after = tables.value(board)
            # Optimal: a win stays a win one ply shorter, a loss a loss one ply shorter, a draw
            # a draw.
            expected = {"win": "loss", "loss": "win", "draw": "draw"}[before[0]]
            if after[0] != expected or (before[0] != "draw" and after[1] != before[1] - 1):
                drops += 1
        else:
            board.push(opponent(board))
        plies += 1
    return "max plies", plies, drops


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--retro", default=os.path.join(here, "..", "target", "release", "retro"))
    p.add_argument("--tables", default=os.path.join(here, "..", "tables"))
    p.add_argument("--stockfish", default="/usr/games/stockfish")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    tables = Tables(args.retro, args.tables)
    rng = random.Random(args.seed)
    retro = chess.engine.SimpleEngine.popen_uci(args.retro)
    retro.configure({"TablePath": os.path.abspath(args.tables)})
    sf = chess.engine.SimpleEngine.popen_uci(args.stockfish)
    opponents = {
        "table": lambda b: tables.rank(b)[0],
        "stockfish": lambda b: sf.play(b, chess.engine.Limit(time=0.05)).move,
        "random": lambda b: rng.choice(list(b.legal_moves)),
    }
    failures = 0
    games = 0
    for fen in POSITIONS:
        start = chess.Board(fen)
        wdl, plies = tables.value(start)
        for name, opp in opponents.items():
            board = start.copy()
            term, n, drops = play(board, retro, start.turn, opp, tables)
            games += 1
            ok = drops == 0
            # "checkmate": Retro mated its opponent; "mated": Retro was mated.
            if wdl == "win":
                ok = ok and term == "checkmate" and (n == plies if name == "table" else n <= plies)
            elif wdl == "loss":
                if name == "table":
                    ok = ok and term == "mated" and n == plies
            else:
                ok = ok and term != "mated"
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {fen:40s} table {wdl} {plies:3d} plies | vs {name:9s}: "
                  f"{term} after {n} plies, {drops} non-optimal Retro moves", flush=True)
    retro.quit()
    sf.quit()
    print(f"\n{games} games from {len(POSITIONS)} positions, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
