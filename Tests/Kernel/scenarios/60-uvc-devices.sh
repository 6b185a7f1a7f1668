#!/bin/bash
# A USB webcam on uvcvideo (Tests/Kernel/tools/uvc.sh): plumb devices (text and JSON)
# next to v4l2-ctl's listing and controls of the same node; a control set through
# uvcvideo reaching the camera; what the host's streaming through dummy_hcd gives.
set -u
: "${OUT:?}" "${PLUMB:?}" "${ROOT:?}"
. "$ROOT/Tests/Kernel/tools/uvc.sh"
trap uvc_stop EXIT
set -x
uvc_start || exit 1
NODE=$(uvc_node)
echo "$NODE" > "$OUT/node.txt"
v4l2-ctl -d "$NODE" --all > "$OUT/v4l2-all.txt" 2>&1
v4l2-ctl -d "$NODE" --list-formats-ext > "$OUT/v4l2-formats.txt" 2>&1
v4l2-ctl -d "$NODE" --list-ctrls-menus > "$OUT/v4l2-ctrls.txt" 2>&1
v4l2-ctl -d "$NODE" --set-ctrl brightness=17 > "$OUT/set-ctrl.txt" 2>&1
v4l2-ctl -d "$NODE" --get-ctrl brightness >> "$OUT/set-ctrl.txt" 2>&1
"$PLUMB" devices > "$OUT/devices.txt" 2>&1
"$PLUMB" devices --json > "$OUT/devices.json"
ls -l /dev/v4l/by-id/ > "$OUT/by-id.txt" 2>&1
for f in /sys/kernel/config/usb_gadget/plumbcam/functions/uvc.0/control/terminal/camera/default/bmControls \
	/sys/kernel/config/usb_gadget/plumbcam/functions/uvc.0/control/processing/default/bmControls; do
	echo "$f: $(cat "$f" | tr '\n' ' ')" >> "$OUT/bmcontrols.txt"
done
for d in /sys/bus/usb/devices/*/ep_*; do echo "$d $(cat $d/type) $(cat $d/wMaxPacketSize) $(cat $d/interval)"; done > "$OUT/endpoints.txt" 2>&1
# Streaming through dummy_hcd: what uvcvideo delivers in 20 s.
timeout 30 v4l2-ctl -d "$NODE" --set-fmt-video=width=160,height=120,pixelformat=MJPG --stream-mmap --stream-count=3 \
	--stream-to="$OUT/stream.mjpeg" > "$OUT/stream.txt" 2>&1
echo "exit $?" >> "$OUT/stream.txt"
dmesg > "$OUT/dmesg.txt"
exit 0
