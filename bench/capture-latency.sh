#!/usr/bin/env bash
# Still latency (takePhoto -> JPEG bytes), recording start latency (startRecording ->
# first keyframe into the muxer) and stop latency (stop -> MP4 finalized) on a running
# session at 640x480 (make bench's still_latency_ms, record_start_ms, record_stop_ms).
# Usage: bench/capture-latency.sh [path/to/plumb] [plumb-bench capture options]
set -euo pipefail
plumb=${1:-.build/release/plumb}
rig="$(dirname "$plumb")/plumb-bench"
if [ ! -x "$rig" ]; then
    echo "no $rig: build it first (swift build -c release)" >&2
    exit 1
fi
"$rig" capture --size 640x480 --fps 30 --photos 60 --recordings 15 "${@:2}"
