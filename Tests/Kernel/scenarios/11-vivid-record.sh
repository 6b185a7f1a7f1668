# plumb record and photo from vivid, with GStreamer's v4l2 buffer pool logging every buffer
# it dequeued (the driver's sequence number and timestamp): the host compares the file's
# frames with those.
source "$ROOT/Tests/Kernel/tools/vivid.sh"
set -x
vivid_load || exit 1
# The debug log on the VM's own tmpfs: through the shared folder it would slow the capture.
LOGDIR=$(mktemp -d)
GST_DEBUG=v4l2bufferpool:6,v4l2src:6 GST_DEBUG_FILE="$LOGDIR/gst.log" GST_DEBUG_NO_COLOR=1 \
	"$PLUMB" record --camera /dev/video0 --size 320x180 --fps 15 --seconds 3 --accelerometer fixed:0 --force \
	-o "$OUT/record.mp4" > "$OUT/record.json"
grep -o 'dequeued buffer [^ ]* seq:[0-9]* .*ts [0-9:.]*' "$LOGDIR/gst.log" > "$OUT/dequeued.txt"
# v4l2src's own account of each buffer: the driver's timestamp, the monotonic clock then,
# and the time it stamped (for the timestamps test's note); its warnings if any.
grep -E 'ts: .* now .* delay|out ts|Timestamp|lost frames' "$LOGDIR/gst.log" | cut -c1-400 > "$OUT/v4l2src.txt"
"$PLUMB" photo --camera /dev/video0 --size 320x180 --accelerometer fixed:0 --force -o "$OUT/photo.jpg" > "$OUT/photo.json"
# 30 % of the driver's buffers dropped (vivid skips their sequence numbers): the facts must
# count them and the file keep real time (its frames at the driver's times, gaps and all).
v4l2-ctl -d /dev/video0 --set-ctrl percentage_of_dropped_buffers=30
GST_DEBUG=v4l2bufferpool:6,v4l2src:6 GST_DEBUG_FILE="$LOGDIR/dropped.log" GST_DEBUG_NO_COLOR=1 \
	"$PLUMB" record --camera /dev/video0 --size 320x180 --fps 15 --seconds 3 --accelerometer fixed:0 --force \
	-o "$OUT/dropped.mp4" > "$OUT/dropped.json" 2> "$OUT/dropped.err"
grep -o 'dequeued buffer [^ ]* seq:[0-9]* .*ts [0-9:.]*' "$LOGDIR/dropped.log" > "$OUT/dropped-dequeued.txt"
grep -E 'ts: .* now .* delay|out ts|Timestamp|lost frames' "$LOGDIR/dropped.log" | cut -c1-400 > "$OUT/dropped-v4l2src.txt"
v4l2-ctl -d /dev/video0 --set-ctrl percentage_of_dropped_buffers=0
# plumb scan on the driver's own picture (vivid draws no code): it must end by itself after
# --seconds, having scanned real frames, and say it found nothing.
start=$(cut -d' ' -f1 /proc/uptime)
timeout 90 "$PLUMB" scan --camera /dev/video0 --size 320x180 --seconds 3 --accelerometer fixed:0 \
	> "$OUT/scan.out" 2> "$OUT/scan.err"
echo $? > "$OUT/scan.status"
awk -v s="$start" '{ printf "%.1f\n", $1 - s }' /proc/uptime > "$OUT/scan.seconds"
vivid_unload
