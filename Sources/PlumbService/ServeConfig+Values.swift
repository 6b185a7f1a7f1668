import FoundationEssentials
import Glibc
import GLib
import PlumbRotation
import Plumb

// How the config file's values read and write. Values parse straight into the engine's
// types (`VideoSize`, `VideoCodec`, `RotationAngle`, `CameraFacing`, `AccelerometerSpec`,
// `PreviewCredentials`); only `[camera] device` has a type of its own, because `auto`
// and a camera name are resolved against the machine when the daemon starts
// (`ServeChoices`), not when the file is read. Each value written back (`render` in
// `ServeConfig.keys`) reads back to itself.

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

    /// The sides `[camera] size` takes (even: the encoders want 4:2:0).
    static let sizeRange = 16...8192
}

/// `[camera] size`: WIDTHxHEIGHT, both even and within `ServeConfig.sizeRange`.
func parseSize(_ text: String) -> VideoSize? {
    guard text.allSatisfy(\.isASCII), let size = VideoSize(parsing: text),
          ServeConfig.sizeRange.contains(size.width), ServeConfig.sizeRange.contains(size.height),
          size.fits420 else { return nil }
    return size
}

/// `[rotation] accelerometer`: `auto` is nil (resolved by `ServeChoices`); anything else is
/// an `--accelerometer` SPEC, parsed here once.
func parseAccelerometer(_ text: String) -> AccelerometerSpec?? {
    if text == "auto" { return .some(nil) }
    return (try? AccelerometerSpec(parsing: text)).map { .some($0) }
}

/// `[preview] auth`: `none` (nil), `basic:USER:PASSWORD` or `digest:USER:PASSWORD`; the
/// user has no colon, the password may.
func parseCredentials(_ text: String) -> PreviewCredentials?? {
    if text == "none" { return .some(nil) }
    let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
    guard parts.count == 3, let method = PreviewCredentials.Method(rawValue: parts[0]),
          !parts[1].isEmpty, !parts[2].isEmpty else { return nil }
    return .some(PreviewCredentials(method: method, user: parts[1], password: parts[2]))
}

func renderCredentials(_ credentials: PreviewCredentials?) -> String {
    credentials.map { "\($0.method.rawValue):\($0.user):\($0.password)" } ?? "none"
}

/// A right angle, 0, 90, 180 or 270, written as a whole number.
func parseRightAngle(_ text: String) -> RotationAngle? {
    parseInt(text, in: 0...270).flatMap(RotationAngle.init(rawValue:))
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
        c.isASCII && (c.properties.isAlphabetic || c.properties.numericType != nil || "-._~/".unicodeScalars.contains(c))
    }
}

/// A bearer token: long enough not to be guessed, and safe in a header.
func isToken(_ text: String) -> Bool {
    text.count >= 16 && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F }
}
