#!/usr/bin/env python3
"""Checks the games of scripts/auto-games.sh with python-chess: a game whose start the table
calls won or lost ("{Table: White mates in 8 (15 plies)}") must end in checkmate after exactly
that many plies; a drawn start must not end in checkmate. Prints one summary line per directory."""
import os
import re
import sys

import chess.pgn

for d in sys.argv[1:]:
    exact = draws = bad = 0
    for f in sorted(os.listdir(d)):
        with open(os.path.join(d, f), encoding="utf-8") as fh:
            game = chess.pgn.read_game(fh)
        m = re.search(r"\((\d+) pl(?:y|ies)\)", game.comment)
        plies = len(list(game.mainline_moves()))
        end = game.end().board()
        if m:
            if end.is_checkmate() and plies == int(m.group(1)):
                exact += 1
            else:
                bad += 1
                print(f"{f}: table {m.group(1)} plies, game {plies} plies, mate {end.is_checkmate()}")
        elif "draw" in game.comment:
            if end.is_checkmate():
                bad += 1
                print(f"{f}: drawn start ended in checkmate")
            else:
                draws += 1
        else:
            bad += 1
            print(f"{f}: no table verdict at the start: {game.comment}")
    print(f"{os.path.basename(d.rstrip('/'))}: {exact + draws + bad} games, {exact} mated in exactly the table's plies, {draws} drawn starts not lost, {bad} wrong")
