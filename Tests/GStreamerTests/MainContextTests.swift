import Foundation
import GStreamer
import XCTest

/// MainContext.invoke runs on the iterating thread; MainContextThread.stop is idempotent and joins.
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
}

private final class Order: @unchecked Sendable {  // `list` is only touched under `lock`
    private let lock = NSLock()
    private var list: [Int] = []
    func append(_ i: Int) { lock.withLock { list.append(i) } }
    var values: [Int] { lock.withLock { list } }
}
