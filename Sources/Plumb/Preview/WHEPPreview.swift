import FoundationEssentials
import Glibc
import PlumbBase
import GStreamer
import Synchronization

/// The preview over WebRTC by WHEP (the WebRTC-HTTP egress protocol): each viewer POSTs
/// an SDP offer and gets an answer that already holds every ICE candidate (so a peer
/// that does not trickle needs nothing more), and a session id to DELETE when done.
/// Every viewer is a `WHEPViewer` fed by the one `EncodedStream`.
///
/// With `unturned` given, a viewer whose offer has the video-orientation extension
/// (`urn:3gpp:video-orientation`: Chromium offers it) is fed by that stream instead — the
/// pixels as captured — and gets the device's turn in every RTP packet (`VideoOrientation`),
/// which the browser applies: it never needs pixels turned for it. Viewers without the
/// extension get `stream`, turned pixels, as before.
///
/// Viewers whose connection failed, that never connected, or from which nothing has come
/// for `silenceTimeout` (a closed tab sends no RTCP) end themselves, told by webrtcbin's
/// connection state and their own deadlines: UDP never blocks the sender, and the
/// stream's queue limit keeps a slow pipeline from growing.
public final class WHEPPreview: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// `stun://HOST:PORT` for webrtcbin, or nil for host candidates only (loopback, LAN).
        public var stun: String?
        /// Viewers at once; one more is refused (`.full`).
        public var maxViewers: Int
        /// How long an answer waits for ICE gathering.
        public var gatheringTimeout: Duration
        /// How long a viewer may take from its answer to a connection.
        public var connectTimeout: Duration
        /// How long a connected viewer may send nothing before it is let go.
        public var silenceTimeout: Duration

        public init(stun: String? = nil, maxViewers: Int = 16, gatheringTimeout: Duration = .seconds(5),
                    connectTimeout: Duration = .seconds(20), silenceTimeout: Duration = .seconds(10)) {
            self.stun = stun
            self.maxViewers = maxViewers
            self.gatheringTimeout = gatheringTimeout
            self.connectTimeout = connectTimeout
            self.silenceTimeout = silenceTimeout
        }

        /// `stun:HOST:PORT` (as browsers write it), `stun://HOST:PORT` or `HOST:PORT` to
        /// webrtcbin's `stun://HOST:PORT`; nil for anything else.
        public static func stunURL(_ text: String) -> String? {
            var rest = text.trimmed
            for prefix in ["stun://", "stun:"] where rest.hasPrefix(prefix) {
                rest = String(rest.dropFirst(prefix.count))
                break
            }
            let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
            guard !rest.isEmpty, parts.count <= 2, !parts[0].isEmpty,
                  !parts[0].contains(where: { $0 == "/" || $0 == " " || $0 == "@" }) else { return nil }
            if parts.count == 2 { guard let port = Int(parts[1]), (1...65535).contains(port) else { return nil } }
            return "stun://" + (parts.count == 2 ? rest : rest + ":3478")
        }
    }

    public enum OpenError: Error, Sendable, CustomStringConvertible {
        /// `maxViewers` are watching.
        case full(Int)
        /// webrtcbin could not answer (its words).
        case negotiation(String)

        public var description: String {
            switch self {
            case .full(let n): return "\(n) viewers are watching, the most this preview serves: close one first"
            case .negotiation(let why): return "cannot answer the offer: \(why)"
            }
        }
    }

    /// Unturned pixels and the turn they lack, for viewers that take the turn as metadata.
    public struct Unturned: Sendable {
        public let stream: EncodedStream
        public let orientation: VideoOrientation

        public init(stream: EncodedStream, orientation: VideoOrientation) {
            self.stream = stream
            self.orientation = orientation
        }
    }

    public let configuration: Configuration
    public let stream: EncodedStream
    /// nil: every viewer gets `stream`, whatever its offer.
    public let unturned: Unturned?
    private let viewers = Mutex<[String: WHEPViewer]>([:])
    private let opening = Mutex(0)
    private let dropped = Mutex(0)

    /// Told of each viewer let go (`.closed` included), from the ending viewer's task: only hand off.
    public let onViewerEnded: (@Sendable (WHEPViewer, WHEPViewer.End) -> Void)?

    public init(stream: EncodedStream, unturned: Unturned? = nil, configuration: Configuration = Configuration(),
                onViewerEnded: (@Sendable (WHEPViewer, WHEPViewer.End) -> Void)? = nil) {
        self.stream = stream
        self.unturned = unturned
        self.configuration = configuration
        self.onViewerEnded = onViewerEnded
    }

    /// Answers one viewer's offer: the session id and the SDP answer. The negotiation
    /// blocks (ICE gathering) on a thread of its own, never the caller's.
    public func open(_ offer: WHEPOffer) async throws -> (id: String, answer: String) {
        let admitted = opening.withLock { n -> Bool in
            guard viewerCount + n < configuration.maxViewers else { return false }
            n += 1
            return true
        }
        guard admitted else { throw OpenError.full(configuration.maxViewers) }
        defer { opening.withLock { $0 -= 1 } }
        let id = UUID().uuidString.lowercased()
        let metadata = offer.videoOrientationID == nil ? nil : unturned
        let stream = metadata?.stream ?? self.stream, orientation = metadata?.orientation
        let stun = configuration.stun, gathering = configuration.gatheringTimeout
        let limits = WHEPViewer.Limits(connect: configuration.connectTimeout, silence: configuration.silenceTimeout)
        let onEnd: @Sendable (WHEPViewer, WHEPViewer.End) -> Void = { [weak self] in self?.viewerEnded($0, $1) }
        let (viewer, answer) = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<(WHEPViewer, String), any Error>) in
            startThread(named: "plumb.whep.answer") {
                do {
                    continuation.resume(returning: try WHEPViewer.open(
                        id: id, offer: offer, stream: stream, orientation: orientation, stun: stun, gatheringTimeout: gathering,
                        limits: limits, onEnd: onEnd))
                } catch let error as GStreamerError {
                    continuation.resume(throwing: OpenError.negotiation(error.message))
                } catch {
                    continuation.resume(throwing: OpenError.negotiation("\(error)"))
                }
            }
        }
        viewers.withLock { $0[id] = viewer }
        if let end = viewer.end { viewerEnded(viewer, end) }  // it ended while answering
        return (id, answer)
    }

    /// Ends a session (DELETE); false when there is none with that id.
    @discardableResult
    public func close(_ id: String) -> Bool {
        guard let viewer = viewers.withLock({ $0.removeValue(forKey: id) }) else { return false }
        viewer.stop(.closed)
        onViewerEnded?(viewer, .closed)
        return true
    }

    /// Ends every session.
    public func stop() {
        let all = viewers.withLock { v in
            defer { v.removeAll() }
            return Array(v.values)
        }
        for viewer in all {
            viewer.stop(.closed)
            onViewerEnded?(viewer, .closed)
        }
    }

    /// Sessions open now (answered and not ended).
    public var viewerCount: Int { viewers.withLock { $0.count } }

    /// Of which take the turn as metadata (fed by `unturned`).
    public var metadataViewerCount: Int { viewers.withLock { $0.values.filter(\.takesTurnAsMetadata).count } }

    /// Of which connected (ICE and DTLS up).
    public var connectedCount: Int { viewers.withLock { $0.values.filter(\.isConnected).count } }

    /// Viewers let go for failing, never connecting or falling silent so far.
    public var droppedCount: Int { dropped.withLock { $0 } }

    /// The viewer of a session, while it runs.
    public func viewer(_ id: String) -> WHEPViewer? { viewers.withLock { $0[id] } }

    /// A viewer ended itself (failed, never connected, silent, refused).
    private func viewerEnded(_ viewer: WHEPViewer, _ end: WHEPViewer.End) {
        guard viewers.withLock({ $0.removeValue(forKey: viewer.id) }) != nil else { return }
        dropped.withLock { $0 += 1 }
        onViewerEnded?(viewer, end)
    }
}
