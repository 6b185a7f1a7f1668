import Foundation
import GStreamer
@testable import Plumb
import PlumbTestSupport
import Synchronization
import XCTest

/// The engine's watch for a camera that stops delivering (`plumb record` and `plumb serve`
/// both use it), on a real session: frames counted while they come, a stall (the source
/// blocked: no frame, no error) named as one, a failure reported as the session's own.
final class StallWatchdogTests: XCTestCase {
    private let qvga = VideoSize(width: 320, height: 240)

    func testAFlowingCameraIsCountedUntilTheWatchIsCancelled() async throws {
        let session = try await CaptureSession.open(.testPattern(), size: qvga, rate: FrameRate(10))
        let counts = Mutex<[Int]>([])
        let watch = Task {
            await StallWatchdog(limit: .seconds(30)).watch(session) { n in counts.withLock { $0.append(n) } }
        }
        await eventually("\(counts.withLock { $0 })", timeout: .seconds(30)) { counts.withLock { $0.count } >= 3 }
        watch.cancel()
        let result = await watch.value
        XCTAssertNil(result, "a cancelled watch reports nothing")
        // Each count comes after a second of frames (10 at 10 fps) more than the one before.
        let seen = counts.withLock { $0 }
        for (a, b) in zip(seen, seen.dropFirst()) { XCTAssertGreaterThanOrEqual(b - a, 10, "\(seen)") }
        await session.close()
    }

    func testACameraThatStopsSendingIsAStall() async throws {
        let session = try await CaptureSession.open(.testPattern(), size: qvga, rate: FrameRate(10))
        let found = await session.element(named: "src")
        let pad = try XCTUnwrap(found?.staticPad("src"))
        // The source's frames wait at its pad: the camera neither fails nor delivers.
        let block = pad.addProbe([.block, .buffer]) { _ in .ok }
        let error = try await within(.seconds(30), "the stall") {
            await StallWatchdog(limit: .seconds(1)).watch(session)
        }
        guard case .camera(let camera)? = error else {
            return XCTFail("not a camera error: \(String(describing: error))")
        }
        XCTAssertEqual(camera.device, "test")
        XCTAssertEqual(camera.cause, .noFrames)
        XCTAssertEqual(camera.detail, "it stopped delivering frames for \(Duration.seconds(1))")
        let failure = await session.failure
        XCTAssertNil(failure, "a stall is the watchdog's finding: the session itself did not fail")
        pad.removeProbe(block)
        await session.close()
    }

    /// A camera that slows down (long exposures in the dark: here 4 frames of 5 dropped at
    /// its pad, 2 fps of a 10 fps camera) is not a stall; it is one once nothing comes.
    /// Two frames in each 1 s window, so a frame late by up to half a second on a loaded
    /// machine still lands in its window (at 1 fps one late frame emptied a window); and the
    /// camera's run is measured in its own frames, not in seconds slept.
    func testASlowCameraIsNoStallUntilItSendsNothing() async throws {
        let session = try await CaptureSession.open(.testPattern(), size: qvga, rate: FrameRate(10))
        let found = await session.element(named: "src")
        let pad = try XCTUnwrap(found?.staticPad("src"))
        let seen = Atomic(0)
        let thin = pad.addProbe([.buffer]) { _ in seen.add(1, ordering: .relaxed).newValue % 5 == 0 ? .ok : .drop }
        let ended = Atomic(false)
        let watch = Task {
            let result = await StallWatchdog(limit: .seconds(1)).watch(session)
            ended.store(true, ordering: .relaxed)
            return result
        }
        // 4 s of the camera's frames (timeout: a guard against hangs only).
        await eventually("the camera ran: \(seen.load(ordering: .relaxed)) frames", timeout: .seconds(60)) { seen.load(ordering: .relaxed) >= 40 }
        XCTAssertFalse(ended.load(ordering: .relaxed), "a slow camera was taken for a stalled one")
        // Now nothing at all.
        let block = pad.addProbe([.block, .buffer]) { _ in .ok }
        let error = try await within(.seconds(30), "the stall") { await watch.value }
        guard case .camera(let camera)? = error else { return XCTFail("not a stall: \(String(describing: error))") }
        XCTAssertEqual(camera.cause, .noFrames)
        pad.removeProbe(block)
        pad.removeProbe(thin)
        await session.close()
    }

    func testAFailingCameraIsTheSessionsFailure() async throws {
        let session = try await CaptureSession.open(.testPattern(), size: qvga, rate: FrameRate(10))
        let watch = Task { await StallWatchdog(limit: .seconds(30)).watch(session) }
        let found = await session.element(named: "src")
        let src = try XCTUnwrap(found)
        src.postResourceError("Could not read from resource.", debug: "system error: No such device")
        let error = try await within(.seconds(20), "the failure") { await watch.value }
        let failure = await session.failure
        XCTAssertNotNil(failure)
        XCTAssertEqual(error.map { "\($0)" }, failure.map { "\($0)" })
        guard case .camera(let camera)? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(camera.device, "test")
        XCTAssertNotEqual(camera.cause, .noFrames, "a failure is not a stall")
        await session.close()
    }
}
