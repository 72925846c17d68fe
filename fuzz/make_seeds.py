#!/usr/bin/env python3
"""Writes the binary seeds of the fuzz corpora (the text ones are written by hand).

    python3 fuzz/make_seeds.py TABLES_DIR DATA_DIR

TABLES_DIR holds Retro's 3-piece tables (build-tables --out DIR KBvK KPvK); DATA_DIR holds
a part of `retro datagen --dir` in each format (a .rgms and a .rdat file). Each seed of a
file-reading target starts with the target's mode byte (see fuzz/src/targets.rs).
"""

import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
HEADER = 96
M = 0xFFFFFFFFFFFFFFFF


def checksum(data: bytes) -> int:
    """The table files' checksum (tables/README.md)."""
    h = 0x9E3779B97F4A7C15 ^ len(data)
    padded = data + b"\0" * (-len(data) % 8)
    for (w,) in struct.iter_unpack("<Q", padded):
        h = ((((h << 5) | (h >> 59)) & M) ^ w) * 0x517CC1B727220A95 & M
    h ^= h >> 33
    h = h * 0xFF51AFD7ED558CCD & M
    h ^= h >> 33
    return h


def put(target: str, name: str, data: bytes) -> None:
    os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
    with open(os.path.join(CORPUS, target, name), "wb") as f:
        f.write(data)


def frames_of(table: bytes):
    """The header, block length, entries' block count per lane and the frames of a compressed
    table of one plane."""
    (block_len,) = struct.unpack_from("<I", table, 48)
    (n,) = struct.unpack_from("<Q", table, 40)
    k = -(-n // block_len)
    lanes = 2
    offs = struct.unpack_from("<%dQ" % (lanes * k + 1), table, HEADER)
    data_at = HEADER + 8 * (lanes * k + 1) + 4 * lanes * k
    frames = [table[data_at + offs[i] : data_at + offs[i + 1]] for i in range(lanes * k)]
    return n, block_len, k, frames


def zstd(data: bytes, level: int) -> bytes:
    """A zstd frame of `data` that states its content size (as the tables' frames do)."""
    return subprocess.run(
        ["zstd", "-q", "-c", f"-{level}", "--no-check", f"--stream-size={len(data)}"],
        input=data, capture_output=True, check=True,
    ).stdout


def with_planes(table: bytes) -> bytes:
    """The compressed table `table` with an extension plane (all zero bytes) added: four
    lanes, as a 6-piece table with long values has."""
    n, block_len, k, frames = frames_of(table)
    ext = []
    for b in range(2 * k):
        length = min(block_len, n - (b % k) * block_len)
        ext.append(zstd(bytes(length), 3))
    frames = frames + ext
    offs = [0]
    for f in frames:
        offs.append(offs[-1] + len(f))
    index = struct.pack("<%dQ" % len(offs), *offs)
    index += b"".join(struct.pack("<I", checksum(f) & 0xFFFFFFFF) for f in frames)
    header = bytearray(table[:HEADER])
    header[39] = 1
    struct.pack_into("<Q", header, 72, checksum(index))
    struct.pack_into("<Q", header, 88, checksum(bytes(header[:88])))
    return bytes(header) + index + b"".join(frames)


def main() -> None:
    tables, data = sys.argv[1], sys.argv[2]
    read = lambda p: open(p, "rb").read()
    kbvk_dtz = read(os.path.join(tables, "KBvK.rdtz"))
    kbvk_dtm = read(os.path.join(tables, "KBvK.rdtm"))
    kpvk_dtz = read(os.path.join(tables, "KPvK.rdtz"))
    put("table_file", "kbvk-dtz-blocks", b"\x00" + kbvk_dtz)
    put("table_file", "kbvk-dtz-blocks-fixed", b"\x01" + kbvk_dtz)
    put("table_file", "kpvk-dtz-blocks-fixed", b"\x01" + kpvk_dtz)
    put("table_file", "kbvk-dtm-raw-fixed", b"\x01" + kbvk_dtm)
    put("table_file", "kbvk-planes-fixed", b"\x01" + with_planes(kbvk_dtz))
    # zstd frames: blocks of real tables (as the probe decodes them) and general data.
    for name, table in [("kbvk", kbvk_dtz), ("kpvk", kpvk_dtz)]:
        _, _, _, frames = frames_of(table)
        biggest = max(frames, key=len)
        put("zstd_prefix", f"{name}-block-whole", b"\xff\xff" + biggest)
        put("zstd_prefix", f"{name}-block-prefix", b"\x40\x00" + biggest)
    text = open(os.path.join(HERE, "..", "README.md"), "rb").read()[:6000]
    for level in (1, 19):
        put("zstd_prefix", f"readme-level{level}", b"\x00\x02" + zstd(text, level))
    put("zstd_prefix", "rle", b"\x10\x00" + zstd(bytes(5000), 3))
    # The built-in network, checksum fixed or not.
    net = read(os.path.join(HERE, "..", "crates", "retro-engine", "nets", "retro.nnue"))
    put("network", "built-in-fixed", b"\x01" + net)
    put("network", "header-only", b"\x00" + net[:48])
    # Training data: a few records and a few games.
    parts = sorted(os.listdir(data))
    rdat = next(p for p in parts if p.endswith(".rdat"))
    rgms = next(p for p in parts if p.endswith(".rgms"))
    records = bytearray(read(os.path.join(data, rdat))[: 16 + 32 * 12])
    struct.pack_into("<I", records, 12, 12)
    put("training_data", "records", b"\x00" + bytes(records))
    put("training_data", "games", b"\x01" + read(os.path.join(data, rgms)))


if __name__ == "__main__":
    main()
