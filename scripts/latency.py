#!/usr/bin/env python3
"""Measures how fast Retro reacts during a search: the time from `stop` to `bestmove`, from
`isready` to `readyok`, and from `quit` to the end of the process, over several runs.

    scripts/latency.py [--runs 20] [--retro target/release/retro]
"""

import argparse
import os
import statistics
import subprocess
import sys
import time


def read_until(proc, prefix):
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"retro ended before {prefix!r}")
        if line.startswith(prefix):
            return line


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--retro", default=os.path.join(here, "..", "target", "release", "retro"))
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args()
    stop_ms, ready_ms, quit_ms = [], [], []
    for _ in range(args.runs):
        proc = subprocess.Popen([args.retro], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, bufsize=1)

        def send(line):
            proc.stdin.write(line + "\n")
            proc.stdin.flush()

        send("uci")
        read_until(proc, "uciok")
        send(f"setoption name Threads value {args.threads}")
        send("position startpos moves e2e4")
        send("isready")
        read_until(proc, "readyok")
        send("go infinite")
        time.sleep(0.3)
        t = time.monotonic()
        send("isready")
        read_until(proc, "readyok")
        ready_ms.append((time.monotonic() - t) * 1000)
        t = time.monotonic()
        send("stop")
        read_until(proc, "bestmove")
        stop_ms.append((time.monotonic() - t) * 1000)
        send("go infinite")
        time.sleep(0.3)
        t = time.monotonic()
        send("quit")
        proc.wait(timeout=10)
        quit_ms.append((time.monotonic() - t) * 1000)
    for name, v in (("isready -> readyok", ready_ms), ("stop -> bestmove", stop_ms),
                    ("quit -> exit", quit_ms)):
        print(f"{name:20s} median {statistics.median(v):6.2f} ms  max {max(v):6.2f} ms  ({len(v)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
