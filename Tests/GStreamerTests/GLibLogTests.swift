import GStreamer
import XCTest
import GLib

/// `GLibLog.capture`, on which the "no GLib warning" assertions rely, really sees GLib's log.
final class GLibLogTests: XCTestCase {
    func testCaptureSeesAGLibCritical() {
        let context = MainContext()
        // Popping a context this thread never pushed fails a g_return_if_fail in GLib.
        let (_, entries) = GLibLog.capture { context.popThreadDefault() }
        XCTAssertEqual(entries.count, 1, "\(entries)")
        XCTAssertEqual(entries.first?.domain, "GLib")
        XCTAssertEqual(entries.first?.level, "critical")
        XCTAssertTrue(entries.first?.message.contains("g_main_context_pop_thread_default") ?? false, "\(entries)")
    }

    func testBinAddAndRemoveRefuseWithoutAGLibWarning() throws {
        let element = try Element(factory: "fakesink", name: "s")
        let first = try Bin(name: "first"), second = try Bin(name: "second")
        try first.add(element)
        // The layer checks first, so adding to a second bin throws instead of GLib warning.
        let (thrown, entries) = GLibLog.capture { () -> GStreamerError? in
            do throws(GStreamerError) { try second.add(element); return nil } catch { return error }
        }
        XCTAssertEqual(thrown?.message, "could not add s to second: it is already in first")
        XCTAssertEqual(entries.map(\.description), [])
        let clash = try Element(factory: "fakesink", name: "s")
        XCTAssertThrowsError(try first.add(clash)) { error in
            XCTAssertEqual((error as? GStreamerError)?.message, "could not add s to first: another element has that name")
        }
        XCTAssertThrowsError(try second.remove(element))
        try first.remove(element)
        XCTAssertNil(element.parent)
    }
}
