import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Sets of the machine's wall clock (CLOCK_REALTIME), for tests of what hears them: the
/// kernel tells every timerfd armed with TFD_TIMER_CANCEL_ON_SET. Setting it needs root
/// (CAP_SYS_TIME), which the tests run as; without it the test fails saying so.
public enum WallClockStep {
    public struct NotPermitted: Error, CustomStringConvertible {
        public var errno: Int32
        public var description: String {
            "clock_settime(CLOCK_REALTIME): \(String(cString: strerror(errno))) "
                + "(setting the wall clock needs root, CAP_SYS_TIME: run the tests as root)"
        }
    }

    /// Moves the wall clock by `seconds` (0: set to what it reads, which moves it only by
    /// the moment between the read and the set, and still tells the kernel's listeners).
    public static func step(by seconds: Int) throws {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        now.tv_sec += seconds
        guard clock_settime(CLOCK_REALTIME, &now) == 0 else { throw NotPermitted(errno: errno) }
    }
}
