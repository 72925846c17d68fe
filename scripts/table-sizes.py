#!/usr/bin/env python3
"""Sizes and compression ratios of Retro's table files.

Usage: scripts/table-sizes.py [DIR]   (default: tables)

Reads each *.rdtm header (format version 2, see tables/README.md) and prints, per table, the
file size, the raw size (one byte per entry and side to move) and their ratio, then totals by
piece count and, for 5 pieces, by tables with and without pawns.
"""
import glob
import os
import struct
import sys


def main() -> int:
    directory = sys.argv[1] if len(sys.argv) > 1 else "tables"
    rows = []
    for path in sorted(glob.glob(os.path.join(directory, "*.rdtm"))):
        with open(path, "rb") as f:
            header = f.read(96)
        if len(header) < 96 or header[:8] != b"RETRODTM":
            print(f"{path}: not a Retro table, skipped", file=sys.stderr)
            continue
        version = struct.unpack("<I", header[8:12])[0]
        if version != 2:
            print(f"{path}: format version {version}, skipped", file=sys.stderr)
            continue
        name = header[16:32].split(b"\0")[0].decode("ascii", "replace")
        entries = struct.unpack("<Q", header[40:48])[0]
        storage = "zstd" if header[38] == 1 else "raw"
        rows.append((name, 2 * entries, os.path.getsize(path), storage))
    if not rows:
        print(f"no tables in {directory}", file=sys.stderr)
        return 1
    for name, raw, size, storage in rows:
        print(f"{name:<8} {storage:<4} {size:>13,} bytes  raw {raw:>13,}  ratio {raw / size:6.2f}")
    groups = {}
    for name, raw, size, _ in rows:
        pieces = len(name) - 1
        key = f"{pieces} pieces" + ((" with pawns" if "P" in name else " without pawns") if pieces == 5 else "")
        g = groups.setdefault(key, [0, 0, 0])
        g[0] += 1
        g[1] += raw
        g[2] += size
    for key, (n, raw, size) in sorted(groups.items()):
        print(f"{key}: {n} tables, {size / 1e9:.3f} GB of {raw / 1e9:.3f} GB raw, ratio {raw / size:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
