import Foundation

/// The access units ffmpeg's RTSP demuxer makes of a stream (ffprobe -show_packets
/// -show_data): each one's timestamp, keyframe flag and the H.264 NAL unit types it holds.
public enum RTSPPackets {
    public struct Packet {
        /// In the stream's time base (90 kHz for RTP video); nil when ffmpeg gave none.
        public var pts: Int?
        public var isKeyframe: Bool
        /// The type of each NAL unit, in order (7 SPS, 8 PPS, 5 IDR slice, 1 slice, 9 AUD ...).
        public var nalTypes: [Int]
    }

    /// Reads `url` over TCP for `seconds`; the packets and what ffprobe printed on stderr.
    public static func read(_ url: String, seconds: Int) throws -> (packets: [Packet], stderr: String) {
        let r = try PlumbProcess.run(PlumbProcess.tool("ffprobe"), [
            "-v", "warning", "-rtsp_transport", "tcp", "-read_intervals", "%+\(seconds)", "-show_packets",
            "-show_data", "-show_entries", "packet=pts,flags,data", "-of", "json", url,
        ], timeout: TimeInterval(seconds + 30))
        guard let json = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any],
              let packets = json["packets"] as? [[String: Any]] else { return ([], r.stderr) }
        return (packets.map { p in
            Packet(pts: p["pts"] as? Int, isKeyframe: (p["flags"] as? String ?? "").hasPrefix("K"),
                   nalTypes: nalTypes(in: bytes(ofDump: p["data"] as? String ?? "")))
        }, r.stderr)
    }

    /// The bytes of ffprobe's hex dump ("00000000: 0000 0001 6742 ...  ....gB").
    static func bytes(ofDump dump: String) -> [UInt8] {
        var result: [UInt8] = []
        for line in dump.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            // Eight groups of four hex digits, then two spaces and the characters.
            let hex = line[line.index(after: colon)...].prefix(41).filter { !$0.isWhitespace }
            var i = hex.startIndex
            while let j = hex.index(i, offsetBy: 2, limitedBy: hex.endIndex), i < hex.endIndex {
                guard let byte = UInt8(hex[i..<j], radix: 16) else { break }
                result.append(byte)
                i = j
            }
        }
        return result
    }

    /// The NAL unit types of an Annex B access unit (start codes 00 00 01 / 00 00 00 01).
    public static func nalTypes(in bytes: [UInt8]) -> [Int] {
        var types: [Int] = []
        var i = 0
        while i + 3 < bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
                types.append(Int(bytes[i + 3] & 0x1f))
                i += 3
            } else {
                i += 1
            }
        }
        return types
    }
    /// What is wrong with the access units a consumer read over about 5 s of 30 fps, one
    /// message each (empty: all is well): fewer than 100, two sharing a timestamp, fewer
    /// than two keyframes, an IDR slice outside a keyframe, a keyframe without SPS and PPS
    /// in front of its slices, parameter sets between its slices (what split keyframes in two).
    ///
    /// The media is shared: a consumer starts where the stream is, often inside an access
    /// unit (a first packet [1, 1] without its AUD, about one join in four). Joining inside
    /// a keyframe, it gets that keyframe's slices without the SPS/PPS already sent to the
    /// others (it has them from the SDP); only that first packet may lack them.
    public static func problems(in packets: [Packet]) -> [String] {
        var problems: [String] = []
        if packets.count < 100 { problems.append("\(packets.count) access units in 5 s of 30 fps") }
        let stamps = packets.compactMap(\.pts)
        if Set(stamps).count != stamps.count { problems.append("two access units share a timestamp") }
        let keyframes = packets.filter(\.isKeyframe)
        if keyframes.count < 2 { problems.append("\(keyframes.count) keyframes: one every 2 s was due") }
        if packets.contains(where: { !$0.isKeyframe && $0.nalTypes.contains(5) }) {
            problems.append("an IDR slice outside a keyframe access unit")
        }
        for (index, k) in packets.enumerated() where k.isKeyframe {
            let firstSlice = k.nalTypes.firstIndex(of: 5) ?? k.nalTypes.count
            let front = k.nalTypes[..<firstSlice]
            let joinedInside = index == 0 && !k.nalTypes.isEmpty && k.nalTypes.allSatisfy { $0 == 5 }
            if !(front.contains(7) && front.contains(8)) && !joinedInside {
                problems.append("keyframe \(index) of \(packets.count) (pts \(k.pts ?? -1)) has no SPS/PPS in front: \(k.nalTypes)")
            }
            if k.nalTypes[firstSlice...].contains(where: { $0 == 7 || $0 == 8 }) {
                problems.append("parameter sets between the slices of keyframe \(index): \(k.nalTypes)")
            }
        }
        return problems
    }
}
