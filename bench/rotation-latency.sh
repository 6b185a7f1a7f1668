#!/usr/bin/env bash
# Rotation latency: an accelerometer sample (replayed) -> the first turned frame at the
# preview's sink, through RotationObserver, the session and videoflip; plain and letterbox,
# and at 720p. make bench runs the first (rotation_latency_ms) itself.
# Usage: bench/rotation-latency.sh [path/to/plumb]   (plumb-bench is taken from beside it)
set -euo pipefail
plumb=${1:-.build/release/plumb}
rig="$(dirname "$plumb")/plumb-bench"
if [ ! -x "$rig" ]; then
    echo "no $rig: build it first (swift build -c release)" >&2
    exit 1
fi
"$rig" rotation-latency --size 640x480 --fps 30 --turns 20
"$rig" rotation-latency --size 640x480 --fps 30 --turns 20 --letterbox
"$rig" rotation-latency --size 1280x720 --fps 30 --turns 20
