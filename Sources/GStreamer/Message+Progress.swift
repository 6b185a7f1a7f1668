internal import CGStreamer
import GLib

extension Message {
    /// GstProgressType.
    public enum ProgressKind: Sendable, Equatable { case start, `continue`, complete, canceled, error }

    /// A GST_MESSAGE_PROGRESS: an element's report on a slow asynchronous operation
    /// (rtspclientsink: code "open", "connect", "request" ...).
    public struct Progress: Sendable, Equatable, CustomStringConvertible {
        public var kind: ProgressKind
        public var code: String
        public var text: String
        public var description: String { "\(kind) \(code): \(text)" }
    }

    /// gst_message_parse_progress; nil for other messages.
    public var progress: Progress? {
        guard pointer.pointee.type == GST_MESSAGE_PROGRESS else { return nil }
        var type = GST_PROGRESS_TYPE_START
        var code: UnsafeMutablePointer<gchar>?
        var text: UnsafeMutablePointer<gchar>?
        gst_message_parse_progress(pointer, &type, &code, &text)
        let kind: ProgressKind
        switch type {
        case GST_PROGRESS_TYPE_START: kind = .start
        case GST_PROGRESS_TYPE_CONTINUE: kind = .continue
        case GST_PROGRESS_TYPE_COMPLETE: kind = .complete
        case GST_PROGRESS_TYPE_CANCELED: kind = .canceled
        default: kind = .error
        }
        return Progress(kind: kind, code: takeString(code) ?? "", text: takeString(text) ?? "")
    }
}
