#!/usr/bin/env bash
# Builds one pawnless table twice, by one process and by NP MPI processes, and compares the
# files byte for byte; /usr/bin/time -v figures of the single build and of every rank.
#
#   scripts/mpi-compare.sh MATERIAL [NP] [WORK]
#
# NP defaults to 4, WORK (outside the repository: tables and figures) to
# ~/.cache/retro-mpi-compare. The binary is target/release/build-tables built with
# `cargo build --release --features mpi` (Debian's openmpi-bin, libopenmpi-dev, libclang-dev).
# The sub-tables are built once, by the single build; a re-run reuses what is there.
set -euo pipefail
material=${1:?usage: scripts/mpi-compare.sh MATERIAL [NP] [WORK]}
np=${2:-4}
work=${3:-${XDG_CACHE_HOME:-$HOME/.cache}/retro-mpi-compare}
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$work/build-tables"
mkdir -p "$work/single" "$work/mpi-$np" "$work/times"
cp "$root/target/release/build-tables" "$bin.new" && mv "$bin.new" "$bin"
echo "single build of $material (and its sub-tables) into $work/single" >&2
/usr/bin/time -v -o "$work/times/single.time" "$bin" -q --out "$work/single" "$material" \
    | tee "$work/single.log"
# Up to 4 pieces an ordinary build stores DTM raw while the split (compact) solve compresses it
# as from 5 pieces on: the reference is then the single-process compact solve.
pieces=$(( ${#material} - 1 ))
if [ "$pieces" -le 4 ]; then
    "$bin" -q --compact --force --only --out "$work/single" "$material" >> "$work/single.log"
fi
for f in "$work"/single/*.rdtm "$work"/single/*.rdtz; do
    case $(basename "$f") in "$material".*) ;; *) ln -f "$f" "$work/mpi-$np/";; esac
done
rm -f "$work/mpi-$np/$material".rdt?
echo "$np MPI processes into $work/mpi-$np" >&2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun --oversubscribe -np "$np" sh -c \
    "exec /usr/bin/time -v -o $work/times/rank-\$OMPI_COMM_WORLD_RANK.time $bin -q --threads 1 --mpi --out $work/mpi-$np $material" \
    | tee "$work/mpi-$np.log"
status=0
for ext in rdtm rdtz; do
    if cmp "$work/single/$material.$ext" "$work/mpi-$np/$material.$ext"; then
        echo "$material.$ext: identical"
    else
        status=1
    fi
done
for t in "$work"/times/*.time; do
    echo "$(basename "$t" .time): $(grep -E 'Elapsed|Maximum resident' "$t" | sed 's/^\s*//' | tr '\n' ' ')"
done
exit $status
