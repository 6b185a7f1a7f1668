import Foundation
import PlumbTestSupport

/// The installed Debian packages as dpkg records them: each one's Depends and Pre-Depends
/// (Recommends are left out: `make deps` installs with `--no-install-recommends`), what it
/// Provides, and whether every Debian system has it (Essential, or Priority required).
///
/// Read from dpkg's own database, not from apt's lists: after `make deps` it says exactly
/// which alternative of an `a | b` dependency was installed, and it needs no network.
struct DebianPackageDatabase {
    struct Package: Equatable {
        var name: String
        /// Essential: yes, or Priority: required.
        var isOnEverySystem: Bool
        var provides: [String]
        /// Pre-Depends and Depends: each clause's alternatives, in order.
        var depends: [[String]]
    }

    var packages: [String: Package] {
        didSet { providedBy = Self.index(packages) }
    }
    /// Virtual package -> the installed packages that provide it.
    private var providedBy: [String: [String]]

    init(packages: [String: Package]) {
        self.packages = packages
        providedBy = Self.index(packages)
    }

    private static func index(_ packages: [String: Package]) -> [String: [String]] {
        var index: [String: [String]] = [:]
        for package in packages.values {
            for name in package.provides { index[name, default: []].append(package.name) }
        }
        return index.mapValues { $0.sorted() }
    }

    /// The fields `parse` reads, one package a line, tab-separated.
    static let queryFormat = "${Package}\\t${db:Status-Abbrev}\\t${Essential}\\t${Priority}\\t${Provides}\\t${Pre-Depends}\\t${Depends}\\n"

    /// The packages of `dpkg-query -W -f=queryFormat` that are installed.
    static func parse(_ output: String) -> DebianPackageDatabase {
        var packages: [String: Package] = [:]
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 7, fields[1].hasPrefix("ii") else { continue }
            packages[fields[0]] = Package(name: fields[0], isOnEverySystem: fields[2] == "yes" || fields[3] == "required",
                                          provides: clauses(fields[4]).flatMap { $0 },
                                          depends: clauses(fields[5]) + clauses(fields[6]))
        }
        return DebianPackageDatabase(packages: packages)
    }

    /// This machine's database.
    static func installed() throws -> DebianPackageDatabase {
        parse(try runTool("dpkg-query", ["-W", "-f=\(queryFormat)"]))
    }

    /// `libc6 (>= 2.34), perl:any | perl-base` -> [["libc6"], ["perl", "perl-base"]].
    static func clauses(_ field: String) -> [[String]] {
        field.split(separator: ",").map { clause in
            clause.split(separator: "|").map { alternative in
                let name = alternative.trimmingCharacters(in: .whitespaces).prefix { $0 != " " && $0 != "(" && $0 != ":" }
                return String(name)
            }.filter { !$0.isEmpty }
        }.filter { !$0.isEmpty }
    }

    /// The installed packages that provide `name`: itself if installed, and those whose
    /// Provides name it (a virtual package).
    func providers(of name: String) -> [String] {
        (packages[name] != nil ? [name] : []) + (providedBy[name] ?? []).filter { $0 != name }
    }

    /// `names` and what they need, recursively: for each dependency the first alternative
    /// that is installed (as apt chose it). `missing` lists the names that are not installed.
    func closure(of names: [String]) -> (packages: Set<String>, missing: [String]) {
        var reached = Set<String>()
        var missing: [String] = []
        var queue = names
        for name in names where packages[name] == nil { missing.append(name) }
        while let name = queue.popLast() {
            guard let package = packages[name], reached.insert(name).inserted else { continue }
            for clause in package.depends {
                guard let chosen = clause.lazy.map(providers(of:)).first(where: { !$0.isEmpty }) else { continue }
                queue += chosen
            }
        }
        return (reached, missing)
    }
}
