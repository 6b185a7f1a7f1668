import Foundation

/// A TCP connection on 127.0.0.1 as the kernel sees it (/proc/net/tcp): an independent
/// reading of what a server holds for one peer.
public struct KernelTCPConnection {
    /// The kernel's state number (1 ESTABLISHED, 4 FIN_WAIT1, 7 CLOSE ...).
    public var state: Int
    /// Bytes in the send queue, unsent or unacknowledged (tx_queue).
    public var sendQueue: Int

    /// The connection from `localPort` to `remotePort`, nil when the kernel has none.
    public static func find(localPort: Int, remotePort: Int) -> KernelTCPConnection? {
        // Read to the end: String(contentsOfFile:) stops after the first page of a /proc file.
        guard let data = FileHandle(forReadingAtPath: "/proc/net/tcp")?.readDataToEndOfFile() else { return nil }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 4 else { continue }
            let local = fields[1].split(separator: ":"), remote = fields[2].split(separator: ":")
            guard local.count == 2, remote.count == 2, Int(local[1], radix: 16) == localPort,
                  Int(remote[1], radix: 16) == remotePort else { continue }
            let queues = fields[4].split(separator: ":")
            return KernelTCPConnection(state: Int(fields[3], radix: 16) ?? 0,
                                       sendQueue: queues.first.flatMap { Int($0, radix: 16) } ?? 0)
        }
        return nil
    }
}
