/// A V4L2 control's flags (V4L2_CTRL_FLAG_*), as VIDIOC_QUERY_EXT_CTRL reports them.
public struct V4L2ControlFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// V4L2_CTRL_FLAG_DISABLED: not usable at all (v4l2-ctl leaves it out).
    public static let disabled = V4L2ControlFlags(rawValue: 0x0001)
    /// V4L2_CTRL_FLAG_GRABBED: held by another process or busy while streaming.
    public static let grabbed = V4L2ControlFlags(rawValue: 0x0002)
    /// V4L2_CTRL_FLAG_READ_ONLY.
    public static let readOnly = V4L2ControlFlags(rawValue: 0x0004)
    /// V4L2_CTRL_FLAG_UPDATE: setting it changes others.
    public static let update = V4L2ControlFlags(rawValue: 0x0008)
    /// V4L2_CTRL_FLAG_INACTIVE: has no effect in the current mode (e.g. exposure time under auto).
    public static let inactive = V4L2ControlFlags(rawValue: 0x0010)
    /// V4L2_CTRL_FLAG_SLIDER.
    public static let slider = V4L2ControlFlags(rawValue: 0x0020)
    /// V4L2_CTRL_FLAG_WRITE_ONLY: buttons and the like, no value to read.
    public static let writeOnly = V4L2ControlFlags(rawValue: 0x0040)
    /// V4L2_CTRL_FLAG_VOLATILE: the driver changes it (gain under auto gain).
    public static let volatile = V4L2ControlFlags(rawValue: 0x0080)
    /// V4L2_CTRL_FLAG_HAS_PAYLOAD: the value is behind a pointer (strings, arrays).
    public static let hasPayload = V4L2ControlFlags(rawValue: 0x0100)
    /// V4L2_CTRL_FLAG_EXECUTE_ON_WRITE.
    public static let executeOnWrite = V4L2ControlFlags(rawValue: 0x0200)
    /// V4L2_CTRL_FLAG_MODIFY_LAYOUT.
    public static let modifyLayout = V4L2ControlFlags(rawValue: 0x0400)
    /// V4L2_CTRL_FLAG_DYNAMIC_ARRAY.
    public static let dynamicArray = V4L2ControlFlags(rawValue: 0x0800)

    /// The words v4l2-ctl prints after `flags=` (its order), e.g. `inactive`, `write-only`.
    public static let words: [(V4L2ControlFlags, String)] = [
        (.disabled, "disabled"), (.grabbed, "grabbed"), (.readOnly, "read-only"), (.update, "update"),
        (.inactive, "inactive"), (.slider, "slider"), (.writeOnly, "write-only"), (.volatile, "volatile"),
        (.hasPayload, "has-payload"), (.executeOnWrite, "execute-on-write"), (.modifyLayout, "modify-layout"),
        (.dynamicArray, "dynamic-array"),
    ]

    /// This set's words, in v4l2-ctl's order.
    public var names: [String] { Self.words.filter { contains($0.0) }.map(\.1) }

    /// The flags named by `names` (unknown words ignored).
    public init(names: [String]) {
        self = []
        for name in names { if let flag = Self.words.first(where: { $0.1 == name })?.0 { insert(flag) } }
    }
}
