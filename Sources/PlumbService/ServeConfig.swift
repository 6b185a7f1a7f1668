import FoundationEssentials
import Glibc
import Soup
import GLib
import PlumbRotation
import Plumb

/// The configuration of `plumb serve`: what `--config FILE` holds, typed.
///
/// The file is INI, read by GLib's GKeyFile: `[group]` headers, `key = value`
/// lines, `#` comments, keys in lowercase with hyphens. Every group and key is
/// listed in `ServeConfig.keys` (and documented in `config/plumb.example.ini`);
/// anything else is an error, so a typo never silently falls back to a default.
/// Command-line flags override the file through `applying(overrides:)` or by
/// setting the typed fields directly.
///
/// Defaults suit an embedded recorder: the camera if there is one (else the test
/// pattern), rotation from a sensor if there is one (else fixed at 0), an RTSP
/// preview on port 8554, no recording until asked, the HTTP API on loopback.
public struct ServeConfig: Sendable, Equatable {
    public var camera = Camera()
    public var rotation = Rotation()
    public var preview = Preview()
    public var recording = Recording()
    public var publish = Publish()
    public var http = HTTP()
    public var location = Location()
    public var events = Events()
    public var webrtc = WebRTC()
    public var scan = Scan()
    public var motion = Motion()

    public init() {}

    /// `[camera]`
    public struct Camera: Sendable, Equatable {
        /// `device`: `auto` (default: the first camera found, else the test pattern),
        /// `test`, a device path (`/dev/video0`) or a camera name as `plumb devices` prints it.
        public var device: CameraDevice = .auto
        /// `size`: WIDTHxHEIGHT, default 1280x720.
        public var size = VideoSize(width: 1280, height: 720)
        /// `fps`: frames per second, default 30.
        public var fps = 30
        /// `zoom`: the digital zoom at start, default 1.
        public var zoom = 1.0
        /// `max-zoom`: the largest zoom `POST /zoom` takes, default 8.
        public var maxZoom = 8.0
        /// `image-folder`: the only folder whose pictures `POST /camera?device=image:FILE` may
        /// show (an absolute path; nil, the default: none). `device` itself may name any file.
        public var imageFolder: String?
        /// `controls`: camera controls set when the camera opens, and again after it
        /// reconnects or is switched (`exposure=manual, exposure-time=0.01`); nil: none.
        public var controls: CameraControlRequest?
        public init() {}
    }

    /// `[rotation]`
    public struct Rotation: Sendable, Equatable {
        /// `accelerometer`: `auto` (nil, the default: IIO, else iio-sensor-proxy, else fixed:0,
        /// resolved by `ServeChoices`) or an `--accelerometer` SPEC: `iio[:PATH|:NAME]`,
        /// `sensor-proxy`, `replay:FILE`, `fixed:ANGLE`.
        public var accelerometer: AccelerometerSpec?
        /// `mount`: the camera's rotation relative to the device, 0/90/180/270; default 0.
        public var mount = RotationAngle.degrees0
        /// `facing`: `back` (default) or `front`.
        public var facing = CameraFacing.back
        /// `hysteresis`: degrees past 45 before the angle changes; default the engine's own
        /// (`RotationCoordinator.Configuration.defaultHysteresis`, as `--hysteresis`).
        public var hysteresis = RotationCoordinator.Configuration.defaultHysteresis
        /// `split-on-rotation`: start a new recording file when the angle changes; default false.
        public var splitOnRotation = false
        public init() {}
    }

    /// `[preview]`: the RTSP preview.
    public struct Preview: Sendable, Equatable {
        /// `address`: where the RTSP server listens, default 0.0.0.0 (every interface:
        /// the preview's consumers are on the network); 127.0.0.1 for this machine only.
        public var address = "0.0.0.0"
        /// `port`: RTSP port, default 8554 (0 picks a free port).
        public var port: UInt16 = 8554
        /// `path`: the mount point, default `/preview`.
        public var path = "/preview"
        /// `bitrate`: H.264 bitrate in kbit/s, default 2000.
        public var bitrate = 2000
        /// `keyframe-seconds`: seconds between the preview's scheduled keyframes, default 2
        /// (each joining consumer gets one at once anyway).
        public var keyframeSeconds = 2
        /// `letterbox`: keep a fixed canvas when rotating; default false.
        public var letterbox = false
        /// `auth`: `none` (nil, the default), `basic:USER:PASSWORD` or `digest:USER:PASSWORD`.
        public var auth: PreviewCredentials?
        /// `stall-seconds`: a consumer that stops reading (data waits for it and it takes
        /// none) is disconnected after this many seconds; default 5.
        public var stallSeconds = 5
        /// `encoder`: `auto` (the best usable H.264 encoder, see `plumb encoders`) or a name.
        public var encoder = EncoderPreference.auto
        /// `on-demand`: encode only while a consumer takes the preview (RTSP, WebRTC,
        /// publishing), stopping 5 s after the last one; default true. false keeps the
        /// encoder running with nobody watching.
        public var onDemand = true
        public init() {}
    }

    /// `[recording]`
    public struct Recording: Sendable, Equatable {
        /// `folder`: where recordings and stills go, default `recordings`
        /// (relative paths are relative to the working directory).
        public var folder = "recordings"
        /// `codec`: `h264` (default) or `h265`.
        public var codec = VideoCodec.h264
        /// `segment-seconds`: a new file every N seconds, 0 for one file per
        /// recording; default 300.
        public var segmentSeconds = 300
        /// `continuous`: record from start-up until stopped; default false.
        public var continuous = false
        /// `max-bytes`: the oldest recordings are deleted while the folder holds more; 0 (default): no limit.
        public var maxBytes: Int64 = 0
        /// `min-free-bytes`: the oldest recordings are deleted while the file system has less
        /// free, and no recording starts; a size or a percentage, default 5%.
        public var minFreeBytes = RetentionPolicy.FreeSpace.percent(5)
        /// `max-age`: recordings last written longer ago are deleted; zero (default): no limit.
        public var maxAge = Duration.zero
        /// `retention-kinds`: what retention may delete; default every kind.
        public var retentionKinds = Set(RecordingKind.allCases)
        /// `encoder`: `auto` (the best usable encoder of `codec`) or a name.
        public var encoder = EncoderPreference.auto
        public init() {}

        /// The retention these keys ask for.
        public var retention: RetentionPolicy {
            RetentionPolicy(maxBytes: maxBytes, minFree: minFreeBytes, maxAge: maxAge, kinds: retentionKinds)
        }
    }

    /// `[publish]`: pushing the preview to another RTSP server.
    public struct Publish: Sendable, Equatable {
        /// `url`: `rtsp://HOST[:PORT]/PATH`; empty (default) publishes nothing.
        public var url: String?
        public init() {}
    }

    /// `[http]`: the control API.
    public struct HTTP: Sendable, Equatable {
        /// `listen`: ADDR:PORT, default 127.0.0.1:8080.
        public var listen = ListenAddress.loopback(port: 8080)
        /// `token`: a bearer token every request must carry; empty (default) for none.
        public var token: String?
        /// `allowed-origins`: other sites' origins (`https://HOST[:PORT]`) whose pages may
        /// call the API; empty (default) refuses every origin but the server's own.
        public var allowedOrigins: [String] = []
        public init() {}
    }
}

// MARK: - Loading

extension ServeConfig {
    /// Reads a config file: the defaults, overridden by every key the file sets.
    public static func load(path: String) throws(ConfigError) -> ServeConfig {
        var isDirectory: Bool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ConfigError(origin: .file(path), message: "cannot read the config file: there is no such file")
        }
        guard !isDirectory else {
            throw ConfigError(origin: .file(path), message: "cannot read the config file: it is a directory")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(origin: .file(path), message: "cannot read the config file: permission denied")
        }
        // NUL bytes and invalid UTF-8 are found here, at their line: GLib would cut a value
        // short at a NUL, and its encoding error names no line.
        let bytes = ConfigTextCheck.droppingByteOrderMark([UInt8](data))
        try ConfigTextCheck.check(bytes: bytes, origin: .file(path))
        return try parse(text: String(decoding: bytes, as: UTF8.self), origin: .file(path))
    }

    /// Parses config text; `origin` names it in errors.
    public static func parse(text: String, origin: ConfigError.Origin = .text) throws(ConfigError) -> ServeConfig {
        // A byte-order mark some editors put first is not part of the text (GLib would take it into the first line).
        let text = text.unicodeScalars.first == ConfigTextCheck.byteOrderMark ? String(text.unicodeScalars.dropFirst()) : text
        let file = KeyFile()
        let lines = ConfigLineLocator(text: text)
        try ConfigTextCheck.check(bytes: Array(text.utf8), origin: origin)
        try ConfigTextCheck.checkRepeats(lines, origin: origin)
        do {
            try file.load(text: text)
        } catch {
            throw ConfigError(origin: origin, line: lines.firstInvalidLine,
                              message: "syntax error: \(error.message); expected [group] headers, key = value lines and # comments")
        }
        if let localized = lines.keyLines.first(where: { $0.key.contains("[") }) {
            throw ConfigError(origin: origin, line: localized.line, group: localized.group, key: localized.key,
                              message: "localized keys (KEY[LOCALE]) are not supported; write the key without [...]")
        }
        var config = ServeConfig()
        for group in file.groups {
            guard ServeConfig.groups.contains(group) else {
                throw ConfigError(origin: origin, line: lines.line(ofGroup: group), group: group,
                                  message: "unknown group [\(group)]\(suggestion(group, among: ServeConfig.groups, bracketed: true)); "
                                      + "the groups are " + ServeConfig.groups.map { "[\($0)]" }.joined(separator: ", "))
            }
            for name in file.keys(in: group) {
                let line = lines.line(ofKey: name, inGroup: group)
                guard let key = ServeConfig.key(group: group, name: name) else {
                    let names = ServeConfig.keys.filter { $0.group == group }.map(\.name)
                    throw ConfigError(origin: origin, line: line, group: group, key: name,
                                      message: "unknown key \"\(name)\" in [\(group)]\(suggestion(name, among: names)); "
                                          + "the keys of [\(group)] are " + names.joined(separator: ", "))
                }
                let value: String
                do {
                    value = try file.string(group: group, key: name) ?? ""
                } catch {
                    throw ConfigError(origin: origin, line: line, group: group, key: name,
                                      value: file.rawValue(group: group, key: name),
                                      message: "\(error.message); expected \(key.accepted)")
                }
                try key.apply(value, to: &config, origin: origin, line: line)
            }
        }
        return config
    }

    /// The config with `overrides` applied on top, as from the command line:
    /// keys are `group.key` (`camera.size`), values are written as in the file.
    /// Applied in key order, so the result does not depend on dictionary order.
    public func applying(overrides: [String: String]) throws(ConfigError) -> ServeConfig {
        var config = self
        for (path, value) in overrides.sorted(by: { $0.key < $1.key }) {
            let parts = path.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2, let key = ServeConfig.key(group: parts[0], name: parts[1]) else {
                let known = ServeConfig.keys.map { "\($0.group).\($0.name)" }
                throw ConfigError(origin: .commandLine, value: value,
                                  message: "unknown setting \"\(path)\"\(suggestion(path, among: known)); "
                                      + "settings are GROUP.KEY: " + known.joined(separator: ", "))
            }
            try key.apply(value, to: &config, origin: .commandLine, line: nil)
        }
        return config
    }

    /// The config as INI text that `parse` reads back to the same value: every
    /// key, with its documentation as comments. Secrets (the RTSP password, the
    /// bearer token) are replaced by `***` when `redactingSecrets` is set, for logs.
    public func iniText(redactingSecrets: Bool = false) -> String {
        let file = KeyFile()
        for group in ServeConfig.groups {
            for key in ServeConfig.keys where key.group == group {
                var value = key.render(self)
                if redactingSecrets, key.isSecret, !value.isEmpty, value != "none" { value = "***" }
                file.setString(value, group: group, key: key.name)
                file.setComment(" " + key.documentation.replacing("\n", with: "\n "),
                                group: group, key: key.name)
            }
        }
        return file.text
    }
}

/// " (did you mean ...?)" when a known name is close to what was written.
func suggestion(_ text: String, among names: [String], bracketed: Bool = false) -> String {
    let lower = text.lowercased()
    let best = names.map { ($0, editDistance(lower, $0.lowercased())) }.min { $0.1 < $1.1 }
    guard let best, best.1 <= max(1, min(3, text.count / 3)) else { return "" }
    return bracketed ? " (did you mean [\(best.0)]?)" : " (did you mean \"\(best.0)\"?)"
}

/// Levenshtein distance, for suggestions.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in stride(from: 1, through: b.count, by: 1) {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
