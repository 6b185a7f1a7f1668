#!/usr/bin/python3
"""Part of stage "costs" of make bench (issue 26): what one shared encoding saves. `plumb
serve` at 640x480@30 with the pre-record ring on and one RTSP consumer (gst-launch-1.0
rtspsrc ! rtph264depay ! fakesink), no recording: upright, the ring and the consumer take
one encoding; with the device turned (`[rotation] accelerometer = fixed:90`) the preview
must turn its pixels, so it runs its own encoder beside the ring's — the cost both had
before they shared. The running encoders are read from GET /status.
Usage: shared_encoding.py PLUMB SECONDS"""
import json, sys, time, urllib.request
from benchlib import Serve, gst_consumer, result, sample, say, stop_all

plumb, seconds = sys.argv[1], float(sys.argv[2])


def measure(angle):
    settings = {"camera.size": "640x480", "rotation.accelerometer": f"fixed:{angle}", "events.pre-seconds": "5"}
    with Serve(plumb, settings) as serve:
        consumer = gst_consumer(serve.rtsp)
        try:
            deadline = time.monotonic() + 30
            while True:
                status = json.load(urllib.request.urlopen(serve.http + "/status", timeout=10))
                running = status.get("running_encoders") or []
                if any("rtsp" in e.get("feeds", []) for e in running) or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            time.sleep(2)
            cpu, rss = sample(serve.pid, seconds)
            if consumer.poll() is not None:
                raise SystemExit("the RTSP consumer died while measuring")
            status = json.load(urllib.request.urlopen(serve.http + "/status", timeout=10))
        finally:
            stop_all([consumer])
    encoders = [f"{e['element']} {e['width']}x{e['height']}: {','.join(e['feeds'])}" for e in status["running_encoders"]]
    say(f"  ring + 1 RTSP consumer, device at {angle} degrees: {cpu:.1f} % CPU, {rss:.0f} MiB, encoders {encoders}")
    return cpu, len(encoders)


shared, shared_count = measure(0)
separate, separate_count = measure(90)
result("shared.ring_rtsp_cpu_pct", round(shared, 1))
result("shared.ring_rtsp_encoders", shared_count)
result("shared.ring_rtsp_turned_cpu_pct", round(separate, 1))
result("shared.ring_rtsp_turned_encoders", separate_count)
result("shared.saving_pct", round((separate - shared) / separate * 100, 1))
