internal import CGio
import Synchronization

/// GLib's log (g_warning, g_critical from g_return_if_fail ...), which GLib and
/// GStreamer print to stderr and otherwise ignore. Plumb's layer turns misuse
/// into thrown errors instead; `capture` lets tests prove nothing leaked through.
public enum GLibLog {
    public struct Entry: Sendable, CustomStringConvertible {
        public var domain: String?
        /// "error", "critical", "warning", "message", "info" or "debug".
        public var level: String
        public var message: String
        public var description: String { "\(domain ?? "-")-\(level.uppercased()): \(message)" }
    }

    fileprivate static let captured = Mutex<[Entry]?>(nil)
    private static let captureLock = Mutex(())

    /// Runs `body` with GLib's default log handler replaced, and returns what was
    /// logged meanwhile (from any thread) instead of printing it. Messages at
    /// error level still abort, as GLib always does. Calls are serialized.
    public static func capture<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> (result: T, entries: [Entry]) {
        try captureLock.withLock { _ throws(E) -> (result: T, entries: [Entry]) in
            captured.withLock { $0 = [] }
            let previous = g_log_set_default_handler(capturingHandler, nil)
            defer {
                g_log_set_default_handler(previous, nil)
            }
            let result = try body()
            let entries = captured.withLock { list -> [Entry] in
                defer { list = nil }
                return list ?? []
            }
            return (result, entries)
        }
    }

    fileprivate static func levelName(_ level: GLogLevelFlags) -> String {
        let l = level.rawValue
        if l & G_LOG_LEVEL_ERROR.rawValue != 0 { return "error" }
        if l & G_LOG_LEVEL_CRITICAL.rawValue != 0 { return "critical" }
        if l & G_LOG_LEVEL_WARNING.rawValue != 0 { return "warning" }
        if l & G_LOG_LEVEL_MESSAGE.rawValue != 0 { return "message" }
        if l & G_LOG_LEVEL_INFO.rawValue != 0 { return "info" }
        return "debug"
    }
}

/// The GLogFunc installed by `GLibLog.capture`: records while a capture runs,
/// otherwise behaves as GLib's default handler (a message may race the restore).
private func capturingHandler(_ domain: UnsafePointer<gchar>?, _ level: GLogLevelFlags,
                              _ message: UnsafePointer<gchar>?, _ userData: gpointer?) {
    let entry = GLibLog.Entry(domain: domain.map { String(cString: $0) }, level: GLibLog.levelName(level),
                              message: message.map { String(cString: $0) } ?? "")
    let kept = GLibLog.captured.withLock { list -> Bool in
        guard list != nil else { return false }
        list!.append(entry)
        return true
    }
    if !kept { g_log_default_handler(domain, level, message, nil) }
}
