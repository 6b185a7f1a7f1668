internal import CGStreamer
internal import CGStreamerShim

extension AppSink {
    /// The next sample, waiting up to `timeout` — or the error the pipeline's bus carried
    /// meanwhile: a pipeline that failed sends no end of stream, so a plain `pull` would sit
    /// out the whole time-out. nil at end of stream or when the time is up.
    public func pull(timeout: Duration, failingOnErrorsOf pipeline: Pipeline) throws(GStreamerError) -> Sample? {
        // In short slices, as `setState` waits: the error is recorded on the posting thread.
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let remaining = clock.now.duration(to: deadline)
            let slice = min(max(remaining, .zero), .milliseconds(50))
            if let sample = pull(timeout: slice) { return sample }
            if let error = pipeline.recorder.take() { throw error }
            if isEOS || remaining <= .zero { return nil }
        }
    }
}
