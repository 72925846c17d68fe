#!/usr/bin/env python3
"""Kills a long job at random moments and checks that restarts finish it exactly.

    scripts/kill-test.py JOB [--kills 100] [--chain 5] [--work DIR] [--seed 1]

JOB is one of:
  tables34          build-tables of the 35 tables of 3 and 4 pieces
  table5 MATERIAL   build-tables of one 5-piece table (its sub-tables present)
  structure MATERIAL  build-tables --by-structure of a table with pawns (its sub-tables present;
                    a 4-piece one needs only the 3-4-piece tables)
  compact MATERIAL  the same with the compact solve of 6-piece tables (--compact) and a
                    checkpoint every second (--checkpoint-secs 1)
  verify MATERIAL   build-tables --verify --compact of a table built by the compact solve
  datagen           retro datagen --dir (24 games in parts of 3, two threads)
  train             retro train on the data of the datagen job (40 epochs, two threads)

First the job runs once without a stop (the reference, kept in
WORK/JOB[-MATERIAL]-ref and reused).
Then, from a fresh start, the job is started and killed (SIGKILL) after a random time (up to
1.1 times what is left of the reference's time after the earlier kills of the chain), `--chain`
times in a row, each time restarted on what the killed run left; then it runs to its end and its files (and, for verify, its report) are compared
byte for byte with the reference's. After every kill, every finished file the job has written
must already equal the reference's (files are written whole or not at all; for train, whose
network is rewritten after each epoch, a whole network of an earlier epoch). This repeats until
`--kills` kills. It prints a progress line with an ETA per chain and a summary at the end, and
exits non-zero on any difference.

The binaries are the project's release build (cargo build --release), copied into WORK at the
start. WORK defaults to
~/.cache/retro-kill-test (outside the repository).
"""

import argparse
import atexit
import filecmp
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "target", "release", "build-tables")
RETRO = os.path.join(ROOT, "target", "release", "retro")


def log(msg: str) -> None:
    print(f"kill-test: {msg}", file=sys.stderr, flush=True)


def run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


class Job:
    """A job: how to prepare its folder, its command, which files it makes."""

    def __init__(self, name: str, material: str, work: str):
        self.name, self.material, self.work = name, material, work

    def tag(self) -> str:
        """The job's name, with its material if it has one (names its folders)."""
        return f"{self.name}-{self.material}" if self.material else self.name

    def base_tables(self) -> str:
        """The 3- and 4-piece tables, built once, linked into each run's folder."""
        base = os.path.join(self.work, "base34")
        if not os.path.exists(os.path.join(base, ".complete")):
            log(f"building the 3-4-piece tables into {base}")
            r = run([BUILD, "-q", "--out", base])
            if r.returncode != 0:
                sys.exit(f"base tables: {r.stderr}")
            open(os.path.join(base, ".complete"), "w").close()
        return base

    def data(self) -> str:
        """The training data: the datagen job's reference output."""
        ref = os.path.join(self.work, "datagen-ref")
        if not os.path.exists(os.path.join(ref, ".complete")):
            Job("datagen", "", self.work).reference()
        return ref

    def prepare(self, d: str) -> None:
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        if self.name in ("table5", "structure", "compact", "verify"):
            base = self.base_tables()
            for f in os.listdir(base):
                # The job's own material is built by the job (a 4-piece one is in the base).
                if f.endswith((".rdtm", ".rdtz")) and f.split(".")[0] != self.material:
                    os.link(os.path.join(base, f), os.path.join(d, f))
        if self.name == "verify":
            r = run([BUILD, "-q", "--compact", "--out", d, self.material])
            if r.returncode != 0:
                sys.exit(f"verify's table: {r.stderr}")

    def command(self, d: str):
        m = self.material
        if self.name == "tables34":
            return [BUILD, "-q", "--out", d]
        if self.name == "table5":
            return [BUILD, "-q", "--out", d, m]
        if self.name == "structure":
            return [BUILD, "-q", "--by-structure", "--out", d, m]
        if self.name == "compact":
            return [BUILD, "-q", "--compact", "--checkpoint-secs", "1", "--out", d, m]
        if self.name == "verify":
            return [BUILD, "-q", "--verify", "--compact", "--out", d, m]
        if self.name == "datagen":
            return [RETRO, "datagen", "--dir", d, "--games", "24", "--part-games", "3",
                    "--nodes", "300", "--random-plies", "8", "--seed", "7", "--threads", "2"]
        return [RETRO, "train", "--out", os.path.join(d, "net.nnue"), "--epochs", "40",
                "--threads", "2", "--seed", "3", "--batch-size", "4096", self.data()]

    def outputs(self, d: str):
        """The files the job makes, by name (hidden files and work folders left out)."""
        return sorted(
            f for f in os.listdir(d)
            if not f.startswith(".") and os.path.isfile(os.path.join(d, f))
        )

    def whole(self, path: str, ref: str) -> bool:
        """Whether a file found after a kill is whole: the reference's, or for `train`, whose
        network is rewritten after each epoch that improves, a network of the reference's
        length whose checksum holds (an earlier epoch's)."""
        if filecmp.cmp(path, ref, shallow=False):
            return True
        if self.name != "train":
            return False
        data = open(path, "rb").read()
        if len(data) != os.path.getsize(ref) or data[:8] != b"RETRONN\0":
            return False
        header = 40 if data[8:12] == b"\x01\0\0\0" else 48
        h = 0xCBF29CE484222325
        for b in data[header:]:
            h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        return h == int.from_bytes(data[header - 8:header], "little")

    @staticmethod
    def report(text: str) -> str:
        """A report with its timings left out."""
        return re.sub(r"[0-9.]+ ?(s|ms|min)\b", "T", text)

    def reference(self) -> float:
        ref = os.path.join(self.work, f"{self.tag()}-ref")
        done = os.path.join(ref, ".complete")
        if os.path.exists(done):
            return float(open(done).read())
        self.prepare(ref)
        t0 = time.time()
        r = run(self.command(ref))
        took = time.time() - t0
        if r.returncode != 0:
            sys.exit(f"reference run failed: {r.stderr[-2000:]}")
        with open(os.path.join(ref, ".report"), "w") as f:
            f.write(self.report(r.stdout))
        with open(done, "w") as f:
            f.write(f"{took}")
        log(f"reference {self.name}: {took:.1f} s, {len(self.outputs(ref))} files")
        return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("job", choices=["tables34", "table5", "structure", "compact", "verify", "datagen",
                                        "train"])
    ap.add_argument("material", nargs="?", default="")
    ap.add_argument("--kills", type=int, default=100)
    ap.add_argument("--chain", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work", default=os.path.join(os.path.expanduser("~"), ".cache", "retro-kill-test"))
    a = ap.parse_args()
    # The binaries are copied first: a rebuild of the project during the test changes nothing.
    global BUILD, RETRO
    bin_dir = os.path.join(a.work, f"bin-{os.getpid()}")
    os.makedirs(bin_dir, exist_ok=True)
    atexit.register(shutil.rmtree, bin_dir, True)
    for name in ("build-tables", "retro"):
        shutil.copy2(os.path.join(ROOT, "target", "release", name), bin_dir)
    BUILD, RETRO = (os.path.join(bin_dir, n) for n in ("build-tables", "retro"))
    if a.job in ("table5", "structure", "compact", "verify") and not a.material:
        sys.exit(f"{a.job} needs a material")
    os.makedirs(a.work, exist_ok=True)
    job = Job(a.job, a.material, a.work)
    took = job.reference()
    ref = os.path.join(a.work, f"{job.tag()}-ref")
    ref_files = job.outputs(ref)
    ref_report = open(os.path.join(ref, ".report")).read()
    rng = random.Random(a.seed)
    kills = restarts = finished_early = chains = partial_checks = 0
    differences = []
    start = time.time()
    while kills < a.kills:
        d = os.path.join(a.work, f"{job.tag()}-run")
        job.prepare(d)
        # The work the killed runs of this chain did: a restart's kill falls within what is
        # left of the job (an estimate), so that most restarts are killed too.
        done = 0.0
        for _ in range(a.chain):
            if kills >= a.kills:
                break
            p = subprocess.Popen(job.command(d), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            delay = rng.uniform(0.02, max(1.0, 1.1 * (took - done)))
            try:
                p.wait(timeout=delay)
                finished_early += 1
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGKILL)
                p.wait()
                kills += 1
                done += delay
            restarts += 1
            # Whatever is written is whole: each finished file equals the reference's.
            for f in job.outputs(d):
                partial_checks += 1
                if f not in ref_files or not job.whole(os.path.join(d, f), os.path.join(ref, f)):
                    differences.append(f"after kill {kills}: {f}")
        r = run(job.command(d))
        chains += 1
        if r.returncode != 0:
            differences.append(f"chain {chains}: the finishing run failed: {r.stderr[-500:]}")
        files = job.outputs(d)
        if files != ref_files:
            differences.append(f"chain {chains}: files {files} instead of {ref_files}")
        for f in set(files) & set(ref_files):
            if not filecmp.cmp(os.path.join(d, f), os.path.join(ref, f), shallow=False):
                differences.append(f"chain {chains}: {f} differs")
        if a.job == "verify" and job.report(r.stdout) != ref_report:
            differences.append(f"chain {chains}: the report differs")
        left = [f for f in os.listdir(d) if f.startswith(".") or os.path.isdir(os.path.join(d, f))]
        elapsed = time.time() - start
        eta = elapsed / max(kills, 1) * (a.kills - kills)
        log(f"{a.job}: chain {chains}, {kills}/{a.kills} kills, {restarts} restarts, "
            f"{len(differences)} differences, left over {left}, eta {eta:.0f} s")
    print(f"{a.job} {a.material}: {kills} kills, {restarts} restarts ({finished_early} ended before "
          f"their kill), {chains} finished runs compared with the reference ({len(ref_files)} files "
          f"each), {partial_checks} files checked after kills, {len(differences)} differences, "
          f"{time.time() - start:.0f} s")
    for x in differences[:20]:
        print("  " + x)
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
