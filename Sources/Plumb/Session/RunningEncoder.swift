import FoundationEssentials
import Glibc
import GStreamer

/// A video encoder running in a capture session's pipeline now: which element, what it
/// makes and from which branch. Read from the elements themselves (`CaptureSession.runningEncoders`),
/// so it says what runs, not what was configured.
public struct RunningEncoder: Sendable, Equatable {
    /// The factory ("x264enc", "v4l2h264enc").
    public var element: String
    /// "h264" or "h265".
    public var codec: String?
    /// The frames it takes (its sink caps); nil before they are negotiated.
    public var width: Int?
    public var height: Int?
    /// kbit/s as the encoder is set; nil where the element has no plain bitrate property
    /// (the V4L2 encoders take theirs in `extra-controls`).
    public var bitrate: Int?
    /// The branch's output kind (`CaptureOutput.kind`): "recording" (a recording or a
    /// clip), "main" (the main encoding), "stream" (the preview's own encoding).
    public var kind: String
    /// A recording's file (`RecordingOutput.url`); nil for other branches.
    public var file: String?
    /// Whether its frames also feed the main encoding's stream (a recording's encoder that
    /// runs the main encoding: `RecordingOptions.feeds`).
    public var feedsMainEncoding = false

    public init(element: String, codec: String?, width: Int?, height: Int?, bitrate: Int?, kind: String,
                file: String?) {
        self.element = element
        self.codec = codec
        self.width = width
        self.height = height
        self.bitrate = bitrate
        self.kind = kind
        self.file = file
    }

    /// The encoder's facts, nil for an element that is no video encoder (klass without
    /// "Encoder" and "Video": jpegenc is an image encoder).
    init?(_ element: Element, kind: String, file: String?) {
        guard let factory = element.factoryName, let klass = Gst.elementClass(factory),
              klass.contains("Encoder"), klass.contains("Video") else { return nil }
        let input = element.staticPad("sink")?.currentCaps?.structure(at: 0)
        let output = element.staticPad("src")?.currentCaps?.structure(at: 0)?.name
        let codec = output.map { $0.replacing("video/x-", with: "") }
            ?? EncoderCandidate.named(factory)?.codec.rawValue
        self.init(element: factory, codec: codec, width: input?.int("width"), height: input?.int("height"),
                  bitrate: Self.bitrate(of: element, factory: factory), kind: kind, file: file)
    }

    /// The `bitrate` property in kbit/s: openh264enc counts bit/s, x264enc, x265enc and the
    /// VA encoders kbit/s.
    static func bitrate(of element: Element, factory: String) -> Int? {
        guard element.hasProperty("bitrate"), let value = try? element.value(of: "bitrate") else { return nil }
        let number: Int?
        switch value {
        case .int(let v): number = Int(v)
        case .uint(let v): number = Int(v)
        case .int64(let v): number = Int(v)
        case .uint64(let v): number = Int(exactly: v)
        case .integer(let v): number = v
        default: number = nil
        }
        guard let number else { return nil }
        return factory == "openh264enc" ? number / 1000 : number
    }
}

extension CaptureSession {
    /// The video encoders in the attached branches now, in branch order.
    public var runningEncoders: [RunningEncoder] {
        branches.values.sorted { $0.name < $1.name }.flatMap { branch in
            let recording = branch.output as? RecordingOutput
            return branch.bin.allElements.compactMap { element in
                var encoder = RunningEncoder(element, kind: branch.output.kind, file: recording?.url.path)
                encoder?.feedsMainEncoding = recording?.options.feeds != nil
                return encoder
            }
        }
    }
}
