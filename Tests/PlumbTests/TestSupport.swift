import Foundation
import Synchronization
import XCTest

/// A fresh temporary directory, removed when the test ends (also on failure).
func makeTemporaryDirectory(_ test: XCTestCase, _ label: String = "plumb") throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

/// Collects the elements of a stream on a background task, for polling from tests.
final class Recorder<Element: Sendable>: Sendable {
    private final class Storage: Sendable {
        let items = Mutex<[Element]>([])
        let finished = Mutex(false)
    }

    private let storage = Storage()
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<Element>) {
        let storage = self.storage
        task = Task {
            for await item in stream { storage.items.withLock { $0.append(item) } }
            storage.finished.withLock { $0 = true }
        }
    }

    var all: [Element] { storage.items.withLock { $0 } }
    var isFinished: Bool { storage.finished.withLock { $0 } }

    func cancel() { task.cancel() }

    /// Waits until `condition` holds for the recorded elements; false on time-out.
    @discardableResult
    func wait(timeout: Duration = .seconds(10), until condition: ([Element]) -> Bool) async -> Bool {
        await waitUntil(timeout: timeout) { condition(self.all) }
    }

    deinit { task.cancel() }
}

/// Polls `condition` every 10 ms; false when `timeout` passes first (a guard against hangs, not a timing check).
func waitUntil(timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Runs a command and returns its standard output; fails the test with its standard error on a non-zero exit.
@discardableResult
func runTool(_ executable: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/\(executable)")
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Read before waiting so a large output cannot fill the pipe and block the child.
    let output = out.fileHandleForReading.readDataToEndOfFile()
    let errors = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: output, as: UTF8.self)
    if process.terminationStatus != 0 {
        XCTFail("\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): "
            + String(decoding: errors, as: UTF8.self), file: file, line: line)
    }
    return text
}
