"""WHEP viewers for the tests: N aiortc peers (a non-browser WebRTC client) that each
POST a non-trickle offer to URL, receive and decode the video for SECONDS, DELETE their
session, and print one JSON line per viewer:
{"viewer": i, "status": 201, "frames": n, "fps": f, "width": w, "height": h,
 "first_frame_ms": t, "deleted": 204}
fps is counted over the last SECONDS - 2 s (the first two go to connecting).
Usage: whep_viewers.py URL N SECONDS [--keep] (--keep: no DELETE, stop reading and exit)."""
import asyncio, json, sys, time, urllib.request

from aiortc import RTCPeerConnection, RTCSessionDescription


def http(method, url, body=None, headers=None):
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


async def viewer(index, url, seconds, keep):
    pc = RTCPeerConnection()
    pc.addTransceiver("video", direction="recvonly")
    result = {"viewer": index, "frames": 0, "steady_frames": 0}
    got_track = asyncio.Event()
    tracks = []

    @pc.on("track")
    def on_track(track):
        tracks.append(track)
        got_track.set()

    await pc.setLocalDescription(await pc.createOffer())  # gathers every candidate: non-trickle
    started = time.monotonic()
    status, headers, body = await asyncio.to_thread(
        http, "POST", url, pc.localDescription.sdp.encode(), {"Content-Type": "application/sdp"})
    result["status"] = status
    if status != 201:
        result["error"] = body.decode(errors="replace")
        await pc.close()
        return result
    location = headers.get("Location")
    result["location"] = location
    await pc.setRemoteDescription(RTCSessionDescription(sdp=body.decode(), type="answer"))
    end = started + seconds
    steady_from = started + 2
    try:
        await asyncio.wait_for(got_track.wait(), timeout=seconds)
        track = tracks[0]
        while time.monotonic() < end:
            frame = await asyncio.wait_for(track.recv(), timeout=max(0.1, end - time.monotonic()))
            now = time.monotonic()
            if result["frames"] == 0:
                result["first_frame_ms"] = round((now - started) * 1000)
            result["frames"] += 1
            if now >= steady_from:
                result["steady_frames"] += 1
            result["width"], result["height"] = frame.width, frame.height
    except asyncio.TimeoutError:
        pass
    result["fps"] = round(result["steady_frames"] / max(0.001, seconds - 2), 1)
    if keep:
        return result  # the session stays: the caller checks the server lets it go
    base = url.split("/whep")[0]
    status, _, _ = await asyncio.to_thread(http, "DELETE", base + location)
    result["deleted"] = status
    await pc.close()
    return result


async def main():
    url, count, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    keep = "--keep" in sys.argv
    results = await asyncio.gather(*(viewer(i, url, seconds, keep) for i in range(count)))
    for r in results:
        print(json.dumps(r), flush=True)
    if keep:
        # Vanish without a goodbye (no DTLS close, no RTCP BYE), as a closed tab or a lost phone does.
        import os
        os._exit(0)


asyncio.run(main())
