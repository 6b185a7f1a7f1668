"""Measures the control page's live view in headless chromium: see webrtc-browser.sh."""
import json, statistics, sys, time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

url, loads = sys.argv[1], int(sys.argv[2])
options = webdriver.ChromeOptions()
for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--autoplay-policy=no-user-gesture-required", "--disable-features=WebRtcHideLocalIpsWithMdns"]:
    options.add_argument(flag)
options.binary_location = "/usr/bin/chromium"
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.set_script_timeout(30)


def report(name, values):
    values = sorted(values)
    if not values:
        print(f"{name}: no measurement")
        return
    p90 = values[min(len(values) - 1, int(0.9 * len(values)))]
    print(f"{name}: median {statistics.median(values):.0f}, p90 {p90:.0f}, min {values[0]:.0f}, max {values[-1]:.0f} (n={len(values)})")


def result(key, value):
    print(f"= {key} {json.dumps(value)}", flush=True)


# Each presented frame (requestVideoFrameCallback) is drawn on a canvas and the pixel clock
# of the "test:clock" camera read back from it (Sources/Plumb/Session/PixelClock.swift):
# 32 blocks across the top, 24 bits of milliseconds since the epoch and an 8-bit check;
# its age is the wall clock at presentation minus the stamp.
GLASS_TO_GLASS = """
const [seconds, done] = arguments;
const video = document.querySelector('#live');
const canvas = document.createElement('canvas');
const ctx = canvas.getContext('2d', { willReadFrequently: true });
const ages = []; let bad = 0;
const end = performance.now() + seconds * 1000;
function frame(now, meta) {
  const w = video.videoWidth, h = video.videoHeight;
  const block = Math.floor(w / 32), row = Math.floor(Math.max(2, Math.floor(h / 8)) / 2);
  canvas.width = w; canvas.height = row + 1;
  ctx.drawImage(video, 0, 0, w, h, 0, 0, w, h);
  const px = ctx.getImageData(0, row, w, 1).data;
  let code = 0;
  for (let bit = 0; bit < 32; bit++) {
    const i = 4 * (bit * block + Math.floor(block / 2));
    code = (code * 2) + ((px[i] + px[i + 1] + px[i + 2]) / 3 >= 128 ? 1 : 0);
  }
  const value = Math.floor(code / 256), check = code % 256;
  const presented = performance.timeOrigin + meta.expectedDisplayTime;
  if ((((value >> 16) ^ (value >> 8) ^ value) & 0xff) === check)
    ages.push(((Math.floor(presented) - value) % 16777216 + 16777216) % 16777216);
  else bad++;
  if (performance.now() < end) video.requestVideoFrameCallback(frame); else done({ ages, bad });
}
video.requestVideoFrameCallback(frame);
"""

first, processing = [], []
try:
    for _ in range(loads):
        driver.get("about:blank")
        time.sleep(0.5)
        start = time.monotonic()
        driver.get(url)
        deadline = start + 30
        while time.monotonic() < deadline:
            if driver.execute_script("return document.querySelector('#live').videoWidth") > 0:
                first.append((time.monotonic() - start) * 1000)
                break
            time.sleep(0.01)
        time.sleep(1)
        ms = driver.execute_async_script("""
            const done = arguments[0];
            if (!peer) return done(null);
            peer.getStats().then((stats) => {
              let value = null;
              stats.forEach((r) => {
                if (r.type === 'inbound-rtp' && r.kind === 'video' && r.framesDecoded)
                  value = 1000 * r.totalProcessingDelay / r.framesDecoded;
              });
              done(value);
            });""")
        if ms is not None:
            processing.append(ms)
    time.sleep(1)
    glass = driver.execute_async_script(GLASS_TO_GLASS, 5)
finally:
    driver.quit()
report("webrtc.first_frame_ms (page load -> first decoded frame)", first)
report("webrtc.receiver_delay_ms (first packet in -> decoded, Chrome's stats)", processing)
ages = glass["ages"]
report(f"webrtc.glass_to_glass_ms (pixel clock -> presented, {glass['bad']} frames unreadable)", ages)
if not first or not ages:
    sys.exit("no WebRTC measurement")
result("webrtc.first_frame_ms", round(statistics.median(first), 1))
result("webrtc.first_frame_ms.samples", [round(v, 1) for v in first])
result("webrtc.receiver_delay_ms", round(statistics.median(processing), 1) if processing else None)
result("webrtc.glass_to_glass_ms", round(statistics.median(ages), 1))
result("webrtc.glass_to_glass_ms.p95", sorted(ages)[min(len(ages) - 1, int(0.95 * len(ages)))])
result("webrtc.glass_to_glass_ms.samples", ages)
