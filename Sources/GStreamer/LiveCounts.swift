import Synchronization

/// Live-instance counters for tests of ownership: a wrapper or watch that is
/// never released shows up here even when GStreamer's own leak tracer is off.
public enum LiveCounts {
    private static let objectWrappers = Atomic<Int>(0)
    private static let busWatches = Atomic<Int>(0)

    /// Swift `Object` wrappers (Element, Bin, Pipeline, Pad ...) not yet deinitialized.
    public static var liveObjectWrappers: Int { objectWrappers.load(ordering: .relaxed) }

    /// Bus watches whose GSource GLib still holds (attached and not yet destroyed).
    public static var liveBusWatches: Int { busWatches.load(ordering: .relaxed) }

    static func objectWrapperCreated() { objectWrappers.add(1, ordering: .relaxed) }
    static func objectWrapperDestroyed() { objectWrappers.subtract(1, ordering: .relaxed) }
    static func busWatchAttached() { busWatches.add(1, ordering: .relaxed) }
    static func busWatchDetached() { busWatches.subtract(1, ordering: .relaxed) }
}
