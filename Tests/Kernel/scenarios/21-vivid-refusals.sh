# Nodes plumb may not use: one only root may open (mode 0600, plumb run as nobody), and one
# another process streams from (v4l2-ctl --stream-mmap): the errors plumb gives.
source "$ROOT/Tests/Kernel/tools/vivid.sh"
set -x
vivid_load || exit 1
chmod 600 /dev/video0
mkdir -p "$OUT/nobody" && chmod 777 "$OUT/nobody"
runuser -u nobody -- "$PLUMB" photo --camera /dev/video0 --size 320x180 --accelerometer fixed:0 -o "$OUT/nobody/refused.jpg" \
	> "$OUT/permission.out" 2> "$OUT/permission.err"
echo $? > "$OUT/permission.status"
chmod 660 /dev/video0
v4l2-ctl -d /dev/video0 --set-fmt-video=width=320,height=180 --stream-mmap --stream-count=100000 > /dev/null 2>&1 &
STREAMER=$!
sleep 3
"$PLUMB" photo --camera /dev/video0 --size 320x180 --accelerometer fixed:0 -o "$OUT/refused.jpg" \
	> "$OUT/busy.out" 2> "$OUT/busy.err"
echo $? > "$OUT/busy.status"
kill $STREAMER
wait $STREAMER
# [camera] fps that vivid has no mode for at the size: plumb serve refuses to start.
timeout 90 "$PLUMB" serve --set camera.device=/dev/video0 --set camera.size=320x180 --set camera.fps=12 \
	--set rotation.accelerometer=fixed:0 --set recording.folder="$OUT/serve-fps" \
	--set http.listen=127.0.0.1:8081 --set preview.port=8555 > "$OUT/serve-fps.out" 2> "$OUT/serve-fps.err"
echo $? > "$OUT/serve-fps.status"
vivid_unload
