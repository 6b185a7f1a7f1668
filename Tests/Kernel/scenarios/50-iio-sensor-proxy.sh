#!/bin/bash
# iio-sensor-proxy (Debian's) on the same hid-sensor-accel-3d device, over a system
# D-Bus started here: `plumb rotation --accelerometer sensor-proxy` follows the turns
# fed through /dev/uhid (Tests/Kernel/tools/hid_accel.py) as the proxy reports them
# (G_MESSAGES_DEBUG makes it log each orientation it emits). Written under $OUT for
# KernelIIOSensorProxyTests: rotation.log, marks.log, iio-sensor-proxy.log, bus.log.
set -u
: "${OUT:?}" "${PLUMB:?}" "${ROOT:?}"
. "$ROOT/Tests/Kernel/tools/hid_accel.sh"

bus_pid= proxy= rotation=
# The bus's socket in a folder the daemon's user (messagebus) may write to.
bus_dir=$(mktemp -d)
chmod 755 "$bus_dir"
finish() {
    [ -n "$rotation" ] && kill "$rotation" 2>/dev/null
    [ -n "$proxy" ] && kill "$proxy" 2>/dev/null
    [ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null
    rm -rf "$bus_dir"
    accel_stop
}
trap finish EXIT

seen() { grep -c -- "$1" "$OUT/rotation.log" 2>/dev/null || true; }

accel_start || exit 1
udevadm settle --timeout=30
udevadm info "$(accel_dir)" > "$OUT/udev.txt" 2>&1

# The system bus (Debian's system.conf and its policy files, iio-sensor-proxy's among
# them) at an address of its own, given to both sides as the system bus's.
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$bus_dir/system_bus_socket
dbus-daemon --system --address="$DBUS_SYSTEM_BUS_ADDRESS" --nopidfile --nofork > "$OUT/bus.log" 2>&1 &
bus_pid=$!
wait_until "[ -S $bus_dir/system_bus_socket ]" 30 || { say "the system bus did not start"; exit 1; }
G_MESSAGES_DEBUG=all iio-sensor-proxy > "$OUT/iio-sensor-proxy.log" 2>&1 &
proxy=$!
wait_until 'grep -q "accel" "$OUT/iio-sensor-proxy.log"' 30

"$PLUMB" rotation --accelerometer sensor-proxy > "$OUT/rotation.log" 2>&1 &
rotation=$!
wait_until '[ $(seen "sensor available") -ge 1 ]' 60

# Four turns; each waited for as one more angle change in plumb's output (which angle
# is the host test's to judge, against what iio-sensor-proxy itself emitted).
turn() {  # x y z
    local before
    say "turning to $*"
    before=$(seen "angles: capture")
    feed "$1 $2 $3"
    wait_until "[ \$(seen 'angles: capture') -gt $before ]" 20
}
wait_until '[ $(seen "angles: capture") -ge 1 ]' 20
turn -$G 0 0
turn 0 -$G 0
turn $G 0 0
turn 0 $G 0
kill -INT "$rotation"
wait "$rotation"
echo "exit=$?" >> "$OUT/rotation.log"
rotation=
say "done"
exit 0
