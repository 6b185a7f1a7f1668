#!/usr/bin/python3
"""Stage "overhead" of make bench: what Plumb costs against the tools it stands in for,
alternating runs (so a machine's load drift hits both sides alike), CPU seconds and peak
RSS from os.wait4.

- `plumb run` vs `gst-launch-1.0` on the identical pipeline (bench/pipelines: 300 frames of
  720p30 -> x264 -> MP4; and a tee with a recording and a preview encoding);
- `plumb record` (5 s of the live 720p30 test pattern) vs ffmpeg's lavfi testsrc2 ->
  libx264 ultrafast for the same 150 frames;
- the cost of rotation: `plumb record` 720p30 with the capture angle 90 as metadata (the
  track matrix), with --burn-in (pixels turned), and without rotation.
- where the extra memory goes: each program's resident size with nothing running.
Usage: overhead.py PLUMB ROUNDS"""
import os, sys, tempfile
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
_, gst_tiny, _ = measured(["gst-launch-1.0", "-q", "fakesrc", "num-buffers=1", "!", "fakesink"])
say(f"resident size with no pipeline: plumb {plumb_base:.1f} MiB, gst-launch-1.0 {gst_base:.1f} MiB; "
    f"with fakesrc ! fakesink: plumb run {plumb_tiny:.1f} MiB, gst-launch-1.0 {gst_tiny:.1f} MiB")
result("overhead.baseline_rss_mib", {"plumb_help": plumb_base, "gst_version": gst_base,
                                     "plumb_run_fakesink": plumb_tiny, "gst_launch_fakesink": gst_tiny})

# plumb record vs ffmpeg, the same 150 frames of 720p30.
rec_cpu, ff_cpu = [], []
for i in range(rounds):
    for side in ("plumb", "ffmpeg") if i % 2 == 0 else ("ffmpeg", "plumb"):
        target = f"{out}/{side}.mp4"
        if side == "plumb":
            rec_cpu.append(measured([plumb, "record", "--seconds", "5", "--camera", "test", "--size", "1280x720",
                                     "--fps", "30", "--accelerometer", "fixed:0", "--location", "off", "-o", target])[0])
        else:
            ff_cpu.append(measured(["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
                                    "testsrc2=size=1280x720:rate=30", "-frames:v", "150", "-c:v", "libx264",
                                    "-preset", "ultrafast", "-y", target])[0])
        os.remove(target)
say(f"plumb record 5 s of 720p30: {median(rec_cpu):.2f} CPU s; ffmpeg testsrc2 libx264 ultrafast 150 frames: "
    f"{median(ff_cpu):.2f} CPU s")
result("overhead.vs_ffmpeg_cpu_ratio", round(median(rec_cpu) / median(ff_cpu), 3))
result("overhead.record_vs_ffmpeg_cpu_s", {"plumb_record": median(rec_cpu), "ffmpeg": median(ff_cpu)})

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
