/// The rule a fresh machine needs: every element and program the project uses comes from
/// a Debian package that the Makefile's DEB_PACKAGES installs — listed, or a Depends or
/// Pre-Depends of one listed, recursively — or that every Debian system has (Essential,
/// or Priority required).
struct DebianPackageRule {
    /// DEB_PACKAGES as the Makefile sets it.
    var listed: [String]
    var database: DebianPackageDatabase

    /// One line for each element or program that breaks the rule, and for each listed
    /// package that is not installed; empty when all is well.
    func violations(_ uses: [ProjectUse], origins: [ProjectUse.Subject: Origin]) -> [String] {
        let (installed, missing) = database.closure(of: listed)
        var lines = missing.map { "DEB_PACKAGES lists \($0), which is not installed: run `make deps` (or correct the name)" }
        let places = Dictionary(grouping: uses, by: \.subject).mapValues { Self.summary(of: $0.map(\.place)) }
        for (subject, named) in places.sorted(by: { $0.key < $1.key }) {
            switch origins[subject] ?? .notInstalled {
            case .builtIn:
                continue
            case .notInstalled:
                lines.append("\(subject) (\(named)) is not installed: no package in the Makefile's DEB_PACKAGES "
                             + "(nor their dependencies) ships it; add the Debian package that does")
            case .unpackaged(let file):
                lines.append("\(subject) (\(named)) is \(file), which no Debian package ships: "
                             + "install it from Debian and add its package to DEB_PACKAGES")
            case .package(let package):
                if installed.contains(package) || database.packages[package]?.isOnEverySystem == true { continue }
                lines.append("\(subject) (\(named)) comes from \(package), which the Makefile does not install "
                             + "(not in DEB_PACKAGES, nor a Depends/Pre-Depends of one): add \(package) to DEB_PACKAGES")
            }
        }
        return lines
    }

    /// The first place in each file, the code's before the tests', at most four files.
    static func summary(of places: [String]) -> String {
        var firstInFile: [String: (line: Int, place: String)] = [:]
        for place in places {
            let file = String(place.prefix { $0 != ":" })
            let line = Int(place.split(separator: ":").last ?? "") ?? 0
            if let seen = firstInFile[file], seen.line <= line { continue }
            firstInFile[file] = (line, place)
        }
        let rank = { (file: String) in file.hasPrefix("Tests/") ? 1 : 0 }
        let files = firstInFile.keys.sorted { (rank($0), $0) < (rank($1), $1) }
        let shown = files.prefix(4).map { firstInFile[$0]!.place }.joined(separator: ", ")
        return files.count > 4 ? shown + " and \(files.count - 4) more files" : shown
    }

    /// The words of every `DEB_PACKAGES =` (or `:=`, `?=`, `+=`) assignment in a Makefile,
    /// with its `\` continuation lines, less comments.
    static func listedPackages(inMakefile text: String) -> [String] {
        var names: [String] = []
        let joined = text.replacingOccurrences(of: "\\\n", with: " ")
        for line in joined.components(separatedBy: "\n") {
            guard let m = line.firstMatch(of: /^\s*DEB_PACKAGES\s*(\+|:|\?|::)?=(.*)$/) else { continue }
            let value = m.2.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            if m.1 != "+" { names = [] }
            names += value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        }
        return names
    }
}
