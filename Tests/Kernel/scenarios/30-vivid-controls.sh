# Camera controls on vivid: plumb controls next to v4l2-ctl's listing, each type set with
# --control and read back by v4l2-ctl, brightness in the pixels, refusals, and a control
# set on record read back by v4l2-ctl while it records and listed in its facts; gain's
# volatile and inactive modes; a still's gain fact and EXIF; a flip in the pixels. The host
# makes the assertions. (Every plumb run costs seconds under emulation: the new checks ride
# on the runs there were.)
source "$ROOT/Tests/Kernel/tools/vivid.sh"
set -x
vivid_load || exit 1
v4l2-ctl -d /dev/video0 --list-ctrls-menus > "$OUT/v4l2-ctrls.txt"
"$PLUMB" controls --camera /dev/video0 --json > "$OUT/controls.json"
"$PLUMB" controls --camera /dev/video0 > "$OUT/controls.txt"
# One new value per type, chosen from v4l2-ctl's listing; expected.txt holds name=driver value.
python3 - "$OUT/v4l2-ctrls.txt" > "$OUT/choices.txt" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
ctrls = {}
for i, line in enumerate(lines):
    m = re.match(r'\s*(\S+) 0x([0-9a-f]+) \((\w+)\)\s*:(.*)', line)
    if not m: continue
    name, kind, rest = m.group(1), m.group(3), m.group(4)
    f = dict(re.findall(r'(\w+)=(-?\w+)', rest))
    menu = []
    for entry in lines[i + 1:]:
        e = re.match(r'\t+(\d+): (.*)', entry)
        if not e: break
        menu.append((int(e.group(1)), e.group(2)))
    ctrls[name] = (kind, f, menu)
out = []
for name, (kind, f, menu) in ctrls.items():
    if name not in ("boolean", "integer_32_bits", "integer_64_bits", "menu", "string", "bitmask", "integer_menu", "button"): continue
    cur = f.get("value")
    if kind == "int" or kind == "int64":
        v = f["min"] if cur != f["min"] else f["max"]
        out.append((name, v, v))
    elif kind == "bool":
        v = "0" if cur == "1" else "1"; out.append((name, v, v))
    elif kind == "menu":
        idx = [i for i, _ in menu if str(i) != cur][0]; out.append((name, str(idx), str(idx)))
    elif kind == "intmenu":
        idx, text = [(i, t) for i, t in menu if str(i) != cur][0]; out.append((name, text.split()[0], str(idx)))
    elif kind == "str":
        v = "ab"; out.append((name, v, v))
    elif kind == "bitmask":
        v = "0x0" if int(cur, 16) != 0 else f["max"]; out.append((name, v, str(int(v, 16))))
    elif kind == "button":
        out.append((name, "press", ""))
for name, given, expected in out: print(name, given, expected)
PY
args=()
while read -r name given expected; do args+=(--control "$name=$given"); done < "$OUT/choices.txt"
# The same photo is the dark one of the brightness pair (fewer camera openings under emulation).
# Under auto gain vivid's gain is volatile (it moves every second): the photo's gain fact is
# read as it is taken, between v4l2-ctl's reads before and after.
v4l2-ctl -d /dev/video0 --get-ctrl=gain > "$OUT/gain-before.txt"
"$PLUMB" photo --camera /dev/video0 --size 640x360 --settle-frames 3 --force "${args[@]}" \
	--control brightness=20 -o "$OUT/dark.jpg" > "$OUT/types.json"
echo $? > "$OUT/types.status"
v4l2-ctl -d /dev/video0 --get-ctrl=gain > "$OUT/gain-after.txt"
# Gain while auto gain is on: inactive, refused with what to change first.
"$PLUMB" photo --camera /dev/video0 --force --control gain=50 -o "$OUT/no4.jpg" 2> "$OUT/inactive.err"; echo $? > "$OUT/inactive.status"
while read -r name given expected; do
	[ "$name" = button ] && continue
	echo "$name $(v4l2-ctl -d /dev/video0 --get-ctrl="$name" | sed 's/^[^:]*: //')"
done < "$OUT/choices.txt" > "$OUT/readback.txt"
# Brightness in the pixels: the same picture dark and bright; gain=manual with a value in
# the same batch (the mode goes first), read back by v4l2-ctl and in the facts.
"$PLUMB" photo --camera /dev/video0 --size 640x360 --settle-frames 3 --force --control brightness=230 \
	--control gain=manual --control gain=50 -o "$OUT/bright.jpg" > "$OUT/bright.json"
v4l2-ctl -d /dev/video0 --get-ctrl=brightness > "$OUT/brightness-after.txt"
v4l2-ctl -d /dev/video0 --get-ctrl=gain_automatic,gain > "$OUT/gain-manual.txt"
# Refusals: nothing opened, exit 2, the accepted values named.
"$PLUMB" photo --camera /dev/video0 --force --control brightness=999 -o "$OUT/no1.jpg" 2> "$OUT/range.err"; echo $? > "$OUT/range.status"
"$PLUMB" photo --camera /dev/video0 --force --control no_such_control=1 -o "$OUT/no2.jpg" 2> "$OUT/unknown.err"; echo $? > "$OUT/unknown.status"
"$PLUMB" photo --camera /dev/video0 --force --control menu=no-such-item -o "$OUT/no3.jpg" 2> "$OUT/menu.err"; echo $? > "$OUT/menu.status"
# A control given to record, read back by v4l2-ctl while it records; horizontal_flip too:
# its frames are the bright photo's mirrored (same brightness and contrast).
v4l2-ctl -d /dev/video0 --set-ctrl=contrast=200
record_sampling contrast "$OUT/record" --camera /dev/video0 --size 640x360 --seconds 2 --accelerometer fixed:0 --force \
	--control contrast=128 --control horizontal_flip=1 -o "$OUT/record.mp4"
vivid_unload
exit 0
