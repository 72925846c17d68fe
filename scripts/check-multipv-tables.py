#!/usr/bin/env python3
"""Checks Retro's UCI MultiPV in endgame-table positions against independent oracles.

With `MultiPV 256`, `UCI_ShowWDL true` and Retro's 3-4-piece tables (`table_path`), `go depth 1`
in a position the tables cover must answer one `info ... multipv K score ... wdl W D L pv MOVE ...`
line per legal move, best first, each score the exact table value of the position after that
move for the side that plays it, under the 50-move rule from the position's halfmove clock:

- `score mate N` / `score mate -N`: a win / loss whose DTM mate fits the rule (the DTM after
  the move plus the clock after it, 0 after a capture or pawn move, <= 100); N = ceil(plies/2)
  for a win, plies/2 for a loss (plies from the position, the move included);
- `score cp S`, |S| >= 19000 (S = +-(20000 - plies to the zeroing move)): a win / loss under the
  rule (Syzygy WDL +-2 and |DTZ| + clock after the move <= 100) whose mate does not fit;
- `score cp 0`: a draw, including a cursed win / blessed loss (Syzygy WDL +-1) and a win the
  clock has spoiled;
- `wdl 1000 0 0`, `0 1000 0` or `0 0 1000` accordingly.

Positions come from Retro's own generator (`retro random-position MATERIAL --count N --seed S`,
uniformly random legal positions, no mates or stalemates) over every 3- and 4-piece material;
most keep a halfmove clock of 0, a fraction get a random clock 1..99, and a fraction the clock
100 - |DTM| at which the side to move's mate (or mated line) exactly fits the rule (where a mate
competes with wins that only the DTZ promises). For every position the script checks the number
of lines, that every legal move appears exactly once, each line's score and wdl against the
oracles (Gaviota DTM for the mate distance, Syzygy WDL/DTZ for the rule, both from
../shared/oracle, never used by Retro), the order of the lines (mate wins by distance, other
wins, draws, other losses, mate losses by distance) and that the first line and
`bestmove` are a best move.

python-chess's DTZ may count one ply less than the real zeroing distance ("DTZ50'' with
rounding"), so moves whose |DTZ| + clock after the move lies within 1 of 100 (and whose mate
does not fit the rule anyway) are counted as boundary cases: either the rule-win/loss score or
cp 0 is accepted there. The cp magnitude (20000 - plies to the zeroing move) is compared with
Syzygy's DTZ for information only.

    python3 scripts/check-multipv-tables.py [--engine /work/data/bin/retro-mpv]
        [--positions 1000] [--seed 1] [--tables /work/data/tables]
        [--gaviota ../shared/oracle/gaviota] [--syzygy ../shared/oracle/syzygy]
        [--clock-fraction 0.35] [--edge-fraction 0.1] [--show 10]

Prints a summary (positions, moves checked, mismatches with the first few FEN + move + expected +
got, boundary cases, time); exits 1 on any mismatch.
"""

import argparse
import collections
import os
import random
import re
import subprocess
import sys
import tempfile
import time

import chess
import chess.engine
import chess.gaviota
import chess.syzygy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PIECES = "QRBNP"


def materials():
    """Every 3- and 4-piece material, strongest side first (35, as many as Gaviota's tables)."""
    out = [f"K{a}vK" for a in PIECES]
    for i, a in enumerate(PIECES):
        for b in PIECES[i:]:
            out.append(f"K{a}{b}vK")
    for i, a in enumerate(PIECES):
        for b in PIECES[i:]:
            out.append(f"K{a}vK{b}")
    return out


def generate(engine, cfg, count, seed, clock_fraction, edge_fraction, gtb):
    """`count` positions spread evenly over the materials, some with a nonzero clock: a random
    one (`clock_fraction`), or (`edge_fraction`) the clock at which the side to move's DTM mate
    (or its mated line) exactly fits the rule, 100 - |DTM| (Gaviota chooses it)."""
    mats = materials()
    rng = random.Random(seed)
    per = [count // len(mats) + (1 if i < count % len(mats) else 0) for i in range(len(mats))]
    boards = []
    for i, (mat, n) in enumerate(zip(mats, per)):
        if n == 0:
            continue
        out = subprocess.run(
            [engine, "--config", cfg, "random-position", mat, "--count", str(n),
             "--seed", str(seed * 1000 + i)],
            check=True, capture_output=True, text=True,
        ).stdout
        fens = [l.strip() for l in out.splitlines() if l.strip()]
        if len(fens) != n:
            raise SystemExit(f"random-position {mat}: {len(fens)} positions, wanted {n}")
        for fen in fens:
            board = chess.Board(fen)
            if not board.is_valid():
                raise SystemExit(f"random-position {mat}: invalid position {fen}")
            # A nonzero clock only where no en passant square says the last move was a pawn's.
            r = rng.random()
            clock = 0
            if board.ep_square is None and r < edge_fraction:
                clock = 100 - abs(gtb.probe_dtm(board))
                clock = clock if 1 <= clock <= 99 else 0
            elif board.ep_square is None and r < edge_fraction + clock_fraction:
                clock = rng.randint(1, 99)
            if clock:
                board.halfmove_clock = clock
                # Enough moves played for that many plies since the last zeroing move.
                board.fullmove_number = max(board.fullmove_number, clock // 2 + 2)
            boards.append((mat, board))
    rng.shuffle(boards)
    return boards


# Expected values. kind: "mate" (n = signed UCI mate moves), "cp" (sign = +1/-1), "draw".
Expected = collections.namedtuple("Expected", "kind n sign plies")


def key(e):
    """Order of values, best for the mover largest."""
    if e.kind == "mate":
        return (4, -e.plies) if e.n > 0 else (0, e.plies)
    if e.kind == "cp":
        return (3, 0) if e.sign > 0 else (1, 0)
    return (2, 0)


def show(e):
    if e.kind == "mate":
        return f"mate {e.n} ({e.plies} plies)"
    if e.kind == "cp":
        return "cp >= 19000" if e.sign > 0 else "cp <= -19000"
    return "cp 0"


WDL = {"win": (1000, 0, 0), "draw": (0, 1000, 0), "loss": (0, 0, 1000)}


def outcome(e):
    if e.kind == "draw":
        return "draw"
    return "win" if (e.n if e.kind == "mate" else e.sign) > 0 else "loss"


class OracleError(Exception):
    pass


def expect(board, move, gtb, syz):
    """The acceptable values of `move` for the mover (a list: two where the DTZ rounding of
    python-chess leaves the rule's verdict open, the first the strict reading), whether it is
    a boundary case, and Syzygy's |DTZ| plus one (the plies to the zeroing move) for the cp
    magnitude, or None."""
    clock = board.halfmove_clock
    child = board.copy(stack=False)
    c_after = 0 if board.is_zeroing(move) else clock + 1
    child.push(move)
    if child.is_checkmate():
        return [Expected("mate", 1, 1, 1)], False, None
    d = gtb.probe_dtm(child)
    wdl = syz.probe_wdl(child)
    dtz = syz.probe_dtz(child)
    if d == 0:
        if wdl != 0:
            raise OracleError(f"Gaviota draw, Syzygy WDL {wdl}")
        return [Expected("draw", 0, 0, 0)], False, None
    plies = abs(d) + 1
    sign = 1 if d < 0 else -1  # the child's side to move is mated: the mover wins
    if (sign > 0 and wdl not in (-2, -1)) or (sign < 0 and wdl not in (2, 1)):
        raise OracleError(f"Gaviota DTM {d}, Syzygy WDL {wdl}")
    # The mate after the move fits the rule from the clock after it (a capture or pawn move
    # resets it): certain whatever the defence.
    if abs(d) + c_after <= 100:
        if abs(wdl) != 2:
            raise OracleError(f"mate fits in {plies} plies from clock {clock}, Syzygy WDL {wdl}")
        n = (plies + 1) // 2 if sign > 0 else -(plies // 2)
        return [Expected("mate", n, sign, plies)], False, abs(dtz) + 1
    if abs(wdl) == 1:
        return [Expected("draw", 0, 0, 0)], False, None
    t = abs(dtz) + c_after
    rule = Expected("cp", 0, sign, plies)
    draw = Expected("draw", 0, 0, 0)
    if abs(t - 100) <= 1:
        return ([rule, draw] if t <= 100 else [draw, rule]), True, abs(dtz) + 1
    return [rule if t < 100 else draw], False, abs(dtz) + 1


def got_value(info):
    """The engine's line as an Expected-like tuple (plies unknown for mates: derived), or a
    reason why it cannot be read."""
    score = info.get("score")
    if score is None:
        return None, "no score"
    s = score.relative
    if s.is_mate():
        n = s.mate()
        if n is None or n == 0:
            return None, f"score {s}"
        return Expected("mate", n, 1 if n > 0 else -1, 2 * n - 1 if n > 0 else -2 * n), None
    cp = s.score()
    if cp == 0:
        return Expected("draw", 0, 0, 0), None
    if abs(cp) >= 19000:
        return Expected("cp", cp, 1 if cp > 0 else -1, 0), None
    return None, f"score cp {cp}"


def same(e, g):
    if e.kind != g.kind:
        return False
    if e.kind == "mate":
        return e.n == g.n
    if e.kind == "cp":
        return e.sign == g.sign
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", default="/work/data/bin/retro-mpv")
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tables", default="/work/data/tables")
    oracle = os.path.normpath(os.path.join(ROOT, "../shared/oracle"))
    ap.add_argument("--gaviota", default=os.path.join(oracle, "gaviota"))
    ap.add_argument("--syzygy", default=os.path.join(oracle, "syzygy"))
    ap.add_argument("--clock-fraction", type=float, default=0.35,
                    help="fraction of positions given a random halfmove clock 1..99")
    ap.add_argument("--edge-fraction", type=float, default=0.1,
                    help="fraction of positions given the clock 100 - |DTM| at which the mate "
                    "exactly fits the rule")
    ap.add_argument("--show", type=int, default=10, help="mismatches printed in full")
    args = ap.parse_args()

    start = time.monotonic()
    tmp = tempfile.TemporaryDirectory(prefix="mpv-check-")
    cfg = os.path.join(tmp.name, "engine.toml")
    with open(cfg, "w") as f:
        f.write("build_missing_tables = false\n")
        f.write(f"table_path = \"{os.path.abspath(args.tables)}\"\n")

    gtb = chess.gaviota.open_tablebase(args.gaviota)
    boards = generate(args.engine, cfg, args.positions, args.seed, args.clock_fraction,
                      args.edge_fraction, gtb)
    syz = chess.syzygy.open_tablebase(args.syzygy)
    engine = chess.engine.SimpleEngine.popen_uci([args.engine, "--config", cfg], cwd=tmp.name)
    engine.configure({"UCI_ShowWDL": True})

    mismatches = []  # (fen, move, expected, got, what)
    stats = collections.Counter()
    per_material = collections.Counter()
    by_kind = collections.Counter()
    boundary = collections.Counter()
    cp_diff = collections.Counter()
    oracle_errors = []

    def bad(board, move, expected, got, what):
        mismatches.append((board.fen(), move, expected, got, what))

    try:
        for mat, board in boards:
            stats["positions"] += 1
            if board.halfmove_clock:
                stats["positions with clock > 0"] += 1
            legal = list(board.legal_moves)
            with engine.analysis(board, chess.engine.Limit(depth=1), multipv=256,
                                 info=chess.engine.INFO_ALL) as analysis:
                best = analysis.wait()
                infos = list(analysis.multipv)
            if len(infos) != len(legal):
                bad(board, None, f"{len(legal)} lines", f"{len(infos)} lines", "line count")
            seen = collections.Counter()
            lines = []  # (k, move, acceptable values, got value)
            scores = []  # (k, move, the reported score)
            for k, info in enumerate(infos, 1):
                if info.get("multipv") != k:
                    bad(board, None, f"multipv {k}", f"multipv {info.get('multipv')}", "numbering")
                pv = info.get("pv") or []
                if not pv:
                    bad(board, None, "a pv", "none", f"line {k}")
                    continue
                move = pv[0]
                seen[move] += 1
                if move not in legal:
                    bad(board, move, "a legal move", move.uci(), f"line {k}")
                    continue
                try:
                    acceptable, is_boundary, zero_plies = expect(board, move, gtb, syz)
                except OracleError as e:
                    oracle_errors.append((board.fen(), move.uci(), str(e)))
                    continue
                stats["moves checked"] += 1
                per_material[mat] += 1
                g, why = got_value(info)
                if g is None:
                    bad(board, move, " or ".join(map(show, acceptable)), why, f"line {k}")
                    continue
                ok = any(same(e, g) for e in acceptable)
                if is_boundary:
                    boundary["boundary moves"] += 1
                    if same(acceptable[0], g):
                        boundary["engine agrees with the strict reading"] += 1
                    elif ok:
                        boundary["engine takes the other reading"] += 1
                if not ok:
                    bad(board, move, " or ".join(map(show, acceptable)),
                        str(info["score"].relative),
                        f"line {k} score (clock {board.halfmove_clock})")
                    continue
                e = next(e for e in acceptable if same(e, g))
                by_kind[f"{outcome(e)} {e.kind}" if e.kind != "draw" else "draw"] += 1
                w = info.get("wdl")
                want = WDL[outcome(e)]
                if w is None:
                    bad(board, move, f"wdl {want}", "no wdl", f"line {k} wdl")
                elif tuple(w.relative) != want:
                    bad(board, move, f"wdl {want}", f"wdl {tuple(w.relative)}", f"line {k} wdl")
                if e.kind == "cp" and zero_plies is not None:
                    # 20000 - (plies to the zeroing move) against Syzygy's |DTZ| + 1 (+1 rounding).
                    diff = (20000 - abs(g.n)) - zero_plies
                    cp_diff["exact" if diff == 0 else "+1 (DTZ rounding)" if diff == 1
                            else f"{diff:+d}"] += 1
                lines.append((k, move, e))
                scores.append((k, move, info["score"].relative))
            for m in legal:
                if seen[m] != 1:
                    bad(board, m, "once", f"{seen[m]} times", "move coverage")
            # The scores as reported never rise from one line to the next.
            for (k1, m1, s1), (k2, m2, s2) in zip(scores, scores[1:]):
                if s1 < s2:
                    bad(board, m2, f"at most line {k1}'s {s1} ({m1.uci()})", f"line {k2} {s2}",
                        "score order")
                    break
            if lines:
                keys = [key(e) for _, _, e in lines]
                for (k1, m1, e1), (k2, m2, e2) in zip(lines, lines[1:]):
                    if key(e1) < key(e2):
                        bad(board, m2, f"after line {k1} ({m1.uci()} {show(e1)})",
                            f"line {k2} {show(e2)}", "order")
                        break
                if lines[0][0] != 1 or key(lines[0][2]) != max(keys):
                    top = max(lines, key=lambda l: key(l[2]))
                    bad(board, lines[0][1], f"a best move ({top[1].uci()} {show(top[2])})",
                        f"{lines[0][1].uci()} {show(lines[0][2])}", "first line")
                if best.move != lines[0][1]:
                    bad(board, best.move, f"bestmove {lines[0][1].uci()} (line 1)",
                        f"bestmove {best.move.uci() if best.move else None}", "bestmove")
    finally:
        engine.quit()
        gtb.close()
        syz.close()
        tmp.cleanup()

    elapsed = time.monotonic() - start
    print(f"engine {args.engine}, tables {args.tables}, seed {args.seed}")
    print(f"positions: {stats['positions']} over {len(per_material)} materials "
          f"({stats['positions with clock > 0']} with a halfmove clock > 0)")
    print(f"moves checked: {stats['moves checked']}")
    print("  by expected value: " + ", ".join(f"{k} {v}" for k, v in sorted(by_kind.items())))
    print(f"boundary cases (|DTZ| + clock after within 1 of 100): {boundary['boundary moves']}"
          + (f" (engine: strict reading {boundary['engine agrees with the strict reading']}, "
             f"other reading {boundary['engine takes the other reading']})"
             if boundary["boundary moves"] else ""))
    if cp_diff:
        print("cp magnitude vs Syzygy |DTZ|+1 (information): "
              + ", ".join(f"{k} {v}" for k, v in sorted(cp_diff.items())))
    if oracle_errors:
        print(f"oracle disagreements (not counted): {len(oracle_errors)}")
        for fen, mv, why in oracle_errors[: args.show]:
            print(f"  {fen}  {mv}: {why}")
    kinds = collections.Counter(re.sub(r"^line \d+ ?", "", w.split(" (")[0]) or "pv"
                                for _, _, _, _, w in mismatches)
    print(f"mismatches: {len(mismatches)}"
          + (" (" + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) + ")"
             if mismatches else ""))
    for fen, mv, expected, got, what in mismatches[: args.show]:
        print(f"  {fen}  move {mv.uci() if mv else '-'}  [{what}] expected {expected}, got {got}")
    print(f"time: {elapsed:.1f} s")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
