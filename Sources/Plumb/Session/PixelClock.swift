import FoundationEssentials
import Glibc

/// The wall clock written into a frame's pixels, so a consumer can tell how old the frame
/// it decoded is (glass-to-glass latency, `make bench`), whatever carried it: RTSP,
/// WebRTC, a file. Robust to lossy coding, unlike reading the running-time overlay.
///
/// The stamp is milliseconds since the Unix epoch modulo 2^24 (4.6 hours) and an 8-bit
/// check (the XOR of its three bytes): 32 bits, most significant first, as 32 blocks
/// side by side across the top of the luma plane, `height/8` rows tall, black (16) for 0
/// and white (235) for 1. A reader samples each block's centre and thresholds at 128
/// (bench/stamp.py and the bench's browser script read it the same way).
public enum PixelClock {
    public static let bits = 32

    /// The 32-bit code for `milliseconds` since the epoch.
    public static func code(milliseconds: UInt64) -> UInt32 {
        let value = UInt32(milliseconds & 0xFF_FFFF)
        let check = (value >> 16) ^ (value >> 8) ^ value
        return value << 8 | (check & 0xFF)
    }

    /// The milliseconds (mod 2^24) a code carries, or nil when its check fails.
    public static func milliseconds(code: UInt32) -> UInt32? {
        let value = code >> 8
        let check = ((value >> 16) ^ (value >> 8) ^ value) & 0xFF
        return check == code & 0xFF ? value : nil
    }

    /// How tall the stamp's row of blocks is for a frame `height` lines tall.
    public static func rows(height: Int) -> Int { max(2, height / 8) }

    /// Writes `code` into the top of an I420 (or any 8-bit luma-first) frame's luma plane.
    public static func write(_ code: UInt32, into luma: UnsafeMutableRawBufferPointer, width: Int, height: Int, stride: Int) {
        let block = width / bits
        let rows = rows(height: height)
        guard block > 0, stride * rows <= luma.count else { return }
        for bit in 0..<bits {
            let value: UInt8 = code >> UInt32(bits - 1 - bit) & 1 == 1 ? 235 : 16
            for row in 0..<rows {
                let start = row * stride + bit * block
                for i in start..<(start + block) { luma[i] = value }
            }
        }
    }

    /// The code in a luma plane written by `write`, read at each block's centre.
    public static func read(_ luma: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int) -> UInt32? {
        let block = width / bits
        let row = rows(height: height) / 2
        guard block > 0, stride * (row + 1) <= luma.count else { return nil }
        var code: UInt32 = 0
        for bit in 0..<bits {
            code = code << 1 | (luma[row * stride + bit * block + block / 2] >= 128 ? 1 : 0)
        }
        return code
    }

    /// Milliseconds since the epoch now, on the wall clock every process on the machine shares.
    public static func now() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return UInt64(t.tv_sec) * 1000 + UInt64(t.tv_nsec) / 1_000_000
    }
}
