internal import CGio

// Converting a Variant to and from a GVariant. Values are checked in Swift first: GLib
// meets a malformed one (an array element of another type, a bad object path) with a
// critical and a NULL, not an error.

extension Variant {
    /// Parses GVariant text (g_variant_parse), e.g. `('a', uint32 4)` or `{'k': <true>}`,
    /// as `type` when given ("a{sv}"), else as the text's own type.
    public init(parsing text: String, type: String? = nil) throws(GLibError) {
        if let type, g_variant_type_string_is_valid(type) == 0 {
            throw .invalidArgument("\"\(type)\" is not a GVariant type")
        }
        let gtype = type.map { g_variant_type_new($0) }
        defer { if let gtype { g_variant_type_free(gtype) } }
        var error: UnsafeMutablePointer<GError>?
        guard let value = g_variant_parse(gtype ?? nil, text, nil, nil, &error) else {
            throw GLibError(taking: error, fallback: "cannot parse \(text)")
        }
        defer { g_variant_unref(value) }
        try self.init(reading: value)
    }

    /// GLib's text form of the value (g_variant_print, with type annotations where the
    /// text alone would not say it), e.g. `('a', uint32 4)`; for a malformed value, why.
    public var printed: String {
        do {
            let value = try makeGVariant()
            defer { g_variant_unref(value) }
            return takeString(g_variant_print(value, 1)) ?? ""
        } catch {
            return "<invalid \(typeString): \(error.message)>"
        }
    }

    /// A new GVariant for this value, which the caller owns (sunk: not floating).
    func makeGVariant() throws(GLibError) -> OpaquePointer {
        try validate(insideArray: false)
        return g_variant_ref_sink(makeFloating())
    }

    /// Copies a GVariant (borrowed) into Swift.
    init(reading value: OpaquePointer) throws(GLibError) {
        let type = String(cString: g_variant_get_type_string(value))
        switch type.first {
        case "b": self = .bool(g_variant_get_boolean(value) != 0)
        case "y": self = .byte(g_variant_get_byte(value))
        case "n": self = .int16(g_variant_get_int16(value))
        case "q": self = .uint16(g_variant_get_uint16(value))
        case "i": self = .int32(g_variant_get_int32(value))
        case "u": self = .uint32(g_variant_get_uint32(value))
        case "x": self = .int64(Int64(g_variant_get_int64(value)))
        case "t": self = .uint64(UInt64(g_variant_get_uint64(value)))
        case "d": self = .double(g_variant_get_double(value))
        case "s": self = .string(String(cString: g_variant_get_string(value, nil)))
        case "o": self = .objectPath(String(cString: g_variant_get_string(value, nil)))
        case "g": self = .signature(String(cString: g_variant_get_string(value, nil)))
        case "h": self = .handle(g_variant_get_handle(value))
        case "v":
            let inner = g_variant_get_variant(value)!
            defer { g_variant_unref(inner) }
            self = .variant(try Variant(reading: inner))
        case "(": self = .tuple(try Self.children(of: value))
        case "a": self = .array(elementType: String(type.dropFirst()), try Self.children(of: value))
        case "{":
            let entry = try Self.children(of: value)
            self = .dictEntry(key: entry[0], value: entry[1])
        default:
            // Maybe types ("m…"): GVariant has them, D-Bus does not.
            throw .invalidArgument("a value of type \(type) has no D-Bus form")
        }
    }

    private static func children(of value: OpaquePointer) throws(GLibError) -> [Variant] {
        var items: [Variant] = []
        for i in 0..<g_variant_n_children(value) {
            let child = g_variant_get_child_value(value, i)!
            defer { g_variant_unref(child) }
            items.append(try Variant(reading: child))
        }
        return items
    }

    /// Throws what GLib would reject with a critical.
    func validate(insideArray: Bool) throws(GLibError) {
        switch self {
        case .string(let s):
            if s.utf8.contains(0) { throw .invalidArgument("the string \(s.debugDescription) holds a NUL byte") }
        case .objectPath(let p):
            guard !p.utf8.contains(0), g_variant_is_object_path(p) != 0 else {
                throw .invalidArgument("\(p.debugDescription) is not a D-Bus object path")
            }
        case .signature(let s):
            guard !s.utf8.contains(0), g_variant_is_signature(s) != 0 else {
                throw .invalidArgument("\(s.debugDescription) is not a D-Bus signature")
            }
        case .variant(let inner):
            try inner.validate(insideArray: false)
        case .tuple(let items):
            for item in items { try item.validate(insideArray: false) }
        case .array(let elementType, let items):
            try Self.checkDBusType(elementType)
            for item in items {
                guard item.typeString == elementType else {
                    throw .invalidArgument("an array of \(elementType) holds a value of type \(item.typeString)")
                }
                try item.validate(insideArray: true)
            }
        case .dictEntry(let key, let value):
            guard insideArray else { throw .invalidArgument("a dictionary entry outside an array") }
            guard key.isBasic else { throw .invalidArgument("a dictionary key of type \(key.typeString), not a basic type") }
            try key.validate(insideArray: false)
            try value.validate(insideArray: false)
        default:
            break
        }
    }

    /// One complete type in D-Bus's part of the GVariant type system: no maybe types, no
    /// indefinite ones ("*", "?", "r").
    static func checkDBusType(_ type: String) throws(GLibError) {
        guard !type.utf8.contains(0), g_variant_type_string_is_valid(type) != 0,
              type.allSatisfy({ "bynqiuxtdsoghva(){}".contains($0) }) else {
            throw .invalidArgument("\"\(type)\" is not a D-Bus type")
        }
    }

    /// A new floating GVariant (`validate` first: GLib asserts what it checks).
    private func makeFloating() -> OpaquePointer {
        switch self {
        case .bool(let b): return g_variant_new_boolean(b ? 1 : 0)
        case .byte(let v): return g_variant_new_byte(v)
        case .int16(let v): return g_variant_new_int16(v)
        case .uint16(let v): return g_variant_new_uint16(v)
        case .int32(let v): return g_variant_new_int32(v)
        case .uint32(let v): return g_variant_new_uint32(v)
        case .int64(let v): return g_variant_new_int64(gint64(v))
        case .uint64(let v): return g_variant_new_uint64(guint64(v))
        case .double(let v): return g_variant_new_double(v)
        case .string(let s): return g_variant_new_string(s)
        case .objectPath(let s): return g_variant_new_object_path(s)
        case .signature(let s): return g_variant_new_signature(s)
        case .handle(let v): return g_variant_new_handle(v)
        case .variant(let inner): return g_variant_new_variant(inner.makeFloating())
        case .tuple(let items):
            // The container takes over the floating children.
            let children: [OpaquePointer?] = items.map { $0.makeFloating() }
            return children.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
        case .array(let elementType, let items):
            let type = g_variant_type_new(elementType)
            defer { g_variant_type_free(type) }
            let children: [OpaquePointer?] = items.map { $0.makeFloating() }
            return children.withUnsafeBufferPointer { g_variant_new_array(type, $0.baseAddress, gsize($0.count)) }
        case .dictEntry(let key, let value):
            return g_variant_new_dict_entry(key.makeFloating(), value.makeFloating())
        }
    }
}
