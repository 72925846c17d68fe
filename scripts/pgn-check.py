#!/usr/bin/env python3
"""Reads the PGN files written by `retro play` with python-chess (`pip install chess`) and checks
each game: no parse errors, every move legal from the FEN tag, a comment after every move, and a
result that agrees with the last position (1-0 / 0-1 at checkmate, 1/2-1/2 at stalemate,
insufficient material, threefold repetition or the 50-move rule, * for an abandoned game).

Usage: scripts/pgn-check.py FILE_OR_DIR...   Prints one line per problem and a summary; exits 1
when a game fails."""
import os
import sys

import chess
import chess.pgn


def files(args):
    for a in args:
        if os.path.isdir(a):
            for f in sorted(os.listdir(a)):
                if f.endswith(".pgn"):
                    yield os.path.join(a, f)
        else:
            yield a


def expected_result(board, termination):
    if termination == "abandoned":
        return "*"
    if board.is_checkmate():
        return "0-1" if board.turn == chess.WHITE else "1-0"
    if (board.is_stalemate() or board.is_insufficient_material()
            or board.can_claim_threefold_repetition() or board.halfmove_clock >= 100):
        return "1/2-1/2"
    return None


def main():
    games = bad = moves = 0
    endings = {}
    for path in files(sys.argv[1:]):
        with open(path, encoding="utf-8") as f:
            while True:
                game = chess.pgn.read_game(f)
                if game is None:
                    break
                games += 1
                problems = [str(e) for e in game.errors]
                board = game.board()
                if game.headers.get("SetUp") != "1" or "FEN" not in game.headers:
                    problems.append("no SetUp/FEN tags")
                for node in game.mainline():
                    moves += 1
                    if not node.comment:
                        problems.append(f"no comment after {node.san()}")
                board = game.end().board()
                want = expected_result(board, game.headers.get("Termination"))
                got = game.headers.get("Result")
                if want != got:
                    problems.append(f"result {got}, python-chess expects {want}")
                last = game.end().comment if game.end() is not game else game.comment
                ending = last.split("; ")[-1] if last else "?"
                endings[ending] = endings.get(ending, 0) + 1
                if problems:
                    bad += 1
                    print(f"{path}: {'; '.join(problems)}")
    print(f"{games} games, {moves} moves read by python-chess {chess.__version__}; {bad} with problems")
    print("endings: " + ", ".join(f"{k} {v}" for k, v in sorted(endings.items())))
    sys.exit(1 if bad or games == 0 else 0)


if __name__ == "__main__":
    main()
