#!/usr/bin/env python3
"""`retro serve` under load: wrk with 64 connections on /standard for 60 s (closed loop: each
connection sends its next request when the answer comes), or wrk2 with 64 connections sending a
fixed total rate (`--rate`, open loop: wrk2 counts each request's latency from when it was due,
correcting coordinated omission), with (optionally)
10,000 malformed or hostile requests sent beside it, the server's memory sampled every second.

    apt-get install wrk && pip install chess   (wrk2 for --rate: make in a clone of giltene/wrk2)
    scripts/serve-load.py --bin target/release/retro --tables DIR --fens FILE \
        [--syzygy DIR] [--hostile 10000] [--seconds 60] [--connections 64]

FILE: one position per line (a FEN, or tab-separated lines whose second column is a FEN, as
../shared/oracle/syzygy5/oracle5.tsv); `--materials KQRvKR,...` keeps only those materials.
Hostile requests: random bytes, FENs of 10,000 characters, 10 kB queries, illegal positions,
unknown paths and parameters, wrong methods, each on its own connection; every answer must be
a 4xx (or, for bytes that are not HTTP, a closed connection), never a 5xx, and the server must
still be running at the end. Prints one JSON line of figures. Exits 1 on a failed goal check.
"""

import argparse
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

from serve_common import start_server

LUA = r"""
local paths = {}
for line in io.lines(os.getenv("RETRO_LOAD_PATHS")) do paths[#paths + 1] = line end
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", paths[(counter * 7919) % #paths + 1])
end
done = function(summary, latency, requests)
  io.write(string.format(
    'WRK {"requests": %d, "seconds": %.3f, "p50_us": %d, "p90_us": %d, "p99_us": %d, "max_us": %d, '
    .. '"connect_errors": %d, "read_errors": %d, "write_errors": %d, "status_errors": %d, "timeouts": %d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max, summary.errors.connect, summary.errors.read,
    summary.errors.write, summary.errors.status, summary.errors.timeout))
end
"""


def material_of(fen):
    board = fen.split()[0]
    w = "".join(sorted((c for c in board if c.isupper()), key="KQRBNP".index))
    b = "".join(sorted((c.upper() for c in board if c.islower()), key="KQRBNP".index))
    return f"{w}v{b}"


def hostile_requests(rng, n):
    """n requests as raw bytes, each with the kind of answer it must get."""
    kinds = []
    for i in range(n):
        k = i % 8
        if k == 0:
            raw = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000)))
            kinds.append(("junk", raw + b"\r\n\r\n"))
        elif k == 1:
            fen = "".join(rng.choice("pnbrqkPNBRQK12345678/ w-") for _ in range(10000))
            kinds.append(("4xx", f"GET /standard?fen={urllib.parse.quote(fen)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()))
        elif k == 2:
            q = "&".join(f"a{j}={'x' * 50}" for j in range(200))
            kinds.append(("4xx", f"GET /standard?{q} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()))
        elif k == 3:
            fen = rng.choice(["8/8/8/8/8/8/8/K7 w - - 0 1", "k6R/8/8/8/8/8/8/K7 w - - 0 1",
                              "KKKKKKKK/8/8/8/8/8/8/kkkkkkkk w - - 0 1", "P7/8/8/8/8/8/8/K1k5 w - - 0 1",
                              "8/8/8/8/8/8/8/8 w - - 0 1", "rnbqkbnr w KQkq - 0 1"])
            kinds.append(("4xx", f"GET /standard?fen={urllib.parse.quote(fen)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()))
        elif k == 4:
            path = "/" + "".join(rng.choice("abc/%._-") for _ in range(rng.randrange(1, 200)))
            kinds.append(("4xx", f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()))
        elif k == 5:
            kinds.append(("4xx", b"DELETE /standard?fen=x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
        elif k == 6:
            bad = "".join(rng.choice("%%zz\x7f\x01") for _ in range(50))
            kinds.append(("4xx", f"GET /standard?fen={bad} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode("latin-1")))
        else:
            kinds.append(("4xx", b"GET /legal?fen=8/8/8/8/8/8/8/K1k5_w_-_-_0_1&time=-1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
    return kinds


def send_hostile(addr, requests, seconds, out):
    host, port = addr.split(":")
    gap = seconds * 0.9 / max(1, len(requests))
    for kind, raw in requests:
        status = None
        try:
            with socket.create_connection((host, int(port)), timeout=10) as s:
                try:
                    s.sendall(raw)
                except OSError:
                    pass
                data = b""
                while True:
                    try:
                        chunk = s.recv(65536)
                    except OSError:
                        break
                    if not chunk:
                        break
                    data += chunk
                    if len(data) > 1 << 20:
                        break
            m = re.match(rb"HTTP/1\.[01] (\d{3})", data)
            status = int(m.group(1)) if m else None
        except OSError as e:
            out["connect_errors"] += 1
            continue
        if status is None:
            out["closed"] += 1
            if kind != "junk":
                out["unexpected"].append(f"{kind}: no answer")
        elif 400 <= status < 500:
            out["4xx"] += 1
        else:
            out[f"{status // 100}xx"] = out.get(f"{status // 100}xx", 0) + 1
            out["unexpected"].append(f"{kind}: {status}")
        time.sleep(gap)


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/retro")
    ap.add_argument("--tables", required=True)
    ap.add_argument("--syzygy")
    ap.add_argument("--fens", required=True)
    ap.add_argument("--materials")
    ap.add_argument("--limit", type=int, default=20000)
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--connections", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--hostile", type=int, default=0)
    ap.add_argument("--label", default="load")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rate", type=int, help="open loop: requests per second in all, sent by wrk2 (else wrk's closed loop)")
    ap.add_argument("--wrk2", default="wrk2", help="wrk2's binary (github.com/giltene/wrk2, built from source)")
    ap.add_argument("--cache-mb", type=int)
    ap.add_argument("--warmup", type=int, default=0,
                    help="seconds of unmeasured wrk load first (fills the block cache)")
    args = ap.parse_args()
    rng = random.Random(args.seed)

    keep = set(args.materials.split(",")) if args.materials else None
    fens = []
    with open(args.fens) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            fen = cols[1] if len(cols) > 1 and "/" in cols[1] else cols[0]
            if "/" not in fen:
                continue
            if keep is None or material_of(fen) in keep:
                fens.append(fen)
    rng.shuffle(fens)
    fens = fens[: args.limit]
    if not fens:
        raise SystemExit("no positions")
    paths = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
    for fen in fens:
        paths.write("/standard?fen=" + urllib.parse.quote(fen.replace(" ", "_"), safe="/_") + "\n")
    paths.close()
    lua = tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False)
    lua.write(LUA)
    lua.close()

    extra = []
    if args.syzygy:
        extra += ["--syzygy", args.syzygy]
    if args.cache_mb:
        extra += ["--cache-mb", str(args.cache_mb)]
    server, addr = start_server(args.bin, args.tables, extra)

    # Warm the page cache and the tables' lazily opened files (one pass over a sample).
    for fen in fens[:200]:
        with urllib.request.urlopen(f"http://{addr}/standard?fen={urllib.parse.quote(fen)}") as r:
            r.read()

    env = dict(os.environ, RETRO_LOAD_PATHS=paths.name)
    if args.warmup:
        subprocess.run(["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{args.warmup}s",
                        "-s", lua.name, f"http://{addr}"], capture_output=True, env=env)

    rss = []
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            rss.append(rss_kb(server.pid))
            time.sleep(1)

    sampler = threading.Thread(target=sample)
    sampler.start()
    hostile = {"4xx": 0, "closed": 0, "connect_errors": 0, "unexpected": []}
    sender = None
    if args.hostile:
        sender = threading.Thread(target=send_hostile, args=(addr, hostile_requests(rng, args.hostile), args.seconds, hostile))
        sender.start()
    tool = [args.wrk2, f"-R{args.rate}", "-U"] if args.rate else ["wrk"]
    wrk = subprocess.run(
        tool + [f"-t{args.threads}", f"-c{args.connections}", f"-d{args.seconds}s", "--latency",
                "--timeout", "10s", "-s", lua.name, f"http://{addr}"],
        capture_output=True, text=True, env=env)
    if sender:
        sender.join()
    stop.set()
    sampler.join()
    alive = server.poll() is None
    server.terminate()
    server.wait(timeout=10)
    for p in (paths.name, lua.name):
        os.unlink(p)

    line = next((l for l in wrk.stdout.splitlines() if l.startswith("WRK ")), None)
    if line is None:
        print(wrk.stdout, wrk.stderr)
        raise SystemExit("wrk printed no figures")
    w = json.loads(line[4:])
    w["errors"] = (w["connect_errors"] + w["read_errors"] + w["write_errors"]
                   + w["status_errors"] + w["timeouts"])
    if args.rate:
        # wrk2 -U also prints the latency from when each request was actually sent (the
        # service time and queueing, without wrk2's own scheduling delays).
        text = wrk.stdout
        at = text.find("Uncorrected Latency")
        if at >= 0:
            for q in ("50", "90", "99"):
                m = re.search(rf"\n\s*{q}\.000%\s+([0-9.]+)(us|ms|s)\b", text[at:])
                if m:
                    v = float(m.group(1)) * {"us": 1, "ms": 1e3, "s": 1e6}[m.group(2)]
                    w[f"uncorrected_p{q}_us"] = round(v)
    samples = [r for r in rss if r is not None]
    result = {
        "label": args.label, "positions": len(fens), "connections": args.connections,
        "cache_mb": args.cache_mb or "default", "warmup_s": args.warmup,
        "mode": f"open loop at {args.rate}/s (wrk2)" if args.rate else "closed loop (wrk)",
        **w, "requests_per_s": round(w["requests"] / w["seconds"]),
        "rss_kb_first": samples[0] if samples else None,
        "rss_kb_middle": samples[len(samples) // 2] if samples else None,
        "rss_kb_last": samples[-1] if samples else None,
        "rss_kb_max": max(samples) if samples else None,
        "server_alive": alive,
    }
    if args.hostile:
        result.update({
            "hostile_sent": args.hostile, "hostile_4xx": hostile["4xx"],
            "hostile_closed": hostile["closed"], "hostile_connect_errors": hostile["connect_errors"],
            "hostile_unexpected": len(hostile["unexpected"]),
        })
    print(json.dumps(result))
    for u in hostile["unexpected"][:10]:
        print("UNEXPECTED", u)
    ok = alive and w["errors"] == 0 and not hostile["unexpected"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
