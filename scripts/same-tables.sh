#!/bin/bash
# Builds each MATERIAL alone with two build-tables binaries on the same sub-tables, and says
# whether their DTM and DTZ50 files are byte for byte the same (a refactoring's identity check).
#
# Usage: scripts/same-tables.sh OLD_BIN NEW_BIN TABLE_DIR MATERIAL...
#
# TABLE_DIR holds every table the materials read (e.g. a cascade built by either binary). For
# each material, two folders beside it in a temporary folder get hard links of TABLE_DIR's
# files without the material's own, and each binary builds the material there (with `--only`
# where the binary has it; an older one finds its sub-tables present and skips them). Prints
# one line per material: the files' verdicts, each build's wall time and peak memory, and the
# new DTZ50 file's sha256. Exits 1 when a file differs.
set -eu

if [ $# -lt 4 ]; then
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
old=$1
new=$2
tables=$3
shift 3

work=$(mktemp -d "${TMPDIR:-/tmp}/same-tables.XXXXXX")
trap 'rm -rf "$work"' EXIT
differ=0
for m in "$@"; do
    for who in old new; do
        bin=$old
        [ "$who" = new ] && bin=$new
        dir=$work/$who
        rm -rf "$dir"
        mkdir -p "$dir"
        for f in "$tables"/*; do
            case $(basename "$f") in
            "$m".*) ;;
            *) ln "$f" "$dir/" 2>/dev/null || cp "$f" "$dir/" ;;
            esac
        done
        only=""
        "$bin" --help | grep -q -- '--only' && only=--only
        /usr/bin/time -f "%e s, %M KB" -o "$work/$who.time" "$bin" $only -q --out "$dir" "$m" >"$work/$who.out"
    done
    verdict=""
    for ext in rdtm rdtz; do
        if cmp -s "$work/old/$m.$ext" "$work/new/$m.$ext"; then
            verdict="$verdict $ext same"
        else
            verdict="$verdict $ext DIFFER"
            differ=1
        fi
    done
    sha=$(sha256sum "$work/new/$m.rdtz" | cut -c1-16)
    echo "$m:$verdict; old $(cat "$work/old.time"), new $(cat "$work/new.time"); rdtz $sha"
done
exit $differ
