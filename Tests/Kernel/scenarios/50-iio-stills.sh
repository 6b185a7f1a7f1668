#!/bin/bash
# `plumb photo` and `plumb record` take their angle from Debian's hid-sensor-accel-3d
# driver (fed through /dev/uhid by Tests/Kernel/tools/hid_accel.py): a recording turned
# counter-clockwise (270) and a still with the device turned clockwise (90), each
# with its JSON facts and stderr, for KernelIIOStillsTests (exiftool / ffprobe on the host).
set -u
: "${OUT:?}" "${PLUMB:?}" "${ROOT:?}"
. "$ROOT/Tests/Kernel/tools/hid_accel.sh"
trap accel_stop EXIT

accel_start || exit 1
# The plugins read once before plumb's first start: under emulation, loading them from the
# host's file system can take longer than plumb waits for a first frame.
gst-launch-1.0 -q videotestsrc num-buffers=1 ! videoconvert ! jpegenc ! fakesink \
    videotestsrc num-buffers=1 ! videoconvert ! x264enc ! h264parse ! mp4mux ! fakesink
feed $G 0 0
plumb_capture record-270 record --camera test --accelerometer iio --size 320x240 --seconds 1 --force \
    -o "$OUT/record-270.mp4"
say "record done"
feed -$G 0 0
plumb_capture photo-90 photo --camera test --accelerometer iio --size 320x240 --force -o "$OUT/photo-90.jpg"
say "photo done"
exit 0
