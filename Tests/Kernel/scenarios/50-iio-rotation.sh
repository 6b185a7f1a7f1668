#!/bin/bash
# The accelerometer on Debian's own IIO driver: a HID sensor hub accelerometer made
# through /dev/uhid (Tests/Kernel/tools/hid_accel.py), bound by hid-sensor-hub and
# hid-sensor-accel-3d. `plumb rotation --accelerometer iio` follows the turns fed to it
# and sees the device go away and come back. Written under $OUT for
# KernelIIORotationTests: sysfs.txt (the driver's attributes as KEY=VALUE),
# rotation.log (plumb rotation's output), marks.log (the commands fed, in order).
# Exits non-zero only when the setup fails; the host test asserts.
set -u
: "${OUT:?}" "${PLUMB:?}" "${ROOT:?}"
. "$ROOT/Tests/Kernel/tools/hid_accel.sh"

rotation=
trap '[ -n "$rotation" ] && kill "$rotation" 2>/dev/null; accel_stop' EXIT

# Counts the lines of rotation.log that contain $1.
seen() { grep -c -- "$1" "$OUT/rotation.log" 2>/dev/null || true; }

accel_start || exit 1
dir=$(accel_dir)
{
    echo "dir=$dir"
    for f in name in_accel_scale in_accel_offset in_accel_x_raw in_accel_y_raw in_accel_z_raw; do
        echo "$f=$(cat "$dir/$f")"
    done
} > "$OUT/sysfs.txt"
cat "$OUT/sysfs.txt"

"$PLUMB" rotation --accelerometer iio > "$OUT/rotation.log" 2>&1 &
rotation=$!
wait_until '[ $(( $(seen "sample t=") + $(seen "dropped: ") )) -ge 1 ]' 60

# Each turn is waited for in plumb rotation's own output.
turn() {  # x y z expected-angle
    local before
    say "turning to $4"
    before=$(seen "angles: capture $4°")
    feed "$1 $2 $3"
    wait_until "[ \$(seen 'angles: capture $4°') -gt $before ]" 20
}
turn -$G 0 0 90      # landscape, turned clockwise
turn 0 -$G 0 180     # upside down
turn $G 0 0 270      # landscape, turned counter-clockwise
turn 0 $G 0 0        # upright again

# Gone and back: the last angle holds while gone; the device comes back turned.
say "unplugging"
feed unplug
wait_until '[ $(seen "sensor unavailable") -ge 1 ]' 20
wait_until '! accel_dir >/dev/null' 10
feed -$G 0 0
say "plugging back"
feed plug
wait_until accel_dir 30
wait_until '[ $(seen "sensor available") -ge 2 ]' 30
wait_until '[ $(seen "angles: capture 90°") -ge 2 ]' 20
kill -INT "$rotation"
wait "$rotation"
echo "exit=$?" >> "$OUT/rotation.log"
rotation=
say "done"
exit 0
