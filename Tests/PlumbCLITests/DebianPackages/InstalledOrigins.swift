import Foundation
import PlumbTestSupport

/// Where an element, a program or a Python module comes from on this machine.
enum Origin: Equatable {
    /// A file of this installed Debian package.
    case package(String)
    /// An element of GStreamer's core library itself (`bin`, `pipeline`), or a module built
    /// into Python (`sys`): no file of its own.
    case builtIn
    /// No such element or program here.
    case notInstalled
    /// A file that no Debian package ships (`/usr/local/bin/ffmpeg`).
    case unpackaged(String)
}

/// Finds each element's plugin file (`gst-inspect-1.0`) and each program's file (the bin
/// folders, then PATH), and the Debian package that ships the file (`dpkg -S`).
struct InstalledOrigins {
    /// Element factory -> its plugin's name, for every element installed here.
    var elementPlugins: [String: String]

    static func read() throws -> InstalledOrigins {
        // "coreelements:  fakesink: Fake Sink"; tracers and device providers have "(GstXFactory)".
        var plugins: [String: String] = [:]
        for line in try runTool("gst-inspect-1.0", []).split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 2).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 3, parts[0] != "typefindfunctions", !parts[1].contains(" ") else { continue }
            plugins[parts[1]] = parts[0]
        }
        return InstalledOrigins(elementPlugins: plugins)
    }

    var knownElements: Set<String> { Set(elementPlugins.keys) }

    func origins(of subjects: Set<ProjectUse.Subject>) throws -> [ProjectUse.Subject: Origin] {
        var files: [ProjectUse.Subject: String] = [:]
        var result: [ProjectUse.Subject: Origin] = [:]
        var pluginFiles: [String: String?] = [:]
        let modules = try Self.pythonModuleFiles(subjects.filter { $0.kind == .pythonModule }.map(\.name))
        for subject in subjects {
            switch subject.kind {
            case .element:
                guard let plugin = elementPlugins[subject.name] else { result[subject] = .notInstalled; continue }
                if pluginFiles[plugin] == nil { pluginFiles[plugin] = try Self.pluginFile(plugin) }
                if let file = pluginFiles[plugin] ?? nil { files[subject] = file } else { result[subject] = .builtIn }
            case .program:
                if let file = Self.programFile(subject.name) { files[subject] = file } else { result[subject] = .notInstalled }
            case .pythonModule:
                switch modules[subject.name] ?? nil {
                case nil: result[subject] = .notInstalled
                case "built-in", "frozen": result[subject] = .builtIn
                case let file?: files[subject] = file
                }
            }
        }
        let owners = try Self.owners(of: Set(files.values.flatMap(Self.candidates)))
        for (subject, file) in files {
            result[subject] = Self.candidates(file).lazy.compactMap { owners[$0] }.first.map(Origin.package) ?? .unpackaged(file)
        }
        return result
    }

    /// Module -> the file Debian's Python imports it from ("built-in" or "frozen" for those
    /// in the interpreter; nil when it cannot import it, or there is no /usr/bin/python3).
    static func pythonModuleFiles(_ names: [String]) throws -> [String: String?] {
        guard !names.isEmpty else { return [:] }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            return Dictionary(uniqueKeysWithValues: names.map { ($0, nil) })
        }
        let script = """
            import importlib.util, sys
            for name in sys.argv[1:]:
                try:
                    spec = importlib.util.find_spec(name)
                except Exception:
                    spec = None
                print(name, (spec.origin or "") if spec else "")
            """
        var files: [String: String?] = [:]
        for line in try runTool("/usr/bin/python3", ["-I", "-c", script] + names).split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            files[parts[0]] = parts.count > 1 && !parts[1].isEmpty ? parts[1] : nil
        }
        return files
    }

    /// The plugin's file, or nil for the core library's own elements.
    static func pluginFile(_ plugin: String) throws -> String? {
        for line in try runTool("gst-inspect-1.0", [plugin]).split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.first == "Filename", let path = words.dropFirst().first, path.hasPrefix("/") { return String(path) }
        }
        return nil
    }

    /// The program's file: in the system's bin folders first, where Debian puts programs,
    /// then anywhere on PATH (where a file no package ships is found, to be named).
    static func programFile(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map(String.init) ?? []
        for folder in ["/usr/sbin", "/usr/bin", "/sbin", "/bin"] + path {
            let file = (folder as NSString).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: file) { return file }
        }
        return nil
    }

    /// The names dpkg may know a file by: its real path and the path given, each also with
    /// or without the `/usr` that merged-/usr systems add (/bin/df is /usr/bin/df).
    static func candidates(_ file: String) -> [String] {
        var paths: [String] = []
        if let real = realpath(file, nil) {
            paths.append(String(cString: real))
            free(real)
        }
        paths.append(file)
        for path in paths {
            let parts = path.split(separator: "/", omittingEmptySubsequences: true)
            let merged: Set<Substring> = ["bin", "sbin", "lib", "lib32", "lib64", "libx32"]
            if parts.first == "usr", parts.count > 2, merged.contains(parts[1]) {
                paths.append("/" + parts.dropFirst().joined(separator: "/"))
            } else if let first = parts.first, merged.contains(first) {
                paths.append("/usr" + path)
            }
        }
        var seen = Set<String>()
        return paths.filter { seen.insert($0).inserted }
    }

    /// File -> the package that ships it, for those of `files` that dpkg knows.
    static func owners(of files: Set<String>) throws -> [String: String] {
        guard !files.isEmpty else { return [:] }
        // dpkg -S exits 1 when any file is unknown, and still lists the others.
        let r = try PlumbProcess.run(PlumbProcess.tool("dpkg"), ["-S"] + files.sorted())
        var owners: [String: String] = [:]
        for line in r.stdout.split(separator: "\n") where !line.hasPrefix("diversion ") {
            guard let colon = line.range(of: ": /") else { continue }
            let file = String(line[line.index(after: colon.lowerBound)...]).trimmingCharacters(in: .whitespaces)
            let package = line[..<colon.lowerBound].split(separator: ",").first.map {
                String($0.trimmingCharacters(in: .whitespaces).prefix { $0 != ":" })
            }
            if files.contains(file), let package { owners[file] = package }
        }
        return owners
    }
}
