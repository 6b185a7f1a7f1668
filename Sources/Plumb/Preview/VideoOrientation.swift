import PlumbRotation
import Synchronization

/// The device's turn as WebRTC viewers can take it instead of turned pixels: the RTP header
/// extension `urn:3gpp:video-orientation` (3GPP TS 26.114 §7.4.5, "CVO"), which browsers
/// apply before they show the video (Chromium: `video.videoWidth` and `videoHeight` swap
/// for a quarter turn).
///
/// One byte, one-byte form (RFC 8285): `0 0 0 0 C F R1 R0`. R1 R0 is the clockwise turn
/// the receiver applies before display in quarter turns (0, 1 = 90°, 2 = 180°, 3 = 270°;
/// the spec words it as the video's counter-clockwise rotation on the link), the same
/// quantity as `RotationAngle`, so the byte is `angle / 90`; WebRTC's
/// `ConvertVideoRotationToCVOByte` (modules/rtp_rtcp/include/rtp_cvo.h) writes the same.
/// C (camera: 1 back-facing) and F (horizontal flip) stay 0, the spec's values when unknown:
/// the pixels are as captured, and browsers ignore both.
///
/// Shared by whoever follows the angle (it sets `angle`) and the viewers' payloader probes
/// (which read `byte` for every packet): a turn reaches the very next packet.
public final class VideoOrientation: Sendable {
    /// The extension's name in SDP (`a=extmap:ID urn:3gpp:video-orientation`).
    public static let uri = "urn:3gpp:video-orientation"

    private let current: Mutex<RotationAngle>

    public init(_ angle: RotationAngle = .degrees0) { current = Mutex(angle) }

    /// The clockwise turn that makes the pixels upright.
    public var angle: RotationAngle {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// The extension's byte for `angle`: R1 R0 in the low bits, C and F zero.
    public var byte: UInt8 { Self.byte(for: angle) }

    public static func byte(for angle: RotationAngle) -> UInt8 { UInt8(angle.degrees / 90) }
}
