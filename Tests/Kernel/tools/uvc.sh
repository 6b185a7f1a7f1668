# Sourced by the 60-uvc-*.sh scenarios: a USB webcam made of the UVC gadget function
# (usb_f_uvc, configfs), seen by the same kernel's uvcvideo. Needs OUT and ROOT.
# dummy_hcd cannot carry it: its UDC has no isochronous endpoint (dummy_hcd.c has them
# commented out) and Linux 6.1's f_uvc streams only isochronously, so binding it to
# dummy_udc.0 fails: dmesg says "uvc: Unable to allocate streaming EP". The gadget is
# bound to usbip-vudc.0 instead (a virtual UDC exported over USB/IP) and attached over
# loopback by usbip to vhci_hcd, where uvcvideo takes it as any USB camera.
# uvc_start      loads the modules, makes the gadget, binds it to usbip-vudc.0, starts
#                uvc_gadget.py on the gadget's output node, attaches it, waits for uvcvideo's node
# uvc_node       prints uvcvideo's capture node (/dev/videoN); fails while there is none
# uvc_unplug     unbinds the UDC (the host sees the camera unplugged); waits for the node to go
# uvc_plug       binds it again; waits for uvcvideo's node
# uvc_stop       (on EXIT) ends the program, unbinds, removes the configfs entries, rmmod
# The gadget program's log (one JSON line per request) is $OUT/gadget.log.

UVC_GADGET=/sys/kernel/config/usb_gadget/plumbcam
UVC_UDC=usbip-vudc.0
uvc_work=$(mktemp -d)
uvc_program=
uvc_usbipd=

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
			&& grep -qE "dummy_udc|usbip-vudc" "$d/name" 2>/dev/null && { echo "/dev/$(basename "$d")"; return 0; }
	done
	return 1
}

# Starts the gadget program on the gadget's node (the node is made anew at each bind).
uvc_program_start() {
	wait_until uvc_gadget_node 30 || return 1
	say "gadget node $(uvc_gadget_node)"
	python3 "$ROOT/Tests/Kernel/tools/uvc_gadget.py" run "$(uvc_gadget_node)" "$OUT/gadget.log" "$OUT/jpeg" \
		>> "$OUT/gadget.out" 2>&1 &
	uvc_program=$!
	wait_until 'grep -q "\"ready\"" "$OUT/gadget.log" 2>/dev/null' 30
}

uvc_program_stop() {
	[ -n "$uvc_program" ] && { kill "$uvc_program" 2>/dev/null; wait "$uvc_program" 2>/dev/null; }
	uvc_program=
}

# The host side takes the exported gadget (retried while usbipd is still starting).
uvc_attach() {
	local i
	for i in $(seq 30); do
		usbip attach -r 127.0.0.1 -d "$UVC_UDC" >> "$OUT/usbip.txt" 2>&1 && break
		sleep 1
	done
	wait_until uvc_node 60
}

uvc_start() {
	for m in libcomposite usb_f_uvc usbip-vudc vhci-hcd uvcvideo; do modprobe "$m" || return 1; done
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config || return 1
	wait_until "[ -e /sys/class/udc/$UVC_UDC ]" 30 || return 1
	[ -d "$UVC_GADGET" ] && python3 "$ROOT/Tests/Kernel/tools/uvc_gadget.py" remove "$UVC_GADGET"
	python3 "$ROOT/Tests/Kernel/tools/uvc_gadget.py" setup "$UVC_GADGET" || return 1
	echo "$UVC_UDC" > "$UVC_GADGET/UDC" || { dmesg | tail -30; return 1; }
	uvc_program_start || return 1
	usbipd --device > "$OUT/usbipd.txt" 2>&1 &
	uvc_usbipd=$!
	uvc_attach || { dmesg | tail -30; return 1; }
	say "uvcvideo node $(uvc_node)"
}

# The camera unplugged: the UDC unbound (the gadget's node goes, and the USB/IP link).
# The program first: after a streaming attempt f_uvc's unbind waits on the node it holds.
uvc_unplug() {
	uvc_program_stop
	echo "" > "$UVC_GADGET/UDC"
	wait_until '! uvc_node > /dev/null' 30
}

uvc_plug() {
	echo "$UVC_UDC" > "$UVC_GADGET/UDC" || return 1
	uvc_program_start || return 1
	uvc_attach
}

uvc_stop() {
	usbip port > "$OUT/usbip-ports.txt" 2>&1
	for p in $(usbip port 2>/dev/null | sed -n 's/^Port \([0-9]*\):.*/\1/p'); do usbip detach -p "$p" >> "$OUT/usbip.txt" 2>&1; done
	[ -n "$uvc_usbipd" ] && { kill "$uvc_usbipd" 2>/dev/null; wait "$uvc_usbipd" 2>/dev/null; }
	uvc_usbipd=
	uvc_program_stop
	[ -e "$UVC_GADGET/UDC" ] && [ -n "$(cat "$UVC_GADGET/UDC")" ] && echo "" > "$UVC_GADGET/UDC"
	[ -d "$UVC_GADGET" ] && python3 "$ROOT/Tests/Kernel/tools/uvc_gadget.py" remove "$UVC_GADGET"
	local m
	for m in uvcvideo vhci_hcd usb_f_uvc usbip_vudc usbip_core libcomposite; do
		for _ in $(seq 20); do grep -q "^$m " /proc/modules || break; rmmod "$m" 2>/dev/null && break; sleep 0.5; done
	done
	rm -rf "$uvc_work"
}
