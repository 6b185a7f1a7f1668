import XCTest
@testable import Plumb

/// The offer check before any pipeline is built, on offers shaped as browsers and aiortc write them.
final class WHEPOfferTests: XCTestCase {
    static func offer(_ media: String) -> String {
        "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\n" + media
    }

    /// Chromium's order: VP8 first, then H.264 baseline (42001f) and constrained baseline (42e01f).
    static let browserLike = offer(
        "m=video 9 UDP/TLS/RTP/SAVPF 96 97 102 103 106 107\r\nc=IN IP4 0.0.0.0\r\na=mid:0\r\na=recvonly\r\n"
        + "a=rtpmap:96 VP8/90000\r\na=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\n"
        + "a=rtpmap:102 H264/90000\r\na=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f\r\n"
        + "a=rtpmap:103 rtx/90000\r\na=fmtp:103 apt=102\r\n"
        + "a=rtpmap:106 H264/90000\r\na=fmtp:106 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f\r\n"
        + "a=rtpmap:107 H264/90000\r\na=fmtp:107 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f\r\n")

    func testTheFormatOfTheStreamsProfileIsChosen() throws {
        let offer = try WHEPOffer(Self.browserLike)
        XCTAssertEqual(offer.formats.map(\.payloadType), [102, 106], "packetization-mode=0 is no use: rtph264pay sends 1")
        XCTAssertEqual(offer.formats.map(\.profile), ["baseline", "constrained-baseline"])
        XCTAssertEqual(offer.payloadType(for: "constrained-baseline"), 106)
        XCTAssertEqual(offer.payloadType(for: "baseline"), 102)
        XCTAssertEqual(offer.payloadType(for: "high"), 102, "no match: the offer's first")
    }

    func testProfileLevelIDsAsGStreamerNamesThem() {
        XCTAssertEqual(WHEPOffer.profile("42e01f"), "constrained-baseline")
        XCTAssertEqual(WHEPOffer.profile("42c01e"), "constrained-baseline")
        XCTAssertEqual(WHEPOffer.profile("42001f"), "baseline")
        XCTAssertEqual(WHEPOffer.profile("4d001f"), "main")
        XCTAssertEqual(WHEPOffer.profile("640032"), "high")
        XCTAssertEqual(WHEPOffer.profile(nil), "baseline", "RFC 6184's default")
    }

    /// Unix line ends too (curl users); "\r\n" is one Swift Character.
    func testUnixLineEndsAreAccepted() throws {
        let offer = try WHEPOffer(Self.browserLike.replacingOccurrences(of: "\r\n", with: "\n"))
        XCTAssertEqual(offer.formats.count, 2)
    }

    func testEachProblemIsNamed() {
        XCTAssertThrowsError(try WHEPOffer("{\"sdp\": \"v=0\"}")) { XCTAssertEqual($0 as? WHEPOffer.Problem, .notSDP) }
        XCTAssertThrowsError(try WHEPOffer(Self.offer("m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\n"))) {
            XCTAssertEqual($0 as? WHEPOffer.Problem, .noVideo)
        }
        XCTAssertThrowsError(try WHEPOffer(Self.offer(
            "m=video 9 UDP/TLS/RTP/SAVPF 96 98 99\r\na=rtpmap:96 VP8/90000\r\na=rtpmap:98 VP9/90000\r\n"
            + "a=rtpmap:99 rtx/90000\r\na=fmtp:99 apt=98\r\n"))) {
            XCTAssertEqual($0 as? WHEPOffer.Problem, .noH264(offered: ["VP8", "VP9"]))
            XCTAssertTrue("\($0)".contains("accepts VP8, VP9, not H264"), "\($0)")
        }
    }

    /// The video-orientation extension's id, as Chromium writes it (in the video section,
    /// after a=mid), at session level, with a direction; none where the viewer would not
    /// receive it, where the one-byte form cannot carry it, or in another section.
    func testTheVideoOrientationExtensionsIDIsFound() throws {
        func offer(session: String = "", video: String, audio: String = "") -> String {
            Self.offer(session + "m=video 9 UDP/TLS/RTP/SAVPF 106\r\na=mid:0\r\n" + video
                       + "a=rtpmap:106 H264/90000\r\na=fmtp:106 packetization-mode=1;profile-level-id=42e01f\r\n"
                       + (audio.isEmpty ? "" : "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\n" + audio))
        }
        XCTAssertNil(try WHEPOffer(Self.browserLike).videoOrientationID)
        XCTAssertEqual(try WHEPOffer(offer(video: "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time\r\n"
                                           + "a=extmap:3 urn:3gpp:video-orientation\r\n")).videoOrientationID, 3)
        XCTAssertEqual(try WHEPOffer(offer(session: "a=extmap:5 urn:3gpp:video-orientation\r\n", video: "")).videoOrientationID, 5)
        XCTAssertEqual(try WHEPOffer(offer(video: "a=extmap:4/recvonly urn:3gpp:video-orientation\r\n")).videoOrientationID, 4)
        XCTAssertNil(try WHEPOffer(offer(video: "a=extmap:4/sendonly urn:3gpp:video-orientation\r\n")).videoOrientationID,
                     "the viewer would not receive it")
        XCTAssertNil(try WHEPOffer(offer(video: "a=extmap:15 urn:3gpp:video-orientation\r\n")).videoOrientationID,
                     "15 and above need the two-byte form")
        XCTAssertNil(try WHEPOffer(offer(video: "a=extmap:3 urn:3gpp:video-orientation:6\r\n")).videoOrientationID,
                     "the 6-bit form is another extension")
        XCTAssertNil(try WHEPOffer(offer(video: "", audio: "a=extmap:3 urn:3gpp:video-orientation\r\n")).videoOrientationID,
                     "in the audio section")
    }

    func testSTUNServersAreWrittenAsWebRTCBinWantsThem() {
        XCTAssertEqual(WHEPPreview.Configuration.stunURL("stun:stun.example.org:19302"), "stun://stun.example.org:19302")
        XCTAssertEqual(WHEPPreview.Configuration.stunURL("stun://10.0.0.1:3478"), "stun://10.0.0.1:3478")
        XCTAssertEqual(WHEPPreview.Configuration.stunURL("stun.example.org"), "stun://stun.example.org:3478")
        XCTAssertNil(WHEPPreview.Configuration.stunURL("stun:host:99999"))
        XCTAssertNil(WHEPPreview.Configuration.stunURL("turn://user@host"))
        XCTAssertNil(WHEPPreview.Configuration.stunURL(""))
    }
}
