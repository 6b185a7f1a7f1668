/// What the continuous recorder is doing, as one explicit state (as camerabin2 keeps its
/// own), so that no mix of flags can say two things at once. Every change is a method here; each
/// says in which states it applies, what it does elsewhere, and which file it hands back
/// to be finalized.
///
/// | from | event | to |
/// |---|---|---|
/// | idle, starting(waitingForCamera/ForRoom) | start, startContinuous, cameraOpened, roomReturned | starting(making) |
/// | starting(making) | made / makingFailed | recording / idle or starting(waitingForCamera/ForRoom) |
/// | recording | segmentDue | rolling |
/// | rolling | rolled / rollFailed | recording (the next file / the same one) |
/// | recording | cameraLost | starting(waitingForCamera) |
/// | recording | ended | idle when the camera runs, starting(waitingForRoom) after a write error, else starting(waitingForCamera) |
/// | recording, starting(waitingForCamera/ForRoom) | stop | finishing |
/// | finishing | finished | idle |
///
/// A step under way — a file being made, a roll to the next file — ends only by itself
/// (`made`, `makingFailed`, `rolled`, `rollFailed`): a stop, a lost camera or an ended
/// branch waits for it (`Step.later`), so that a roll is never cut in half and a file being
/// made is never left unfinished. Generic over the file (a `Recording` in the recorder) so
/// that the transitions are tested on their own.
enum RecorderState<File: AnyObject> {
    /// Not recording, and not asked to.
    case idle
    /// A recording is asked for and its file is not there yet.
    case starting(Start)
    /// Writing `File`.
    case recording(File)
    /// Moving the recording from `File` to the next file at a frame boundary.
    case rolling(File)
    /// Stopped: the last file (nil: there was none) is being finalized, then the old ones.
    case finishing(File?)

    enum Start: Equatable {
        /// There is no camera: the file is made when one opens.
        case waitingForCamera
        /// A write failed or the disk is full: the file is made when there is room again
        /// (`Retention.noRoom()`), checked every few seconds.
        case waitingForRoom
        /// The session is making the file. `byRequest`: `POST /recording/start` asked, and a
        /// failure is its answer (the recording is given up); a continuous or resumed
        /// recording waits for the next camera instead.
        case making(byRequest: Bool)
    }

    /// Why a request does not apply now.
    enum Refusal: Error, Equatable {
        /// Start: a recording runs (or its file is being made).
        case recording
        /// Start or stop: a stop is finalizing the files.
        case stopping
        /// Start: no camera runs.
        case noCamera
        /// Stop: nothing is recording.
        case notRecording
    }

    /// An event's outcome, or `later`: it waits until the step under way has ended (the
    /// state did not change), then applies to the state that step left.
    enum Step<Outcome> {
        case now(Outcome)
        case later
    }

    /// The file being written: while recording or rolling.
    var file: File? {
        switch self {
        case .recording(let file), .rolling(let file): file
        default: nil
        }
    }

    // MARK: Requests

    /// `POST /recording/start`: the first file is to be made now.
    mutating func start(hasCamera: Bool) throws(Refusal) {
        switch self {
        case .idle, .starting(.waitingForCamera), .starting(.waitingForRoom):
            guard hasCamera else { throw .noCamera }
            self = .starting(.making(byRequest: true))
        case .starting(.making), .recording, .rolling:
            throw .recording
        case .finishing:
            throw .stopping
        }
    }

    /// `[recording] continuous`: a recording is wanted from now on. True: make its file now.
    mutating func startContinuous(hasCamera: Bool) -> Bool {
        switch self {
        case .idle, .starting(.waitingForCamera):
            self = .starting(hasCamera ? .making(byRequest: false) : .waitingForCamera)
            return hasCamera
        case .starting(.making), .starting(.waitingForRoom), .recording, .rolling, .finishing:
            return false
        }
    }

    /// `POST /recording/stop`, and shutdown: the file to finalize (nil: none is written).
    mutating func stop() throws(Refusal) -> Step<File?> {
        switch self {
        case .idle:
            throw .notRecording
        case .finishing:
            throw .stopping
        case .starting(.waitingForCamera), .starting(.waitingForRoom):
            self = .finishing(nil)
            return .now(nil)
        case .recording(let file):
            self = .finishing(file)
            return .now(file)
        case .starting(.making), .rolling:
            return .later
        }
    }

    /// The stop has finalized every file. False: no stop was under way.
    mutating func finished() -> Bool {
        guard case .finishing = self else { return false }
        self = .idle
        return true
    }

    // MARK: The camera

    /// A session runs. True: a wanted recording makes its file now.
    mutating func cameraOpened() -> Bool {
        guard case .starting(.waitingForCamera) = self else { return false }
        self = .starting(.making(byRequest: false))
        return true
    }

    /// The session failed (it has drained its branches): the file it was writing, to be
    /// finalized; the recording stays wanted and waits for the next camera.
    mutating func cameraLost() -> Step<File?> {
        switch self {
        case .recording(let file):
            self = .starting(.waitingForCamera)
            return .now(file)
        case .starting(.making), .rolling:
            return .later
        case .idle, .starting(.waitingForCamera), .starting(.waitingForRoom), .finishing:
            return .now(nil)
        }
    }

    // MARK: The steps' ends

    /// The file is made and is written from now on. False: no file was being made (not
    /// reached; the caller finalizes the file all the same).
    mutating func made(_ file: File) -> Bool {
        guard case .starting(.making) = self else { return false }
        self = .recording(file)
        return true
    }

    /// Making the file failed: a request gives the recording up, a continuous or resumed
    /// one waits for the next camera, or (`noRoom`: the disk is full) for room.
    mutating func makingFailed(noRoom: Bool = false) {
        guard case .starting(.making(let byRequest)) = self else { return }
        self = byRequest ? .idle : .starting(noRoom ? .waitingForRoom : .waitingForCamera)
    }

    /// There is room to write again. True: a recording that waits for room makes its file now.
    mutating func roomReturned() -> Bool {
        guard case .starting(.waitingForRoom) = self else { return false }
        self = .starting(.making(byRequest: false))
        return true
    }

    /// A segment's time is up: the file to move on from; nil when none is written (or a
    /// roll is under way already).
    mutating func segmentDue() -> File? {
        guard case .recording(let file) = self else { return nil }
        self = .rolling(file)
        return file
    }

    /// The roll moved the recording to `next`: the file it left, to be finalized. Nil: no
    /// roll was under way (not reached; the caller finalizes `next` all the same).
    mutating func rolled(to next: File) -> File? {
        guard case .rolling(let old) = self else { return nil }
        self = .recording(next)
        return old
    }

    /// The roll failed: the recording goes on in the file it has (nothing is lost, the
    /// file is only longer).
    mutating func rollFailed() {
        guard case .rolling(let file) = self else { return }
        self = .recording(file)
    }

    /// `file`'s branch ended by itself: a full disk, an encoder error, or the camera failed
    /// and the session drained it. True: it was the file being written, and is to be
    /// finalized and reported. A write error (`storageFailed`: a full disk) leaves the
    /// recording waiting for room; any other failure of a running camera gives it up
    /// (retrying would fail again); a failed camera leaves it waiting for the next one.
    /// False: the file was stopped or handed over already (a roll ends its old file, a
    /// stop finalizes its own).
    mutating func ended(_ file: File, cameraRunning: Bool, storageFailed: Bool = false) -> Step<Bool> {
        switch self {
        case .recording(let current) where current === file:
            self = !cameraRunning ? .starting(.waitingForCamera) : storageFailed ? .starting(.waitingForRoom) : .idle
            return .now(true)
        case .rolling(let current) where current === file:
            return .later
        default:
            return .now(false)
        }
    }
}

extension RecorderState: Sendable where File: Sendable {}
extension RecorderState.Start: Sendable {}

extension RecorderState: CustomStringConvertible {
    /// The state's name, for messages.
    var description: String {
        switch self {
        case .idle: "idle"
        case .starting(.waitingForCamera): "starting (waiting for the camera)"
        case .starting(.waitingForRoom): "starting (waiting for room on the disk)"
        case .starting(.making): "starting"
        case .recording: "recording"
        case .rolling: "rolling"
        case .finishing: "finishing"
        }
    }
}
