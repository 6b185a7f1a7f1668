/// For one-shot captures: the angle must come from the sensor, not from the
/// observer's starting guess, before the shutter.
extension RotationObserver {
    /// Starts the observer if needed and returns once the first sample has been
    /// applied, the sensor reported itself unavailable, the source ended, or
    /// `timeout` passed. True when a sample arrived.
    @discardableResult
    public func firstReading(timeout: Duration = .seconds(1)) async -> Bool {
        if counters.samples > 0 { return true }
        let reports = reports()
        start()
        if counters.samples > 0 { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await report in reports {
                    switch report {
                    case .event(.sample): return true
                    case .event(.unavailable), .ended: return false
                    default: continue
                    }
                }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
