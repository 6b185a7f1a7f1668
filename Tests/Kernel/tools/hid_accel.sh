# Sourced by the 50-iio-*.sh scenarios: loads the HID sensor drivers, starts
# hid_accel.py on /dev/uhid and gives the functions to drive it. Needs OUT and ROOT.
# accel_start     loads uhid, hid_sensor_hub, hid_sensor_accel_3d; makes the device; waits for its IIO node
# accel_dir       prints the IIO device's folder (name accel_3d); fails while there is none
# feed WORDS      one command to the device program (X Y Z in m/s^2, unplug, plug), waited for
# wait_until COND SECONDS
# accel_stop      (on EXIT) ends the program and unloads the modules

G=9.80665
# The fifo lives in the VM's own /tmp: the shared folder (9p) has no fifos.
accel_work=$(mktemp -d)
accel_fifo=$accel_work/commands
accel_state=$OUT/hid-state.json
accel_feeder=

say() { echo "scenario $(date +%T.%N | cut -c1-12): $*"; }

# Waits up to $2 seconds for the command $1 to succeed.
wait_until() {
    local condition=$1 limit=$2 waited=0
    until eval "$condition"; do
        sleep 0.2
        waited=$((waited + 1))
        if [ "$waited" -ge $((limit * 5)) ]; then
            say "timed out after ${limit}s waiting for: $condition"
            return 1
        fi
    done
}

# Writes one line to the device program; a dead reader fails instead of blocking.
accel_send() { timeout 10 bash -c 'echo "$1" > "$2"' send "$*" "$accel_fifo"; }

# How many commands the device program took (not a Python start per poll: that is
# seconds under emulation).
accel_commands_taken() {
    local n
    n=$(sed -n 's/.*"commands": \([0-9]*\).*/\1/p' "$accel_state" 2>/dev/null)
    echo "${n:-0}"
}

feed() {
    local before
    before=$(accel_commands_taken)
    echo "$*" >> "$OUT/marks.log"
    accel_send "$*" || { say "the device program is not reading its commands"; return 1; }
    wait_until "[ \$(accel_commands_taken) -gt $before ]" 10
}

accel_dir() {
    local d
    for d in /sys/bus/iio/devices/iio:device*; do
        [ "$(cat "$d/name" 2>/dev/null)" = accel_3d ] && { echo "$d"; return 0; }
    done
    return 1
}

accel_stop() {
    if [ -n "$accel_feeder" ]; then
        accel_send quit
        wait "$accel_feeder" 2>/dev/null
        accel_feeder=
    fi
    rm -rf "$accel_work"
    modprobe -r hid_sensor_accel_3d hid_sensor_trigger hid_sensor_iio_common hid_sensor_hub uhid 2>/dev/null
}

accel_start() {
    modprobe uhid && modprobe hid_sensor_hub && modprobe hid_sensor_accel_3d || { say "cannot load the modules"; return 1; }
    mkfifo "$accel_fifo" || return 1
    python3 "$ROOT/Tests/Kernel/tools/hid_accel.py" --commands "$accel_fifo" --state "$accel_state" 2> "$OUT/hid_accel.log" &
    accel_feeder=$!
    wait_until accel_dir 60 || { say "no accel_3d IIO device appeared"; dmesg | grep -i -E "hid|iio|sensor" | tail -20; return 1; }
    say "device at $(accel_dir)"
}

# Runs plumb "$@" with stdout to $OUT/$1.json and stderr to $OUT/$1.err (then its exit
# status as "exit=N"), again when the camera gave no first frame in time, while the
# scenario has been running less than 100 s (run-in-vm.sh stops it at 150): under
# emulation on a busy host the first starts of a pipeline can take longer than plumb's
# 5 s wait for a first frame.
plumb_capture() {
    local name=$1 attempt=0 status
    shift
    while :; do
        attempt=$((attempt + 1))
        "$PLUMB" "$@" > "$OUT/$name.json" 2> "$OUT/$name.err"
        status=$?
        [ "$status" -eq 0 ] && break
        grep -q "delivered no frame in time" "$OUT/$name.err" || break
        [ "$SECONDS" -lt 100 ] || break
        say "$name: attempt $attempt had no first frame in time; again"
    done
    echo "exit=$status" >> "$OUT/$name.err"
}
