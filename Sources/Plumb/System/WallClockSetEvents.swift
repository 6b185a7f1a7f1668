import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The kernel's word that the wall clock was set (settimeofday, clock_settime, an NTP step,
/// adjtimex ADJ_SETOFFSET): a timerfd on CLOCK_REALTIME armed for the end of time with
/// TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, whose read fails with ECANCELED once the
/// clock is set. A dispatch read source wakes on the fd; nothing polls.
///
/// Glibc's Swift module leaves <sys/timerfd.h> out, hence the look-up by name (as
/// `WallClock.isSynchronized` does for adjtimex); the flags are Linux's ABI.
///
/// `@unchecked Sendable`: a dispatch source may be cancelled from any thread, and the fd is
/// read and re-armed on the source's queue only.
final class WallClockSetEvents: @unchecked Sendable {
    /// Why the kernel cannot tell of clock sets: the call that failed and its errno.
    struct Unavailable: Error, CustomStringConvertible {
        var call: String
        var errno: Int32
        var description: String { "\(call): \(String(cString: strerror(errno)))" }
    }

    private typealias Create = @convention(c) (Int32, Int32) -> Int32
    private typealias SetTime = @convention(c) (Int32, Int32, UnsafePointer<itimerspec>,
                                                UnsafeMutablePointer<itimerspec>?) -> Int32
    /// TFD_CLOEXEC and TFD_NONBLOCK are O_CLOEXEC and O_NONBLOCK.
    private static let createFlags = O_CLOEXEC | O_NONBLOCK
    /// TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET.
    private static let armFlags: Int32 = 1 << 0 | 1 << 1

    private let fd: Int32
    private let setTime: SetTime
    private let source: any DispatchSourceRead

    /// Calls `onSet` on `queue` after every set of the wall clock, until `cancel()`;
    /// `onFailure` if the kernel stops telling (the timer could not be re-armed).
    init(queue: DispatchQueue, onSet: @escaping @Sendable () -> Void,
         onFailure: @escaping @Sendable (Unavailable) -> Void) throws(Unavailable) {
        guard let create = dlsym(nil /* RTLD_DEFAULT */, "timerfd_create"),
              let setTime = dlsym(nil, "timerfd_settime")
        else { throw Unavailable(call: "dlsym(timerfd_create)", errno: ENOSYS) }
        let fd = unsafeBitCast(create, to: Create.self)(CLOCK_REALTIME, Self.createFlags)
        guard fd >= 0 else { throw Unavailable(call: "timerfd_create(CLOCK_REALTIME)", errno: errno) }
        self.fd = fd
        self.setTime = unsafeBitCast(setTime, to: SetTime.self)
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        do throws(Unavailable) { try arm() } catch {
            close(fd)
            throw error
        }
        source.setEventHandler { [fd, weak self] in
            guard let self else { return }
            var expirations: UInt64 = 0
            let count = read(fd, &expirations, MemoryLayout<UInt64>.size)
            let failure = count < 0 ? errno : 0
            // EAGAIN: woken for nothing. An expiry (8 bytes) cannot come before the end of
            // time; re-armed all the same.
            guard failure != EAGAIN && failure != EINTR else { return }
            // Re-armed before the caller reads the clock, so a set after that read is
            // another event and one before it is in the reading.
            do throws(Unavailable) { try self.arm() } catch {
                self.cancel()
                onFailure(error)
            }
            if failure == ECANCELED { onSet() }
        }
        source.setCancelHandler { close(fd) }
        source.activate()
    }

    deinit { source.cancel() }

    /// Stops listening and closes the fd (once the source's handler has run its last).
    func cancel() { source.cancel() }

    /// Armed for the end of time: it never expires, only the clock's set cancels it.
    private func arm() throws(Unavailable) {
        var spec = itimerspec(it_interval: timespec(), it_value: timespec(tv_sec: time_t.max, tv_nsec: 0))
        guard setTime(fd, Self.armFlags, &spec, nil) == 0 else {
            throw Unavailable(call: "timerfd_settime(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)", errno: errno)
        }
    }
}
