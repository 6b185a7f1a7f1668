#!/usr/bin/env bash
# `make bench`: every measurement in one run, a progress line per stage, then
# bench/results.json, bench/results.md and the charts (bench/*.png, by bench/report.py).
# Each stage prints its text and "= KEY JSON" lines; the text goes to
# .build/bench/STAGE.log (and a summary here), the "=" lines into the results.
# Usage: bench/run.sh [path/to/plumb]   (plumb-bench is taken from beside it)
set -euo pipefail
plumb=$(realpath "${1:-.build/release/plumb}")
bin=$(dirname "$plumb")
root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/.build/bench"
python=/usr/bin/python3  # Debian's, with python3-matplotlib (not a venv's)
[ -x "$bin/plumb-bench" ] || { echo "no $bin/plumb-bench: build it first (swift build -c release)" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
: > "$work/results.kv"

stages=(
    "overhead|plumb run/record vs gst-launch-1.0 and ffmpeg, rotation cost, one-shot photo|$python $root/bench/overhead.py $plumb 2"
    "capture|still, recording start and stop latency (640x480)|bash $root/bench/capture-latency.sh $plumb"
    "rotation|rotation latency (640x480)|$bin/plumb-bench rotation-latency --size 640x480 --fps 30 --turns 20"
    "rtsp|RTSP time to first frame, TCP and UDP|bash $root/bench/rtsp-preview.sh $plumb --joins 5 --first-frame-only"
    "idle|the engine: camera alone vs camera + a preview encoder|$bin/plumb-bench idle --size 640x480 --seconds 4"
    "retention|a retention pass on a folder of 50 000 recordings|$bin/plumb-bench retention --files 50000 --passes 20"
    "costs|plumb serve CPU/RSS against resolution and outputs, RTSP glass-to-glass|$python $root/bench/serve_cost.py $plumb 2.5"
    "motion|motion detection per analysed frame, 640x480 and 1280x720|$bin/plumb-bench motion --size 640x480 --size 1280x720 --rate 5"
    "shared|plumb serve: live encoders idle, recording, recording + ring + RTSP + WHEP, turned (1280x720)|$python $root/bench/shared_encoding.py $plumb 5"
    "webrtc|WebRTC in headless chromium: first frame, glass-to-glass|bash $root/bench/webrtc-browser.sh $plumb 4"
)
begin=$(date +%s)
n=0
for stage in "${stages[@]}"; do
    IFS='|' read -r name what command <<< "$stage"
    n=$((n + 1))
    printf '[%d/%d] %-9s %s (at %d s)\n' "$n" "${#stages[@]}" "$name" "$what" "$(($(date +%s) - begin))"
    # shellcheck disable=SC2086  # the command is split into words on purpose
    if ! (cd "$root/bench" && $command) > "$work/$name.log" 2>&1; then
        tail -30 "$work/$name.log" >&2
        echo "make bench: stage $name failed (all of it in $work/$name.log)" >&2
        exit 1
    fi
    grep -v '^= ' "$work/$name.log" | sed 's/^/      /' | head -40
    grep '^= ' "$work/$name.log" | sed "s/^= /$name /" >> "$work/results.kv"
done
printf '[report] results.json, results.md, charts (at %d s)\n' "$(($(date +%s) - begin))"
"$python" "$root/bench/report.py" "$work/results.kv" "$root/bench"
echo "make bench: done in $(($(date +%s) - begin)) s; see bench/results.md"
