import Foundation
import XCTest

/// A private D-Bus bus: `dbus-daemon --session` on a socket in a temporary directory.
public final class PrivateBus {
    public let address: String
    private let process = Process()

    public init(_ test: XCTestCase) throws {
        let dir = try temporaryDirectory(test, "dbus")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--session", "--nofork", "--nopidfile", "--print-address=1",
                             "--address=unix:path=\(dir.path)/bus"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.contains("\n") {
            let data = out.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            text += String(decoding: data, as: UTF8.self)
        }
        address = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard address.hasPrefix("unix:") else {
            Foundation.kill(process.processIdentifier, SIGKILL)
            throw PrivateBusError(message: "dbus-daemon printed no address: \(text)")
        }
        let process = self.process
        test.addTeardownBlock {
            // SIGKILL: the daemon keeps nothing, and a SIGTERM can stay blocked in the signal
            // mask it inherits from the spawning thread.
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Ends the daemon at once (SIGKILL), as a crashed bus would.
    public func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

public struct PrivateBusError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
