/// A D-Bus value, as a Swift value: what `DBusConnection` sends (method arguments, signal
/// arguments) and hands back (replies, received signals). It is converted to and from a
/// GVariant at the C boundary (`Variant+GVariant.swift`), so no GVariant reference
/// outlives the call that needed it.
///
/// Covers the D-Bus type system: the basic types, variants, structs (tuples), arrays and
/// dictionaries (`a{kv}`: an array of dictionary entries). An a{sv} "vardict", the shape of
/// D-Bus properties, has `dictionary(_:)` to build one and `dictionary` to read one.
public indirect enum Variant: Sendable, Hashable, CustomStringConvertible {
    case bool(Bool)
    case byte(UInt8)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    /// An object path ("/net/hadess/SensorProxy").
    case objectPath(String)
    /// A type signature ("a{sv}").
    case signature(String)
    /// A Unix fd, as its index into the message's fd list.
    case handle(Int32)
    /// A value of any type, boxed with its type (D-Bus `v`).
    case variant(Variant)
    /// A struct (D-Bus `(...)`); method arguments and replies are one too.
    case tuple([Variant])
    /// An array whose elements all have `elementType` ("s", "(ii)", "{sv}"): the type is
    /// what an empty array is sent as.
    case array(elementType: String, [Variant])
    /// A dictionary entry, the element of `a{kv}`; only valid inside an array, and the key
    /// must be of a basic type.
    case dictEntry(key: Variant, value: Variant)

    /// An a{sv} dictionary, its entries in key order.
    public static func dictionary(_ entries: [String: Variant]) -> Variant {
        .array(elementType: "{sv}", entries.sorted { $0.key < $1.key }
            .map { .dictEntry(key: .string($0.key), value: .variant($0.value)) })
    }

    /// The entries of an a{sv} dictionary, each value out of its variant; nil for any other type.
    public var dictionary: [String: Variant]? {
        guard case .array("{sv}", let entries) = self else { return nil }
        var result: [String: Variant] = [:]
        for case .dictEntry(.string(let key), .variant(let value)) in entries { result[key] = value }
        return result
    }

    /// The GVariant type string of this value ("s", "a{sv}", "(sa{sv}as)").
    public var typeString: String {
        switch self {
        case .bool: return "b"
        case .byte: return "y"
        case .int16: return "n"
        case .uint16: return "q"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .string: return "s"
        case .objectPath: return "o"
        case .signature: return "g"
        case .handle: return "h"
        case .variant: return "v"
        case .tuple(let items): return "(" + items.map(\.typeString).joined() + ")"
        case .array(let elementType, _): return "a" + elementType
        case .dictEntry(let key, let value): return "{" + key.typeString + value.typeString + "}"
        }
    }

    /// Whether this is one of the basic types a dictionary key may have.
    var isBasic: Bool {
        switch self {
        case .variant, .tuple, .array, .dictEntry: return false
        default: return true
        }
    }

    /// The GVariant text form (g_variant_print with types), e.g. `('a', uint32 4)`.
    public var description: String { printed }
}
