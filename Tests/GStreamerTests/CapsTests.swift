import GStreamer
import XCTest
import GLib

/// Caps and Structure: parsing, fields, intersection, equality.
final class CapsTests: XCTestCase {
    func testCapsFromStringAndFields() throws {
        let caps = try Caps("video/x-raw, format=(string)I420, width=(int)640, height=480, framerate=30/1")
        XCTAssertEqual(caps.count, 1)
        XCTAssertTrue(caps.isFixed)
        XCTAssertFalse(caps.isAny)
        XCTAssertFalse(caps.isEmpty)
        let s = try XCTUnwrap(caps.structure(at: 0))
        XCTAssertEqual(s.name, "video/x-raw")
        XCTAssertEqual(s.string("format"), "I420")
        XCTAssertEqual(s.int("width"), 640)
        XCTAssertEqual(s.int("height"), 480)
        XCTAssertEqual(s.fraction("framerate")?.0, 30)
        XCTAssertEqual(s.fraction("framerate")?.1, 1)
        XCTAssertEqual(Set(s.fieldNames), ["format", "width", "height", "framerate"])
        XCTAssertNil(s.int("format"), "a string field is not an int")
        XCTAssertNil(s.string("missing"))
        XCTAssertNil(caps.structure(at: 1))
        XCTAssertEqual(caps.description, "video/x-raw, format=(string)I420, width=(int)640, height=(int)480, framerate=(fraction)30/1")
    }

    func testSeveralStructuresAndLists() throws {
        let caps = try Caps("video/x-raw, format={ I420, NV12 }, width=[ 16, 4096 ]; image/jpeg")
        XCTAssertEqual(caps.count, 2)
        XCTAssertFalse(caps.isFixed)
        XCTAssertEqual(caps.structures.map(\.name), ["video/x-raw", "image/jpeg"])
        XCTAssertEqual(caps.structures[0].values("format"), ["I420", "NV12"])
        XCTAssertEqual(caps.structures[0].serialized("width"), "[ 16, 4096 ]")
    }

    func testInvalidCapsStringIsAnError() {
        for text in ["video/x-raw, width=(int)wide", "video/x-raw, width=", "!!"] {
            let (result, logged) = GLibLog.capture { () -> GStreamerError? in
                do throws(GStreamerError) { _ = try Caps(text); return nil } catch { return error }
            }
            XCTAssertEqual(result?.message, "\"\(text)\" is not valid caps", text)
            XCTAssertEqual(logged.map(\.description), [], text)
        }
    }

    func testIntersection() throws {
        let range = try Caps("video/x-raw, width=[ 1, 1000 ], format={ I420, NV12 }")
        let fixed = try Caps("video/x-raw, width=640, format=NV12")
        XCTAssertTrue(range.canIntersect(fixed))
        XCTAssertEqual(range.intersect(fixed), fixed)
        XCTAssertTrue(fixed.isSubset(of: range))
        XCTAssertFalse(range.isSubset(of: fixed))

        let tooWide = try Caps("video/x-raw, width=2000")
        XCTAssertFalse(range.canIntersect(tooWide))
        XCTAssertTrue(range.intersect(tooWide).isEmpty)

        let audio = try Caps("audio/x-raw")
        XCTAssertFalse(range.canIntersect(audio))
        XCTAssertTrue(Caps.any.canIntersect(audio))
        XCTAssertEqual(Caps.any.intersect(audio), audio)
    }

    func testEquality() throws {
        let a = try Caps("video/x-raw, width=640, height=480")
        let b = try Caps("video/x-raw, height=(int)480, width=(int)640")  // other order, explicit types
        let c = try Caps("video/x-raw, width=640, height=360")
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, c)
        XCTAssertNotEqual(a, Caps.any)
        XCTAssertEqual(Caps.any, Caps.any)
    }

    func testStructureParse() throws {
        let s = try Structure("plumb-facts, angle=(int)90, ratio=(double)1.5, camera=(string)\"test cam\", "
                                  + "live=(boolean)true, rate=(fraction)30/1, sizes={ (int)1, (int)2, (int)3 }")
        XCTAssertEqual(s.name, "plumb-facts")
        XCTAssertEqual(s.int("angle"), 90)
        XCTAssertEqual(s.double("ratio"), 1.5)
        XCTAssertEqual(s.string("camera"), "test cam")
        XCTAssertEqual(s.bool("live"), true)
        XCTAssertEqual(s.fraction("rate")?.0, 30)
        XCTAssertEqual(s.values("sizes"), ["1", "2", "3"])
        XCTAssertTrue(s.has("ratio"))
        XCTAssertFalse(s.has("missing"))
        XCTAssertNil(s.double("angle"), "an int field is not a double")
        let again = try Structure(s.description)
        XCTAssertEqual(again.description, s.description)
    }

    func testInvalidStructureIsAnError() {
        let (result, logged) = GLibLog.capture { () -> GStreamerError? in
            do throws(GStreamerError) { _ = try Structure("name, x=(int)notanumber"); return nil } catch { return error }
        }
        XCTAssertEqual(result?.message, "\"name, x=(int)notanumber\" is not a valid structure")
        XCTAssertEqual(logged.map(\.description), [])
    }

    func testNegotiatedCapsOnARunningPad() throws {
        let pipeline = try Pipeline.parse(
            "videotestsrc num-buffers=1 ! video/x-raw,format=RGB,width=80,height=60 ! fakesink name=sink")
        defer { try? pipeline.setState(.null) }
        try pipeline.setState(.paused)
        let pad = try XCTUnwrap(pipeline.element(named: "sink")?.staticPad("sink"))
        let caps = try XCTUnwrap(pad.currentCaps)
        XCTAssertTrue(caps.isFixed)
        XCTAssertEqual(caps.structure(at: 0)?.string("format"), "RGB")
        XCTAssertEqual(caps.structure(at: 0)?.int("width"), 80)
        XCTAssertTrue(pad.queryCaps().canIntersect(caps))
    }

    /// explicitVideoCaps spells out what raw-video caps leave implied and keeps what they name:
    /// the same frames (a subset of the caps it came from), the same caps when made again.
    func testExplicitVideoCapsNameWhatIsImplied() throws {
        let implied = try Caps("video/x-raw, format=I420, width=320, height=240, framerate=30/1")
        let explicit = try XCTUnwrap(implied.explicitVideoCaps)
        let s = try XCTUnwrap(explicit.structure(at: 0))
        XCTAssertNil(implied.structure(at: 0)?.string("colorimetry"))
        XCTAssertNotNil(s.string("colorimetry"), "\(explicit)")
        XCTAssertNotNil(s.string("interlace-mode"), "\(explicit)")
        XCTAssertEqual(s.int("width"), 320)
        XCTAssertTrue(explicit.isSubset(of: implied), "\(explicit) is not within \(implied)")
        XCTAssertEqual(explicit.explicitVideoCaps, explicit)
        let named = try Caps("video/x-raw, format=I420, width=320, height=240, framerate=30/1, colorimetry=bt709")
        XCTAssertEqual(named.explicitVideoCaps?.structure(at: 0)?.string("colorimetry"), "bt709")
        XCTAssertNil(try Caps("image/jpeg, width=320, height=240").explicitVideoCaps)
        XCTAssertNil(try Caps("video/x-raw, format={ I420, NV12 }, width=320, height=240").explicitVideoCaps)
    }
}
