#!/usr/bin/env python3
"""Figures of a legality run against a labelled file.

Reads the verdicts that `retro count-legal FILE --verdicts OUT` writes (INDEX, MULT, SECONDS and
the line of `retro legal`: FEN, verdict, reason, moves) and, where FILE has a `label` column (as
cpr1k.tsv and texel_tests.tsv have), compares each verdict with its position's label:

    python3 scripts/legality-figures.py --verdicts OUT [--labels FILE]

Prints per label the verdicts, the wrong ones (a legal position called illegal or the other way
round), the time per position (median, maximum) and the proof-game lengths of the legal
verdicts; without --labels, the same per verdict. Exit status 1 when a verdict is wrong.
"""

import argparse
import csv
import statistics
import sys

LEGAL_LABELS = {"legal", "not_illegal"}


def verdicts(path):
    """(index, fen, verdict, seconds, plies or None) per line of a --verdicts file; a last line
    still being written is left out."""
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.endswith("\n"):
                print(f"{path}:{n}: unfinished line left out", file=sys.stderr)
                break
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 5:
                sys.exit(f"{path}:{n}: expected INDEX MULT SECONDS FEN VERDICT, got {line!r}")
            try:
                seconds = float(cols[2])
            except ValueError:
                sys.exit(f"{path}:{n}: seconds {cols[2]!r} is not a number")
            plies = None
            if cols[4] == "legal" and len(cols) > 5 and cols[5].startswith("proof game: "):
                plies = int(cols[5].split()[2])
            try:
                index = int(cols[0])
            except ValueError:
                sys.exit(f"{path}:{n}: index {cols[0]!r} is not a number")
            out.append((index, cols[3], cols[4], seconds, plies))
    return out


def labels(path):
    """(fen, label) of each row of a labelled tab-separated file, by index from 1 (the
    indices count-legal writes)."""
    with open(path, encoding="utf-8") as f:
        rows = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        if "label" not in (rows.fieldnames or []):
            sys.exit(f"{path}: no label column")
        return {i: (r["fen"], r["label"]) for i, r in enumerate(rows, 1)}


def spread(xs, unit):
    """Median (of an even count, the mean of the middle two) and maximum."""
    if not xs:
        return "-"
    return f"median {statistics.median(xs):.2f}{unit}, max {max(xs):.2f}{unit}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--verdicts", required=True)
    ap.add_argument("--labels")
    args = ap.parse_args()
    vs = verdicts(args.verdicts)
    by_index = labels(args.labels) if args.labels else {}
    groups = {}
    wrong = []
    for index, fen, verdict, seconds, plies in vs:
        label = verdict
        if args.labels:
            row_fen, label = by_index.get(index, (None, None))
            if row_fen != fen:
                sys.exit(f"verdict {index} is of {fen}, the labelled row of {row_fen}")
        groups.setdefault(label, []).append((verdict, seconds, plies))
        if (label in LEGAL_LABELS and verdict == "illegal") or (
            label == "illegal" and verdict == "legal"
        ):
            wrong.append((label, verdict, fen))
    print(f"{len(vs)} positions, {sum(v[3] for v in vs):.1f} s in all")
    for label in sorted(groups):
        rows = groups[label]
        counts = {}
        for verdict, _, _ in rows:
            counts[verdict] = counts.get(verdict, 0) + 1
        told = ", ".join(f"{v} {n}" for v, n in sorted(counts.items()))
        print(f"{label}: {len(rows)} ({told})")
        print(f"  time per position: {spread([s for _, s, _ in rows], ' s')}")
        legal_times = [s for v, s, _ in rows if v == "legal"]
        if legal_times:
            print(f"  time per proven legal: {spread(legal_times, ' s')}")
            print(f"  within 5 s: {sum(t <= 5 for t in legal_times)}, "
                  f"within 60 s: {sum(t <= 60 for t in legal_times)}")
        plies = [p for _, _, p in rows if p is not None]
        if plies:
            print(f"  proof games: {len(plies)}, plies min {min(plies)}, "
                  f"median {statistics.median(plies)}, max {max(plies)}")
    print(f"wrong: {len(wrong)}")
    for label, verdict, fen in wrong:
        print(f"  {label} called {verdict}: {fen}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
