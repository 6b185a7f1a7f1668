/// One V4L2 control as VIDIOC_QUERY_EXT_CTRL (and VIDIOC_QUERYMENU) describe it.
public struct V4L2ControlInfo: Sendable, Equatable {
    /// V4L2_CTRL_TYPE_*.
    public enum Kind: Sendable, Equatable {
        case integer, boolean, menu, button, integer64, controlClass, string, bitmask, integerMenu
        case other(UInt32)

        public init(rawValue: UInt32) {
            switch rawValue {
            case 1: self = .integer
            case 2: self = .boolean
            case 3: self = .menu
            case 4: self = .button
            case 5: self = .integer64
            case 6: self = .controlClass
            case 7: self = .string
            case 8: self = .bitmask
            case 9: self = .integerMenu
            default: self = .other(rawValue)
            }
        }

        /// The word v4l2-ctl prints in parentheses (`int`, `intmenu` ...).
        public var word: String {
            switch self {
            case .integer: "int"
            case .boolean: "bool"
            case .menu: "menu"
            case .button: "button"
            case .integer64: "int64"
            case .controlClass: "class"
            case .string: "str"
            case .bitmask: "bitmask"
            case .integerMenu: "intmenu"
            case .other(let raw): "type-\(raw)"
            }
        }

        public init?(word: String) {
            let all: [Kind] = [.integer, .boolean, .menu, .button, .integer64, .controlClass, .string, .bitmask, .integerMenu]
            guard let kind = all.first(where: { $0.word == word }) else { return nil }
            self = kind
        }
    }

    public var id: UInt32
    /// The driver's own name, e.g. "White Balance, Automatic".
    public var label: String
    public var kind: Kind
    public var minimum: Int64
    public var maximum: Int64
    public var step: UInt64
    public var defaultValue: Int64
    public var flags: V4L2ControlFlags
    /// Menu and integer-menu entries, the ones the driver answers for.
    public var menu: [V4L2MenuEntry]
    /// Elements of an array control (1 for the usual single value).
    public var elements: UInt32

    public init(id: UInt32, label: String, kind: Kind, minimum: Int64 = 0, maximum: Int64 = 0, step: UInt64 = 0,
                defaultValue: Int64 = 0, flags: V4L2ControlFlags = [], menu: [V4L2MenuEntry] = [], elements: UInt32 = 1) {
        self.id = id
        self.label = label
        self.kind = kind
        self.minimum = minimum
        self.maximum = maximum
        self.step = step
        self.defaultValue = defaultValue
        self.flags = flags
        self.menu = menu
        self.elements = elements
    }

    /// The driver name as v4l2-ctl writes it: lower case, runs of anything but letters and
    /// digits joined into one '_' ("White Balance, Automatic" → `white_balance_automatic`).
    public var name: String { Self.variableName(label) }

    public static func variableName(_ label: String) -> String {
        var out = ""
        var pendingUnderscore = false
        for scalar in label.unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                if pendingUnderscore { out.append("_") }
                pendingUnderscore = false
                out.unicodeScalars.append(contentsOf: String(scalar).lowercased().unicodeScalars)
            } else if !out.isEmpty {
                pendingUnderscore = true
            }
        }
        return out
    }

    /// Whether it holds a value one can read (class headings and write-only buttons do not).
    /// Compound types (areas, arrays, codec parameters) are left out: they need their own buffers.
    public var isReadable: Bool {
        if case .other = kind { return false }
        return kind != .controlClass && !flags.contains(.writeOnly) && kind != .button
    }
}
