/// A GStreamer element, a program or a Python module (of Debian's /usr/bin/python3) that
/// the project's code, tests, shipped pipelines or bench scripts use, and where (`Sources/Plumb/Session/CaptureSession.swift:328`).
struct ProjectUse: Hashable {
    /// What is used, wherever it is.
    struct Subject: Hashable, Comparable, CustomStringConvertible {
        enum Kind: String { case element, program, pythonModule = "python module" }
        var kind: Kind
        var name: String

        var description: String { "\(kind.rawValue) \(name)" }
        static func < (a: Subject, b: Subject) -> Bool { (a.kind.rawValue, a.name) < (b.kind.rawValue, b.name) }
    }

    var subject: Subject
    var place: String

    init(_ kind: Subject.Kind, _ name: String, at place: String) {
        subject = Subject(kind: kind, name: name)
        self.place = place
    }
}
