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
plumb_capture photo-90 photo --camera test --accelerometer iio --size 320x240 --force -o "$OUT/photo-90.jpg"
say "photo done"
feed $G 0 0
plumb_capture record-270 record --camera test --accelerometer iio --size 320x240 --seconds 1 --force \
    -o "$OUT/record-270.mp4"
say "record done"
exit 0
