import Foundation
@testable import Plumb
@testable import PlumbLocation
@testable import PlumbMedia
import PlumbTestSupport
import XCTest

/// Recordings carry where they started as `moov/udta/©xyz`, read back by exiftool and ffprobe.
final class MP4LocationTests: XCTestCase {
    private let qvga = VideoSize(width: 320, height: 240)
    private let paris = GeoLocation(latitude: 48.858_37, longitude: 2.294_48, altitude: 35.5)

    private func record(in dir: URL, container: RecordingContainer, location: GeoLocation?,
                        name: String = "located.mp4") async throws -> (URL, RecordingFacts) {
        let session = try await CaptureSession.open(.testPattern(), size: qvga, rate: FrameRate(30))
        var options = RecordingOptions()
        options.container = container
        options.fragmentDuration = .milliseconds(300)
        options.location = { location }
        let recording = try await session.startRecording(to: dir.appendingPathComponent(name), options: options)
        _ = try await recording.firstFrameTime()
        // Several fragments, so the fragmented layouts rewrite their first header at the end.
        try await session.waitForFrames(30)
        let facts = try await recording.stop()
        await session.close()
        return (recording.url, facts)
    }

    func testEveryContainerCarriesTheLocationThatReadersSee() async throws {
        let dir = try temporaryDirectory(self)
        for container in RecordingContainer.allCases {
            let (url, facts) = try await record(in: dir, container: container, location: paris, name: "\(container).mp4")
            let coordinates = try XCTUnwrap(try LocationReaders.movieCoordinates(url.path), "\(container): no GPSCoordinates")
            XCTAssertEqual(coordinates.count, 3, "\(container): \(coordinates)")
            XCTAssertEqual(coordinates[0], 48.858_37, accuracy: 1e-5, "\(container)")
            XCTAssertEqual(coordinates[1], 2.294_48, accuracy: 1e-5, "\(container)")
            XCTAssertEqual(coordinates[2], 35.5, accuracy: 1e-3, "\(container)")
            let tags = try LocationReaders.ffprobeFormatTags(url.path)
            XCTAssertEqual(tags["location"], "+48.85837+002.29448+35.500/", "\(container): \(tags)")
            XCTAssertNil(tags["comment"], "\(container): the placeholder is left in the file")
            // Every offset still holds: the file plays to its last frame.
            XCTAssertEqual(try IndependentReaders.ffprobePacketCount(url.path), facts.frames, "\(container)")
            XCTAssertTrue(facts.gps, "\(container)")
            XCTAssertEqual(facts.latitude, 48.858_37)
            XCTAssertEqual(facts.longitude, 2.294_48)
            XCTAssertEqual(facts.altitude, 35.5)
            XCTAssertNil(facts.fixAge, "a fixed place has no fix age")
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(facts.json.utf8)) as? [String: Any])
            XCTAssertEqual(json["gps"] as? Bool, true)
            XCTAssertEqual(json["latitude"] as? Double, 48.858_37)
        }
    }

    /// A fragmented file read before it is finalized (a power cut) has the location in its first header.
    func testAFragmentedFileCarriesItWhileRecording() async throws {
        let dir = try temporaryDirectory(self)
        let session = try await CaptureSession.open(.testPattern(), size: qvga, rate: FrameRate(30))
        var options = RecordingOptions()
        options.fragmentDuration = .milliseconds(200)
        options.location = { [paris] in paris }
        let recording = try await session.startRecording(to: dir.appendingPathComponent("live.mp4"), options: options)
        _ = try await recording.firstFrameTime()
        try await session.waitForFrames(20)
        let copy = dir.appendingPathComponent("cut.mp4")
        try FileManager.default.copyItem(at: recording.url, to: copy)
        _ = try await recording.stop()
        await session.close()
        let coordinates = try XCTUnwrap(try LocationReaders.movieCoordinates(copy.path))
        XCTAssertEqual(coordinates[0], 48.858_37, accuracy: 1e-5)
        XCTAssertEqual(try LocationReaders.ffprobeFormatTags(copy.path)["location"], "+48.85837+002.29448+35.500/")
        XCTAssertGreaterThan(try IndependentReaders.ffprobePacketCount(copy.path), 0)
    }

    /// A 2D fix: latitude and longitude only; the southern and western signs survive.
    func testWithoutAltitudeTheCoordinatesAreTwo() async throws {
        let dir = try temporaryDirectory(self)
        let (url, facts) = try await record(in: dir, container: .plain,
                                            location: GeoLocation(latitude: -34.608_63, longitude: -58.382_3))
        let coordinates = try XCTUnwrap(try LocationReaders.movieCoordinates(url.path))
        XCTAssertEqual(coordinates.count, 2, "\(coordinates)")
        XCTAssertEqual(coordinates[0], -34.608_63, accuracy: 1e-5)
        XCTAssertEqual(coordinates[1], -58.382_3, accuracy: 1e-5)
        XCTAssertEqual(try LocationReaders.ffprobeFormatTags(url.path)["location"], "-34.60863-058.38230/")
        XCTAssertNil(facts.altitude)
    }

    func testWithoutALocationThereIsNone() async throws {
        let dir = try temporaryDirectory(self)
        let (url, facts) = try await record(in: dir, container: .fragmentedThenFinalized, location: nil)
        XCTAssertNil(try LocationReaders.movieCoordinates(url.path))
        let tags = try LocationReaders.ffprobeFormatTags(url.path)
        XCTAssertNil(tags["location"])
        XCTAssertNil(tags["comment"])
        XCTAssertFalse(facts.gps)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(facts.json.utf8)) as? [String: Any])
        XCTAssertEqual(json["gps"] as? Bool, false)
        XCTAssertNil(json["latitude"])
    }

    // MARK: The patcher on its own

    /// A movie header as mp4mux lays it out: moov > [mvhd, udta > [meta > [hdlr, ilst > [©cmt, ©too]], XTRA]].
    private func header(placeholder: String, trailing: [UInt8] = []) -> [UInt8] {
        func box(_ type: [UInt8], _ payload: [UInt8]) -> [UInt8] {
            let size = UInt32(8 + payload.count)
            return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + type + payload
        }
        let text = Array(placeholder.utf8)
        let comment = box([0xA9] + Array("cmt".utf8), box(Array("data".utf8), [0, 0, 0, 1, 0, 0, 0, 0] + text))
        let tool = box([0xA9] + Array("too".utf8), box(Array("data".utf8), [0, 0, 0, 1, 0, 0, 0, 0] + Array("x264".utf8)))
        let hdlr = box(Array("hdlr".utf8), [UInt8](repeating: 0, count: 25))
        let meta = box(Array("meta".utf8), [0, 0, 0, 0] + hdlr + box(Array("ilst".utf8), comment + tool))
        let udta = box(Array("udta".utf8), meta + trailing)
        return box(Array("moov".utf8), box(Array("mvhd".utf8), [UInt8](repeating: 7, count: 100)) + udta)
    }

    func testThePatcherSwapsThePlaceholderInPlace() throws {
        let iso = MP4LocationPatcher.iso6709(paris)
        let box = MP4LocationPatcher.locationBox(iso)
        let placeholder = MP4LocationPatcher.placeholder(for: box)
        XCTAssertEqual(placeholder.utf8.count + 24, box.count)
        let extra: [UInt8] = [0, 0, 0, 12] + Array("XTRA".utf8) + [1, 2, 3, 4]
        var bytes = header(placeholder: placeholder, trailing: extra)
        let before = bytes.count
        let patched = try bytes.withUnsafeMutableBytes { raw in
            try MP4LocationPatcher.patch(raw, box: box, placeholder: placeholder)
        }
        XCTAssertEqual(patched, 1)
        XCTAssertEqual(bytes.count, before)
        try bytes.withUnsafeBytes { raw in
            let view = ByteView(raw)
            let moov = try XCTUnwrap(try MP4Box.header(in: view, at: 0, limit: view.count))
            XCTAssertEqual(moov.size, before, "the header keeps its size")
            let udta = try XCTUnwrap(try MP4Box.children(of: moov, in: view).first { $0.type == "udta" })
            let children = try MP4Box.children(of: udta, in: view)
            XCTAssertEqual(children.map(\.type), ["meta", "XTRA", "?xyz"])
            let meta = children[0]
            let ilst = try XCTUnwrap(try MP4Box.children(in: view, from: meta.payloadOffset + 4, to: meta.end).last)
            XCTAssertEqual(try MP4Box.children(of: ilst, in: view).map(\.type), ["?too"], "only the placeholder went")
            XCTAssertTrue(view.matches(extra, at: children[1].offset))
            let xyz = children[2]
            XCTAssertTrue(view.matches(Array(iso.utf8), at: xyz.payloadOffset + 4))
            XCTAssertEqual(try view.uint16(xyz.payloadOffset), UInt16(iso.utf8.count))
        }
    }

    func testAHeaderWithoutThePlaceholderIsLeftAlone() throws {
        let box = MP4LocationPatcher.locationBox(MP4LocationPatcher.iso6709(paris))
        var bytes = header(placeholder: "someone else's comment")
        let original = bytes
        XCTAssertThrowsError(try bytes.withUnsafeMutableBytes { raw in
            try MP4LocationPatcher.patch(raw, box: box, placeholder: MP4LocationPatcher.placeholder(for: box))
        })
        XCTAssertEqual(bytes, original)
        // Media data is no header: nothing to do.
        var media = [UInt8](repeating: 0x55, count: 64)
        XCTAssertEqual(try media.withUnsafeMutableBytes { raw in
            try MP4LocationPatcher.patch(raw, box: box, placeholder: "x")
        }, 0)
    }
}
