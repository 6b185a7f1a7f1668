internal import CGStreamer
import GLib
internal import CGStreamerShim

/// Typed property access. A wrong name, a wrong type or a value out of range
/// throws a `PropertyError` before GLib would print a warning and ignore it.
extension Object {
    public func set<T: PropertyConvertible>(_ name: String, _ value: T) throws(PropertyError) {
        try setValue(name, value.propertyValue)
    }

    public func get<T: PropertyConvertible>(_ name: String, as type: T.Type = T.self) throws(PropertyError) -> T {
        let value = try value(of: name)
        guard let typed = T(propertyValue: value) else {
            let spec = try findSpec(name)
            var given = String(describing: T.self)
            if value == .string(nil) { given += " (the property is NULL: read it as String?)" }
            throw .typeMismatch(element: self.name, property: name,
                                expected: gtypeName(spec.pointee.value_type), given: given)
        }
        return typed
    }

    /// Whether the object has a property of that name.
    public func hasProperty(_ name: String) -> Bool {
        plumb_object_find_property(raw, name) != nil
    }

    /// Sets a property from its gst-launch text form ("ball", "30", "video/x-raw,width=640"),
    /// the way a pipeline description does — gst_value_deserialize_with_pspec.
    public func set(_ name: String, parsing text: String) throws(PropertyError) {
        let spec = try findSpec(name, writable: true)
        var value = GValue()
        g_value_init(&value, spec.pointee.value_type)
        defer { g_value_unset(&value) }
        guard gst_value_deserialize_with_pspec(&value, text, spec) != 0 else {
            throw .invalidValue(element: self.name, property: name, value: text, expected: expectedText(spec))
        }
        try checkRange(spec, &value, text: text)
        g_object_set_property(cast(raw), name, &value)
    }

    /// The property's type name ("gint", "GstVideoTestSrcPattern"), or nil if there is no such property.
    public func propertyTypeName(_ name: String) -> String? {
        guard let spec = plumb_object_find_property(raw, name) else { return nil }
        return gtypeName(spec.pointee.value_type)
    }

    public func setValue(_ name: String, _ value: PropertyValue) throws(PropertyError) {
        let spec = try findSpec(name, writable: true)
        let type = spec.pointee.value_type
        let fundamental = g_type_fundamental(type)
        var gvalue = GValue()
        g_value_init(&gvalue, type)
        defer { g_value_unset(&gvalue) }
        let mismatch = PropertyError.typeMismatch(element: self.name, property: name,
                                                  expected: gtypeName(type), given: value.typeName)
        switch value {
        case .bool(let v):
            guard fundamental == plumb_type_boolean() else { throw mismatch }
            g_value_set_boolean(&gvalue, v ? 1 : 0)
        case .int(let v):
            guard fundamental == plumb_type_int() else { throw mismatch }
            g_value_set_int(&gvalue, v)
        case .uint(let v):
            guard fundamental == plumb_type_uint() else { throw mismatch }
            g_value_set_uint(&gvalue, v)
        case .int64(let v):
            guard fundamental == plumb_type_int64() else { throw mismatch }
            g_value_set_int64(&gvalue, gint64(v))
        case .uint64(let v):
            guard fundamental == plumb_type_uint64() else { throw mismatch }
            g_value_set_uint64(&gvalue, guint64(v))
        case .integer(let v):
            let outOfRange = PropertyError.invalidValue(element: self.name, property: name,
                                                        value: String(v), expected: expectedText(spec))
            switch fundamental {
            case plumb_type_int():
                guard let x = Int32(exactly: v) else { throw outOfRange }
                g_value_set_int(&gvalue, x)
            case plumb_type_uint():
                guard let x = UInt32(exactly: v) else { throw outOfRange }
                g_value_set_uint(&gvalue, x)
            case plumb_type_long():
                g_value_set_long(&gvalue, v)
            case plumb_type_ulong():
                guard let x = UInt(exactly: v) else { throw outOfRange }
                g_value_set_ulong(&gvalue, x)
            case plumb_type_int64():
                g_value_set_int64(&gvalue, gint64(v))
            case plumb_type_uint64():
                guard let x = UInt64(exactly: v) else { throw outOfRange }
                g_value_set_uint64(&gvalue, guint64(x))
            default:
                throw mismatch
            }
        case .double(let v):
            if fundamental == plumb_type_double() {
                g_value_set_double(&gvalue, v)
            } else if fundamental == plumb_type_float() {
                g_value_set_float(&gvalue, Float(v))
            } else {
                throw mismatch
            }
        case .string(let v):
            guard fundamental == plumb_type_string() else { throw mismatch }
            g_value_set_string(&gvalue, v)
        case .enumNick(let nick):
            guard fundamental == plumb_type_enum() else { throw mismatch }
            guard let number = enumValue(type, nick: nick) else {
                throw .invalidValue(element: self.name, property: name, value: nick, expected: expectedText(spec))
            }
            g_value_set_enum(&gvalue, number)
        case .caps(let caps):
            guard g_type_is_a(type, gst_caps_get_type()) != 0 else { throw mismatch }
            g_value_set_boxed(&gvalue, caps.pointer)
        }
        try checkRange(spec, &gvalue, text: value.description)
        g_object_set_property(cast(raw), name, &gvalue)
    }

    public func value(of name: String) throws(PropertyError) -> PropertyValue {
        let spec = try findSpec(name, readable: true)
        let type = spec.pointee.value_type
        var gvalue = GValue()
        g_value_init(&gvalue, type)
        defer { g_value_unset(&gvalue) }
        g_object_get_property(cast(raw), name, &gvalue)
        switch g_type_fundamental(type) {
        case plumb_type_boolean(): return .bool(g_value_get_boolean(&gvalue) != 0)
        case plumb_type_int(): return .int(g_value_get_int(&gvalue))
        case plumb_type_uint(): return .uint(g_value_get_uint(&gvalue))
        case plumb_type_long(): return .int64(Int64(g_value_get_long(&gvalue)))
        case plumb_type_ulong(): return .uint64(UInt64(g_value_get_ulong(&gvalue)))
        case plumb_type_int64(): return .int64(Int64(g_value_get_int64(&gvalue)))
        case plumb_type_uint64(): return .uint64(UInt64(g_value_get_uint64(&gvalue)))
        case plumb_type_float(): return .double(Double(g_value_get_float(&gvalue)))
        case plumb_type_double(): return .double(g_value_get_double(&gvalue))
        case plumb_type_string(): return .string(borrowString(g_value_get_string(&gvalue)))
        case plumb_type_enum():
            return .enumNick(enumNick(type, value: g_value_get_enum(&gvalue)) ?? String(g_value_get_enum(&gvalue)))
        case plumb_type_flags():
            // Nicks joined by "+", the text `set(_:parsing:)` and gst-launch accept
            // (gst_value_serialize would give the long names, "Zero latency").
            return .string(flagNicks(type, value: g_value_get_flags(&gvalue)))
        default:
            if g_type_is_a(type, gst_caps_get_type()) != 0 {
                guard let caps = g_value_get_boxed(&gvalue) else { return .caps(Caps.any) }
                return .caps(Caps(retaining: caps.assumingMemoryBound(to: GstCaps.self)))
            }
            // Any other type: its serialized text form.
            return .string(takeString(gst_value_serialize(&gvalue)))
        }
    }

    // MARK: - Helpers

    func findSpec(_ name: String, writable: Bool = false, readable: Bool = false) throws(PropertyError)
        -> UnsafeMutablePointer<GParamSpec>
    {
        guard let spec = plumb_object_find_property(raw, name) else {
            throw .noSuchProperty(element: self.name, property: name)
        }
        let flags = spec.pointee.flags.rawValue
        if writable && flags & G_PARAM_WRITABLE.rawValue == 0 {
            throw .notWritable(element: self.name, property: name)
        }
        if readable && flags & G_PARAM_READABLE.rawValue == 0 {
            throw .notReadable(element: self.name, property: name)
        }
        return spec
    }

    private func checkRange(_ spec: UnsafeMutablePointer<GParamSpec>, _ value: inout GValue, text: String)
        throws(PropertyError)
    {
        // g_param_value_validate clamps the value and returns TRUE when it had to.
        if g_param_value_validate(spec, &value) != 0 {
            throw .invalidValue(element: name, property: borrowString(spec.pointee.name) ?? "?",
                                value: text, expected: expectedText(spec))
        }
    }
}

func gtypeName(_ type: GType) -> String {
    borrowString(g_type_name(type)) ?? "?"
}

private func enumValue(_ type: GType, nick: String) -> Int32? {
    guard let klass = g_type_class_ref(type) else { return nil }
    defer { g_type_class_unref(klass) }
    let enumClass: UnsafeMutablePointer<GEnumClass> = cast(klass)
    if let v = g_enum_get_value_by_nick(enumClass, nick) ?? g_enum_get_value_by_name(enumClass, nick) {
        return v.pointee.value
    }
    return Int32(nick).flatMap { g_enum_get_value(enumClass, $0) != nil ? $0 : nil }
}

private func enumNick(_ type: GType, value: Int32) -> String? {
    guard let klass = g_type_class_ref(type) else { return nil }
    defer { g_type_class_unref(klass) }
    return g_enum_get_value(cast(klass), value).flatMap { borrowString($0.pointee.value_nick) }
}

private func flagNicks(_ type: GType, value: guint) -> String {
    guard let klass = g_type_class_ref(type) else { return String(value) }
    defer { g_type_class_unref(klass) }
    let flagsClass: UnsafeMutablePointer<GFlagsClass> = cast(klass)
    let all = (0..<Int(flagsClass.pointee.n_values)).map { flagsClass.pointee.values[$0] }
    if value == 0 { return all.first { $0.value == 0 }.flatMap { borrowString($0.value_nick) } ?? "" }
    var rest = value
    var nicks: [String] = []
    for flag in all where flag.value != 0 && value & flag.value == flag.value && rest & flag.value != 0 {
        nicks.append(borrowString(flag.value_nick) ?? String(flag.value))
        rest &= ~flag.value
    }
    if rest != 0 { nicks.append("0x" + String(rest, radix: 16)) }
    return nicks.joined(separator: "+")
}

/// What a property accepts, for error messages: the enum nicks or the numeric range.
func expectedText(_ spec: UnsafeMutablePointer<GParamSpec>) -> String {
    let type = spec.pointee.value_type
    let specType = gtypeName(spec.pointee.g_type_instance.g_class.pointee.g_type)
    let raw = UnsafeMutableRawPointer(spec)
    switch specType {
    case "GParamInt":
        let s: UnsafeMutablePointer<GParamSpecInt> = cast(raw)
        return "gint from \(s.pointee.minimum) to \(s.pointee.maximum)"
    case "GParamUInt":
        let s: UnsafeMutablePointer<GParamSpecUInt> = cast(raw)
        return "guint from \(s.pointee.minimum) to \(s.pointee.maximum)"
    case "GParamInt64":
        let s: UnsafeMutablePointer<GParamSpecInt64> = cast(raw)
        return "gint64 from \(s.pointee.minimum) to \(s.pointee.maximum)"
    case "GParamUInt64":
        let s: UnsafeMutablePointer<GParamSpecUInt64> = cast(raw)
        return "guint64 from \(s.pointee.minimum) to \(s.pointee.maximum)"
    case "GParamFloat":
        let s: UnsafeMutablePointer<GParamSpecFloat> = cast(raw)
        return "gfloat from \(s.pointee.minimum) to \(s.pointee.maximum)"
    case "GParamDouble":
        let s: UnsafeMutablePointer<GParamSpecDouble> = cast(raw)
        return "gdouble from \(s.pointee.minimum) to \(s.pointee.maximum)"
    case "GParamBoolean":
        return "true or false"
    case "GParamEnum":
        guard let klass = g_type_class_ref(type) else { return gtypeName(type) }
        defer { g_type_class_unref(klass) }
        let enumClass: UnsafeMutablePointer<GEnumClass> = cast(klass)
        let nicks = (0..<Int(enumClass.pointee.n_values)).compactMap {
            borrowString(enumClass.pointee.values[$0].value_nick)
        }
        return "one of: " + nicks.joined(separator: ", ")
    default:
        return gtypeName(type)
    }
}

extension Object {
    /// Whether the property holds an object (an element, a clock ...): gst-launch
    /// builds those from text itself, so their text form cannot be checked here.
    public func propertyHoldsObject(_ name: String) -> Bool {
        guard let spec = plumb_object_find_property(raw, name) else { return false }
        let fundamental = g_type_fundamental(spec.pointee.value_type)
        return fundamental == g_type_fundamental(g_object_get_type()) || fundamental == g_type_fundamental(g_type_from_name("GInterface"))
    }
}
