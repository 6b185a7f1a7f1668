/// One entry of a menu control (VIDIOC_QUERYMENU): a name for a plain menu, a number for
/// an integer menu (exposure bias steps, ISO values). Drivers may skip indices.
public struct V4L2MenuEntry: Sendable, Equatable {
    public var index: Int64
    /// V4L2_CTRL_TYPE_MENU's name, e.g. "Manual Mode".
    public var name: String?
    /// V4L2_CTRL_TYPE_INTEGER_MENU's value, e.g. 400 (ISO).
    public var value: Int64?

    public init(index: Int64, name: String? = nil, value: Int64? = nil) {
        self.index = index
        self.name = name
        self.value = value
    }

    /// The entry as a word: its name, or its value.
    public var label: String { name ?? value.map(String.init) ?? String(index) }
}
