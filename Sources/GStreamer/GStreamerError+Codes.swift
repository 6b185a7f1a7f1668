internal import CGStreamer

/// GStreamer's error codes by name, as swift-system's `Errno` names errno values: a code is
/// matched as `error.resource == .noSpaceLeft`, never as a domain string and an integer.
/// Each value is read from its C constant, so the names cannot drift from the numbers.
extension GStreamerError {
    /// GstResourceError (GST_RESOURCE_ERROR, "gst-resource-error-quark"): a file, a
    /// device, a network resource failed.
    public struct ResourceCode: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        init(_ code: GstResourceError) { rawValue = Int(code.rawValue) }

        /// GST_RESOURCE_ERROR_FAILED
        public static let failed = Self(GST_RESOURCE_ERROR_FAILED)
        /// GST_RESOURCE_ERROR_TOO_LAZY
        public static let tooLazy = Self(GST_RESOURCE_ERROR_TOO_LAZY)
        /// GST_RESOURCE_ERROR_NOT_FOUND
        public static let notFound = Self(GST_RESOURCE_ERROR_NOT_FOUND)
        /// GST_RESOURCE_ERROR_BUSY
        public static let busy = Self(GST_RESOURCE_ERROR_BUSY)
        /// GST_RESOURCE_ERROR_OPEN_READ
        public static let openRead = Self(GST_RESOURCE_ERROR_OPEN_READ)
        /// GST_RESOURCE_ERROR_OPEN_WRITE
        public static let openWrite = Self(GST_RESOURCE_ERROR_OPEN_WRITE)
        /// GST_RESOURCE_ERROR_OPEN_READ_WRITE
        public static let openReadWrite = Self(GST_RESOURCE_ERROR_OPEN_READ_WRITE)
        /// GST_RESOURCE_ERROR_CLOSE
        public static let close = Self(GST_RESOURCE_ERROR_CLOSE)
        /// GST_RESOURCE_ERROR_READ
        public static let read = Self(GST_RESOURCE_ERROR_READ)
        /// GST_RESOURCE_ERROR_WRITE
        public static let write = Self(GST_RESOURCE_ERROR_WRITE)
        /// GST_RESOURCE_ERROR_SEEK
        public static let seek = Self(GST_RESOURCE_ERROR_SEEK)
        /// GST_RESOURCE_ERROR_SYNC
        public static let sync = Self(GST_RESOURCE_ERROR_SYNC)
        /// GST_RESOURCE_ERROR_SETTINGS
        public static let settings = Self(GST_RESOURCE_ERROR_SETTINGS)
        /// GST_RESOURCE_ERROR_NO_SPACE_LEFT: "No space left on the resource", naming neither
        /// the disk nor the file.
        public static let noSpaceLeft = Self(GST_RESOURCE_ERROR_NO_SPACE_LEFT)
        /// GST_RESOURCE_ERROR_NOT_AUTHORIZED
        public static let notAuthorized = Self(GST_RESOURCE_ERROR_NOT_AUTHORIZED)
    }

    /// GstStreamError (GST_STREAM_ERROR, "gst-stream-error-quark"): the data could not be
    /// decoded, encoded, muxed or demuxed, or no element handles its type.
    public struct StreamCode: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        init(_ code: GstStreamError) { rawValue = Int(code.rawValue) }

        /// GST_STREAM_ERROR_FAILED (also what GST_ELEMENT_FLOW_ERROR posts)
        public static let failed = Self(GST_STREAM_ERROR_FAILED)
        /// GST_STREAM_ERROR_TOO_LAZY
        public static let tooLazy = Self(GST_STREAM_ERROR_TOO_LAZY)
        /// GST_STREAM_ERROR_NOT_IMPLEMENTED
        public static let notImplemented = Self(GST_STREAM_ERROR_NOT_IMPLEMENTED)
        /// GST_STREAM_ERROR_TYPE_NOT_FOUND
        public static let typeNotFound = Self(GST_STREAM_ERROR_TYPE_NOT_FOUND)
        /// GST_STREAM_ERROR_WRONG_TYPE
        public static let wrongType = Self(GST_STREAM_ERROR_WRONG_TYPE)
        /// GST_STREAM_ERROR_CODEC_NOT_FOUND
        public static let codecNotFound = Self(GST_STREAM_ERROR_CODEC_NOT_FOUND)
        /// GST_STREAM_ERROR_DECODE
        public static let decode = Self(GST_STREAM_ERROR_DECODE)
        /// GST_STREAM_ERROR_ENCODE
        public static let encode = Self(GST_STREAM_ERROR_ENCODE)
        /// GST_STREAM_ERROR_DEMUX
        public static let demux = Self(GST_STREAM_ERROR_DEMUX)
        /// GST_STREAM_ERROR_MUX
        public static let mux = Self(GST_STREAM_ERROR_MUX)
        /// GST_STREAM_ERROR_FORMAT
        public static let format = Self(GST_STREAM_ERROR_FORMAT)
        /// GST_STREAM_ERROR_DECRYPT
        public static let decrypt = Self(GST_STREAM_ERROR_DECRYPT)
        /// GST_STREAM_ERROR_DECRYPT_NOKEY
        public static let decryptNoKey = Self(GST_STREAM_ERROR_DECRYPT_NOKEY)
    }

    /// GstCoreError (GST_CORE_ERROR, "gst-core-error-quark"): GStreamer's own machinery.
    public struct CoreCode: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        init(_ code: GstCoreError) { rawValue = Int(code.rawValue) }

        /// GST_CORE_ERROR_FAILED
        public static let failed = Self(GST_CORE_ERROR_FAILED)
        /// GST_CORE_ERROR_STATE_CHANGE
        public static let stateChange = Self(GST_CORE_ERROR_STATE_CHANGE)
        /// GST_CORE_ERROR_PAD
        public static let pad = Self(GST_CORE_ERROR_PAD)
        /// GST_CORE_ERROR_NEGOTIATION
        public static let negotiation = Self(GST_CORE_ERROR_NEGOTIATION)
        /// GST_CORE_ERROR_CAPS
        public static let caps = Self(GST_CORE_ERROR_CAPS)
        /// GST_CORE_ERROR_MISSING_PLUGIN
        public static let missingPlugin = Self(GST_CORE_ERROR_MISSING_PLUGIN)
    }

    /// The resource failure this is, or nil for an error of another domain.
    public var resource: ResourceCode? { domain == Self.resourceDomain ? ResourceCode(rawValue: code) : nil }

    /// The stream failure this is, or nil for an error of another domain.
    public var stream: StreamCode? { domain == Self.streamDomain ? StreamCode(rawValue: code) : nil }

    /// The core failure this is, or nil for an error of another domain.
    public var core: CoreCode? { domain == Self.coreDomain ? CoreCode(rawValue: code) : nil }

    /// The gst_parse_launch failure this is, or nil for an error of another domain.
    public var parse: ParseErrorCode? { domain == Self.parseDomain ? ParseErrorCode(rawValue: code) : nil }

    /// The GstFlowReturn of a push that failed (`AppSrc.push`: the stream domain with the
    /// negative flow value as the code), or nil for any other error.
    public var flowReturn: FlowReturn? {
        domain == Self.streamDomain && code < 0 ? FlowReturn(rawValue: Int32(clamping: code)) : nil
    }

    /// An error of GStreamer's resource domain (what an element posts with GST_ELEMENT_ERROR).
    public init(_ code: ResourceCode, message: String, debug: String? = nil, source: String? = nil) {
        self.init(domain: Self.resourceDomain, code: code.rawValue, message: message, debug: debug, source: source)
    }

    /// An error of GStreamer's stream domain.
    public init(_ code: StreamCode, message: String, debug: String? = nil, source: String? = nil) {
        self.init(domain: Self.streamDomain, code: code.rawValue, message: message, debug: debug, source: source)
    }

    /// An error of GStreamer's core domain.
    public init(_ code: CoreCode, message: String, debug: String? = nil, source: String? = nil) {
        self.init(domain: Self.coreDomain, code: code.rawValue, message: message, debug: debug, source: source)
    }
}
