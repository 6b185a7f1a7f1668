import Soup

/// One `key` of one `[group]` of the config file: how it is parsed, written
/// back and documented. `ServeConfig.keys` is the complete list; the file
/// reader, the command-line overrides and `iniText` all go through it.
public struct ConfigKey: Sendable {
    public let group: String
    public let name: String
    /// What values are accepted, for error messages ("h264 or h265").
    public let accepted: String
    /// One or two sentences for the example file and `--print-config`.
    public let documentation: String
    /// Passwords and tokens: redacted when the config is printed for logs.
    public let isSecret: Bool
    let render: @Sendable (ServeConfig) -> String
    /// Sets the field; returns false when the text is not an accepted value.
    let parse: @Sendable (String, inout ServeConfig) -> Bool

    /// The default, as written in the file.
    public var defaultValue: String { render(ServeConfig()) }

    /// `group.name`, the form command-line overrides use.
    public var path: String { "\(group).\(name)" }

    func apply(_ value: String, to config: inout ServeConfig, origin: ConfigError.Origin, line: Int?) throws(ConfigError) {
        // GKeyFile drops the blanks before a value but keeps those after it;
        // nobody means a trailing blank in a number or a path.
        var trimmed = Substring(value)
        while let last = trimmed.last, last == " " || last == "\t" { trimmed.removeLast() }
        guard parse(String(trimmed), &config) else {
            throw ConfigError(origin: origin, line: line, group: group, key: name, value: value,
                              message: "expected \(accepted)")
        }
    }
}

extension ServeConfig {
    /// The groups, in file order.
    public static let groups = ["camera", "rotation", "preview", "recording", "publish", "http"]

    public static func key(group: String, name: String) -> ConfigKey? {
        keys.first { $0.group == group && $0.name == name }
    }

    /// Every key the file may hold, in file order.
    public static let keys: [ConfigKey] = [
        // [camera]
        ConfigKey(group: "camera", name: "device",
                  accepted: "auto, test, a device path such as /dev/video0, or a camera name as `plumb devices` lists it",
                  documentation: "The camera: auto (the first camera found, else the test pattern), test,\na device path such as /dev/video0, or a camera name as `plumb devices` lists it.",
                  isSecret: false,
                  render: { $0.camera.device.iniValue },
                  parse: { text, c in
                      guard let v = CameraDevice(iniValue: text) else { return false }
                      c.camera.device = v
                      return true
                  }),
        ConfigKey(group: "camera", name: "size",
                  accepted: "WIDTHxHEIGHT with even numbers from 16 to 8192, e.g. 1280x720",
                  documentation: "The capture size, WIDTHxHEIGHT.",
                  isSecret: false,
                  render: { $0.camera.size.iniValue },
                  parse: { text, c in
                      guard let v = Size(iniValue: text) else { return false }
                      c.camera.size = v
                      return true
                  }),
        ConfigKey(group: "camera", name: "fps",
                  accepted: "a whole number of frames per second from 1 to 240",
                  documentation: "Frames per second.",
                  isSecret: false,
                  render: { "\($0.camera.fps)" },
                  parse: { text, c in
                      guard let v = parseInt(text, in: 1...240) else { return false }
                      c.camera.fps = v
                      return true
                  }),
        // [rotation]
        ConfigKey(group: "rotation", name: "accelerometer",
                  accepted: "auto, iio, iio:PATH, sensor-proxy, replay:FILE or fixed:ANGLE (ANGLE one of 0, 90, 180, 270)",
                  documentation: "Where gravity comes from: auto (IIO, else iio-sensor-proxy, else fixed:0),\niio or iio:PATH (Linux IIO sysfs), sensor-proxy (iio-sensor-proxy over D-Bus),\nreplay:FILE (`t_ms x y z` lines; - for stdin) or fixed:0|90|180|270.",
                  isSecret: false,
                  render: { $0.rotation.accelerometer.iniValue },
                  parse: { text, c in
                      guard let v = Accelerometer(iniValue: text) else { return false }
                      c.rotation.accelerometer = v
                      return true
                  }),
        ConfigKey(group: "rotation", name: "mount",
                  accepted: "0, 90, 180 or 270",
                  documentation: "The camera's rotation relative to the device, clockwise degrees: 0, 90, 180 or 270.",
                  isSecret: false,
                  render: { "\($0.rotation.mount)" },
                  parse: { text, c in
                      guard let v = parseInt(text, in: 0...270), angles.contains(v) else { return false }
                      c.rotation.mount = v
                      return true
                  }),
        ConfigKey(group: "rotation", name: "facing",
                  accepted: "back or front",
                  documentation: "Which way the camera looks: back (away from the viewer) or front (a front camera mirrors 90 and 270).",
                  isSecret: false,
                  render: { $0.rotation.facing.rawValue },
                  parse: { text, c in
                      guard let v = Facing(rawValue: text) else { return false }
                      c.rotation.facing = v
                      return true
                  }),
        ConfigKey(group: "rotation", name: "hysteresis",
                  accepted: "a number of degrees from 0 to 40",
                  documentation: "Degrees the device must turn past the 45-degree boundary before the angle changes,\nso a device held near 45 degrees does not flap.",
                  isSecret: false,
                  render: { formatNumber($0.rotation.hysteresis) },
                  parse: { text, c in
                      guard let v = parseDouble(text, in: 0...40) else { return false }
                      c.rotation.hysteresis = v
                      return true
                  }),
        ConfigKey(group: "rotation", name: "split-on-rotation",
                  accepted: "true or false",
                  documentation: "Close the recording and start a new file when the angle changes, so every file plays upright.",
                  isSecret: false,
                  render: { "\($0.rotation.splitOnRotation)" },
                  parse: { text, c in
                      guard let v = parseBool(text) else { return false }
                      c.rotation.splitOnRotation = v
                      return true
                  }),
        // [preview]
        ConfigKey(group: "preview", name: "address",
                  accepted: "an IP address of this machine: 0.0.0.0 (every interface), 127.0.0.1, :: or another address literal",
                  documentation: "Where the RTSP server listens: 0.0.0.0 for every interface (consumers on the network),\n127.0.0.1 for this machine only.",
                  isSecret: false,
                  render: { $0.preview.address },
                  parse: { text, c in
                      guard ListenAddress(host: text, port: 0) != nil else { return false }
                      c.preview.address = text
                      return true
                  }),
        ConfigKey(group: "preview", name: "port",
                  accepted: "a port number from 1 to 65535 (0 picks a free port)",
                  documentation: "The RTSP server's port.",
                  isSecret: false,
                  render: { "\($0.preview.port)" },
                  parse: { text, c in
                      guard let v = parseInt(text, in: 0...65535) else { return false }
                      c.preview.port = UInt16(v)
                      return true
                  }),
        ConfigKey(group: "preview", name: "path",
                  accepted: "a mount path starting with / made of letters, digits and -._~/, e.g. /preview",
                  documentation: "The mount path: the preview is rtsp://HOST:PORT/PATH.",
                  isSecret: false,
                  render: { $0.preview.path },
                  parse: { text, c in
                      guard isMountPath(text) else { return false }
                      c.preview.path = text
                      return true
                  }),
        ConfigKey(group: "preview", name: "bitrate",
                  accepted: "a bitrate in kbit/s from 64 to 100000",
                  documentation: "The preview's H.264 bitrate in kbit/s.",
                  isSecret: false,
                  render: { "\($0.preview.bitrate)" },
                  parse: { text, c in
                      guard let v = parseInt(text, in: 64...100_000) else { return false }
                      c.preview.bitrate = v
                      return true
                  }),
        ConfigKey(group: "preview", name: "keyframe-seconds",
                  accepted: "a whole number of seconds from 1 to 3600",
                  documentation: "Seconds between the preview's scheduled keyframes. A consumer that joins gets a keyframe\nat once anyway; longer saves bandwidth, shorter helps consumers that lose packets (UDP).",
                  isSecret: false,
                  render: { "\($0.preview.keyframeSeconds)" },
                  parse: { text, c in
                      guard let v = parseInt(text, in: 1...3600) else { return false }
                      c.preview.keyframeSeconds = v
                      return true
                  }),
        ConfigKey(group: "preview", name: "letterbox",
                  accepted: "true or false",
                  documentation: "Keep a fixed canvas when the device turns (black bars), so the preview's size never changes;\nfor consumers that cope badly with a new size.",
                  isSecret: false,
                  render: { "\($0.preview.letterbox)" },
                  parse: { text, c in
                      guard let v = parseBool(text) else { return false }
                      c.preview.letterbox = v
                      return true
                  }),
        ConfigKey(group: "preview", name: "auth",
                  accepted: "none, basic:USER:PASSWORD or digest:USER:PASSWORD (USER without a colon)",
                  documentation: "RTSP authentication: none, basic:USER:PASSWORD or digest:USER:PASSWORD.",
                  isSecret: true,
                  render: { $0.preview.auth.iniValue },
                  parse: { text, c in
                      guard let v = RTSPAuth(iniValue: text) else { return false }
                      c.preview.auth = v
                      return true
                  }),
        // [recording]
        ConfigKey(group: "recording", name: "folder",
                  accepted: "a folder path",
                  documentation: "Where recordings and stills are written (and the only place /recordings serves from).\nA relative path is relative to the working directory.",
                  isSecret: false,
                  render: { $0.recording.folder },
                  parse: { text, c in
                      guard !text.isEmpty, !text.contains("\0") else { return false }
                      c.recording.folder = text
                      return true
                  }),
        ConfigKey(group: "recording", name: "codec",
                  accepted: "h264 or h265",
                  documentation: "The recordings' codec: h264 or h265.",
                  isSecret: false,
                  render: { $0.recording.codec.rawValue },
                  parse: { text, c in
                      guard let v = Codec(rawValue: text) else { return false }
                      c.recording.codec = v
                      return true
                  }),
        ConfigKey(group: "recording", name: "segment-seconds",
                  accepted: "0 (one file per recording) or a number of seconds from 1 to 86400",
                  documentation: "Start a new file every N seconds; 0 for one file per recording.",
                  isSecret: false,
                  render: { "\($0.recording.segmentSeconds)" },
                  parse: { text, c in
                      guard let v = parseInt(text, in: 0...86_400) else { return false }
                      c.recording.segmentSeconds = v
                      return true
                  }),
        ConfigKey(group: "recording", name: "continuous",
                  accepted: "true or false",
                  documentation: "Record from start-up until stopped (true), or only when asked through the API (false).",
                  isSecret: false,
                  render: { "\($0.recording.continuous)" },
                  parse: { text, c in
                      guard let v = parseBool(text) else { return false }
                      c.recording.continuous = v
                      return true
                  }),
        // [publish]
        ConfigKey(group: "publish", name: "url",
                  accepted: "rtsp://HOST[:PORT]/PATH or rtsps://HOST[:PORT]/PATH, or nothing to publish nothing",
                  documentation: "Push the preview to another RTSP server (RECORD), e.g. rtsp://mediamtx.local:8554/cam1;\nempty publishes nothing.",
                  isSecret: false,
                  render: { $0.publish.url ?? "" },
                  parse: { text, c in
                      if text.isEmpty { c.publish.url = nil; return true }
                      guard isPublishURL(text) else { return false }
                      c.publish.url = text
                      return true
                  }),
        // [http]
        ConfigKey(group: "http", name: "listen",
                  accepted: ListenAddressError.accepted,
                  documentation: "The control API's address, ADDR:PORT. 127.0.0.1 keeps it on this machine;\n0.0.0.0 exposes it (set a token).",
                  isSecret: false,
                  render: { $0.http.listen.description },
                  parse: { text, c in
                      guard let v = try? ListenAddress(parsing: text) else { return false }
                      c.http.listen = v
                      return true
                  }),
        ConfigKey(group: "http", name: "token",
                  accepted: "at least 16 printable ASCII characters without spaces (e.g. from `openssl rand -hex 16`), or nothing for no token",
                  documentation: "A bearer token every API request must carry (Authorization: Bearer TOKEN);\nempty for none.",
                  isSecret: true,
                  render: { $0.http.token ?? "" },
                  parse: { text, c in
                      if text.isEmpty { c.http.token = nil; return true }
                      guard isToken(text) else { return false }
                      c.http.token = text
                      return true
                  }),
    ]
}

/// 15 rather than 15.0; 12.5 stays 12.5.
private func formatNumber(_ v: Double) -> String {
    v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
}
