import Foundation
import Plumb

/// A bench command's options: `--flag value` pairs and bare switches, read once. `--help`
/// prints the usage and exits 0; an unknown flag, a missing value or a value of the wrong
/// kind ends the process with exit 2, saying which and the usage.
struct BenchOptions {
    let usage: String
    private var values: [String: String] = [:]
    private var switches: Set<String> = []

    /// `valued`: the flags that take a value; `switches`: the ones that stand alone.
    init(_ arguments: [String], usage: String, valued: Set<String>, switches allowed: Set<String> = []) {
        self.usage = usage
        var args = arguments[...]
        while let flag = args.popFirst() {
            if flag == "--help" || flag == "-h" {
                print(usage)
                exit(0)
            }
            if allowed.contains(flag) {
                switches.insert(flag)
                continue
            }
            guard valued.contains(flag) else { fail("unknown option \(flag)\n\(usage)", code: 2) }
            guard let value = args.popFirst() else { fail("\(flag) needs a value\n\(usage)", code: 2) }
            values[flag] = value
        }
    }

    func isSet(_ flag: String) -> Bool { switches.contains(flag) }

    func string(_ flag: String, default fallback: String, oneOf choices: [String]? = nil) -> String {
        guard let value = values[flag] else { return fallback }
        if let choices, !choices.contains(value) {
            fail("\(flag) wants \(choices.joined(separator: " or ")), not \(value)\n\(usage)", code: 2)
        }
        return value
    }

    func int(_ flag: String, default fallback: Int, positive: Bool = false) -> Int {
        read(flag, fallback, positive ? "a positive whole number" : "a whole number") { Int($0).flatMap { !positive || $0 > 0 ? $0 : nil } }
    }

    func double(_ flag: String, default fallback: Double) -> Double {
        read(flag, fallback, "a positive number") { Double($0).flatMap { $0 > 0 && $0.isFinite ? $0 : nil } }
    }

    func size(_ flag: String, default fallback: VideoSize) -> VideoSize {
        read(flag, fallback, "WxH, e.g. 640x480") { VideoSize(parsing: $0) }
    }

    private func read<T>(_ flag: String, _ fallback: T, _ wanted: String, _ parse: (String) -> T?) -> T {
        guard let value = values[flag] else { return fallback }
        guard let parsed = parse(value) else { fail("\(flag) wants \(wanted), not \(value)\n\(usage)", code: 2) }
        return parsed
    }
}
