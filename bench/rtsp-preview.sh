#!/usr/bin/env bash
# RTSP preview: time to first frame for a consumer joining mid-stream, and what each extra
# consumer costs the serving process, over TCP and over UDP. Called by `make bench` with the
# release `plumb` binary; plumb-bench sits beside it. Extra arguments go to plumb-bench.
set -euo pipefail
bin_dir=$(dirname "${1:-.build/release/plumb}")
for transport in tcp udp; do
    "$bin_dir/plumb-bench" rtsp-preview --transport "$transport" "${@:2}"
    echo
done
