#!/bin/bash
# A USB webcam on uvcvideo (Tests/Kernel/tools/uvc.sh; why over USB/IP and not dummy_hcd:
# see there): plumb devices (text and JSON) next to v4l2-ctl's
# listing and controls of the same node; a control set through uvcvideo reaching the
# camera's program (gadget.log); Plumb asked for 1280x720 at 30 fps (the mode it commits is
# in gadget.log); unplugged and plugged back under another node, its by-id link following.
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
F=/sys/kernel/config/usb_gadget/plumbcam/functions/uvc.0/control
for f in $F/terminal/camera/default/bmControls $F/processing/default/bmControls; do
	echo "$f: $(tr '\n' ' ' < "$f")" >> "$OUT/bmcontrols.txt"
done
# 1280x720 at 30 fps: YUYV gives 10 and 5 fps there, MJPEG 30; the mode Plumb commits is
# in gadget.log. The recording itself gets no frame: usbip-vudc, like dummy_hcd, fails every
# isochronous transfer and f_uvc has no other (dmesg.txt: uvcvideo's "Non-zero status (-18)").
echo '{"mark": "record"}' >> "$OUT/gadget.log"
timeout 45 "$PLUMB" record --camera "$NODE" --size 1280x720 --fps 30 --seconds 2 --accelerometer fixed:0 --force \
	-o "$OUT/record.mp4" > "$OUT/record.json" 2> "$OUT/record.err"
echo "exit $?" >> "$OUT/record.err"
echo '{"mark": "unplug"}' >> "$OUT/gadget.log"
# The old node held open across the replug (as a process slow to let go would), so the
# camera comes back under another node.
exec 9< "$NODE"
uvc_unplug
ls /dev/video* > "$OUT/nodes-unplugged.txt" 2>&1
uvc_plug || exit 1
exec 9<&-
uvc_node > "$OUT/node-back.txt"
ls -l /dev/v4l/by-id/ > "$OUT/by-id-back.txt" 2>&1
"$PLUMB" devices > "$OUT/devices-back.txt" 2>&1
dmesg > "$OUT/dmesg.txt"
exit 0
