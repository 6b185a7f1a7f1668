import FoundationEssentials
import Glibc
import PlumbBase
import Plumb
import PlumbCommandLine

/// `plumb controls [--camera ...] [--json]`
enum ControlsCommand: Command {
    static let name = "controls"
    static let summary = "list a camera's controls (exposure, focus, white balance ...) with their values"
    static let help = """
        Usage: plumb controls [--camera NAME|PATH] [--json]

        Lists the V4L2 controls of a camera with their current values: one line per control
        as `v4l2-ctl --list-ctrls-menus` prints it (driver name, id, type, range, step,
        default, value, flags, menu entries), followed by the plain name Plumb also takes for
        it in brackets ([exposure-time]). Every control can be set with --control NAME=VALUE
        on photo, record and scan, or `[camera] controls` in the serve config, by its plain
        name or its driver name (v4l2-ctl's: lower case, words joined by '_'; '-' works too).
        The test camera and image cameras have no controls.

        Options:
          --camera NAME|PATH
                           the camera (as `plumb devices` lists it); default: the first found
          --json           print a JSON array: every field of every control
        """

    static func run(_ arguments: inout Arguments) async throws -> ExitCode {
        let json = arguments.flag("--json")
        let camera = try arguments.option("--camera")
        try arguments.finish()
        let source: CameraSource
        do {
            if let camera {
                source = try CameraSource.resolve(camera)
            } else {
                guard let first = CameraDevice.all().first else {
                    throw UsageError("no camera found (`plumb devices` lists none); give --camera PATH or NAME")
                }
                source = .device(first)
            }
        } catch {
            return report(error, command: name)
        }
        guard case .device(let device) = source else {
            StandardStream.error.write("plumb controls: \(CameraControlError.noControls(camera: source.identifier))\n")
            return .usage
        }
        let controls: CameraControls
        do {
            controls = try CameraControls(path: device.path)
        } catch {
            StandardStream.error.write("plumb controls: error: \(device.path): \(error)\n")
            return .failure
        }
        let values = controls.values()
        let listed = controls.controls.filter { !$0.flags.contains(.disabled) }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let entries = listed.filter { $0.kind != .controlClass }.map { CameraControlEntry($0, values[$0.id]) }
            say(entries.isEmpty ? "[]" : String(decoding: try encoder.encode(entries), as: UTF8.self))
            return .success
        }
        for control in listed {
            if control.kind == .controlClass {
                say("\n\(control.label)\n")
                continue
            }
            say(line(control, values[control.id]))
            for entry in control.menu {
                say("\t\t\t\t\(entry.index): \(entry.value.map { "\($0) (0x\(String(UInt64(bitPattern: $0), radix: 16)))" } ?? entry.label)")
            }
        }
        return .success
    }

    /// v4l2-ctl's line, e.g. `brightness 0x00980900 (int)    : min=0 max=255 step=1 default=128 value=128`.
    static func line(_ control: CameraControlInfo, _ value: CameraControlValue?) -> String {
        let id = "0x" + String(repeating: "0", count: max(0, 8 - String(control.id, radix: 16).count)) + String(control.id, radix: 16)
        let type = "(\(control.kind.word))"
        var text = String(repeating: " ", count: max(0, 31 - control.name.count)) + control.name + " \(id) "
            + type + String(repeating: " ", count: max(0, 9 - type.count)) + ":"
        func hex(_ v: Int64) -> String { "0x" + String(UInt32(truncatingIfNeeded: v), radix: 16) }
        switch control.kind {
        case .integer, .integer64, .string:
            text += " min=\(control.minimum) max=\(control.maximum) step=\(control.step)"
            if control.kind != .string { text += " default=\(control.defaultValue)" }
        case .boolean: text += " default=\(control.defaultValue)"
        case .menu, .integerMenu: text += " min=\(control.minimum) max=\(control.maximum) default=\(control.defaultValue)"
        case .bitmask: text += " max=\(hex(control.maximum)) default=\(hex(control.defaultValue))"
        default: break
        }
        switch (control.kind, value) {
        case (.string, .string(let s)?): text += " value='\(s)'"
        case (.bitmask, .integer(let v)?): text += " value=\(hex(v))"
        case (.menu, .integer(let v)?), (.integerMenu, .integer(let v)?):
            text += " value=\(v)" + (control.menu.first { $0.index == v }.map { " (\($0.label))" } ?? "")
        case (_, let v?): text += " value=\(v)"
        case (_, nil): break
        }
        if !control.flags.names.isEmpty { text += " flags=" + control.flags.names.joined(separator: ", ") }
        if let plain = CameraControlID.plainNames[control.id] { text += "  [\(plain)]" }
        return text
    }
}
