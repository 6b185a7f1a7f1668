#!/usr/bin/env bash
# GET /status requests per second over consecutive batches on one kept-alive connection
# each, and `plumb serve`'s resident size after each. Flat is right; issue 22 saw 314 then
# 116 requests/s over consecutive 20 000s, memory growing, and a crash at the 43 657th
# (each call nested the status providers two thunks deeper).
# Usage: bench/http-status.sh [path/to/plumb] [batches] [requests-per-batch]
set -euo pipefail
plumb=${1:-.build/release/plumb}
batches=${2:-5}
per=${3:-10000}
dir=$(mktemp -d)
source "$(dirname "$0")/serve-daemon.sh"
# One curl config: `per` requests on one connection, bodies dropped.
for _ in $(seq "$per"); do printf 'url = "%s/status"\noutput = "/dev/null"\n' "$url"; done >"$dir/curl.conf"
rss() { awk '/^VmRSS/ {print $2}' "/proc/$pid/status"; }
echo "http-status: $batches batches of $per GET /status; resident size at start $(( $(rss) / 1024 )) MiB"
for b in $(seq "$batches"); do
    start=$(date +%s%N)
    codes=$(curl -s -K "$dir/curl.conf" -w '%{http_code}\n' | grep -c '^200$' || true)
    end=$(date +%s%N)
    kill -0 "$pid" 2>/dev/null || { echo "  plumb serve died in batch $b" >&2; tail -5 "$dir/log" >&2; exit 1; }
    ms=$(((end - start) / 1000000))
    echo "  batch $b: $codes of $per answered 200 in $ms ms = $((per * 1000 / (ms > 0 ? ms : 1))) requests/s; resident size $(( $(rss) / 1024 )) MiB"
done
