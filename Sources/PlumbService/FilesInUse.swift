import FoundationEssentials
import Glibc
import Synchronization
import Plumb

/// The files of the recordings folder that are being written or read right now (the
/// continuous recorder's current file, a clip until its client has it, a still being
/// saved, an event clip): retention never deletes one. Each writer registers its paths
/// before it creates the file and ends its registration once the file is complete.
///
/// A registration is a function rather than a fixed path, so that a recording that grows
/// into new files by itself (a split on rotation) names all of them as they come.
public final class FilesInUse: Sendable {
    /// Ends a registration; call it once the file is complete (a second call does nothing).
    public struct Registration: Sendable {
        let end: @Sendable () -> Void
        public func done() { end() }
    }

    private let entries = Mutex<[UUID: @Sendable () -> [String]]>([:])
    /// The registrations made through `EventFileTracker`, by path.
    private let tracked = Mutex<[String: Registration]>([:])

    public init() {}

    /// `paths` is asked whenever retention runs, until `done()`.
    public func register(_ paths: @escaping @Sendable () -> [String]) -> Registration {
        let id = UUID()
        entries.withLock { $0[id] = paths }
        return Registration { [weak self] in _ = self?.entries.withLock { $0.removeValue(forKey: id) } }
    }

    /// One path, until `done()`.
    public func register(path: String) -> Registration {
        register { [path] }
    }

    /// The file names (last path components) in use now.
    public var names: Set<String> {
        let providers = entries.withLock { Array($0.values) }
        return Set(providers.flatMap { $0() }.map { URL(fileURLWithPath: $0).lastPathComponent })
    }
}

/// Event clips (the engine's `EventRecorder`) say when a file starts and stops being written.
extension FilesInUse: EventFileTracker {
    public func inUse(_ path: String) {
        let registration = register(path: path)
        tracked.withLock { $0.updateValue(registration, forKey: path) }?.done()
    }

    public func released(_ path: String) {
        tracked.withLock { $0.removeValue(forKey: path) }?.done()
    }
}
