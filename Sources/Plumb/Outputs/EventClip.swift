import FoundationEssentials
import Glibc
import GStreamer
import PlumbDescription
import PlumbLocation
import Synchronization
import PlumbRotation

/// One event clip being written: which frames go in (from its first, a keyframe, to the
/// first frame at or past its end), its triggers and its facts. Shared by the trigger's
/// thread and the branch's streaming thread.
final class EventClip: Sendable {
    let writer: EventClipWriter
    let done = OneShot<Void>()

    private struct State {
        var facts: EventClipFacts
        /// On the capture pipeline's running time.
        var first: ClockTime = 0
        var end: ClockTime
        var cap: ClockTime = .max
        var lastEnd: ClockTime = 0
        var ended = false
        var firstWall = Date()
    }

    private let state: Mutex<State>
    private let maxSeconds: Double

    init(writer: EventClipWriter, trigger: ClockTime, at wall: Date, preSeconds: Double, postSeconds: Double,
         maxSeconds: Double, codec: VideoCodec, angle: RotationAngle) {
        self.writer = writer
        self.maxSeconds = maxSeconds
        let facts = EventClipFacts(file: writer.target.lastPathComponent, state: "recording",
                                   triggers: [wall.iso8601Milliseconds], firstFrameAt: wall.iso8601Milliseconds,
                                   preRecordedSeconds: 0, preSeconds: preSeconds, postSeconds: postSeconds,
                                   endsAt: wall.addingTimeInterval(postSeconds).iso8601Milliseconds,
                                   codec: codec.rawValue, rotation: angle.degrees)
        state = Mutex(State(facts: facts, end: trigger + Self.nanoseconds(postSeconds)))
        triggerTime = trigger
    }

    private let triggerTime: ClockTime

    /// Clamped to 0 ... 10^9 s, so no length overflows a ClockTime (the clip is capped anyway).
    static func nanoseconds(_ seconds: Double) -> ClockTime { ClockTime((min(max(0, seconds), 1e9) * 1e9).rounded()) }

    var facts: EventClipFacts { state.withLock { $0.facts } }

    /// The first frame (a keyframe from the ring): where the clip's timeline starts.
    func begin(with frame: PreRecordRing<EventRecorder.Frame>.Frame) {
        state.withLock { s in
            s.first = frame.time
            s.firstWall = frame.payload.wall
            s.cap = frame.time + Self.nanoseconds(maxSeconds)
            s.end = min(s.end, s.cap)
            s.facts.firstFrameAt = frame.payload.wall.iso8601Milliseconds
            let before = triggerTime >= frame.time ? Double(triggerTime - frame.time) / 1e9 : 0
            s.facts.preRecordedSeconds = (before * 1000).rounded() / 1000
            if s.end == s.cap { s.facts.capped = true }
            s.facts.endsAt = Self.wall(of: s.end, s).iso8601Milliseconds
        }
        _ = push(frame)
    }

    /// Writes `frame` unless it is at or past the end; false once the clip is complete.
    func push(_ frame: PreRecordRing<EventRecorder.Frame>.Frame) -> Bool {
        let time: ClockTime? = state.withLock { s in
            guard !s.ended, frame.time >= s.first else { return nil }
            guard frame.time < s.end else {
                s.ended = true
                return nil
            }
            s.facts.frames += 1
            let duration = frame.payload.buffer.duration ?? 0
            s.lastEnd = max(s.lastEnd, frame.time + duration)
            s.facts.seconds = (Double(s.lastEnd - s.first) / 1e6).rounded() / 1000
            return frame.time - s.first
        }
        guard let time else { return !state.withLock { $0.ended } }
        _ = writer.push(frame.payload.buffer, caps: frame.payload.caps, time: time)
        return true
    }

    /// A trigger while the clip records: its end moves to the later of the two, at most
    /// `maxSeconds` after its first frame. False when the clip has ended already.
    func extend(trigger: ClockTime, at wall: Date, postSeconds: Double) -> Bool {
        state.withLock { s in
            guard !s.ended else { return false }
            s.facts.triggers.append(wall.iso8601Milliseconds)
            let wanted = trigger + Self.nanoseconds(postSeconds)
            if wanted > s.end {
                s.end = min(wanted, s.cap)
                s.facts.postSeconds = postSeconds
            }
            if wanted >= s.cap { s.facts.capped = true }
            s.facts.endsAt = Self.wall(of: s.end, s).iso8601Milliseconds
            return true
        }
    }

    /// No more frames (the end was reached, the camera went, a stop): the file is finished.
    func end(stopping: Bool) {
        state.withLock { $0.ended = true }
        writer.end()
        if stopping { writer.stop() }
    }

    /// The facts once the file is finished.
    func finished(error: PipelineFailure?) -> EventClipFacts {
        state.withLock { s in
            s.facts.state = error == nil ? "finished" : "failed"
            // A full disk in words a user acts on, naming the file.
            s.facts.error = error.map { $0.diskFull ? "No space left on device: cannot write \(writer.target.path)" : "\($0)" }
            var info = stat()
            if stat(writer.target.path, &info) == 0 { s.facts.bytes = Int(info.st_size) }
            return s.facts
        }
    }

    private static func wall(of time: ClockTime, _ s: State) -> Date {
        s.firstWall.addingTimeInterval(time >= s.first ? Double(time - s.first) / 1e9 : 0)
    }
}
