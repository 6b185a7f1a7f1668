#!/usr/bin/env bash
# Soak: `plumb serve` unattended for SOAK_MINUTES (default 30) with what a field box sees —
# continuous 10 s segments, a retention quota (when this plumb knows [recording] max-bytes),
# the rotation replayed (a turn every 20 s on standard input), an RTSP consumer (ffmpeg)
# attached throughout, a photo every few seconds (POST /photo and SIGUSR1 in turn) and an
# event trigger (POST /event, when the API has it). Then SIGTERM, and the checks: RSS at
# start (after a warm-up), each minute and at the end, every file read by ffprobe, no gap between segments
# (consecutive names vs durations, and all frames recorded vs the time recorded), every
# recorded file either present or logged as deleted, the consumer still connected.
# Not part of `make test`. Usage: tools/soak.sh [path/to/plumb]
# Environment: SOAK_MINUTES (30), SOAK_QUOTA (20M), SOAK_SIZE (320x240), SOAK_DIR (a new temporary folder, kept),
# MALLOC_ARENA_MAX (2, as packaging/plumb.service sets it; empty for glibc's default).
set -euo pipefail
export MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX-2}
[ -n "$MALLOC_ARENA_MAX" ] || unset MALLOC_ARENA_MAX
plumb=${1:-.build/release/plumb}
minutes=${SOAK_MINUTES:-30}
quota=${SOAK_QUOTA:-20M}
size=${SOAK_SIZE:-320x240}
fps=30
dir=${SOAK_DIR:-$(mktemp -d /tmp/plumb-soak.XXXXXX)}
mkdir -p "$dir"
log=$dir/serve.log
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

args=(serve --listen 127.0.0.1:0 --set camera.device=test --set camera.size="$size" --set camera.fps=$fps
      --set rotation.accelerometer=replay:- --set preview.address=127.0.0.1 --set preview.port=0
      --set recording.folder="$dir/recordings" --set recording.continuous=true --set recording.segment-seconds=10)
# Retention keys come with issue 10's retention work: passed only when this plumb knows them.
if "$plumb" serve --set recording.max-bytes="$quota" --print-config >/dev/null 2>&1; then
    args+=(--set recording.max-bytes="$quota")
    echo "retention: [recording] max-bytes = $quota"
else
    echo "retention: this plumb has no [recording] max-bytes; running without a quota"
fi

# The accelerometer: upright, then a quarter turn, and back, every 20 s, for as long as plumb reads.
rotation() {
    local t=0 i=0
    local -a samples=("0 9.81 0" "-9.81 0 0" "0 9.81 0" "9.81 0 0")
    while true; do
        echo "$t ${samples[$((i % 4))]}"
        sleep 20
        t=$((t + 20000)); i=$((i + 1))
    done
}
rm -f "$dir/rotation"; mkfifo "$dir/rotation"
: >"$log"
"$plumb" "${args[@]}" <"$dir/rotation" 2>"$log" &
pid=$!
rotation >"$dir/rotation" &
rotator=$!
consumer=
# Under set -e a failing last command of an && list ends the trap, and with it the exit
# status: each step here may fail (the process is gone already) without saying so.
cleanup() {
    if [ -n "$consumer" ]; then kill "$consumer" 2>/dev/null || true; fi
    if kill "$pid" 2>/dev/null; then wait "$pid" 2>/dev/null || true; fi
    kill "$rotator" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 300); do grep -q "plumb serve: ready" "$log" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
url=$(sed -n 's/.*control API: \(http:[^ ]*\).*/\1/p' "$log")
rtsp=$(sed -n 's/.*RTSP preview: \(rtsp:[^ ]*\).*/\1/p' "$log")
[ -n "$url" ] && [ -n "$rtsp" ] || { cat "$log" >&2; exit 1; }
echo "MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-(glibc default)}"
echo "soak: $minutes min in $dir (plumb pid $pid, $url, $rtsp)"

ffmpeg -nostdin -v error -rtsp_transport tcp -i "$rtsp" -f null - 2>"$dir/consumer.log" &
consumer=$!
rss() { awk '/^VmRSS/ {print $2}' "/proc/$pid/status"; }
events=no
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$url/event")" != 404 ] && events=yes
echo "event triggers: $events (POST /event)"

sleep 30
rss_start=$(rss)
echo "RSS after warm-up: $rss_start kB"
photos=0 photo_failures=0 triggers=0 trigger_failures=0 round=0
end=$(( $(date +%s) + minutes * 60 ))
# RSS once a minute: a steady climb is a leak, a rise that levels off is warm-up.
rss_series=$rss_start next_sample=$(( $(date +%s) + 60 ))
while [ "$(date +%s)" -lt "$end" ]; do
    round=$((round + 1))
    if [ "$(date +%s)" -ge "$next_sample" ]; then
        rss_series="$rss_series $(rss)"
        next_sample=$((next_sample + 60))
    fi
    if [ $((round % 2)) -eq 0 ]; then
        kill -USR1 "$pid"
    else
        code=$(curl -s -o "$dir/photo.jpg" -w '%{http_code}' -X POST "$url/photo")
        if [ "$code" = 200 ] && ffprobe -v error "$dir/photo.jpg"; then photos=$((photos + 1)); else photo_failures=$((photo_failures + 1)); fi
    fi
    if [ "$events" = yes ] && [ $((round % 3)) -eq 0 ]; then
        code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$url/event?post-seconds=3")
        case $code in 2*) triggers=$((triggers + 1)) ;; *) trigger_failures=$((trigger_failures + 1)) ;; esac
    fi
    sleep 4
done
rss_end=$(rss)
kill -0 "$consumer" 2>/dev/null || fail "the RTSP consumer was disconnected: $(cat "$dir/consumer.log")"
kill "$consumer" 2>/dev/null; consumer=
kill -TERM "$pid"
wait "$pid" || fail "plumb serve exited $?"
stopped=$(date +%s)

# Every file is readable; segments (YYYY-MM-DDTHH-MM-SSZ.mp4) follow each other without a gap.
cd "$dir/recordings"
unreadable=0 segments=0 stills=0 prev_end=
for f in $(ls -1 | sort); do
    case $f in
    *.mp4)
        d=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$f" 2>/dev/null || true)
        if [ -z "$d" ] || [ "$d" = N/A ]; then fail "$f: ffprobe reads no duration"; unreadable=$((unreadable + 1)); continue; fi
        case $f in clip-*|event-*) continue ;; esac
        segments=$((segments + 1))
        start=$(date -u -d "$(echo "${f:0:20}" | sed 's/T\(..\)-\(..\)-\(..\)Z/ \1:\2:\3/')" +%s)
        if [ -n "$prev_end" ]; then
            gap=$(echo "$start - $prev_end" | bc -l)
            # Names have whole seconds: a real gap is more than a second and a half.
            if [ "$(echo "$gap > 1.5 || $gap < -1.5" | bc -l)" = 1 ]; then fail "gap of $gap s before $f"; fi
        fi
        prev_end=$(echo "$start + $d" | bc -l) ;;
    *.jpg)
        stills=$((stills + 1))
        ffprobe -v error "$f" || { fail "$f: ffprobe cannot read it"; unreadable=$((unreadable + 1)); } ;;
    esac
done
# Every file plumb said it recorded is here, or was logged as deleted by retention.
recorded=$(grep -c "plumb serve: recorded " "$log" || true)
deleted=$(grep -c "retention: deleted " "$log" || true)
present=$(ls -1 | grep -c '\.mp4$' || true)
lost=0
for f in $(sed -n 's/.*plumb serve: recorded \([^:]*\): .*/\1/p' "$log"); do
    [ -e "$f" ] || grep -q "retention: deleted $f " "$log" || { fail "$f: recorded, neither here nor logged as deleted"; lost=$((lost + 1)); }
done
events_saved=$(grep -c "plumb serve: event clip saved: " "$log" || true)
frames=$(sed -n 's/.*plumb serve: recorded [^:]*: \([0-9]*\) frames.*/\1/p' "$log" | paste -sd+ | bc)
first=$(sed -n 's/.*plumb serve: recording to .*\/\([^/]*\)\.mp4$/\1/p' "$log" | head -1)
first_start=$(date -u -d "$(echo "${first:0:20}" | sed 's/T\(..\)-\(..\)-\(..\)Z/ \1:\2:\3/')" +%s)
span=$((stopped - first_start))
echo "RSS: $rss_start kB after warm-up, $rss_end kB at the end ($(( (rss_end - rss_start) )) kB)"
echo "RSS each minute (kB): $rss_series $rss_end"
echo "segments present: $segments ($present .mp4 in all), recorded: $recorded, lost: $lost, deletions logged: $deleted, stills present: $stills"
echo "photos: $photos over HTTP ($photo_failures failed), SIGUSR1 every other round; event triggers: $triggers ($trigger_failures failed), event clips saved: $events_saved"
echo "frames recorded: $frames in about $span s ($(( span * fps )) expected at $fps fps)"
[ "$unreadable" -eq 0 ] || fail "$unreadable unreadable files"
[ "$photo_failures" -eq 0 ] || fail "$photo_failures photos failed"
[ "$trigger_failures" -eq 0 ] || fail "$trigger_failures event triggers failed"
# Within 3 s of frames (the stop's last file, second-resolution names).
[ $(( frames - span * fps )) -le $((3 * fps)) ] && [ $(( span * fps - frames )) -le $((3 * fps)) ] ||
    fail "frames recorded ($frames) do not cover the time recorded ($span s)"
grep -E "plumb serve: error" "$log" | head -5 || true
echo "log: $log"
[ "$failures" -eq 0 ] && echo "soak: passed" || { echo "soak: $failures failures"; exit 1; }
