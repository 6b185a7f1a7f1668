# Sourced by the vivid scenarios: loads vivid with one video capture node (its webcam
# input: discrete sizes and frame intervals, as USB webcams list them) and waits for it:
# /dev/video0, or /dev/videoN when given vid_cap_nr=N.
vivid_load() {
	local node=/dev/video0 arg
	for arg in "$@"; do [[ $arg == vid_cap_nr=* ]] && node=/dev/video${arg#vid_cap_nr=}; done
	# One left loaded by a scenario that failed first would hold other nodes.
	grep -q "^vivid " /proc/modules && vivid_unload
	modprobe vivid node_types=0x1 num_inputs=1 input_types=0 "$@" || return 1
	for _ in $(seq 100); do [ -c "$node" ] && return 0; sleep 0.1; done
	echo "no $node after modprobe vivid $*" >&2
	return 1
}

# Removes vivid, retrying while a process still closes it; its status says whether it could.
vivid_unload() {
	for _ in $(seq 20); do rmmod vivid 2>/dev/null && return 0; sleep 0.5; done
	rmmod vivid
}

# Polls http://$1/status until its camera state is $2 (at most $3 seconds); prints the JSON.
wait_camera_state() {
	local status
	for _ in $(seq $(( $3 * 2 ))); do
		status=$(curl -s --max-time 5 "http://$1/status") && grep -q "\"state\" *: *\"$2\"" <<<"$status" \
			&& { echo "$status"; return 0; }
		sleep 0.5
	done
	echo "$status"
	return 1
}

# Polls http://$1/status until the camera runs and a recording has its file (at most $2
# seconds): the camera reopens a moment before the recording resumes in a new file.
wait_recording() {
	local status
	for _ in $(seq $(( $2 * 2 ))); do
		status=$(curl -s --max-time 5 "http://$1/status") && python3 -c '
import json, sys
s = json.load(sys.stdin)
sys.exit(0 if s.get("state") == "running" and (s.get("recording") or {}).get("file") else 1)' <<<"$status" \
			&& { echo "$status"; return 0; }
		sleep 0.5
	done
	echo "$status"
	return 1
}

# record_sampling CONTROL PREFIX ARGS...: runs `plumb record ARGS` in the background (its
# facts to PREFIX.json, its stderr to PREFIX.err, its exit status to PREFIX.status) and
# appends `v4l2-ctl --get-ctrl=CONTROL` to PREFIX-during.txt every 0.2 s while it runs (at
# most 24 s): what the driver holds while Plumb records, read by another process.
record_sampling() {
	local control=$1 prefix=$2 rec
	shift 2
	"$PLUMB" record "$@" > "$prefix.json" 2> "$prefix.err" &
	rec=$!
	for _ in $(seq 120); do
		kill -0 $rec 2>/dev/null || break
		v4l2-ctl -d /dev/video0 --get-ctrl="$control" >> "$prefix-during.txt"
		sleep 0.2
	done
	wait $rec; echo $? > "$prefix.status"
}
