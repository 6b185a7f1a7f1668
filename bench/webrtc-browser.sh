#!/usr/bin/env bash
# WebRTC live view in a real browser: `plumb serve` (the "test:clock" test pattern, 640x480
# at 30 fps, the wall clock coded in its pixels) and the control page in headless chromium
# (selenium from `make test-venv`).
# webrtc.first_frame_ms: page load to the first decoded frame (videoWidth > 0), each a
# fresh page and WHEP session. webrtc.receiver_delay_ms: Chrome's inbound-rtp
# totalProcessingDelay per decoded frame (first packet in to decoded: jitter buffer and
# decoding). webrtc.glass_to_glass_ms: for each frame the page presents
# (requestVideoFrameCallback), its pixel clock read back through a canvas, against the
# wall clock at its expected display time: capture -> encode -> WebRTC -> decode -> display.
# Usage: bench/webrtc-browser.sh [path/to/plumb] [loads]
set -euo pipefail
plumb=${1:-.build/release/plumb}
loads=${2:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
make -s -C "$root" test-venv
dir=$(mktemp -d)
printf '%s\n' "[camera]" "device = test:clock" "size = 640x480" "fps = 30" \
    "[rotation]" "accelerometer = fixed:0" "[preview]" "address = 127.0.0.1" "port = 0" \
    "[recording]" "folder = $dir/recordings" "[http]" "listen = 127.0.0.1:0" > "$dir/plumb.ini"
"$plumb" serve --config "$dir/plumb.ini" 2> "$dir/serve.log" &
serve=$!
trap 'kill $serve 2>/dev/null; wait $serve 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do grep -q "plumb serve: ready" "$dir/serve.log" && break; sleep 0.2; done
http=$(sed -n 's/.*control API: \([^ ]*\).*/\1/p' "$dir/serve.log" | head -1)
"$root/.build/test-venv/bin/python" "$root/bench/webrtc_browser.py" "$http/" "$loads"
