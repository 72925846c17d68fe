#!/usr/bin/env bash
# Compares every position of Retro's 3- and 4-piece tables, and every KPvKP position with an en
# passant capture, with Gaviota's DTM tables through Debian's libgaviotatb.
#
#   scripts/compare-gaviota.sh [GAVIOTA_DIR]
#
# GAVIOTA_DIR defaults to ../shared/oracle/gaviota. Set RETRO_TEST_TABLES to a directory of
# tables to reuse (missing ones are built there); otherwise they are built in a temporary
# directory.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then export RETRO_GAVIOTA="$1"; fi
if ! [ -e /usr/include/gtb-probe.h ]; then
  echo "installing libgaviotatb-dev" >&2
  apt-get install -y libgaviotatb-dev >&2
fi
exec cargo test --release --features gaviota --test gaviota -- --nocapture --test-threads 1
