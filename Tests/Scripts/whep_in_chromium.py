"""One WHEP viewer in a real browser: Debian's chromium, headless (chromium_page.py), on a
page of the daemon's origin (/status: no page script of its own), with the few lines of
JavaScript a WHEP player needs — Chromium's own offer, POSTed to /whep, the answer set, the
track in a <video>. Prints one JSON object: the offer's and the answer's
urn:3gpp:video-orientation extmap lines, video.videoWidth and videoHeight once it plays,
how far currentTime advanced in 2 s, and after the turn the size it turned to.
Usage: whep_in_chromium.py URL SIGNAL_FILE
Once it plays it writes "playing" into SIGNAL_FILE and waits (up to 120 s) for the test to
write "turned" there, then for the video's width and height to swap."""
import json, sys, time

from chromium_page import Page, open_chromium

url, signal = sys.argv[1], sys.argv[2]
ORIENTATION = "urn:3gpp:video-orientation"

PLAY = """
window.seen = {};
(async () => {
  const pc = new RTCPeerConnection();
  pc.addTransceiver('video', {direction: 'recvonly'});
  const video = document.createElement('video');
  video.muted = true; video.autoplay = true; video.playsInline = true;
  document.body.appendChild(video);
  window.video = video;
  pc.ontrack = e => { video.srcObject = e.streams[0] || new MediaStream([e.track]); };
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise(done => {  // non-trickle: the offer with every candidate
    if (pc.iceGatheringState === 'complete') return done();
    pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && done();
  });
  window.seen.offer = pc.localDescription.sdp;
  const response = await fetch('/whep', {method: 'POST', headers: {'Content-Type': 'application/sdp'},
                                         body: pc.localDescription.sdp});
  window.seen.status = response.status;
  window.seen.answer = await response.text();
  await pc.setRemoteDescription({type: 'answer', sdp: window.seen.answer});
})().catch(e => { window.seen.error = String(e); });
"""

driver = open_chromium()
page = Page(driver)
js, wait = page.js, page.wait
seen = {}


def size():
    return js("return window.video ? [window.video.videoWidth, window.video.videoHeight] : [0, 0]")


try:
    driver.get(url + "/status")
    js(PLAY)
    wait(lambda: size()[0] > 0 or js("return window.seen.error || (window.seen.status && window.seen.status !== 201)"), 60)
    browser = js("return window.seen")
    seen["status"] = browser.get("status")
    seen["error"] = browser.get("error")
    seen["offer_orientation"] = [line for line in browser.get("offer", "").split("\r\n") if ORIENTATION in line]
    seen["answer_orientation"] = [line for line in browser.get("answer", "").split("\r\n") if ORIENTATION in line]
    seen["video_width"], seen["video_height"] = size()
    t0 = js("return window.video ? window.video.currentTime : 0")
    time.sleep(2)
    seen["current_time_advance"] = round(js("return window.video ? window.video.currentTime : 0") - t0, 2)
    with open(signal, "w") as f:
        f.write("playing")
    wait(lambda: open(signal).read() == "turned", 120)
    before = (seen["video_width"], seen["video_height"])
    turned = wait(lambda: size() == [before[1], before[0]], 30)
    seen["turned_width"], seen["turned_height"] = size()
    seen["turned"] = bool(turned)
finally:
    driver.quit()
print(json.dumps(seen), flush=True)
