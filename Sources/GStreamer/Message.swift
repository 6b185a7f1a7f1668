internal import CGStreamer
import GLib

/// An owned GstMessage.
public final class Message: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<GstMessage>

    init(retaining pointer: UnsafeMutablePointer<GstMessage>) {
        gst_mini_object_ref(cast(pointer))
        self.pointer = pointer
    }

    deinit { gst_mini_object_unref(cast(pointer)) }

    /// gst_message_type_get_name: "error", "eos", "state-changed" ...
    public var typeName: String { borrowString(gst_message_type_get_name(pointer.pointee.type)) ?? "?" }

    /// The posting object's path.
    public var sourcePath: String {
        guard let src = pointer.pointee.src else { return "" }
        return takeString(gst_object_get_path_string(src)) ?? ""
    }

    public var sourceName: String {
        guard let src = pointer.pointee.src else { return "" }
        return takeString(gst_object_get_name(src)) ?? ""
    }

    /// The error of an ERROR message (or a WARNING's), with debug text and source path.
    var error: GStreamerError? {
        var gerror: UnsafeMutablePointer<GError>?
        var debug: UnsafeMutablePointer<gchar>?
        switch pointer.pointee.type {
        case GST_MESSAGE_ERROR: gst_message_parse_error(pointer, &gerror, &debug)
        case GST_MESSAGE_WARNING: gst_message_parse_warning(pointer, &gerror, &debug)
        default: return nil
        }
        return GStreamerError(taking: gerror, fallback: "unknown error", debug: takeString(debug), source: sourcePath)
    }

    /// The typed form.
    public var typed: BusMessage {
        switch pointer.pointee.type {
        case GST_MESSAGE_ERROR:
            return .error(error!)
        case GST_MESSAGE_WARNING:
            return .warning(error!)
        case GST_MESSAGE_EOS:
            return .eos(source: sourcePath)
        case GST_MESSAGE_STATE_CHANGED:
            var old = GST_STATE_VOID_PENDING, new = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
            gst_message_parse_state_changed(pointer, &old, &new, &pending)
            return .stateChanged(source: sourcePath, old: State(old), new: State(new), pending: State(pending),
                                 isPipeline: pointer.pointee.src.map { isPipelineObject($0) } ?? false)
        case GST_MESSAGE_ELEMENT:
            let s = gst_message_get_structure(pointer).map { Structure(copying: $0) }
            return .element(source: sourcePath, structure: s)
        default:
            return .other(type: typeName, source: sourcePath)
        }
    }
}

private func isPipelineObject(_ object: UnsafeMutablePointer<GstObject>) -> Bool {
    // A pipeline is the top of its hierarchy; G_TYPE_CHECK_INSTANCE_TYPE is a macro, so compare types.
    let instance: UnsafeMutablePointer<GTypeInstance> = cast(object)
    return g_type_is_a(instance.pointee.g_class.pointee.g_type, gst_pipeline_get_type()) != 0
}

/// A bus message in Swift terms.
public enum BusMessage: Sendable, CustomStringConvertible {
    case error(GStreamerError)
    case warning(GStreamerError)
    case eos(source: String)
    /// `isPipeline`: the message is about the top-level pipeline itself.
    case stateChanged(source: String, old: State, new: State, pending: State, isPipeline: Bool)
    case element(source: String, structure: Structure?)
    case other(type: String, source: String)

    public var description: String {
        switch self {
        case .error(let e): return "error: \(e)"
        case .warning(let e): return "warning: \(e)"
        case .eos(let s): return "eos from \(s)"
        case let .stateChanged(s, old, new, _, _): return "\(s): \(old) -> \(new)"
        case let .element(s, st): return "element message from \(s): \(st?.description ?? "")"
        case let .other(t, s): return "\(t) from \(s)"
        }
    }
}
