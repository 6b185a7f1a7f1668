#!/usr/bin/env bash
# Still latency (takePhoto -> JPEG bytes) and recording start latency (startRecording ->
# first keyframe into the muxer) on a running session, at two sizes.
# Usage: bench/capture-latency.sh [path/to/plumb]   (plumb-bench is taken from beside it)
set -euo pipefail
plumb=${1:-.build/release/plumb}
rig="$(dirname "$plumb")/plumb-bench"
if [ ! -x "$rig" ]; then
    echo "no $rig: build it first (swift build -c release)" >&2
    exit 1
fi
"$rig" capture --size 320x240 --fps 30 --photos 60 --recordings 20
"$rig" capture --size 640x480 --fps 30 --photos 60 --recordings 20
