internal import CGStreamer
internal import CGStreamerShim

/// A value for a GObject property, typed after the property's GType fundamental.
public enum PropertyValue: Sendable, Equatable, CustomStringConvertible {
    case bool(Bool)
    case int(Int32)
    case uint(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    /// Any Swift `Int`: accepted by every integer property whose range holds it.
    case integer(Int)
    case double(Double)
    case string(String?)
    /// An enum value by its nick ("ball", "90r").
    case enumNick(String)
    case caps(Caps)

    public var description: String {
        switch self {
        case .bool(let v): return String(v)
        case .int(let v): return String(v)
        case .uint(let v): return String(v)
        case .int64(let v): return String(v)
        case .uint64(let v): return String(v)
        case .integer(let v): return String(v)
        case .double(let v): return String(v)
        case .string(let v): return v ?? "NULL"
        case .enumNick(let v): return v
        case .caps(let v): return v.description
        }
    }

    /// The GType the Swift value was written as, for error messages.
    var typeName: String {
        switch self {
        case .bool: return "gboolean"
        case .int: return "gint"
        case .uint: return "guint"
        case .int64: return "gint64"
        case .uint64: return "guint64"
        case .integer: return "integer"
        case .double: return "gdouble"
        case .string: return "gchararray"
        case .enumNick: return "enum nick"
        case .caps: return "GstCaps"
        }
    }
}

/// Swift types that convert to and from a property value.
public protocol PropertyConvertible {
    var propertyValue: PropertyValue { get }
    init?(propertyValue: PropertyValue)
}

extension Bool: PropertyConvertible {
    public var propertyValue: PropertyValue { .bool(self) }
    public init?(propertyValue: PropertyValue) {
        guard case .bool(let v) = propertyValue else { return nil }
        self = v
    }
}

extension Int32: PropertyConvertible {
    public var propertyValue: PropertyValue { .int(self) }
    public init?(propertyValue: PropertyValue) {
        guard case .int(let v) = propertyValue else { return nil }
        self = v
    }
}

extension UInt32: PropertyConvertible {
    public var propertyValue: PropertyValue { .uint(self) }
    public init?(propertyValue: PropertyValue) {
        guard case .uint(let v) = propertyValue else { return nil }
        self = v
    }
}

extension Int64: PropertyConvertible {
    public var propertyValue: PropertyValue { .int64(self) }
    public init?(propertyValue: PropertyValue) {
        guard case .int64(let v) = propertyValue else { return nil }
        self = v
    }
}

extension UInt64: PropertyConvertible {
    public var propertyValue: PropertyValue { .uint64(self) }
    public init?(propertyValue: PropertyValue) {
        guard case .uint64(let v) = propertyValue else { return nil }
        self = v
    }
}

extension Int: PropertyConvertible {
    public var propertyValue: PropertyValue { .integer(self) }
    /// Reads any integer property that fits.
    public init?(propertyValue: PropertyValue) {
        switch propertyValue {
        case .int(let v): self = Int(v)
        case .uint(let v): self = Int(v)
        case .int64(let v): self = Int(v)
        case .uint64(let v): guard let i = Int(exactly: v) else { return nil }; self = i
        case .integer(let v): self = v
        default: return nil
        }
    }
}

extension Double: PropertyConvertible {
    public var propertyValue: PropertyValue { .double(self) }
    public init?(propertyValue: PropertyValue) {
        guard case .double(let v) = propertyValue else { return nil }
        self = v
    }
}

extension String: PropertyConvertible {
    public var propertyValue: PropertyValue { .string(self) }
    public init?(propertyValue: PropertyValue) {
        guard case .string(let v?) = propertyValue else { return nil }
        self = v
    }
}

/// A string property that may be NULL (filesink's `location` before it is set).
extension Optional: PropertyConvertible where Wrapped == String {
    public var propertyValue: PropertyValue { .string(self) }
    public init?(propertyValue: PropertyValue) {
        guard case .string(let v) = propertyValue else { return nil }
        self = v
    }
}

/// An enum property's value by nick: `try flip.set("video-direction", EnumNick("90r"))`.
public struct EnumNick: PropertyConvertible, Sendable, Equatable, ExpressibleByStringLiteral {
    public var nick: String
    public init(_ nick: String) { self.nick = nick }
    public init(stringLiteral value: String) { self.nick = value }
    public var propertyValue: PropertyValue { .enumNick(nick) }
    public init?(propertyValue: PropertyValue) {
        guard case .enumNick(let v) = propertyValue else { return nil }
        nick = v
    }
}

extension Caps: PropertyConvertible {
    public var propertyValue: PropertyValue { .caps(self) }
    public convenience init?(propertyValue: PropertyValue) {
        guard case .caps(let v) = propertyValue else { return nil }
        self.init(retaining: v.pointer)
    }
}
