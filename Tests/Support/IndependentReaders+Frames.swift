import Foundation

extension IndependentReaders {
    /// ffmpeg's MD5 of each video frame it decodes, in order: the same list for two files
    /// means the same pictures.
    public static func frameHashes(_ path: String) throws -> [String] {
        let r = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "error", "-i", path, "-map", "0:v:0",
                                                                 "-f", "framemd5", "-"])
        return r.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last?.trimmingCharacters(in: .whitespaces) }
    }

    /// Every video frame's presentation time, in decoding order, as ffprobe reads them (a
    /// test failure when ffprobe fails).
    public static func ffprobeFrameTimes(_ path: String) throws -> [Double] {
        try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", path])
            // A frame with side data prints a trailing comma ("0.000000,"): the time is the first field.
            .split(separator: "\n").compactMap { line in
                line.split(separator: ",", omittingEmptySubsequences: false).first
                    .flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            }
    }

    /// ffprobe's duration of the file (format=duration), nil when it cannot read one.
    public static func ffprobeDuration(_ path: String) throws -> Double? {
        let r = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "error", "-show_entries", "format=duration",
                                                                  "-of", "csv=p=0", path])
        return r.code == 0 ? Double(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) : nil
    }

    /// Seeks to `seconds` and returns the time of the first video packet read from there
    /// (ffprobe -read_intervals): in a seekable file, the last keyframe at or before it.
    public static func packetTimeAfterSeeking(_ path: String, to seconds: Double) throws -> Double? {
        let r = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), [
            "-v", "error", "-select_streams", "v:0", "-read_intervals", "\(seconds)%+#1",
            "-show_entries", "packet=pts_time", "-of", "csv=p=0", path])
        return r.stdout.split(separator: "\n").first.flatMap { Double($0.trimmingCharacters(in: .punctuationCharacters)) }
    }

    /// `ffmpeg -ss SECONDS -i FILE -frames:v 1`: whether ffmpeg seeks there and decodes a frame.
    public static func ffmpegSeeks(_ path: String, to seconds: Double) throws -> Bool {
        let r = try PlumbProcess.run(PlumbProcess.tool("ffmpeg"), ["-v", "error", "-ss", "\(seconds)", "-i", path,
                                                                 "-frames:v", "1", "-f", "framemd5", "-"])
        return r.code == 0 && r.stdout.split(separator: "\n").contains { !$0.hasPrefix("#") }
    }
}

extension IndependentReaders {
    /// The boxes ffprobe's MP4 reader parses (`-v trace`), as (type, parent) in its order.
    public static func ffprobeBoxes(_ path: String) throws -> [(type: String, parent: String)] {
        let r = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), ["-v", "trace", path])
        return r.stderr.split(separator: "\n").compactMap { line in
            guard let t = line.range(of: "type:'"), let p = line.range(of: "' parent:'", range: t.upperBound..<line.endIndex),
                  let end = line[p.upperBound...].firstIndex(of: "'") else { return nil }
            return (String(line[t.upperBound..<p.lowerBound]), String(line[p.upperBound..<end]))
        }
    }

    /// A normal MP4 for ffprobe: a movie header and no fragments (no `mvex`, no `moof`).
    public static func isNormalMP4(_ path: String) throws -> Bool {
        let types = try ffprobeBoxes(path).map(\.type)
        return types.contains("moov") && !types.contains("moof") && !types.contains("mvex")
    }
}
