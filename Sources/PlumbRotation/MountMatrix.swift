import FoundationEssentials
import Glibc
import PlumbBase

/// An IIO mount matrix: turns a sensor's axes into the device's.
///
/// Read from `in_accel_mount_matrix` (or `mount_matrix`) as
/// `"x1, y1, z1; x2, y2, z2; x3, y3, z3"`, one row per device axis:
/// device x = x1·sx + y1·sy + z1·sz, and so on (the kernel's IIO ABI, as
/// iio-sensor-proxy applies it).
public struct MountMatrix: Sendable, Equatable, CustomStringConvertible {
    public var rows: [[Double]]

    public static let identity = MountMatrix(rows: [[1, 0, 0], [0, 1, 0], [0, 0, 1]])

    public init(rows: [[Double]]) {
        self.rows = rows
    }

    /// Parses the sysfs text; the error says what is wrong with it.
    public init(parsing text: String) throws(AccelerometerError) {
        let rowTexts = text.trimmed.split(separator: ";",
                                                                                omittingEmptySubsequences: false)
        guard rowTexts.count == 3 else {
            throw AccelerometerError("mount matrix \"\(text.trimmed)\" needs 3 rows separated by \";\"")
        }
        var rows: [[Double]] = []
        for rowText in rowTexts {
            let cells = rowText.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmed }
            guard cells.count == 3 else {
                throw AccelerometerError("mount matrix \"\(text.trimmed)\" needs 3 values per row separated by \",\"")
            }
            var row: [Double] = []
            for cell in cells {
                guard let v = Double(cell), v.isFinite else {
                    throw AccelerometerError("mount matrix \"\(text.trimmed)\" has \"\(cell)\", which is not a number")
                }
                row.append(v)
            }
            guard row.contains(where: { $0 != 0 }) else {
                throw AccelerometerError("mount matrix \"\(text.trimmed)\" has an all-zero row")
            }
            rows.append(row)
        }
        self.rows = rows
    }

    /// Device-frame vector for a sensor-frame one.
    public func apply(_ v: (Double, Double, Double)) -> (Double, Double, Double) {
        func row(_ r: [Double]) -> Double { r[0] * v.0 + r[1] * v.1 + r[2] * v.2 }
        return (row(rows[0]), row(rows[1]), row(rows[2]))
    }

    public var description: String {
        rows.map { $0.map { "\($0)" }.joined(separator: ", ") }.joined(separator: "; ")
    }
}
