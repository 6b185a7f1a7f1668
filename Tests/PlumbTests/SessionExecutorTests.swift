import Foundation
import GStreamer
@testable import Plumb
import PlumbTestSupport
import Synchronization
import XCTest
import GLib

/// An actor on a SessionExecutor, to watch where its jobs run.
private actor OnExecutor {
    let executor: SessionExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    init(_ executor: SessionExecutor) { self.executor = executor }

    func threadID() -> pid_t { currentThreadID() }
    func isOnExecutor() -> Bool { executor.isCurrent }

    /// A job that takes a little while, so a bus message arriving meanwhile would overlap it.
    func work(_ journal: Journal) {
        journal.enter()
        defer { journal.leave() }
        var x = 0
        for i in 0..<20_000 { x &+= i }
        _ = x
    }
}

/// Records which thread did what, and whether two things ever ran at once.
final class Journal: Sendable {
    private struct State {
        var threads: Set<pid_t> = []
        var inside = 0
        var overlaps = 0
        var entries = 0
    }
    private let state = Mutex(State())

    func enter() {
        state.withLock { s in
            s.threads.insert(currentThreadID())
            s.inside += 1
            if s.inside > 1 { s.overlaps += 1 }
            s.entries += 1
        }
    }
    func leave() { state.withLock { $0.inside -= 1 } }
    var threads: Set<pid_t> { state.withLock { $0.threads } }
    var overlaps: Int { state.withLock { $0.overlaps } }
    var entries: Int { state.withLock { $0.entries } }
}

/// The kernel's id of the calling thread (gettid), from /proc/thread-self -> "PID/task/TID".
private func currentThreadID() -> pid_t {
    let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
    return pid_t(target.split(separator: "/").last.flatMap { Int32($0) } ?? -1)
}

/// CPU time (user + system, in clock ticks) a thread of this process has used.
private func cpuTicks(of tid: pid_t) -> Int? {
    guard let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return nil }
    // Fields after "(comm)": state is field 3, utime 14, stime 15.
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
    return user + system
}

final class SessionExecutorTests: XCTestCase {
    /// Actor jobs and bus messages (dispatched by the executor's GMainContext) run on one
    /// thread and never at the same time.
    func testJobsAndBusMessagesShareOneThreadAndNeverOverlap() async throws {
        let executor = SessionExecutor(name: "test.executor")
        let actor = OnExecutor(executor)
        let journal = Journal()
        let pipeline = try Pipeline.parse("videotestsrc is-live=true num-buffers=60 ! video/x-raw,width=64,height=48,framerate=100/1 ! fakesink sync=true")
        let eos = OneShot<Void>()
        let watch = pipeline.watchBus(on: executor.context) { message in
            journal.enter()
            defer { journal.leave() }
            XCTAssertTrue(executor.isCurrent, "a bus message was dispatched off the executor's thread")
            if case .eos = message { eos.succeed(()) }
        }
        defer { watch.cancel() }
        try pipeline.setState(.playing)
        // Jobs keep arriving while the bus is busy with state changes and EOS.
        for _ in 0..<300 {
            await actor.work(journal)
        }
        try await eos.value(timeout: .seconds(20), what: "EOS")
        try pipeline.setState(.null)
        let jobThread = await actor.threadID()
        XCTAssertEqual(journal.threads, [jobThread], "jobs or bus messages ran on another thread")
        XCTAssertEqual(journal.overlaps, 0, "a bus message ran during a job")
        XCTAssertGreaterThan(journal.entries, 300, "no bus message arrived")
    }

    /// A job enqueued while the thread sleeps in g_main_context_iteration runs at once
    /// (the enqueue wakes the context), and an idle executor uses no CPU (nothing polls).
    func testAnIdleExecutorSleepsAndWakesForAJob() async throws {
        let executor = SessionExecutor(name: "test.idle")
        let actor = OnExecutor(executor)
        let tid = await actor.threadID()
        XCTAssertNotEqual(tid, currentThreadID())
        let before = try XCTUnwrap(cpuTicks(of: tid))
        try await Task.sleep(for: .seconds(1))  // the thing tested: CPU over an idle second
        let after = try XCTUnwrap(cpuTicks(of: tid))
        // A polling loop would burn most of a second (100 ticks); a sleeping one, none.
        XCTAssertLessThanOrEqual(after - before, 2, "the idle executor thread used CPU: it polls")
        // With no GSource ready, only the wakeup can bring the thread out of its poll.
        for _ in 0..<100 {
            let id = try await within(.seconds(10), "a job on an idle executor") { await actor.threadID() }
            XCTAssertEqual(id, tid)
        }
    }

    /// The thread ends once the session that owns the executor is gone.
    func testTheThreadEndsWithTheSession() async throws {
        var session: CaptureSession? = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 160, height: 120))
        let executor = try XCTUnwrap(session?.executor)
        await session?.close()
        session = nil
        XCTAssertTrue(executor.waitUntilStopped(timeout: .seconds(10)), "the executor thread did not end")
    }
}
