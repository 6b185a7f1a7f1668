#!/bin/bash
# `plumb photo` and `plumb record` take their angle from Debian's hid-sensor-accel-3d
# driver (fed through /dev/uhid by Tests/Kernel/tools/hid_accel.py): a still with the
# device turned clockwise (90) and a recording turned counter-clockwise (270), each
# with its JSON facts and stderr, for KernelIIOStillsTests (exiftool / ffprobe on the host).
set -u
: "${OUT:?}" "${PLUMB:?}" "${ROOT:?}"
. "$ROOT/Tests/Kernel/tools/hid_accel.sh"
trap accel_stop EXIT

accel_start || exit 1
feed -$G 0 0
"$PLUMB" photo --camera test --accelerometer iio --size 320x240 -o "$OUT/photo-90.jpg" \
    > "$OUT/photo-90.json" 2> "$OUT/photo-90.err"
echo "exit=$?" >> "$OUT/photo-90.err"
say "photo done"
feed $G 0 0
"$PLUMB" record --camera test --accelerometer iio --size 320x240 --seconds 1 -o "$OUT/record-270.mp4" \
    > "$OUT/record-270.json" 2> "$OUT/record-270.err"
echo "exit=$?" >> "$OUT/record-270.err"
say "record done"
exit 0
