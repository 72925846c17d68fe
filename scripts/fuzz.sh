#!/bin/sh
# Coverage-guided fuzzing of Retro's parsers and file readers with AFL++ (the `afl` crate,
# on stable Rust). The targets are in fuzz/src/targets.rs, their seed corpora in fuzz/corpus.
#
#   scripts/fuzz.sh setup                 install cargo-afl and build AFL++ (once)
#   scripts/fuzz.sh build                 build the targets, instrumented
#   scripts/fuzz.sh run TARGET|all SECS   fuzz each target for SECS seconds of wall time, one
#                                         after another; a target fuzzed before resumes
#   scripts/fuzz.sh run-to TARGET|all SECS  fuzz each target until it has been fuzzed SECS
#                                         seconds in all (counting earlier runs)
#   scripts/fuzz.sh run-cpu TARGET|all SECS  fuzz each target until its fuzzer has used SECS
#                                         CPU seconds in all (counting earlier run-cpu runs;
#                                         kept in $RETRO_FUZZ_OUT/TARGET/cpu_seconds)
#   scripts/fuzz.sh status                per target: executions, time, CPU time, edges (of
#                                         the seeds, and now), minutes since the last new
#                                         path, crashes and hangs saved
#   scripts/fuzz.sh crashes               lists the inputs that crashed or hung
#
# Findings go to $RETRO_FUZZ_OUT (default ~/.cache/retro-fuzz), outside the repository. A
# crash or hang found is fixed, and its input copied into fuzz/corpus/TARGET/ so that the test
# suite replays it (tests/fuzz_corpora.rs).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${RETRO_FUZZ_OUT:-${XDG_CACHE_HOME:-$HOME/.cache}/retro-fuzz}
TARGETS="table_file zstd_prefix network fen_position uci_session pgn engine_toml training_data http_request"

# CPU seconds (user and system) of a process and all its descendants, reaped ones included.
tree_cpu() {
    t=$(awk '{print int(($14 + $15 + $16 + $17) / 100)}' "/proc/$1/stat" 2>/dev/null || echo 0)
    for c in $(pgrep -P "$1"); do t=$((t + $(tree_cpu "$c"))); done
    echo "$t"
}

# Per target: AFL's time limit per input (ms) and its memory limit (MB, none: 0).
timeout_of() {
    case $1 in
        uci_session|http_request) echo 10000 ;;
        *) echo 2000 ;;
    esac
}

export AFL_SKIP_CPUFREQ=1
export AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
export AFL_NO_UI=1
export AFL_AUTORESUME=1

cmd=${1:-}
case $cmd in
    setup)
        command -v cargo-afl >/dev/null || cargo install cargo-afl
        cargo afl config --build 2>/dev/null || true
        ;;
    build)
        cd "$ROOT/fuzz" && cargo afl build --release
        ;;
    run|run-to|run-cpu)
        target=${2:?target or all}
        secs=${3:?seconds}
        [ "$target" = all ] && target=$TARGETS
        mkdir -p "$OUT"
        # The server target answers from the 3-piece tables, built once.
        export RETRO_FUZZ_TABLES="${RETRO_FUZZ_TABLES:-$OUT/tables}"
        (cd "$ROOT" && cargo run -q --release --bin build-tables -- -q --out "$RETRO_FUZZ_TABLES" \
            --max-pieces 3)
        for t in $target; do
            left=$secs
            if [ "$cmd" = run-to ]; then
                done_s=$(sed -n 's/^run_time *: *//p' "$OUT/$t/default/fuzzer_stats" 2>/dev/null)
                left=$((secs - ${done_s:-0}))
                [ "$left" -gt 0 ] || continue
            fi
            cd "$ROOT/fuzz"
            if [ "$cmd" = run-cpu ]; then
                # The fuzzer runs until its process tree has used the CPU time left; every
                # 30 s the total is saved, so a stopped run counts what it used.
                cpu_file="$OUT/$t/cpu_seconds"
                base=$(cat "$cpu_file" 2>/dev/null || echo 0)
                [ "$base" -lt "$secs" ] || continue
                echo "fuzz: $t from $base to $secs CPU s into $OUT/$t" >&2
                mkdir -p "$OUT/$t"
                # A fuzzer killed while it wrote its fast-resume state leaves that file cut
                # short, and afl-fuzz then refuses to start: the second attempt resumes
                # without it.
                for attempt in fast slow; do
                    [ "$attempt" = slow ] && export AFL_NO_FASTRESUME=1
                    cargo afl fuzz -i "corpus/$t" -o "$OUT/$t" \
                        -t "$(timeout_of "$t")" -m none "target/release/$t" \
                        > "$OUT/$t.log" 2>&1 &
                    pid=$!
                    used=0
                    while kill -0 "$pid" 2>/dev/null; do
                        sleep 30
                        now=$(tree_cpu "$pid")
                        [ "$now" -ge "$used" ] && used=$now
                        echo $((base + used)) > "$cpu_file.tmp" && mv "$cpu_file.tmp" "$cpu_file"
                        if [ $((base + used)) -ge "$secs" ]; then
                            pkill -INT -P "$pid" afl-fuzz 2>/dev/null || kill -INT "$pid"
                            break
                        fi
                    done
                    status=0
                    wait "$pid" 2>/dev/null || status=$?
                    [ "$status" -eq 0 ] || [ $((base + used)) -ge "$secs" ] && break
                    if [ "$attempt" = slow ]; then
                        echo "fuzz: afl-fuzz failed for $t, see $OUT/$t.log" >&2
                        exit 1
                    fi
                    echo "fuzz: afl-fuzz stopped for $t (status $status), again without fast resume" >&2
                    base=$((base + used))
                done
                unset AFL_NO_FASTRESUME
                continue
            fi
            echo "fuzz: $t for $left s into $OUT/$t" >&2
            # A fuzzer killed while it wrote its fast-resume state leaves that file cut short,
            # and afl-fuzz then refuses to start ("Short read"): the second attempt resumes
            # without it, calibrating the queue again.
            fuzz_one() {
                cargo afl fuzz -i "corpus/$t" -o "$OUT/$t" -V "$left" -t "$(timeout_of "$t")" \
                    -m none "target/release/$t" > "$OUT/$t.log" 2>&1
            }
            fuzz_one || AFL_NO_FASTRESUME=1 fuzz_one || {
                echo "fuzz: afl-fuzz failed for $t, see $OUT/$t.log" >&2
                tail -20 "$OUT/$t.log" >&2
                exit 1
            }
        done
        ;;
    status)
        # edges: those the seeds of fuzz/corpus reach, then those the fuzzer has reached.
        printf '%-14s %12s %9s %7s %17s %9s %8s %6s\n' target execs run_s cpu_s \
            edges_seeds..now quiet_min crashes hangs
        for t in $TARGETS; do
            s="$OUT/$t/default/fuzzer_stats"
            [ -f "$s" ] || continue
            get() { sed -n "s/^$1 *: *//p" "$s"; }
            seeds=$(cd "$ROOT/fuzz" && cargo afl showmap -C -i "corpus/$t" -o /dev/null -- \
                "target/release/$t" 2>&1 | sed -n 's/.*coverage of \([0-9]*\) edges.*/\1/p')
            # quiet_min: minutes of fuzzing between the last new path and the last update.
            quiet=$(( ($(get last_update) - $(get last_find)) / 60 ))
            [ "$(get last_find)" = 0 ] && quiet="$(( $(get run_time) / 60 ))+"
            printf '%-14s %12s %9s %7s %17s %9s %8s %6s\n' "$t" "$(get execs_done)" \
                "$(get run_time)" "$(cat "$OUT/$t/cpu_seconds" 2>/dev/null || echo -)" \
                "${seeds:-?}..$(get edges_found)" "$quiet" "$(get saved_crashes)" \
                "$(get saved_hangs)"
        done
        ;;
    crashes)
        for t in $TARGETS; do
            for f in "$OUT/$t"/default/crashes/id:* "$OUT/$t"/default/hangs/id:*; do
                [ -f "$f" ] && echo "$t $f"
            done
        done
        true
        ;;
    *)
        sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
        exit 2
        ;;
esac
