"""WHEP viewers for the tests: N aiortc peers (a non-browser WebRTC client) that each
POST a non-trickle offer to URL, receive and decode the video for SECONDS, DELETE their
session, and print one JSON line per viewer:
{"viewer": i, "status": 201, "frames": n, "fps": f, "width": w, "height": h,
 "first_frame_ms": t, "deleted": 204}
fps is counted over the last SECONDS - 2 s (the first two go to connecting).
Usage: whep_viewers.py URL N SECONDS [--keep] [--orientation ID [--ready FILE]] [--until FILE] [--dump DIR]
--keep: no DELETE, stop reading and exit.
--until FILE: stop reading early once FILE exists.
--dump DIR: each decoder's access units, depayloaded as it got them, are written to
DIR/decoder-K.h264 as an Annex B byte stream, K counting the decoders made (one per viewer).
--orientation ID: the offer also has "a=extmap:ID urn:3gpp:video-orientation" (as Chromium's
does), and every RTP packet received (SRTP removed) is read here, by its bytes (RFC 3550,
RFC 8285 one-byte form): the line adds "answer_orientation" (the answer has that extmap),
"orientations" (runs of the extension's byte in arrival order: [[byte or null, packets]...]),
"marked" and "marked_without" (packets with the marker bit, and of those without the
extension) and "sizes" (each decoded frame size seen). The viewer then reads until 2 s after
the byte first changed (or SECONDS); with --ready FILE it creates FILE once 60 packets came."""
import asyncio, itertools, json, os, struct, sys, time, urllib.request

import aiortc.rtcrtpreceiver
from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.rtcdtlstransport import RTCDtlsTransport

ORIENTATION = "urn:3gpp:video-orientation"
# Each peer's transport -> what it reads of that peer's RTP packets. aiortc has no public
# hook for a packet's bytes (it keeps only the extensions it knows), so the step after SRTP
# is wrapped (aiortc 1.x: RTCDtlsTransport._handle_rtp_data).
packet_readers = {}
_handle_rtp_data = RTCDtlsTransport._handle_rtp_data


async def _reading_rtp_data(self, data, arrival_time_ms):
    reader = packet_readers.get(id(self))
    if reader is not None:
        reader(data)
    await _handle_rtp_data(self, data, arrival_time_ms)


RTCDtlsTransport._handle_rtp_data = _reading_rtp_data


def extension_byte(data, extension_id):
    """(marker bit, the one-byte extension's first byte or None) of one RTP packet."""
    marker = data[1] >> 7
    count = data[0] & 0x0F
    if not (data[0] >> 4) & 1:
        return marker, None
    pos = 12 + 4 * count
    profile, words = struct.unpack_from("!HH", data, pos)
    pos += 4
    end = pos + 4 * words
    if profile != 0xBEDE:  # not the one-byte form
        return marker, None
    while pos < end:
        if data[pos] == 0:  # padding
            pos += 1
            continue
        element, length = data[pos] >> 4, (data[pos] & 0x0F) + 1
        if element == 15:
            break
        if element == extension_id:
            return marker, data[pos + 1]
        pos += 1 + length
    return marker, None


class PacketReader:
    def __init__(self, result, extension_id, ready):
        self.result, self.extension_id, self.ready = result, extension_id, ready
        self.packets = 0
        self.changed_at = None
        result.update(orientations=[], marked=0, marked_without=0)

    def __call__(self, data):
        marker, value = extension_byte(data, self.extension_id)
        runs = self.result["orientations"]
        if runs and runs[-1][0] == value:
            runs[-1][1] += 1
        else:
            if runs and self.changed_at is None:
                self.changed_at = time.monotonic()
            runs.append([value, 1])
        self.packets += 1
        if marker:
            self.result["marked"] += 1
            if value is None:
                self.result["marked_without"] += 1
        if self.packets == 60 and self.ready:
            open(self.ready, "w").close()

    def done(self):
        return self.changed_at is not None and time.monotonic() > self.changed_at + 2


def dump_access_units(folder):
    """Wraps the receivers' decoders so that each writes what it is handed to a file of its
    own: the bytes as they came off the wire, before any decoder could drop or repair them."""
    made = itertools.count()
    get_decoder = aiortc.rtcrtpreceiver.get_decoder

    def dumping_decoder(codec):
        decoder = get_decoder(codec)
        out = open(os.path.join(folder, f"decoder-{next(made)}.h264"), "wb")
        decode = decoder.decode

        def decode_and_dump(encoded_frame):
            out.write(encoded_frame.data)
            out.flush()
            return decode(encoded_frame)

        decoder.decode = decode_and_dump
        return decoder

    aiortc.rtcrtpreceiver.get_decoder = dumping_decoder


def http(method, url, body=None, headers=None):
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def with_orientation(sdp, extension_id):
    """The offer with the extension in its video section, after its a=mid (Chromium's place)."""
    lines = sdp.split("\r\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("a=mid:"))
    return "\r\n".join(lines[:at + 1] + ["a=extmap:%d %s" % (extension_id, ORIENTATION)] + lines[at + 1:])


async def viewer(index, url, seconds, keep, extension_id=None, ready=None, until=None):
    pc = RTCPeerConnection()
    transceiver = pc.addTransceiver("video", direction="recvonly")
    result = {"viewer": index, "frames": 0, "steady_frames": 0}
    reader = None
    if extension_id is not None:
        reader = PacketReader(result, extension_id, ready)
        result["sizes"] = []
    got_track = asyncio.Event()
    tracks = []

    @pc.on("track")
    def on_track(track):
        tracks.append(track)
        got_track.set()

    await pc.setLocalDescription(await pc.createOffer())  # gathers every candidate: non-trickle
    offer = pc.localDescription.sdp
    if reader:
        offer = with_orientation(offer, extension_id)
        packet_readers[id(transceiver.receiver.transport)] = reader
    started = time.monotonic()
    status, headers, body = await asyncio.to_thread(
        http, "POST", url, offer.encode(), {"Content-Type": "application/sdp"})
    result["status"] = status
    if status != 201:
        result["error"] = body.decode(errors="replace")
        await pc.close()
        return result
    location = headers.get("Location")
    result["location"] = location
    if reader:
        result["answer_orientation"] = ("a=extmap:%d %s" % (extension_id, ORIENTATION)) in body.decode()
    await pc.setRemoteDescription(RTCSessionDescription(sdp=body.decode(), type="answer"))
    end = started + seconds
    steady_from = started + 2
    try:
        await asyncio.wait_for(got_track.wait(), timeout=seconds)
        track = tracks[0]
        while time.monotonic() < end and not (reader and reader.done()) and not (until and os.path.exists(until)):
            frame = await asyncio.wait_for(track.recv(), timeout=max(0.1, end - time.monotonic()))
            now = time.monotonic()
            if result["frames"] == 0:
                result["first_frame_ms"] = round((now - started) * 1000)
            result["frames"] += 1
            if now >= steady_from:
                result["steady_frames"] += 1
            result["width"], result["height"] = frame.width, frame.height
            size = "%dx%d" % (frame.width, frame.height)
            if reader and size not in result["sizes"]:
                result["sizes"].append(size)
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
    option = lambda name: sys.argv[sys.argv.index(name) + 1] if name in sys.argv else None
    extension_id = int(option("--orientation")) if option("--orientation") else None
    if option("--dump"):
        dump_access_units(option("--dump"))
    results = await asyncio.gather(*(viewer(i, url, seconds, keep, extension_id, option("--ready"), option("--until"))
                                     for i in range(count)))
    for r in results:
        print(json.dumps(r), flush=True)
    if keep:
        # Vanish without a goodbye (no DTLS close, no RTCP BYE), as a closed tab or a lost phone does.
        os._exit(0)


asyncio.run(main())
