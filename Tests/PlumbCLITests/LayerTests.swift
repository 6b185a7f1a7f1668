import Foundation
import PlumbTestSupport
import XCTest

/// The layers hold because SwiftPM keeps them, not by convention: this reads the package's
/// own description (`swift package describe`) and the sources' imports and fails on a
/// dependency the architecture forbids.
final class LayerTests: XCTestCase {
    /// What each target may not reach, directly or through another target.
    static let forbidden: [String: Set<String>] = [
        // Pure rotation: angles and sensors, nothing of GStreamer.
        "PlumbRotation": ["GStreamer", "CGStreamer", "CGStreamerShim", "CGstRTSPServer", "Soup", "CSoup", "CSoupShim",
                          "ZBar", "CZBar", "PlumbMedia", "PlumbLocation", "PlumbDescription", "Plumb", "PlumbService", "PlumbCLI"],
        // gpsd, fixes, the wall clock: plain sockets and files, nothing of GStreamer.
        "PlumbLocation": ["GStreamer", "CGStreamer", "CGStreamerShim", "CGstRTSPServer", "Soup", "CSoup", "CSoupShim",
                          "ZBar", "CZBar", "PlumbMedia", "PlumbDescription", "Plumb", "PlumbService", "PlumbCLI"],
        // MP4 and JPEG bytes, crash repair: read and written by Plumb's own code, nothing of GStreamer.
        "PlumbMedia": ["GStreamer", "CGStreamer", "CGStreamerShim", "CGstRTSPServer", "Soup", "CSoup", "CSoupShim",
                       "ZBar", "CZBar", "PlumbDescription", "Plumb", "PlumbService", "PlumbCLI"],
        // Description files and their runner: GStreamer, but not the capture engine.
        "PlumbDescription": ["Soup", "CSoup", "CSoupShim", "ZBar", "CZBar", "PlumbRotation", "PlumbMedia", "PlumbLocation",
                             "Plumb", "PlumbService", "PlumbCLI"],
        // The engine: no HTTP server, no daemon, no command line; no RTSP server either (PlumbRTSP,
        // above it), so that the commands do not load gst-rtsp-server (issue 26).
        "Plumb": ["Soup", "CSoup", "CSoupShim", "PlumbService", "PlumbCLI", "PlumbRTSP", "GStreamerRTSP", "CGstRTSPServer"],
        // The RTSP preview: the engine's stream served by gst-rtsp-server, for the daemon.
        "PlumbRTSP": ["Soup", "CSoup", "CSoupShim", "PlumbService", "PlumbCLI"],
        "PlumbService": ["PlumbCLI"],
        "GLib": ["GStreamer", "CGStreamer", "Soup", "CSoup", "ZBar", "CZBar", "PlumbRotation", "PlumbMedia", "PlumbLocation",
                 "PlumbDescription", "Plumb", "PlumbService", "PlumbCLI"],
        "GStreamer": ["Soup", "CSoup", "ZBar", "CZBar", "PlumbRotation", "PlumbMedia", "PlumbLocation", "PlumbDescription",
                      "Plumb", "PlumbService", "PlumbCLI", "GStreamerRTSP", "CGstRTSPServer"],
        "GStreamerRTSP": ["Soup", "CSoup", "ZBar", "CZBar", "PlumbRotation", "PlumbMedia", "PlumbLocation", "PlumbDescription",
                          "Plumb", "PlumbRTSP", "PlumbService", "PlumbCLI"],
        "Soup": ["GStreamer", "CGStreamer", "ZBar", "CZBar", "PlumbRotation", "PlumbMedia", "PlumbLocation", "PlumbDescription",
                 "Plumb", "PlumbService", "PlumbCLI"],
        // zbar's decoder: a C library under a thin Swift layer, nothing else.
        "ZBar": ["GLib", "CGio", "GStreamer", "CGStreamer", "Soup", "CSoup", "PlumbRotation", "PlumbMedia", "PlumbLocation",
                 "PlumbDescription", "Plumb", "PlumbService", "PlumbCLI"],
        // `plumb`: the one-shot commands, without the daemon and its HTTP server (in `plumb-serve`,
        // which `plumb serve` execs), so that they do not map libsoup and what it loads (issue 26).
        // Nor gst-rtsp-server: the RTSP preview is the daemon's alone.
        "PlumbCLI": ["PlumbService", "Soup", "CSoup", "CSoupShim", "PlumbServe", "PlumbRTSP", "GStreamerRTSP", "CGstRTSPServer"],
        // What FoundationEssentials lacks of Foundation: below everything, above nothing but the system.
        "PlumbBase": ["GLib", "CGio", "GStreamer", "CGStreamer", "CGStreamerShim", "CGstRTSPServer", "Soup", "CSoup",
                      "CSoupShim", "ZBar", "CZBar", "PlumbRotation", "PlumbMedia", "PlumbLocation", "PlumbDescription",
                      "Plumb", "PlumbService", "PlumbCLI", "PlumbServe", "PlumbCommandLine"],
        // What both executables share: the command line alone.
        "PlumbCommandLine": ["GLib", "CGio", "GStreamer", "CGStreamer", "CGStreamerShim", "CGstRTSPServer", "Soup", "CSoup",
                             "CSoupShim", "ZBar", "CZBar", "PlumbRotation", "PlumbMedia", "PlumbLocation", "PlumbDescription",
                             "Plumb", "PlumbService", "PlumbCLI", "PlumbServe"],
    ]

    /// What a target may not depend on or import itself, though a target below it does: the
    /// service reaches GStreamer only through the engine, whose types and errors it sees
    /// (`CaptureError`, `PipelineFailure`, `PreviewCredentials`), never a GStreamer domain or code,
    /// nor the description files' pipelines. The command line, likewise, calls the engine and the
    /// description files (`CaptureEngine`, `PipelineRunner`, `CameraControlInfo`), never GStreamer or GLib.
    static let forbiddenDirectly: [String: Set<String>] = [
        "PlumbService": ["GStreamer", "CGStreamer", "CGStreamerShim", "GStreamerRTSP", "CGstRTSPServer", "ZBar", "CZBar",
                         "PlumbDescription"],
        "PlumbCLI": ["GStreamer", "CGStreamer", "CGStreamerShim", "CGstRTSPServer", "GLib", "CGio", "ZBar", "CZBar",
                     "Soup", "CSoup", "CSoupShim"],
        "PlumbServe": ["GStreamer", "CGStreamer", "CGStreamerShim", "CGstRTSPServer", "GLib", "CGio", "ZBar", "CZBar",
                       "Soup", "CSoup", "CSoupShim"],
    ]

    /// Swift targets above the wrappers reach C only through them (the CLI's signal shim aside).
    static let noDirectC: Set<String> = ["PlumbRotation", "PlumbLocation", "PlumbMedia", "PlumbDescription", "Plumb", "PlumbRTSP",
                                         "PlumbService"]

    struct Target {
        var name: String
        var path: String
        var dependencies: [String]
        var isC: Bool
    }

    static func describe() throws -> [String: Target] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-describe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        // A scratch path of its own: the running `swift test` holds the package's .build.
        let json = try runTool("swift", ["package", "--package-path", PlumbProcess.root.path,
                                         "--scratch-path", scratch.path, "describe", "--type", "json"])
        guard let root = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              let targets = root["targets"] as? [[String: Any]] else {
            throw ToolError("swift package describe gave no targets")
        }
        var result: [String: Target] = [:]
        for t in targets {
            guard let name = t["name"] as? String, let path = t["path"] as? String else { continue }
            let type = t["module_type"] as? String ?? ""
            result[name] = Target(name: name, path: path, dependencies: t["target_dependencies"] as? [String] ?? [],
                                  isC: type == "SystemLibraryTarget" || type == "ClangTarget")
        }
        return result
    }

    /// Every target `name` reaches through its dependencies.
    static func closure(of name: String, in targets: [String: Target]) -> Set<String> {
        var seen: Set<String> = []
        var stack = targets[name]?.dependencies ?? []
        while let next = stack.popLast() {
            guard seen.insert(next).inserted else { continue }
            stack += targets[next]?.dependencies ?? []
        }
        return seen
    }

    /// The modules a target's Swift files import (`import X`, `internal import X`, `@testable import X`).
    static func imports(of target: Target) throws -> [(file: String, module: String)] {
        let folder = PlumbProcess.root.appendingPathComponent(target.path)
        guard let files = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var found: [(String, String)] = []
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            // Import declarations stand at the start of a line; an indented "import" is
            // inside a string (the Python a test runs) or a comment.
            for line in text.split(separator: "\n") where !line.hasPrefix(" ") && !line.hasPrefix("\t") {
                let words = line.split(separator: " ").map(String.init)
                guard let i = words.firstIndex(of: "import"), i + 1 < words.count,
                      words[..<i].allSatisfy({ ["internal", "public", "package", "@testable", "@_implementationOnly"].contains($0) })
                else { continue }
                found.append(("\(target.path)/\(file)", words[i + 1]))
            }
        }
        return found
    }

    func testNoTargetReachesALayerItMayNot() throws {
        let targets = try Self.describe()
        for name in Self.forbidden.keys { XCTAssertNotNil(targets[name], "the package has no target \(name)") }
        for (name, banned) in Self.forbidden {
            let reached = Self.closure(of: name, in: targets)
            for bad in reached.intersection(banned).sorted() {
                XCTFail("\(name) depends on \(bad) (directly or through another target): the layers forbid it")
            }
        }
        for (name, banned) in Self.forbiddenDirectly {
            let t = try XCTUnwrap(targets[name], "the package has no target \(name)")
            for bad in Set(t.dependencies).intersection(banned).sorted() {
                XCTFail("\(name) depends on \(bad) itself: it may reach it only through the targets below it")
            }
        }
        for name in targets.keys where name != "PlumbCLI" && name != "PlumbServe" {
            let reached = Self.closure(of: name, in: targets)
            XCTAssertFalse(reached.contains("PlumbCLI") || reached.contains("PlumbServe"), "\(name) depends on an executable")
        }
    }

    func testUpperLayersUseNoCModuleDirectly() throws {
        let targets = try Self.describe()
        for name in Self.noDirectC {
            let t = try XCTUnwrap(targets[name])
            for dep in t.dependencies where targets[dep]?.isC == true {
                XCTFail("\(name) depends on the C module \(dep): reach C through the GLib/GStreamer/Soup layers")
            }
        }
    }

    /// SwiftPM lets a file import a module its target does not declare once that module is
    /// built: the imports are checked against the declared closure, and the bans, too.
    func testSourcesImportOnlyWhatTheirTargetMayUse() throws {
        let targets = try Self.describe()
        let system: Set<String> = ["Foundation", "FoundationEssentials", "FoundationNetworking", "Dispatch", "Glibc", "Synchronization",
                                   "XCTest", "Testing", "PackageDescription"]
        var checked = 0
        for t in targets.values where !t.isC {
            let allowed = Self.closure(of: t.name, in: targets).union([t.name]).union(system)
            let banned = (Self.forbidden[t.name] ?? []).union(Self.forbiddenDirectly[t.name] ?? [])
            for (file, module) in try Self.imports(of: t) {
                checked += 1
                XCTAssertTrue(allowed.contains(module), "\(file) imports \(module), which \(t.name) does not depend on")
                XCTAssertFalse(banned.contains(module), "\(file) imports \(module): \(t.name) may not use it")
                if Self.noDirectC.contains(t.name), targets[module]?.isC == true {
                    XCTFail("\(file) imports the C module \(module)")
                }
            }
        }
        XCTAssertGreaterThan(checked, 100, "the import scan found too few imports to be reading the sources")
    }

    /// `plumb` and `plumb-serve` link no Foundation, only FoundationEssentials: a single
    /// `import Foundation` in any module they are made of links Foundation, CoreFoundation and
    /// ICU in again, whose start-up (ICU's static constructors, CoreFoundation's initializer)
    /// made about 1.6 MiB more of them resident in every run (issue 26, bench/README.md "Memory").
    func testTheExecutablesModulesImportNoFoundation() throws {
        let targets = try Self.describe()
        let linked = Self.closure(of: "PlumbCLI", in: targets).union(Self.closure(of: "PlumbServe", in: targets))
            .union(["PlumbCLI", "PlumbServe"])
        XCTAssertTrue(linked.isSuperset(of: ["Plumb", "PlumbBase", "GStreamer", "PlumbMedia", "PlumbService", "Soup"]), "\(linked)")
        var files = 0
        for name in linked.sorted() {
            guard let t = targets[name], !t.isC else { continue }
            for (file, module) in try Self.imports(of: t) {
                files += 1
                XCTAssertFalse(["Foundation", "FoundationNetworking", "FoundationXML"].contains(module),
                               "\(file) imports \(module): `plumb` or `plumb-serve` would link Foundation again; use FoundationEssentials and PlumbBase")
            }
        }
        XCTAssertGreaterThan(files, 100, "too few imports read")
    }

    /// The checks above can fail: a rotation target that reached GStreamer through the engine is caught.
    func testTheClosureSeesIndirectDependencies() {
        let targets: [String: Target] = [
            "PlumbRotation": Target(name: "PlumbRotation", path: "", dependencies: ["Helper"], isC: false),
            "Helper": Target(name: "Helper", path: "", dependencies: ["GStreamer"], isC: false),
            "GStreamer": Target(name: "GStreamer", path: "", dependencies: ["CGStreamer"], isC: false),
        ]
        let reached = Self.closure(of: "PlumbRotation", in: targets)
        XCTAssertEqual(reached, ["Helper", "GStreamer", "CGStreamer"])
        XCTAssertFalse(reached.intersection(Self.forbidden["PlumbRotation"]!).isEmpty)
    }
}
