package import CGStreamer
internal import CGStreamerShim

/// One Swift error for every GError, plus Plumb's own failures in the same shape.
public struct GStreamerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The GError domain's quark string, e.g. "gst-resource-error-quark".
    public var domain: String
    public var code: Int
    public var message: String
    /// The debug text of a bus error message, if any.
    public var debug: String?
    /// The path of the element that posted it, e.g. "/GstPipeline:pipeline0/GstV4l2Src:src".
    public var source: String?

    public init(domain: String = GStreamerError.ownDomain, code: Int = 0, message: String,
                debug: String? = nil, source: String? = nil) {
        self.domain = domain
        self.code = code
        self.message = message
        self.debug = debug
        self.source = source
    }

    /// The domain of errors this layer raises itself (not from a GError): see `OwnCode`.
    public static let ownDomain = "plumb-error-quark"
    public static let parseDomain = "gst_parse_error"  // gst_parse_error_quark's string
    public static let resourceDomain = "gst-resource-error-quark"
    public static let coreDomain = "gst-core-error-quark"
    public static let streamDomain = "gst-stream-error-quark"

    /// Takes ownership of a GError (frees it). Package-wide: GStreamerRTSP's errors are GErrors too.
    package init(taking error: UnsafeMutablePointer<GError>?, fallback: String, debug: String? = nil, source: String? = nil) {
        guard let error else {
            self.init(message: fallback, debug: debug, source: source)
            return
        }
        defer { g_error_free(error) }
        self.init(domain: borrowString(g_quark_to_string(error.pointee.domain)) ?? "unknown",
                  code: Int(error.pointee.code),
                  message: borrowString(error.pointee.message) ?? fallback,
                  debug: debug, source: source)
    }

    public var description: String {
        var text = message
        if let source { text = "\(source): \(text)" }
        if let debug, !debug.isEmpty { text += " (\(debug))" }
        return text
    }

    /// The element name at the end of `source`'s path.
    public var sourceName: String? {
        guard let source, let last = source.split(separator: "/").last else { return nil }
        return last.split(separator: ":", maxSplits: 1).last.map(String.init)
    }
}

/// GST_PARSE_ERROR_* codes, for matching `GStreamerError.code` in the parse domain.
public enum ParseErrorCode: Int, Sendable {
    case syntax = 0, noSuchElement, noSuchProperty, link, couldNotSetProperty, emptyBin, empty, delayedLink
}

/// A property could not be read or written: a wrong name or a wrong type is an
/// error here instead of a GLib warning on stderr.
public enum PropertyError: Error, Sendable, Equatable, CustomStringConvertible {
    case noSuchProperty(element: String, property: String)
    case typeMismatch(element: String, property: String, expected: String, given: String)
    case notWritable(element: String, property: String)
    case notReadable(element: String, property: String)
    case invalidValue(element: String, property: String, value: String, expected: String)

    public var description: String {
        switch self {
        case let .noSuchProperty(element, property):
            return "element \"\(element)\" has no property \"\(property)\""
        case let .typeMismatch(element, property, expected, given):
            return "property \"\(property)\" of \"\(element)\" is of type \(expected), not \(given)"
        case let .notWritable(element, property):
            return "property \"\(property)\" of \"\(element)\" is not writable"
        case let .notReadable(element, property):
            return "property \"\(property)\" of \"\(element)\" is not readable"
        case let .invalidValue(element, property, value, expected):
            return "\"\(value)\" is not a valid value for property \"\(property)\" of \"\(element)\" (expected \(expected))"
        }
    }
}
