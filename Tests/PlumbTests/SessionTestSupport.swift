import Foundation
@testable import Plumb
import XCTest

/// Runs a program and returns its standard output; fails the test on a non-zero exit.
@discardableResult
func runTool(_ program: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [program] + arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    if process.terminationStatus != 0 {
        XCTFail("\(program) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): "
                + String(decoding: errData, as: UTF8.self), file: file, line: line)
    }
    return text
}

/// What ffprobe (an independent reader) says about a video file.
struct ProbedVideo {
    var codec: String
    var width: Int
    var height: Int
    /// Packets ffprobe read (counted, not taken from the header).
    var packets: Int
    /// From the first packet's time to the end of the last one.
    var seconds: Double
    var firstPacketIsKeyframe: Bool

    init(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let stream = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                         "stream=codec_name,width,height", "-of", "default=noprint_wrappers=1",
                                         url.path], file: file, line: line)
        var fields: [String: String] = [:]
        for l in stream.split(separator: "\n") {
            let kv = l.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { fields[String(kv[0])] = String(kv[1]) }
        }
        codec = fields["codec_name"] ?? ""
        width = Int(fields["width"] ?? "") ?? 0
        height = Int(fields["height"] ?? "") ?? 0
        let packets = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                          "packet=pts_time,duration_time,flags", "-of", "csv=p=0", url.path],
                              file: file, line: line)
        var first: Double?, end = 0.0, count = 0, firstKey = false
        for l in packets.split(separator: "\n") {
            let cols = l.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard cols.count >= 3, let pts = Double(cols[0]) else { continue }
            let duration = Double(cols[1]) ?? 0
            if first == nil {
                first = pts
                firstKey = cols[2].contains("K")
            }
            first = min(first!, pts)
            end = max(end, pts + duration)
            count += 1
        }
        self.packets = count
        seconds = end - (first ?? 0)
        firstPacketIsKeyframe = firstKey
    }
}

/// EXIF as exiftool (an independent reader) reads it: tag name -> value, numeric (-n).
func exif(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws -> [String: String] {
    let text = try runTool("exiftool", ["-n", "-s", "-Make", "-Model", "-DateTimeOriginal", "-Orientation",
                                    "-GPSLatitude", "-GPSLongitude", "-GPSLatitudeRef", "-GPSLongitudeRef",
                                    "-GPSAltitude", "-ImageWidth", "-ImageHeight", "-FileType", "-Error",
                                    "-Warning", url.path], file: file, line: line)
    var result: [String: String] = [:]
    for l in text.split(separator: "\n") {
        let kv = l.split(separator: ":", maxSplits: 1)
        if kv.count == 2 { result[kv[0].trimmingCharacters(in: .whitespaces)] = kv[1].trimmingCharacters(in: .whitespaces) }
    }
    return result
}

/// The threads of this process right now.
var threadCount: Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
}

/// Writes `data` to a new file in `folder`.
func write(_ data: Data, named name: String, in folder: URL) throws -> URL {
    let url = folder.appendingPathComponent(name)
    try data.write(to: url)
    return url
}

/// Runs `operation`, failing with a timeout instead of hanging when it never finishes.
func within<T: Sendable>(_ limit: Duration, _ what: String,
                         _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let shot = OneShot<T>()
    let task = Task {
        do { shot.succeed(try await operation()) } catch { shot.fail(error) }
    }
    defer { task.cancel() }
    return try await shot.value(timeout: limit, what: what)
}
