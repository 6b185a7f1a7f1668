import Foundation
import PlumbTestSupport

/// Finds the GStreamer elements and the programs that the project uses, where it names them:
///
/// - Swift (Sources/, Tests/): a program is the literal given to `runTool(` or `tool(`
///   (PlumbProcess.tool), or a literal that is a whole path in a bin folder (`"/usr/bin/curl"`,
///   for Process, ChildProcess and the like) — the ways the code starts programs, so words
///   in messages ("free", "size") never count. An element is the literal after `factory:` or
///   `hasElement(`, or a word at an element's place in a launch description (a literal
///   with ` ! `: its start, a line's start, after `!` or `( `); in Sources/ also a literal
///   that is, or starts with, an installed element's name (`["x264enc", "openh264enc"]`,
///   `"videoflip name=preview_flip"`). The tests name elements they must not use too.
/// - pipelines/*.pipeline: every element of the description; in its comments and
///   `# var:` defaults, every installed element's name.
/// - bench/*.sh: the commands the scripts run (`ShellCommandWords`), less bash's builtins;
///   bench/**/*.pipeline as pipelines/.
/// - bench/*.py: a program is the first item of an argument list given straight to a call
///   (`Popen(["ffmpeg", ...`) or a whole path in a bin folder; a script for Debian's Python
///   (`#!/usr/bin/python3`) also uses the modules it imports, less the bench's own.
///
/// Elements named where an element must be are reported even when not installed (a fresh
/// machine without their package); elsewhere only installed elements' names count.
struct ProjectUseFinder {
    /// Names the tests use on purpose to provoke "no such element" errors.
    /// The last five are GStreamer's own parse-launch test's (LaunchCorpusTests).
    static let deliberatelyMissingElements: Set<String> = ["no-such-element-plumb", "nosuchelement", "nosuch",
                                                           "bogusenc", "coffeesink", "goomux", "goosink", "sgsdfagfd"]

    /// The hardware elements the tests register themselves as stand-ins (PlumbTests'
    /// HardwareStandIns, Tests/CStandIns): in Tests/ no package need ship them.
    /// Elements a board's own packages bring and Plumb uses only when they are there
    /// (checked with `Gst.hasElement` first): libcamerasrc from gstreamer1.0-libcamera on
    /// Raspberry Pi OS. No package here need ship them; the tests use stand-ins.
    static let boardElements: Set<String> = ["libcamerasrc"]

    /// parsetestelement: the element GStreamer's parse-launch test registers (Tests/CStandIns/LatePadBin.c).
    static let testStandIns: Set<String> = ["v4l2h264enc", "v4l2h265enc", "vah264enc", "vah265enc", "v4l2jpegdec",
                                            "parsetestelement"]

    /// The Swift toolchain's programs: every machine has the toolchain at /opt/swift, outside Debian.
    static let toolchainPrograms: Set<String> = ["swift"]

    /// The element factories installed here (`gst-inspect-1.0`).
    var knownElements: Set<String>
    /// The package's own executables (`plumb`, `plumb-bench`), which no Debian package ships.
    var ownPrograms: Set<String>
    /// bash's builtins and keywords, which a script runs without a program.
    var shellBuiltins: Set<String>

    /// The finder for this machine: its installed elements, bash's builtins, and the
    /// executables the package manifest at `root` declares.
    static func forThisMachine(root: URL, knownElements: Set<String>) throws -> ProjectUseFinder {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let builtins = try runTool("bash", ["-c", "compgen -b; compgen -k"]).split(separator: "\n").map(String.init)
        return ProjectUseFinder(knownElements: knownElements, ownPrograms: executables(inManifest: manifest).union(toolchainPrograms),
                                shellBuiltins: Set(builtins))
    }

    /// The names of the manifest's `.executable(name: "...")` products.
    static func executables(inManifest manifest: String) -> Set<String> {
        Set(SwiftStringLiteral.all(in: manifest).filter { $0.before.hasSuffix(".executable(name: ") }.map(\.text))
    }

    /// Every use in the tree at `root`, places relative to it.
    func uses(inTree root: URL) throws -> [ProjectUse] {
        var found: [ProjectUse] = []
        for folder in ["Sources", "Tests"] {
            for file in try files(under: root.appendingPathComponent(folder), ending: ".swift", root: root) {
                found += uses(inSwift: try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8), file: file)
            }
        }
        for folder in ["pipelines", "bench"] {
            for file in try files(under: root.appendingPathComponent(folder), ending: ".pipeline", root: root) {
                found += uses(inPipeline: try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8), file: file)
            }
        }
        let scripts = try files(under: root.appendingPathComponent("bench"), ending: ".py", root: root)
        let own = Set(scripts.map { (($0 as NSString).lastPathComponent as NSString).deletingPathExtension })
        for file in scripts {
            found += uses(inPython: try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8), file: file,
                          ownModules: own)
        }
        for file in try files(under: root.appendingPathComponent("bench"), ending: ".sh", root: root) {
            found += uses(inShellScript: try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8), file: file)
        }
        return found
    }

    func uses(inSwift source: String, file: String) -> [ProjectUse] {
        // The tests also name elements they must not use (VideoOnlyTests' audio elements):
        // there only the places where an element must be count.
        let inSources = file.hasPrefix("Sources/")
        var found: [ProjectUse] = []
        for literal in SwiftStringLiteral.all(in: source) {
            let place = "\(file):\(literal.line)"
            let text = literal.text
            let before = String(literal.before.reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
            // Plain string checks, not Regex: there are thousands of literals.
            let isName = Self.isName(text)
            if isName, Self.startsAProgram(before), !ownPrograms.contains(text) {
                found.append(ProjectUse(.program, text, at: place))
            } else if let program = Self.programInBinFolder(text), !ownPrograms.contains(program) {
                found.append(ProjectUse(.program, program, at: place))
            }
            if isName, before.hasSuffix("factory:") || before.hasSuffix("hasElement(") {
                if !Self.deliberatelyMissingElements.contains(text), !Self.boardElements.contains(text),
                   inSources || !Self.testStandIns.contains(text) {
                    found.append(ProjectUse(.element, text, at: place))
                }
            } else if inSources, let first = Self.firstWord(text), knownElements.contains(first) {
                found.append(ProjectUse(.element, first, at: place))
            }
            if text.contains(" ! ") || text.hasPrefix("! ") {
                for name in Self.elementsInDescription(text)
                where !Self.deliberatelyMissingElements.contains(name) && (inSources || !Self.testStandIns.contains(name)) {
                    found.append(ProjectUse(.element, name, at: place))
                }
            }
        }
        return found
    }

    func uses(inPipeline text: String, file: String) -> [ProjectUse] {
        var found: [ProjectUse] = []
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            let place = "\(file):\(index + 1)"
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("#") {
                for word in line.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
                where knownElements.contains(String(word)) {
                    found.append(ProjectUse(.element, String(word), at: place))
                }
            } else {
                for name in Self.elementsInDescription(line) {
                    found.append(ProjectUse(.element, name, at: place))
                }
            }
        }
        return found
    }

    func uses(inShellScript text: String, file: String) -> [ProjectUse] {
        ShellCommandWords.commands(in: text).compactMap { word in
            let name = word.name.hasPrefix("./") ? String(word.name.dropFirst(2)) : word.name
            guard !shellBuiltins.contains(name), !ownPrograms.contains((name as NSString).lastPathComponent),
                  name.firstMatch(of: /^[A-Za-z0-9_.+\/-]+$/) != nil
            else { return nil }
            return ProjectUse(.program, name, at: "\(file):\(word.line)")
        }
    }

    func uses(inPython text: String, file: String, ownModules: Set<String>) -> [ProjectUse] {
        var found: [ProjectUse] = []
        let debianPython = text.hasPrefix("#!/usr/bin/python3")
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            let place = "\(file):\(index + 1)"
            for m in line.matches(of: /\(\s*\[\s*"([A-Za-z][A-Za-z0-9_.+-]*)"\s*[,\]]/) {
                let name = String(m.1)
                if !ownPrograms.contains(name) { found.append(ProjectUse(.program, name, at: place)) }
            }
            for m in line.matches(of: /"(\/[^"]+)"/) {
                if let program = Self.programInBinFolder(String(m.1)), !ownPrograms.contains(program) {
                    found.append(ProjectUse(.program, program, at: place))
                }
            }
            guard debianPython else { continue }
            var modules: [Substring] = []
            if let m = line.firstMatch(of: /^\s*import\s+([A-Za-z0-9_., ]+)/) {
                modules = m.1.split(separator: ",").compactMap { $0.split(separator: " ").first?.split(separator: ".").first }
            } else if let m = line.firstMatch(of: /^\s*from\s+([A-Za-z0-9_]+)[A-Za-z0-9_.]*\s+import\s/) {
                modules = [m.1]
            }
            for module in modules where !ownModules.contains(String(module)) {
                found.append(ProjectUse(.pythonModule, String(module), at: place))
            }
        }
        return found
    }

    /// `ffprobe`, `gst-launch-1.0`, `avdec_h264`: a letter, then letters, digits and `_.+-`.
    static func isName<S: StringProtocol>(_ text: S) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_.+-".unicodeScalars.contains($0)) }
    }

    /// Code ending in `runTool(` or a call of a function named `tool(` (PlumbProcess.tool).
    static func startsAProgram(_ before: String) -> Bool {
        if before.hasSuffix("runTool(") { return true }
        guard before.hasSuffix("tool(") else { return false }
        guard let previous = before.dropLast(5).last else { return true }
        return !(previous.isLetter || previous.isNumber || previous == "_")
    }

    /// The literal's first word when the literal is one word or the word is followed by a
    /// space: `"x264enc"`, `"videoflip name=preview_flip"`.
    static func firstWord(_ text: String) -> String? {
        let word = text.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
        guard let first = word.first, first.isLetter else { return nil }
        let rest = text.dropFirst(word.count)
        return rest.isEmpty || rest.first == " " ? String(word) : nil
    }

    /// `/usr/bin/curl` -> `curl`: a whole path in a bin folder.
    static func programInBinFolder(_ text: String) -> String? {
        for folder in ["/usr/bin/", "/usr/sbin/", "/bin/", "/sbin/"] where text.hasPrefix(folder) {
            let name = text.dropFirst(folder.count)
            return isName(name) ? String(name) : nil
        }
        return nil
    }

    /// The words at an element's place in a gst-launch description: at its start, at a
    /// line's start, after `!`, or after a bin's `( `; a word followed by `/` (caps), `.`
    /// (a pad), `=` (a property), `:` or `$` is none.
    static func elementsInDescription(_ text: String) -> [String] {
        let c = Array(text)
        var names: [String] = []
        var i = 0
        var atElement = true
        while i < c.count {
            if atElement {
                while i < c.count, c[i] == " " || c[i] == "\t" { i += 1 }
                var j = i
                if j < c.count, c[j].isASCII, c[j].isLetter {
                    while j < c.count, c[j].isASCII, c[j].isLetter || c[j].isNumber || c[j] == "_" || c[j] == "-" { j += 1 }
                    if j == c.count || c[j] == " " || c[j] == "\t" || c[j] == "\n" || c[j] == "\r" {
                        names.append(String(c[i..<j]))
                    }
                }
                atElement = false
                i = max(j, i)
                continue
            }
            switch c[i] {
            case "!", "\n":
                atElement = true
            case "(":
                let opens = (i == 0 || c[i - 1] == " " || c[i - 1] == "\t" || c[i - 1] == "!" || c[i - 1] == "\n")
                atElement = opens && i + 1 < c.count && (c[i + 1] == " " || c[i + 1] == "\t")
            default:
                break
            }
            i += 1
        }
        return names
    }

    private func files(under folder: URL, ending suffix: String, root: URL) throws -> [String] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        let prefix = root.standardizedFileURL.path + "/"
        return walker.compactMap { ($0 as? URL)?.standardizedFileURL.path }
            .filter { $0.hasSuffix(suffix) }
            .map { $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : $0 }
            .sorted()
    }
}
