import Foundation
@testable import Plumb
import PlumbRotation
@testable import PlumbService
import PlumbTestSupport
import XCTest

/// The config reader under mutated and random input: the example file with bytes
/// flipped, inserted, deleted, lines repeated and swapped, and plain random bytes. Every
/// input must end in a config or a `ConfigError` (a crash ends the test process, a hang
/// trips the deadline); an error from the file names the file; a config that loads
/// prints back to itself. PLUMB_FUZZ_ITERATIONS runs longer (the default takes seconds).
final class ServeConfigFuzzTests: XCTestCase {
    func testMutatedAndRandomConfigsEndInAConfigOrAnError() throws {
        let iterations = ProcessInfo.processInfo.environment["PLUMB_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 1000
        let seed = ProcessInfo.processInfo.environment["PLUMB_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x5EED_0F_C0F16
        let example = try [UInt8](Data(contentsOf: URL(fileURLWithPath: ServeConfigTests.exampleFile)))
        let dir = try temporaryDirectory(self)
        let file = dir.appendingPathComponent("fuzz.ini")
        var random = SplitMix64(seed: seed)
        var loaded = 0, refused = 0, slowest = 0.0
        for i in 0..<iterations {
            let input = i % 10 == 9 ? random.bytes(count: random.next(below: 600)) : mutate(example, &random)
            try Data(input).write(to: file)
            let start = ContinuousClock.now
            do throws(ConfigError) {
                let config = try ServeConfig.load(path: file.path)
                loaded += 1
                XCTAssertEqual(try? ServeConfig.parse(text: config.iniText()), config,
                               "iteration \(i) (seed \(seed)): the loaded config does not print back to itself")
            } catch {
                // `load` throws only ConfigError (typed throws): the check is what it says.
                refused += 1
                XCTAssertTrue(error.description.hasPrefix(file.path), "iteration \(i): \(error)")
                // Every error about a file's text says where: a config file's problem is at a line.
                XCTAssertNotNil(error.line, "iteration \(i) (seed \(seed)): no line in \(error)")
            }
            let elapsed = (ContinuousClock.now - start).seconds
            slowest = max(slowest, elapsed)
            // A guard against a hang, not a speed target: parsing a few KB takes microseconds.
            XCTAssertLessThan(elapsed, 5, "iteration \(i) (seed \(seed)) took \(elapsed) s")
        }
        print("config fuzz: \(iterations) inputs (seed \(seed)): \(loaded) loaded, \(refused) refused, "
              + "slowest \(String(format: "%.1f", slowest * 1000)) ms")
        XCTAssertGreaterThan(loaded, 0, "no mutation left a loadable file: the mutations are too coarse")
        XCTAssertGreaterThan(refused, 0)
    }

    /// One to four edits of `bytes`, biased to the bytes INI syntax cares about.
    private func mutate(_ bytes: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var b = bytes
        let interesting: [UInt8] = [0, 0x0A, 0x0D, 0x5B, 0x5D, 0x3D, 0x23, 0x5C, 0x20, 0x09, 0xFF, 0xC3, 0xE2, 0x80, 0x3B]
        for _ in 0...random.next(below: 4) {
            guard !b.isEmpty else { return random.bytes(count: 8) }
            let at = random.next(below: b.count)
            switch random.next(below: 8) {
            case 0: b[at] = interesting[random.next(below: interesting.count)]
            case 1: b.insert(interesting[random.next(below: interesting.count)], at: at)
            case 2: b[at] = UInt8(truncatingIfNeeded: random.next())
            case 3: b.removeSubrange(at..<min(b.count, at + random.next(below: 40)))
            case 4, 5:
                // A whole line repeated or moved elsewhere.
                var lines = b.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
                let from = random.next(below: lines.count), to = random.next(below: lines.count)
                if random.next(below: 2) == 0 { lines.insert(lines[from], at: to) } else { lines.swapAt(from, to) }
                b = Array(lines.joined(separator: [0x0A]))
            case 6:
                // A character that is more than one byte: a combining mark, NBSP, BOM, separators.
                let scalars = ["\u{301}", "\u{A0}", "\u{FEFF}", "\u{2028}", "é", "\u{85}", "\u{1F4F7}"]
                b.insert(contentsOf: Array(scalars[random.next(below: scalars.count)].utf8), at: at)
            default: b.insert(contentsOf: random.bytes(count: random.next(below: 16)), at: at)
            }
        }
        return b
    }
}

private extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
