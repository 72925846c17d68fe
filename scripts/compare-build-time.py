#!/usr/bin/env python3
"""Compares the build time of two `build-tables` binaries over a whole `--max-pieces` build.

The machine's speed drifts from hour to hour and from day to day, so two whole builds run one
after the other compare the machine as much as the builders. This script runs the two builds
interleaved instead: material by material in build order, each builder builds the material into
its own directory (which holds the sub-tables that builder built), the two taking turns at going
first. Every table line a builder prints carries the table's build time; their sum over all
materials is the build time of `build-tables --max-pieces N` (which builds the same tables, in
the same order, in one process), without the start of each process and the check of the
sub-tables that are already present, which one process does not repeat.

The log (one line per material and builder) makes the run resumable: a material already in it is
not built again, so a run may be stopped and started again later (the ratio then mixes two
sessions, but each material's pair still ran back to back).

With --materials, only the named materials are built, each --rounds times: their sub-tables
must be in both directories already (the same files, e.g. hard links), and before every build the
material's own files are removed from the builder's directory, so that each run builds the
material alone (builders without --only then skip the sub-tables they find). The rounds of a
material run back to back, the builders taking turns at going first.

Usage:
  scripts/compare-build-time.py --old OLD_BIN --new NEW_BIN --old-dir DIR --new-dir DIR \
      --log FILE [--max-pieces 5] [--stop-at HH:MM]
  scripts/compare-build-time.py --old OLD_BIN --new NEW_BIN --old-dir DIR --new-dir DIR \
      --log FILE --materials KQRvKR,KRNvKNN [--rounds 3]
  scripts/compare-build-time.py --log FILE --report
"""

import argparse
import datetime
import glob
import os
import re
import subprocess
import sys
import time

ROLES = "QRBNP"
# A built table's line: its name, then (after the counts) its build time in seconds.
LINE = re.compile(r"^(K[QRBNP]*vK[QRBNP]*)\s+positions\s.*?\s(\d+\.\d+) s \(solve")


def materials(max_pieces):
    """Every canonical material of 3 to max_pieces pieces, in build-tables' build order."""
    out = set()

    def multisets(n, start=0):
        if n == 0:
            yield ""
            return
        for i in range(start, len(ROLES)):
            for rest in multisets(n - 1, i):
                yield ROLES[i] + rest

    for extra in range(1, max_pieces - 1):
        for white_n in range(extra, -1, -1):
            black_n = extra - white_n
            if white_n < black_n:
                continue
            for w in multisets(white_n):
                for b in multisets(black_n):
                    # Canonical: white has more pieces, or as many and the stronger ones.
                    if white_n == black_n and key(w) < key(b):
                        continue
                    out.add("K" + w + "vK" + b)
    return sorted(out, key=lambda m: (len(m) - 1, m.count("P"), m))


def key(side):
    """Piece counts strongest first, compared as build-tables compares sides."""
    return [side.count(r) for r in ROLES]


def read_log(path):
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 9 and parts[0] != "material":
                    rows.append(parts)
    return rows


def run(binary, out_dir, material):
    """Builds one material; returns wall, user, sys, max resident KB, and the tables built."""
    start = time.monotonic()
    proc = subprocess.Popen(
        [binary, "--out", out_dir, "-q", material],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    if status != 0:
        sys.exit(f"{binary} {material} failed (status {status}):\n{output}")
    built = [(m.group(1), float(m.group(2))) for m in map(LINE.match, output.splitlines()) if m]
    return wall, usage.ru_utime, usage.ru_stime, usage.ru_maxrss, built


def report(rows):
    # Only materials both builders have built count, so that the two sums cover the same work.
    pairs = {r[0] for r in rows if r[1] == "old"} & {r[0] for r in rows if r[1] == "new"}
    rows = [r for r in rows if r[0] in pairs]
    totals = {}
    for r in rows:
        t = totals.setdefault(r[1], [0.0, 0.0, 0.0, 0, 0])
        t[0] += float(r[3])
        t[1] += float(r[4]) + float(r[5])
        t[2] += float(r[7])
        t[3] = max(t[3], int(r[6]))
        t[4] += len([x for x in r[8].split(",") if x])
    for name, (wall, cpu, tables, rss, n) in sorted(totals.items()):
        print(
            f"{name}: {n} tables, table times {tables:.1f} s ({tables / 60:.1f} min), "
            f"process wall {wall:.1f} s, cpu {cpu:.1f} s, max resident {rss / 1e6:.2f} GB"
        )
    if "old" in totals and "new" in totals:
        o, n = totals["old"], totals["new"]
        print(
            f"growth over {len(pairs)} materials: table times {100 * (n[2] / o[2] - 1):+.1f}%, "
            f"process wall {100 * (n[0] / o[0] - 1):+.1f}%, cpu {100 * (n[1] / o[1] - 1):+.1f}%"
        )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old")
    ap.add_argument("--new")
    ap.add_argument("--old-dir")
    ap.add_argument("--new-dir")
    ap.add_argument("--log", required=True)
    ap.add_argument("--max-pieces", type=int, default=5)
    ap.add_argument("--stop-at", help="HH:MM (local time): start no material after it")
    ap.add_argument("--materials", help="comma-separated materials to build alone (see above)")
    ap.add_argument("--rounds", type=int, default=1, help="builds of each of --materials")
    ap.add_argument("--report", action="store_true", help="only print the totals of the log")
    a = ap.parse_args()
    if a.report:
        report(read_log(a.log))
        return
    if not (a.old and a.new and a.old_dir and a.new_dir):
        sys.exit("--old, --new, --old-dir and --new-dir are needed to build")
    builders = {"old": (a.old, a.old_dir), "new": (a.new, a.new_dir)}
    for _, d in builders.values():
        os.makedirs(d, exist_ok=True)
    stop = None
    if a.stop_at:
        h, m = map(int, a.stop_at.split(":"))
        stop = datetime.datetime.now().replace(hour=h, minute=m, second=0)
    done = {(r[0], r[1]) for r in read_log(a.log)}
    new_log = not os.path.exists(a.log)
    with open(a.log, "a") as log:
        if new_log:
            log.write("material\tbuilder\tstarted\twall\tuser\tsys\tmaxrss_kb\ttable_s\ttables\n")
        if a.materials:
            # A run of a named material is logged as MATERIAL#ROUND.
            runs = [f"{m}#{r}" for m in a.materials.split(",") for r in range(1, a.rounds + 1)]
        else:
            runs = materials(a.max_pieces)
        for i, m in enumerate(runs):
            if stop and datetime.datetime.now() >= stop:
                print(f"stopped before {m} (--stop-at)")
                break
            order = ["old", "new"] if i % 2 == 0 else ["new", "old"]
            for name in order:
                if (m, name) in done:
                    continue
                binary, out_dir = builders[name]
                if a.materials:
                    for f in glob.glob(os.path.join(out_dir, m.split("#")[0] + ".*")):
                        os.remove(f)
                started = datetime.datetime.now().isoformat(timespec="seconds")
                wall, user, system, rss, built = run(binary, out_dir, m.split("#")[0])
                table_s = sum(s for _, s in built)
                tables = ",".join(f"{t}:{s:.2f}" for t, s in built)
                log.write(
                    f"{m}\t{name}\t{started}\t{wall:.2f}\t{user:.2f}\t{system:.2f}\t{rss}\t"
                    f"{table_s:.2f}\t{tables}\n"
                )
                log.flush()
                print(f"{m:10} {name}: {table_s:8.2f} s in tables, {wall:8.2f} s wall", flush=True)
    report(read_log(a.log))


if __name__ == "__main__":
    main()
