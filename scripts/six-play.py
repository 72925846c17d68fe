#!/usr/bin/env python3
"""Retro plays random positions of a 6-piece table against Stockfish, through python-chess's
chess.engine, with the 50-move rule: from positions DTZ50 says are won, Retro (the winner) must
win; from positions DTZ50 says are drawn (draws and cursed wins), Retro, on either side, must not
lose. Prints each game and the totals.

    scripts/six-play.py --retro target/release/retro --tables DIR --material KRNvKNN \
        --won 20 --drawn 10 --seed 1 [--min-dtz 40] [--stockfish /usr/games/stockfish]
        [--syzygy DIR]

Positions are drawn at random (pieces on random squares, legal, white to move) and classed by
`retro probe --dtz`. Stockfish thinks --sf-ms per move (with Syzygy files from --syzygy when
given); Retro plays from its tables (and searches --retro-ms where they do not decide).
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile

import chess
import chess.engine


def random_fen(material, rng):
    """A random legal position of `material` (e.g. KRNvKNN) with white to move."""
    white, black = material[1:].split("vK")
    pieces = [chess.Piece(chess.KING, chess.WHITE), chess.Piece(chess.KING, chess.BLACK)]
    pieces += [chess.Piece(chess.PIECE_SYMBOLS.index(c.lower()), chess.WHITE) for c in white]
    pieces += [chess.Piece(chess.PIECE_SYMBOLS.index(c.lower()), chess.BLACK) for c in black]
    while True:
        board = chess.Board(None)
        for p, sq in zip(pieces, rng.sample(range(64), len(pieces))):
            board.set_piece_at(sq, p)
        board.turn = chess.WHITE
        if board.is_valid() and not board.is_game_over():
            return board.fen()


def classify(retro, tables, fens):
    """`retro probe --dtz` of each FEN: (wdl50 class, dtz)."""
    out = subprocess.run([retro, "probe", "--tables", tables, "--dtz"], input="\n".join(fens),
                         capture_output=True, text=True, check=True).stdout
    res = {}
    for line in out.splitlines():
        f = line.split("\t")
        if len(f) >= 5:
            res[f[0]] = (f[3], int(f[4]))
    return res


def play(fen, retro_white, engines, args):
    """One game from `fen`; returns the result string and the plies."""
    board = chess.Board(fen)
    retro, sf = engines
    while not board.is_game_over(claim_draw=False) and board.halfmove_clock < 100:
        retro_to_move = (board.turn == chess.WHITE) == retro_white
        eng = retro if retro_to_move else sf
        limit = chess.engine.Limit(time=(args.retro_ms if retro_to_move else args.sf_ms) / 1000)
        r = eng.play(board, limit)
        board.push(r.move)
        if board.is_repetition(3):
            break
    if board.halfmove_clock >= 100 or board.is_repetition(3):
        return "1/2-1/2", board.ply()
    return board.result(claim_draw=False), board.ply()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--retro", default="target/release/retro")
    ap.add_argument("--tables", required=True)
    ap.add_argument("--material", default="KRNvKNN")
    ap.add_argument("--won", type=int, default=20)
    ap.add_argument("--drawn", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--min-dtz", type=int, default=1,
                    help="won positions only this far from their zeroing move, or farther")
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--syzygy", default="")
    ap.add_argument("--sf-ms", type=int, default=100)
    ap.add_argument("--retro-ms", type=int, default=100)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    won, drawn = [], []
    while len(won) < args.won or len(drawn) < args.drawn:
        fens = [random_fen(args.material, rng) for _ in range(200)]
        for fen, (cls, dtz) in classify(args.retro, args.tables, fens).items():
            if cls == "win" and dtz >= args.min_dtz and len(won) < args.won:
                won.append((fen, dtz))
            elif cls in ("draw", "cursed-win") and len(drawn) < args.drawn:
                drawn.append((fen, cls))
    cfg = tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False)
    cfg.write(f'table_path = "{os.path.abspath(args.tables)}"\nbuild_missing_tables = false\n'
              'log_level = "warn"\n')
    cfg.close()
    retro = chess.engine.SimpleEngine.popen_uci([args.retro, "--config", cfg.name])
    sf = chess.engine.SimpleEngine.popen_uci(args.stockfish)
    if args.syzygy:
        sf.configure({"SyzygyPath": args.syzygy})
    failures = 0
    try:
        for k, (fen, dtz) in enumerate(won):
            result, plies = play(fen, True, (retro, sf), args)
            ok = result == "1-0"
            failures += not ok
            print(f"won {k + 1:2}: {fen}  DTZ50 {dtz:3}  {result} in {plies} plies  "
                  f"{'ok' if ok else 'FAIL'}", flush=True)
        for k, (fen, cls) in enumerate(drawn):
            # Retro on the side that stands worse by the rule: black (the table's loser), and
            # white too for the draws proper.
            retro_white = k % 2 == 1
            result, plies = play(fen, retro_white, (retro, sf), args)
            lost = result == ("0-1" if retro_white else "1-0")
            failures += lost
            side = "white" if retro_white else "black"
            print(f"drawn {k + 1:2}: {fen}  {cls}  Retro {side}  {result} in {plies} plies  "
                  f"{'FAIL' if lost else 'ok'}", flush=True)
    finally:
        retro.quit()
        sf.quit()
        os.unlink(cfg.name)
    print(f"{len(won)} won positions, {len(drawn)} drawn: {failures} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
