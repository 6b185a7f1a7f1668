import Foundation
import PlumbTestSupport
@testable import Plumb
import XCTest

/// Writes `data` to a new file in `folder`.
func write(_ data: Data, named name: String, in folder: URL) throws -> URL {
    let url = folder.appendingPathComponent(name)
    try data.write(to: url)
    return url
}

/// Runs `operation`, failing with a timeout instead of hanging when it never finishes.
func within<T: Sendable>(_ limit: Duration, _ what: String,
                         _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let shot = OneShot<T>()
    let task = Task {
        do { shot.succeed(try await operation()) } catch { shot.fail(error) }
    }
    defer { task.cancel() }
    return try await shot.value(timeout: limit, what: what)
}
