import Foundation
import XCTest

/// Where a file says it was taken, as readers that are not Plumb's read it.
public enum LocationReaders {
    /// exiftool's GPS tags of a still, numeric (-n): the GPS IFD's by name ("GPSLatitude" ->
    /// "34.60863", unsigned, with "GPSLatitudeRef" -> "S"), and exiftool's signed composites
    /// as "Composite:GPSLatitude" -> "-34.60863".
    public static func exifGPS(_ path: String) throws -> [String: String] {
        let text = try runTool("exiftool", ["-a", "-n", "-s", "-G1", "-GPS:all", "-Composite:GPSLatitude",
                                            "-Composite:GPSLongitude", path])
        var tags: [String: String] = [:]
        for line in text.split(separator: "\n") {
            // "[GPS]           GPSLatitude                     : 34.60863"
            let kv = line.split(separator: ":", maxSplits: 1)
            guard kv.count == 2 else { continue }
            let words = kv[0].split(separator: " ")
            guard words.count == 2 else { continue }
            let name = String(words[1])
            tags[words[0] == "[Composite]" ? "Composite:" + name : name] = kv[1].trimmingCharacters(in: .whitespaces)
        }
        return tags
    }

    /// exiftool's GPSCoordinates of a movie (QuickTime `©xyz`) as numbers: latitude,
    /// longitude and the altitude when there is one; nil when the file has none.
    public static func movieCoordinates(_ path: String) throws -> [Double]? {
        let text = try runTool("exiftool", ["-n", "-s3", "-GPSCoordinates", path])
        let numbers = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "," }).compactMap { Double($0) }
        return numbers.isEmpty ? nil : numbers
    }

    /// ffprobe's format tags (`location`, `comment` ...).
    public static func ffprobeFormatTags(_ path: String) throws -> [String: String] {
        let json = try runTool("ffprobe", ["-v", "error", "-show_format", "-of", "json", path])
        let root = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        return (root?["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:]
    }
}
