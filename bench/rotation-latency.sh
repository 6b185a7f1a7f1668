#!/usr/bin/env bash
# Rotation latency: an accelerometer sample (replayed) -> the first turned frame at the
# preview's sink, through RotationObserver, the session and videoflip; plain and letterbox.
# Usage: bench/rotation-latency.sh [path/to/plumb]   (the bench executable is taken from
# beside it: plumb-bench, or plumb-testrig where it still has that name)
set -euo pipefail
plumb=${1:-.build/release/plumb}
dir="$(dirname "$plumb")"
rig=""
for name in plumb-bench plumb-testrig; do
    if [ -x "$dir/$name" ]; then rig="$dir/$name"; break; fi
done
if [ -z "$rig" ]; then
    echo "no plumb-bench beside $plumb: build it first (swift build -c release)" >&2
    exit 1
fi
"$rig" rotation-latency --size 640x480 --fps 30 --turns 20
"$rig" rotation-latency --size 640x480 --fps 30 --turns 20 --letterbox
"$rig" rotation-latency --size 1280x720 --fps 30 --turns 20
