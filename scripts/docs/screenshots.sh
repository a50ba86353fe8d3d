#!/usr/bin/env bash
# The three pictures of docs/drawing.md, drawn by `sigmar show` and shot with headless Chromium
# (Debian package `chromium`). Rerun after changing the drawing or the stuck-set rules.
#     bash scripts/docs/screenshots.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sigmar=${SIGMAR:-sigmar}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
shot() { # URL OUT WIDTH,HEIGHT
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="$3" \
        --screenshot="$2" "$1" >/dev/null 2>&1
}

sed -n '1,13p' "$root/instances/real-game.txt" >"$work/real.txt"
$sigmar show "$work/real.txt" --svg "$work/real.svg" --coords >/dev/null
printf '<body style="margin:0"><img src="real.svg" width="640">' >"$work/real.html"
shot "file://$work/real.html" "$root/docs/drawing-board.png" 640,590

$sigmar show "$work/real.txt" --solution "$root/tests/data/real-game-0.solution.txt" \
    --html "$work/replay.html" >/dev/null
shot "file://$work/replay.html#5" "$root/docs/drawing-replay.png" 1200,900

# Lead ringed by quicksilver and later metals (instances/small.txt): a stuck set of seven tiles.
awk '/^# lead ringed/{on=1} on&&/^$/{exit} on' "$root/instances/small.txt" >"$work/stuck.txt"
$sigmar show "$work/stuck.txt" --html "$work/stuck.html" >/dev/null
shot "file://$work/stuck.html" "$root/docs/drawing-stuck.png" 1000,900
ls -l "$root"/docs/drawing-*.png
