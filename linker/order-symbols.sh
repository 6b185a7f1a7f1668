#!/bin/bash
# Records which functions of `plumb` and `plumb-serve` run in their common jobs and writes
# them, in the order they first ran, to linker/symbol-order.txt: the order the linker lays
# them out in (Package.swift, staticSwift), so that the code a run executes sits together
# instead of scattered over the whole text (issue 26, bench/README.md "Memory").
#
# Usage: linker/order-symbols.sh PLUMB_BINARY_DIR   (make order: the release build)
# The jobs: `plumb --help`, `plumb run` on the bench's two pipelines, a short `plumb record`
# and `plumb photo` of the test pattern, and `plumb serve` started, idle, then stopped.
# Each runs under valgrind's callgrind, which lists every function that executed. Re-run it
# when the code a job runs has changed much: a function missing from the list is only laid
# out elsewhere, never lost.
set -euo pipefail
bin=$(cd "${1:?usage: order-symbols.sh BINARY_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# callgrind cannot read the DWARF 5 our toolchain writes: copies without debug sections.
strip --strip-debug -o "$work/plumb" "$bin/plumb"
strip --strip-debug -o "$work/plumb-serve" "$bin/plumb-serve"

profile() {  # NAME ARGV...: the functions of ARGV[0] that ran, into $work/NAME.fns
    local name=$1; shift
    # A job that hangs under valgrind fails the script instead of stalling it.
    timeout 900 valgrind --tool=callgrind --demangle=no --compress-strings=no --compress-pos=no --dump-instr=no \
        --callgrind-out-file="$work/$name.out" "$@" > "$work/$name.log" 2>&1 || {
        echo "order-symbols: $name failed:" >&2; tail -20 "$work/$name.log" >&2; exit 1; }
    # "ob=" names the object the following "fn=" blocks belong to.
    awk -v ob="$(basename "$1")" '/^ob=/ { n = split(substr($0, 4), p, "/"); mine = (p[n] == ob) }
        /^fn=/ && mine { print substr($0, 4) }' "$work/$name.out" > "$work/$name.fns"
    echo "order-symbols: $name: $(wc -l < "$work/$name.fns") functions"
}

short() {  # the bench pipeline $1 with 20 frames instead of 300
    sed 's/num-buffers=300/num-buffers=20/' "$here/../bench/pipelines/$1.pipeline" > "$work/$1.pipeline"
    echo "$work/$1.pipeline"
}

profile help "$work/plumb" --help
profile run-record "$work/plumb" run "$(short overhead-record)" -D location="$work/record.mp4"
profile run-tee "$work/plumb" run "$(short overhead-tee)" -D location="$work/tee.mp4"
profile record "$work/plumb" record --seconds 1 --camera test --size 640x480 --accelerometer fixed:0 \
    --location off -o "$work/short.mp4"
profile photo "$work/plumb" photo --camera test --size 640x480 --accelerometer fixed:0 --location off \
    -o "$work/still.jpg"

# The daemon: started on the test pattern, stopped by SIGTERM once ready (callgrind writes
# its list when the process exits).
valgrind --tool=callgrind --demangle=no --compress-strings=no --compress-pos=no --dump-instr=no \
    --callgrind-out-file="$work/serve.out" "$work/plumb-serve" serve --listen 127.0.0.1:0 \
    --set camera.device=test --set camera.size=320x240 --set rotation.accelerometer=fixed:0 \
    --set preview.address=127.0.0.1 --set preview.port=0 --set recording.folder="$work/recordings" \
    > "$work/serve.log" 2>&1 &
serve=$!
for _ in $(seq 1200); do grep -q "plumb serve: ready" "$work/serve.log" && break; sleep 0.1; done
grep -q "plumb serve: ready" "$work/serve.log" || { echo "order-symbols: serve never ready:" >&2; tail -20 "$work/serve.log" >&2; kill -9 $serve; exit 1; }
sleep 3
kill -TERM $serve
wait $serve || { echo "order-symbols: serve failed:" >&2; tail -20 "$work/serve.log" >&2; exit 1; }
awk '/^ob=/ { n = split(substr($0, 4), p, "/"); mine = (p[n] == "plumb-serve") }
    /^fn=/ && mine { print substr($0, 4) }' "$work/serve.out" > "$work/serve.fns"
echo "order-symbols: serve: $(wc -l < "$work/serve.fns") functions"

# Every function once, first the start-up common to all, in the order the jobs first ran them.
cat "$work"/help.fns "$work"/run-record.fns "$work"/run-tee.fns "$work"/record.fns "$work"/photo.fns \
    "$work"/serve.fns | awk '!seen[$0]++' > "$here/symbol-order.txt"
echo "order-symbols: $(wc -l < "$here/symbol-order.txt") functions in linker/symbol-order.txt"
