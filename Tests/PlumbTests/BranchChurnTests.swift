import Foundation
import GStreamer
@testable import Plumb
@testable import PlumbLocation
import PlumbTestSupport
import Synchronization
import XCTest

/// Many outputs coming and going on one running session: nothing lost, nothing leaked.
final class BranchChurnTests: XCTestCase {
    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    /// 50 start/stop recording cycles (0.3 s each) and 100 photos on one session while a
    /// preview counts its frames: the preview misses no frame (no timestamp gap longer than
    /// two frame intervals), every file is valid (ffprobe, exiftool), and every element of
    /// every branch, every encode pipeline, and every branch thread is gone afterwards.
    func testFiftyRecordingsAndAHundredPhotosWhileAPreviewCountsEveryFrame() async throws {
        let dir = try temporaryDirectory(self)
        let photoDir = dir.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photoDir, withIntermediateDirectories: true)
        let rate = FrameRate(30)
        let session = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 320, height: 240), rate: rate)
        let preview = PreviewOutput()
        try await session.attach(preview)

        // Warm-up (plugins loaded, thread pools filled), so the baseline holds what stays.
        _ = try await session.takePhoto()
        let warm = try await session.startRecording(to: dir.appendingPathComponent("warm.mp4"))
        _ = try await warm.firstFrameTime()
        _ = try await warm.stop()

        let threadsBefore = threadCount
        let elementsBefore = await session.elementCount
        let padsBefore = await session.teePadCount
        let finalized = Counter()
        var watched = 0
        preview.resetFrames()
        let teeFramesBefore = await session.frameCount

        var recordings: [(URL, RecordingFacts)] = []
        var photos: [Photo] = []
        for i in 0..<50 {
            let recording = try await session.startRecording(to: dir.appendingPathComponent("r\(i).mp4"))
            if let bin = await session.branchBin(for: recording.output) {
                for object in [bin] + bin.allElements {
                    object.onFinalize { finalized.value.add(1, ordering: .relaxed) }
                    watched += 1
                }
            }
            async let first = session.takePhoto(quality: 80)
            async let second = session.takePhoto(quality: 60, location: GeoLocation(latitude: Double(i), longitude: 7))
            await eventually("frames in recording \(i)") { recording.progress.frames >= 6 }
            let facts = try await recording.stop()
            photos.append(try await first)
            photos.append(try await second)
            recordings.append((recording.url, facts))
        }
        let teeFrames = await session.frameCount - teeFramesBefore
        let frames = preview.stats

        // The preview saw every frame the camera made, with no gap.
        let interval = rate.frameDuration
        print("preview: \(frames.count) frames of \(teeFrames); largest timestamp gap "
              + "\(Double(frames.largestTimestampGap) / 1e6) ms, largest arrival gap \(Double(frames.largestArrivalGap) / 1e6) ms")
        XCTAssertLessThanOrEqual(frames.largestTimestampGap, 2 * interval, "the preview lost frames")
        XCTAssertGreaterThanOrEqual(frames.count, teeFrames - 5, "the preview got fewer frames than the camera made")
        // A stall this long would be a blocked tee, not scheduling noise.
        XCTAssertLessThan(frames.largestArrivalGap, 1_000_000_000, "the preview stalled")

        // Every recording is a valid MP4 with the frames its facts claim.
        for (url, facts) in recordings {
            let video = try ProbedVideo(url)
            XCTAssertEqual(video.codec, "h264", url.lastPathComponent)
            XCTAssertEqual(video.packets, facts.frames, url.lastPathComponent)
            XCTAssertTrue(video.firstPacketIsKeyframe, url.lastPathComponent)
            XCTAssertGreaterThanOrEqual(facts.frames, 5, url.lastPathComponent)
        }
        // Every photo is a JPEG exiftool reads, with its own tags.
        XCTAssertEqual(photos.count, 100)
        for (i, photo) in photos.enumerated() {
            _ = try write(photo.jpeg, named: String(format: "p%03d.jpg", i), in: photoDir)
        }
        let table = try runTool("exiftool", ["-n", "-T", "-FileName", "-FileType", "-ImageWidth", "-Orientation", photoDir.path])
        let rows = table.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        XCTAssertEqual(rows.count, 100)
        for row in rows {
            XCTAssertEqual(Array(row.dropFirst()), ["JPEG", "320", "1"], row.first ?? "?")
        }

        // Nothing left behind: elements, tee pads, encode pipelines, threads.
        let elementsAfter = await session.elementCount
        let padsAfter = await session.teePadCount
        XCTAssertEqual(elementsAfter, elementsBefore)
        XCTAssertEqual(padsAfter, padsBefore)
        recordings.removeAll()
        await eventually("branch elements to be finalized", timeout: .seconds(10)) {
            finalized.value.load(ordering: .relaxed) >= watched
        }
        XCTAssertEqual(finalized.value.load(ordering: .relaxed), watched, "branch elements were not finalized")
        let livePipelines = await session.photoOutputIfAttached?.liveEncodePipelines
        XCTAssertEqual(livePipelines, 0, "JPEG encode pipelines leaked")
        let threadsAfter = threadCount
        print("threads: \(threadsBefore) before, \(threadsAfter) after")
        // GLib's thread pool may keep a couple of idle threads for reuse; a leak would be
        // one per branch (50) or per photo (100).
        XCTAssertLessThanOrEqual(threadsAfter, threadsBefore + 8, "threads leaked")
        await session.close()
    }
}
