import FoundationEssentials
import Glibc
import PlumbBase
import GStreamer

/// A camera's controls with their values as `v4l2-ctl --list-ctrls-menus` prints them — the
/// text a camera's owner can paste — read back into V4L2ControlInfo (the names stand in for
/// the driver's labels; class headings are left out). The stand-in for a camera in tests.
public struct CameraControlListing: Sendable, Equatable {
    public var controls: [V4L2ControlInfo]
    public var values: [UInt32: V4L2ControlValue]

    public init(controls: [V4L2ControlInfo], values: [UInt32: V4L2ControlValue]) {
        self.controls = controls
        self.values = values
    }

    /// Parses the listing; lines it does not understand (headings, blank) are skipped.
    public init(parsing text: String) {
        var controls: [V4L2ControlInfo] = []
        var values: [UInt32: V4L2ControlValue] = [:]
        for raw in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = raw.trimmed
            if let entry = Self.menuEntry(line), !controls.isEmpty {
                let last = controls.count - 1
                if controls[last].kind == .integerMenu {
                    controls[last].menu.append(V4L2MenuEntry(index: entry.index, value: Int64(entry.text.split(separator: " ").first ?? "")))
                } else if controls[last].kind == .menu {
                    controls[last].menu.append(V4L2MenuEntry(index: entry.index, name: entry.text))
                }
                continue
            }
            guard let parsed = Self.control(line) else { continue }
            controls.append(parsed.0)
            if let value = parsed.1 { values[parsed.0.id] = value }
        }
        self.init(controls: controls, values: values)
    }

    /// `1: Manual Mode` (menu) or `0: -4000 (0xfffffffffffff060)` (integer menu).
    private static func menuEntry(_ line: String) -> (index: Int64, text: String)? {
        guard let colon = line.firstIndex(of: ":"), let index = Int64(line[..<colon]) else { return nil }
        return (index, line[line.index(after: colon)...].trimmed)
    }

    /// `brightness 0x00980900 (int)    : min=0 max=255 step=1 default=128 value=128 flags=slider`.
    private static func control(_ line: String) -> (V4L2ControlInfo, V4L2ControlValue?)? {
        let words = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard words.count == 3, words[1].hasPrefix("0x"), let id = UInt32(words[1].dropFirst(2), radix: 16),
              let open = words[2].firstIndex(of: "("), let close = words[2].firstIndex(of: ")"),
              let kind = V4L2ControlInfo.Kind(word: String(words[2][words[2].index(after: open)..<close])),
              let colon = words[2].firstIndex(of: ":") else { return nil }
        var rest = String(words[2][words[2].index(after: colon)...])
        var flags: V4L2ControlFlags = []
        if let range = rest.firstRange(of: "flags=") {
            flags = V4L2ControlFlags(names: rest[range.upperBound...].split(separator: ",").map { $0.trimmed })
            rest = String(rest[..<range.lowerBound])
        }
        var stringValue: String?
        if let range = rest.firstRange(of: "value='"), let end = rest.ranges(of: "'").last, end.lowerBound >= range.upperBound {
            stringValue = String(rest[range.upperBound..<end.lowerBound])
            rest = String(rest[..<range.lowerBound])
        }
        var fields: [String: Int64] = [:]
        for pair in rest.split(separator: " ") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            guard kv.count == 2 else { continue }
            let text = String(kv[1])
            fields[String(kv[0])] = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16).map { Int64(bitPattern: $0) } : Int64(text)
        }
        var info = V4L2ControlInfo(id: id, label: String(words[0]), kind: kind, minimum: fields["min"] ?? 0,
                                   maximum: fields["max"] ?? 0, step: UInt64(max(0, fields["step"] ?? 0)),
                                   defaultValue: fields["default"] ?? 0, flags: flags)
        if kind == .boolean { info.maximum = 1; info.step = 1 }
        if kind == .button { info.flags.insert(.writeOnly) }
        let value: V4L2ControlValue? = kind == .string ? stringValue.map { .string($0) } : fields["value"].map { .integer($0) }
        return (info, value)
    }
}
