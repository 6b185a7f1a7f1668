# plumb record and photo from vivid, with GStreamer's v4l2 buffer pool logging every buffer
# it dequeued (the driver's sequence number and timestamp): the host compares the file's
# frames with those.
source "$ROOT/Tests/Kernel/tools/vivid.sh"
set -x
vivid_load || exit 1
# The debug log on the VM's own tmpfs: through the shared folder it would slow the capture.
LOGDIR=$(mktemp -d)
GST_DEBUG=v4l2bufferpool:6 GST_DEBUG_FILE="$LOGDIR/gst.log" GST_DEBUG_NO_COLOR=1 \
	retry_first_frame "$PLUMB" record --camera /dev/video0 --size 320x180 --fps 15 --seconds 3 --accelerometer fixed:0 --force \
	-o "$OUT/record.mp4" > "$OUT/record.json"
grep -o 'dequeued buffer [^ ]* seq:[0-9]* .*ts [0-9:.]*' "$LOGDIR/gst.log" > "$OUT/dequeued.txt"
retry_first_frame "$PLUMB" photo --camera /dev/video0 --size 320x180 --accelerometer fixed:0 --force -o "$OUT/photo.jpg" > "$OUT/photo.json"
vivid_unload
