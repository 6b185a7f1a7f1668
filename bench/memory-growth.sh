#!/usr/bin/env bash
# Memory growth of `plumb serve`, one kind of work at a time: the resident size (VmRSS from
# /proc/PID/status) after a warm-up, then after each phase — N stills (POST /photo), N RTSP
# reconnects (ffprobe reading a few frames), N event clips (POST /event, each waited for),
# the first thumbnail and N more — so that what grows can be told apart: a cache grows once
# and stays, a leak grows with N. Run it twice, with MALLOC_ARENA_MAX=2 (as
# packaging/plumb.service sets it) and empty (glibc's default: an arena per thread).
# Not part of `make test`. Usage: bench/memory-growth.sh [path/to/plumb]
# Environment: N (20), MALLOC_ARENA_MAX (2; empty for glibc's default).
set -euo pipefail
export MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX-2}
[ -n "$MALLOC_ARENA_MAX" ] || unset MALLOC_ARENA_MAX
plumb=${1:-.build/debug/plumb}
n=${N:-20}
dir=$(mktemp -d /tmp/plumb-memory.XXXXXX)
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$dir"' EXIT
"$plumb" serve --listen 127.0.0.1:0 --set camera.device=test --set camera.size=320x240 --set camera.fps=30 \
    --set rotation.accelerometer=fixed:0 --set preview.address=127.0.0.1 --set preview.port=0 \
    --set recording.folder="$dir/recordings" --set recording.continuous=true --set recording.segment-seconds=10 \
    --set events.post-seconds=1 2>"$dir/serve.log" &
pid=$!
for _ in $(seq 100); do grep -q "plumb serve: ready" "$dir/serve.log" && break; sleep 0.2; done
http=$(grep -o 'control API: [^ ]*' "$dir/serve.log" | cut -d' ' -f3)
rtsp=$(grep -o 'RTSP preview: [^ ]*' "$dir/serve.log" | cut -d' ' -f3)
rss() { awk "/^$1:/ {print \$2}" /proc/$pid/status; }
last=0 lastanon=0
# RssAnon is the heap (malloc, Swift, GObjects); RssFile the libraries and plugins mapped,
# which GStreamer never unloads.
phase() {
    local now anon; now=$(rss VmRSS); anon=$(rss RssAnon)
    printf '%-34s %7d KiB %+7d KiB   anon %7d KiB %+7d KiB   file %7d KiB\n' "$1" "$now" $((now - last)) \
        "$anon" $((anon - lastanon)) "$(rss RssFile)"
    last=$now lastanon=$anon
}
echo "MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-(glibc default)}, N=$n, $plumb"
sleep 10
phase "after start + 10 s"
sleep 20
phase "30 s idle (warm-up drift)"
for _ in $(seq "$n"); do curl -sf -X POST -o /dev/null "$http/photo"; done
phase "$n stills"
for _ in $(seq "$n"); do curl -sf -X POST -o /dev/null "$http/photo"; done
phase "$n more stills"
for _ in $(seq "$n"); do timeout 20 ffprobe -v error -rtsp_transport tcp -read_intervals %+#5 -show_entries frame=pts \
    -of csv "$rtsp" >/dev/null 2>&1 || true; done
phase "$n RTSP reconnects"
for _ in $(seq "$n"); do timeout 20 ffprobe -v error -rtsp_transport tcp -read_intervals %+#5 -show_entries frame=pts \
    -of csv "$rtsp" >/dev/null 2>&1 || true; done
phase "$n more RTSP reconnects"
for i in $(seq "$n"); do
    curl -sf -X POST -o /dev/null "$http/event?post-seconds=0.5" || true
    for _ in $(seq 50); do [ "$(grep -c 'event clip saved' "$dir/serve.log")" -ge "$i" ] && break; sleep 0.1; done
done
phase "$n event clips"
name=$(curl -sf "$http/recordings" | grep -o '"name":"[^"]*\.mp4"' | head -1 | cut -d'"' -f4)
curl -sf -o /dev/null "$http/recordings/$name/thumbnail"
phase "first thumbnail"
for f in $(curl -sf "$http/recordings" | grep -o '"name":"[^"]*"' | cut -d'"' -f4 | head -"$n"); do
    curl -sf -o /dev/null "$http/recordings/$f/thumbnail" || true
done
phase "up to $n more thumbnails"
for _ in $(seq 200); do curl -sf -o /dev/null "$http/status"; done
phase "200 GET /status"
sleep 20
phase "20 s idle"
