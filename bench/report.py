#!/usr/bin/python3
"""make bench's report: bench/results.json, bench/results.md and the charts (PNG, matplotlib)
from the "STAGE KEY JSON" lines bench/run.sh collected.
Usage: report.py RESULTS.kv OUTPUT-FOLDER"""
import datetime, json, os, platform, subprocess, sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

kv, folder = sys.argv[1], sys.argv[2]
values, samples, curves = {}, {}, {}
for line in open(kv):
    stage, key, text = line.rstrip("\n").split(" ", 2)
    value = json.loads(text)
    if key.endswith(".samples"):
        samples[key[: -len(".samples")]] = value
    elif key.startswith("cost."):
        curves[key[len("cost."):]] = value
    else:
        values[key] = value


def machine():
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    mem = next((int(l.split()[1]) // 1024 for l in open("/proc/meminfo") if l.startswith("MemTotal")), 0)
    gst = subprocess.run(["gst-launch-1.0", "--version"], capture_output=True, text=True).stdout.split("\n")[1]
    distro = next((l.split("=", 1)[1].strip().strip('"') for l in open("/etc/os-release") if l.startswith("PRETTY_NAME")), "?")
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_mib": mem, "os": distro, "kernel": platform.release(),
            "gstreamer": gst, "load_before": open("/proc/loadavg").read().split()[:3]}


# The keys issue 16 and issue 13 name, with their targets.
TABLE = [
    ("overhead.cpu_ratio", "plumb run / gst-launch-1.0 CPU, identical pipeline (worse of record and tee)", "<= 1.05", lambda v: v <= 1.05),
    ("overhead.rss_ratio", "plumb run / gst-launch-1.0 peak RSS (worse of the two)", "<= 1.15", lambda v: v <= 1.15),
    ("overhead.vs_ffmpeg_cpu_ratio", "plumb record / ffmpeg CPU, the same job: live 720p30, same frame count, x264 settings, fragmented MP4", "", None),
    ("still_latency_ms.p50", "takePhoto -> JPEG bytes, 640x480, p50 (ms)", "", None),
    ("still_latency_ms.p95", "  p95 (ms)", "", None),
    ("still_latency_ms.p99", "  p99 (ms)", "", None),
    ("frame_interval_ms", "frame interval at 30 fps (ms)", "", None),
    ("oneshot_photo_ratio", "plumb photo / gst-launch-1.0 ... jpegenc wall time", "", None),
    ("record_start_ms.p50", "startRecording -> first keyframe in the muxer, p50 (ms)", "", None),
    ("record_start_ms.p99", "  p99 (ms)", "", None),
    ("record_stop_ms.p50", "stop -> MP4 finalized, p50 (ms)", "", None),
    ("rotation_latency_ms.p50", "accelerometer sample -> first turned preview frame, p50 (ms)", "", None),
    ("rotation_latency_ms.p99", "  p99 (ms)", "", None),
    ("rtsp.first_frame_ms.tcp", "RTSP join -> first decoded frame, TCP, median (ms)", "", None),
    ("rtsp.first_frame_ms.udp", "  UDP, median (ms)", "", None),
    ("rtsp.glass_to_glass_ms", "RTSP capture -> decoded frame (gst-launch-1.0 rtspsrc latency=0, TCP, loopback), median (ms)", "", None),
    ("rtsp.cpu_per_consumer_pct", "plumb serve CPU per extra RTSP consumer (% of a core)", "", None),
    ("idle.cpu_pct", "plumb serve idle, 640x480, nothing attached (% of a core)", "", None),
    ("idle.preview_off_saving_pct", "idle daemon CPU saved by encoding the preview on demand (%)", "", None),
    ("retention.pass_ms.p50", "retention pass, 50 000 files, max-bytes and max-age set, folder unchanged, p50 (ms)", "", None),
    ("retention.churn_pass_ms.p50", "  a file added and one deleted since the last pass, p50 (ms)", "", None),
    ("rotation_cost.burn_in_cpu_ratio", "720p30 recording: --burn-in / metadata rotation CPU", "", None),
    ("rotation_cost.metadata_cpu_ratio", "720p30 recording: metadata rotation / no rotation CPU", "<= 1.01", lambda v: v <= 1.01),
    ("webrtc.first_frame_ms", "control page load -> first decoded WebRTC frame, chromium, median (ms)", "", None),
    ("webrtc.glass_to_glass_ms", "WebRTC capture -> presented frame in chromium, median (ms)", "", None),
    ("motion.cpu_pct.640x480", "motion detection at 5 analysis frames/s, 640x480 camera: scale, convert, detector (% of a core)", "<= 1", lambda v: v <= 1),
    ("motion.cpu_pct.1280x720", "  1280x720 camera (% of a core)", "<= 1", lambda v: v <= 1),
    ("shared.idle_encoders", "plumb serve 720p30, pre-record off, nothing recording or watching: live encoders", "0", lambda v: v == 0),
    ("shared.recording_encoders", "  continuous recording alone: live encoders", "1", lambda v: v == 1),
    ("shared.all_encoders", "  recording + pre-record ring + 1 RTSP + 1 WHEP, upright: live encoders", "1", lambda v: v == 1),
    ("shared.all_vs_recording_cpu_ratio", "  recording + ring + RTSP + WHEP / recording alone CPU", "<= 1.10", lambda v: v <= 1.10),
    ("shared.turned_rtsp_encoders", "  ring + 1 RTSP consumer, device turned: live encoders", "<= 2", lambda v: v <= 2),
]

missing = [k for k, *_ in TABLE if values.get(k) is None]
when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
info = machine()
doc = {"date": when, "machine": info, **{k: values.get(k) for k, *_ in TABLE},
       "details": {k: v for k, v in values.items() if k not in dict((t[0], 0) for t in TABLE)},
       "cost": curves, "samples": samples}
with open(f"{folder}/results.json", "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")


def fmt(v):
    return "—" if v is None else (f"{v:.3f}" if abs(v) < 10 else f"{v:.1f}") if isinstance(v, float) else str(v)


md = [f"# Plumb bench results", "",
      f"{when}; {info['cpu']}, {info['cores']} cores, {info['memory_mib']} MiB; {info['os']}, "
      f"Linux {info['kernel']}; {info['gstreamer']}; load average before: {' '.join(info['load_before'])}", "",
      "| key | what | value | target |", "|---|---|---:|---|"]
for key, what, target, ok in TABLE:
    v = values.get(key)
    verdict = "" if not ok or v is None else (" ✅ met" if ok(v) else " ❌ not met")
    md.append(f"| `{key}` | {what} | {fmt(v)} | {target}{verdict} |")
md += ["", "## Cost against resolution (plumb serve, preview + continuous recording, 30 fps)", "",
       "| size | CPU % of a core | RSS MiB | fps reached |", "|---|---:|---:|---:|"]
md += [f"| {p['size']} | {p['cpu_pct']} | {p['rss_mib']} | {p.get('fps')} |" for p in curves.get("resolution", [])]
outputs = list(curves.get("outputs", []))
if values.get("idle.camera_only_cpu_pct") is not None:
    outputs.insert(0, {"outputs": "camera only (the engine, plumb-bench)", "cpu_pct": round(values["idle.camera_only_cpu_pct"], 1),
                       "rss_mib": round(values["idle.camera_only_rss_mib"], 1)})
md += ["", "## Cost against outputs (640x480 at 30 fps, each row adds to the one above)", "",
       "| outputs | CPU % of a core | RSS MiB | fps reached |", "|---|---:|---:|---:|"]
md += [f"| {p['outputs']} | {p['cpu_pct']} | {p['rss_mib']} | {p.get('fps', '')} |" for p in outputs]
if missing:
    md += ["", "Missing: " + ", ".join(missing)]
with open(f"{folder}/results.md", "w") as f:
    f.write("\n".join(md) + "\n")

# Charts.
plt.rcParams.update({"figure.dpi": 100, "font.size": 10})

# 1. Latency distributions, one box (and every sample) per measurement, on a log axis.
names = [("still_latency_ms", "still (takePhoto)"), ("record_start_ms", "recording start"),
         ("record_stop_ms", "recording stop"), ("rotation_latency_ms", "rotation -> preview"),
         ("rtsp.first_frame_ms.tcp", "RTSP first frame TCP"), ("rtsp.first_frame_ms.udp", "RTSP first frame UDP"),
         ("rtsp.glass_to_glass_ms", "RTSP glass-to-glass (GStreamer)"),
         ("rtsp.glass_to_glass_ms.ffmpeg", "RTSP glass-to-glass (ffmpeg)"), ("webrtc.first_frame_ms", "WebRTC first frame (page load)"),
         ("webrtc.glass_to_glass_ms", "WebRTC glass-to-glass")]
present = [(k, label) for k, label in names if samples.get(k)]
fig, ax = plt.subplots(figsize=(9, 0.55 * len(present) + 1.5))
data = [samples[k] for k, _ in present]
ax.boxplot(data, vert=False, whis=(1, 99), showfliers=False, widths=0.6)
for i, d in enumerate(data, start=1):
    ax.scatter(d, [i + (j % 7 - 3) * 0.04 for j in range(len(d))], s=6, alpha=0.4, color="tab:blue")
ax.set_yticks(range(1, len(present) + 1), [f"{label} (n={len(samples[k])})" for k, label in present])
ax.set_xscale("log")
ticks = [t for t in [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000] if min(map(min, data)) / 2 <= t <= 2 * max(map(max, data))]
ax.set_xticks(ticks, [str(t) for t in ticks])
ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
ax.set_xlabel("milliseconds (log scale); box: p25-p75 with median, whiskers p1-p99, dots: every sample")
ax.axvline(values.get("frame_interval_ms", 33.3), color="grey", linestyle=":", label="one frame interval (30 fps)")
ax.invert_yaxis()
ax.legend(loc="lower right")
ax.set_title("Latency distributions (test pattern, loopback)")
ax.grid(axis="x", which="both", alpha=0.3)
fig.tight_layout()
fig.savefig(f"{folder}/latency.png")

# 2. Cost against resolution.
res = curves.get("resolution", [])
if res:
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    labels = [p["size"] for p in res]
    pixels = [int(p["size"].split("x")[0]) * int(p["size"].split("x")[1]) / 1e6 for p in res]
    a.plot(pixels, [p["cpu_pct"] for p in res], marker="o")
    b.plot(pixels, [p["rss_mib"] for p in res], marker="o", color="tab:orange")
    for x, p in zip(pixels, res):  # a machine that cannot keep up shows as fewer fps
        a.annotate(f"{p['size']}\n{p.get('fps')} fps", (x, p["cpu_pct"]), textcoords="offset points", xytext=(0, 8),
                   ha="center", fontsize=8)
        b.annotate(p["size"], (x, p["rss_mib"]), textcoords="offset points", xytext=(0, 8), ha="center", fontsize=8)
    a.set_ylabel("CPU, % of one core (fps reached by each point)"); b.set_ylabel("resident size, MiB")
    for axis in (a, b):
        axis.set_xlabel("megapixels a frame")
        axis.grid(alpha=0.3); axis.set_ylim(0, axis.get_ylim()[1] * 1.2); axis.set_xlim(0, max(pixels) * 1.1)
    a.set_title("plumb serve CPU: preview + recording"); b.set_title("plumb serve memory: preview + recording")
    fig.tight_layout()
    fig.savefig(f"{folder}/cost-resolution.png")

# 3. Cost against outputs.
if outputs:
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
    labels = [p["outputs"].replace(" (camera + preview encoder)", "\n(camera + preview enc.)")
              .replace(" (the engine, plumb-bench)", "\n(engine, plumb-bench)") for p in outputs]
    a.barh(labels, [p["cpu_pct"] for p in outputs])
    b.barh(labels, [p["rss_mib"] for p in outputs], color="tab:orange")
    a.set_xlabel("CPU, % of one core"); b.set_xlabel("resident size, MiB")
    for axis in (a, b):
        axis.invert_yaxis(); axis.grid(axis="x", alpha=0.3)
    b.set_yticklabels([])
    a.set_title("plumb serve at 640x480@30: each row adds an output"); b.set_title("memory")
    fig.tight_layout()
    fig.savefig(f"{folder}/cost-outputs.png")

# 4. Against the peers.
rec, tee, ff = values.get("overhead.record"), values.get("overhead.tee"), values.get("overhead.record_vs_ffmpeg_cpu_s")
base = values.get("overhead.baseline_rss_mib")
if rec and tee and ff and base:
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
    groups = ["record 720p\n(300 frames)", "tee: record +\npreview (300 frames)"]
    a.bar([-0.2, 0.8], [rec["plumb_cpu_s"], tee["plumb_cpu_s"]], 0.4, label="plumb run")
    a.bar([0.2, 1.2], [rec["gst_cpu_s"], tee["gst_cpu_s"]], 0.4, label="gst-launch-1.0")
    a.bar([1.8], [ff["plumb_record"]], 0.4, color="tab:green", label="plumb record (live, 5 s)")
    a.bar([2.2], [ff["ffmpeg"]], 0.4, color="tab:red", label="ffmpeg testsrc2 libx264 ultrafast")
    a.set_xticks([0, 1, 2], groups + ["150 frames 720p"])
    a.set_ylabel("CPU seconds (median)"); a.set_title("CPU against the peers")
    mem = [("no pipeline\n(--help, --version)", base["plumb_help"], base["gst_version"]),
           ("fakesrc !\nfakesink", base["plumb_run_fakesink"], base["gst_launch_fakesink"]),
           (groups[0], rec["plumb_rss_mib"], rec["gst_rss_mib"]), (groups[1], tee["plumb_rss_mib"], tee["gst_rss_mib"])]
    b.bar([i - 0.2 for i in range(len(mem))], [m[1] for m in mem], 0.4, label="plumb")
    b.bar([i + 0.2 for i in range(len(mem))], [m[2] for m in mem], 0.4, label="gst-launch-1.0")
    b.set_xticks(range(len(mem)), [m[0] for m in mem]); b.set_ylabel("peak RSS, MiB (median)")
    b.set_title("memory against gst-launch-1.0: a constant offset")
    for axis in (a, b):
        axis.grid(axis="y", alpha=0.3); axis.set_ylim(0, axis.get_ylim()[1] * 1.35); axis.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(f"{folder}/overhead.png")

# 5. Encoders: who encodes what in the daemon (issue 26).
scenarios = values.get("shared.scenarios")
if scenarios:
    fig, axis = plt.subplots(figsize=(8, 3.8))
    bars = axis.barh([s["name"] for s in scenarios], [s["cpu_pct"] for s in scenarios], color="tab:purple")
    for bar, s in zip(bars, scenarios):
        axis.text(bar.get_width(), bar.get_y() + bar.get_height() / 2, f" {s['encoders']} encoder(s)", va="center", fontsize=9)
    axis.invert_yaxis(); axis.grid(axis="x", alpha=0.3)
    axis.set_xlim(0, max(s["cpu_pct"] for s in scenarios) * 1.35)
    axis.set_xlabel("plumb serve CPU, % of one core"); axis.set_title("plumb serve at 1280x720@30: live encoders and their cost")
    fig.tight_layout()
    fig.savefig(f"{folder}/encoders.png")

print(f"wrote {folder}/results.json, results.md, latency.png, cost-resolution.png, cost-outputs.png, overhead.png, encoders.png")
if missing:
    sys.exit("missing keys: " + ", ".join(missing))
