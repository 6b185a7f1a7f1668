import FoundationEssentials
import Glibc
import GStreamer
import Synchronization

/// One WHEP viewer: `appsrc ! h264parse ! rtph264pay ! webrtcbin`, its own pipeline fed
/// by the `EncodedStream` (no encoder of its own), so it comes and goes without touching
/// the camera, the recording or another viewer.
///
/// Keyframes: the subscription starts on one, but frames sent before ICE and DTLS are
/// up never arrive; the viewer's decoder then asks (RTCP PLI/FIR, which webrtcbin turns
/// into an upstream force-key-unit event that ends at the appsrc) and the ask is passed
/// to the stream's encoder, as is the moment the connection is up.
///
/// A viewer given a `VideoOrientation` (its offer has `urn:3gpp:video-orientation`, and the
/// stream's pixels are unturned) gets the device's turn in every RTP packet instead: a probe
/// on the payloader's source pad adds the one-byte header extension with the angle of that
/// moment, and the extension's `extmap-ID` in the codec caps makes webrtcbin answer it.
public final class WHEPViewer: Sendable, CustomStringConvertible {
    /// Why a viewer was let go.
    public enum End: Sendable, Equatable, CustomStringConvertible {
        /// DELETE on its session, or the preview stopped.
        case closed
        /// ICE or DTLS failed, or the peer closed the connection.
        case connectionFailed(String)
        /// Not connected within the time allowed.
        case neverConnected
        /// Nothing (RTCP, ICE) came from the viewer for the time allowed: it is gone.
        case silent
        /// Its pipeline refused frames.
        case refused(String)

        public var description: String {
            switch self {
            case .closed: return "closed"
            case .connectionFailed(let state): return "the connection is \(state)"
            case .neverConnected: return "it never connected"
            case .silent: return "nothing came from the viewer any more"
            case .refused(let why): return why
            }
        }
    }

    /// The session id, the last segment of its `Location`.
    public let id: String
    /// Whether it takes the device's turn as RTP metadata (unturned pixels) rather than in the pixels.
    public let takesTurnAsMetadata: Bool
    public let createdAt: ContinuousClock.Instant
    let pipeline: Pipeline
    let webrtc: Element
    private let subscription: StreamSubscription
    private weak let stream: EncodedStream?
    private let limits: Limits
    private let onEnd: @Sendable (WHEPViewer, End) -> Void
    private let clock = ContinuousClock()

    /// How long a viewer may take to connect, and stay silent once connected.
    struct Limits: Sendable {
        var connect: Duration
        var silence: Duration
    }

    private struct State {
        var lastHeard: ContinuousClock.Instant?
        var connectedAt: ContinuousClock.Instant?
        var end: End?
        /// Wakes the viewer at its next deadline (to connect, or to have been heard).
        var timer: Task<Void, Never>?
    }

    private struct WeakViewer: Sendable { weak var viewer: WHEPViewer? }
    private let state: Mutex<State>

    /// The viewer's pipeline description; `payload` is the offer's H.264 payload type,
    /// `orientation` the offer's id for the video-orientation extension when the viewer takes it.
    /// `config-interval=0`: the stream carries SPS/PPS before every keyframe (see `RTSPPreview.launch`).
    /// `auto-header-extension=false`: the extension is written by the viewer's probe alone,
    /// never a second time by an implementation a later GStreamer may bring.
    static func launch(payload: Int, orientation: Int?, stun: String?) -> String {
        "appsrc name=src is-live=true format=time do-timestamp=true ! h264parse "
            + "! rtph264pay name=pay config-interval=0 pt=\(payload) aggregate-mode=zero-latency auto-header-extension=false "
            + "! \(codec(payload: payload, orientation: orientation)) ! webrtcbin name=webrtc bundle-policy=max-bundle latency=0"
            + (stun.map { " stun-server=\($0)" } ?? "")
    }

    /// What the viewer's RTP is, as caps: also the transceiver's codec preference, whose
    /// `extmap-ID` webrtcbin (1.22) puts in the answer when the offer has that extension.
    static func codec(payload: Int, orientation: Int?) -> String {
        "application/x-rtp,media=video,encoding-name=H264,clock-rate=90000,payload=\(payload),packetization-mode=(string)1"
            + (orientation.map { ",extmap-\($0)=(string)\(VideoOrientation.uri)" } ?? "")
    }

    /// Builds and starts the pipeline and answers `offer` (blocking: ICE gathering).
    /// - Returns: the viewer and the SDP answer.
    /// `orientation`: the device's turn, sent as the offer's video-orientation extension (the
    /// offer must have one); nil when `stream`'s pixels are turned already.
    /// `limits` bound the time to connect and the silence of a connected viewer; a viewer
    /// that fails, is refused or passes a limit stops itself and calls `onEnd` (once, on
    /// a task of its own).
    static func open(id: String, offer: WHEPOffer, stream: EncodedStream, orientation: VideoOrientation?,
                     stun: String?, gatheringTimeout: Duration, limits: Limits,
                     onEnd: @escaping @Sendable (WHEPViewer, End) -> Void) throws -> (WHEPViewer, String) {
        // webrtcbin matches the stream's H.264 profile to the offer's formats strictly.
        let profile = stream.caps?.structure(at: 0)?.string("profile") ?? "constrained-baseline"
        let payload = offer.payloadType(for: profile)
        let extensionID = orientation == nil ? nil : offer.videoOrientationID
        let pipeline = try Pipeline.parse(launch(payload: payload, orientation: extensionID, stun: stun))
        guard let element = pipeline.element(named: "src"), let source = AppSrc(element),
              let webrtc = pipeline.element(named: "webrtc"), let pay = pipeline.element(named: "pay") else {
            throw CaptureError.invalidArgument("the WHEP viewer pipeline lacks its appsrc, payloader or webrtcbin")
        }
        if let orientation, let extensionID {
            // Every packet, not only a frame's last (marked) one the spec asks for: one byte
            // each, and a viewer that joins or loses packets has the angle at once.
            _ = pay.staticPad("src")?.addProbe([.buffer, .bufferList]) { info in
                info.addRTPHeaderExtension(id: UInt8(extensionID), byte: orientation.byte)
                return .ok
            }
        }
        // The subscription exists before the viewer it would end: a weak link, set just below.
        let link = Mutex(WeakViewer())
        let subscription = try stream.subscribe(source, name: "whep-\(id)") { end in
            guard end != .cancelled else { return }
            link.withLock { $0.viewer }?.finish(.refused("\(end)"))
        }
        let viewer = WHEPViewer(id: id, takesTurnAsMetadata: extensionID != nil, pipeline: pipeline, webrtc: webrtc,
                                subscription: subscription, stream: stream, limits: limits, onEnd: onEnd)
        link.withLock { $0.viewer = viewer }
        webrtc.onChange(of: "connection-state") { [weak viewer] in viewer?.connectionChanged() }
        do {
            // The viewer's PLI/FIR, as an upstream event, reaches the appsrc and stops there.
            _ = source.staticPad("src")?.addProbe(.eventUpstream) { [weak stream] info in
                if info.isForceKeyUnit { stream?.requestKeyframe() }
                return .ok
            }
            try pipeline.setState(.playing)
            let answer = try webrtc.webRTCAnswer(offer: offer.sdp, codec: codec(payload: payload, orientation: extensionID),
                                                 gatheringTimeout: gatheringTimeout)
            guard !answer.contains("a=inactive") else {
                throw CaptureError.invalidArgument(
                    "webrtcbin found no H.264 format of the offer it can send (the preview is \(profile)): "
                    + "let the peer offer H264 \(profile) with packetization-mode=1")
            }
            // Unturned pixels without the turn would show the picture on its side.
            if let extensionID, !answer.contains("a=extmap:\(extensionID) \(VideoOrientation.uri)") {
                throw CaptureError.invalidArgument("webrtcbin did not answer the offer's \(VideoOrientation.uri) (id \(extensionID))")
            }
            viewer.listenToTheViewer()
            viewer.arm(at: viewer.createdAt + limits.connect)
            return (viewer, answer)
        } catch {
            viewer.stop(.closed)
            throw error
        }
    }

    private init(id: String, takesTurnAsMetadata: Bool, pipeline: Pipeline, webrtc: Element, subscription: StreamSubscription,
                 stream: EncodedStream, limits: Limits, onEnd: @escaping @Sendable (WHEPViewer, End) -> Void) {
        self.id = id
        self.takesTurnAsMetadata = takesTurnAsMetadata
        self.pipeline = pipeline
        self.webrtc = webrtc
        self.subscription = subscription
        self.stream = stream
        self.limits = limits
        self.onEnd = onEnd
        createdAt = clock.now
        state = Mutex(State())
    }

    public var description: String { "WHEP viewer \(id)" }

    /// Every packet from the viewer (RTCP reports, ICE checks) passes the transport's
    /// nicesrc: the time of the last one tells a viewer that went away.
    private func listenToTheViewer() {
        let clock = self.clock
        for element in pipeline.allElements where element.factoryName == "nicesrc" {
            _ = element.staticPad("src")?.addProbe([.buffer, .bufferList]) { [weak self] _ in
                self?.state.withLock { $0.lastHeard = clock.now }
                return .ok
            }
        }
    }

    public var isConnected: Bool { state.withLock { $0.connectedAt != nil && $0.end == nil } }

    /// Why it ended; nil while it runs.
    public var end: End? { state.withLock { $0.end } }

    /// webrtcbin's `connection-state` changed (on its thread): a failed or closed
    /// connection ends the viewer; a new connection gets a keyframe, and from now on
    /// its deadline is the silence allowed.
    private func connectionChanged() {
        let connection = (try? webrtc.get("connection-state", as: EnumNick.self).nick) ?? "unknown"
        switch connection {
        case "failed", "closed": finish(.connectionFailed(connection))
        case "connected":
            let now = clock.now
            let first = state.withLock { s in
                defer { if s.connectedAt == nil { s.connectedAt = now } }
                return s.connectedAt == nil && s.end == nil
            }
            guard first else { return }
            stream?.requestKeyframe()
            arm(at: now + limits.silence)
        default: break
        }
    }

    /// Wakes the viewer once at `deadline` (a one-shot timer, replaced by the next one).
    private func arm(at deadline: ContinuousClock.Instant) {
        let timer = Task.detached { [weak self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            guard !Task.isCancelled else { return }
            self?.deadlinePassed()
        }
        let stale = state.withLock { s -> Task<Void, Never>? in
            guard s.end == nil else { return timer }
            defer { s.timer = timer }
            return s.timer
        }
        stale?.cancel()
    }

    /// A deadline came: a viewer not connected by now, or not heard for the silence
    /// allowed, ends; one heard since sets its next deadline.
    private func deadlinePassed() {
        let (connectedAt, lastHeard) = state.withLock { ($0.connectedAt, $0.lastHeard) }
        guard let connectedAt else { return finish(.neverConnected) }
        let silentSince = max(connectedAt, lastHeard ?? connectedAt)
        if clock.now - silentSince >= limits.silence { return finish(.silent) }
        arm(at: silentSince + limits.silence)
    }

    /// Ends the viewer for `reason` and tells the preview, on a task of its own: the
    /// callers are streaming and signal threads of the pipeline being torn down.
    private func finish(_ reason: End) {
        Task.detached { [self] in
            if stop(reason) { onEnd(self, reason) }
        }
    }

    /// Stops feeding and tears the pipeline down. Idempotent: true the first time.
    @discardableResult
    func stop(_ reason: End) -> Bool {
        let (first, timer) = state.withLock { s -> (Bool, Task<Void, Never>?) in
            guard s.end == nil else { return (false, nil) }
            s.end = reason
            defer { s.timer = nil }
            return (true, s.timer)
        }
        guard first else { return false }
        timer?.cancel()
        subscription.cancel()
        try? pipeline.setState(.null)
        return true
    }
}
