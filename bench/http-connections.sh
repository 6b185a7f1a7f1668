#!/usr/bin/env bash
# The control API over many requests: `plumb serve`'s open descriptors and resident size
# before and after ROUNDS rounds of what clients do — keep-alive GET /status (three on one
# connection) and a 404, a photo, an event stream dropped by the client, a half-sent
# request — measured after a warm-up. Flat is right; issue 8 saw one descriptor (a socket
# in CLOSE-WAIT) per kept-alive connection, forever.
# Usage: bench/http-connections.sh [path/to/plumb] [rounds]
set -euo pipefail
plumb=${1:-.build/release/plumb}
rounds=${2:-500}
dir=$(mktemp -d)
source "$(dirname "$0")/serve-daemon.sh"
port=${url##*:}

fds() { ls "/proc/$pid/fd" | wc -l; }
rss() { awk '/^VmRSS/ {print $2}' "/proc/$pid/status"; }
round() {
    curl -s -o /dev/null -o /dev/null -o /dev/null -o /dev/null \
        "$url/status" "$url/status" "$url/status" "$url/nothing"
    curl -s -o /dev/null -X POST "$url/photo"
    curl -s -N --max-time 0.2 -o /dev/null "$url/events" || true
    exec 3<>"/dev/tcp/127.0.0.1/$port"
    printf 'GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\n' >&3
    exec 3>&-
}

for _ in $(seq 20); do round; done
sleep 1
fds0=$(fds) rss0=$(rss)
start=$(date +%s%N)
for _ in $(seq "$rounds"); do round; done
end=$(date +%s%N)
sleep 1
fds1=$(fds) rss1=$(rss)
echo "http-connections: $rounds rounds ($((rounds * 7)) requests on $((rounds * 5)) connections) in $(((end - start) / 1000000)) ms"
echo "  open descriptors: $fds0 -> $fds1"
echo "  resident size:    $((rss0 / 1024)) MiB -> $((rss1 / 1024)) MiB"
