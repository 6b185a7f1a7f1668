import Foundation
@testable import PlumbLocation
import XCTest

/// gpsd's JSON lines, as gpsd 3.22 writes them, and what is not.
final class GPSDMessageTests: XCTestCase {
    private func parse(_ line: String) throws -> GPSDMessage {
        try GPSDMessage.parse(Array(line.utf8))
    }

    func testA3DFix() throws {
        let line = #"{"class":"TPV","device":"/dev/pts/1","mode":3,"time":"2019-03-14T12:31:06.000Z","ept":0.005,"lat":-34.608630000,"lon":-58.382300000,"altHAE":39.5000,"altMSL":25.3000,"alt":25.3000,"epv":29.900,"track":84.4000,"magtrack":75.1566,"magvar":-9.2,"speed":1.389,"geoidSep":14.200,"eph":17.100,"sep":30.400}"#
        guard case .tpv(let fix) = try parse(line) else { return XCTFail("not a TPV") }
        XCTAssertEqual(fix.mode, .threeD)
        XCTAssertEqual(fix.latitude, -34.60863)
        XCTAssertEqual(fix.longitude, -58.3823)
        XCTAssertEqual(fix.altitude, 25.3, "above mean sea level, not the ellipsoid")
        XCTAssertEqual(fix.horizontalError, 17.1)
        XCTAssertEqual(fix.speed, 1.389)
        XCTAssertEqual(fix.track, 84.4)
        XCTAssertEqual(fix.time, Date(timeIntervalSince1970: 1_552_566_666))
        XCTAssertEqual(fix.device, "/dev/pts/1")
        let location = try XCTUnwrap(fix.location(age: .milliseconds(1500)))
        XCTAssertEqual(location.altitude, 25.3)
        XCTAssertEqual(location.fixAge, 1.5)
    }

    /// A 2D fix is used without altitude, even when gpsd still carries one.
    func testA2DFixHasNoAltitude() throws {
        let line = #"{"class":"TPV","mode":2,"time":"2019-03-14T12:31:04Z","lat":48.1,"lon":11.5,"alt":545.4,"epx":3.0,"epy":4.0}"#
        guard case .tpv(let fix) = try parse(line) else { return XCTFail("not a TPV") }
        XCTAssertEqual(fix.mode, .twoD)
        XCTAssertEqual(fix.horizontalError, 5, "from epx and epy before gpsd had eph")
        XCTAssertEqual(fix.time, Date(timeIntervalSince1970: 1_552_566_664), "a time without fractions")
        let location = try XCTUnwrap(fix.location())
        XCTAssertNil(location.altitude)
        XCTAssertEqual(location.latitude, 48.1)
    }

    func testNoFixReportsHoldNoPosition() throws {
        for line in [#"{"class":"TPV","device":"/dev/ttyACM0","mode":1}"#, #"{"class":"TPV","mode":0,"time":"2019-03-14T12:31:04Z"}"#,
                     #"{"class":"TPV","mode":1,"lat":1.0,"lon":2.0}"#] {
            guard case .tpv(let fix) = try parse(line) else { return XCTFail("not a TPV: \(line)") }
            XCTAssertFalse(fix.hasPosition, line)
            XCTAssertNil(fix.location(), line)
        }
    }

    func testOtherClassesAreRecognised() throws {
        XCTAssertEqual(try parse(#"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#),
                       .version(release: "3.22", protocolMajor: 3, protocolMinor: 14))
        XCTAssertEqual(try parse(#"{"class":"SKY","device":"/dev/pts/1","xdop":0.5,"satellites":[{"PRN":4,"el":45,"az":90,"ss":40,"used":true}]}"#),
                       .other("SKY"))
        XCTAssertEqual(try parse(#"{"class":"WATCH","enable":true,"json":true}"#), .other("WATCH"))
        XCTAssertEqual(try parse(#"{"class":"DEVICES","devices":[]}"#), .other("DEVICES"))
        XCTAssertEqual(try parse(#"{"class":"ERROR","message":"Unrecognized request 'WATC'"}"#),
                       .error("Unrecognized request 'WATC'"))
    }

    /// What a broken gpsd, another program on its port, or a damaged line gives.
    func testGarbageIsMalformed() {
        let lines = [
            "", "hello", "{", "[1,2,3]", "42", #""TPV""#, #"{"mode":3}"#, #"{"class":3}"#,
            #"{"class":"TPV","mode":"3D"}"#, #"{"class":"TPV","mode":3,"lat":"north","lon":2}"#,
            #"{"class":"TPV","mode":3,"lat":1}"#, #"{"class":"TPV","mode":2,"lat":91,"lon":0}"#,
            #"{"class":"TPV","mode":3,"lat":1,"lon":181}"#, #"{"class":"TPV","mode":7,"lat":1,"lon":1}"#,
            #"{"class":"VERSION"}"#, "\u{FF}\u{FE}{\"class\":\"TPV\"}",
        ]
        for line in lines {
            XCTAssertThrowsError(try parse(line), "accepted: \(line)")
        }
        XCTAssertThrowsError(try GPSDMessage.parse([UInt8](repeating: UInt8(ascii: " "), count: GPSDMessage.maximumLineLength + 1)))
        // Invalid UTF-8 inside a string.
        XCTAssertThrowsError(try GPSDMessage.parse(Array(#"{"class":"TPV","device":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)))
    }

    /// gpsd 3.22's first report as it opens a receiver: the mode of a GSA, no sentence with
    /// the position yet. gpsd's JSON (not a skipped line), a report without a position.
    func testAFixWithoutItsPositionIsAReportWithoutOne() throws {
        let line = #"{"class":"TPV","device":"/dev/pts/1","mode":3,"epv":29.900,"eph":17.100,"sep":30.400}"#
        guard case .tpv(let fix) = try parse(line) else { return XCTFail("not a TPV") }
        XCTAssertEqual(fix.mode, .threeD)
        XCTAssertFalse(fix.hasPosition)
        XCTAssertNil(fix.location())
        XCTAssertEqual(fix.device, "/dev/pts/1")
    }

    /// Values out of what a receiver can mean are dropped, the fix kept.
    func testImpossibleExtrasAreDropped() throws {
        let line = #"{"class":"TPV","mode":3,"lat":1,"lon":2,"altMSL":1e9,"eph":-1,"speed":-3,"track":400,"time":"yesterday"}"#
        guard case .tpv(let fix) = try parse(line) else { return XCTFail("not a TPV") }
        XCTAssertTrue(fix.hasPosition)
        XCTAssertNil(fix.altitude)
        XCTAssertNil(fix.horizontalError)
        XCTAssertNil(fix.speed)
        XCTAssertNil(fix.track)
        XCTAssertNil(fix.time)
    }
}
