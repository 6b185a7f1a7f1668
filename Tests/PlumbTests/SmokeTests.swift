import Foundation
import GStreamer
import PlumbTestSupport
@testable import Plumb
import XCTest

final class SmokeTests: XCTestCase {
    func testSmoke() async throws {
        let dir = try temporaryDirectory(self)
        let t0 = Date()
        let session = try await CaptureSession.open(.testPattern(), size: VideoSize(width: 320, height: 240))
        print("open took", Date().timeIntervalSince(t0))
        let t1 = Date()
        let photo = try await session.takePhoto(location: GeoLocation(latitude: 48.8584, longitude: -2.2945, altitude: 35))
        print("photo took", Date().timeIntervalSince(t1), photo.facts.json)
        let url = try write(photo.jpeg, named: "a.jpg", in: dir)
        print("EXIF", try exif(url))
        let rec = try await session.startRecording(to: dir.appendingPathComponent("a.mp4"))
        let first = try await rec.firstFrameTime()
        print("request", rec.requestTime as Any, "first", first, "delta ms", (Double(first) - Double(rec.requestTime!)) / 1e6)
        try await Task.sleep(for: .seconds(1))
        let facts = try await rec.stop()
        print(facts.json)
        let v = try ProbedVideo(rec.url)
        print(v)
        print(try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=start_time,duration,nb_frames", rec.url.path]))
        await session.close()
    }
}
