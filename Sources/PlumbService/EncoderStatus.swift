import FoundationEssentials
import Glibc
import Plumb

/// Which encoders the daemon's preview and recordings use and why the better ones were
/// not: `GET /status`'s `encoders`, and the log at start. Chosen once at start, the way
/// each branch chooses (`EncoderChoice`). `Running` is one encoder running at the moment
/// of a request and what it feeds (`GET /status`'s `running_encoders`).
public struct EncoderStatus: Sendable, Equatable, Encodable {
    /// One encoder running now (`RunningEncoder`) and the outputs it feeds: "recording",
    /// "clip", "ring" (the pre-record ring, and event clips from it), "event-clip" (one
    /// written with `pre-seconds = 0`), "rtsp", "whep", "publish" (an encoded preview with no
    /// one on it, lingering, feeds nothing). The main encoding feeds "ring" or "event-clip"
    /// and, while the preview shares it, the preview's consumers.
    public struct Running: Sendable, Equatable, Encodable {
        public var element: String
        public var codec: String?
        public var width: Int?
        public var height: Int?
        /// kbit/s; nil when the element does not say it in a `bitrate` property.
        public var bitrate: Int?
        public var feeds: [String]

        public init(element: String, codec: String?, width: Int?, height: Int?, bitrate: Int?, feeds: [String]) {
            self.element = element
            self.codec = codec
            self.width = width
            self.height = height
            self.bitrate = bitrate
            self.feeds = feeds
        }

        /// `previewFeeds`: who takes the preview's own encoder now; `mainFeeds`: the main encoding.
        init(_ encoder: RunningEncoder, previewFeeds: [String], mainFeeds: [String] = []) {
            let feeds: [String]
            switch encoder.kind {
            case "recording":
                let name = encoder.file.map { URL(fileURLWithPath: $0).lastPathComponent } ?? ""
                feeds = [name.hasPrefix(SessionBackend.clipPrefix) ? "clip" : "recording"]
                    + (encoder.feedsMainEncoding ? mainFeeds : [])
            case "stream": feeds = previewFeeds
            case "main": feeds = mainFeeds
            default: feeds = [encoder.kind]
            }
            self.init(element: encoder.element, codec: encoder.codec, width: encoder.width, height: encoder.height,
                      bitrate: encoder.bitrate, feeds: feeds)
        }
    }

    public struct Use: Sendable, Equatable, Encodable {
        /// The encoder that runs; nil when none can (then `error` says why).
        public var encoder: String?
        public var codec: String?
        /// "NAME: why" for each better candidate passed over.
        public var passedOver: [String]
        /// A better encoder is here but failed to start.
        public var fallback: Bool
        public var error: String?

        enum CodingKeys: String, CodingKey {
            case encoder, codec, passedOver = "passed_over", fallback, error
        }

        init(_ result: () throws -> EncoderChoice) {
            do {
                let choice = try result()
                self.init(encoder: choice.encoder, codec: choice.codec.rawValue, passedOver: choice.passedOver,
                          fallback: choice.fellBack, error: nil)
            } catch {
                self.init(encoder: nil, codec: nil, passedOver: [], fallback: false, error: "\(error)")
            }
        }

        init(encoder: String?, codec: String?, passedOver: [String], fallback: Bool, error: String?) {
            self.encoder = encoder
            self.codec = codec
            self.passedOver = passedOver
            self.fallback = fallback
            self.error = error
        }

        /// For the log: "x264enc (h264); passed over: v4l2h264enc: element missing ...".
        var line: String {
            guard let encoder else { return "none: \(error ?? "?")" }
            return "\(encoder) (\(codec ?? "?"))" + (passedOver.isEmpty ? "" : "; passed over: " + passedOver.joined(separator: "; "))
        }
    }

    public var preview: Use
    public var recording: Use

    public static func choose(for config: ServeConfig) -> EncoderStatus {
        EncoderStatus(
            preview: Use { try EncoderChoice.choose(.h264, preference: config.preview.encoder, sameCodec: true) },
            recording: Use { try EncoderChoice.choose(config.recording.codec, preference: config.recording.encoder) })
    }

    /// "[group] encoder = NAME: why it cannot run" for a named encoder that cannot; nil otherwise.
    public func namedProblem(for config: ServeConfig) -> String? {
        if case .named(let name) = config.preview.encoder, let error = preview.error {
            return "[preview] encoder = \(name): \(error); use auto or an encoder `plumb encoders` lists as available"
        }
        if case .named(let name) = config.recording.encoder, let error = recording.error {
            return "[recording] encoder = \(name): \(error); use auto or an encoder `plumb encoders` lists as available"
        }
        return nil
    }

    /// The log lines at start.
    public var logLines: [String] {
        ["encoder: preview uses \(preview.line)", "encoder: recordings use \(recording.line)"]
    }
}
