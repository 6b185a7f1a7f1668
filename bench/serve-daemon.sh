# Sourced by the bench scripts that measure a running `plumb serve`: starts it on the test
# pattern at 320x240 with loopback ports of its own, logs to $dir/log, stops it and removes
# $dir on exit, and waits until it is ready. Needs $plumb and $dir; sets $pid and $url (the
# control API).
"$plumb" serve --listen 127.0.0.1:0 --set camera.device=test --set camera.size=320x240 \
    --set rotation.accelerometer=fixed:0 --set preview.address=127.0.0.1 --set preview.port=0 \
    --set recording.folder="$dir/recordings" 2>"$dir/log" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 300); do grep -q "plumb serve: ready" "$dir/log" && break; sleep 0.1; done
url=$(sed -n 's/.*control API: \(http:[^ ]*\).*/\1/p' "$dir/log")
[ -n "$url" ] || { cat "$dir/log" >&2; exit 1; }
