import Foundation
import Synchronization
import XCTest

/// Runs the built `plumb` (or another program) and collects what it printed.
public struct ProcessResult {
    public var code: Int32
    public var stdout: String
    public var stderr: String
    /// stdout as bytes (a JPEG written to `-o -`).
    public var stdoutData = Data()
}

public enum PlumbProcess {
    /// The package root, from this file's path.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The `plumb` binary next to the test bundle (PLUMB_BIN overrides).
    public static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["PLUMB_BIN"] { return URL(fileURLWithPath: path) }
        return Bundle.main.bundleURL.appendingPathComponent("plumb")
    }

    /// Starts a process (with `environment` added to this one's); the caller waits or signals it.
    public static func start(_ executable: URL, _ args: [String], cwd: URL? = nil,
                             environment: [String: String] = [:]) throws -> (Process, Pipe, Pipe) {
        let p = Process()
        p.executableURL = executable
        p.arguments = args
        if !environment.isEmpty {
            p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        p.currentDirectoryURL = cwd ?? root
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        watchExit(p)
        try p.run()
        return (p, out, err)
    }

    /// Waits at most `timeout` seconds, then kills; returns the outputs.
    public static func finish(_ p: Process, _ out: Pipe, _ err: Pipe, timeout: TimeInterval) -> ProcessResult {
        // Read while waiting so a full pipe never blocks the child.
        final class Sink: @unchecked Sendable { var data = Data(); let lock = NSLock() }
        let o = Sink(), e = Sink()
        let group = DispatchGroup()
        for (pipe, sink) in [(out, o), (err, e)] {
            group.enter()
            DispatchQueue.global().async {
                let d = pipe.fileHandleForReading.readDataToEndOfFile()
                sink.lock.withLock { sink.data = d }
                group.leave()
            }
        }
        if !waitForExit(p, timeout: timeout) {
            p.terminate()
            if !waitForExit(p, timeout: 0.5) { kill(p.processIdentifier, SIGKILL) }
            XCTFail("\(p.executableURL?.lastPathComponent ?? "?") \(p.arguments ?? []) did not finish within \(timeout) s")
        }
        p.waitUntilExit()
        group.wait()
        return ProcessResult(code: p.terminationStatus,
                             stdout: String(decoding: o.data, as: UTF8.self),
                             stderr: String(decoding: e.data, as: UTF8.self),
                             stdoutData: o.data)
    }

    /// The exits of processes, signalled by their termination handler (`watchExit`).
    private static let exits = Mutex<[ObjectIdentifier: DispatchSemaphore]>([:])

    /// Call before `p.run()`: `waitForExit` then wakes when it exits (this sets its
    /// termination handler).
    public static func watchExit(_ p: Process) {
        let exited = DispatchSemaphore(value: 0)
        exits.withLock { $0[ObjectIdentifier(p)] = exited }
        p.terminationHandler = { _ in exited.signal() }
    }

    /// Waits until `p` has exited, at most `timeout` seconds: woken by its termination
    /// handler, not by polling. Whether it has exited.
    @discardableResult
    public static func waitForExit(_ p: Process, timeout: TimeInterval) -> Bool {
        if !p.isRunning { return true }
        // A process not watched from its start (Foundation reads the handler when the exit
        // comes, so one set now can miss an exit under way: the time-out then ends the wait).
        if exits.withLock({ $0[ObjectIdentifier(p)] }) == nil { watchExit(p) }
        guard let exited = exits.withLock({ $0[ObjectIdentifier(p)] }) else { return !p.isRunning }
        if exited.wait(timeout: .now() + max(0, timeout)) == .success {
            exits.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(p)) }
            return true
        }
        return !p.isRunning
    }

    public static func run(_ executable: URL, _ args: [String], cwd: URL? = nil, timeout: TimeInterval = 60) throws -> ProcessResult {
        let (p, out, err) = try start(executable, args, cwd: cwd)
        return finish(p, out, err, timeout: timeout)
    }

    /// `plumb ARGS...`
    public static func plumb(_ args: String..., cwd: URL? = nil, timeout: TimeInterval = 60) throws -> ProcessResult {
        try run(binary, args, cwd: cwd, timeout: timeout)
    }

    /// Reads `pipe` until `text` appears; what was read, or nil when the pipe closed or
    /// `timeout` passed first. Read before `finish`, which collects the rest.
    public static func waitFor(_ text: String, in pipe: Pipe, timeout: TimeInterval) -> String? {
        final class Seen: @unchecked Sendable { var text = ""; let lock = NSLock() }  // guarded by lock
        let seen = Seen()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            var read = ""
            while !read.contains(text) {
                let chunk = pipe.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                read += String(decoding: chunk, as: UTF8.self)
            }
            seen.lock.withLock { seen.text = read }
            done.signal()
        }
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        let read = seen.lock.withLock { seen.text }
        return read.contains(text) ? read : nil
    }

    public static func tool(_ name: String) -> URL {
        for dir in ["/usr/bin", "/usr/local/bin", "/bin"] {
            let url = URL(fileURLWithPath: dir).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return URL(fileURLWithPath: "/usr/bin/\(name)")
    }
}

/// ffprobe's view of a video file's first stream.
public struct Probe {
    public var codec: String
    public var width: Int
    public var height: Int
    public var frames: Int
    public var duration: Double

    /// Counts frames by decoding (nb_read_frames), so a truncated file tells the truth.
    public static func read(_ file: URL) throws -> Probe? {
        let r = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), [
            "-v", "error", "-count_frames", "-select_streams", "v:0",
            "-show_entries", "stream=codec_name,width,height,nb_read_frames:format=duration",
            "-of", "json", file.path,
        ])
        guard r.code == 0, let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any],
              let stream = (json["streams"] as? [[String: Any]])?.first else { return nil }
        let format = json["format"] as? [String: Any]
        return Probe(codec: stream["codec_name"] as? String ?? "",
                     width: stream["width"] as? Int ?? 0,
                     height: stream["height"] as? Int ?? 0,
                     frames: Int(stream["nb_read_frames"] as? String ?? "") ?? 0,
                     duration: Double(format?["duration"] as? String ?? "") ?? 0)
    }
}

extension Probe {
    /// The first video stream of a live URL (rtsp://...) without decoding it all.
    /// nil when ffprobe cannot read it; `stderr` then says why.
    public static func live(_ url: String, options: [String] = ["-rtsp_transport", "tcp"], timeout: TimeInterval = 30)
        throws -> (probe: Probe?, stderr: String)
    {
        let r = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "error"] + options + [
            "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height", "-of", "json", url,
        ], timeout: timeout)
        guard r.code == 0, let json = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any],
              let stream = (json["streams"] as? [[String: Any]])?.first else { return (nil, r.stderr) }
        return (Probe(codec: stream["codec_name"] as? String ?? "", width: stream["width"] as? Int ?? 0,
                      height: stream["height"] as? Int ?? 0, frames: 0, duration: 0), r.stderr)
    }
}
