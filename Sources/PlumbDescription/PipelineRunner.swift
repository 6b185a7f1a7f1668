import FoundationEssentials
import Glibc
import GStreamer
import GLib

/// Plays a pipeline until EOS, an error, a duration, or a stop request. A stop
/// (Ctrl-C, SIGTERM, the duration) sends EOS and waits for it, so muxers write
/// their headers and every file is finalized.
public final class PipelineRunner: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// EOS arrived; `stopped` says whether Plumb asked for it.
        case finished(stopped: Bool)
        case failed(PipelineFailure)
        /// A second stop request while finalizing: the pipeline was torn down without waiting.
        case aborted
    }

    public enum Event: Sendable {
        case state(old: State, new: State)
        case warning(PipelineFailure)
        case stopping(reason: String)
    }

    private enum Input: Sendable {
        case bus(BusMessage)
        case stop(String)
        case finalizeTimeout
    }

    /// The pipeline it plays (for what else turns its elements: `RoleRotator`).
    public let pipeline: Pipeline
    /// How long to wait for EOS after a stop before giving up.
    let finalizeTimeout: Duration
    private let inputs: AsyncStream<Input>
    private let feed: AsyncStream<Input>.Continuation

    public init(pipeline: Pipeline, finalizeTimeout: Duration = .seconds(10)) {
        self.pipeline = pipeline
        self.finalizeTimeout = finalizeTimeout
        (inputs, feed) = AsyncStream<Input>.makeStream()
    }

    /// Asks the pipeline to finish: EOS in, wait for EOS out. Thread-safe; a second call aborts.
    public func stop(reason: String) {
        feed.yield(.stop(reason))
    }

    /// Plays until an outcome. `duration` stops the pipeline after that much time playing,
    /// with `durationReason` as the stop's reason (the caller's words for its own limit).
    public func run(duration: Duration? = nil, durationReason: String = "the duration was reached",
                    events: @Sendable (Event) -> Void = { _ in }) async -> Outcome {
        let loop = MainContextThread(name: "plumb.run")
        defer { loop.stop() }
        let feed = self.feed
        let forward = Task {
            for await message in pipeline.messages(on: loop.context) { feed.yield(.bus(message)) }
        }
        defer { forward.cancel() }
        do {
            try pipeline.setState(.playing)
        } catch {
            _ = try? pipeline.setState(.null)
            return .failed(PipelineFailure(error))
        }
        var timers: [Task<Void, Never>] = []
        defer { timers.forEach { $0.cancel() } }
        if let duration {
            timers.append(Task {
                try? await Task.sleep(for: duration)
                if !Task.isCancelled { feed.yield(.stop(durationReason)) }
            })
        }
        var stopping = false
        var outcome: Outcome = .aborted
        loop: for await input in inputs {
            switch input {
            case .bus(.eos):
                outcome = .finished(stopped: stopping)
                break loop
            case .bus(.error(let error)):
                outcome = .failed(PipelineFailure(error))
                break loop
            case .bus(.warning(let warning)):
                events(.warning(PipelineFailure(warning)))
            case let .bus(.stateChanged(_, old, new, _, isPipeline)) where isPipeline:
                events(.state(old: old, new: new))
            case .bus:
                continue
            case .stop(let reason):
                if stopping {
                    outcome = .aborted
                    break loop
                }
                stopping = true
                events(.stopping(reason: reason))
                pipeline.sendEOS()
                let timeout = finalizeTimeout
                timers.append(Task {
                    try? await Task.sleep(for: timeout)
                    if !Task.isCancelled { feed.yield(.finalizeTimeout) }
                })
            case .finalizeTimeout:
                outcome = .failed(PipelineFailure(message: "EOS did not reach the sinks within \(finalizeTimeout); files may be incomplete"))
                break loop
            }
        }
        _ = try? pipeline.setState(.null)
        return outcome
    }
}
