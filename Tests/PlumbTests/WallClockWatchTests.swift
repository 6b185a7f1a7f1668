import Foundation
@testable import Plumb
@testable import PlumbLocation
import PlumbTestSupport
import Synchronization
import XCTest

/// The wall clock compared with the monotonic one, on given readings of both: time that
/// passes on both is no jump, a step beyond the threshold either way is one (its size the
/// step, not the time between checks), and a change of the kernel's word is handed on.
final class WallClockWatchTests: XCTestCase {
    func testStepsBeyondTheThresholdAreJumps() {
        let jumps = Mutex<[WallClockWatch.Jump]>([])
        let synced = Mutex<Bool?>(false)
        let changes = Mutex<[Bool?]>([])
        let watch = WallClockWatch(threshold: .seconds(2), synchronized: { synced.withLock { $0 } },
                                   onJump: { j in jumps.withLock { $0.append(j) } },
                                   onSynchronization: { s in changes.withLock { $0.append(s) } })
        let wall = Date(timeIntervalSince1970: 1_700_000_000)
        let mono = ContinuousClock.now
        watch.check(wall: wall, monotonic: mono)
        // 1 s on both, then 1.5 s of drift: no jump.
        watch.check(wall: wall + 1, monotonic: mono + .seconds(1))
        watch.check(wall: wall + 3.5, monotonic: mono + .seconds(2))
        XCTAssertEqual(jumps.withLock { $0 }, [])
        // NTP steps it 3 h 0 m 2 s ahead while a second passes.
        watch.check(wall: wall + 3.5 + 1 + 10802, monotonic: mono + .seconds(3))
        // Then an hour back.
        synced.withLock { $0 = true }
        watch.check(wall: wall + 3.5 + 2 + 10802 - 3600, monotonic: mono + .seconds(4))
        let seen = jumps.withLock { $0 }
        XCTAssertEqual(seen.map(\.signed), ["+3h0m2s", "-1h0m0s"])
        XCTAssertEqual(seen.first?.seconds, 10802)
        XCTAssertEqual(seen.first?.from, (wall + 4.5).iso8601Milliseconds)
        XCTAssertEqual(watch.status, WallClockWatch.Status(synchronized: true, jumps: 2, lastJump: seen.last))
        XCTAssertEqual(changes.withLock { $0 }, [true])
        XCTAssertEqual(WallClockWatch.Jump.render(-4), "-4s")
        XCTAssertEqual(WallClockWatch.Jump.render(125), "+2m5s")
    }

    /// A thread held between its reads of the two clocks (a loaded machine, as CI saw) is no
    /// jump: both clocks run together here, and the thread stops for 3 s right after reading
    /// the wall clock once. Read the plain way, wall then monotonic, that pair is 3 s apart
    /// and passes for a -3 s jump (then +3 s at the next check).
    func testAThreadHeldBetweenTheTwoReadingsIsNoJump() {
        let jumps = Mutex<[WallClockWatch.Jump]>([])
        let watch = WallClockWatch(threshold: .seconds(2), synchronized: { nil },
                                   onJump: { j in jumps.withLock { $0.append(j) } })
        let wall0 = Date(timeIntervalSince1970: 1_700_000_000)
        let mono0 = ContinuousClock.now
        var elapsed = Duration.zero  // the simulated time, the same on both clocks
        var held = false
        let wall = { () -> Date in
            let reading = wall0 + Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            if held {  // descheduled for 3 s after this read
                held = false
                elapsed += .seconds(3)
            }
            return reading
        }
        let monotonic = { mono0 + elapsed }
        for second in 0..<4 {
            held = second == 2
            let (w, m) = WallClockWatch.reading(within: watch.threshold / 4, wall: wall, monotonic: monotonic)
            watch.check(wall: w, monotonic: m)
            elapsed += .seconds(1)
        }
        XCTAssertEqual(jumps.withLock { $0 }, [], "a wait between the two reads taken for a jump")
        XCTAssertEqual(watch.status.jumps, 0)
        // A real step is still one, read the same way.
        let (w, m) = WallClockWatch.reading(within: watch.threshold / 4, wall: { wall() + 3600 }, monotonic: monotonic)
        watch.check(wall: w, monotonic: m)
        XCTAssertEqual(jumps.withLock { $0 }.map(\.signed), ["+1h0m0s"])
    }

    /// `GET /status`'s `clock`: every key, null when unknown.
    func testStatusEncodesEveryKey() throws {
        let status = WallClockWatch.Status(synchronized: nil, jumps: 0, lastJump: nil)
        let text = String(decoding: try JSONEncoder().encode(status), as: UTF8.self)
        XCTAssertTrue(text.contains(#""synchronized":null"#) && text.contains(#""last_jump":null"#), text)
    }

    /// A real set of the machine's wall clock is heard from the kernel (the timerfd), not
    /// found by polling: the synchronisation check is an hour apart here, and each step is
    /// seen at once, by its size. The clock is stepped 5 s forward and back again (restored
    /// on failure too); setting it needs root (CAP_SYS_TIME), which the tests run as.
    func testARealSetOfTheWallClockIsHeard() async throws {
        let jumps = Mutex<[WallClockWatch.Jump]>([])
        let watch = WallClockWatch(synchronizationInterval: .seconds(3600), threshold: .seconds(2),
                                   synchronized: { nil }, onJump: { j in jumps.withLock { $0.append(j) } })
        try watch.start()
        defer { watch.stop() }
        try WallClockStep.step(by: 5)
        var stepped = 5
        defer {
            do { try WallClockStep.step(by: -stepped) } catch { XCTFail("the wall clock is left \(stepped) s ahead: \(error)") }
        }
        _ = await eventually("the +5 s step heard") { jumps.withLock { $0.count } == 1 }
        try WallClockStep.step(by: -5)
        stepped = 0
        _ = await eventually("the -5 s step heard") { jumps.withLock { $0.count } == 2 }
        XCTAssertEqual(jumps.withLock { $0 }.map(\.signed), ["+5s", "-5s"])
        XCTAssertEqual(watch.status.jumps, 2)
    }

    /// The kernel's word on synchronisation has no event: it is read every
    /// `synchronizationInterval` while started, each change handed on once; `stop()` closes
    /// the timerfd.
    func testSynchronisationIsFollowedWhileStartedAndStopClosesTheTimer() async throws {
        let fds = { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }
        let open = fds()
        let synced = Mutex<Bool?>(false)
        let changes = Mutex<[Bool?]>([])
        let watch = WallClockWatch(synchronizationInterval: .milliseconds(10), synchronized: { synced.withLock { $0 } },
                                   onJump: { _ in }, onSynchronization: { s in changes.withLock { $0.append(s) } })
        try watch.start()
        XCTAssertEqual(fds(), open + 1, "the timerfd")
        synced.withLock { $0 = true }
        _ = await eventually("the change to synchronised heard") { changes.withLock { $0 } == [true] }
        synced.withLock { $0 = nil }
        _ = await eventually("the change to unknown heard") { changes.withLock { $0 } == [true, nil] }
        XCTAssertEqual(watch.status.synchronized, nil)
        watch.stop()
        _ = await eventually("the timerfd closed") { fds() == open }
    }
}
