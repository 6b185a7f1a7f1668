#!/bin/bash
# A USB webcam on uvcvideo (Tests/Kernel/tools/uvc.sh; why over USB/IP and not dummy_hcd:
# see there, recorded in dummy_hcd.txt): plumb devices (text and JSON) next to v4l2-ctl's
# listing and controls of the same node; a control set through uvcvideo reaching the
# camera's program (gadget.log); what streaming gives; Plumb asked for 1280x720 at 30 fps
# (the mode it commits is in gadget.log); unplugged and plugged back, the by-id link.
set -u
: "${OUT:?}" "${PLUMB:?}" "${ROOT:?}"
. "$ROOT/Tests/Kernel/tools/uvc.sh"
trap uvc_stop EXIT
set -x
uvc_try_dummy_hcd
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
# Linux 6.1 has them read-only: only auto-exposure mode and brightness are advertised.
echo "0a 00 00" > $F/terminal/camera/default/bmControls 2>> "$OUT/bmcontrols.txt"
# Streaming: what uvcvideo delivers (nothing: usbip-vudc, like dummy_hcd, fails every
# isochronous transfer, and f_uvc has no other; dmesg.txt has uvcvideo's words).
timeout 10 v4l2-ctl -d "$NODE" --set-fmt-video=width=160,height=120,pixelformat=MJPG --stream-mmap --stream-count=3 \
	--stream-to="$OUT/stream.mjpeg" > "$OUT/stream.txt" 2>&1
echo "exit $?" >> "$OUT/stream.txt"
# 1280x720 at 30 fps: YUYV gives 10 and 5 fps there, MJPEG 30; the mode Plumb commits is
# in gadget.log (the recording itself gets no frame, see above).
echo '{"mark": "record"}' >> "$OUT/gadget.log"
timeout 60 "$PLUMB" record --camera "$NODE" --size 1280x720 --fps 30 --seconds 2 --accelerometer fixed:0 --force \
	-o "$OUT/record.mp4" > "$OUT/record.json" 2> "$OUT/record.err"
echo "exit $?" >> "$OUT/record.err"
echo '{"mark": "unplug"}' >> "$OUT/gadget.log"
uvc_unplug
ls /dev/video* > "$OUT/nodes-unplugged.txt" 2>&1
uvc_plug || exit 1
uvc_node > "$OUT/node-back.txt"
ls -l /dev/v4l/by-id/ > "$OUT/by-id-back.txt" 2>&1
"$PLUMB" devices > "$OUT/devices-back.txt" 2>&1
dmesg > "$OUT/dmesg.txt"
exit 0
