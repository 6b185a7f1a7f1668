import FoundationEssentials
import Glibc
import PlumbBase
import GStreamer

/// `name=value` settings (`--control`, `[camera] controls`) resolved against one camera's
/// controls into the batch of driver values to set, checked first: plain names mapped to
/// the standard IDs, every other control under its driver name (v4l2-ctl's, words joined
/// by '_'; '-' is taken for '_' too).
public struct CameraControlRequest: Sendable, Equatable {
    /// The settings, in the order given.
    public var assignments: [(name: String, value: String)]

    public static func == (a: Self, b: Self) -> Bool {
        a.assignments.map { "\($0.name)=\($0.value)" } == b.assignments.map { "\($0.name)=\($0.value)" }
    }

    /// Parses `name=value` items (one per --control, or a config's comma-separated list).
    public init(parsing items: [String]) throws(CameraControlError) {
        var assignments: [(String, String)] = []
        for item in items {
            let trimmed = item.trimmed
            guard let eq = trimmed.firstIndex(of: "=") else { throw .malformed(trimmed) }
            let name = trimmed[..<eq].trimmed.lowercased()
            let value = trimmed[trimmed.index(after: eq)...].trimmed
            guard !name.isEmpty else { throw .malformed(trimmed) }
            assignments.append((name, value))
        }
        self.assignments = assignments
    }

    /// Settings already split into names and values (an API's JSON object).
    public init(assignments: [(name: String, value: String)]) {
        self.assignments = assignments.map { ($0.name.lowercased(), $0.value) }
    }

    /// A config value: `exposure=manual, exposure-time=0.01`.
    public init(parsingList text: String) throws(CameraControlError) {
        try self.init(parsing: text.split(separator: ",").map(String.init).filter { !$0.trimmed.isEmpty })
    }

    /// What resolving yields: the batch, and the names this camera lacks (when asked to skip them).
    public struct Resolved: Sendable {
        public var changes: [(V4L2ControlInfo, V4L2ControlValue)]
        public var missing: [String]
    }

    /// The checked batch for a camera with `controls`. Mode controls (exposure, focus, white
    /// balance, gain) go first so that a manual value given with its mode is not inactive.
    /// `skipMissing`: names the camera lacks are returned in `missing` instead of thrown
    /// (re-applying after a camera switch); a wrong value is still an error.
    public func resolve(against controls: [V4L2ControlInfo], skipMissing: Bool = false) throws(CameraControlError) -> Resolved {
        let usable = controls.filter { $0.kind != .controlClass && !$0.flags.contains(.disabled) }
        var byID: [UInt32: V4L2ControlInfo] = [:]
        for control in usable { byID[control.id] = control }
        var changes: [(V4L2ControlInfo, V4L2ControlValue)] = []
        var missing: [String] = []
        for (name, value) in assignments {
            do {
                let mapped = try CameraControlMapping.driverValues(name: name, value: value, controls: usable, byID: byID)
                for (control, text, display) in mapped {
                    changes.append((control, try Self.check(control, text, display: display)))
                }
            } catch {
                if skipMissing, case .missing = error { missing.append(name); continue }
                if skipMissing, case .unknown = error { missing.append(name); continue }
                throw error
            }
        }
        let modes = Set(CameraControlID.modeOf.values.map(\.mode) + [CameraControlID.flashLEDMode])
        let ordered = changes.filter { modes.contains($0.0.id) } + changes.filter { !modes.contains($0.0.id) }
        for (control, _) in ordered where control.flags.contains(.inactive) {
            guard let mode = CameraControlID.modeOf[control.id] else {
                throw .notSettable(name: control.name, reason: "inactive in the camera's current mode")
            }
            if !ordered.contains(where: { $0.0.id == mode.mode }) {
                throw .notSettable(name: CameraControlID.plainNames[control.id] ?? control.name, reason: "inactive while \(mode.words)")
            }
        }
        return Resolved(changes: ordered, missing: missing)
    }

    /// One driver value checked against its control: type, range, step, menu entries, flags.
    static func check(_ control: V4L2ControlInfo, _ text: String, display: String) throws(CameraControlError) -> V4L2ControlValue {
        if control.flags.contains(.readOnly) { throw .notSettable(name: display, reason: "read-only") }
        switch control.kind {
        case .integer, .integer64:
            guard let value = Int64(text) else {
                throw .invalid(name: display, value: text, accepted: "a whole number, \(rangeWords(control))")
            }
            guard value >= control.minimum, value <= control.maximum,
                  control.step <= 1 || (value - control.minimum) % Int64(control.step) == 0 else {
                throw .invalid(name: display, value: text, accepted: rangeWords(control))
            }
            return .integer(value)
        case .boolean:
            switch text.lowercased() {
            case "1", "true", "on", "yes": return .integer(1)
            case "0", "false", "off", "no": return .integer(0)
            default: throw .invalid(name: display, value: text, accepted: "0/1, on/off, true/false")
            }
        case .button:
            guard ["", "1", "press"].contains(text.lowercased()) else {
                throw .invalid(name: display, value: text, accepted: "1 or press (a button)")
            }
            return .integer(1)
        case .menu:
            let wanted = CameraControlMapping.word(text)
            if let entry = control.menu.first(where: { CameraControlMapping.word($0.name ?? "") == wanted || String($0.index) == text }) {
                return .integer(entry.index)
            }
            throw .invalid(name: display, value: text, accepted: "one of " + control.menu.map { "\(CameraControlMapping.word($0.name ?? "")) (\($0.index))" }.joined(separator: ", "))
        case .integerMenu:
            if let number = Int64(text), let entry = control.menu.first(where: { $0.value == number }) { return .integer(entry.index) }
            throw .invalid(name: display, value: text, accepted: "one of " + control.menu.compactMap { $0.value.map(String.init) }.joined(separator: ", "))
        case .string:
            let length = Int64(text.utf8.count)
            guard length >= control.minimum, length <= control.maximum,
                  control.step <= 1 || (length - control.minimum) % Int64(control.step) == 0 else {
                throw .invalid(name: display, value: text, accepted: "text of \(control.minimum) to \(control.maximum) bytes" + (control.step > 1 ? " in steps of \(control.step)" : ""))
            }
            return .string(text)
        case .bitmask:
            let number = text.lowercased().hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
            let mask = UInt64(UInt32(truncatingIfNeeded: control.maximum))
            guard let number, number & ~mask == 0 else {
                throw .invalid(name: display, value: text, accepted: "bits within 0x" + String(mask, radix: 16))
            }
            return .integer(Int64(number))
        case .controlClass, .other:
            throw .notSettable(name: display, reason: "a \(control.kind.word) control cannot be set")
        }
    }

    static func rangeWords(_ control: V4L2ControlInfo) -> String {
        "\(control.minimum) to \(control.maximum) in steps of \(max(1, control.step))"
    }
}
