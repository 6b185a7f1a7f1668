import Foundation
import PlumbTestSupport
import XCTest
import GLib

/// MainContext.invoke runs on the iterating thread; MainContextThread.stop is idempotent and
/// joins; its job queue runs in order on the thread, and `sync` waits for (or stands in for) it.
final class MainContextTests: XCTestCase {
    func testInvokeRunsOnTheIteratingThread() {
        // Right after init too: the thread owns the context before init returns.
        for _ in 0..<20 {
            let thread = MainContextThread()
            let ran = expectation(description: "invoked")
            let onIteratingThread = Counter()
            let caller = pthread_self()
            thread.context.invoke {
                if thread.isCurrent && pthread_equal(pthread_self(), caller) == 0 { onIteratingThread.increment() }
                ran.fulfill()
            }
            wait(for: [ran], timeout: 10)
            XCTAssertEqual(onIteratingThread.value, 1)
            XCTAssertFalse(thread.isCurrent)
            thread.stop()
        }
    }

    func testInvokesRunInOrder() {
        let thread = MainContextThread()
        defer { thread.stop() }
        let order = Order()
        let done = expectation(description: "all invoked")
        for i in 0..<100 {
            thread.context.invoke {
                order.append(i)
                if i == 99 { done.fulfill() }
            }
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(order.values, Array(0..<100))
    }

    func testStopJoinsAndIsIdempotent() {
        let thread = MainContextThread()
        let started = DispatchSemaphore(value: 0)
        let finished = Counter()
        thread.context.invoke {
            started.signal()
            Thread.sleep(forTimeInterval: 0.2)  // the dispatch stop() must wait for
            finished.increment()
        }
        started.wait()
        // Several callers at once: each returns only once the thread has ended.
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            thread.stop()
            XCTAssertEqual(finished.value, 1, "stop returned before the running dispatch ended")
        }
        thread.stop()  // again, after the fact
        XCTAssertEqual(finished.value, 1)
    }

    func testStopFromTheIteratingThreadDoesNotDeadlock() {
        let thread = MainContextThread()
        let stopped = expectation(description: "stop returned on its own thread")
        thread.context.invoke {
            thread.stop()
            stopped.fulfill()
        }
        wait(for: [stopped], timeout: 10)
        thread.stop()  // joins the now-ending thread
    }

    func testDroppingARunningThreadStopsIt() {
        let ran = expectation(description: "invoked")
        weak var weakContext: MainContext?
        do {
            let thread = MainContextThread()
            weakContext = thread.context
            thread.context.invoke { ran.fulfill() }
            wait(for: [ran], timeout: 10)
        }  // deinit stops and joins; the thread's closure no longer holds the context
        XCTAssertNil(weakContext)
    }

    /// Jobs run in order on the thread, interleaved with the context's own sources, never at once.
    func testJobsRunInOrderOnTheThreadBetweenIterations() {
        let thread = MainContextThread(name: "test.jobs")
        defer { thread.stop() }
        let order = Order()
        let inside = Counter(), overlaps = Counter(), offThread = Counter()
        let done = expectation(description: "all ran")
        done.expectedFulfillmentCount = 200
        @Sendable func enter() {
            inside.increment()
            if inside.value > 1 { overlaps.increment() }
            if !thread.isCurrent { offThread.increment() }
        }
        for i in 0..<100 {
            XCTAssertTrue(thread.enqueue {
                enter()
                order.append(i)
                inside.set(inside.value - 1)
                done.fulfill()
            })
            thread.context.invoke {  // a GSource, dispatched between batches of jobs
                enter()
                inside.set(inside.value - 1)
                done.fulfill()
            }
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(order.values, Array(0..<100))
        XCTAssertEqual(overlaps.value, 0)
        XCTAssertEqual(offThread.value, 0)
    }

    /// `sync` returns what the work returned, or throws what it threw, having run it on the
    /// thread; called on the thread itself, it runs the work at once.
    func testSyncRunsOnTheThreadAndReturnsOrThrows() {
        let thread = MainContextThread(name: "test.sync")
        defer { thread.stop() }
        struct Refused: Error, Equatable {}
        XCTAssertEqual(thread.sync { thread.isCurrent ? 42 : -1 }, 42)
        XCTAssertThrowsError(try thread.sync { () throws(Refused) -> Int in throw Refused() }) { error in
            XCTAssertEqual(error as? Refused, Refused())
        }
        var captured = [Int]()  // not Sendable-checked: the caller waits
        thread.sync { captured.append(thread.sync { 7 }) }  // nested: at once, no deadlock
        XCTAssertEqual(captured, [7])
    }

    /// A stop runs the jobs queued before it; later ones are refused; waitUntilStopped sees the end.
    func testRequestStopRunsQueuedJobsThenRefusesMore() {
        let thread = MainContextThread(name: "test.stop")
        let gate = DispatchSemaphore(value: 0)
        let ran = Counter()
        thread.enqueue { gate.wait() }  // holds the thread while the rest is queued
        for _ in 0..<10 { thread.enqueue { ran.increment() } }
        thread.requestStop()
        XCTAssertFalse(thread.waitUntilStopped(timeout: .milliseconds(50)), "ended with jobs queued")
        gate.signal()
        XCTAssertTrue(thread.waitUntilStopped(timeout: .seconds(10)))
        XCTAssertTrue(thread.waitUntilStopped(timeout: .seconds(1)), "a second wait sees the end too")
        XCTAssertEqual(ran.value, 10)
        XCTAssertFalse(thread.enqueue { ran.increment() })
        XCTAssertEqual(ran.value, 10)
    }

    /// After the thread has ended, `sync` runs the work on the caller, which owns the context
    /// meanwhile (as the thread did): an invoke from inside runs at once.
    func testSyncAfterTheEndStandsInForTheThread() {
        let thread = MainContextThread(name: "test.stand-in")
        thread.stop()
        let caller = pthread_self()
        let order = Order()
        let onCaller = thread.sync { () -> Bool in
            XCTAssertTrue(thread.isCurrent)
            thread.context.invoke { order.append(1) }
            order.append(2)
            return pthread_equal(pthread_self(), caller) != 0
        }
        XCTAssertTrue(onCaller)
        XCTAssertEqual(order.values, [1, 2])
        XCTAssertFalse(thread.isCurrent)
    }
}

private final class Order: @unchecked Sendable {  // `list` is only touched under `lock`
    private let lock = NSLock()
    private var list: [Int] = []
    func append(_ i: Int) { lock.withLock { list.append(i) } }
    var values: [Int] { lock.withLock { list } }
}
