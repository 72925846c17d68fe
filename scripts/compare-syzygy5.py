#!/usr/bin/env python3
"""Compares Retro's 5-piece DTM and DTZ50 tables with a Syzygy sample.

    python3 scripts/compare-syzygy5.py [--oracle ../shared/oracle/syzygy5/oracle5.tsv]
        [--tables tables] [--retro target/release/retro]

The sample holds lines `FEN<TAB>wdl<TAB>dtz` probed from Syzygy tables (wdl 2 win, 1 cursed
win, 0 draw, -1 blessed loss, -2 loss; dtz signed in plies). Every position is probed with
`retro probe --dtz`; per material the script prints how many positions it compared, how many
agree in WDL50 and in DTZ (exactly, or within one ply: Syzygy stores some DTZ values in full
moves), and the mismatches (the first few in full). Materials whose tables are missing are
counted apart. Exit status 1 when anything disagrees.
"""

import argparse
import collections
import subprocess
import sys

WDL = {"win": 2, "cursed-win": 1, "draw": 0, "blessed-loss": -1, "loss": -2}


def material(fen):
    """The material of a FEN, white's pieces first (as the sample names them)."""
    board = fen.split()[0]
    order = "KQRBNP"
    white = sorted((c for c in board if c in order), key=order.index)
    black = sorted((c.upper() for c in board if c.upper() in order and c.islower()),
                   key=order.index)
    return "".join(white) + "v" + "".join(black)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--oracle", default="../shared/oracle/syzygy5/oracle5.tsv")
    ap.add_argument("--tables", default="tables")
    ap.add_argument("--retro", default="target/release/retro")
    ap.add_argument("--show", type=int, default=5, help="mismatches printed in full")
    args = ap.parse_args()

    rows = []
    with open(args.oracle) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 3:
                rows.append((parts[0], int(parts[1]), int(parts[2])))
    fens = "".join(r[0] + "\n" for r in rows)
    out = subprocess.run([args.retro, "probe", "--dtz", "--tables", args.tables],
                         input=fens, capture_output=True, text=True, check=False)
    lines = out.stdout.splitlines()
    if len(lines) != len(rows):
        sys.exit(f"retro probe printed {len(lines)} lines for {len(rows)} positions: "
                 f"{out.stderr.strip()}")

    stats = collections.OrderedDict()
    bad = []
    for (fen, wdl, dtz), line in zip(rows, lines):
        s = stats.setdefault(material(fen), collections.Counter())
        cols = line.split("\t")
        if cols[1] == "error":
            s["missing" if "table" in cols[2] else "error"] += 1
            if "table" not in cols[2]:
                bad.append((fen, wdl, dtz, line))
            continue
        s["compared"] += 1
        got_wdl, got_dtz = WDL.get(cols[3]), int(cols[4])
        if got_wdl == wdl:
            s["wdl equal"] += 1
        if got_dtz == dtz:
            s["dtz equal"] += 1
        elif abs(got_dtz - dtz) == 1 and (got_dtz > 0) == (dtz > 0):
            s["dtz within one ply"] += 1
        if got_wdl != wdl or abs(got_dtz - dtz) > 1 or (got_dtz > 0) != (dtz > 0):
            s["mismatch"] += 1
            bad.append((fen, wdl, dtz, line))

    total = collections.Counter()
    for m, s in stats.items():
        total.update(s)
        print(f"{m:8} compared {s['compared']:6}  wdl equal {s['wdl equal']:6}  "
              f"dtz equal {s['dtz equal']:6}  within one ply {s['dtz within one ply']:4}  "
              f"mismatches {s['mismatch']:4}  missing {s['missing']:5}  errors {s['error']}")
    print(f"{'all':8} compared {total['compared']:6}  wdl equal {total['wdl equal']:6}  "
          f"dtz equal {total['dtz equal']:6}  within one ply {total['dtz within one ply']:4}  "
          f"mismatches {total['mismatch']:4}  missing {total['missing']:5}  "
          f"errors {total['error']}")
    for fen, wdl, dtz, line in bad[:args.show]:
        print(f"MISMATCH {fen}: syzygy wdl {wdl} dtz {dtz}; retro {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
