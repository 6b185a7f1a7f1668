import Foundation
import PlumbTestSupport
import XCTest

/// A `plumb serve` started by a test: a config written to a fresh folder (the test pattern
/// at 320x240, 30 fps, fixed rotation, both servers on 127.0.0.1 with ports the daemon
/// picks, recordings in the folder) with the test's own keys on top. It is killed when
/// the test ends, whatever happened.
final class ServeProcess: @unchecked Sendable {  // driven by one test thread
    let dir: URL
    let folder: URL
    let configFile: URL
    let process = Process()
    private let errFile: URL
    private let outFile: URL
    /// rtsp://127.0.0.1:PORT/preview and http://127.0.0.1:PORT, as the daemon printed them.
    private(set) var rtsp = ""
    private(set) var http = ""
    let token: String?

    static let fps = 30.0

    /// The default keys; `settings` (group -> key -> value) are added or replace them.
    static func config(folder: URL, _ settings: [String: [String: String]]) -> String {
        var groups: [String: [String: String]] = [
            "camera": ["device": "test", "size": "320x240", "fps": "30"],
            "rotation": ["accelerometer": "fixed:0"],
            "preview": ["address": "127.0.0.1", "port": "0"],
            "recording": ["folder": folder.path],
            "http": ["listen": "127.0.0.1:0"],
        ]
        for (group, keys) in settings { groups[group, default: [:]].merge(keys) { $1 } }
        return groups.sorted { $0.key < $1.key }.map { group, keys in
            "[\(group)]\n" + keys.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)\n" }.joined()
        }.joined(separator: "\n")
    }

    /// What the test writes to the daemon's standard input (`replay:-`), when asked for.
    let input: Pipe?

    /// `environment` adds variables to the daemon's (TZ, say). `dir`: the folder of an
    /// earlier daemon, to start again on its recordings (a fresh one by default).
    /// `launcher`: a program and its arguments that exec the daemon (its path and arguments follow).
    init(_ test: XCTestCase, _ settings: [String: [String: String]] = [:], arguments: [String] = [],
         environment: [String: String] = [:], withInput: Bool = false, waitForReady: Bool = true,
         dir: URL? = nil, launcher: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws {
        self.dir = try dir ?? temporaryDirectory(test)
        folder = self.dir.appendingPathComponent("recordings")
        configFile = self.dir.appendingPathComponent("plumb.ini")
        errFile = self.dir.appendingPathComponent("stderr.log")
        outFile = self.dir.appendingPathComponent("stdout.log")
        token = settings["http"]?["token"]
        try Self.config(folder: folder, settings).write(to: configFile, atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
        process.executableURL = PlumbProcess.binary
        process.arguments = ["serve", "--config", configFile.path] + arguments
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = launcher.dropFirst() + [PlumbProcess.binary.path] + process.arguments!
        }
        process.currentDirectoryURL = self.dir
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardError = try FileHandle(forWritingTo: errFile)
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        input = withInput ? Pipe() : nil
        process.standardInput = input ?? FileHandle.nullDevice
        try process.run()
        let process = self.process
        test.addTeardownBlock {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        if waitForReady { try self.waitForReady(file: file, line: line) }
    }

    /// Writes a line to the daemon's standard input.
    func feed(_ line: String) {
        input?.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Everything the daemon wrote to stderr so far.
    var log: String { (try? String(contentsOf: errFile, encoding: .utf8)) ?? "" }

    var pid: Int32 { process.processIdentifier }

    private func waitForReady(file: StaticString, line: UInt) throws {
        guard eventually("plumb serve to get ready or exit", timeout: .seconds(60), file: file, line: line,
                         { log.contains("plumb serve: ready") || !process.isRunning }), process.isRunning else {
            XCTFail("plumb serve did not get ready: \(log)", file: file, line: line)
            throw ServeTestError(description: "plumb serve did not start")
        }
        rtsp = try XCTUnwrap(Self.value(after: "RTSP preview: ", in: log), log, file: file, line: line)
        http = try XCTUnwrap(Self.value(after: "control API: ", in: log), log, file: file, line: line)
    }

    static func value(after prefix: String, in text: String) -> String? {
        guard let range = text.range(of: prefix) else { return nil }
        return text[range.upperBound...].prefix { !$0.isWhitespace }.description
    }

    /// Waits for a log line containing `text`; the test fails when none comes in time.
    @discardableResult
    func waitForLog(_ text: String, timeout: TimeInterval = 30, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        eventually("a log line with \"\(text)\"", timeout: .seconds(timeout), file: file, line: line) { log.contains(text) }
    }

    /// Waits until the recording `name` in the folder holds `frames` frames, by ffprobe
    /// (the daemon writes fragmented MP4: readable while it grows, a fragment at a time).
    func waitForRecordedFrames(_ frames: Int, in name: String, file: StaticString = #filePath, line: UInt = #line) {
        let path = folder.appendingPathComponent(name).path
        eventually("\(frames) frames in \(name): \(log)", timeout: .seconds(60), every: .milliseconds(200), file: file, line: line) {
            ((try? IndependentReaders.ffprobeFrameCount(path)) ?? 0) >= frames
        }
    }

    /// `GET /status`'s `running_encoders`, each as "element codec WxH: feeds", sorted.
    func runningEncoders() -> [String] {
        let encoders = (try? curl("GET", "/status").json())?["running_encoders"] as? [[String: Any]] ?? []
        return encoders.map { e in
            "\(e["element"] ?? "?") \(e["codec"] ?? "?") \(e["width"] ?? "?")x\(e["height"] ?? "?"): "
                + (e["feeds"] as? [String] ?? []).joined(separator: ",")
        }.sorted()
    }

    /// Waits until `runningEncoders()` is `wanted` (in any order); the test fails when it is not in time.
    func waitForRunningEncoders(_ wanted: [String], file: StaticString = #filePath, line: UInt = #line) {
        let expected = wanted.sorted()
        var last: [String] = []
        eventually("the running encoders to be \(expected) (last \(last))\n\(log)", timeout: .seconds(40),
                   every: .milliseconds(100), file: file, line: line) {
            last = runningEncoders()
            return last == expected
        }
        XCTAssertEqual(last, expected, file: file, line: line)
    }

    /// Sends `signal` and waits for the exit; the exit status and the whole log.
    func stop(_ signal: Int32 = SIGTERM, timeout: TimeInterval = 60) -> (code: Int32, log: String) {
        kill(pid, signal)
        eventually("plumb serve to exit after signal \(signal)", timeout: .seconds(timeout)) { !process.isRunning }
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
            return (-1, log + "\n[killed: did not stop within \(timeout) s]")
        }
        process.waitUntilExit()
        return (process.terminationStatus, log)
    }

    /// Waits for an exit that comes by itself (a bad config).
    func exit(timeout: TimeInterval = 30) -> (code: Int32, log: String) {
        eventually("plumb serve to exit by itself", timeout: .seconds(timeout)) { !process.isRunning }
        if process.isRunning { return stop(SIGKILL) }
        process.waitUntilExit()
        return (process.terminationStatus, log)
    }

    // MARK: HTTP

    /// `curl` against the control API (with the token unless `authorized` is false);
    /// `path` may carry a query.
    /// The body is also saved to `output` when given.
    func curl(_ method: String, _ path: String, authorized: Bool = true, extra: [String] = [],
              output: URL? = nil) throws -> HTTPReply {
        var args = ["-X", method] + extra
        if authorized, let token { args += ["-H", "Authorization: Bearer \(token)"] }
        let reply = try HTTPReply.curl(args + [http + path], in: dir)
        if let output { try reply.body.write(to: output) }
        return reply
    }

    /// CPU seconds (user + system) the daemon has used so far, from /proc.
    var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3; utime and stime are fields 14 and 15.
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

struct ServeTestError: Error, CustomStringConvertible {
    var description: String
}

/// One curl exchange: status, headers (lowercased names) and body.
struct HTTPReply {
    var status: Int
    var headers: [String: String]
    var body: Data
    var text: String { String(decoding: body, as: UTF8.self) }

    func json(file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        try XCTUnwrap(try? JSONSerialization.jsonObject(with: body) as? [String: Any], "not a JSON object: \(text)",
                      file: file, line: line)
    }

    /// The `error` message of a 4xx/5xx reply.
    var error: String { ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any])?["error"] as? String ?? "" }

    static func curl(_ arguments: [String], in dir: URL) throws -> HTTPReply {
        let id = UUID().uuidString
        let body = dir.appendingPathComponent("curl-\(id).body")
        let headers = dir.appendingPathComponent("curl-\(id).headers")
        defer {
            try? FileManager.default.removeItem(at: body)
            try? FileManager.default.removeItem(at: headers)
        }
        let r = try PlumbProcess.run(PlumbProcess.tool("curl"), ["-sS", "--max-time", "60", "-o", body.path,
                                                                "-D", headers.path, "-w", "%{http_code}"] + arguments,
                                     timeout: 90)
        var fields: [String: String] = [:]
        let dump = (try? String(contentsOf: headers, encoding: .utf8)) ?? ""
        for line in dump.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return HTTPReply(status: Int(r.stdout) ?? 0, headers: fields, body: (try? Data(contentsOf: body)) ?? Data())
    }
}

/// `GET /events` read by curl into a file, parsed on demand.
final class EventTap: @unchecked Sendable {  // driven by one test thread
    struct Event {
        var name: String
        var data: [String: Any]
    }

    private let process: Process
    private let file: URL

    init(_ serve: ServeProcess, _ test: XCTestCase) throws {
        file = serve.dir.appendingPathComponent("events-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        var args = ["-sSN", "--max-time", "600"]
        if let token = serve.token { args += ["-H", "Authorization: Bearer \(token)"] }
        process = Process()
        process.executableURL = PlumbProcess.tool("curl")
        process.arguments = args + [serve.http + "/events"]
        process.standardOutput = try FileHandle(forWritingTo: file)
        process.standardError = FileHandle.nullDevice
        try process.run()
        let process = self.process
        test.addTeardownBlock {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        // The stream's first bytes (a retry hint) say the client is subscribed.
        eventually("the event stream's retry hint", timeout: .seconds(10)) { self.raw.contains("retry:") }
    }

    var raw: String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }

    var events: [Event] {
        raw.components(separatedBy: "\n\n").compactMap { block in
            var name: String?
            var data = ""
            for line in block.split(separator: "\n") {
                if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data += line.dropFirst(6) }
            }
            guard let name else { return nil }
            let json = (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:]
            return Event(name: name, data: json)
        }
    }

    func named(_ name: String) -> [Event] { events.filter { $0.name == name } }

    var isRunning: Bool { process.isRunning }
}

/// A `gst-launch-1.0 rtspsrc` consumer as its own process.
final class RTSPClient: @unchecked Sendable {  // driven by one test thread
    let process: Process
    let out: Pipe
    let err: Pipe
    let started = Date()

    /// Decodes `frames` frames (optionally checking their caps) and exits 0.
    init(_ url: String, frames: Int, caps: String? = nil) throws {
        var tail = ["rtph264depay", "!", "avdec_h264", "!"]
        if let caps { tail += [caps, "!"] }
        tail += ["fakesink", "num-buffers=\(frames)", "sync=false"]
        (process, out, err) = try PlumbProcess.start(PlumbProcess.tool("gst-launch-1.0"), [
            "rtspsrc", "location=\(url)", "protocols=tcp", "latency=0", "!",
        ] + tail)
    }

    /// Whether a finished client decoded all its frames: EOS from its fakesink after
    /// num-buffers is the proof (the exit status is not: the teardown after it may race the
    /// server's own close, and gst-launch then reports a write error on the way out).
    static func gotEveryFrame(_ result: ProcessResult) -> Bool {
        result.stdout.contains("Got EOS from element")
    }

    var isRunning: Bool { process.isRunning }

    func finish(timeout: TimeInterval) -> ProcessResult {
        PlumbProcess.finish(process, out, err, timeout: timeout)
    }
}

/// ffprobe: frames decoded and the duration of a file.
func probeFile(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws -> Probe {
    try XCTUnwrap(Probe.read(url), "ffprobe cannot read \(url.lastPathComponent)", file: file, line: line)
}

/// Whether a finalized MP4's index (moov) is in the file, by ffprobe's box trace.
func hasMoov(_ url: URL) throws -> Bool {
    try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "trace", url.path]).stderr.contains("type:'moov'")
}
