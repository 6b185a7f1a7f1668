import Foundation
import GStreamer
import PlumbTestSupport
import XCTest
import GLib

/// TagList values, its errors, and tags reaching a real JPEG through jifmux (read back by exiftool).
final class TagListTests: XCTestCase {
    /// A value: a copy changed later leaves the original as it was (copy on write), and
    /// a copy that is never changed shares the original's list.
    func testACopyIsAValueOfItsOwn() throws {
        var original = TagList()
        try original.set(TagList.title, "first")
        var copy = original
        XCTAssertEqual(copy.description, original.description)
        try copy.set(TagList.title, "second")
        try copy.set(TagList.deviceModel, "cam")
        XCTAssertEqual(original.string(TagList.title), "first")
        XCTAssertNil(original.string(TagList.deviceModel))
        XCTAssertEqual(copy.string(TagList.title), "second")
        XCTAssertEqual(copy.string(TagList.deviceModel), "cam")
        try original.set(TagList.title, "third")
        XCTAssertEqual(copy.string(TagList.title), "second")
    }

    func testStringDoubleUIntRoundTrip() throws {
        var tags = TagList()
        XCTAssertTrue(tags.isEmpty)
        try tags.set(TagList.deviceManufacturer, "Plumb Labs")
        try tags.set(TagList.geoLatitude, 48.8584)
        try tags.set("track-number", UInt32(7))
        XCTAssertFalse(tags.isEmpty)
        XCTAssertEqual(tags.string(TagList.deviceManufacturer), "Plumb Labs")
        XCTAssertEqual(tags.double(TagList.geoLatitude), 48.8584)
        XCTAssertEqual(tags.uint("track-number"), 7)
        try tags.set(TagList.deviceManufacturer, "Other")  // replaces, does not append
        XCTAssertEqual(tags.string(TagList.deviceManufacturer), "Other")
        XCTAssertNil(tags.string(TagList.deviceModel))
        let (mismatched, logged) = GLibLog.capture { () -> [Bool] in
            [tags.double(TagList.deviceManufacturer) == nil, tags.uint(TagList.geoLatitude) == nil,
             tags.string("no-such-tag") == nil, tags.date(TagList.title) == nil]
        }
        XCTAssertEqual(mismatched, [true, true, true, true], "a tag read as another type, or an unknown tag, is nil")
        XCTAssertEqual(logged.map(\.description), [])
    }

    func testDateTimeRoundTrip() throws {
        var tags = TagList()
        let when = Date(timeIntervalSince1970: 1_767_225_600.25)  // 2026-01-01 00:00:00.25 UTC
        try tags.set(TagList.dateTime, when)
        let back = try XCTUnwrap(tags.date(TagList.dateTime))
        XCTAssertEqual(back.timeIntervalSince1970, when.timeIntervalSince1970, accuracy: 0.001)
        XCTAssertTrue(tags.description.contains("2026-01-01T00:00:00.25"), tags.description)
    }

    func testParseFromString() throws {
        let tags = try TagList("taglist, title=(string)\"A walk\", image-orientation=(string)rotate-180")
        XCTAssertEqual(tags.string(TagList.title), "A walk")
        XCTAssertEqual(tags.string(TagList.imageOrientation), "rotate-180")
        XCTAssertThrowsError(try TagList("not a tag list ((("))
    }

    func testUnknownTagIsAnError() {
        var tags = TagList()
        let (error, logged) = GLibLog.capture { () -> GStreamerError? in
            do throws(GStreamerError) { try tags.set("no-such-tag", "x"); return nil } catch { return error }
        }
        XCTAssertTrue(error?.isOwn(.unknownTag) ?? false, "\(String(describing: error))")
        XCTAssertEqual(error?.message, "unknown tag \"no-such-tag\": GStreamer has no tag of that name")
        XCTAssertEqual(logged.map(\.description), [])
        XCTAssertTrue(tags.isEmpty)
    }

    func testWrongTypeIsAnError() {
        var tags = TagList()
        let (errors, logged) = GLibLog.capture { () -> [GStreamerError] in
            var errors: [GStreamerError] = []
            do throws(GStreamerError) { try tags.set(TagList.title, 3.0) } catch { errors.append(error) }
            do throws(GStreamerError) { try tags.set(TagList.geoLatitude, "north") } catch { errors.append(error) }
            do throws(GStreamerError) { try tags.set(TagList.title, Date()) } catch { errors.append(error) }
            return errors
        }
        XCTAssertEqual(errors.map(\.message), [
            "tag \"title\" holds gchararray, not gdouble",
            "tag \"geo-location-latitude\" holds gdouble, not gchararray",
            "tag \"title\" holds gchararray, not GstDateTime",
        ])
        XCTAssertTrue(errors.allSatisfy { $0.isOwn(.tagTypeMismatch) })
        XCTAssertEqual(logged.map(\.description), [])
        XCTAssertTrue(tags.isEmpty)
    }

    func testApplyingToAnElementThatTakesNoTagsIsAnError() throws {
        let sink = try Element(factory: "fakesink", name: "sink")
        XCTAssertThrowsError(try TagList().apply(to: sink)) { error in
            XCTAssertEqual((error as? GStreamerError)?.message, "sink does not accept tags (not a GstTagSetter)")
        }
    }

    /// The orientation, make and model set in Swift come out of a real JPEG as EXIF, read by exiftool.
    func testTagsReachAJPEGThroughJifmux() async throws {
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("still.jpg")
        let pipeline = try Pipeline.parse("""
            videotestsrc num-buffers=1 ! video/x-raw,width=64,height=48 ! jpegenc ! jifmux name=mux \
            ! filesink location="\(file.path)"
            """)
        let thread = MainContextThread()
        defer { thread.stop() }
        let messages = pipeline.messages(on: thread.context)

        var tags = TagList()
        try tags.set(TagList.imageOrientation, "rotate-90")
        try tags.set(TagList.deviceManufacturer, "Plumb Labs")
        try tags.set(TagList.deviceModel, "Test Rig 1")
        try tags.apply(to: try XCTUnwrap(pipeline.element(named: "mux")))

        try pipeline.setState(.playing)
        let end = try await readUntilEnd(messages)
        try pipeline.setState(.null)
        XCTAssertTrue(end.isEOS, "\(end)")

        let exif = try runProgram("/usr/bin/exiftool", ["-json", "-n", "-Make", "-Model", "-Orientation", file.path])
        XCTAssertEqual(exif.status, 0, exif.output)
        let json = try JSONSerialization.jsonObject(with: Data(exif.output.utf8)) as? [[String: Any]]
        let fields = try XCTUnwrap(json?.first, exif.output)
        XCTAssertEqual(fields["Make"] as? String, "Plumb Labs")
        XCTAssertEqual(fields["Model"] as? String, "Test Rig 1")
        XCTAssertEqual(fields["Orientation"] as? Int, 6, "rotate-90 is EXIF orientation 6 (Rotate 90 CW)")
    }
}
