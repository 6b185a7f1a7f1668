import Foundation
import PlumbTestSupport
import XCTest
@testable import Plumb
import PlumbRotation
@testable import PlumbService

/// Real clients for the service tests (namespaced: other suites share this module).
enum ServiceClient {
    struct Response {
        var status: Int
        var headers: [String: String]  // lowercased names, last value wins
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        func json() throws -> [String: Any] {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: body) as? [String: Any], "not a JSON object: \(text)")
        }
    }

    /// A child process awaited without blocking a thread (handlers under test need the pool).
    final class Child: @unchecked Sendable {  // the Process is driven by one test; the exit is signalled once.
        let process = Process()
        private let exited = AsyncStream<Int32>.makeStream()

        init(_ executable: String, _ arguments: [String], stdout: String? = nil) throws {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            var handle: FileHandle?
            if let stdout {
                _ = FileManager.default.createFile(atPath: stdout, contents: nil)
                handle = try FileHandle(forWritingTo: URL(fileURLWithPath: stdout))
            }
            process.standardOutput = handle ?? FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let continuation = exited.continuation
            let opened = handle
            process.terminationHandler = { p in
                try? opened?.close()
                continuation.yield(p.terminationStatus)
                continuation.finish()
            }
            try process.run()
        }

        func wait() async -> Int32 {
            for await status in exited.stream { return status }
            return process.terminationStatus
        }

        func kill() { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    /// curl `-sS` with the body saved to `output` (or read back when nil).
    static func curl(_ arguments: [String], output: String? = nil) async throws -> Response {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let body = output ?? dir.appendingPathComponent("body").path
        let headers = dir.appendingPathComponent("headers").path
        let status = dir.appendingPathComponent("status").path
        let child = try Child("/usr/bin/curl", ["-sS", "--max-time", "60", "-o", body, "-D", headers, "-w", "%{http_code}"] + arguments,
                              stdout: status)
        _ = await child.wait()
        var fields: [String: String] = [:]
        let dump = (try? String(contentsOfFile: headers, encoding: .utf8)) ?? ""
        for line in dump.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: Int((try? String(contentsOfFile: status, encoding: .utf8)) ?? "") ?? 0,
                        headers: fields,
                        body: output == nil ? ((try? Data(contentsOf: URL(fileURLWithPath: body))) ?? Data()) : Data())
    }

    /// Runs a tool to completion and returns its stdout (ffprobe, gst-launch-1.0, df).
    static func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-run-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let child = try Child(executable, arguments, stdout: out)
        let status = await child.wait()
        return (status, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "")
    }

}
