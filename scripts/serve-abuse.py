#!/usr/bin/env python3
"""`retro serve` under abuse: do the other clients still get their answers, and does the
server's memory stay bounded?

    scripts/serve-abuse.py [--tables DIR] [--seconds 30] [--slow 200] [--idle 100]

Starts target/release/retro serve on a free port (its defaults: 256 connections, request
heads within 10 s and 16 KiB, connections idle for 60 s closed). A well-behaved client asks
/standard for a KQvK position over and over, each request on a new connection, first alone
(the baseline), then while abusers run for --seconds:

  slow   connections that send a request head one byte a second (slowloris)
  idle   connections that connect and send nothing
  heads  requests with 64 KiB of headers, beyond the limit (answered 431 or closed)
  bodies POSTs of 16 MiB bodies
  greedy connections that send 2,000 pipelined requests and read none of the answers

It prints the good client's latency (p50, p99, max) and failures, alone and under abuse, what
the abusers got, and the server's peak resident memory in each phase. Only the standard
library is needed.
"""

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RETRO = os.path.join(ROOT, "target", "release", "retro")
BUILD = os.path.join(ROOT, "target", "release", "build-tables")
GOOD = "/standard?fen=4k3/8/8/8/8/8/8/4K2Q_w_-_-_0_1"


def request(port: int, path: str, timeout: float = 30.0):
    """One GET on a new connection: (status, seconds), status 0 when it failed."""
    t0 = time.time()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        return int(data[9:12]), time.time() - t0
    except (OSError, ValueError):
        return 0, time.time() - t0


def rss_kb(pid: int) -> int:
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class Phase:
    """The good client's requests and the server's memory during one phase."""

    def __init__(self, port: int, pid: int):
        self.port, self.pid = port, pid
        self.latencies, self.failures, self.peak_kb = [], 0, 0
        self.stop = threading.Event()

    def run(self, seconds: float) -> None:
        end = time.time() + seconds
        while time.time() < end:
            status, took = request(self.port, GOOD)
            if status == 200:
                self.latencies.append(took)
            else:
                self.failures += 1
            self.peak_kb = max(self.peak_kb, rss_kb(self.pid))
            time.sleep(0.02)

    def summary(self, name: str) -> str:
        lat = sorted(self.latencies)
        if not lat:
            return f"{name}: no answer, {self.failures} failures"
        q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))] * 1000
        return (f"{name}: {len(lat)} answers, p50 {q(0.5):.1f} ms, p99 {q(0.99):.1f} ms, "
                f"max {lat[-1] * 1000:.1f} ms, {self.failures} failures; "
                f"server peak RSS {self.peak_kb / 1024:.1f} MB")


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}

    def add(self, what: str) -> None:
        with self.lock:
            self.counts[what] = self.counts.get(what, 0) + 1


def slow(port, stop, tally):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
    except OSError:
        tally.add("slow: refused")
        return
    head = b"GET /standard?fen=4k3/8/8/8/8/8/8/4K2Q_w_-_-_0_1 HTTP/1.1\r\nX-Pad: " + b"a" * 10000
    started = time.time()
    try:
        for b in head:
            if stop.is_set():
                tally.add("slow: still open at the end")
                return
            s.sendall(bytes([b]))
            time.sleep(1.0)
        tally.add("slow: whole head sent")
    except OSError:
        tally.add(f"slow: cut off after {round(time.time() - started)} s")
    finally:
        s.close()


def idle(port, stop, tally):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
    except OSError:
        tally.add("idle: refused")
        return
    started = time.time()
    s.settimeout(0.5)
    while not stop.is_set():
        try:
            if s.recv(1) == b"":
                tally.add(f"idle: closed after {round(time.time() - started)} s")
                return
        except socket.timeout:
            continue
        except OSError:
            tally.add(f"idle: closed after {round(time.time() - started)} s")
            return
    tally.add("idle: still open at the end")
    s.close()


def oversized(port, stop, tally, what, send):
    """Until `stop`: a connection, `send` on it, and what the server answered (its status, or
    closed), counted under `what`."""
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=15) as s:
                send(s)
                data = s.recv(64)
                tally.add(f"{what}: {data[9:12].decode() or 'closed'}")
        except OSError:
            tally.add(f"{what}: closed")
        time.sleep(0.2)


def heads(port, stop, tally):
    def send(s):
        s.sendall(f"GET {GOOD} HTTP/1.1\r\nHost: x\r\n".encode())
        for i in range(64):
            s.sendall(f"X-Big-{i}: {'b' * 1000}\r\n".encode())
        s.sendall(b"\r\n")
    oversized(port, stop, tally, "heads", send)


def bodies(port, stop, tally):
    body = b"x" * (1 << 20)

    def send(s):
        s.sendall(b"POST /standard HTTP/1.1\r\nHost: x\r\nContent-Length: 16777216\r\n\r\n")
        for _ in range(16):
            s.sendall(body)
    oversized(port, stop, tally, "bodies", send)


def greedy(port, stop, tally):
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=120) as s:
                s.sendall(b"GET /app.js HTTP/1.1\r\nHost: x\r\n\r\n" * 2000)
                started = time.time()
                # Take nothing; wait for the server to give up on us.
                s.settimeout(1.0)
                while not stop.is_set():
                    time.sleep(1.0)
                    try:
                        s.send(b"")
                    except OSError:
                        break
                tally.add(f"greedy: held {round(time.time() - started)} s")
        except OSError:
            tally.add("greedy: closed")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables")
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--slow", type=int, default=200)
    ap.add_argument("--idle", type=int, default=100)
    a = ap.parse_args()
    tmp = None
    tables = a.tables
    if not tables:
        tmp = tempfile.TemporaryDirectory()
        tables = tmp.name
        subprocess.run([BUILD, "-q", "--out", tables, "--max-pieces", "3"], check=True,
                       stdout=subprocess.DEVNULL)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([RETRO, "serve", "--bind", f"127.0.0.1:{port}", "--tables", tables],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if request(port, "/")[0] == 200:
                break
            time.sleep(0.1)
        base = Phase(port, server.pid)
        base.run(min(10.0, a.seconds))
        print(base.summary("alone"), flush=True)
        stop, tally = threading.Event(), Tally()
        workers = [threading.Thread(target=slow, args=(port, stop, tally)) for _ in range(a.slow)]
        workers += [threading.Thread(target=idle, args=(port, stop, tally)) for _ in range(a.idle)]
        workers += [threading.Thread(target=f, args=(port, stop, tally))
                    for f in (heads, heads, bodies, bodies, greedy, greedy)]
        for w in workers:
            w.daemon = True
            w.start()
        abused = Phase(port, server.pid)
        abused.run(a.seconds)
        stop.set()
        print(abused.summary(f"under abuse ({a.slow} slow, {a.idle} idle, 2 big heads, "
                             f"2 big bodies, 2 greedy)"), flush=True)
        time.sleep(2)
        for what, n in sorted(tally.counts.items()):
            print(f"  {what}: {n}")
        ok = abused.failures == 0 and server.poll() is None
        print("server still running" if server.poll() is None else "server DIED")
        sys.exit(0 if ok else 1)
    finally:
        server.terminate()
        server.wait()
        if tmp:
            tmp.cleanup()


if __name__ == "__main__":
    main()
