import Foundation
import Synchronization
import XCTest

/// A fresh temporary directory, removed when the test ends (also on failure).
public func temporaryDirectory(_ test: XCTestCase, _ label: String = "plumb-test") throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

/// Collects the elements of a stream on a background task, for polling from tests.
public final class Recorder<Element: Sendable>: Sendable {
    private final class Storage: Sendable {
        let items = Mutex<[Element]>([])
        let finished = Mutex(false)
    }

    private let storage = Storage()
    private let task: Task<Void, Never>

    public init(_ stream: AsyncStream<Element>) {
        let storage = self.storage
        task = Task {
            for await item in stream { storage.items.withLock { $0.append(item) } }
            storage.finished.withLock { $0 = true }
        }
    }

    public var all: [Element] { storage.items.withLock { $0 } }
    public var isFinished: Bool { storage.finished.withLock { $0 } }

    public func cancel() { task.cancel() }

    /// Waits until `condition` holds for the recorded elements; fails the test on time-out.
    @discardableResult
    public func wait(_ what: @autoclosure () -> String = "the recorded elements", timeout: Duration = .seconds(20),
                     file: StaticString = #filePath, line: UInt = #line,
                     until condition: ([Element]) -> Bool) async -> Bool {
        await eventually(what(), timeout: timeout, file: file, line: line) { () async -> Bool in condition(self.all) }
    }

    deinit { task.cancel() }
}

/// The deadline of one `eventually`, shared by its blocking and its async form.
private struct Polling {
    let deadline: ContinuousClock.Instant

    init(_ timeout: Duration) { deadline = .now + timeout }

    /// False once the deadline has passed: the test fails, saying what it waited for.
    func mayWaitMore(_ what: () -> String, _ file: StaticString, _ line: UInt) -> Bool {
        if ContinuousClock.now < deadline { return true }
        XCTFail("timed out waiting: \(what())", file: file, line: line)
        return false
    }
}

/// Waits until `condition` holds, checking it `every` 10 ms; after `timeout` the test fails
/// with "timed out waiting: `what`" (a guard against hangs, not a timing check).
/// Returns whether the condition held.
@discardableResult
public func eventually(_ what: @autoclosure () -> String, timeout: Duration = .seconds(20),
                       every interval: Duration = .milliseconds(10), file: StaticString = #filePath, line: UInt = #line,
                       _ condition: () async throws -> Bool) async rethrows -> Bool {
    let polling = Polling(timeout)
    while true {
        if try await condition() { return true }
        guard polling.mayWaitMore(what, file, line) else { return false }
        try? await Task.sleep(for: interval)  // the poll's interval, for what announces nothing
    }
}

/// `eventually` with a synchronous condition, chosen in async code over the blocking form below
/// (which would hold a thread of the cooperative pool that the awaited work may need).
@discardableResult
public func eventually(_ what: @autoclosure () -> String, timeout: Duration = .seconds(20),
                       every interval: Duration = .milliseconds(10), file: StaticString = #filePath, line: UInt = #line,
                       _ condition: () throws -> Bool) async rethrows -> Bool {
    try await eventually(what(), timeout: timeout, every: interval, file: file, line: line) { () async throws -> Bool in
        try condition()
    }
}

/// `eventually` for synchronous tests: blocks the calling thread between checks.
@discardableResult
public func eventually(_ what: @autoclosure () -> String, timeout: Duration = .seconds(20),
                       every interval: Duration = .milliseconds(10), file: StaticString = #filePath, line: UInt = #line,
                       _ condition: () throws -> Bool) rethrows -> Bool {
    let polling = Polling(timeout)
    while true {
        if try condition() { return true }
        guard polling.mayWaitMore(what, file, line) else { return false }
        let (seconds, attoseconds) = interval.components
        Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)  // the poll's interval
    }
}
