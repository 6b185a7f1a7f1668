import FoundationEssentials
import Glibc
import PlumbBase
import Soup
import GLib
import PlumbRotation
import Plumb

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

    /// The key of `field`: `parse` reads the text into the field's type (nil: not an
    /// accepted value), `render` writes it back so that `parse` reads the same value.
    init<Value>(group: String, name: String, accepted: String, documentation: String, isSecret: Bool = false,
                _ field: WritableKeyPath<ServeConfig, Value> & Sendable,
                parse: @escaping @Sendable (String) -> Value?, render: @escaping @Sendable (Value) -> String) {
        self.group = group
        self.name = name
        self.accepted = accepted
        self.documentation = documentation
        self.isSecret = isSecret
        self.render = { render($0[keyPath: field]) }
        self.parse = { text, config in
            guard let value = parse(text) else { return false }
            config[keyPath: field] = value
            return true
        }
    }

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
    public static let groups = ["camera", "rotation", "preview", "recording", "publish", "http", "location", "events", "webrtc", "scan", "motion"]

    public static func key(group: String, name: String) -> ConfigKey? {
        keys.first { $0.group == group && $0.name == name }
    }

    /// Every key the file may hold, in file order.
    public static let keys: [ConfigKey] = [
        // [camera]
        ConfigKey(group: "camera", name: "device",
                  accepted: "auto, test, a device path such as /dev/video0, a camera name as `plumb devices` lists it, or image:FILE (a PNG or JPEG)",
                  documentation: "The camera: auto (the first camera found, else the test pattern), test,\na device path such as /dev/video0, or a camera name as `plumb devices` lists it.",
                  \.camera.device, parse: CameraDevice.init(iniValue:), render: \.iniValue),
        ConfigKey(group: "camera", name: "size",
                  accepted: "WIDTHxHEIGHT with even numbers from 16 to 8192, e.g. 1280x720",
                  documentation: "The capture size, WIDTHxHEIGHT.",
                  \.camera.size, parse: parseSize, render: \.description),
        ConfigKey(group: "camera", name: "fps",
                  accepted: "a whole number of frames per second from 1 to 240",
                  documentation: "Frames per second.",
                  \.camera.fps, parse: { parseInt($0, in: 1...240) }, render: { "\($0)" }),
        ConfigKey(group: "camera", name: "zoom",
                  accepted: "a zoom factor from 1 to [camera] max-zoom, e.g. 2",
                  documentation: "The digital zoom at start (POST /zoom changes it): the centre of the picture,\ncropped before the preview, stills and recordings and scaled back to the size.",
                  \.camera.zoom, parse: { parseDouble($0, in: 1...64) }, render: renderFactor),
        ConfigKey(group: "camera", name: "max-zoom",
                  accepted: "a zoom factor from 1 to 64",
                  documentation: "The largest digital zoom POST /zoom accepts.",
                  \.camera.maxZoom, parse: { parseDouble($0, in: 1...64) }, render: renderFactor),
        ConfigKey(group: "camera", name: "image-folder",
                  accepted: "an absolute folder path, or nothing for none",
                  documentation: "The folder whose PNG and JPEG pictures POST /camera?device=image:FILE may show\n(FILE inside it, symlinks resolved; a relative FILE is taken in it). Empty (the default):\nthe API switches to no image camera. device above may name any file.",
                  \.camera.imageFolder, parse: { optional($0) { $0.hasPrefix("/") } }, render: { $0 ?? "" }),
        ConfigKey(group: "camera", name: "controls",
                  accepted: "NAME=VALUE items separated by commas, e.g. exposure=manual, exposure-time=0.01 (names as `plumb controls` lists them), or nothing for none",
                  documentation: "Camera controls set when the camera opens, and again after it reconnects or POST /camera\nswitches it: plain names (exposure, exposure-time, focus, white-balance, gain, brightness ...)\nor the driver's as `plumb controls` lists them. A control the camera lacks is reported, not failed.",
                  \.camera.controls, parse: parseControls, render: { $0.map(renderControls) ?? "" }),
        // [rotation]
        ConfigKey(group: "rotation", name: "accelerometer",
                  accepted: "auto, iio, iio:PATH, sensor-proxy, replay:FILE or fixed:ANGLE (ANGLE one of 0, 90, 180, 270)",
                  documentation: "Where gravity comes from: auto (IIO, else iio-sensor-proxy, else fixed:0),\niio or iio:PATH (Linux IIO sysfs), sensor-proxy (iio-sensor-proxy over D-Bus),\nreplay:FILE (`t_ms x y z` lines; - for stdin) or fixed:0|90|180|270.",
                  \.rotation.accelerometer, parse: parseAccelerometer, render: { $0?.description ?? "auto" }),
        ConfigKey(group: "rotation", name: "mount",
                  accepted: "0, 90, 180 or 270",
                  documentation: "The camera's rotation relative to the device, clockwise degrees: 0, 90, 180 or 270.",
                  \.rotation.mount, parse: parseRightAngle, render: { "\($0.degrees)" }),
        ConfigKey(group: "rotation", name: "facing",
                  accepted: "back or front",
                  documentation: "Which way the camera looks: back (away from the viewer) or front (a front camera mirrors 90 and 270).",
                  \.rotation.facing, parse: CameraFacing.init(rawValue:), render: \.rawValue),
        ConfigKey(group: "rotation", name: "hysteresis",
                  accepted: "a number of degrees from 0 to 40",
                  documentation: "Degrees the device must turn past the 45-degree boundary before the angle changes,\nso a device held near 45 degrees does not flap.",
                  \.rotation.hysteresis, parse: { parseDouble($0, in: 0...40) }, render: formatNumber),
        ConfigKey(group: "rotation", name: "split-on-rotation",
                  accepted: "true or false",
                  documentation: "Close the recording and start a new file when the angle changes, so every file plays upright.",
                  \.rotation.splitOnRotation, parse: parseBool, render: { "\($0)" }),
        // [preview]
        ConfigKey(group: "preview", name: "address",
                  accepted: "an IP address of this machine: 0.0.0.0 (every interface), 127.0.0.1, :: or another address literal",
                  documentation: "Where the RTSP server listens: 0.0.0.0 for every interface (consumers on the network),\n127.0.0.1 for this machine only.",
                  \.preview.address, parse: { ListenAddress(host: $0, port: 0) != nil ? $0 : nil }, render: { $0 }),
        ConfigKey(group: "preview", name: "port",
                  accepted: "a port number from 1 to 65535 (0 picks a free port)",
                  documentation: "The RTSP server's port.",
                  \.preview.port, parse: { parseInt($0, in: 0...65535).map(UInt16.init) }, render: { "\($0)" }),
        ConfigKey(group: "preview", name: "path",
                  accepted: "a mount path starting with / made of letters, digits and -._~/, e.g. /preview",
                  documentation: "The mount path: the preview is rtsp://HOST:PORT/PATH.",
                  \.preview.path, parse: { isMountPath($0) ? $0 : nil }, render: { $0 }),
        ConfigKey(group: "preview", name: "bitrate",
                  accepted: "a bitrate in kbit/s from 64 to 100000",
                  documentation: "The preview's H.264 bitrate in kbit/s.",
                  \.preview.bitrate, parse: { parseInt($0, in: 64...100_000) }, render: { "\($0)" }),
        ConfigKey(group: "preview", name: "keyframe-seconds",
                  accepted: "a whole number of seconds from 1 to 3600",
                  documentation: "Seconds between the preview's scheduled keyframes. A consumer that joins gets a keyframe\nat once anyway; longer saves bandwidth, shorter helps consumers that lose packets (UDP).",
                  \.preview.keyframeSeconds, parse: { parseInt($0, in: 1...3600) }, render: { "\($0)" }),
        ConfigKey(group: "preview", name: "letterbox",
                  accepted: "true or false",
                  documentation: "Keep a fixed canvas when the device turns (black bars), so the preview's size never changes;\nfor consumers that cope badly with a new size.",
                  \.preview.letterbox, parse: parseBool, render: { "\($0)" }),
        ConfigKey(group: "preview", name: "auth",
                  accepted: "none, basic:USER:PASSWORD or digest:USER:PASSWORD (USER without a colon)",
                  documentation: "RTSP authentication: none, basic:USER:PASSWORD or digest:USER:PASSWORD.",
                  isSecret: true,
                  \.preview.auth, parse: parseCredentials, render: renderCredentials),
        ConfigKey(group: "preview", name: "stall-seconds",
                  accepted: "a whole number of seconds from 1 to 300",
                  documentation: "Disconnect a consumer that stopped reading (over TCP, data waits for it and it takes none of it)\nafter this many seconds, so it is not served, counted and queued for ever.",
                  \.preview.stallSeconds, parse: { parseInt($0, in: 1...300) }, render: { "\($0)" }),
        ConfigKey(group: "preview", name: "encoder",
                  accepted: "auto or an H.264 encoder: v4l2h264enc, vah264enc, vaapih264enc, x264enc or openh264enc",
                  documentation: "The preview's H.264 encoder: auto takes the best usable one (plumb encoders lists them).",
                  \.preview.encoder, parse: { text in
                      (try? EncoderPreference(parsing: text)).flatMap { p in
                          if case .named(let n) = p, EncoderCandidate.named(n)?.codec != .h264 { return nil }
                          return p
                      }
                  }, render: \.description),
        ConfigKey(group: "preview", name: "on-demand",
                  accepted: "true or false",
                  documentation: "Encode the preview only while something takes it (an RTSP consumer, a WebRTC viewer, publishing):\nthe first starts the encoder on a keyframe, and it stops 5 s after the last one left, so an idle\nrecorder costs only the camera and what it records. false keeps it encoding with nobody watching.",
                  \.preview.onDemand, parse: parseBool, render: { "\($0)" }),
        // [recording]
        ConfigKey(group: "recording", name: "folder",
                  accepted: "a folder path",
                  documentation: "Where recordings and stills are written (and the only place /recordings serves from).\nA relative path is relative to the working directory.",
                  \.recording.folder, parse: { !$0.isEmpty && !$0.contains("\0") ? $0 : nil }, render: { $0 }),
        ConfigKey(group: "recording", name: "codec",
                  accepted: "h264 or h265",
                  documentation: "The recordings' codec: h264 or h265.",
                  \.recording.codec, parse: VideoCodec.init(rawValue:), render: \.rawValue),
        ConfigKey(group: "recording", name: "encoder",
                  accepted: "auto or an encoder: \(EncoderCandidate.all.map(\.name).joined(separator: ", "))",
                  documentation: "The recordings' encoder: auto takes the best usable one for the codec (plumb encoders\nlists them); a named one that cannot run is an error at start.",
                  \.recording.encoder, parse: { try? EncoderPreference(parsing: $0) }, render: \.description),
        ConfigKey(group: "recording", name: "segment-seconds",
                  accepted: "0 (one file per recording) or a number of seconds from 1 to 86400",
                  documentation: "Start a new file every N seconds; 0 for one file per recording.",
                  \.recording.segmentSeconds, parse: { parseInt($0, in: 0...86_400) }, render: { "\($0)" }),
        ConfigKey(group: "recording", name: "continuous",
                  accepted: "true or false",
                  documentation: "Record from start-up until stopped (true), or only when asked through the API (false).",
                  \.recording.continuous, parse: parseBool, render: { "\($0)" }),
        ConfigKey(group: "recording", name: "max-bytes",
                  accepted: "0 (no limit) or a size such as 4096, 500M or 2G (K, M, G, T: powers of 1024)",
                  documentation: "Delete the oldest recordings (of retention-kinds) while the folder holds more than this; 0 for no limit.",
                  \.recording.maxBytes, parse: parseByteCount, render: renderByteCount),
        ConfigKey(group: "recording", name: "min-free-bytes",
                  accepted: "a size such as 500M or 2G, or a percentage of the file system below 100 such as 5%",
                  documentation: "Delete the oldest recordings (of retention-kinds) while the file system has less than this free;\na size or a percentage of the file system. No recording starts with less free (the API answers 507).",
                  \.recording.minFreeBytes, parse: parseFreeSpace, render: \.description),
        ConfigKey(group: "recording", name: "max-age",
                  accepted: "0 (no limit) or an age such as 90s, 12h or 7d (s, m, h, d; a bare number is seconds)",
                  documentation: "Delete recordings (of retention-kinds) last written longer ago than this; 0 for no limit.",
                  \.recording.maxAge, parse: parseAge, render: renderAge),
        ConfigKey(group: "recording", name: "retention-kinds",
                  accepted: "a comma list of segment, clip, event and still, or none",
                  documentation: "What max-bytes, min-free-bytes and max-age may delete: segment (recordings), clip (kept /clip files),\nevent (event clips), still (photos); none keeps everything. The file being written is never deleted.",
                  \.recording.retentionKinds, parse: parseRecordingKinds, render: renderRecordingKinds),
        // [publish]
        ConfigKey(group: "publish", name: "url",
                  accepted: "rtsp://HOST[:PORT]/PATH or rtsps://HOST[:PORT]/PATH, or nothing to publish nothing",
                  documentation: "Push the preview to another RTSP server (RECORD), e.g. rtsp://mediamtx.local:8554/cam1;\nempty publishes nothing.",
                  \.publish.url, parse: { optional($0, isPublishURL) }, render: { $0 ?? "" }),
        // [http]
        ConfigKey(group: "http", name: "listen",
                  accepted: ListenAddressError.accepted,
                  documentation: "The control API's address, ADDR:PORT. 127.0.0.1 keeps it on this machine;\n0.0.0.0 exposes it (set a token).",
                  \.http.listen, parse: { try? ListenAddress(parsing: $0) }, render: \.description),
        ConfigKey(group: "http", name: "token",
                  accepted: "at least 16 printable ASCII characters without spaces (e.g. from `openssl rand -hex 16`), or nothing for no token",
                  documentation: "A bearer token every API request must carry (Authorization: Bearer TOKEN);\nempty for none.",
                  isSecret: true,
                  \.http.token, parse: { optional($0, isToken) }, render: { $0 ?? "" }),
        ConfigKey(group: "http", name: "allowed-origins",
                  accepted: "origins such as https://dashboard.example:8443, separated by commas, or nothing for none",
                  documentation: "Other sites whose pages may call the API from a browser (their Origin header);\nempty refuses every origin but this server's own (403).",
                  \.http.allowedOrigins, parse: parseOrigins, render: { $0.joined(separator: ",") }),
    ] + locationKeys + eventKeys + webrtcKeys + scanKeys + motionKeys
}

/// An optional text key: empty is nil (off), anything else must be `valid`.
private func optional(_ text: String, _ valid: (String) -> Bool) -> String?? {
    text.isEmpty ? .some(nil) : valid(text) ? .some(text) : nil
}

/// 15 rather than 15.0; 12.5 stays 12.5.
private func formatNumber(_ v: Double) -> String {
    v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
}

/// `http://HOST[:PORT]` or `https://...` items, comma-separated, as browsers write `Origin`
/// (scheme and host, no path, no trailing slash); empty is none.
private func parseOrigins(_ text: String) -> [String]? {
    let items = text.split(separator: ",").map { $0.trimmed }.filter { !$0.isEmpty }
    for item in items {
        guard let scheme = ["http://", "https://"].first(where: { item.hasPrefix($0) }) else { return nil }
        let rest = item.dropFirst(scheme.count)
        guard !rest.isEmpty, !rest.contains(where: { $0 == "/" || $0 == " " || $0 == "@" || $0 == "?" || $0 == "#" })
        else { return nil }
    }
    return items
}

/// 2 rather than 2.0; 1.5 stays 1.5.
private func renderFactor(_ v: Double) -> String {
    v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
}

/// `[camera] controls`: empty for none; every item must be NAME=VALUE.
private func parseControls(_ text: String) -> CameraControlRequest?? {
    if text.trimmed.isEmpty { return .some(nil) }
    guard let request = try? CameraControlRequest(parsingList: text), !request.assignments.isEmpty else { return nil }
    return .some(request)
}

private func renderControls(_ request: CameraControlRequest) -> String {
    request.assignments.map { "\($0.name)=\($0.value)" }.joined(separator: ", ")
}
