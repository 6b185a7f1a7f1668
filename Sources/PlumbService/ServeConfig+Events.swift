import Plumb

extension ServeConfig {
    /// `[events]`: event clips with pre-record (`POST /event`, SIGUSR2).
    public struct Events: Sendable, Equatable {
        /// `pre-seconds`: seconds of video kept in memory and put before each trigger; default 5.
        public var preSeconds = 5.0
        /// `post-seconds`: seconds recorded after a trigger unless it says otherwise; default 10.
        public var postSeconds = 10.0
        /// `max-seconds`: the longest one clip gets however often it is extended; default 300.
        public var maxSeconds = 300.0
        /// `max-buffer-bytes`: the most the pre-record ring holds in memory; default 32M.
        public var maxBufferBytes: Int64 = 32 << 20
        public init() {}

        /// The engine's settings, with the recordings' codec.
        public func settings(codec: VideoCodec) -> EventRecorder.Settings {
            var s = EventRecorder.Settings()
            s.preSeconds = preSeconds
            s.postSeconds = postSeconds
            s.maxSeconds = maxSeconds
            s.maxBufferBytes = Int(maxBufferBytes)
            s.codec = codec
            return s
        }
    }

    /// The keys of `[events]`, in file order.
    static let eventKeys: [ConfigKey] = [
        ConfigKey(group: "events", name: "pre-seconds",
                  accepted: "a number of seconds from 0 to 60",
                  documentation: "Seconds of video kept in memory (whole GOPs of one second) and put in front of every\nevent clip: a clip starts at the keyframe at or before the trigger minus this.",
                  \.events.preSeconds, parse: { parseDouble($0, in: 0...60) }, render: renderSeconds),
        ConfigKey(group: "events", name: "post-seconds",
                  accepted: "a number of seconds from 0 to 3600",
                  documentation: "Seconds recorded after a trigger (POST /event, SIGUSR2) unless POST /event?post-seconds=N\nsays otherwise. A trigger during a clip extends it.",
                  \.events.postSeconds, parse: { parseDouble($0, in: 0...3600) }, render: renderSeconds),
        ConfigKey(group: "events", name: "max-seconds",
                  accepted: "a number of seconds from 1 to 86400",
                  documentation: "The longest one event clip gets, however often triggers extend it.",
                  \.events.maxSeconds, parse: { parseDouble($0, in: 1...86_400) }, render: renderSeconds),
        ConfigKey(group: "events", name: "max-buffer-bytes",
                  accepted: "a size from 64K to 1G (K, M, G: powers of 1024), e.g. 32M",
                  documentation: "The most encoded video the pre-record buffer holds in memory; past it the oldest second\ngoes (a busy scene at a high bitrate then gets less than pre-seconds).",
                  \.events.maxBufferBytes, parse: { parseByteCount($0).flatMap { (64 << 10)...(1 << 30) ~= $0 ? $0 : nil } },
                  render: renderByteCount),
    ]
}

/// 5 rather than 5.0; 2.5 stays 2.5.
private func renderSeconds(_ v: Double) -> String {
    v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
}
