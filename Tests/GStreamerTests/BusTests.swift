import PlumbTestSupport
import GStreamer
import XCTest
import GLib

/// Bus messages delivered as an AsyncStream from a watch on a MainContext that a
/// MainContextThread iterates: EOS, errors, state changes, element messages,
/// warnings; and the watch's release.
final class BusTests: XCTestCase {
    var thread: MainContextThread!

    override func setUp() { thread = MainContextThread() }
    override func tearDown() { thread.stop(); thread = nil }

    func testEOSAndStateChanges() async throws {
        let pipeline = try Pipeline.parse("videotestsrc num-buffers=10 ! fakesink name=sink")
        let stream = pipeline.messages(on: thread.context)
        try pipeline.setState(.playing)
        let seen = try await read(stream, what: "EOS") { $0.isEOS }
        try pipeline.setState(.null)

        guard case .eos(let source)? = seen.last else { return XCTFail("no EOS in \(seen)") }
        XCTAssertEqual(source, pipeline.path, "the pipeline posts EOS once every sink has it")

        var pipelineSteps: [String] = []
        var sinkSteps: [String] = []
        for case let .stateChanged(source, old, new, _, isPipeline) in seen {
            if isPipeline {
                XCTAssertEqual(source, pipeline.path)
                pipelineSteps.append("\(old)->\(new)")
            } else if source.hasSuffix("/GstFakeSink:sink") {
                sinkSteps.append("\(old)->\(new)")
            }
        }
        XCTAssertEqual(pipelineSteps, ["NULL->READY", "READY->PAUSED", "PAUSED->PLAYING"])
        XCTAssertEqual(sinkSteps, ["NULL->READY", "READY->PAUSED", "PAUSED->PLAYING"])
        let others = seen.compactMap { if case .other(let type, _) = $0 { return type } else { return nil } }
        XCTAssertTrue(others.contains("stream-start"), "\(others)")
        XCTAssertTrue(others.contains("async-done"), "\(others)")
    }

    func testResourceErrorArrivesWithDomainCodeDebugAndSource() async throws {
        let location = "\(missingDirectory)/out.raw"
        let pipeline = try Pipeline.parse("videotestsrc num-buffers=1 ! filesink name=out location=\(location)")
        let stream = pipeline.messages(on: thread.context)
        XCTAssertThrowsError(try pipeline.setState(.playing))
        let seen = try await read(stream, what: "an error") { $0.error != nil }
        try pipeline.setState(.null)

        let error = try XCTUnwrap(seen.last?.error)
        XCTAssertEqual(error.domain, GStreamerError.resourceDomain)
        XCTAssertEqual(error.resource, .openWrite)
        XCTAssertNil(error.stream)
        XCTAssertEqual(error.message, "Could not open file \"\(location)\" for writing.")
        XCTAssertTrue(error.debug?.contains("No such file or directory") ?? false, "\(error)")
        XCTAssertEqual(error.source, pipeline.element(named: "out")?.path)
        XCTAssertEqual(error.sourceName, "out")
    }

    /// A write into a full device is GST_RESOURCE_ERROR_NO_SPACE_LEFT by name (/dev/full
    /// fails every write with ENOSPC, as a full disk does).
    func testAFullDeviceIsNoSpaceLeftByName() async throws {
        let pipeline = try Pipeline.parse("videotestsrc num-buffers=5 ! filesink name=out location=/dev/full")
        let stream = pipeline.messages(on: thread.context)
        // The first write may fail before the state change returns (a fast machine): the
        // change then fails too, and the error is on the bus either way.
        _ = try? pipeline.setState(.playing)
        let seen = try await read(stream, what: "an error") { $0.error != nil }
        try pipeline.setState(.null)

        let error = try XCTUnwrap(seen.last?.error)
        XCTAssertEqual(error.resource, .noSpaceLeft, "\(error)")
        XCTAssertNotEqual(error.resource, .write)
        XCTAssertEqual(error.sourceName, "out")
        // The names are GStreamer's own numbers (gsterror.h), read from its constants.
        XCTAssertEqual(GStreamerError.ResourceCode.noSpaceLeft.rawValue, 14)
        XCTAssertEqual(GStreamerError.ResourceCode.openWrite.rawValue, 6)
        XCTAssertEqual(GStreamerError.CoreCode.negotiation.rawValue, 7)
        XCTAssertEqual(GStreamerError.StreamCode.encode.rawValue, 8)
    }

    func testNegotiationErrorArrivesFromTheSource() async throws {
        let pipeline = try unnegotiablePipeline()
        let stream = pipeline.messages(on: thread.context)
        XCTAssertThrowsError(try pipeline.setState(.paused))
        let seen = try await read(stream, what: "an error") { $0.error != nil }
        try pipeline.setState(.null)

        let error = try XCTUnwrap(seen.last?.error)
        XCTAssertEqual(error.domain, GStreamerError.streamDomain)
        XCTAssertEqual(error.stream, .failed, "GST_ELEMENT_FLOW_ERROR's code")
        XCTAssertNil(error.resource)
        XCTAssertEqual(error.message, "Internal data stream error.")
        XCTAssertTrue(error.debug?.contains("not-negotiated") ?? false, "\(error)")
        XCTAssertEqual(error.sourceName, "src")
    }

    func testElementMessagesCarryTheirStructure() async throws {
        let pipeline = try Pipeline.parse("videotestsrc num-buffers=3 ! videoanalyse name=analyse ! fakesink")
        let stream = pipeline.messages(on: thread.context)
        try pipeline.setState(.playing)
        let seen = try await read(stream, what: "EOS") { $0.isEOS }
        try pipeline.setState(.null)

        let analyses = seen.compactMap { message -> Structure? in
            guard case let .element(source, structure) = message, source.hasSuffix(":analyse") else { return nil }
            return structure
        }
        XCTAssertEqual(analyses.count, 3, "one per frame")
        let first = try XCTUnwrap(analyses.first)
        XCTAssertEqual(first.name, "GstVideoAnalyse")
        let luma = try XCTUnwrap(first.double("luma-average"))
        XCTAssertTrue(luma > 0 && luma < 1, "\(luma)")
    }

    func testWarningsArriveAsWarnings() async throws {
        let pipeline = try Pipeline.parse("videotestsrc num-buffers=1 ! fakesink name=sink")
        let stream = pipeline.messages(on: thread.context)
        try pipeline.setState(.playing)
        let sink = try XCTUnwrap(pipeline.element(named: "sink"))
        sink.postWarning("the card is almost full", debug: "12 MB left")
        let seen = try await read(stream, what: "a warning") { $0.warning != nil }
        try pipeline.setState(.null)

        let warning = try XCTUnwrap(seen.last?.warning)
        XCTAssertEqual(warning.domain, GStreamerError.ownDomain)
        XCTAssertEqual(warning.message, "the card is almost full")
        XCTAssertEqual(warning.debug, "12 MB left")
        XCTAssertEqual(warning.source, sink.path)
    }

    // MARK: Releasing the watch

    func testDroppingTheStreamReleasesTheWatchAndThePipeline() async throws {
        let watches = LiveCounts.liveBusWatches
        let wrappers = LiveCounts.liveObjectWrappers
        weak var weakPipeline: Pipeline?
        do {
            let pipeline = try Pipeline.parse("videotestsrc num-buffers=10 ! fakesink")
            weakPipeline = pipeline
            var stream: AsyncStream<BusMessage>? = pipeline.messages(on: thread.context)
            XCTAssertEqual(LiveCounts.liveBusWatches, watches + 1)
            try pipeline.setState(.playing)
            _ = try await read(stream!, what: "EOS") { $0.isEOS }
            try pipeline.setState(.null)
            stream = nil
            await eventually("dropping the stream removes the watch's GSource") { LiveCounts.liveBusWatches == watches }
        }
        XCTAssertNil(weakPipeline, "the watch does not keep the pipeline wrapper")
        XCTAssertEqual(LiveCounts.liveObjectWrappers, wrappers)
    }

    func testAStreamNeverReadIsReleasedWhenDropped() throws {
        let watches = LiveCounts.liveBusWatches
        let pipeline = try Pipeline.parse("videotestsrc num-buffers=1 ! fakesink")
        var stream: AsyncStream<BusMessage>? = pipeline.messages(on: thread.context)
        XCTAssertEqual(LiveCounts.liveBusWatches, watches + 1)
        XCTAssertNotNil(stream)
        stream = nil
        XCTAssertEqual(LiveCounts.liveBusWatches, watches, "released at once: nothing else holds the stream")
    }

    func testStoppingTheThreadThenDroppingTheStreamReleasesTheWatch() async throws {
        let watches = LiveCounts.liveBusWatches
        let pipeline = try Pipeline.parse("videotestsrc num-buffers=5 ! fakesink")
        var stream: AsyncStream<BusMessage>? = pipeline.messages(on: thread.context)
        try pipeline.setState(.playing)
        _ = try await read(stream!, what: "EOS") { $0.isEOS }
        thread.stop()
        try pipeline.setState(.null)  // posts state changes nobody will dispatch
        stream = nil
        await eventually("LiveCounts.liveBusWatches == watches") { LiveCounts.liveBusWatches == watches }
    }

    func testFreeingTheContextReleasesTheWatchWhileTheStreamLives() throws {
        let watches = LiveCounts.liveBusWatches
        let pipeline = try Pipeline.parse("videotestsrc num-buffers=1 ! fakesink")
        var own: MainContextThread? = MainContextThread()
        let stream = pipeline.messages(on: own!.context)
        XCTAssertEqual(LiveCounts.liveBusWatches, watches + 1)
        own = nil  // stops the thread and frees the GMainContext, which destroys its sources
        XCTAssertEqual(LiveCounts.liveBusWatches, watches)
        withExtendedLifetime(stream) {}
    }
}
