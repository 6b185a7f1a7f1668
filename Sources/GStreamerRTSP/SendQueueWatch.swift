/// Tells a consumer that stopped reading from a slow or an idle one, from samples of its
/// connection's send queue: the bytes waiting in the kernel and the bytes the peer has
/// acknowledged so far (`plumb_tcp_send_queue`).
///
/// Stalled: data has waited at every sample for `limit`, and what waits now is more than
/// the peer took in that time. A consumer that stopped reading took nothing, so anything
/// waiting for `limit` condemns it; one on a slow link that still keeps up takes far more
/// per `limit` than is ever in flight; an idle connection (no PLAY yet, paused, RTP over
/// UDP) has nothing waiting and is never judged. Only waiting time counts: a queue that
/// empties starts the clock again. A plain value: the owner keeps it under its lock.
struct SendQueueWatch {
    struct Stall: Sendable, Equatable {
        /// How long data has waited at every sample.
        var waited: Duration
        /// Bytes waiting now.
        var queued: Int
        /// Bytes the peer took meanwhile.
        var taken: UInt64
    }

    let limit: Duration
    /// Samples since the queue last emptied, oldest first; only the newest one at least
    /// `limit` old is kept of the older ones.
    private var samples: [(at: ContinuousClock.Instant, acked: UInt64)] = []

    init(limit: Duration) { self.limit = limit }

    /// One sample; a `Stall` when the consumer is to go.
    mutating func sample(acked: UInt64, queued: Int, at now: ContinuousClock.Instant) -> Stall? {
        guard queued > 0 else {
            samples.removeAll()
            return nil
        }
        samples.append((now, acked))
        // Keep one sample at or before the window's start, and the ones after it.
        while samples.count > 1, now - samples[1].at >= limit { samples.removeFirst() }
        guard let first = samples.first, now - first.at >= limit else { return nil }
        let taken = acked >= first.acked ? acked - first.acked : 0
        guard UInt64(queued) > taken else { return nil }
        return Stall(waited: now - first.at, queued: queued, taken: taken)
    }
}
