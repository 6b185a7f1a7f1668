# plumb devices (text and JSON) next to v4l2-ctl's own listing of vivid's capture node.
source "$ROOT/Tests/Kernel/tools/vivid.sh"
set -x
vivid_load || exit 1
v4l2-ctl -d /dev/video0 --list-formats-ext > "$OUT/v4l2-formats.txt"
"$PLUMB" devices > "$OUT/devices.txt"
"$PLUMB" devices --json > "$OUT/devices.json"
# The nearest mode: a size vivid lacks, and what record chose (its facts).
"$PLUMB" record --camera /dev/video0 --size 330x190 --seconds 2 --accelerometer fixed:0 --force \
	-o "$OUT/nearest.mp4" > "$OUT/nearest.json"
# A rate given with --fps must be met: 12 fps, which vivid lacks, is refused naming its rates.
"$PLUMB" record --camera /dev/video0 --size 330x190 --fps 12 --seconds 2 --accelerometer fixed:0 --force \
	-o "$OUT/refused.mp4" > /dev/null 2> "$OUT/refused-rate.txt"
echo $? > "$OUT/refused-rate.status"
vivid_unload
