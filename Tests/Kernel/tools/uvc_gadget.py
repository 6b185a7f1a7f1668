#!/usr/bin/python3
"""A USB webcam made of the kernel's UVC gadget function (usb_f_uvc) on dummy_hcd.

    uvc_gadget.py setup GADGET_DIR            makes the configfs gadget (formats below)
    uvc_gadget.py run NODE LOG                answers the host's UVC requests on the gadget's
                                              V4L2 output node and streams frames
    uvc_gadget.py remove GADGET_DIR           removes the configfs entries in order

The host side of the same kernel (uvcvideo) sees a camera with uncompressed YUYV and MJPEG;
as on real webcams the raw mode is slower than MJPEG at 720p. `run` writes one JSON line per
event to LOG (requests answered, probe/commit, stream on/off, frames queued): the kernel
tests read what the host asked from there. Python 3 from Debian only (fcntl, mmap, struct).
"""
import fcntl
import json
import mmap
import os
import select
import struct
import subprocess
import sys
import time

# (format, width, height, frame rates); the order is the descriptors' order: format index
# 1 is YUYV, 2 is MJPEG; frame indexes count from 1 within each format.
FORMATS = [
    ("YUYV", [(160, 120, [30, 15]), (320, 240, [30, 15]), (1280, 720, [10, 5])]),
    ("MJPEG", [(160, 120, [30, 15]), (320, 240, [30, 15]), (1280, 720, [30, 15])]),
]
FOURCC = {"YUYV": b"YUYV", "MJPEG": b"MJPG"}
MAX_PACKET = 1024
# The COM segment of every JPEG the camera sends.
MARKER = "plumb-uvc-gadget frame"

# linux/usb/g_uvc.h: events after V4L2_EVENT_PRIVATE_START.
EV_CONNECT, EV_DISCONNECT, EV_STREAMON, EV_STREAMOFF, EV_SETUP, EV_DATA = range(0x08000000, 0x08000006)
EVENT_NAMES = {EV_CONNECT: "connect", EV_DISCONNECT: "disconnect", EV_STREAMON: "streamon",
               EV_STREAMOFF: "streamoff", EV_SETUP: "setup", EV_DATA: "data"}
UVCIOC_SEND_RESPONSE = 0x40405501          # _IOW('U', 1, struct uvc_request_data)
VIDIOC_SUBSCRIBE_EVENT = 0x4020565A
VIDIOC_DQEVENT = 0x80885659
VIDIOC_S_FMT = 0xC0D05605
VIDIOC_REQBUFS = 0xC0145608
VIDIOC_QUERYBUF = 0xC0585609
VIDIOC_QBUF = 0xC058560F
VIDIOC_DQBUF = 0xC0585611
VIDIOC_STREAMON = 0x40045612
VIDIOC_STREAMOFF = 0x40045613
BUF_TYPE_OUTPUT, MEMORY_MMAP = 2, 1

# UVC 1.0 requests and selectors.
SET_CUR, GET_CUR, GET_MIN, GET_MAX, GET_RES, GET_LEN, GET_INFO, GET_DEF = 0x01, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87
REQUEST_NAMES = {SET_CUR: "SET_CUR", GET_CUR: "GET_CUR", GET_MIN: "GET_MIN", GET_MAX: "GET_MAX",
                 GET_RES: "GET_RES", GET_LEN: "GET_LEN", GET_INFO: "GET_INFO", GET_DEF: "GET_DEF"}
VS_PROBE, VS_COMMIT = 1, 2
# f_uvc's fixed entities: the camera terminal is 1, the processing unit 2.
CAMERA_TERMINAL, PROCESSING_UNIT = 1, 2


class Control:
    """One control: its size, signedness, range, step and current value."""

    def __init__(self, name, size, minimum, maximum, step, default, signed=False):
        self.name, self.size, self.signed = name, size, signed
        self.min, self.max, self.res, self.default, self.cur = minimum, maximum, step, default, default
        self.bitmap = name == "auto_exposure_mode"

    def encode(self, value):
        return value.to_bytes(self.size, "little", signed=self.signed)

    def decode(self, data):
        return int.from_bytes(data[:self.size], "little", signed=self.signed)


# (entity, selector) -> control, with ranges like a common 720p webcam's.
CONTROLS = {
    (CAMERA_TERMINAL, 0x02): Control("auto_exposure_mode", 1, 0, 0, 0x09, 0x08),  # RES: manual|aperture priority
    (CAMERA_TERMINAL, 0x04): Control("exposure_time_absolute", 4, 3, 2047, 1, 156),
    (CAMERA_TERMINAL, 0x06): Control("focus_absolute", 2, 0, 250, 5, 0),
    (CAMERA_TERMINAL, 0x08): Control("focus_auto", 1, 0, 1, 1, 1),
    (PROCESSING_UNIT, 0x02): Control("brightness", 2, -64, 64, 1, 0, signed=True),
    (PROCESSING_UNIT, 0x05): Control("power_line_frequency", 1, 0, 2, 1, 1),
    (PROCESSING_UNIT, 0x0A): Control("white_balance_temperature", 2, 2800, 6500, 10, 4600),
    (PROCESSING_UNIT, 0x0B): Control("white_balance_temperature_auto", 1, 0, 1, 1, 1),
}


def interval(fps):
    return 10_000_000 // fps


def frame_size(fmt, w, h):
    return w * h * 2


# ---------------------------------------------------------------- configfs

def write(path, value):
    with open(path, "w") as f:
        f.write(str(value) + "\n")


def make_jpeg(path, w, h):
    """The camera's own JPEG for one size (GStreamer's jpegenc), with a COM segment naming
    it, so a still can be proven to be the camera's frame and not a re-encoding. Made
    when first streamed: under emulation each takes seconds."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    raw = path + ".plain"
    subprocess.run(["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=1", "pattern=smpte", "!",
                    f"video/x-raw,width={w},height={h}", "!", "jpegenc", "!", "filesink", f"location={raw}"],
                   check=True)
    with open(raw, "rb") as f:
        jpeg = f.read()
    comment = f"{MARKER} {w}x{h}".encode()
    with open(path, "wb") as f:
        f.write(jpeg[:2] + b"\xff\xfe" + struct.pack(">H", len(comment) + 2) + comment + jpeg[2:])
    os.unlink(raw)


def setup(gadget):
    """The gadget in configfs, not yet bound to a UDC."""
    os.makedirs(f"{gadget}/strings/0x409")
    write(f"{gadget}/idVendor", "0x1d6b")
    write(f"{gadget}/idProduct", "0x0104")
    write(f"{gadget}/bcdDevice", "0x0100")
    write(f"{gadget}/strings/0x409/manufacturer", "Plumb Tests")
    write(f"{gadget}/strings/0x409/product", "Plumb UVC Gadget")
    write(f"{gadget}/strings/0x409/serialnumber", "PLUMB0001")
    os.makedirs(f"{gadget}/configs/c.1/strings/0x409")
    write(f"{gadget}/configs/c.1/strings/0x409/configuration", "UVC")
    write(f"{gadget}/configs/c.1/MaxPower", "500")
    fn = f"{gadget}/functions/uvc.0"
    os.mkdir(fn)
    os.mkdir(f"{fn}/control/header/h")
    for speed in ("fs", "ss"):
        os.symlink(f"{fn}/control/header/h", f"{fn}/control/class/{speed}/h")
    os.mkdir(f"{fn}/streaming/header/h")
    for fmt, frames in FORMATS:
        kind, short = ("uncompressed", "u") if fmt == "YUYV" else ("mjpeg", "m")
        fdir = f"{fn}/streaming/{kind}/{short}"
        os.mkdir(fdir)
        for w, h, rates in frames:
            d = f"{fdir}/{w}x{h}"
            os.mkdir(d)
            write(f"{d}/wWidth", w)
            write(f"{d}/wHeight", h)
            write(f"{d}/dwMaxVideoFrameBufferSize", frame_size(fmt, w, h))
            write(f"{d}/dwMinBitRate", frame_size(fmt, w, h) * 8 * min(rates))
            write(f"{d}/dwMaxBitRate", frame_size(fmt, w, h) * 8 * max(rates))
            write(f"{d}/dwDefaultFrameInterval", interval(rates[0]))
            write(f"{d}/dwFrameInterval", "\n".join(str(interval(r)) for r in rates))
        os.symlink(fdir, f"{fn}/streaming/header/h/{short}")
    for speed in ("fs", "hs", "ss"):
        os.symlink(f"{fn}/streaming/header/h", f"{fn}/streaming/class/{speed}/h")
    write(f"{fn}/streaming_maxpacket", MAX_PACKET)
    os.symlink(fn, f"{gadget}/configs/c.1/uvc.0")


def remove(gadget):
    """The reverse of setup (the UDC unbound first): links, then folders, innermost first."""
    fn = f"{gadget}/functions/uvc.0"

    def quiet(op, path):
        try:
            op(path)
        except FileNotFoundError:
            pass
    quiet(os.unlink, f"{gadget}/configs/c.1/uvc.0")
    for speed in ("fs", "hs", "ss"):
        quiet(os.unlink, f"{fn}/streaming/class/{speed}/h")
    for fmt, frames in FORMATS:
        kind, short = ("uncompressed", "u") if fmt == "YUYV" else ("mjpeg", "m")
        quiet(os.unlink, f"{fn}/streaming/header/h/{short}")
        for w, h, _ in frames:
            quiet(os.rmdir, f"{fn}/streaming/{kind}/{short}/{w}x{h}")
        quiet(os.rmdir, f"{fn}/streaming/{kind}/{short}")
    quiet(os.rmdir, f"{fn}/streaming/header/h")
    for speed in ("fs", "ss"):
        quiet(os.unlink, f"{fn}/control/class/{speed}/h")
    quiet(os.rmdir, f"{fn}/control/header/h")
    quiet(os.rmdir, fn)
    quiet(os.rmdir, f"{gadget}/configs/c.1/strings/0x409")
    quiet(os.rmdir, f"{gadget}/configs/c.1")
    quiet(os.rmdir, f"{gadget}/strings/0x409")
    quiet(os.rmdir, gadget)


# ---------------------------------------------------------------- the device

class Gadget:
    def __init__(self, node, log_path, jpeg_dir):
        self.fd = os.open(node, os.O_RDWR | os.O_NONBLOCK)
        self.log_file = open(log_path, "a", buffering=1)
        self.jpeg_dir = jpeg_dir    # the JPEGs it sends, made per size when first streamed
        self.pending = None          # what the next DATA event is for: ("control", key) or ("probe"|"commit",)
        self.probe = self.default_probe()
        self.commit = dict(self.probe)
        self.buffers = []            # mmaps while streaming
        self.frames = 0
        self.streaming = False

    def log(self, event, **fields):
        self.log_file.write(json.dumps({"t": round(time.monotonic(), 3), "event": event, **fields}) + "\n")

    # -- probe and commit (UVC 1.0/1.1 video probe and commit control)

    def default_probe(self):
        w, h, rates = FORMATS[0][1][0]
        return {"hint": 1, "format": 1, "frame": 1, "interval": interval(rates[0]),
                "max_frame": frame_size(FORMATS[0][0], w, h), "max_payload": MAX_PACKET}

    def resolve(self, p):
        """The nearest mode the gadget has to a probe the host set, completed."""
        f = min(max(p["format"], 1), len(FORMATS))
        fmt, frames = FORMATS[f - 1]
        i = min(max(p["frame"], 1), len(frames))
        w, h, rates = frames[i - 1]
        intervals = [interval(r) for r in rates]
        best = min(intervals, key=lambda iv: abs(iv - p["interval"])) if p["interval"] else intervals[0]
        return {"hint": p["hint"], "format": f, "frame": i, "interval": best,
                "max_frame": frame_size(fmt, w, h), "max_payload": MAX_PACKET}

    def mode(self, p):
        fmt, frames = FORMATS[p["format"] - 1]
        w, h, _ = frames[p["frame"] - 1]
        return fmt, w, h

    @staticmethod
    def pack_probe(p, length):
        data = struct.pack("<HBBIHHHHHII", p["hint"], p["format"], p["frame"], p["interval"],
                           0, 0, 0, 0, 0, p["max_frame"], p["max_payload"])
        if length > len(data):   # UVC 1.1: clock frequency, framing, versions
            data += struct.pack("<IBBBB", 48_000_000, 3, 0, 0, 0)
        return data.ljust(length, b"\0")[:length]

    @staticmethod
    def unpack_probe(data):
        hint, fmt, frame, iv = struct.unpack_from("<HBBI", data)
        return {"hint": hint, "format": fmt, "frame": frame, "interval": iv}

    # -- requests

    def respond(self, data):
        """UVCIOC_SEND_RESPONSE; None stalls the request."""
        length = -1 if data is None else len(data)
        body = struct.pack("<i", length) + (data or b"").ljust(60, b"\0")[:60]
        fcntl.ioctl(self.fd, UVCIOC_SEND_RESPONSE, body)

    def setup_request(self, req):
        rtype, request, value, index, length = struct.unpack_from("<BBHHH", req)
        interface, entity, selector = index & 0xFF, index >> 8, value >> 8
        name = REQUEST_NAMES.get(request, hex(request))
        if (rtype & 0x60) != 0x20:   # standard requests are the kernel's own
            self.log("setup-ignored", request_type=rtype, request=request)
            return self.respond(None)
        if interface == 1 and selector in (VS_PROBE, VS_COMMIT):
            which = "probe" if selector == VS_PROBE else "commit"
            if request == SET_CUR:
                self.pending = (which,)
                return self.respond(b"\0" * length)
            cur = self.probe if which == "probe" else self.commit
            answers = {GET_CUR: cur, GET_DEF: self.default_probe(), GET_MIN: self.default_probe(),
                       GET_MAX: self.resolve({"hint": 0, "format": len(FORMATS),
                                              "frame": len(FORMATS[-1][1]), "interval": 1})}
            if request == GET_LEN:
                return self.respond(struct.pack("<H", length))
            if request == GET_INFO:
                return self.respond(b"\x03")
            if request in answers:
                self.log("streaming-request", control=which, request=name)
                return self.respond(self.pack_probe(answers[request], length))
            return self.respond(None)
        if interface == 0 and entity == 0 and selector == 0x02:   # VC_REQUEST_ERROR_CODE_CONTROL
            return self.respond(b"\0")
        control = CONTROLS.get((entity, selector))
        if control is None:
            self.log("stalled", request=name, entity=entity, selector=selector)
            return self.respond(None)
        self.log("control-request", control=control.name, request=name)
        if request == SET_CUR:
            self.pending = ("control", (entity, selector))
            return self.respond(b"\0" * length)
        values = {GET_CUR: control.cur, GET_MIN: control.min, GET_MAX: control.max,
                  GET_RES: control.res, GET_DEF: control.default}
        if request == GET_INFO:
            return self.respond(b"\x03")   # GET and SET supported
        if request == GET_LEN:
            return self.respond(struct.pack("<H", control.size))
        if request in values:
            return self.respond(control.encode(values[request])[:length])
        return self.respond(None)

    def data(self, payload):
        length = struct.unpack_from("<i", payload)[0]
        body = payload[4:4 + max(length, 0)]
        pending, self.pending = self.pending, None
        if pending is None:
            self.log("data-unexpected", length=length)
        elif pending[0] == "control":
            control = CONTROLS[pending[1]]
            value = control.decode(body)
            # A bitmap control (auto-exposure mode) takes one of its GET_RES bits; others are clamped.
            control.cur = value if control.bitmap else min(max(value, control.min), control.max)
            self.log("control-set", control=control.name, value=control.cur)
        else:
            resolved = self.resolve(self.unpack_probe(body))
            fmt, w, h = self.mode(resolved)
            if pending[0] == "probe":
                self.probe = resolved
            else:
                self.commit = resolved
            self.log(pending[0], format=fmt, width=w, height=h, fps=round(10_000_000 / resolved["interval"], 3),
                     format_index=resolved["format"], frame_index=resolved["frame"], interval=resolved["interval"])

    # -- streaming on the output node

    def frame_bytes(self, fmt, w, h):
        if fmt == "MJPEG":
            path = os.path.join(self.jpeg_dir, f"{w}x{h}.jpg")
            if not os.path.exists(path):
                make_jpeg(path, w, h)
            with open(path, "rb") as f:
                return f.read()
        # YUYV: grey with a moving white bar, so frames differ.
        row = bytearray(b"\x80\x80" * w)
        bar = (self.frames * 8) % w
        row[bar * 2:bar * 2 + 16] = b"\xeb\x80" * 8
        return bytes(row) * h

    def stream_on(self):
        fmt, w, h = self.mode(self.commit)
        size = frame_size(fmt, w, h)
        pix = struct.pack("<IIIIII", w, h, struct.unpack("<I", FOURCC[fmt])[0], 1, w * 2 if fmt == "YUYV" else 0, size)
        fcntl.ioctl(self.fd, VIDIOC_S_FMT, struct.pack("<I4x", BUF_TYPE_OUTPUT) + pix.ljust(200, b"\0"))
        req = bytearray(struct.pack("<III8x", 2, BUF_TYPE_OUTPUT, MEMORY_MMAP))
        fcntl.ioctl(self.fd, VIDIOC_REQBUFS, req)
        count = struct.unpack_from("<I", req)[0]
        for i in range(count):
            buf = bytearray(struct.pack("<II80x", i, BUF_TYPE_OUTPUT))
            struct.pack_into("<I", buf, 60, MEMORY_MMAP)
            fcntl.ioctl(self.fd, VIDIOC_QUERYBUF, buf)
            offset, length = struct.unpack_from("<I", buf, 64)[0], struct.unpack_from("<I", buf, 72)[0]
            self.buffers.append(mmap.mmap(self.fd, length, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE,
                                          offset=offset))
            self.queue(i)
        fcntl.ioctl(self.fd, VIDIOC_STREAMON, struct.pack("<I", BUF_TYPE_OUTPUT))
        self.streaming = True
        self.log("streaming", format=fmt, width=w, height=h, buffers=count)

    def queue(self, index):
        fmt, w, h = self.mode(self.commit)
        data = self.frame_bytes(fmt, w, h)
        mm = self.buffers[index]
        mm[:len(data)] = data[:len(mm)]
        buf = bytearray(88)
        struct.pack_into("<IIII", buf, 0, index, BUF_TYPE_OUTPUT, min(len(data), len(mm)), 0)
        struct.pack_into("<I", buf, 60, MEMORY_MMAP)
        fcntl.ioctl(self.fd, VIDIOC_QBUF, buf)
        self.frames += 1

    def dequeue(self):
        buf = bytearray(88)
        struct.pack_into("<I", buf, 4, BUF_TYPE_OUTPUT)
        struct.pack_into("<I", buf, 60, MEMORY_MMAP)
        try:
            fcntl.ioctl(self.fd, VIDIOC_DQBUF, buf)
        except BlockingIOError:
            return
        index = struct.unpack_from("<I", buf)[0]
        if self.frames % 30 == 0:
            self.log("frames", queued=self.frames)
        self.queue(index)

    def stream_off(self):
        if self.streaming:
            try:
                fcntl.ioctl(self.fd, VIDIOC_STREAMOFF, struct.pack("<I", BUF_TYPE_OUTPUT))
            except OSError as e:
                self.log("streamoff-error", error=str(e))
        for mm in self.buffers:
            mm.close()
        self.buffers = []
        if self.streaming:
            fcntl.ioctl(self.fd, VIDIOC_REQBUFS, bytearray(struct.pack("<III8x", 0, BUF_TYPE_OUTPUT, MEMORY_MMAP)))
        self.streaming = False
        self.log("stream-stopped", frames=self.frames)

    # -- the loop

    def event(self):
        ev = bytearray(136)
        fcntl.ioctl(self.fd, VIDIOC_DQEVENT, ev)
        kind = struct.unpack_from("<I", ev)[0]
        payload = bytes(ev[8:72])
        if kind == EV_SETUP:
            self.setup_request(payload)
        elif kind == EV_DATA:
            self.data(payload)
        elif kind == EV_STREAMON:
            self.log("streamon-event")
            try:
                self.stream_on()
            except OSError as e:
                self.log("streamon-error", error=str(e))
        elif kind == EV_STREAMOFF:
            self.log("streamoff-event")
            self.stream_off()
        else:
            self.log(EVENT_NAMES.get(kind, hex(kind)))
            if kind == EV_DISCONNECT:
                self.stream_off()

    def run(self):
        for kind in (EV_CONNECT, EV_DISCONNECT, EV_STREAMON, EV_STREAMOFF, EV_DATA, EV_SETUP):
            fcntl.ioctl(self.fd, VIDIOC_SUBSCRIBE_EVENT, struct.pack("<II24x", kind, 0))
        self.log("ready")
        poller = select.poll()
        poller.register(self.fd, select.POLLPRI | select.POLLOUT)
        while True:
            for _, mask in poller.poll(1000):
                if mask & select.POLLPRI:
                    self.event()
                if mask & select.POLLOUT and self.streaming:
                    self.dequeue()
                if mask & (select.POLLERR | select.POLLHUP) and not mask & select.POLLPRI:
                    time.sleep(0.05)


def main():
    command = sys.argv[1]
    if command == "setup":
        setup(sys.argv[2])
    elif command == "remove":
        remove(sys.argv[2])
    elif command == "run":
        Gadget(sys.argv[2], sys.argv[3], sys.argv[4]).run()
    else:
        sys.exit(f"usage: {sys.argv[0]} setup|remove GADGET_DIR | run NODE LOG JPEG_DIR")


if __name__ == "__main__":
    main()
