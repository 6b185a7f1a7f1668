import GStreamer
import XCTest

/// Typed property access on real elements: each type round-trips, and every misuse
/// is a thrown `PropertyError` with nothing printed by GLib.
final class PropertyTests: XCTestCase {
    func testBoolRoundTrip() throws {
        let sink = try Element(factory: "fakesink", name: "sink")
        XCTAssertEqual(try sink.get("sync", as: Bool.self), false)  // fakesink's default
        try sink.set("sync", true)
        XCTAssertEqual(try sink.get("sync", as: Bool.self), true)
        try sink.set("sync", false)
        XCTAssertEqual(try sink.value(of: "sync"), .bool(false))
    }

    func testIntRoundTrip() throws {
        let src = try Element(factory: "videotestsrc", name: "src")
        XCTAssertEqual(try src.get("num-buffers", as: Int32.self), -1)
        try src.set("num-buffers", Int32(42))
        XCTAssertEqual(try src.get("num-buffers", as: Int32.self), 42)
        try src.set("num-buffers", 7)  // a Swift Int fits any integer property whose range holds it
        XCTAssertEqual(try src.get("num-buffers", as: Int.self), 7)
        try src.set("k0", Int32.min)
        XCTAssertEqual(try src.get("k0", as: Int32.self), Int32.min)
    }

    func testUIntRoundTrip() throws {
        let encoder = try Element(factory: "x264enc", name: "enc")
        try encoder.set("bitrate", UInt32(5000))
        XCTAssertEqual(try encoder.get("bitrate", as: UInt32.self), 5000)
        let src = try Element(factory: "videotestsrc", name: "src")
        try src.set("foreground-color", UInt32(0xFF00_FF00))  // above Int32.max: really unsigned
        XCTAssertEqual(try src.get("foreground-color", as: UInt32.self), 0xFF00_FF00)
        try src.set("foreground-color", 0xFFFF_FFFF as Int)
        XCTAssertEqual(try src.get("foreground-color", as: Int.self), 0xFFFF_FFFF)
    }

    func testInt64RoundTrip() throws {
        let sink = try Element(factory: "fakesink", name: "sink")
        try sink.set("ts-offset", Int64(-5_000_000_000_000))
        XCTAssertEqual(try sink.get("ts-offset", as: Int64.self), -5_000_000_000_000)
        try sink.set("max-lateness", Int64(20_000_000))
        XCTAssertEqual(try sink.get("max-lateness", as: Int64.self), 20_000_000)
    }

    func testUInt64RoundTrip() throws {
        let sink = try Element(factory: "fakesink", name: "sink")
        try sink.set("render-delay", UInt64.max - 1)
        XCTAssertEqual(try sink.get("render-delay", as: UInt64.self), UInt64.max - 1)
        try sink.set("throttle-time", 1 << 40)
        XCTAssertEqual(try sink.get("throttle-time", as: Int.self), 1 << 40)
    }

    func testDoubleRoundTrip() throws {
        let balance = try Element(factory: "videobalance", name: "balance")  // gdouble
        XCTAssertEqual(balance.propertyTypeName("contrast"), "gdouble")
        try balance.set("contrast", 1.5)
        XCTAssertEqual(try balance.get("contrast", as: Double.self), 1.5)
        let encoder = try Element(factory: "x264enc", name: "enc")  // gfloat, read and written as Double
        XCTAssertEqual(encoder.propertyTypeName("ip-factor"), "gfloat")
        try encoder.set("ip-factor", 1.25)
        XCTAssertEqual(try encoder.get("ip-factor", as: Double.self), 1.25)
    }

    func testStringRoundTrip() throws {
        let encoder = try Element(factory: "x264enc", name: "enc")
        try encoder.set("option-string", "bframes=0:ref=1")
        XCTAssertEqual(try encoder.get("option-string", as: String.self), "bframes=0:ref=1")
        let file = try Element(factory: "filesink", name: "file")
        let unset = try file.get("location", as: String?.self)
        XCTAssertNil(unset, "an unset location reads as nil")
        try file.set("location", "/tmp/x y.mp4")
        XCTAssertEqual(try file.get("location", as: String.self), "/tmp/x y.mp4")
        try file.set("location", String?.none)
        XCTAssertEqual(try file.value(of: "location"), .string(nil))
    }

    func testEnumByNick() throws {
        let src = try Element(factory: "videotestsrc", name: "src")
        XCTAssertEqual(try src.get("pattern", as: EnumNick.self), "smpte")
        try src.set("pattern", EnumNick("ball"))
        XCTAssertEqual(try src.get("pattern", as: EnumNick.self), "ball")
        let flip = try Element(factory: "videoflip", name: "flip")
        for nick in ["90r", "180", "90l", "identity"] {
            try flip.set("video-direction", EnumNick(nick))
            XCTAssertEqual(try flip.get("video-direction", as: EnumNick.self).nick, nick)
        }
        let encoder = try Element(factory: "x264enc", name: "enc")
        try encoder.set("speed-preset", EnumNick("ultrafast"))
        XCTAssertEqual(try encoder.value(of: "speed-preset"), .enumNick("ultrafast"))
    }

    func testCapsRoundTrip() throws {
        let filter = try Element(factory: "capsfilter", name: "filter")
        XCTAssertTrue(try filter.get("caps", as: Caps.self).isAny)
        let caps = try Caps("video/x-raw,format=I420,width=320,height=240,framerate=15/1")
        try filter.set("caps", caps)
        let back = try filter.get("caps", as: Caps.self)
        XCTAssertEqual(back, caps)
        XCTAssertEqual(back.structure(at: 0)?.int("width"), 320)
    }

    func testSetParsingTextLikeAPipelineDescription() throws {
        let src = try Element(factory: "videotestsrc", name: "src")
        try src.set("pattern", parsing: "snow")
        XCTAssertEqual(try src.get("pattern", as: EnumNick.self), "snow")
        try src.set("num-buffers", parsing: "12")
        XCTAssertEqual(try src.get("num-buffers", as: Int.self), 12)
        try src.set("is-live", parsing: "true")
        XCTAssertEqual(try src.get("is-live", as: Bool.self), true)
        let filter = try Element(factory: "capsfilter", name: "filter")
        try filter.set("caps", parsing: "video/x-raw,format=NV12,width=64")
        XCTAssertEqual(try filter.get("caps", as: Caps.self), try Caps("video/x-raw,format=NV12,width=64"))
        let encoder = try Element(factory: "x264enc", name: "enc")
        XCTAssertEqual(try encoder.get("tune", as: String.self), "")  // a flags property, no flag set
        try encoder.set("tune", parsing: "zerolatency")
        XCTAssertEqual(try encoder.get("tune", as: String.self), "zerolatency")
        try encoder.set("tune", parsing: "fastdecode+zerolatency")
        XCTAssertEqual(try encoder.get("tune", as: String.self), "fastdecode+zerolatency")
        let flip = try Element(factory: "videoflip", name: "flip")
        try flip.set("video-direction", parsing: "90l")
        XCTAssertEqual(try flip.get("video-direction", as: EnumNick.self), "90l")
    }

    // MARK: Errors

    func testUnknownPropertyIsAnError() throws {
        let src = try Element(factory: "videotestsrc", name: "src")
        XCTAssertFalse(src.hasProperty("no-such-thing"))
        assertThrows(.noSuchProperty(element: "src", property: "no-such-thing")) { try src.set("no-such-thing", 1) }
        assertThrows(.noSuchProperty(element: "src", property: "no-such-thing")) {
            try src.get("no-such-thing", as: Int.self)
        }
        assertThrows(.noSuchProperty(element: "src", property: "no-such-thing")) {
            try src.set("no-such-thing", parsing: "1")
        }
    }

    func testWrongSwiftTypeIsAnError() throws {
        let src = try Element(factory: "videotestsrc", name: "src")
        assertThrows(.typeMismatch(element: "src", property: "num-buffers", expected: "gint", given: "gchararray")) {
            try src.set("num-buffers", "ten")
        }
        assertThrows(.typeMismatch(element: "src", property: "num-buffers", expected: "gint", given: "guint")) {
            try src.set("num-buffers", UInt32(3))
        }
        assertThrows(.typeMismatch(element: "src", property: "pattern", expected: "GstVideoTestSrcPattern",
                                   given: "gint")) {
            try src.set("pattern", Int32(1))
        }
        assertThrows(.typeMismatch(element: "src", property: "is-live", expected: "gboolean", given: "String")) {
            try src.get("is-live", as: String.self)
        }
        let filter = try Element(factory: "capsfilter", name: "filter")
        assertThrows(.typeMismatch(element: "filter", property: "caps", expected: "GstCaps", given: "gchararray")) {
            try filter.set("caps", "video/x-raw")
        }
        XCTAssertEqual(try src.get("num-buffers", as: Int32.self), -1, "a refused value leaves the property alone")
    }

    func testOutOfRangeIsAnError() throws {
        let src = try Element(factory: "videotestsrc", name: "src")
        let numBuffers = "gint from -1 to 2147483647"
        assertThrows(.invalidValue(element: "src", property: "num-buffers", value: "-5", expected: numBuffers)) {
            try src.set("num-buffers", Int32(-5))
        }
        assertThrows(.invalidValue(element: "src", property: "num-buffers", value: "4294967296",
                                   expected: numBuffers)) {
            try src.set("num-buffers", 1 << 32)  // a Swift Int beyond gint
        }
        assertThrows(.invalidValue(element: "src", property: "num-buffers", value: "-7", expected: numBuffers)) {
            try src.set("num-buffers", parsing: "-7")
        }
        assertThrows(.invalidValue(element: "src", property: "num-buffers", value: "many", expected: numBuffers)) {
            try src.set("num-buffers", parsing: "many")
        }
        let encoder = try Element(factory: "x264enc", name: "enc")
        assertThrows(.invalidValue(element: "enc", property: "bitrate", value: "0",
                                   expected: "guint from 1 to 2048000")) {
            try encoder.set("bitrate", UInt32(0))
        }
        assertThrows(.invalidValue(element: "enc", property: "ip-factor", value: "5.0",
                                   expected: "gfloat from 0.0 to 2.0")) {
            try encoder.set("ip-factor", 5.0)
        }
        let balance = try Element(factory: "videobalance", name: "balance")
        assertThrows(.invalidValue(element: "balance", property: "contrast", value: "-1.0",
                                   expected: "gdouble from 0.0 to 2.0")) {
            try balance.set("contrast", -1.0)
        }
        XCTAssertEqual(try src.get("num-buffers", as: Int32.self), -1)
        XCTAssertEqual(try encoder.get("bitrate", as: UInt32.self), 2048)
        XCTAssertEqual(try balance.get("contrast", as: Double.self), 1.0)
    }

    func testBadEnumNickIsAnError() throws {
        let flip = try Element(factory: "videoflip", name: "flip")
        let nicks = "one of: identity, 90r, 180, 90l, horiz, vert, ul-lr, ur-ll, auto, custom"
        assertThrows(.invalidValue(element: "flip", property: "video-direction", value: "sideways", expected: nicks)) {
            try flip.set("video-direction", EnumNick("sideways"))
        }
        assertThrows(.invalidValue(element: "flip", property: "video-direction", value: "sideways", expected: nicks)) {
            try flip.set("video-direction", parsing: "sideways")
        }
        XCTAssertEqual(try flip.get("video-direction", as: EnumNick.self), "identity")
    }

    func testWritingAReadOnlyPropertyIsAnError() throws {
        let sink = try Element(factory: "fakesink", name: "sink")
        assertThrows(.notWritable(element: "sink", property: "last-message")) { try sink.set("last-message", "hi") }
        assertThrows(.notWritable(element: "sink", property: "last-message")) {
            try sink.set("last-message", parsing: "hi")
        }
        assertThrows(.notWritable(element: "sink", property: "stats")) { try sink.set("stats", "x") }
    }

    func testErrorsSayWhatToFix() {
        XCTAssertEqual(PropertyError.invalidValue(element: "flip", property: "video-direction", value: "sideways",
                                                  expected: "one of: identity, 90r").description,
                       "\"sideways\" is not a valid value for property \"video-direction\" of \"flip\" "
                           + "(expected one of: identity, 90r)")
        XCTAssertEqual(PropertyError.noSuchProperty(element: "src", property: "colour").description,
                       "element \"src\" has no property \"colour\"")
    }
}
