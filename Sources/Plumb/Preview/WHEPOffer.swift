/// A viewer's SDP offer, checked before any pipeline is built: it must be SDP, ask for
/// video, and accept H.264 in packetization mode 1 (what the preview encoder makes and
/// rtph264pay sends). Anything else is refused with a sentence saying what to change.
public struct WHEPOffer: Sendable, Equatable {
    /// Why an offer cannot be answered; `description` is the sentence for the viewer.
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case notSDP
        case noVideo
        case noH264(offered: [String])

        public var description: String {
            switch self {
            case .notSDP:
                return "the body is not an SDP offer (it must start with \"v=0\"): POST the RTCPeerConnection's offer as application/sdp"
            case .noVideo:
                return "the offer has no video m-line: add a video transceiver (recvonly) before creating the offer"
            case .noH264(let offered):
                let list = offered.isEmpty ? "no codec" : offered.joined(separator: ", ")
                return "the offer's video accepts \(list), not H264 with packetization-mode=1: "
                    + "the preview is H.264, let the peer offer it"
            }
        }
    }

    /// The SDP text as sent.
    public let sdp: String
    /// The offer's H.264 formats in packetization mode 1, in its order of preference:
    /// payload type and profile (from `profile-level-id`, as GStreamer names it).
    public let formats: [(payloadType: Int, profile: String)]

    /// The id the offer gives the device's turn as RTP metadata (`a=extmap:ID
    /// urn:3gpp:video-orientation`, `VideoOrientation`) in its video, at session level or in
    /// a video section, when it is one the one-byte form can carry (1 to 14) and the offerer
    /// receives it; nil otherwise (then the viewer gets turned pixels).
    public let videoOrientationID: Int?

    /// The first H.264 payload type, the one the offer prefers.
    public var payloadType: Int { formats[0].payloadType }

    /// The payload type to send a stream of `profile` (GStreamer's name, e.g.
    /// constrained-baseline) as: webrtcbin matches profiles strictly, so the offer's format
    /// of that profile, else its first.
    public func payloadType(for profile: String) -> Int {
        formats.first { $0.profile == profile }?.payloadType ?? payloadType
    }

    public static func == (a: WHEPOffer, b: WHEPOffer) -> Bool {
        a.sdp == b.sdp && a.formats.elementsEqual(b.formats) { $0 == $1 }
    }

    /// RFC 6184's profile-level-id (profile_idc, constraint flags, level) to GStreamer's
    /// profile names; without one the RFC's default is baseline.
    static func profile(_ profileLevelID: String?) -> String {
        guard let id = profileLevelID, id.count == 6, let value = Int(id, radix: 16) else { return "baseline" }
        let idc = value >> 16, flags = (value >> 8) & 0xFF
        switch idc {
        case 0x42: return flags & 0x40 != 0 ? "constrained-baseline" : "baseline"
        case 0x4D: return "main"
        case 0x58: return "extended"
        case 0x64: return flags & 0x0C == 0x0C ? "constrained-high" : flags & 0x08 != 0 ? "progressive-high" : "high"
        default: return "unknown"
        }
    }

    public init(_ text: String) throws(Problem) {
        let lines = text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline)  // "\r\n" is one Character
            .map(String.init)
        guard lines.first == "v=0", lines.contains(where: { $0.hasPrefix("m=") }) else { throw .notSDP }
        // The lines of each video section: its m-line up to the next m-line.
        var sections: [[String]] = []
        var inVideo = false, inSession = true
        var orientationIDs: [Int] = []
        for line in lines {
            if line.hasPrefix("m=") {
                inSession = false
                inVideo = line.hasPrefix("m=video ")
                if inVideo { sections.append([line]) }
            } else if inVideo || inSession {
                if inVideo { sections[sections.count - 1].append(line) }
                if let id = Self.orientationID(line) { orientationIDs.append(id) }
            }
        }
        guard !sections.isEmpty else { throw .noVideo }
        var offered: [String] = []
        var formats: [(payloadType: Int, profile: String)] = []
        for section in sections {
            let listed = section[0].split(separator: " ").dropFirst(3).compactMap { Int($0) }
            var codecs: [Int: String] = [:], parameters: [Int: String] = [:]
            for line in section.dropFirst() {
                if let (pt, value) = Self.attribute("a=rtpmap:", line) { codecs[pt] = value }
                if let (pt, value) = Self.attribute("a=fmtp:", line) { parameters[pt] = value }
            }
            for pt in listed {
                guard let codec = codecs[pt] else { continue }
                let name = String(codec.prefix { $0 != "/" })
                if name.uppercased() == "H264", let fmtp = parameters[pt], fmtp.contains("packetization-mode=1") {
                    let id = fmtp.split(separator: ";").first { $0.hasPrefix("profile-level-id=") }
                        .map { String($0.dropFirst("profile-level-id=".count)).lowercased() }
                    formats.append((payloadType: pt, profile: Self.profile(id)))
                    continue
                }
                if !offered.contains(name) && !["RTX", "RED", "ULPFEC", "FLEXFEC-03"].contains(name.uppercased()) {
                    offered.append(name)
                }
            }
        }
        guard !formats.isEmpty else { throw .noH264(offered: offered) }
        self.sdp = text
        self.formats = formats
        videoOrientationID = orientationIDs.first
    }

    /// `a=extmap:ID[/DIRECTION] urn:3gpp:video-orientation` -> ID, when the one-byte form
    /// carries it (1 to 14) and the offerer receives it (no direction, sendrecv or recvonly).
    static func orientationID(_ line: String) -> Int? {
        guard line.hasPrefix("a=extmap:") else { return nil }
        let fields = line.dropFirst("a=extmap:".count).split(separator: " ")
        guard fields.count >= 2, fields[1] == VideoOrientation.uri else { return nil }
        let idAndDirection = fields[0].split(separator: "/", maxSplits: 1)
        guard let id = Int(idAndDirection[0]), (1...14).contains(id) else { return nil }
        if idAndDirection.count == 2, !["sendrecv", "recvonly"].contains(idAndDirection[1]) { return nil }
        return id
    }

    /// `a=rtpmap:96 H264/90000` -> (96, "H264/90000").
    private static func attribute(_ prefix: String, _ line: String) -> (Int, String)? {
        guard line.hasPrefix(prefix) else { return nil }
        let rest = line.dropFirst(prefix.count)
        guard let space = rest.firstIndex(of: " "), let pt = Int(rest[..<space]) else { return nil }
        return (pt, String(rest[rest.index(after: space)...]))
    }
}
