import Foundation

// The value types of the config file. Each parses its INI text (`init?(iniValue:)`)
// and writes it back (`iniValue`), so a rendered config reads back to itself.
// They are nested in ServeConfig: the session and rotation layers have their own
// types, and the daemon maps these onto them.

extension ServeConfig {
    /// `[camera] device`.
    public enum CameraDevice: Sendable, Equatable {
        /// The first camera found, else the test pattern (saying so).
        case auto
        /// The test pattern (videotestsrc).
        case test
        /// A device node, e.g. `/dev/video0`.
        case path(String)
        /// A camera's display name, as `plumb devices` lists it.
        case name(String)

        public init?(iniValue: String) {
            switch iniValue {
            case "": return nil
            case "auto": self = .auto
            case "test": self = .test
            case let s where s.hasPrefix("/"): self = .path(s)
            case let s: self = .name(s)
            }
        }

        public var iniValue: String {
            switch self {
            case .auto: "auto"
            case .test: "test"
            case .path(let p): p
            case .name(let n): n
            }
        }
    }

    /// `[camera] size`: WIDTHxHEIGHT.
    public struct Size: Sendable, Equatable, CustomStringConvertible {
        public var width: Int
        public var height: Int
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }

        static let range = 16...8192

        public init?(iniValue: String) {
            let parts = iniValue.split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }),
                  let w = Int(parts[0]), let h = Int(parts[1]),
                  Size.range.contains(w), Size.range.contains(h), w % 2 == 0, h % 2 == 0 else { return nil }
            self.init(width: w, height: h)
        }

        public var iniValue: String { "\(width)x\(height)" }
        public var description: String { iniValue }
    }

    /// `[rotation] accelerometer`: where gravity comes from.
    public enum Accelerometer: Sendable, Equatable {
        /// IIO if a device is found, else iio-sensor-proxy if it answers, else fixed at 0.
        case auto
        /// Linux IIO sysfs; nil finds the first accelerometer.
        case iio(path: String?)
        /// iio-sensor-proxy over D-Bus.
        case sensorProxy
        /// `t_ms x y z` lines from a file (`-` for stdin).
        case replay(path: String)
        /// No sensor: a fixed angle.
        case fixed(angle: Int)

        public init?(iniValue: String) {
            switch iniValue {
            case "auto": self = .auto
            case "iio": self = .iio(path: nil)
            case "sensor-proxy": self = .sensorProxy
            case let s where s.hasPrefix("iio:") && s.count > 4: self = .iio(path: String(s.dropFirst(4)))
            case let s where s.hasPrefix("replay:") && s.count > 7: self = .replay(path: String(s.dropFirst(7)))
            case let s where s.hasPrefix("fixed:"):
                guard let angle = Int(s.dropFirst(6)), ServeConfig.angles.contains(angle) else { return nil }
                self = .fixed(angle: angle)
            default: return nil
            }
        }

        public var iniValue: String {
            switch self {
            case .auto: "auto"
            case .iio(nil): "iio"
            case .iio(let path?): "iio:\(path)"
            case .sensorProxy: "sensor-proxy"
            case .replay(let path): "replay:\(path)"
            case .fixed(let angle): "fixed:\(angle)"
            }
        }
    }

    /// The right angles a mount or a fixed rotation can take.
    public static let angles = [0, 90, 180, 270]

    /// `[rotation] facing`.
    public enum Facing: String, Sendable, Equatable, CaseIterable {
        case back, front
    }

    /// `[recording] codec`.
    public enum Codec: String, Sendable, Equatable, CaseIterable {
        case h264, h265
    }

    /// `[preview] auth`: RTSP authentication.
    public enum RTSPAuth: Sendable, Equatable {
        case none
        case basic(user: String, password: String)
        case digest(user: String, password: String)

        /// `none`, `basic:USER:PASSWORD`, `digest:USER:PASSWORD`; the user has no
        /// colon, the password may.
        public init?(iniValue: String) {
            if iniValue == "none" { self = .none; return }
            let parts = iniValue.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, !parts[1].isEmpty, !parts[2].isEmpty else { return nil }
            switch parts[0] {
            case "basic": self = .basic(user: parts[1], password: parts[2])
            case "digest": self = .digest(user: parts[1], password: parts[2])
            default: return nil
            }
        }

        public var iniValue: String {
            switch self {
            case .none: "none"
            case let .basic(user, password): "basic:\(user):\(password)"
            case let .digest(user, password): "digest:\(user):\(password)"
            }
        }
    }
}

/// Booleans as GKeyFile writes them (`true`/`false`), and the spellings people type.
func parseBool(_ text: String) -> Bool? {
    switch text.lowercased() {
    case "true", "yes", "on", "1": true
    case "false", "no", "off", "0": false
    default: nil
    }
}

/// A decimal integer within `range` (no sign games, no hex, no spaces).
func parseInt(_ text: String, in range: ClosedRange<Int>) -> Int? {
    guard !text.isEmpty, text.allSatisfy(\.isASCII), let v = Int(text), range.contains(v) else { return nil }
    return v
}

/// A finite decimal number within `range`.
func parseDouble(_ text: String, in range: ClosedRange<Double>) -> Double? {
    guard !text.isEmpty, text.allSatisfy(\.isASCII), let v = Double(text), v.isFinite, range.contains(v) else { return nil }
    return v
}

/// `rtsp://HOST[:PORT]/PATH` or `rtsps://...`: what rtspclientsink can publish to.
func isPublishURL(_ text: String) -> Bool {
    guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
          scheme == "rtsp" || scheme == "rtsps", let host = url.host, !host.isEmpty,
          url.path.count > 1 else { return false }
    return true
}

/// An RTSP mount point: `/` then letters, digits and `-._~/`.
func isMountPath(_ text: String) -> Bool {
    guard text.hasPrefix("/"), text.count > 1 else { return false }
    return text.unicodeScalars.allSatisfy { c in
        c.isASCII && (CharacterSet.alphanumerics.contains(c) || "-._~/".unicodeScalars.contains(c))
    }
}

/// A bearer token: long enough not to be guessed, and safe in a header.
func isToken(_ text: String) -> Bool {
    text.count >= 16 && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F }
}
