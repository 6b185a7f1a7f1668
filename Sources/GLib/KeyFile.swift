internal import CGio
import FoundationEssentials
import Glibc

/// An owned GKeyFile: GLib's INI-style parser ("desktop entry" syntax: `[group]`,
/// `key=value`, `#` comments). Used for Plumb's configuration file.
///
/// Values are returned as strings (`g_key_file_get_string`, which undoes the
/// `\s \n \t \r \\` escapes); typed interpretation is the caller's job, so that
/// every bad value can be reported with the accepted values instead of GLib's
/// generic message.
///
/// Not Sendable: a GKeyFile is not thread-safe. Load, read, drop.
public final class KeyFile {
    private let pointer: OpaquePointer

    /// g_key_file_new
    public init() {
        pointer = g_key_file_new()
    }

    deinit { g_key_file_unref(pointer) }

    /// GKeyFileError codes (g_key_file_error_quark), to match `GLibError.code`.
    public enum ErrorCode: Int, Sendable {
        case unknownEncoding = 0, parse, notFound, keyNotFound, groupNotFound, invalidValue
    }

    /// The quark string of GKeyFile errors.
    public static let errorDomain = "g-key-file-error-quark"
    /// The quark string of GFileError (a missing or unreadable file).
    public static let fileErrorDomain = "g-file-error-quark"

    /// g_key_file_load_from_file. Throws a GFileError (missing, unreadable) or a
    /// GKeyFileError (syntax).
    public func load(path: String) throws(GLibError) {
        var error: UnsafeMutablePointer<GError>?
        if g_key_file_load_from_file(pointer, path, G_KEY_FILE_NONE, &error) == 0 {
            throw GLibError(taking: error, fallback: "cannot load \(path)")
        }
    }

    /// g_key_file_load_from_data.
    public func load(text: String) throws(GLibError) {
        var error: UnsafeMutablePointer<GError>?
        let bytes = Array(text.utf8)
        let ok = bytes.withUnsafeBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { c in
                g_key_file_load_from_data(pointer, c.baseAddress, gsize(c.count), G_KEY_FILE_NONE, &error)
            }
        }
        if ok == 0 { throw GLibError(taking: error, fallback: "cannot parse key file") }
    }

    /// g_key_file_get_groups, in file order.
    public var groups: [String] {
        takeStrv(g_key_file_get_groups(pointer, nil))
    }

    /// g_key_file_get_keys, in file order; empty for a group that does not exist.
    public func keys(in group: String) -> [String] {
        var error: UnsafeMutablePointer<GError>?
        let keys = g_key_file_get_keys(pointer, group, nil, &error)
        if let error { g_error_free(error) }
        return takeStrv(keys)
    }

    /// g_key_file_has_group
    public func hasGroup(_ group: String) -> Bool {
        g_key_file_has_group(pointer, group) != 0
    }

    /// g_key_file_get_string: the unescaped value, nil when the group or key is
    /// missing. Throws when the value holds an invalid escape sequence. GKeyFile
    /// drops the whitespace before a value but keeps the whitespace after it.
    ///
    /// Localized keys (`key[de]`) are not listed by `keys(in:)` nor read here.
    public func string(group: String, key: String) throws(GLibError) -> String? {
        guard g_key_file_has_group(pointer, group) != 0,
              g_key_file_has_key(pointer, group, key, nil) != 0 else { return nil }
        var error: UnsafeMutablePointer<GError>?
        // On a bad escape GLib sets the error *and* returns a string: the error wins.
        let value = takeString(g_key_file_get_string(pointer, group, key, &error))
        if error != nil || value == nil {
            throw GLibError(taking: error, fallback: "cannot read [\(group)] \(key)")
        }
        return value
    }

    /// g_key_file_get_value: the raw text after `=`, escapes untouched.
    public func rawValue(group: String, key: String) -> String? {
        var error: UnsafeMutablePointer<GError>?
        let value = g_key_file_get_value(pointer, group, key, &error)
        if let error { g_error_free(error) }
        return takeString(value)
    }

    /// g_key_file_set_string (escapes as needed); creates the group.
    public func setString(_ value: String, group: String, key: String) {
        g_key_file_set_string(pointer, group, key, value)
    }

    /// g_key_file_set_comment: a comment above `key`, or above the group when
    /// `key` is nil. Each line is written with a leading `#`.
    public func setComment(_ comment: String, group: String, key: String? = nil) {
        var error: UnsafeMutablePointer<GError>?
        _ = g_key_file_set_comment(pointer, group, key, comment, &error)
        if let error { g_error_free(error) }
    }

    /// g_key_file_to_data: the file's text.
    public var text: String {
        takeString(g_key_file_to_data(pointer, nil, nil)) ?? ""
    }
}

/// Copies a NULL-terminated, transfer-full `gchar **` and frees it (g_strfreev).
private func takeStrv(_ strv: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> [String] {
    guard let strv else { return [] }
    defer { g_strfreev(strv) }
    var result: [String] = []
    var i = 0
    while let s = strv[i] {
        result.append(String(cString: s))
        i += 1
    }
    return result
}
