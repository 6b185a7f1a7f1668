#!/usr/bin/python3
"""Stage "costs" of make bench: `plumb serve`'s CPU (% of one core, from /proc) and
resident size, on the test pattern at 30 fps:

- against resolution (320x240 ... 1920x1080), with the preview encoder and continuous
  recording;
- against outputs at 640x480: the daemon idle (nothing attached: the preview encoded on
  demand, and with `[preview] on-demand = false` for the saving), + continuous recording, + a still a second (POST /photo), + 1, 4
  and 16 RTSP consumers (gst-launch-1.0 rtspsrc ! rtph264depay ! fakesink); the camera
  alone comes from `plumb-bench idle` (the engine with nothing attached);
- RTSP glass-to-glass: the "test:clock" camera codes the wall clock in its pixels; a
  client decodes the RTSP stream (gst-launch-1.0, then ffmpeg) and each decoded frame's
  stamp is compared with the clock when it arrives.
Usage: serve_cost.py PLUMB SECONDS"""
import json, subprocess, sys, threading, time, urllib.request
from benchlib import Serve, gst_consumer, median, percentile, read_stamp, result, sample, say, stamp_age_ms, stop_all

plumb, seconds = sys.argv[1], float(sys.argv[2])
settle = 2.0


def fps(serve):
    """The frame rate the daemon measures (GET /status): whether the machine kept up."""
    return json.load(urllib.request.urlopen(serve.http + "/status", timeout=10)).get("fps")


# Against resolution.
curve = []
for size in ["320x240", "640x480", "1280x720", "1920x1080"]:
    with Serve(plumb, {"camera.size": size, "recording.continuous": "true"}) as serve:
        time.sleep(settle)
        cpu, rss = sample(serve.pid, seconds)
        rate = fps(serve)
    say(f"  {size}: preview + continuous recording: {cpu:.1f} % CPU, {rss:.0f} MiB, {rate} fps")
    curve.append({"size": size, "cpu_pct": round(cpu, 1), "rss_mib": round(rss, 1), "fps": rate})
result("cost.resolution", curve)

# Against outputs.
outputs = []


def point(label, serve, wait=settle):
    time.sleep(wait)
    cpu, rss = sample(serve.pid, seconds)
    rate = fps(serve)
    say(f"  {label}: {cpu:.1f} % CPU, {rss:.0f} MiB, {rate} fps")
    outputs.append({"outputs": label, "cpu_pct": round(cpu, 1), "rss_mib": round(rss, 1), "fps": rate})
    return cpu


# Idle: nothing attached. The preview is encoded on demand (the default), so this is the
# camera and what the daemon keeps running; `[preview] on-demand = false` is the encoder
# running anyway, as before on-demand encoding.
with Serve(plumb, {"camera.size": "640x480", "preview.on-demand": "false"}) as serve:
    always = point("daemon idle, preview encoder always on", serve)
with Serve(plumb, {"camera.size": "640x480"}) as serve:
    idle = point("daemon idle (preview on demand: no encoder)", serve)
result("idle.cpu_pct", round(idle, 1))
result("idle.cpu_pct_preview_always_on", round(always, 1))
result("idle.preview_off_saving_pct", round((always - idle) / always * 100, 1))

with Serve(plumb, {"camera.size": "640x480", "recording.continuous": "true"}) as serve:
    point("+ recording", serve)
    stop = threading.Event()

    def stills():
        while not stop.wait(1):
            urllib.request.urlopen(urllib.request.Request(serve.http + "/photo", method="POST"), timeout=10).read()

    photos = threading.Thread(target=stills)
    photos.start()
    try:
        base = point("+ a still a second", serve)
        consumers, per = [], {}
        try:
            for count in [1, 4, 16]:
                while len(consumers) < count:
                    consumers.append(gst_consumer(serve.rtsp))
                per[count] = point(f"+ {count} RTSP consumer{'s' if count > 1 else ''}", serve, wait=settle + count * 0.2)
                if any(p.poll() is not None for p in consumers):
                    raise SystemExit("an RTSP consumer died while measuring")
        finally:
            stop_all(consumers)
    finally:
        stop.set()
        photos.join()
result("cost.outputs", outputs)
result("rtsp.cpu_per_consumer_pct", round((per[16] - base) / 16, 2))

# RTSP glass-to-glass on loopback, TCP: a GStreamer client (rtspsrc latency=0, decoded by
# avdec_h264, no display sync: the frame as soon as it is decoded), and ffmpeg (what
# ffplay-like players add on top).
def glass_to_glass(argv, width, height):
    client = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    watchdog = threading.Timer(seconds + 30, client.kill)  # a stalled stream ends the read
    watchdog.start()
    ages, bad, frames, start = [], 0, 0, None
    try:
        while start is None or time.monotonic() - start < seconds:
            frame = client.stdout.read(width * height)
            if len(frame) < width * height:
                break
            frames += 1
            if frames <= 30:
                continue  # past the client's start-up backlog
            start = start or time.monotonic()
            value = read_stamp(frame, width, height)
            if value is None:
                bad += 1
            else:
                ages.append(stamp_age_ms(value))
    finally:
        watchdog.cancel()
        client.kill()
        client.wait()
    if not ages:
        raise SystemExit(f"no decodable clock stamp in the RTSP stream ({argv[0]})")
    return ages, bad


with Serve(plumb, {"camera.size": "640x480", "camera.device": "test:clock"}) as serve:
    width, height = 640, 480
    gst, bad = glass_to_glass(["gst-launch-1.0", "-q", "rtspsrc", f"location={serve.rtsp}", "protocols=tcp", "latency=0",
                               "!", "rtph264depay", "!", "avdec_h264", "!", "videoconvert", "!",
                               "video/x-raw,format=GRAY8", "!", "fdsink", "sync=false"], width, height)
    say(f"  RTSP glass-to-glass (TCP, gst-launch-1.0 rtspsrc latency=0 ! avdec_h264): median {median(gst):.0f} ms, "
        f"p95 {percentile(gst, 95):.0f} ms (n={len(gst)}, {bad} frames unreadable)")
    ff, bad = glass_to_glass(["ffmpeg", "-nostdin", "-loglevel", "error", "-rtsp_transport", "tcp", "-fflags", "nobuffer",
                              "-flags", "low_delay", "-threads", "1", "-i", serve.rtsp, "-f", "rawvideo", "-pix_fmt", "gray",
                              "-"], width, height)
    say(f"  RTSP glass-to-glass (TCP, ffmpeg -fflags nobuffer -flags low_delay): median {median(ff):.0f} ms, "
        f"p95 {percentile(ff, 95):.0f} ms (n={len(ff)}, {bad} frames unreadable)")
    result("rtsp.glass_to_glass_ms", round(median(gst), 1))
    result("rtsp.glass_to_glass_ms.p95", round(percentile(gst, 95), 1))
    result("rtsp.glass_to_glass_ms.samples", gst)
    result("rtsp.glass_to_glass_ms.ffmpeg", round(median(ff), 1))
    result("rtsp.glass_to_glass_ms.ffmpeg.samples", ff)
