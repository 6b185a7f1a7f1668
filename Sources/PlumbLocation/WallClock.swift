#if canImport(Glibc)
import Glibc
#endif

/// The wall clock as the kernel sees it.
public enum WallClock {
    /// Whether the kernel holds the wall clock synchronised: NTP, chrony or
    /// systemd-timesyncd clear STA_UNSYNC once they discipline it, and a board without a
    /// real-time clock boots with it set, its clock anywhere in time. nil when the kernel
    /// does not say.
    ///
    /// adjtimex(2) in read-only mode (`modes` 0): its return value is TIME_ERROR (5) while
    /// STA_UNSYNC is set, so only the answer is read, never a field of `struct timex`,
    /// whose layout differs between 32- and 64-bit boards. Glibc's Swift module leaves
    /// <sys/timex.h> out, hence the look-up by name.
    public static func isSynchronized() -> Bool? {
        typealias AdjTimex = @convention(c) (UnsafeMutableRawPointer) -> Int32
        guard let symbol = dlsym(nil /* RTLD_DEFAULT */, "adjtimex") else { return nil }
        let adjtimex = unsafeBitCast(symbol, to: AdjTimex.self)
        // Zeroed and larger than any struct timex (208 bytes on 64-bit Linux).
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 512, alignment: 16)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: 512)
        let state = adjtimex(buffer)
        guard state >= 0 else { return nil }
        return state != timeError
    }

    /// TIME_ERROR from <sys/timex.h>.
    static let timeError: Int32 = 5
}
