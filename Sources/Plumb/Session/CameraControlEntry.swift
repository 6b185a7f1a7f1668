import FoundationEssentials
import Glibc
import PlumbBase
import GStreamer

/// One control as JSON: what `plumb controls --json` prints and `GET /controls` answers,
/// every field of VIDIOC_QUERY_EXT_CTRL with the current value and the plain name.
public struct CameraControlEntry: Encodable, Sendable {
    public struct Entry: Encodable, Sendable {
        public var index: Int64
        public var name: String?
        public var value: Int64?
    }
    public var name: String
    public var label: String
    public var plainName: String?
    public var id: String
    public var type: String
    public var minimum: Int64
    public var maximum: Int64
    public var step: UInt64
    public var defaultValue: Int64
    public var value: Value?
    public var flags: [String]
    public var menu: [Entry]?
    /// Why it cannot be set now (read-only; inactive: the mode to change first); nil when it can.
    public var inactiveReason: String?

    enum CodingKeys: String, CodingKey {
        case name, label, id, type, minimum, maximum, step, value, flags, menu
        case plainName = "plain_name", defaultValue = "default", inactiveReason = "inactive_reason"
    }

    public init(_ control: V4L2ControlInfo, _ value: V4L2ControlValue?) {
        name = control.name
        label = control.label
        plainName = CameraControlID.plainNames[control.id]
        id = String(cFormat: "0x%08x", control.id)
        type = control.kind.word
        minimum = control.minimum
        maximum = control.maximum
        step = control.step
        defaultValue = control.defaultValue
        self.value = value.map(Value.init)
        flags = control.flags.names
        menu = control.menu.isEmpty ? nil : control.menu.map { Entry(index: $0.index, name: $0.name, value: $0.value) }
        if control.flags.contains(.readOnly) {
            inactiveReason = "read-only"
        } else if control.flags.contains(.inactive) {
            inactiveReason = CameraControlID.modeOf[control.id].map { "inactive while \($0.words)" }
                ?? "inactive in the camera's current mode"
        }
    }

    /// A value as JSON: a number, or a string for string controls.
    public struct Value: Encodable, Sendable {
        public var value: V4L2ControlValue
        public init(_ value: V4L2ControlValue) { self.value = value }
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch value {
            case .integer(let v): try container.encode(v)
            case .string(let s): try container.encode(s)
            }
        }
    }
}
