#!/usr/bin/env python3
"""A HID sensor hub 3D accelerometer made through /dev/uhid, for the kernel tests.

The kernel's hid-sensor-hub binds the device (its report descriptor has the sensor
usage page's Accelerometer 3D collection) and hid-sensor-accel-3d turns it into
/sys/bus/iio/devices/iio:deviceN. This program is the device's firmware: it answers
the driver's GET_REPORT / SET_REPORT requests for the feature report (reporting
state, power state, report interval, sensitivity) and the input report (X, Y, Z),
and sends an input report whenever the vector changes and every second.

Commands, one a line, from the fifo given with --commands:
    X Y Z     the gravity vector in m/s^2 (the IIO convention: upright reads 0 9.8 0)
    unplug    destroys the HID device (the IIO device goes away)
    plug      creates it again
    quit      destroys it and ends
The state is written to --state (JSON: plugged, vector, raw, requests) after every
command, so a scenario can wait for a command to be taken.

Acceleration is reported in units of 10^EXPONENT g (HID unit exponent, default -3):
the driver's in_accel_scale is 9.80665 * 10^EXPONENT m/s^2 per count.
"""

import argparse
import json
import os
import select
import struct
import sys
import time

UHID_DESTROY = 1
UHID_START = 2
UHID_STOP = 3
UHID_OPEN = 4
UHID_CLOSE = 5
UHID_OUTPUT = 6
UHID_GET_REPORT = 9
UHID_GET_REPORT_REPLY = 10
UHID_CREATE2 = 11
UHID_INPUT2 = 12
UHID_SET_REPORT = 13
UHID_SET_REPORT_REPLY = 14

UHID_FEATURE_REPORT = 0
UHID_INPUT_REPORT = 2

BUS_VIRTUAL = 0x06
# struct uhid_event: u32 type + the largest member (uhid_create2_req, 4372 bytes).
EVENT_SIZE = 4 + 128 + 64 + 64 + 2 + 2 + 4 * 4 + 4096
REPORT_ID = 1
GRAVITY = 9.80665


def usage(sensor_usage):
    """Usage (16-bit) on the sensor page: 0x0A lo hi."""
    return bytes([0x0A, sensor_usage & 0xFF, sensor_usage >> 8])


def selector_field(property_usage, selectors):
    """A named array: a logical collection for the property with one selector per state."""
    out = usage(property_usage)
    out += bytes([0x15, 0x00, 0x25, len(selectors) - 1, 0x75, 8, 0x95, 1, 0xA1, 0x02])
    for s in selectors:
        out += usage(s)
    out += bytes([0xB1, 0x00, 0xC0])  # Feature (Data, Array, Abs), End Collection
    return out


def report_descriptor(exponent):
    nibble = exponent & 0x0F
    d = bytes([0x05, 0x20,      # Usage Page (Sensor)
               0x09, 0x73,      # Usage (Motion: Accelerometer 3D)
               0xA1, 0x00,      # Collection (Physical)
               0x85, REPORT_ID])
    # Feature report: reporting state, power state, report interval, sensitivity.
    d += selector_field(0x0316, range(0x0840, 0x0846))
    d += selector_field(0x0319, range(0x0850, 0x0856))
    d += usage(0x030E)          # Report Interval (ms)
    d += bytes([0x15, 0x00, 0x27, 0xFF, 0xFF, 0x00, 0x00, 0x75, 32, 0x95, 1, 0x55, 0x00, 0xB1, 0x02])
    d += usage(0x1452)          # Acceleration, change sensitivity absolute
    d += bytes([0x15, 0x00, 0x26, 0xFF, 0x7F, 0x75, 16, 0x95, 1, 0x55, nibble, 0xB1, 0x02])
    # Input report: X, Y, Z as signed 16-bit counts, one field each (the driver looks
    # each axis up as a field's first usage).
    for axis in (0x0453, 0x0454, 0x0455):
        d += usage(axis)
        d += bytes([0x16, 0x01, 0x80, 0x26, 0xFF, 0x7F, 0x75, 16, 0x95, 1, 0x55, nibble, 0x81, 0x02])
    d += bytes([0xC0])
    return d


class Accelerometer:
    def __init__(self, exponent, name):
        self.exponent = exponent
        self.name = name
        self.fd = None
        self.vector = (0.0, GRAVITY, 0.0)
        # Feature report fields: reporting state index, power state index, interval ms, sensitivity.
        self.reporting_state = 1
        self.power_state = 1
        self.interval_ms = 20
        self.sensitivity = 0
        self.requests = {"get_feature": 0, "set_feature": 0, "get_input": 0, "opened": 0}

    def raw(self):
        count = GRAVITY * 10.0 ** self.exponent
        return tuple(max(-32767, min(32767, round(v / count))) for v in self.vector)

    def input_report(self):
        return struct.pack("<Bhhh", REPORT_ID, *self.raw())

    def feature_report(self):
        return struct.pack("<BBBIH", REPORT_ID, self.reporting_state, self.power_state,
                           self.interval_ms, self.sensitivity)

    def plug(self):
        if self.fd is not None:
            return
        self.fd = os.open("/dev/uhid", os.O_RDWR | os.O_CLOEXEC)
        rd = report_descriptor(self.exponent)
        body = struct.pack("<128s64s64sHHIIII", self.name.encode(), b"plumb-test/uhid0", b"",
                           len(rd), BUS_VIRTUAL, 0x1209, 0x0001, 1, 0)
        body += rd.ljust(4096, b"\0")
        self.write(UHID_CREATE2, body)

    def unplug(self):
        if self.fd is None:
            return
        self.write(UHID_DESTROY, b"")
        os.close(self.fd)
        self.fd = None

    def write(self, kind, body):
        event = struct.pack("<I", kind) + body
        os.write(self.fd, event.ljust(EVENT_SIZE, b"\0"))

    def send_input(self):
        if self.fd is None:
            return
        data = self.input_report()
        self.write(UHID_INPUT2, struct.pack("<H", len(data)) + data.ljust(4096, b"\0"))

    def handle(self):
        """Answers one event from the kernel."""
        event = os.read(self.fd, EVENT_SIZE)
        kind = struct.unpack_from("<I", event)[0]
        if kind == UHID_GET_REPORT:
            request_id, number, rtype = struct.unpack_from("<IBB", event, 4)
            if rtype == UHID_FEATURE_REPORT and number == REPORT_ID:
                self.requests["get_feature"] += 1
                data, err = self.feature_report(), 0
            elif rtype == UHID_INPUT_REPORT and number == REPORT_ID:
                self.requests["get_input"] += 1
                data, err = self.input_report(), 0
            else:
                data, err = b"", 5  # EIO
            self.write(UHID_GET_REPORT_REPLY,
                       struct.pack("<IHH", request_id, err, len(data)) + data.ljust(4096, b"\0"))
        elif kind == UHID_SET_REPORT:
            request_id, number, rtype, size = struct.unpack_from("<IBBH", event, 4)
            data = event[12:12 + size]
            err = 0
            if rtype == UHID_FEATURE_REPORT and number == REPORT_ID and len(data) >= 9:
                self.requests["set_feature"] += 1
                _, self.reporting_state, self.power_state, self.interval_ms, self.sensitivity = \
                    struct.unpack_from("<BBBIH", data)
            else:
                err = 5
            self.write(UHID_SET_REPORT_REPLY, struct.pack("<IH", request_id, err))
        elif kind == UHID_OPEN:
            self.requests["opened"] += 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--commands", required=True, help="fifo of commands (see above)")
    parser.add_argument("--state", required=True, help="JSON file rewritten after every command")
    parser.add_argument("--exponent", type=int, default=-3, help="HID unit exponent of the axes (-8..7)")
    parser.add_argument("--name", default="Plumb test accelerometer")
    args = parser.parse_args()

    device = Accelerometer(args.exponent, args.name)
    done = 0

    def save_state(last):
        state = {"plugged": device.fd is not None, "vector": device.vector, "raw": device.raw(),
                 "commands": done, "last": last, "requests": device.requests,
                 "power_state": device.power_state, "interval_ms": device.interval_ms}
        with open(args.state + ".tmp", "w") as f:
            json.dump(state, f)
        os.replace(args.state + ".tmp", args.state)

    device.plug()
    save_state("plug")
    # O_RDWR on a fifo never sees end-of-file when writers come and go.
    commands = os.open(args.commands, os.O_RDWR | os.O_NONBLOCK)
    pending = b""
    next_input = time.monotonic()
    running = True
    while running:
        watched = [commands] + ([device.fd] if device.fd is not None else [])
        ready, _, _ = select.select(watched, [], [], max(0.0, next_input - time.monotonic()))
        if device.fd is not None and device.fd in ready:
            device.handle()
        if commands in ready:
            pending += os.read(commands, 4096)
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                words = line.decode().split()
                if not words:
                    continue
                if words == ["unplug"]:
                    device.unplug()
                elif words == ["plug"]:
                    device.plug()
                elif words == ["quit"]:
                    running = False
                elif len(words) == 3:
                    device.vector = tuple(float(w) for w in words)
                    device.send_input()
                else:
                    print(f"hid_accel: unknown command {line!r}", file=sys.stderr)
                done += 1
                save_state(" ".join(words))
        if time.monotonic() >= next_input:
            device.send_input()
            next_input = time.monotonic() + 1.0
    device.unplug()
    save_state("quit")


if __name__ == "__main__":
    main()
