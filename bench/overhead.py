#!/usr/bin/python3
"""Stage "overhead" of make bench: what Plumb costs against the tools it stands in for,
alternating runs (so a machine's load drift hits both sides alike), CPU seconds and peak
RSS from os.wait4.

- `plumb run` vs `gst-launch-1.0` on the identical pipeline (bench/pipelines: 300 frames of
  720p30 -> x264 -> MP4; and a tee with a recording and a preview encoding);
- `plumb record` (5 s of the live 720p30 test pattern) vs ffmpeg doing the same job: a
  live-paced (-re) lavfi testsrc2 -> libx264 with the recording's settings -> fragmented MP4,
  the same number of frames;
- the cost of rotation: `plumb record` 720p30 with the capture angle 90 as metadata (the
  track matrix), with --burn-in (pixels turned), and without rotation.
- where the extra memory goes: each program's resident size with nothing running.
Usage: overhead.py PLUMB ROUNDS"""
import os, subprocess, sys, tempfile, time
from benchlib import measured, median, result, say

plumb, rounds = sys.argv[1], int(sys.argv[2])
here = os.path.dirname(os.path.abspath(__file__))
out = tempfile.mkdtemp(prefix="plumb-bench-")


def gst_text(path, location):
    lines = [l for l in open(path) if not l.lstrip().startswith("#")]
    return " ".join(lines).replace("${location}", location).split()


def peers(name):
    path = f"{here}/pipelines/{name}.pipeline"
    plumb_cpu, plumb_rss, gst_cpu, gst_rss = [], [], [], []
    for i in range(2 * rounds):
        for side in ("plumb", "gst") if i % 2 == 0 else ("gst", "plumb"):
            target = f"{out}/{side}.mp4"
            if side == "plumb":
                cpu, rss, _ = measured([plumb, "run", path, "-D", f"location={target}"])
                plumb_cpu.append(cpu), plumb_rss.append(rss)
            else:
                cpu, rss, _ = measured(["gst-launch-1.0", "-q", "-e"] + gst_text(path, target))
                gst_cpu.append(cpu), gst_rss.append(rss)
            os.remove(target)
    say(f"{name}: plumb run {median(plumb_cpu):.2f} CPU s, {median(plumb_rss):.1f} MiB peak; "
        f"gst-launch-1.0 {median(gst_cpu):.2f} CPU s, {median(gst_rss):.1f} MiB peak (medians of {2 * rounds})")
    return median(plumb_cpu) / median(gst_cpu), median(plumb_rss) / median(gst_rss), \
        (median(plumb_rss), median(gst_rss), median(plumb_cpu), median(gst_cpu))


# CPU seconds of the same work differ by some % from run to run on a shared machine: more
# rounds here than elsewhere.
record_cpu, record_rss, record_raw = peers("overhead-record")
tee_cpu, tee_rss, tee_raw = peers("overhead-tee")
result("overhead.cpu_ratio", round(max(record_cpu, tee_cpu), 3))
result("overhead.rss_ratio", round(max(record_rss, tee_rss), 3))
result("overhead.record", {"cpu_ratio": round(record_cpu, 3), "rss_ratio": round(record_rss, 3),
                           "plumb_rss_mib": record_raw[0], "gst_rss_mib": record_raw[1],
                           "plumb_cpu_s": record_raw[2], "gst_cpu_s": record_raw[3]})
result("overhead.tee", {"cpu_ratio": round(tee_cpu, 3), "rss_ratio": round(tee_rss, 3),
                        "plumb_rss_mib": tee_raw[0], "gst_rss_mib": tee_raw[1],
                        "plumb_cpu_s": tee_raw[2], "gst_cpu_s": tee_raw[3]})

# Where the extra memory goes: the programs' own start-up, with no pipeline.
_, plumb_base, _ = measured([plumb, "--help"])
_, gst_base, _ = measured(["gst-launch-1.0", "--version"])
_, plumb_tiny, _ = measured([plumb, "run", f"{here}/pipelines/tiny.pipeline"])
_, gst_tiny, _ = measured(["gst-launch-1.0", "-q"] + gst_text(f"{here}/pipelines/tiny.pipeline", ""))
say(f"resident size with no pipeline: plumb {plumb_base:.1f} MiB, gst-launch-1.0 {gst_base:.1f} MiB; "
    f"with fakesrc ! fakesink: plumb run {plumb_tiny:.1f} MiB, gst-launch-1.0 {gst_tiny:.1f} MiB")
result("overhead.baseline_rss_mib", {"plumb_help": plumb_base, "gst_version": gst_base,
                                     "plumb_run_fakesink": plumb_tiny, "gst_launch_fakesink": gst_tiny})

# Where each side's resident memory goes, by part, at its largest while it records
# (/proc/PID/smaps sampled every 50 ms): the program's own file (with the Swift runtime and
# Foundation when they are linked in statically), the Swift and Foundation libraries (when
# dynamic), GStreamer and its plugins, the other libraries, heap and anonymous memory.
def parts_of(pid):
    parts, name = {}, None
    for line in open(f"/proc/{pid}/smaps"):
        head = line.split()
        if "-" in head[0] and len(head) >= 5 and ":" not in head[0]:
            path = head[5] if len(head) > 5 else ""
            base = os.path.basename(path)
            if path == "" or path.startswith("["):
                name = "heap_and_anonymous"
            elif base in ("plumb", "gst-launch-1.0"):
                name = "program"
            elif base.startswith(("libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime")):
                name = "swift_and_foundation_libraries"
            elif "gstreamer" in path or base.startswith(("libgst", "liborc", "libx264")):
                name = "gstreamer_and_plugins"
            else:
                name = "other_libraries"
        elif line.startswith("Rss:"):
            parts[name] = parts.get(name, 0) + int(head[1]) / 1024
    return parts


def peak_parts(argv):
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    best = {}
    while proc.poll() is None:
        try:
            parts = parts_of(proc.pid)
        except (OSError, IndexError):
            break
        if sum(parts.values()) > sum(best.values()):
            best = parts
        time.sleep(0.05)
    proc.wait()
    return {k: round(v, 1) for k, v in sorted(best.items())}


record_path = f"{here}/pipelines/overhead-record.pipeline"
plumb_parts = peak_parts([plumb, "run", record_path, "-D", f"location={out}/parts.mp4"])
gst_parts = peak_parts(["gst-launch-1.0", "-q", "-e"] + gst_text(record_path, f"{out}/parts.mp4"))
os.remove(f"{out}/parts.mp4")
say("resident MiB by part at the peak of the 720p recording: plumb run " + ", ".join(f"{k} {v}" for k, v in plumb_parts.items())
    + "; gst-launch-1.0 " + ", ".join(f"{k} {v}" for k, v in gst_parts.items()))
result("overhead.rss_parts_mib", {"plumb_run": plumb_parts, "gst_launch": gst_parts})

# plumb record vs ffmpeg doing the same job: a live 720p30 source (ffmpeg paced by -re, as
# the camera paces plumb), the same frame count (what plumb wrote, read back by ffprobe),
# x264 with plumb's recording settings (EncodingSettings: ultrafast, zerolatency, no
# B-frames, a keyframe a second, x264enc's default 2048 kbit/s CBR with its 600 ms VBV),
# into an MP4 fragmented every second (plumb's fragmented-then-finalised container). What
# still differs: the picture (videotestsrc's ball with the running time drawn on it, against
# lavfi's testsrc2, which costs x264 more) and plumb's session around the encoder.
def frames_in(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-count_packets", "-select_streams", "v:0", "-show_entries",
                          "stream=nb_read_packets", "-of", "csv=p=0", path], capture_output=True, text=True)
    return int(out.stdout.strip().rstrip(","))


rec_cpu, ff_cpu, rec_frames, ff_frames = [], [], [], []
count = None
for i in range(rounds):
    for side in ("plumb", "ffmpeg") if i % 2 == 0 else ("ffmpeg", "plumb"):
        target = f"{out}/{side}.mp4"
        if side == "plumb":
            rec_cpu.append(measured([plumb, "record", "--seconds", "5", "--camera", "test", "--size", "1280x720",
                                     "--fps", "30", "--accelerometer", "fixed:0", "--location", "off", "-o", target])[0])
            rec_frames.append(frames_in(target))
            count = count or rec_frames[-1]
        else:
            ff_cpu.append(measured(["ffmpeg", "-nostdin", "-loglevel", "error", "-re", "-f", "lavfi", "-i",
                                    "testsrc2=size=1280x720:rate=30", "-frames:v", str(count or 150),
                                    "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-bf", "0",
                                    "-g", "30", "-b:v", "2048k", "-maxrate", "2048k", "-bufsize", "1228k",
                                    "-pix_fmt", "yuv420p", "-movflags", "+frag_keyframe+empty_moov+default_base_moof",
                                    "-frag_duration", "1000000", "-y", target])[0])
            ff_frames.append(frames_in(target))
        os.remove(target)
say(f"plumb record 5 s of live 720p30: {median(rec_cpu):.2f} CPU s, {median(rec_frames):.0f} frames; ffmpeg -re testsrc2 "
    f"libx264 ultrafast zerolatency 2048k g30, fragmented MP4: {median(ff_cpu):.2f} CPU s, {median(ff_frames):.0f} frames")
result("overhead.vs_ffmpeg_cpu_ratio", round(median(rec_cpu) / median(ff_cpu), 3))
result("overhead.record_vs_ffmpeg_cpu_s", {"plumb_record": median(rec_cpu), "ffmpeg": median(ff_cpu),
                                           "plumb_frames": median(rec_frames), "ffmpeg_frames": median(ff_frames)})

# The cost of rotation: 4 s of 720p30 each way, alternating, two rounds more (small differences).
ways = {"none": ["--accelerometer", "fixed:0"], "metadata": ["--accelerometer", "fixed:90"],
        "burn_in": ["--accelerometer", "fixed:90", "--burn-in"]}
cost = {w: [] for w in ways}
for i in range(rounds + 2):
    order = list(ways) if i % 2 == 0 else list(reversed(ways))
    for way in order:
        target = f"{out}/{way}.mp4"
        cost[way].append(measured([plumb, "record", "--seconds", "4", "--camera", "test", "--size", "1280x720",
                                   "--fps", "30", "--location", "off", "-o", target] + ways[way])[0])
        os.remove(target)
say("plumb record 4 s of 720p30, CPU s: " + ", ".join(f"{w} {median(v):.2f}" for w, v in cost.items()))
result("rotation_cost.metadata_cpu_ratio", round(median(cost["metadata"]) / median(cost["none"]), 3))
result("rotation_cost.burn_in_cpu_ratio", round(median(cost["burn_in"]) / median(cost["metadata"]), 3))
result("rotation_cost.cpu_s", {w: median(v) for w, v in cost.items()})

# A one-shot photo: `plumb photo` wall time vs the plainest gst-launch-1.0 JPEG.
photo_wall, gst_wall = [], []
for i in range(rounds + 1):
    for side in ("plumb", "gst") if i % 2 == 0 else ("gst", "plumb"):
        target = f"{out}/{side}.jpg"
        if side == "plumb":
            photo_wall.append(measured([plumb, "photo", "--camera", "test", "--size", "640x480", "-o", target])[2])
        else:
            gst_wall.append(measured(["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=1", "!",
                                      "video/x-raw,width=640,height=480", "!", "jpegenc", "!",
                                      "filesink", f"location={target}"])[2])
        os.remove(target)
say(f"one-shot photo 640x480, wall: plumb photo {median(photo_wall) * 1000:.0f} ms, "
    f"gst-launch-1.0 videotestsrc num-buffers=1 ! jpegenc ! filesink {median(gst_wall) * 1000:.0f} ms")
result("oneshot_photo_ratio", round(median(photo_wall) / median(gst_wall), 3))
result("oneshot_photo_ms", {"plumb_photo": median(photo_wall) * 1000, "gst_launch": median(gst_wall) * 1000})
os.rmdir(out)
