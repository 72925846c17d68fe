#!/usr/bin/env bash
# fastchess's UCI compliance check (`fastchess --compliance`) on Retro, from an empty working
# folder whose engine.toml turns the tables off (no background build during the check).
# fastchess is built from its public source (`make` in its tree); CI does not need it.
# Usage: scripts/fastchess-compliance.sh FASTCHESS [ENGINE]   (ENGINE: target/release/retro)
set -euo pipefail
fastchess=$(realpath "${1:?usage: scripts/fastchess-compliance.sh FASTCHESS [ENGINE]}")
engine=$(realpath "${2:-$(dirname "$0")/../target/release/retro}")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf 'table_path = ""\nbuild_missing_tables = false\n' > "$dir/engine.toml"
cd "$dir"
"$fastchess" --compliance "$engine"
