import Foundation

/// The threads of this process right now (the engine's and the gpsd client's tests count them).
public var threadCount: Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
}

/// The names of the threads of process `pid` (/proc/PID/task/*/comm, at most 15 bytes each):
/// a GStreamer element's streaming thread is "ELEMENT:PAD" ("src:src" for a camera source).
public func threadNames(of pid: pid_t) -> [String] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    return tasks.compactMap { try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/comm", encoding: .utf8) }
        .map { $0.trimmingCharacters(in: .newlines) }
}
