import Foundation
import XCTest

/// Runs a program and returns its standard output; fails the test on a non-zero exit.
@discardableResult
public func runTool(_ program: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
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

/// EXIF as exiftool (an independent reader) reads it: tag name -> value, numeric (-n).
public func exif(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws -> [String: String] {
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
