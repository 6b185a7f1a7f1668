/// What a GStreamer element reported, in the engine's terms: its words and which element
/// said it. The GError's domain and code stay below: the engine classifies them into its
/// own cases (`CaptureError.storageFull`, `CameraError.Cause.lost`, ...) where it meets them
/// (`CaptureError+GStreamer.swift`), so nothing above matches GStreamer's numbers.
public struct PipelineFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The element's message, e.g. "Could not write to resource.".
    public var message: String
    /// GStreamer's debug text (where in the element, the system's error), if any.
    public var detail: String?
    /// The path of the element that reported it, e.g. "/GstPipeline:pipeline0/GstBin:branch3/GstX264Enc:encoder".
    public var element: String?
    /// Whether it said the disk is full (GST_RESOURCE_ERROR_NO_SPACE_LEFT, whose message
    /// names neither the disk nor the file): the file's owner says so in words that do.
    public var diskFull: Bool

    public init(message: String, detail: String? = nil, element: String? = nil, diskFull: Bool = false) {
        self.message = message
        self.detail = detail
        self.element = element
        self.diskFull = diskFull
    }

    /// The element name at the end of `element`'s path ("encoder").
    public var elementName: String? {
        guard let element, let last = element.split(separator: "/").last else { return nil }
        return last.split(separator: ":", maxSplits: 1).last.map(String.init)
    }

    public var description: String {
        var text = message
        if let element { text = "\(element): \(text)" }
        if let detail, !detail.isEmpty { text += " (\(detail))" }
        return text
    }
}
