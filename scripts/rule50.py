#!/usr/bin/env python3
"""Plays the positions of tests/data/rule50.fen out through python-chess with the 50-move
rule applied: Retro (the side to move, a real UCI engine) against a defender, the game drawn as
soon as the halfmove clock reaches 100 (what a GUI or match runner does). In these positions
the fastest mate would cross the rule's 100 plies, so Retro must take a slower line that wins
in time; with Syzygy50MoveRule off (pure DTM) it should not.

    python3 scripts/rule50.py [--retro target/release/retro] [--stockfish /usr/games/stockfish]
                              [--movetime 0.05] [--no-rule]

Prints one line per game and a summary; exits 1 if Retro failed to mate in any game (with the
rule on).
"""

import argparse
import os
import sys

import chess
import chess.engine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def play(fen, retro, defender, limit):
    board = chess.Board(fen)
    side = board.turn
    while True:
        if board.is_checkmate():
            return ("mate" if board.turn != side else "mated"), board
        if board.is_stalemate() or board.is_insufficient_material():
            return "draw", board
        if board.halfmove_clock >= 100:
            return "draw by the 50-move rule", board
        engine = retro if board.turn == side else defender
        board.push(engine.play(board, limit).move)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--retro", default=os.path.join(ROOT, "target/release/retro"))
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--movetime", type=float, default=0.05)
    ap.add_argument("--no-rule", action="store_true", help="Syzygy50MoveRule false")
    ap.add_argument("--set", default=os.path.join(ROOT, "tests/data/rule50.fen"))
    args = ap.parse_args()
    fens = [l.strip() for l in open(args.set) if l.strip() and not l.startswith("#")]
    retro = chess.engine.SimpleEngine.popen_uci([args.retro], cwd=ROOT)
    retro.configure({"Syzygy50MoveRule": not args.no_rule})
    defender = chess.engine.SimpleEngine.popen_uci([args.stockfish])
    limit = chess.engine.Limit(time=args.movetime)
    mates = 0
    try:
        for fen in fens:
            result, board = play(fen, retro, defender, limit)
            mates += result == "mate"
            print(f"{fen}\t{result}\t{len(board.move_stack)} plies")
    finally:
        retro.quit()
        defender.quit()
    rule = "off" if args.no_rule else "on"
    print(f"Syzygy50MoveRule {rule}: {mates} of {len(fens)} won by mate within the rule")
    return 0 if args.no_rule or mates == len(fens) else 1


if __name__ == "__main__":
    sys.exit(main())
