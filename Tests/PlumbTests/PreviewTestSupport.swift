import Foundation
import GStreamer
@testable import Plumb
import PlumbRTSP
import PlumbTestSupport
import XCTest
import GLib

/// An RTSP preview of a stream, served from a context thread of its own; stopped (the
/// server, then its thread) when the test ends, or earlier by `stop`.
struct ServedPreview {
    let preview: RTSPPreview
    let loop: MainContextThread

    var url: String { preview.url }

    static func start(_ test: XCTestCase, stream: EncodedStream,
                      configuration: RTSPPreview.Configuration = .init(port: 0)) throws -> ServedPreview {
        let loop = MainContextThread(name: "rtsp-preview-test")
        let served = ServedPreview(preview: try RTSPPreview(stream: stream, configuration: configuration), loop: loop)
        test.addTeardownBlock { served.stop() }
        try served.preview.start(on: loop.context)
        return served
    }

    func stop() {
        preview.stop()
        loop.stop()
    }
}

/// A running stand-in source (test pattern -> encoded preview) and an RTSP preview of it,
/// both torn down when the test ends.
struct PreviewRig {
    let source: PreviewTestSource
    let served: ServedPreview

    var preview: RTSPPreview { served.preview }
    var url: String { served.url }

    static func start(_ test: XCTestCase, size: VideoSize = VideoSize(width: 320, height: 240), rate: Int = 30,
                      encoding: PreviewEncoding = PreviewEncoding(keyframeInterval: 3000),
                      configuration: RTSPPreview.Configuration = .init(port: 0)) throws -> PreviewRig {
        let source = try PreviewTestSource(size: size, rate: rate, encoding: encoding)
        test.addTeardownBlock { source.stop() }  // runs after the preview's own teardown
        try source.start()
        return PreviewRig(source: source, served: try ServedPreview.start(test, stream: source.stream, configuration: configuration))
    }
}

/// A `gst-launch-1.0` RTSP consumer running as its own process.
final class RTSPConsumer: @unchecked Sendable {  // the process handles are only used from the test thread
    let process: Process
    let out: Pipe
    let err: Pipe
    let started = Date()

    /// `rtspsrc location=URL ! <tail>`; latency 0 so frames are handed on as they come.
    init(_ url: String, transport: String = "tcp", tail: [String]) throws {
        (process, out, err) = try PlumbProcess.start(PlumbProcess.tool("gst-launch-1.0"), [
            "rtspsrc", "location=\(url)", "protocols=\(transport)", "latency=0", "!",
        ] + tail)
    }

    /// Decodes `frames` frames and exits.
    static func decoding(_ url: String, frames: Int) throws -> RTSPConsumer {
        try RTSPConsumer(url, tail: ["rtph264depay", "!", "avdec_h264", "!", "fakesink", "num-buffers=\(frames)",
                                     "sync=false"])
    }

    /// Receives until stopped.
    static func receiving(_ url: String) throws -> RTSPConsumer {
        try RTSPConsumer(url, tail: ["rtph264depay", "!", "fakesink", "sync=false"])
    }

    var isRunning: Bool { process.isRunning }

    /// Waits for it to exit on its own.
    func finish(timeout: TimeInterval) -> ProcessResult {
        PlumbProcess.finish(process, out, err, timeout: timeout)
    }

    /// Interrupts it (as Ctrl-C would) and collects what it printed.
    func stop() -> ProcessResult {
        if process.isRunning { process.interrupt() }
        return PlumbProcess.finish(process, out, err, timeout: 10)
    }
}

extension ProcessResult {
    /// gst-launch saw EOS on its bus: a `num-buffers` consumer got all its frames. (Its
    /// exit status can still be 1: TEARDOWN on the way out may race the server and end
    /// in "Could not write to resource" after the frames were all decoded.)
    var reachedEOS: Bool { stdout.contains("Got EOS from element") }
}

