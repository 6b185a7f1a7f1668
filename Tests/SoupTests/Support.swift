import Foundation
import Soup
import XCTest
import GLib

/// What curl received.
struct CurlResult {
    var status: Int
    /// The headers of the (last) response, names as sent.
    var headers: HTTPHeaders
    var body: Data
    var exitCode: Int32
    var stderr: String

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object.
    func json(file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: body)
        return try XCTUnwrap(object as? [String: Any], "not a JSON object: \(text)", file: file, line: line)
    }
}

/// A child process whose exit is awaited without blocking a thread (handlers
/// under test need the cooperative pool's threads).
final class ChildProcess: @unchecked Sendable {  // Process is used from one test at a time; exit is signalled once.
    let process = Process()
    private let exited = AsyncStream<Int32>.makeStream()

    init(_ executable: String, _ arguments: [String], stdout: URL? = nil, stderr: URL? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var handles: [FileHandle] = []
        for (url, set) in [(stdout, { (h: FileHandle) in self.process.standardOutput = h }),
                           (stderr, { (h: FileHandle) in self.process.standardError = h })] {
            if let url {
                _ = FileManager.default.createFile(atPath: url.path, contents: nil)
                let handle = try FileHandle(forWritingTo: url)
                handles.append(handle)
                set(handle)
            } else {
                set(FileHandle.nullDevice)
            }
        }
        let continuation = exited.continuation
        let opened = handles
        process.terminationHandler = { p in
            // Our copies of the child's output files; Process keeps its own references.
            for h in opened { try? h.close() }
            continuation.yield(p.terminationStatus)
            continuation.finish()
        }
        try process.run()
    }

    func wait() async -> Int32 {
        for await status in exited.stream { return status }
        return process.terminationStatus
    }

    /// SIGKILL to this child only, by its pid (the test process may block SIGTERM, and children inherit that).
    func terminate() { kill(process.processIdentifier, SIGKILL) }
}

/// Runs curl once: `-sS`, the body and headers captured, the status from `-w`.
/// With `saveBodyTo` the body goes to that file and is not read into memory.
func curl(_ arguments: [String], saveBodyTo: String? = nil) async throws -> CurlResult {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-curl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let bodyFile = saveBodyTo.map { URL(fileURLWithPath: $0) } ?? dir.appendingPathComponent("body")
    let headerFile = dir.appendingPathComponent("headers")
    let out = dir.appendingPathComponent("out")
    let err = dir.appendingPathComponent("err")
    let child = try ChildProcess("/usr/bin/curl",
                                 ["-sS", "--max-time", "30", "-o", bodyFile.path, "-D", headerFile.path,
                                  "-w", "%{http_code}"] + arguments,
                                 stdout: out, stderr: err)
    let code = await child.wait()
    let status = Int(String(decoding: (try? Data(contentsOf: out)) ?? Data(), as: UTF8.self)) ?? 0
    return CurlResult(status: status,
                      headers: parseHeaders((try? String(contentsOf: headerFile, encoding: .utf8)) ?? ""),
                      body: saveBodyTo == nil ? (try? Data(contentsOf: bodyFile)) ?? Data() : Data(),
                      exitCode: code,
                      stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
}

/// The header block of the last response in a `curl -D` dump.
func parseHeaders(_ dump: String) -> HTTPHeaders {
    let blocks = dump.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n\n").filter { !$0.isEmpty }
    var headers = HTTPHeaders()
    guard let last = blocks.last else { return headers }
    for line in last.split(separator: "\n").dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
    return headers
}

/// Open file descriptors and threads of this process, from /proc.
func openFileDescriptors() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

/// Threads of this process other than libdispatch's shared worker pool (named
/// `com.apple.root.*-qos*`, grown and shrunk on demand by the runtime): the
/// context threads, GLib's own threads, anything a server could leave behind.
func ownThreadCount() -> Int {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.filter { task in
        let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
        return !(name.contains("qos") || name.contains("overcommit"))
    }.count
}

/// What the descriptors of this process point at (`/proc/self/fd/N` -> `socket:[…]`, a path).
func openFileDescriptorTargets() -> [String] {
    let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return fds.map { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) ?? "?" }
}

/// The names of the threads `ownThreadCount` counts.
func ownThreadNames() -> [String] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.map { task in
        ((try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? "?")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }.filter { !($0.contains("qos") || $0.contains("overcommit")) }
}

/// What `now` holds that `before` did not (counted: two of a kind where there was one is one more).
func added(_ now: [String], to before: [String]) -> [String] {
    var left = Dictionary(before.map { ($0, 1) }, uniquingKeysWith: +)
    return now.filter { item in
        guard let n = left[item], n > 0 else { return true }
        left[item] = n - 1
        return false
    }
}

/// Whether something accepts TCP connections on 127.0.0.1:port.
func isListening(port: UInt16) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = port.bigEndian
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

/// A running server on a free loopback port with its own context thread.
final class TestServer: @unchecked Sendable {  // `address` is set once, by start, before the test reads it.
    let thread = MainContextThread(name: "plumb.test-http")
    let server: HTTPServer
    private(set) var address: ListenAddress!

    init(_ router: Router, options: HTTPServer.Options = HTTPServer.Options()) {
        server = HTTPServer(router: router, context: thread.context, options: options)
    }

    func start() async throws -> TestServer {
        address = try await server.start(listen: .loopback(port: 0))
        return self
    }

    func url(_ path: String) -> String { "http://\(address!)\(path)" }

    func stop() async {
        await server.stop()
        thread.stop()
    }
}
