#!/usr/bin/env bash
# Screenshots of Retro in a real GUI (XBoard, with PolyGlot as the UCI adapter) under Xvfb.
#
#   scripts/gui-screenshots.sh [ENGINE] [TABLE_DIR] [OUT_DIR]
#
# Defaults: ENGINE=/work/data/bin/retro-960, TABLE_DIR=/work/data/tables, OUT_DIR=/work/data/gui.
#
# Writes to OUT_DIR:
#   game.png           Retro (White) against Fairy-Max in Two Machines mode, 2 s a move, with the
#                      board, the move list and both engines' thinking; game.pgn is the whole game.
#   multipv.png        Analysis mode on 8/8/8/4k3/8/8/8/KQ6 w (KQvK, mate in 9) with MultiPV 5:
#                      the Engine Output window shows Retro's 5 lines with their mate distances.
#   multipv-kqkr.png   The same for 8/8/3k4/8/8/2r5/8/1Q2K3 w (KQvKR).
#   multipv-small.png  A cropped, scaled, 8-bit palette copy of multipv.png for the docs.
#   work/              engine.toml, the PolyGlot .ini, FEN files and the logs of each run.
#
# Needs: Xvfb, xboard, polyglot, fairymax, xdotool, imagemagick (import, convert), xdpyinfo.
# The engine gets a config with table_path = TABLE_DIR and build_missing_tables = false, so it
# uses the 3-4-piece tables and never builds any. MultiPV 5 is set through XBoard's
# -firstOptions "MultiPV=5" (XBoard sends it to PolyGlot, which sends `setoption name MultiPV
# value 5` to Retro).
set -euo pipefail

ENGINE=$(readlink -f "${1:-/work/data/bin/retro-960}")
TABLES=$(readlink -f "${2:-/work/data/tables}")
OUT=$(mkdir -p "${3:-/work/data/gui}" && readlink -f "${3:-/work/data/gui}")
WORK=$OUT/work
XBOARD=${XBOARD:-/usr/games/xboard}
POLYGLOT=${POLYGLOT:-/usr/games/polyglot}
FAIRYMAX=${FAIRYMAX:-/usr/games/fairymax}

for tool in Xvfb xdotool import convert xdpyinfo "$XBOARD" "$POLYGLOT" "$FAIRYMAX" "$ENGINE"; do
    command -v "$tool" >/dev/null || { echo "missing: $tool" >&2; exit 1; }
done
[ -d "$TABLES" ] || { echo "no table directory: $TABLES" >&2; exit 1; }

mkdir -p "$WORK/engine" "$WORK/home"
cat >"$WORK/engine/engine.toml" <<EOF
table_path = "$TABLES"
build_missing_tables = false
EOF
cat >"$WORK/engine/retro.ini" <<EOF
[PolyGlot]
EngineName = Retro
EngineDir = $WORK/engine
EngineCommand = $ENGINE --config $WORK/engine/engine.toml
Log = true
LogFile = $WORK/polyglot.log
[Engine]
Hash = 16
Threads = 1
EOF
echo '8/8/8/4k3/8/8/8/KQ6 w - - 0 1' >"$WORK/kqk.fen"
echo '8/8/3k4/8/8/2r5/8/1Q2K3 w - - 0 1' >"$WORK/kqkr.fen"

# A free display number.
DISP=90
while [ -e "/tmp/.X$DISP-lock" ] || [ -e "/tmp/.X11-unix/X$DISP" ]; do DISP=$((DISP + 1)); done
export DISPLAY=:$DISP

XVFB_PID=
XB_PID=
stop_xboard() {
    if [ -n "$XB_PID" ] && kill -0 "$XB_PID" 2>/dev/null; then
        # XBoard's engines (PolyGlot and Retro, Fairy-Max) are its children; end them too.
        local kids
        kids=$(pgrep -P "$XB_PID" || true)
        kill "$XB_PID" 2>/dev/null || true
        sleep 1
        for k in $kids; do kill "$k" 2>/dev/null || true; done
        wait "$XB_PID" 2>/dev/null || true
    fi
    XB_PID=
}
cleanup() {
    stop_xboard
    if [ -n "$XVFB_PID" ]; then kill "$XVFB_PID" 2>/dev/null || true; wait "$XVFB_PID" 2>/dev/null || true; fi
}
trap cleanup EXIT

Xvfb "$DISPLAY" -screen 0 1600x1000x24 -nolisten tcp >"$WORK/xvfb.log" 2>&1 &
XVFB_PID=$!
for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.2; done
xdpyinfo >/dev/null 2>&1 || { echo "Xvfb did not start on $DISPLAY" >&2; exit 1; }
echo "Xvfb on $DISPLAY"

# XBoard with settings that do not touch ~/.xboardrc, no sound, no start-up tip, no default
# Syzygy path (XBoard would otherwise send `egtpath syzygy /EGT/Syzygy`).
start_xboard() { # LOGNAME ARGS...
    local log=$1; shift
    rm -f "$WORK/polyglot.log"
    HOME=$WORK/home nice "$XBOARD" \
        -settingsFile /dev/null -saveSettingsOnExit false \
        -size medium -x 0 -y 0 \
        -fcp "$POLYGLOT $WORK/engine/retro.ini" -fd "$WORK/engine" \
        -defaultHashSize 16 -egtFormats "" -xponder \
        -showThinking true -popupExitMessage false -soundProgram true \
        -messageSuppress "Right-clicking menu item or dialog text pops up help on it" \
        -evalGraphUp false \
        "$@" >"$WORK/$log.xboard.log" 2>&1 &
    XB_PID=$!
}

# Without a window manager XBoard's windows all open at (0,0); move them apart.
place() { # WINDOW-NAME-REGEX X Y
    local w=
    for _ in $(seq 50); do
        w=$(xdotool search --onlyvisible --name "$1" 2>/dev/null | head -1 || true)
        [ -n "$w" ] && break
        sleep 0.2
    done
    [ -n "$w" ] && xdotool windowmove "$w" "$2" "$3"
}

wait_log() { # PATTERN COUNT TIMEOUT-SECONDS: wait until the PolyGlot log has COUNT lines matching
    local n=0
    for _ in $(seq $(($3 * 2))); do
        n=$(grep -c -E "$1" "$WORK/polyglot.log" 2>/dev/null || true)
        [ "${n:-0}" -ge "$2" ] && return 0
        sleep 0.5
    done
    echo "timed out waiting for $2 x '$1' (saw ${n:-0})" >&2
    return 1
}

# Scene 1: a game, Retro (White) against Fairy-Max, 2 s a move.
rm -f "$OUT/game.pgn"
start_xboard game -scp "$FAIRYMAX" -initialMode TwoMachines -st 0:2 \
    -engineOutputUp true -engineOutputW 1030 -engineOutputH 500 \
    -moveHistoryUp true -moveHistoryW 525 -moveHistoryH 340 \
    -sgf "$OUT/game.pgn"
place '^Move list$' 0 630
place '^Engine Output$' 545 0
wait_log 'Engine->Adapter: bestmove' 12 120 || true
sleep 1
import -window root "$OUT/game.png"
cp "$WORK/polyglot.log" "$WORK/game.polyglot.log"
# Let the game finish (Fairy-Max is usually mated within ~25 moves) so game.pgn is complete.
for _ in $(seq 120); do [ -s "$OUT/game.pgn" ] && break; sleep 1; done
cp "$WORK/polyglot.log" "$WORK/game.polyglot.log"
stop_xboard
echo "game.png done"

# Scene 2: analysis with MultiPV 5 of table positions.
analyse() { # FEN-FILE PNG
    start_xboard "$(basename "$2" .png)" -lpf "$1" -initialMode Analysis \
        -firstOptions "MultiPV=5" -periodicUpdates false \
        -engineOutputUp true -engineOutputW 1030 -engineOutputH 300
    place '^Engine output$' 545 0
    place "$(basename "$1")" 0 0
    wait_log 'Engine->Adapter: info .*multipv 5 ' 1 60
    sleep 3
    import -window root "$2"
    cp "$WORK/polyglot.log" "$WORK/$(basename "$2" .png).polyglot.log"
    stop_xboard
    echo "$(basename "$2") done"
}
analyse "$WORK/kqk.fen" "$OUT/multipv.png"
analyse "$WORK/kqkr.fen" "$OUT/multipv-kqkr.png"

# Small copy for the docs: the board and the Engine Output window, scaled, 8-bit palette.
convert "$OUT/multipv.png" -crop 1576x626+0+0 +repage -resize 1100x \
    -colors 64 "PNG8:$OUT/multipv-small.png"

ls -l "$OUT"/*.png "$OUT"/game.pgn
