#!/usr/bin/env bash
# Self-play data in chunks that survive a stop: chunk K (games K*GAMES .. K*GAMES+GAMES-1, seeds
# from SEED + K*GAMES) is written to DIR/chunk-K.tsv by `retro datagen`, which renames its file
# into place only when the chunk is complete; a chunk already there is skipped, so running the
# same command again resumes where it stopped.
#
#   scripts/datagen.sh DIR CHUNKS [GAMES] [NODES] [THREADS]
#
# Environment: RETRO (the binary, default target/release/retro), TABLES (Retro's tables for
# exact labels, default the configured table_path), SEED (default 1).
set -euo pipefail
dir=${1:?usage: scripts/datagen.sh DIR CHUNKS [GAMES] [NODES] [THREADS]}
chunks=${2:?number of chunks}
games=${3:-100}
nodes=${4:-5000}
threads=${5:-1}
retro=${RETRO:-target/release/retro}
seed=${SEED:-1}
mkdir -p "$dir"
tables=()
if [ -n "${TABLES:-}" ]; then tables=(--tables "$TABLES"); fi
start=$(date +%s)
done_now=0
for ((k = 0; k < chunks; k++)); do
    out=$(printf '%s/chunk-%05d.tsv' "$dir" "$k")
    if [ -f "$out" ]; then continue; fi
    "$retro" datagen "${tables[@]}" --games "$games" --nodes "$nodes" --threads "$threads" \
        --seed $((seed + k * games)) --out "$out"
    done_now=$((done_now + 1))
    have=$(ls "$dir"/chunk-*.tsv | wc -l)
    elapsed=$(($(date +%s) - start))
    left=$((chunks - have))
    echo "datagen.sh: chunk $k done; $have/$chunks chunks, $(cat "$dir"/chunk-*.tsv | wc -l) positions; eta $((elapsed * left / done_now)) s" >&2
done
