/// A D-Bus signal as a subscription receives it.
public struct DBusSignal: Sendable, Equatable {
    /// The sender's unique name (":1.42").
    public var sender: String
    public var path: String
    public var interface: String
    public var member: String
    /// The signal's arguments (its body's tuple, unpacked).
    public var arguments: [Variant]

    public init(sender: String, path: String, interface: String, member: String, arguments: [Variant]) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }
}
