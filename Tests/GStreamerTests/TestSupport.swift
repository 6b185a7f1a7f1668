import Foundation
import GStreamer
import PlumbTestSupport
import XCTest
import GLib

/// A stream read ran out of time.
struct Timeout: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Reads `stream` until `stop` says so, or fails after `timeout` (generous: it only guards
/// against a hang). Returns every message read, the stopping one last.
func read(_ stream: AsyncStream<BusMessage>, timeout: Duration = .seconds(20), what: String = "a bus message",
          until stop: @escaping @Sendable (BusMessage) -> Bool) async throws -> [BusMessage] {
    try await withThrowingTaskGroup(of: [BusMessage]?.self) { group in
        group.addTask {
            var seen: [BusMessage] = []
            for await message in stream {
                seen.append(message)
                if stop(message) { return seen }
            }
            return seen  // the stream ended
        }
        group.addTask {
            try await Task.sleep(for: timeout)  // the deadline, raced against the bus
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let seen = first else { throw Timeout(what: what) }
        return seen
    }
}

/// Reads until EOS or an error and returns that message.
func readUntilEnd(_ stream: AsyncStream<BusMessage>, timeout: Duration = .seconds(20)) async throws -> BusMessage {
    let seen = try await read(stream, timeout: timeout, what: "EOS or an error") { message in
        message.isEOS || message.error != nil
    }
    guard let last = seen.last else { throw Timeout(what: "EOS or an error (the stream ended)") }
    return last
}

/// Runs a program to completion and returns its exit status and output (stdout + stderr).
func runProgram(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
         timeout: TimeInterval = 120) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    let done = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in done.signal() }
    try process.run()
    let output = ReadAll(pipe.fileHandleForReading)  // read while it runs so a full pipe cannot block it
    if done.wait(timeout: .now() + timeout) == .timedOut {
        process.terminate()
        _ = done.wait(timeout: .now() + 5)
        throw Timeout(what: "\(executable) to exit; its output so far:\n\(output.text(waiting: 1))")
    }
    return (process.terminationStatus, output.text(waiting: 5))
}

/// Drains a pipe on its own thread.
private final class ReadAll: @unchecked Sendable {  // `data` is written once, before `finished` is signalled
    private var data = Data()
    private let finished = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            finished.signal()
        }
    }

    func text(waiting seconds: TimeInterval) -> String {
        guard finished.wait(timeout: .now() + seconds) == .success else { return "(output not available)" }
        finished.signal()
        return String(decoding: data, as: UTF8.self)
    }
}

extension BusMessage {
    var isEOS: Bool { if case .eos = self { return true } else { return false } }
    var error: GStreamerError? { if case .error(let e) = self { return e } else { return nil } }
    var warning: GStreamerError? { if case .warning(let e) = self { return e } else { return nil } }
}

/// Asserts that `body` throws exactly `expected`, and that GLib printed nothing meanwhile.
func assertThrows<T>(_ expected: PropertyError, file: StaticString = #filePath, line: UInt = #line,
                     _ body: () throws -> T) {
    let (outcome, logged) = GLibLog.capture { () -> Result<T, any Error> in
        do { return .success(try body()) } catch { return .failure(error) }
    }
    switch outcome {
    case .success(let value): XCTFail("expected \(expected), got the value \(value)", file: file, line: line)
    case .failure(let error): XCTAssertEqual(error as? PropertyError, expected, "\(error)", file: file, line: line)
    }
    XCTAssertEqual(logged.map(\.description), [], "GLib logged while the error was raised", file: file, line: line)
}

/// A directory that does not exist, for sinks that must fail to open their file.
let missingDirectory = "/nonexistent-plumb-test-dir"

/// A pipeline that fails to negotiate once data flows: two capsfilters whose caps
/// cannot both hold, set after linking (linking them in a description is refused).
func unnegotiablePipeline() throws -> Pipeline {
    let pipeline = try Pipeline.parse("videotestsrc name=src ! capsfilter name=a ! capsfilter name=b ! fakesink")
    try XCTUnwrap(pipeline.element(named: "a")).set("caps", try Caps("video/x-raw,width=100"))
    try XCTUnwrap(pipeline.element(named: "b")).set("caps", try Caps("video/x-raw,width=200"))
    return pipeline
}
