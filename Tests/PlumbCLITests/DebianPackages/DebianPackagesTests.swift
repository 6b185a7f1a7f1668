import Foundation
import PlumbTestSupport
import XCTest

/// A fresh machine has only what the Makefile installs (`make deps`: DEB_PACKAGES with
/// `--no-install-recommends`). Every GStreamer element and program that the code, the
/// tests, the shipped pipelines and the bench scripts use must come from one of those
/// packages or their Depends/Pre-Depends, or from a package every Debian system has.
final class DebianPackagesTests: XCTestCase {
    let root = PlumbProcess.root

    /// The rule on this tree and this machine.
    func testEveryElementAndProgramComesFromAPackageTheMakefileInstalls() throws {
        let check = try Check.shared.get()
        let violations = check.rule.violations(check.uses, origins: check.origins)
        XCTAssertEqual(violations, [], "\n" + violations.joined(separator: "\n"))

        let subjects = Set(check.uses.map(\.subject))
        let elements = subjects.filter { $0.kind == .element }.map(\.name).sorted()
        let programs = subjects.filter { $0.kind == .program }.map(\.name).sorted()
        print("debian-packages: \(elements.count) elements and \(programs.count) programs checked against "
              + "\(check.rule.listed.count) listed packages (\(check.rule.database.closure(of: check.rule.listed).packages.count) "
              + "with their dependencies); programs: \(programs.joined(separator: " ")); elements: \(elements.joined(separator: " "))")
        // The finder sees what the project is known to use (it is not looking at nothing).
        for element in ["videotestsrc", "timeoverlay", "x264enc", "mp4mux", "rtspclientsink", "jifmux", "avdec_h264"] {
            XCTAssertTrue(elements.contains(element), "\(element) not found among \(elements)")
        }
        for program in ["ffprobe", "ffmpeg", "exiftool", "gst-launch-1.0", "curl", "dbus-daemon", "systemd-analyze",
                        "make", "script", "gst-inspect-1.0", "dpkg-query"] {
            XCTAssertTrue(programs.contains(program), "\(program) not found among \(programs)")
        }
        XCTAssertFalse(programs.contains("plumb"), "the project's own binary is no Debian package's")
        let modules = subjects.filter { $0.kind == .pythonModule }.map(\.name)
        XCTAssertTrue(modules.contains("matplotlib"), "the bench's charts: \(modules)")
    }

    /// The Makefile before `gstreamer1.0-x` was added: timeoverlay (the test pattern and two
    /// shipped pipelines) is reported with its package, and so is curl without `curl`.
    func testAListWithoutAPackageIsReportedWithThatPackage() throws {
        let check = try Check.shared.get()
        let makefile = try String(contentsOf: root.appendingPathComponent("Makefile"), encoding: .utf8)
        let before = makefile.replacingOccurrences(of: " gstreamer1.0-x", with: "").replacingOccurrences(of: " curl ", with: " ")
        var rule = check.rule
        rule.listed = DebianPackageRule.listedPackages(inMakefile: before)
        XCTAssertEqual(Set(check.rule.listed).subtracting(rule.listed), ["gstreamer1.0-x", "curl"])
        let violations = rule.violations(check.uses, origins: check.origins)
        let overlay = violations.filter { $0.hasPrefix("element timeoverlay ") }
        XCTAssertEqual(overlay.count, 1, violations.joined(separator: "\n"))
        XCTAssertTrue(overlay.first?.contains("comes from gstreamer1.0-x") == true, overlay.first ?? "")
        XCTAssertTrue(overlay.first?.contains("Sources/Plumb/Session/CaptureSession.swift:") == true, overlay.first ?? "")
        XCTAssertTrue(overlay.first?.contains("pipelines/record-mp4.pipeline:") == true, overlay.first ?? "")
        let curl = violations.filter { $0.hasPrefix("program curl ") }
        XCTAssertEqual(curl.count, 1, violations.joined(separator: "\n"))
        XCTAssertTrue(curl.first?.contains("comes from curl,") == true, curl.first ?? "")
    }

    /// A fresh machine without the package: GStreamer knows no timeoverlay there, yet the
    /// code and the pipelines name it where an element must be, so it is reported.
    func testAnElementThatIsNotInstalledAtAllIsReported() throws {
        let check = try Check.shared.get().hiding("timeoverlay", root: root)
        let violations = check.rule.violations(check.uses, origins: check.origins)
        XCTAssertEqual(violations.count, 1, violations.joined(separator: "\n"))
        XCTAssertTrue(violations.first?.hasPrefix("element timeoverlay (") == true, violations.first ?? "")
        XCTAssertTrue(violations.first?.contains("is not installed") == true, violations.first ?? "")
    }

    /// The names left out as deliberately missing are no element here, and tests do use them:
    /// the exception cannot hide a real element.
    func testTheDeliberatelyMissingNamesAreNoElements() throws {
        let check = try Check.shared.get()
        var words = Set<Substring>()
        for file in try XCTUnwrap(FileManager.default.enumerator(at: root.appendingPathComponent("Tests"), includingPropertiesForKeys: nil))
            .compactMap({ $0 as? URL }) where file.pathExtension == "swift" && !file.path.contains("/DebianPackages/") {
            let text = try String(contentsOf: file, encoding: .utf8)
            words.formUnion(text.split { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
        }
        for name in ProjectUseFinder.deliberatelyMissingElements.sorted() {
            XCTAssertNil(check.installed.elementPlugins[name], "\(name) is an element of \(check.installed.elementPlugins[name] ?? "")")
            XCTAssertTrue(words.contains(Substring(name)), "no test uses \(name) any more: drop it from deliberatelyMissingElements")
        }
    }

    /// Depends and Pre-Depends count, recursively, through the alternative that is installed
    /// and through virtual packages; what is not installed is not reached; a package on
    /// every system needs no listing; a listed package that is not installed is reported.
    func testTheClosureFollowsWhatDpkgInstalled() {
        let database = DebianPackageDatabase.parse([
            "top\tii \tno\toptional\t\tpre\tmid (>= 1), gone | alt, virt:any",
            "pre\tii \tno\toptional\t\t\t",
            "mid\tii \tno\toptional\t\t\tdeep",
            "deep\tii \tno\toptional\t\t\t",
            "alt\tii \tno\toptional\t\t\t",
            "real\tii \tno\toptional\tvirt (= 2)\t\t",
            "other\tii \tno\toptional\t\t\t",
            "old\trc \tno\toptional\t\t\t",
            "base\tii \tyes\trequired\t\t\t",
        ].joined(separator: "\n"))
        XCTAssertNil(database.packages["old"], "removed, its config kept: not installed")
        let (reached, missing) = database.closure(of: ["top", "absent"])
        XCTAssertEqual(reached, ["top", "pre", "mid", "deep", "alt", "real"])
        XCTAssertEqual(missing, ["absent"])
        XCTAssertEqual(DebianPackageDatabase.clauses("libc6 (>= 2.34), perl:any | perl-base, a|b"),
                       [["libc6"], ["perl", "perl-base"], ["a", "b"]])

        let rule = DebianPackageRule(listed: ["top"], database: database)
        let uses = [ProjectUse(.program, "deep-tool", at: "Tests/A.swift:1"), ProjectUse(.program, "other-tool", at: "Tests/A.swift:2"),
                    ProjectUse(.program, "other-tool", at: "Tests/B.swift:9"), ProjectUse(.program, "sh", at: "Tests/A.swift:3"),
                    ProjectUse(.element, "bin", at: "Sources/X.swift:4"), ProjectUse(.element, "lost", at: "pipelines/p.pipeline:5"),
                    ProjectUse(.program, "ffmpeg", at: "Tests/C.swift:6")]
        let origins: [ProjectUse.Subject: Origin] = [
            uses[0].subject: .package("deep"), uses[1].subject: .package("other"), uses[3].subject: .package("base"),
            uses[4].subject: .builtIn, uses[5].subject: .notInstalled, uses[6].subject: .unpackaged("/usr/local/bin/ffmpeg"),
        ]
        XCTAssertEqual(rule.violations(uses, origins: origins), [
            "element lost (pipelines/p.pipeline:5) is not installed: no package in the Makefile's DEB_PACKAGES "
                + "(nor their dependencies) ships it; add the Debian package that does",
            "program ffmpeg (Tests/C.swift:6) is /usr/local/bin/ffmpeg, which no Debian package ships: "
                + "install it from Debian and add its package to DEB_PACKAGES",
            "program other-tool (Tests/A.swift:2, Tests/B.swift:9) comes from other, which the Makefile does not install "
                + "(not in DEB_PACKAGES, nor a Depends/Pre-Depends of one): add other to DEB_PACKAGES",
        ])
        var broken = rule
        broken.listed.append("absent")
        XCTAssertEqual(broken.violations([], origins: [:]),
                       ["DEB_PACKAGES lists absent, which is not installed: run `make deps` (or correct the name)"])
    }

    func testTheMakefileListIsReadWithItsContinuationLines() {
        let makefile = "X = 1\nDEB_PACKAGES = \\\n\tpkg-config \\\n\tcurl libfoo-dev  # the HTTP client\nOTHER = no\nDEB_PACKAGES += extra\n"
        XCTAssertEqual(DebianPackageRule.listedPackages(inMakefile: makefile), ["pkg-config", "curl", "libfoo-dev", "extra"])
    }

    /// Programs are what the code starts (runTool, PlumbProcess.tool, a bin path), not words
    /// in messages; elements are where an element must be, or an installed element's name.
    func testSwiftUsesAreFoundWhereTheCodeNamesThem() {
        let source = ##"""
            let a = try runTool("ffprobe", ["-v", "error"])
            let b = PlumbProcess.tool("curl")
            let c = try ChildProcess("/usr/bin/dbus-daemon", ["--session"])
            let d = URL(fileURLWithPath: "/usr/sbin/some-daemon")
            XCTFail("free size: the tool ran out")  // "runTool(" in a comment: "commented"
            /* runTool("blocked") */
            let e = try IndependentReaders.exiftool("Rotation", path)
            let f = unit.replacingOccurrences(of: "/usr/bin/plumb", with: binary.path)
            let g = try Element(factory: "videotestsrc", name: "src")
            if Gst.hasElement("timeoverlay") { print("overlay") }
            let h = try Element(factory: "no-such-element-plumb")
            let encoders = ["x264enc", "openh264enc"]
            let i = "\(flag ? "jpegenc" : "x") could not link videotestsrc to audioconvert"
            let j = #"raw "h264parse" \#(k) tee"#
            let l = """
                queue
                """
            """##
        let finder = ProjectUseFinder(knownElements: ["videotestsrc", "timeoverlay", "x264enc", "jpegenc", "queue", "audioconvert",
                                                      "h264parse", "tee"],
                                      ownPrograms: ["plumb"], shellBuiltins: [])
        let uses = finder.uses(inSwift: source, file: "Sources/S.swift")
        XCTAssertEqual(uses.filter { $0.subject.kind == .program }.map { "\($0.subject.name)@\($0.place)" },
                       ["ffprobe@Sources/S.swift:1", "curl@Sources/S.swift:2", "dbus-daemon@Sources/S.swift:3",
                        "some-daemon@Sources/S.swift:4"])
        XCTAssertEqual(uses.filter { $0.subject.kind == .element }.map { "\($0.subject.name)@\($0.place)" },
                       ["videotestsrc@Sources/S.swift:9", "timeoverlay@Sources/S.swift:10", "x264enc@Sources/S.swift:12",
                        "jpegenc@Sources/S.swift:13", "queue@Sources/S.swift:15"])
        // In a test, a list of element names is no use of them (VideoOnlyTests lists those forbidden).
        XCTAssertEqual(finder.uses(inSwift: source, file: "Tests/S.swift").filter { $0.subject.kind == .element }.map(\.subject.name),
                       ["videotestsrc", "timeoverlay"])
        let literals = SwiftStringLiteral.all(in: source)
        XCTAssertEqual(literals.first { $0.line == 14 }?.text, "raw \"h264parse\" \u{1} tee")
        XCTAssertFalse(literals.contains { $0.text == "commented" || $0.text == "blocked" }, "comments hold no literals")
        XCTAssertEqual(literals.first { $0.text == "ffprobe" }?.before, "let a = try runTool(")
    }

    /// In a launch description: the start, each line's start, after `!` and after `( `;
    /// caps, pads, properties and variables are no elements.
    func testElementsInALaunchDescription() {
        XCTAssertEqual(ProjectUseFinder.elementsInDescription(
            "videotestsrc ! video/x-raw,width=(int)320 ! tee name=t t. ! queue ! fakesink t. ! ( queue ! fakesink )"),
                       ["videotestsrc", "tee", "queue", "fakesink", "queue", "fakesink"])
        XCTAssertEqual(ProjectUseFinder.elementsInDescription("# name: x\nvideotestsrc\n  pattern=ball ! ${sink}\n  ! jpegenc\n"),
                       ["videotestsrc", "jpegenc"])
        XCTAssertEqual(ProjectUseFinder.elementsInDescription("consumers: rtspsrc ! fakesink:"), [])

        let pipeline = """
            # var: source=videotestsrc is-live=true pattern=ball
            # `plumb run x.pipeline -D sink=autovideosink` shows it
            ${source} name=src
              ! video/x-raw,width=${width}
              ! timeoverlay
              ! tee name=tee
              ! queue ! fakesink
            """
        let finder = ProjectUseFinder(knownElements: ["videotestsrc", "autovideosink"], ownPrograms: [], shellBuiltins: [])
        XCTAssertEqual(finder.uses(inPipeline: pipeline, file: "p").map { "\($0.subject.name)@\($0.place)" },
                       ["videotestsrc@p:1", "autovideosink@p:2", "timeoverlay@p:5", "tee@p:6", "queue@p:7", "fakesink@p:7"])
    }

    /// A script's commands: not its functions, builtins, quoted text or arithmetic.
    func testCommandsOfAShellScript() throws {
        let script = #"""
            #!/usr/bin/env bash
            set -euo pipefail
            dir=$(mktemp -d)
            fds() { ls "/proc/$pid/fd" | wc -l; }
            for _ in $(seq 3); do grep -q ready "$dir/log" && break; sleep 0.1; done
            echo "memory: $(free -m | awk '{print $2}')"
            echo "(size) free text; not a command" >&2
            url=$(sed -n 's/x)/y/p' "$dir/log") count=$((1 + (2 * 3)))
            "$plumb" serve --listen 127.0.0.1:0 2>"$dir/log" &
            curl -s -o /dev/null \
                "$url/status"
            trap 'kill "$pid"; rm -rf "$dir"' EXIT
            fds
            """#
        let finder = try ProjectUseFinder.forThisMachine(root: root, knownElements: [])
        XCTAssertTrue(finder.ownPrograms.isSuperset(of: ["plumb", "plumb-bench"]), "\(finder.ownPrograms)")
        XCTAssertTrue(finder.shellBuiltins.isSuperset(of: ["echo", "set", "trap", "break", "kill", "["]))
        XCTAssertEqual(finder.uses(inShellScript: script, file: "b.sh").map { "\($0.subject.name)@\($0.place)" },
                       ["mktemp@b.sh:3", "ls@b.sh:4", "wc@b.sh:4", "seq@b.sh:5", "grep@b.sh:5", "sleep@b.sh:5",
                        "free@b.sh:6", "awk@b.sh:6", "sed@b.sh:8", "curl@b.sh:10"])
    }

    /// A bench script's programs (argument lists given to a call, bin paths) and, for
    /// Debian's Python, its imports less the bench's own modules.
    func testUsesOfAPythonScript() {
        let script = #"""
            #!/usr/bin/python3
            import json, os.path as p, sys
            from matplotlib import pyplot
            import benchlib
            from benchlib import result
            subprocess.run(["ffmpeg", "-i", x]); measured([plumb, "run"]); sizes = ["320x240"]
            driver = Chrome(binary="/usr/bin/chromium")
            """#
        let finder = ProjectUseFinder(knownElements: [], ownPrograms: ["plumb"], shellBuiltins: [])
        XCTAssertEqual(finder.uses(inPython: script, file: "b.py", ownModules: ["benchlib"]).map { "\($0.subject)@\($0.place)" },
                       ["python module json@b.py:2", "python module os@b.py:2", "python module sys@b.py:2",
                        "python module matplotlib@b.py:3", "program ffmpeg@b.py:6", "program chromium@b.py:7"])
        // Without the shebang the script runs in a venv (PyPI's modules): only its programs count.
        XCTAssertEqual(finder.uses(inPython: String(script.drop { $0 != "\n" }), file: "b.py", ownModules: []).map(\.subject.name),
                       ["ffmpeg", "chromium"])
    }

    /// Debian's python3-matplotlib draws make bench's charts: the rule names its package.
    func testAPythonModuleIsTracedToItsPackage() throws {
        let origins = try InstalledOrigins(elementPlugins: [:]).origins(of: [
            ProjectUse.Subject(kind: .pythonModule, name: "matplotlib"), ProjectUse.Subject(kind: .pythonModule, name: "sys"),
            ProjectUse.Subject(kind: .pythonModule, name: "no_such_module_plumb"),
        ])
        XCTAssertEqual(origins[ProjectUse.Subject(kind: .pythonModule, name: "matplotlib")], .package("python3-matplotlib"))
        XCTAssertEqual(origins[ProjectUse.Subject(kind: .pythonModule, name: "sys")], .builtIn)
        XCTAssertEqual(origins[ProjectUse.Subject(kind: .pythonModule, name: "no_such_module_plumb")], .notInstalled)
    }

    /// The uses in the tree, this machine's database and origins, and the Makefile's list.
    struct Check {
        var uses: [ProjectUse]
        var origins: [ProjectUse.Subject: Origin]
        var rule: DebianPackageRule
        var installed: InstalledOrigins

        /// Read once for the tests here (asking gst-inspect-1.0 and dpkg takes seconds).
        static let shared = Result { try Check(root: PlumbProcess.root) }

        init(root: URL) throws {
            installed = try InstalledOrigins.read()
            let finder = try ProjectUseFinder.forThisMachine(root: root, knownElements: installed.knownElements)
            uses = try finder.uses(inTree: root)
            origins = try installed.origins(of: Set(uses.map(\.subject)))
            let makefile = try String(contentsOf: root.appendingPathComponent("Makefile"), encoding: .utf8)
            rule = DebianPackageRule(listed: DebianPackageRule.listedPackages(inMakefile: makefile),
                                     database: try DebianPackageDatabase.installed())
        }

        /// The check on a machine like this one without `element`: GStreamer does not know
        /// it, so only the places where an element must be name it.
        func hiding(_ element: String, root: URL) throws -> Check {
            var check = self
            check.installed.elementPlugins[element] = nil
            let finder = try ProjectUseFinder.forThisMachine(root: root, knownElements: check.installed.knownElements)
            check.uses = try finder.uses(inTree: root)
            let subject = ProjectUse.Subject(kind: .element, name: element)
            check.origins.merge(try check.installed.origins(of: [subject])) { $1 }
            return check
        }
    }
}
