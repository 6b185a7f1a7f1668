import Foundation
import GStreamer
@testable import Plumb
import GStreamerRTSP
import PlumbRTSP
import PlumbTestSupport
import XCTest
import GLib

/// The RTSP preview, read by real clients (ffprobe, GStreamer's rtspsrc) while the
/// stand-in capture pipeline keeps running.
final class RTSPPreviewTests: XCTestCase {
    func testFFprobeReadsTheConfiguredCaps() throws {
        let rig = try PreviewRig.start(self, size: VideoSize(width: 320, height: 240))
        XCTAssertTrue(rig.url.hasSuffix("/preview"), rig.url)
        let (probe, err) = try Probe.live(rig.url)
        let p = try XCTUnwrap(probe, err)
        XCTAssertEqual(p.codec, "h264")
        XCTAssertEqual(p.width, 320)
        XCTAssertEqual(p.height, 240)
    }

    func testRtspsrcDecodesFramesOfTheConfiguredSizeOverTCPAndUDP() throws {
        let rig = try PreviewRig.start(self, size: VideoSize(width: 352, height: 288))
        for transport in ["tcp", "udp"] {
            let consumer = try RTSPConsumer(rig.url, transport: transport, tail: [
                "rtph264depay", "!", "avdec_h264", "!", "video/x-raw,width=352,height=288", "!",
                "fakesink", "num-buffers=30", "sync=false",
            ])
            let r = consumer.finish(timeout: 30)
            XCTAssertTrue(r.reachedEOS, "the \(transport) consumer did not decode 30 frames of 352x288: \(r.stderr)")
        }
        XCTAssertEqual(rig.source.errors, [])
    }

    /// The source side must not notice any consumer: every frame (timestamps one interval
    /// apart) and no stall (arrival gaps bounded generously: the machine is shared; the
    /// benchmark reports the real figure).
    private func assertSourceUndisturbed(_ source: PreviewTestSource, file: StaticString = #filePath, line: UInt = #line) {
        let frames = source.frames
        XCTAssertLessThanOrEqual(frames.largestTimestampGap, source.frameInterval * 3 / 2,
                                 "the source lost frames", file: file, line: line)
        XCTAssertLessThan(frames.largestArrivalGap, 1_000_000_000, "the source stalled", file: file, line: line)
        XCTAssertEqual(source.errors, [], file: file, line: line)
    }

    func testEightConcurrentConsumersAllReceiveFramesWhileTheSourceKeepsEveryFrame() throws {
        let rig = try PreviewRig.start(self)
        eventually("rig.source.frameCount >= 15", timeout: .seconds(10)) { rig.source.frameCount >= 15 }
        let framesAtStart = rig.source.frameCount
        // Each decodes 300 frames: 10 s of the 30 fps stream, all eight at the same time.
        let consumers = try (0..<8).map { _ in try RTSPConsumer.decoding(rig.url, frames: 300) }
        var mostAtOnce = 0
        while consumers.contains(where: \.isRunning) && Date().timeIntervalSince(consumers[0].started) < 60 {
            mostAtOnce = max(mostAtOnce, rig.preview.clientCount)
            usleep(50_000)  // sampling the client count at 20 Hz for its peak
        }
        for (i, consumer) in consumers.enumerated() {
            let r = consumer.finish(timeout: 10)
            XCTAssertTrue(r.reachedEOS, "consumer \(i) did not decode 300 frames: \(r.stderr)")
        }
        XCTAssertEqual(mostAtOnce, 8, "the eight consumers were not all connected at once")
        XCTAssertEqual(rig.preview.mediaCount, 1, "one shared media serves every consumer")
        XCTAssertGreaterThanOrEqual(rig.source.frameCount - framesAtStart, 300, "the source fell behind the consumers")
        assertSourceUndisturbed(rig.source)
    }

    func testAConsumerJoiningMidStreamDecodesAPictureAtOnce() throws {
        // A keyframe every 3000 frames (100 s): only the keyframe asked for on PLAY lets a
        // newcomer decode within seconds.
        let rig = try PreviewRig.start(self, encoding: PreviewEncoding(keyframeInterval: 3000))
        let watcher = try RTSPConsumer.receiving(rig.url)
        defer { _ = watcher.stop() }
        eventually("rig.preview.clientCount == 1 && rig.source.stream.statistics.frames >= 60", timeout: .seconds(15)) { rig.preview.clientCount == 1 && rig.source.stream.statistics.frames >= 60 }
        let keyframesBefore = rig.source.stream.statistics.keyframes
        let start = Date()
        let joiner = try RTSPConsumer.decoding(rig.url, frames: 1)
        let r = joiner.finish(timeout: 30)
        let seconds = Date().timeIntervalSince(start)
        XCTAssertTrue(r.reachedEOS, r.stderr)
        XCTAssertLessThan(seconds, 10, "a picture took \(seconds) s (scheduled keyframes are 100 s apart)")
        print("time to first decoded frame for a joining consumer: \(String(format: "%.2f", seconds)) s "
              + "(gst-launch start-up included)")
        XCTAssertEqual(rig.preview.mediaCount, 1, "the joiner must join the running shared media")
        XCTAssertGreaterThan(rig.source.stream.statistics.keyframes, keyframesBefore, "no keyframe was made for the joiner")
        assertSourceUndisturbed(rig.source)
    }

    func testConsumersLeavingDoNotDisturbTheOthers() throws {
        let rig = try PreviewRig.start(self)
        // The one that stays: 240 frames, 8 s.
        let stayer = try RTSPConsumer.decoding(rig.url, frames: 240)
        eventually("rig.preview.clientCount == 1", timeout: .seconds(15)) { rig.preview.clientCount == 1 }
        let killed = try RTSPConsumer.receiving(rig.url)
        let interrupted = try RTSPConsumer.receiving(rig.url)
        let finisher = try RTSPConsumer.decoding(rig.url, frames: 15)
        eventually("\(rig.preview.clientCount) clients", timeout: .seconds(15)) { rig.preview.clientCount == 4 }
        Thread.sleep(forTimeInterval: 1)  // the four share the stream a while before two leave
        kill(killed.process.processIdentifier, SIGKILL)  // vanishes without TEARDOWN
        _ = killed.stop()
        _ = interrupted.stop()  // SIGINT: leaves properly
        XCTAssertTrue(finisher.finish(timeout: 20).reachedEOS)
        let r = stayer.finish(timeout: 30)
        XCTAssertTrue(r.reachedEOS, "the consumer that stayed did not get its 240 frames: \(r.stderr)")
        // Everyone gone: the shared media goes and its subscription with it ...
        eventually("\(rig.preview.clientCount) clients, \(rig.preview.activeSubscriptions.count) subscriptions", timeout: .seconds(20)) { rig.preview.clientCount == 0 && rig.preview.activeSubscriptions.isEmpty }
        eventually("rig.source.stream.subscriberCount == 0", timeout: .seconds(5)) { rig.source.stream.subscriberCount == 0 }
        // ... and the next consumer gets a new one, at once.
        let next = try RTSPConsumer.decoding(rig.url, frames: 10)
        XCTAssertTrue(next.finish(timeout: 20).reachedEOS)
        XCTAssertEqual(rig.preview.mediaCount, 2)
        assertSourceUndisturbed(rig.source)
    }

    /// The independent testing's finding: each keyframe reached ffmpeg as two access units
    /// with one timestamp — the first new frame an I-frame half concealed, "non
    /// monotonically increasing dts" at every keyframe after it, over TCP and UDP. Four
    /// ffmpeg consumers, 10 s each at `-v warning`: TCP and UDP from the start, and TCP and
    /// UDP joining mid-stream 3 s later (each on a keyframe made for its PLAY). Not one
    /// line on stderr, about 300 frames each. And ffmpeg's demuxer, joining mid-stream
    /// too, sees one access unit per keyframe timestamp, SPS and PPS in front of its slices.
    ///
    /// The preview's encoder takes frames from a leaky queue: on a machine too loaded to
    /// encode every frame it drops some rather than hold the camera back (the source's
    /// own frames stay whole), and the stream carries fewer. A viewer's 10 s then hold
    /// fewer frames, at most as many fewer as the encoder dropped while the viewers ran.
    func testFFmpegConsumersOverTCPAndUDPDecodeEveryFrameWithoutAWarning() throws {
        // Scheduled keyframes every 2 s (plumb serve's default), so several fall in each 10 s.
        let rig = try PreviewRig.start(self, encoding: PreviewEncoding(keyframeInterval: 60))
        eventually("rig.source.frameCount >= 15", timeout: .seconds(10)) { rig.source.frameCount >= 15 }
        let (sourceBefore, encodedBefore) = (rig.source.frameCount, rig.source.stream.statistics.frames)
        let (viewers, packets, probeWarnings) = try FFmpegViewer.fourConsumers(rig.url)
        let (sourceAfter, encodedAfter) = (rig.source.frameCount, rig.source.stream.statistics.frames)
        // Frames still in the encoder at either end count as dropped here: a few at most.
        let dropped = max(0, (sourceAfter - sourceBefore) - (encodedAfter - encodedBefore))
        print("preview encoder: \(encodedAfter - encodedBefore) of the source's \(sourceAfter - sourceBefore) frames "
              + "while the viewers ran (\(dropped) dropped by its leaky queue)")
        for (label, r) in viewers {
            XCTAssertEqual(r.warnings, "", "\(label) warned")
            XCTAssertTrue((285 - dropped...301).contains(r.frames),
                          "\(label) decoded \(r.frames) frames in 10 s of 30 fps; the encoder dropped \(dropped)")
        }
        XCTAssertEqual(probeWarnings, "")
        XCTAssertEqual(RTSPPackets.problems(in: packets), [])
        assertSourceUndisturbed(rig.source)
    }

    /// A consumer that stops reading after PLAY was kept for ever, counted, its queue
    /// growing. With a 2 s limit it goes once data has waited 2 s untaken — reported with
    /// its address — while a healthy consumer decodes on; what the server's kernel held for
    /// it stays small and is freed (the connection is reset, not left to drain).
    func testAConsumerThatStopsReadingIsDroppedWhileAHealthyOneDecodes() throws {
        let rig = try PreviewRig.start(self, configuration: .init(port: 0, stallTimeout: .seconds(2)))
        let drops = DropLog()
        rig.preview.onConsumerDropped = { drops.append($0) }
        let healthy = try RTSPConsumer.decoding(rig.url, frames: 240)  // 8 s
        eventually("rig.preview.clientCount == 1", timeout: .seconds(15)) { rig.preview.clientCount == 1 }
        let started = Date()
        let stalled = try StalledRTSPClient(rig.url)
        XCTAssertEqual(rig.preview.clientCount, 2)
        var largestQueue = 0
        eventually("the drop of the consumer that stopped reading", timeout: .seconds(2 + 6)) {
            let queue = KernelTCPConnection.find(localPort: rig.preview.port, remotePort: stalled.localPort)?.sendQueue ?? 0
            largestQueue = max(largestQueue, queue)
            return !drops.all.isEmpty
        }
        let seconds = Date().timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(seconds, 2, "dropped before its data had waited 2 s")
        print("stalled consumer dropped \(String(format: "%.1f", seconds)) s after PLAY; the server's kernel held "
              + "at most \(largestQueue) bytes for it; \(drops.all.first.map { "\($0)" } ?? "")")
        let drop = try XCTUnwrap(drops.all.first)
        XCTAssertEqual(drops.all.count, 1)
        XCTAssertEqual(drop.address, "127.0.0.1:\(stalled.localPort)")
        XCTAssertGreaterThan(drop.queuedBytes, Int(drop.takenBytes))
        XCTAssertTrue("\(drop)".contains("127.0.0.1:\(stalled.localPort)"), "\(drop)")
        eventually("still \(rig.preview.clientCount) clients", timeout: .seconds(5)) { rig.preview.clientCount == 1 }
        // Bounded: 2 s of a 320x240 preview, not a queue that grows for ever; and freed.
        XCTAssertGreaterThan(largestQueue, 0, "the stalled connection's queue was never seen")
        XCTAssertLessThan(largestQueue, 1 << 20)
        eventually("the server still holds data for the dropped consumer", timeout: .seconds(5)) {
            (KernelTCPConnection.find(localPort: rig.preview.port, remotePort: stalled.localPort)?.sendQueue ?? 0) == 0
        }
        XCTAssertTrue(stalled.waitForServerClose(timeout: 5), "the dropped consumer's connection is still open")
        let r = healthy.finish(timeout: 30)
        XCTAssertTrue(r.reachedEOS, "the healthy consumer did not get its 240 frames: \(r.stderr)")
        XCTAssertEqual(drops.all.count, 1, "the healthy consumer must not be dropped")
        assertSourceUndisturbed(rig.source)
    }

    func testBasicAndDigestAuthentication() throws {
        for method in [PreviewCredentials.Method.basic, .digest] {
            let credentials = PreviewCredentials(method: method, user: "viewer", password: "s3cret")
            let rig = try PreviewRig.start(self, configuration: .init(port: 0, credentials: credentials))
            let (denied, deniedErr) = try Probe.live(rig.url)
            XCTAssertNil(denied, "\(method): served without credentials")
            XCTAssertTrue(deniedErr.contains("401"), "\(method): \(deniedErr)")
            let (wrong, _) = try Probe.live(rig.url.replacingOccurrences(of: "rtsp://", with: "rtsp://viewer:nope@"))
            XCTAssertNil(wrong, "\(method): served with a wrong password")
            let (ok, err) = try Probe.live(rig.url.replacingOccurrences(of: "rtsp://", with: "rtsp://viewer:s3cret@"))
            XCTAssertEqual(ok?.width, 320, "\(method): \(err)")
        }
    }

    func testStoppingThePreviewDisconnectsConsumersAndTheSourceRunsOn() throws {
        let rig = try PreviewRig.start(self)
        let consumer = try RTSPConsumer.receiving(rig.url)
        eventually("rig.preview.clientCount == 1 && rig.source.stream.subscriberCount == 1", timeout: .seconds(15)) { rig.preview.clientCount == 1 && rig.source.stream.subscriberCount == 1 }
        let subscription = try XCTUnwrap(rig.preview.activeSubscriptions.first)
        rig.preview.stop()
        eventually("the consumer was not disconnected (server clients: \(rig.preview.clientCount))", timeout: .seconds(15)) { !consumer.isRunning }
        _ = consumer.stop()
        // The media goes with its last consumer, and its subscription with it.
        eventually("rig.source.stream.subscriberCount == 0 && rig.preview.activeSubscriptions.isEmpty", timeout: .seconds(10)) { rig.source.stream.subscriberCount == 0 && rig.preview.activeSubscriptions.isEmpty }
        XCTAssertEqual(subscription.end, .cancelled)
        let frames = rig.source.frameCount
        eventually("the source stopped with the preview", timeout: .seconds(5)) { rig.source.frameCount >= frames + 30 }
        assertSourceUndisturbed(rig.source)
    }

    func testBadConfigurationsSayWhatToWrite() throws {
        let stream = EncodedStream()
        XCTAssertThrowsError(try RTSPPreview(stream: stream, configuration: .init(path: "preview"))) {
            XCTAssertTrue("\($0)".contains("must start with \"/\""), "\($0)")
        }
        XCTAssertThrowsError(try RTSPPreview(stream: stream, configuration: .init(port: 70000))) {
            XCTAssertTrue("\($0)".contains("1 to 65535"), "\($0)")
        }
        XCTAssertThrowsError(try RTSPPreview(stream: stream, configuration: .init(port: 0, stallTimeout: .zero))) {
            XCTAssertTrue("\($0)".contains("more than 0 s"), "\($0)")
        }
    }
}

/// The encoded preview plugged into the real capture session.
final class EncodedPreviewOutputTests: XCTestCase {
    func testTheSessionFeedsTheRTSPPreviewAndItsRotation() async throws {
        let session = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 320, height: 240),
                                                    rate: FrameRate(30))
        let output = EncodedPreviewOutput(encoding: PreviewEncoding(keyframeInterval: 3000))
        try await session.attach(output)
        let preview = try ServedPreview.start(self, stream: output.stream)
        defer { preview.stop() }
        let (probe, err) = try Probe.live(preview.url)
        XCTAssertEqual(probe?.width, 320, err)
        XCTAssertEqual(probe?.height, 240, err)
        // The session's rotation reaches the preview's pixels.
        await session.setRotation(.degrees90)
        XCTAssertEqual(output.rotation, .degrees90)
        let (turned, turnedErr) = try Probe.live(preview.url)
        XCTAssertEqual(turned?.width, 240, turnedErr)
        XCTAssertEqual(turned?.height, 320, turnedErr)
        // Detached: the stream lets go of the branch, the camera runs on.
        try await session.detach(output)
        let frames = await session.frameCount
        try await session.waitForFrames(frames + 15)
        let branches = await session.attachedBranches
        XCTAssertEqual(branches, [])
        await session.close()
    }
}

/// The consumers an RTSPPreview dropped, as its server thread reported them.
final class DropLog: @unchecked Sendable {  // `drops` is only touched under `lock`
    private let lock = NSLock()
    private var drops: [RTSPServer.DroppedClient] = []
    func append(_ drop: RTSPServer.DroppedClient) { lock.withLock { drops.append(drop) } }
    var all: [RTSPServer.DroppedClient] { lock.withLock { drops } }
}
