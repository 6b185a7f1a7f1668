import Foundation
import PlumbTestSupport
import PlumbMedia
import XCTest
import PlumbRotation

/// Builds ISO BMFF boxes byte by byte, independently of the parser under test.
enum BoxBuilder {
    static func be32(_ v: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
    static func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(truncatingIfNeeded: v)) }
    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(truncatingIfNeeded: v)] }

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + payload.count)) + Array(type.utf8) + payload
    }

    static func box(_ type: String, children: [[UInt8]]) -> [UInt8] { box(type, children.flatMap { $0 }) }

    /// A box with a 64-bit size field.
    static func largeBox(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(1) + Array(type.utf8) + be64(UInt64(16 + payload.count)) + payload
    }

    static let identity: [Int32] = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x4000_0000]

    static func tkhd(version: UInt8, id: UInt32, matrix: [Int32] = identity, width: UInt32 = 320,
                     height: UInt32 = 240) -> [UInt8] {
        var p: [UInt8] = [version, 0, 0, 7]
        if version == 1 {
            p += be64(3_000_000_000) + be64(3_000_000_001) + be32(id) + be32(0) + be64(UInt64(1) << 33)
        } else {
            p += be32(3_000_000_000) + be32(3_000_000_001) + be32(id) + be32(0) + be32(90_000)
        }
        p += [UInt8](repeating: 0, count: 8) + be16(0) + be16(0) + be16(version == 1 ? 0 : 0x0100) + be16(0)
        p += matrix.flatMap { be32(UInt32(bitPattern: $0)) }
        p += be32(width << 16) + be32(height << 16)
        return box("tkhd", p)
    }

    static func hdlr(_ handler: String) -> [UInt8] {
        box("hdlr", [0, 0, 0, 0] + be32(0) + Array(handler.utf8) + [UInt8](repeating: 0, count: 12) + [0])
    }

    static func trak(version: UInt8, id: UInt32, handler: String, matrix: [Int32] = identity) -> [UInt8] {
        box("trak", children: [tkhd(version: version, id: id, matrix: matrix),
                               box("mdia", children: [box("mdhd", [UInt8](repeating: 0, count: 24)), hdlr(handler),
                                                      box("minf", children: [box("stbl", [])])])])
    }

    static func moov(_ traks: [[UInt8]], extra: [[UInt8]] = []) -> [UInt8] {
        box("moov", children: [box("mvhd", [UInt8](repeating: 0, count: 100))] + traks + extra)
    }

    static let ftyp = box("ftyp", Array("isom".utf8) + be32(0x200) + Array("isommp41".utf8))
}

final class MP4BoxTests: XCTestCase {
    typealias B = BoxBuilder

    private func patch(_ bytes: inout [UInt8], _ rotation: RotationAngle) throws -> Int {
        try bytes.withUnsafeMutableBytes { try MP4MatrixWriter.patch($0, rotation: rotation) }
    }

    private func writeFile(_ bytes: [UInt8]) throws -> String {
        let url = try temporaryDirectory(self).appendingPathComponent("movie.mp4")
        try Data(bytes).write(to: url)
        return url.path
    }

    func testMatricesForEachAngle() {
        XCTAssertEqual(TrackMatrix(rotation: .degrees90).description, "0 1 0 -1 0 0 0 0 1")
        XCTAssertEqual(TrackMatrix(rotation: .degrees180).description, "-1 0 0 0 -1 0 0 0 1")
        XCTAssertEqual(TrackMatrix(rotation: .degrees270).description, "0 -1 0 1 0 0 0 0 1")
        XCTAssertEqual(TrackMatrix.identity.values, B.identity)
        for angle in RotationAngle.allCases {
            XCTAssertEqual(TrackMatrix(rotation: angle).rotation, angle)
            XCTAssertEqual(TrackMatrix(rotation: angle).degrees, Double(angle.degrees), accuracy: 1e-9)
        }
        let mirrored = TrackMatrix(values: [-0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x4000_0000])
        XCTAssertNil(mirrored.rotation, "a mirror is not a rotation")
        let scaled = TrackMatrix(values: [0x20000, 0, 0, 0, 0x20000, 0, 0, 0, 0x4000_0000])
        XCTAssertNil(scaled.rotation)
        // With a translation (as Apple writes: tx = height) the rotation still reads.
        XCTAssertEqual(TrackMatrix(values: [0, 0x10000, 0, -0x10000, 0, 0, 240 << 16, 0, 0x4000_0000]).rotation, .degrees90)
    }

    func testReadsVersion0And1TrackHeadersAndPatchesOnlyVideoTracksInPlace() throws {
        for version: UInt8 in [0, 1] {
            let original = B.ftyp + B.moov([B.trak(version: version, id: 1, handler: "vide"),
                                            B.trak(version: version, id: 2, handler: "soun")])
            var bytes = original
            let path = try writeFile(bytes)
            let info = try MP4File.inspect(path: path)
            XCTAssertEqual(info.boxes.map(\.type), ["ftyp", "moov"])
            XCTAssertEqual(info.tracks.map(\.id), [1, 2])
            XCTAssertEqual(info.tracks.map(\.handler), ["vide", "soun"])
            XCTAssertEqual(info.tracks.map(\.headerVersion), [version, version])
            XCTAssertEqual(info.videoTrack?.width, 320)
            XCTAssertEqual(info.videoTrack?.height, 240)
            XCTAssertEqual(info.rotation, .degrees0)
            XCTAssertFalse(info.isFragmented)

            XCTAssertTrue(bytes.withUnsafeBytes { MP4MatrixWriter.containsMovieHeader($0) })
            XCTAssertEqual(try patch(&bytes, .degrees90), 1, "one video track")
            XCTAssertEqual(bytes.count, original.count)
            // Exactly the 36 matrix bytes of the video track changed.
            let matrixOffset = info.tracks[0].matrixOffset
            let changed = zip(original, bytes).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
            XCTAssertFalse(changed.isEmpty)
            XCTAssertTrue(changed.allSatisfy { (matrixOffset..<matrixOffset + 36).contains($0) }, "\(changed)")
            let expected = TrackMatrix(rotation: .degrees90).values.flatMap { B.be32(UInt32(bitPattern: $0)) }
            XCTAssertEqual(Array(bytes[matrixOffset..<matrixOffset + 36]), expected)

            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let patched = try MP4File.inspect(path: path)
            XCTAssertEqual(patched.rotation, .degrees90)
            XCTAssertEqual(patched.tracks[1].matrix, .identity, "the audio track keeps its identity matrix")
        }
    }

    func testFindsTheHeaderAmongFragmentsAndLargeBoxes() throws {
        let moof = B.box("moof", children: [B.box("mfhd", B.be32(0) + B.be32(1)),
                                            B.box("traf", children: [B.box("tfhd", B.be32(0) + B.be32(1))])])
        let bytes = B.ftyp + B.largeBox("free", [1, 2, 3])
            + B.moov([B.trak(version: 1, id: 7, handler: "vide")], extra: [B.box("mvex", children: [B.box("trex", [])])])
            + moof + B.largeBox("mdat", [UInt8](repeating: 0xAB, count: 100))
        let info = try MP4File.inspect(path: try writeFile(bytes))
        XCTAssertEqual(info.boxes.map(\.type), ["ftyp", "free", "moov", "moof", "mdat"])
        XCTAssertEqual(info.boxes[1].headerSize, 16)
        XCTAssertTrue(info.isFragmented)
        XCTAssertEqual(info.videoTrack?.id, 7)
    }

    func testBuffersWithoutACompleteHeaderAreLeftAlone() throws {
        let moov = B.moov([B.trak(version: 0, id: 1, handler: "vide")])
        let cases: [(String, [UInt8])] = [
            // Length-prefixed H.264 data, as in an mdat.
            ("media data", B.be32(900) + [0x65, 0x88, 0x84, 0x00] + [UInt8](repeating: 0x5A, count: 200)),
            // The mdat header mp4mux rewrites after seeking back.
            ("mdat header", B.be32(1) + Array("mdat".utf8) + B.be64(123_456)),
            // A moov cut short: it runs past the buffer.
            ("truncated moov", Array(moov.prefix(moov.count - 10))),
            ("empty", []),
            ("tiny", [0, 0, 0]),
            // "moov" bytes inside a non-box: the first box is not a top-level type.
            ("media that spells moov", B.be32(16) + Array("avc1".utf8) + moov),
        ]
        for (label, original) in cases {
            var bytes = original
            XCTAssertFalse(bytes.withUnsafeBytes { MP4MatrixWriter.containsMovieHeader($0) }, label)
            XCTAssertEqual(try patch(&bytes, .degrees180), 0, label)
            XCTAssertEqual(bytes, original, label)
        }
        // A header followed by the start of the media data is patched.
        var bytes = moov + B.be32(0) + Array("mdat".utf8)
        XCTAssertEqual(try patch(&bytes, .degrees270), 1)
    }

    func testMalformedHeadersThrowAndChangeNothing() throws {
        let trak = B.trak(version: 0, id: 1, handler: "vide")
        var overrun = B.moov([trak])
        // Make the trak claim more bytes than the moov holds.
        let trakStart = 8 + 108
        overrun.replaceSubrange(trakStart..<trakStart + 4, with: B.be32(UInt32(trak.count + 50)))
        var shortHeader = B.moov([B.box("trak", children: [Array(B.tkhd(version: 0, id: 1).prefix(8 + 40))])])
        // Fix the sizes of the cut tkhd: claims 48 bytes, too few for a version 0 header.
        shortHeader.replaceSubrange((8 + 108 + 8)..<(8 + 108 + 12), with: B.be32(48))
        let badVersion = B.moov([B.box("trak", children: [B.box("tkhd", [7] + [UInt8](repeating: 0, count: 83))])])
        let tooSmall = B.moov([B.box("trak", children: [B.be32(4) + Array("tkhd".utf8)])])
        let cases: [(String, [UInt8], String)] = [
            ("child overruns parent", overrun, "remain"),
            ("truncated tkhd", shortHeader, "version 0 needs"),
            ("unknown version", badVersion, "unknown version 7"),
            ("size below header", tooSmall, "less than its own header"),
        ]
        for (label, original, fragment) in cases {
            var bytes = original
            XCTAssertThrowsError(try patch(&bytes, .degrees90), label) { error in
                XCTAssertTrue("\(error)".contains(fragment), "\(label): \(error)")
            }
            XCTAssertEqual(bytes, original, label)
        }
        let path = try writeFile(Array("not a movie at all".utf8))
        XCTAssertThrowsError(try MP4File.inspect(path: path)) { error in
            XCTAssertEqual(error as? MediaError, .noMovieHeader(path: path))
        }
        XCTAssertThrowsError(try MP4File.inspect(path: "/nonexistent/movie.mp4")) { error in
            XCTAssertEqual(error as? MediaError, .cannotRead(path: "/nonexistent/movie.mp4", reason: "no such file"))
        }
    }
}
