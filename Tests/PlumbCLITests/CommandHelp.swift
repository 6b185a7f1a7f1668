import Foundation

/// Reads `plumb --help` texts and the README's command table, for the test that keeps the
/// two in step: the commands, each one's options, its Usage line and its README synopsis.
enum CommandHelp {
    /// The command names listed under "Commands:" in `plumb --help`.
    static func commands(inTopLevelHelp help: String) -> [String] {
        var names: [String] = []
        var inList = false
        for line in help.components(separatedBy: "\n") {
            if line == "Commands:" { inList = true; continue }
            guard inList else { continue }
            if line.trimmingCharacters(in: .whitespaces).isEmpty { break }
            if line.hasPrefix("  "), let name = line.split(separator: " ").first { names.append(String(name)) }
        }
        return names
    }

    /// The options a help text describes: every line that starts, indented by two spaces,
    /// with `-x` or `--name` (deeper lines continue a description). In order, once each.
    static func options(in help: String) -> [String] {
        var seen: [String] = []
        for line in help.components(separatedBy: "\n") {
            guard let match = line.firstMatch(of: /^  (-{1,2}[A-Za-z][A-Za-z0-9-]*)/) else { continue }
            let option = String(match.1)
            if !seen.contains(option) { seen.append(option) }
        }
        return seen
    }

    /// The synopsis after "Usage: ", up to the first blank line, on one line.
    static func usage(in help: String) -> String {
        var lines: [String] = []
        for line in help.components(separatedBy: "\n") {
            if lines.isEmpty {
                if let start = line.range(of: "Usage: ") { lines.append(String(line[start.upperBound...])) }
            } else if line.trimmingCharacters(in: .whitespaces).isEmpty {
                break
            } else {
                lines.append(line)
            }
        }
        return lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }

    /// Whether `text` names `option` as a whole word (`--settle` is not in `--settle-frames`).
    static func mentions(_ text: String, _ option: String) -> Bool {
        optionWords(in: text).contains(option)
    }

    /// Every `-x` / `--name` word in `text`.
    static func optionWords(in text: String) -> [String] {
        text.matches(of: /(?:^|[^A-Za-z0-9-])(-{1,2}[A-Za-z][A-Za-z0-9-]*)/).map { String($0.output.1) }
    }

    /// The first cell of the README table row for `plumb COMMAND ...` (nil: the row for
    /// plain `plumb --version`), without backticks and with `\|` read as `|`.
    static func readmeSynopsis(of command: String?, in readme: String) -> String? {
        let starts = command.map { ["| `plumb \($0) ", "| `plumb \($0)`"] } ?? ["| `plumb --"]
        guard let row = readme.components(separatedBy: "\n").first(where: { line in starts.contains { line.hasPrefix($0) } })
        else { return nil }
        // Cells are split at a `|` that is not escaped as `\|`.
        var cell = ""
        var escaped = false
        for character in row.dropFirst() {
            if escaped {
                if character != "|" { cell.append("\\") }
                cell.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "|" {
                break
            } else {
                cell.append(character)
            }
        }
        return cell.replacingOccurrences(of: "`", with: "").trimmingCharacters(in: .whitespaces)
    }
}
