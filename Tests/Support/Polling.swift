import Foundation
import Synchronization
import XCTest

/// A fresh temporary directory, removed when the test ends (also on failure).
public func makeTemporaryDirectory(_ test: XCTestCase, _ label: String = "plumb") throws -> URL {
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

    /// Waits until `condition` holds for the recorded elements; false on time-out.
    @discardableResult
    public func wait(timeout: Duration = .seconds(10), until condition: ([Element]) -> Bool) async -> Bool {
        await waitUntil(timeout: timeout) { condition(self.all) }
    }

    deinit { task.cancel() }
}

/// Polls `condition` every 10 ms; false when `timeout` passes first (a guard against hangs, not a timing check).
public func waitUntil(timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
