import Foundation
import PlumbTestSupport
import XCTest

/// SIGTERM in the very first milliseconds of `plumb photo` / `plumb record`: the documented
/// 130 (or 0 when the capture was already done), never death by the signal (143), and no
/// file left behind.
///
/// "First milliseconds" count from the moment the program's own code starts running. Before
/// that the dynamic loader is mapping and relocating some sixty libraries (10 to 50 ms on a
/// shared 2-core machine): no code of any program runs there, so the kernel applies the
/// signal's default action, whatever the program does. The test waits for the first sign of
/// running code in /proc/PID/status — a signal handler installed (SigCgt: Plumb's own, or
/// the crash handlers the Swift runtime installs before `main`) — then signals.
final class EarlySignalTests: XCTestCase {
    /// Milliseconds between the program starting to run and SIGTERM.
    private let delays = [0, 1, 5, 20]
    private let rounds = 5

    func testSIGTERMInTheFirstMillisecondsOfAPhotoExits130AndWritesNothing() throws {
        try check("photo", ["--camera", "test", "--size", "160x120"], file: "early.jpg")
    }

    func testSIGTERMInTheFirstMillisecondsOfARecordingExits130AndWritesNothing() throws {
        try check("record", ["--seconds", "1", "--camera", "test", "--size", "160x120"], file: "early.mp4")
    }

    /// `plumb serve` execs `plumb-serve`: a SIGTERM while the one replaces itself with the
    /// other, or while `plumb-serve` is still loading, waits for its handler (held across the
    /// exec) and stops the daemon cleanly (exit 0), never killing it (143).
    func testSIGTERMInTheFirstMillisecondsOfServeStopsItCleanly() throws {
        let dir = try temporaryDirectory(self)
        var outcomes: [String: Int] = [:]
        for round in 0..<rounds {
            for delay in delays {
                let logs = dir.appendingPathComponent("logs-\(delay)ms-\(round)")
                try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: false)
                let child = try ShellChild(PlumbProcess.binary.path, [
                    "serve", "--set", "camera.device=test", "--set", "camera.size=160x120", "--set", "rotation.accelerometer=fixed:0",
                    "--set", "preview.address=127.0.0.1", "--set", "preview.port=0", "--set", "http.listen=127.0.0.1:0",
                    "--set", "recording.folder=\(dir.appendingPathComponent("recordings-\(delay)ms-\(round)").path)",
                ], logs: logs)
                guard child.waitUntilRunning(timeout: 20) else {
                    XCTFail("serve after \(delay) ms: the program never started running (or ended first)")
                    child.kill(SIGKILL)
                    _ = child.wait(timeout: 10)
                    continue
                }
                if delay > 0 { usleep(useconds_t(delay * 1000)) }  // the thing tested: the signal this long into the run
                child.kill(SIGTERM)
                let status = child.wait(timeout: 60)
                let stderr = (try? String(contentsOf: logs.appendingPathComponent("stderr"), encoding: .utf8)) ?? ""
                XCTAssertEqual(status, .exited(0), "serve, SIGTERM \(delay) ms after it started running: \(status); stderr: \(stderr)")
                outcomes["\(status)", default: 0] += 1
            }
        }
        print("serve: SIGTERM outcomes over \(rounds) rounds of \(delays) ms: \(outcomes)")
    }

    private func check(_ command: String, _ options: [String], file name: String) throws {
        let dir = try temporaryDirectory(self)
        var outcomes: [String: Int] = [:]
        for round in 0..<rounds {
            for delay in delays {
                let folder = dir.appendingPathComponent("\(delay)ms-\(round)")
                let logs = dir.appendingPathComponent("logs-\(delay)ms-\(round)")
                for url in [folder, logs] { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false) }
                let file = folder.appendingPathComponent(name)
                let child = try ShellChild(PlumbProcess.binary.path, [command] + options + ["-o", file.path], logs: logs)
                guard child.waitUntilRunning(timeout: 20) else {
                    XCTFail("\(command) after \(delay) ms: the program never started running (or ended first)")
                    child.kill(SIGKILL)
                    _ = child.wait(timeout: 10)
                    continue
                }
                if delay > 0 { usleep(useconds_t(delay * 1000)) }  // the thing tested: the signal this long into the run
                child.kill(SIGTERM)
                let status = child.wait(timeout: 60)
                let stderr = (try? String(contentsOf: logs.appendingPathComponent("stderr"), encoding: .utf8)) ?? ""
                let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                let what = "\(command), SIGTERM \(delay) ms after it started running"
                switch status {
                case .exited(130):
                    XCTAssertEqual(left, [], "\(what): exit 130 must leave nothing behind")
                    XCTAssertTrue(stderr.contains("SIGTERM"), "\(what): \(stderr)")
                case .exited(0):
                    // Done before the signal came: the whole file, nothing else.
                    XCTAssertEqual(left, [name], "\(what): exit 0 \(stderr)")
                    XCTAssertGreaterThan((try? Data(contentsOf: file))?.count ?? 0, 0, what)
                default:
                    XCTFail("\(what): \(status) instead of exit 130 (or 0 when already done); stderr: \(stderr)")
                }
                outcomes["\(status)", default: 0] += 1
            }
        }
        print("\(command): SIGTERM outcomes over \(rounds) rounds of \(delays) ms: \(outcomes)")
    }
}

/// A child started the way a shell starts one (no signal blocked, every stop signal at its
/// default), with its output in LOGS/stdout and LOGS/stderr. Foundation's `Process` would
/// pass on the test thread's signal mask, which may block the very signals under test.
private final class ShellChild {
    enum Status: Equatable, CustomStringConvertible {
        case exited(Int32)
        case killed(Int32)
        case stillRunning

        var description: String {
            switch self {
            case .exited(let code): return "exit \(code)"
            case .killed(let signal): return "killed by signal \(signal) (exit \(128 + signal))"
            case .stillRunning: return "still running"
            }
        }
    }

    let pid: pid_t

    init(_ path: String, _ arguments: [String], logs: URL) throws {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGUSR1] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logs.appendingPathComponent("stdout").path,
                                         O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, logs.appendingPathComponent("stderr").path,
                                         O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        self.pid = pid
    }

    /// Polls /proc/PID/status until the program's code runs: a signal handler installed
    /// (exec leaves none). False when it ended or `timeout` passed first.
    func waitUntilRunning(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                  !status.contains("State:\tZ") else { return false }
            let caught = status.split(separator: "\n").first { $0.hasPrefix("SigCgt:") }
                .flatMap { UInt64($0.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16) } ?? 0
            if caught != 0 { return true }
            usleep(100)  // nothing announces a handler: a 0.1 ms poll, so the signal follows it within the delay tested
        }
        return false
    }

    func kill(_ signal: Int32) { _ = Glibc.kill(pid, signal) }

    /// Reaps the child; `.stillRunning` (after SIGKILL) when it took longer than `timeout`.
    func wait(timeout: TimeInterval) -> Status {
        // A blocking waitpid on a thread of its own: the wait ends at the exit, not at a poll.
        final class Reaped: @unchecked Sendable { var status: Int32 = 0 }  // written before `done` is signalled
        let reaped = Reaped(), done = DispatchSemaphore(value: 0), pid = pid
        DispatchQueue.global().async {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            reaped.status = status
            done.signal()
        }
        if done.wait(timeout: .now() + timeout) == .timedOut {
            Glibc.kill(pid, SIGKILL)
            done.wait()
            return .stillRunning
        }
        let status = reaped.status
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
        if status & 0x7f == 0 { return .exited((status >> 8) & 0xff) }
        return .killed(status & 0x7f)
    }
}
