#!/usr/bin/python3
"""What the bench's Python stages share: running a program and reading what it cost
(os.wait4: CPU seconds and peak RSS of that process and the children it waited for),
starting `plumb serve` on loopback, sampling a running process from /proc, and printing
results as "= KEY JSON" lines that bench/run.sh collects into bench/results.json."""
import json, os, re, signal, statistics, subprocess, tempfile, time

TICKS = os.sysconf("SC_CLK_TCK")


def result(key, value):
    print(f"= {key} {json.dumps(value)}", flush=True)


def say(text):
    print(text, flush=True)


def median(values):
    return statistics.median(values) if values else float("nan")


def percentile(values, p):
    s = sorted(values)
    if not s:
        return float("nan")
    return s[max(0, min(len(s) - 1, -(-len(s) * p // 100) - 1))]


def measured(argv, timeout=120, **kwargs):
    """Runs argv to its end; returns (cpu seconds, peak RSS MiB, wall seconds). Fails loudly."""
    start = time.monotonic()
    errors = tempfile.TemporaryFile()  # not a pipe: a chatty program must not block on it
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=errors, **kwargs)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            raise SystemExit(f"{argv[0]} took longer than {timeout} s")
        time.sleep(0.01)
    wall = time.monotonic() - start
    errors.seek(0)
    err = errors.read().decode(errors="replace")
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{err[-2000:]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, wall


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def rss_mib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def sample(pid, seconds):
    """The process's CPU (% of one core) over `seconds`, and its resident size at the end."""
    cpu0, t0 = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    cpu1, t1 = cpu_seconds(pid), time.monotonic()
    return (cpu1 - cpu0) / (t1 - t0) * 100, rss_mib(pid)


class Serve:
    """`plumb serve` on loopback with free ports, the test pattern and `settings`
    ({"group.key": value}), until stopped (SIGINT, as a user would)."""

    def __init__(self, plumb, settings):
        self.dir = tempfile.mkdtemp(prefix="plumb-bench-")
        config = {"camera.device": "test", "rotation.accelerometer": "fixed:0",
                  "preview.address": "127.0.0.1", "preview.port": "0",
                  "recording.folder": f"{self.dir}/recordings", "http.listen": "127.0.0.1:0"}
        config.update(settings)
        groups = {}
        for key, value in config.items():
            group, name = key.split(".", 1)
            groups.setdefault(group, []).append(f"{name} = {value}")
        with open(f"{self.dir}/plumb.ini", "w") as f:
            for group, lines in groups.items():
                f.write(f"[{group}]\n" + "\n".join(lines) + "\n")
        self.log = open(f"{self.dir}/serve.log", "w+")
        self.proc = subprocess.Popen([plumb, "serve", "--config", f"{self.dir}/plumb.ini"],
                                     stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.monotonic() + 30
        text = ""
        while "plumb serve: ready" not in text:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.stop()
                raise SystemExit(f"plumb serve did not get ready:\n{text[-2000:]}")
            time.sleep(0.1)
            text = open(f"{self.dir}/serve.log").read()
        self.http = re.search(r"control API: (http://\S+)", text).group(1)
        self.rtsp = re.search(r"RTSP preview: (rtsp://\S+)", text).group(1)
        self.pid = self.proc.pid

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        subprocess.run(["rm", "-rf", self.dir])

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.stop()


def gst_consumer(url, transport="tcp"):
    """An RTSP consumer process that only depayloads (what an NVR's recorder does)."""
    return subprocess.Popen(["gst-launch-1.0", "-q", "rtspsrc", f"location={url}", f"protocols={transport}",
                             "latency=0", "!", "rtph264depay", "!", "fakesink"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop_all(procs):
    for p in procs:
        p.send_signal(signal.SIGINT)
    for p in procs:
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


# The pixel clock of the "test:clock" camera (Sources/Plumb/Session/PixelClock.swift):
# 24 bits of milliseconds since the epoch and an 8-bit check, as 32 blocks across the top.
def read_stamp(luma, width, height, stride=None):
    stride = stride or width
    block, row = width // 32, max(2, height // 8) // 2
    code = 0
    for bit in range(32):
        code = code << 1 | (1 if luma[row * stride + bit * block + block // 2] >= 128 else 0)
    value = code >> 8
    if ((value >> 16) ^ (value >> 8) ^ value) & 0xFF != code & 0xFF:
        return None
    return value


def stamp_age_ms(value):
    """Milliseconds from a stamp to now, on the shared wall clock (mod 2^24)."""
    return ((time.time_ns() // 1_000_000) - value) % (1 << 24)
