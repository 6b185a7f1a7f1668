extension AppSrc {
    /// Makes the source a live, time-stamping one: `is-live=true format=time
    /// do-timestamp=true`. Buffers pushed without timestamps then get the running
    /// time of their own pipeline, whatever clock the producer had.
    public func configureLive() throws(PropertyError) {
        try set("is-live", true)
        try set("format", EnumNick("time"))
        try set("do-timestamp", true)
    }

    /// Buffers waiting in the source's queue (`current-level-buffers`): how far the
    /// pipeline behind it lags.
    public var queuedBuffers: Int {
        (try? get("current-level-buffers", as: Int.self)) ?? 0
    }
}
