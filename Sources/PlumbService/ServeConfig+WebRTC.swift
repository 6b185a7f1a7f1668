import Plumb

extension ServeConfig {
    /// `[webrtc]`: the WHEP preview (`POST /whep`) and the control page's live view.
    public struct WebRTC: Sendable, Equatable {
        /// `stun`: `stun:HOST[:PORT]`, as webrtcbin's `stun://HOST:PORT`; empty (default) for
        /// host candidates only (this machine and the LAN).
        public var stun: String?
        /// `max-viewers`: WHEP sessions at once, default 8.
        public var maxViewers = 8
        public init() {}
    }

    /// The keys of `[webrtc]`, in file order.
    static let webrtcKeys: [ConfigKey] = [
        ConfigKey(group: "webrtc", name: "stun",
                  accepted: "stun:HOST[:PORT] (port 3478 by default), or nothing for none",
                  documentation: "A STUN server for WebRTC viewers behind NAT, e.g. stun:stun.example.org:3478;\nempty offers host candidates only (this machine and the LAN).",
                  \.webrtc.stun, parse: { $0.isEmpty ? .some(nil) : WHEPPreview.Configuration.stunURL($0).map { .some($0) } },
                  render: { $0.map { "stun:" + $0.dropFirst("stun://".count) } ?? "" }),
        ConfigKey(group: "webrtc", name: "max-viewers",
                  accepted: "a whole number from 1 to 64",
                  documentation: "WebRTC viewers (POST /whep) at once; one more gets 503. Each costs packetizing and encryption, not encoding.",
                  \.webrtc.maxViewers, parse: { parseInt($0, in: 1...64) }, render: { "\($0)" }),
    ]
}
