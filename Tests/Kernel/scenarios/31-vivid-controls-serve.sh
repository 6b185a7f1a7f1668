# plumb serve keeping camera controls on vivid: [camera] controls set when the camera opens
# (a name vivid lacks reported, not failed); PATCH /controls read back by v4l2-ctl, its
# refusals (inactive under auto gain; out of range: the batch not half-applied); the lock;
# then vivid disconnected, removed and loaded again while serve runs: the kept values set on
# the new device; plumb record --lock holding auto gain off while it records. The host asserts. (A value vivid refuses ending the start is left out: one
# more daemon start under emulation costs 15 s of the VM's budget.)
source "$ROOT/Tests/Kernel/tools/vivid.sh"
PS4='+ ${EPOCHREALTIME} '
set -x
vivid_load || exit 1
API=127.0.0.1:8080
"$PLUMB" serve --set camera.device=/dev/video0 --set camera.size=320x180 --set camera.fps=15 \
	--set rotation.accelerometer=fixed:0 --set recording.folder="$OUT/recordings" \
	--set http.listen=$API --set preview.port=8554 --set "camera.controls=brightness=200, contrast=50, torch=on" \
	> /dev/null 2> "$OUT/serve.log" &
PID=$!
stop_serve() { kill -TERM $PID; wait $PID; echo $? > "$OUT/serve.status"; }
wait_camera_state $API running 90 > "$OUT/status-start.json" || { echo "never running" >&2; stop_serve; exit 1; }
v4l2-ctl -d /dev/video0 --get-ctrl=brightness,contrast > "$OUT/start.txt"
curl -sN --max-time 60 "http://$API/events" > "$OUT/events.txt" &
EVENTS=$!
curl -s "http://$API/controls" > "$OUT/controls.json"
v4l2-ctl -d /dev/video0 --list-ctrls > "$OUT/v4l2-ctrls.txt"
patch() { curl -s -o "$OUT/$1.json" -w '%{http_code}' -X PATCH --data "$2" "http://$API/controls" > "$OUT/$1.code"; }
patch set '{"saturation": 10, "brightness": 220}'
v4l2-ctl -d /dev/video0 --get-ctrl=brightness,saturation > "$OUT/set.txt"
patch inactive '{"gain": 30}'
patch range '{"saturation": 90, "brightness": 999}'
v4l2-ctl -d /dev/video0 --get-ctrl=brightness,saturation > "$OUT/after-refusals.txt"
curl -s -o "$OUT/lock.json" -w '%{http_code}' -X POST "http://$API/controls/lock" > "$OUT/lock.code"
v4l2-ctl -d /dev/video0 --get-ctrl=gain_automatic > "$OUT/locked.txt"
curl -s -o "$OUT/unlock.json" -w '%{http_code}' -X DELETE "http://$API/controls/lock" > "$OUT/unlock.code"
v4l2-ctl -d /dev/video0 --get-ctrl=gain_automatic > "$OUT/unlocked.txt"
kill $EVENTS 2>/dev/null
# Disconnected (the node moved aside first, as 20-* does), removed and loaded again: the new
# device starts at its defaults; serve sets the kept values on it.
mv /dev/video0 /dev/video0.away
v4l2-ctl -d /dev/video0.away --set-ctrl disconnect=1
wait_camera_state $API unavailable 30 > /dev/null
# Removed once serve let go of it (vivid_unload retries while it does).
vivid_unload
vivid_load || { stop_serve; exit 1; }
wait_camera_state $API running 90 > "$OUT/status-back.json" || echo "not reopened after the reload" >&2
v4l2-ctl -d /dev/video0 --get-ctrl=brightness,contrast,saturation > "$OUT/back.txt"
stop_serve
wait $EVENTS
# plumb record --lock: auto gain off while it records, back on after it.
record_sampling gain_automatic "$OUT/record-lock" --camera /dev/video0 --size 320x180 --fps 15 --seconds 1 \
	--accelerometer fixed:0 --force --lock -o "$OUT/locked.mp4"
v4l2-ctl -d /dev/video0 --get-ctrl=gain_automatic > "$OUT/record-lock-after.txt"
vivid_unload
exit 0
