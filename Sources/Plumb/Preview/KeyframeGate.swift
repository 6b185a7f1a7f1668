/// Decides when to ask the encoder for a keyframe: every consumer that joins or falls
/// behind wants one now, but a burst of wishes (eight clients joining at once) must
/// cost one keyframe, not eight — an IDR frame is several times a delta frame's size.
///
/// A wish is sent at once unless one was sent less than `cooldown` ago; then it waits,
/// and the next frame after the cooldown sends it, unless a keyframe came meanwhile
/// (every waiting consumer starts on that one). A wish that the encoder ignored is sent
/// again after the cooldown for the same reason — h264parse drops a request while it
/// still has one pending. A plain value: the owner keeps it under its lock.
struct KeyframeGate {
    var cooldown: Duration
    private(set) var lastSent: ContinuousClock.Instant?
    /// A keyframe is wanted and none has come since.
    private(set) var wanted = false

    init(cooldown: Duration) { self.cooldown = cooldown }

    /// Someone wants a keyframe; true when the request should be sent now.
    mutating func ask(at now: ContinuousClock.Instant) -> Bool {
        wanted = true
        return sendIfCool(at: now)
    }

    /// A frame left the encoder; true when a waiting request should be sent now.
    mutating func frame(isKeyframe: Bool, at now: ContinuousClock.Instant) -> Bool {
        if isKeyframe {
            wanted = false
            return false
        }
        return wanted && sendIfCool(at: now)
    }

    private mutating func sendIfCool(at now: ContinuousClock.Instant) -> Bool {
        if let lastSent, now - lastSent < cooldown { return false }
        lastSent = now
        return true
    }
}
