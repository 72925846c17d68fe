#!/usr/bin/env bash
# Plays `retro play --auto --perfect` from N random positions of each material given and checks
# with python-chess (scripts/auto-games-check.py) that every decided game ended in checkmate after
# exactly the table's number of plies (the first comment of each game holds the start verdict).
# Usage: scripts/auto-games.sh TABLE_DIR OUT_DIR N MATERIAL...
set -euo pipefail
tables=$1 out=$2 n=$3
shift 3
retro="$(dirname "$0")/../target/release/retro"
for m in "$@"; do
  mkdir -p "$out/$m"
  "$retro" random-position "$m" --count "$n" --seed 2026 | while read -r fen; do
    "$retro" play --tables "$tables" --fen "$fen" --auto --perfect --ascii --movetime 50 \
      --games "$out/$m" > /dev/null
  done
  python3 "$(dirname "$0")/auto-games-check.py" "$out/$m"
done
