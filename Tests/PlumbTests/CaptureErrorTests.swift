import Foundation
import GStreamer
@testable import Plumb
@testable import PlumbDescription
import PlumbTestSupport
import XCTest

/// GStreamer's failures become the engine's own errors where the engine meets them: a
/// full disk is `storageFull` naming the file, another write failure `storageFailed`, the
/// rest `outputFailed`, matched by GStreamer's code names, never by a domain and a number.
final class CaptureErrorTests: XCTestCase {
    /// A real full disk (a 320k tmpfs) under a running recording: its branch ends with
    /// `storageFull` naming the file, the facts say so in words, and the camera keeps running.
    func testAFullDiskEndsTheRecordingWithStorageFullNamingTheFile() async throws {
        let disk = try mountSmallDisk(self, size: "320k")
        let session = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 320, height: 240))
        addTeardownBlock { await session.close() }
        let url = disk.appendingPathComponent("full.mp4")
        let recording = try await session.startRecording(to: url)
        do {
            _ = try await recording.output.finished.value(timeout: .seconds(60), what: "the full disk to end the recording")
            XCTFail("a recording on a full 320k disk finished")
        } catch CaptureError.storageFull(let output, let path, let failure) {
            XCTAssertEqual(output, recording.output.kind)
            XCTAssertEqual(path, url.path)
            XCTAssertFalse(failure.message.isEmpty)
            XCTAssertNotNil(failure.element, "\(failure)")
        }
        let error = try XCTUnwrap(recording.output.finished.result.flatMap { if case .failure(let e) = $0 { e } else { nil } })
        XCTAssertTrue((error as? CaptureError)?.isStorageFailure == true, "\(error)")
        XCTAssertEqual(recording.factsAfterFailure?.error, "No space left on device: cannot write \(url.path)")
        try await session.waitForFrames(5)
    }

    /// The engine's table, on a branch bin with a real filesink: each write failure of the
    /// file is storage (with the sink's file), a full disk `storageFull`; an encoder's error
    /// or a read failure is the branch's failure, with GStreamer's words and the element.
    func testBranchErrorsMapByNamedCode() throws {
        let bin = try Bin(name: "branch7")
        let sink = try Element(factory: "filesink", name: "sink")
        try sink.set("location", "/media/card/a.mp4")
        let encoder = try Element(factory: "x264enc", name: "encoder")
        try bin.add(sink, encoder)
        let sinkPath = "/GstPipeline:plumb-session/GstBin:branch7/GstFileSink:sink"
        let encoderPath = "/GstPipeline:plumb-session/GstBin:branch7/GstX264Enc:encoder"

        let full = CaptureError.branch("recording", failed: GStreamerError(.noSpaceLeft, message: "No space left on the resource.",
                                                                        source: sinkPath), in: bin)
        guard case .storageFull("recording", "/media/card/a.mp4", let failure) = full else { return XCTFail("\(full)") }
        XCTAssertEqual(failure.elementName, "sink")
        XCTAssertEqual(full.description, "recording failed: \(sinkPath): No space left on the resource.")
        XCTAssertTrue(full.isStorageFailure)

        for code: GStreamerError.ResourceCode in [.openWrite, .write, .seek, .sync, .close] {
            let error = CaptureError.branch("recording", failed: GStreamerError(code, message: "x", debug: "EIO", source: sinkPath), in: bin)
            guard case .storageFailed("recording", "/media/card/a.mp4", let failure) = error else { return XCTFail("\(code): \(error)") }
            XCTAssertEqual(failure, PipelineFailure(message: "x", detail: "EIO", element: sinkPath))
            XCTAssertTrue(error.isStorageFailure)
        }

        let encode = CaptureError.branch("recording", failed: GStreamerError(.encode, message: "Encode failed.", source: encoderPath), in: bin)
        guard case .outputFailed("recording", let failure) = encode else { return XCTFail("\(encode)") }
        XCTAssertEqual(failure.elementName, "encoder")
        XCTAssertFalse(encode.isStorageFailure)
        let read = CaptureError.branch("recording", failed: GStreamerError(.read, message: "x", source: sinkPath), in: bin)
        XCTAssertFalse(read.isStorageFailure, "\(read)")
        // A storage failure from an element that names no file: still storage, no path.
        let unnamed = CaptureError.branch("recording", failed: GStreamerError(.write, message: "x", source: encoderPath), in: bin)
        guard case .storageFailed(_, nil, _) = unnamed else { return XCTFail("\(unnamed)") }
    }
}
