internal import CGio
import FoundationEssentials
import Glibc

/// An owned reference to a GSource attached to a MainContext: what `ContextTimer` and
/// `MessageWatch` stop it with. Releasing it stops the source too.
package final class AttachedSource: @unchecked Sendable {  // `source` is only touched under `lock`
    private let lock = Condition()
    /// nil once destroyed (or when there was nothing to attach).
    private var source: UnsafeMutablePointer<GSource>?

    /// `source` is a `GSource *` whose reference this takes over.
    package init(raw source: UnsafeMutableRawPointer?) { self.source = source?.assumingMemoryBound(to: GSource.self) }

    /// g_source_destroy (safe from any thread, also from inside the source's own
    /// callback) and drops the reference. Idempotent.
    package func destroy() {
        let s: UnsafeMutablePointer<GSource>? = lock.withLock {
            defer { source = nil }
            return source
        }
        guard let s else { return }
        g_source_destroy(s)
        g_source_unref(s)
    }

    deinit { destroy() }
}
