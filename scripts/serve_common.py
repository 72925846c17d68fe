"""What the serve-*.py scripts share: starting `retro serve` on a free port."""

import os
import re
import subprocess
import tempfile


def start_server(binary, tables, extra=()):
    """Starts `retro serve` with a temporary engine.toml (no table building, warnings only) on
    a free port; returns the process and its address (host:port). The config file is removed
    at once: the server has read it by the time it prints its address."""
    cfg = tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False)
    cfg.write('build_missing_tables = false\nlog_level = "warn"\n')
    cfg.close()
    server = subprocess.Popen(
        [binary, "--config", cfg.name, "serve", "--bind", "127.0.0.1:0", "--tables", tables, *extra],
        stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    os.unlink(cfg.name)
    m = re.search(r"http://([0-9.:]+)/", line)
    if not m:
        server.kill()
        raise SystemExit(f"the server did not say where it listens: {line!r}")
    return server, m.group(1)
