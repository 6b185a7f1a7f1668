# Sourced by the 60-uvc-*.sh scenarios: a USB webcam made of the UVC gadget function
# (usb_f_uvc, configfs) on dummy_hcd, seen by the same kernel's uvcvideo. Needs OUT and ROOT.
# uvc_start      loads the modules, makes the gadget, binds it to dummy_udc.0, starts
#                uvc_gadget.py on the gadget's output node, waits for uvcvideo's capture node
# uvc_node       prints uvcvideo's capture node (/dev/videoN); fails while there is none
# uvc_unplug     unbinds the UDC (the host sees the camera unplugged); waits for the node to go
# uvc_plug       binds it again; waits for uvcvideo's node
# uvc_stop       (on EXIT) ends the program, unbinds, removes the configfs entries, rmmod
# The gadget program's log (one JSON line per request) is $OUT/gadget.log.

UVC_GADGET=/sys/kernel/config/usb_gadget/plumbcam
UVC_UDC=dummy_udc.0
uvc_work=$(mktemp -d)
uvc_program=

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

# The video node of driver $1 whose index is 0 (uvcvideo's second node is its metadata).
uvc_driver_node() {
	local d
	for d in /sys/class/video4linux/video*; do
		[ "$(basename "$(readlink -f "$d/device/driver")")" = "$1" ] && [ "$(cat "$d/index")" = 0 ] \
			&& { echo "/dev/$(basename "$d")"; return 0; }
	done
	return 1
}
uvc_node() { uvc_driver_node uvcvideo; }

# The gadget's own V4L2 output node (f_uvc names it after the UDC's gadget).
uvc_gadget_node() {
	local d
	for d in /sys/class/video4linux/video*; do
		[ -z "$(readlink "$d/device/driver")" ] || [ "$(basename "$(readlink -f "$d/device/driver")")" != uvcvideo ] \
			&& grep -q dummy_udc "$d/name" 2>/dev/null && { echo "/dev/$(basename "$d")"; return 0; }
	done
	return 1
}

uvc_start() {
	modprobe dummy_hcd && modprobe libcomposite && modprobe usb_f_uvc && modprobe uvcvideo || return 1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config || return 1
	wait_until "[ -e /sys/class/udc/$UVC_UDC ]" 30 || return 1
	[ -d "$UVC_GADGET" ] && uvc_stop
	python3 "$ROOT/Tests/Kernel/tools/uvc_gadget.py" setup "$UVC_GADGET" "$uvc_work/jpeg" || return 1
	cp -r "$uvc_work/jpeg" "$OUT/jpeg"
	echo "$UVC_UDC" > "$UVC_GADGET/UDC" || { dmesg | tail -30; find "$UVC_GADGET" | head -80; return 1; }
	wait_until uvc_gadget_node 30 || return 1
	say "gadget node $(uvc_gadget_node)"
	python3 "$ROOT/Tests/Kernel/tools/uvc_gadget.py" run "$(uvc_gadget_node)" "$OUT/gadget.log" "$uvc_work/jpeg" \
		>> "$OUT/gadget.out" 2>&1 &
	uvc_program=$!
	wait_until uvc_node 60 || return 1
	say "uvcvideo node $(uvc_node)"
}

uvc_unplug() {
	echo "" > "$UVC_GADGET/UDC"
	wait_until '! uvc_node > /dev/null' 30
}

uvc_plug() {
	echo "$UVC_UDC" > "$UVC_GADGET/UDC" || return 1
	wait_until uvc_node 60
}

uvc_stop() {
	[ -n "$uvc_program" ] && { kill "$uvc_program" 2>/dev/null; wait "$uvc_program" 2>/dev/null; }
	uvc_program=
	[ -e "$UVC_GADGET/UDC" ] && [ -n "$(cat "$UVC_GADGET/UDC")" ] && echo "" > "$UVC_GADGET/UDC"
	[ -d "$UVC_GADGET" ] && python3 "$ROOT/Tests/Kernel/tools/uvc_gadget.py" remove "$UVC_GADGET"
	local m
	for m in uvcvideo usb_f_uvc libcomposite dummy_hcd; do
		for _ in $(seq 20); do grep -q "^$m " /proc/modules || break; rmmod "$m" 2>/dev/null && break; sleep 0.5; done
	done
	rm -rf "$uvc_work"
}
