#!/usr/bin/env python3
"""Plays the cursed wins and blessed losses of tests/data/cursed5.fen through python-chess with
the 50-move rule applied (the game drawn when the halfmove clock reaches 100), Retro as a real
UCI engine with its 5-piece tables.

- A cursed win: Retro (Syzygy50MoveRule on) is the side to move; it must report a draw
  (`score cp` within one centipawn of 0, with an `info string` naming the cursed win) and the
  game must not be lost; it plays on for the mate, against Stockfish as the defender (which
  may give the win away with a capture) and against Retro under the rule (which must hold the
  draw by the rule).
- A blessed loss: Retro (Syzygy50MoveRule on) defends against the strongest mating attempt the
  tables give, Retro with Syzygy50MoveRule off (the fastest mate by DTM, which ignores the
  clock). It must report a draw and hold it to the rule's draw. For comparison, the same games
  with the defender playing pure DTM too (`longest resistance to mate`).

    python3 scripts/cursed.py [--retro target/release/retro] [--stockfish /usr/games/stockfish]
                              [--movetime 0.05]

Prints one line per game and a summary; exits 1 if Retro under the rule lost a game, or reported
anything but a draw at the start of one.
"""

import argparse
import os
import sys

import chess
import chess.engine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def play(fen, engines, limit):
    """Plays from `fen`; `engines[color]` moves for that colour. Returns the result for the side
    to move at the start ('win', 'loss', 'draw by the 50-move rule', 'draw'), the plies, and the
    first move's reported info."""
    board = chess.Board(fen)
    side = board.turn
    first = None
    while True:
        if board.is_checkmate():
            return ("win" if board.turn != side else "loss"), len(board.move_stack), first
        if board.is_stalemate() or board.is_insufficient_material():
            return "draw", len(board.move_stack), first
        if board.halfmove_clock >= 100:
            return "draw by the 50-move rule", len(board.move_stack), first
        res = engines[board.turn].play(board, limit, info=chess.engine.INFO_ALL)
        if first is None:
            first = res.info
        board.push(res.move)


def reported_draw(info, kind):
    """Whether the first move's info says draw, naming the kind of position."""
    score = info.get("score")
    cp = score.relative.score() if score is not None else None
    text = info.get("string", "")
    return cp is not None and abs(cp) <= 1 and kind in text, cp, text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--retro", default=os.path.join(ROOT, "target/release/retro"))
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--movetime", type=float, default=0.05)
    ap.add_argument("--set", default=os.path.join(ROOT, "tests/data/cursed5.fen"))
    args = ap.parse_args()
    rows = []
    for line in open(args.set):
        if line.strip() and not line.startswith("#"):
            fen, kind = line.split("#")[0].strip().split("\t")[:2]
            rows.append((fen, kind.strip()))
    rule = chess.engine.SimpleEngine.popen_uci([args.retro], cwd=ROOT)
    rule.configure({"Syzygy50MoveRule": True})
    rule2 = chess.engine.SimpleEngine.popen_uci([args.retro], cwd=ROOT)
    rule2.configure({"Syzygy50MoveRule": True})
    dtm = chess.engine.SimpleEngine.popen_uci([args.retro], cwd=ROOT)
    dtm.configure({"Syzygy50MoveRule": False})
    stockfish = chess.engine.SimpleEngine.popen_uci([args.stockfish])
    limit = chess.engine.Limit(time=args.movetime)
    failures = 0
    tally = {}
    try:
        for fen, kind in rows:
            side = chess.Board(fen).turn
            if kind == "cursed-win":
                games = [("rule v stockfish", {side: rule, not side: stockfish}, True),
                         ("rule v rule", {side: rule, not side: rule2}, True)]
            else:
                games = [("rule defends v dtm", {side: rule, not side: dtm}, True),
                         ("dtm defends v dtm", {side: dtm, not side: dtm}, False)]
            for name, engines, checked in games:
                result, plies, info = play(fen, engines, limit)
                ok_report, cp, text = reported_draw(info or {}, kind)
                tally.setdefault((kind, name), {}).setdefault(result, 0)
                tally[(kind, name)][result] += 1
                # Against Retro's own defence under the rule, a cursed win is no win either.
                bad = checked and (result == "loss" or not ok_report
                                   or (name == "rule v rule" and result != "draw by the 50-move rule"))
                failures += bad
                print(f"{fen}\t{kind}\t{name}\t{result}\t{plies} plies\tfirst score cp {cp}"
                      f"\t{text}" + ("\tFAILED" if bad else ""))
    finally:
        for e in (rule, rule2, dtm, stockfish):
            e.quit()
    for (kind, name), results in tally.items():
        print(f"{kind:13} {name:20} {results}")
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
