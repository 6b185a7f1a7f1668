import GStreamer
import XCTest
import GLib

/// A failed state change throws the bus error that caused it; a change that
/// never completes throws a time-out.
final class StateChangeTests: XCTestCase {
    func testFailedChangeThrowsTheBusError() throws {
        let location = "\(missingDirectory)/clip.mp4"
        let pipeline = try Pipeline.parse("videotestsrc ! filesink name=out location=\(location)")
        defer { try? pipeline.setState(.null) }
        XCTAssertThrowsError(try pipeline.setState(.playing)) { thrown in
            guard let error = thrown as? GStreamerError else { return XCTFail("\(thrown)") }
            XCTAssertEqual(error.domain, GStreamerError.resourceDomain)
            XCTAssertEqual(error.resource, .openWrite)
            XCTAssertEqual(error.message, "Could not open file \"\(location)\" for writing.")
            XCTAssertTrue(error.debug?.contains("No such file or directory") ?? false, "\(error)")
            XCTAssertTrue(error.source?.hasSuffix("/GstFileSink:out") ?? false, "\(error)")
        }
    }

    func testErrorDuringAsyncPrerollEndsTheWaitWithThatError() throws {
        let pipeline = try unnegotiablePipeline()
        defer { try? pipeline.setState(.null) }
        XCTAssertThrowsError(try pipeline.setState(.paused, timeout: .seconds(30))) { thrown in
            guard let error = thrown as? GStreamerError else { return XCTFail("\(thrown)") }
            // Not a time-out: the streaming error posted during preroll is what is thrown.
            XCTAssertEqual(error.domain, GStreamerError.streamDomain, "\(error)")
            XCTAssertTrue(error.debug?.contains("not-negotiated") ?? false, "\(error)")
            XCTAssertEqual(error.sourceName, "src")
        }
    }

    func testAChangeThatNeverCompletesTimesOut() throws {
        // appsrc with no data: the sink never gets a buffer to preroll on.
        let pipeline = try Pipeline.parse("appsrc name=src ! fakesink")
        XCTAssertThrowsError(try pipeline.setState(.paused, timeout: .milliseconds(300))) { thrown in
            guard let error = thrown as? GStreamerError else { return XCTFail("\(thrown)") }
            XCTAssertTrue(error.isOwn(.stateChangeTimedOut), "\(error)")
            XCTAssertTrue(error.message.contains("did not reach PAUSED within 0.3 seconds"), error.message)
            XCTAssertEqual(error.source, pipeline.path)
        }
        try pipeline.setState(.null)
        XCTAssertEqual(pipeline.currentState, .null)
    }

    func testSuccessfulChanges() throws {
        let pipeline = try Pipeline.parse("videotestsrc is-live=true ! fakesink")
        defer { try? pipeline.setState(.null) }
        try pipeline.setState(.ready)
        XCTAssertEqual(pipeline.currentState, .ready)
        try pipeline.setState(.paused)  // live: no preroll
        try pipeline.setState(.playing)
        XCTAssertEqual(pipeline.currentState, .playing)
    }

    /// Another wrapper of the same pipeline (from `parent`) shares its error
    /// recorder: no GLib warning about the bus's sync handler, and the first
    /// wrapper still surfaces bus errors after the second one is gone.
    func testWrappersOfTheSamePipelineShareTheErrorRecorder() throws {
        let pipeline = try Pipeline.parse(
            "videotestsrc ! filesink name=out location=\(missingDirectory)/a.raw")
        defer { try? pipeline.setState(.null) }
        let sink = try XCTUnwrap(pipeline.element(named: "out"))
        let (_, logged) = try GLibLog.capture { () throws -> Void in
            let again = try XCTUnwrap(sink.parent as? Pipeline)
            XCTAssertEqual(again.path, pipeline.path)
            // The child's own change finds the recorder through its parent.
            XCTAssertThrowsError(try sink.setState(.paused)) { thrown in
                XCTAssertEqual((thrown as? GStreamerError)?.domain, GStreamerError.resourceDomain, "\(thrown)")
            }
            try sink.setState(.null)
        }
        XCTAssertEqual(logged.map(\.description), [])
        XCTAssertThrowsError(try pipeline.setState(.playing)) { thrown in
            XCTAssertEqual((thrown as? GStreamerError)?.domain, GStreamerError.resourceDomain, "\(thrown)")
        }
    }
}
