/// A control's value: a number for every type but strings (buttons take any number, bools
/// 0 or 1, menus their entry's index, bitmasks their bits).
public enum V4L2ControlValue: Sendable, Equatable, CustomStringConvertible {
    case integer(Int64)
    case string(String)

    public var integer: Int64? { if case .integer(let v) = self { v } else { nil } }

    public var description: String {
        switch self {
        case .integer(let v): String(v)
        case .string(let s): s
        }
    }
}
