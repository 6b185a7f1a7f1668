import XCTest
import GLib

final class KeyFileTests: XCTestCase {
    func testGroupsKeysAndValuesInFileOrder() throws {
        let file = KeyFile()
        try file.load(text: """
            # comment
            [b]
            z = 1
            a = two words\\sand a tab\\t
            [a]
            key=value
            """)
        XCTAssertEqual(file.groups, ["b", "a"])
        XCTAssertEqual(file.keys(in: "b"), ["z", "a"])
        XCTAssertEqual(file.keys(in: "missing"), [])
        XCTAssertEqual(try file.string(group: "b", key: "a"), "two words and a tab\t")
        XCTAssertEqual(file.rawValue(group: "b", key: "a"), "two words\\sand a tab\\t")
        XCTAssertNil(try file.string(group: "b", key: "nope"))
        XCTAssertNil(try file.string(group: "nope", key: "z"))
        XCTAssertTrue(file.hasGroup("a"))
        XCTAssertFalse(file.hasGroup("c"))
    }

    func testSyntaxErrorIsAKeyFileParseError() {
        XCTAssertThrowsError(try KeyFile().load(text: "[g]\nnot a key value pair\n")) { error in
            let e = error as! GLibError
            XCTAssertEqual(e.domain, KeyFile.errorDomain)
            XCTAssertEqual(e.code, KeyFile.ErrorCode.parse.rawValue)
            XCTAssertTrue(e.message.contains("not a key value pair"), e.message)
        }
    }

    func testInvalidEscapeIsAnError() throws {
        let file = KeyFile()
        try file.load(text: "[g]\nk = bad\\qescape\nt = trailing\\\nspaces = 30  \n")
        for key in ["k", "t"] {
            XCTAssertThrowsError(try file.string(group: "g", key: key)) { error in
                XCTAssertEqual((error as! GLibError).code, KeyFile.ErrorCode.invalidValue.rawValue)
            }
        }
        XCTAssertEqual(try file.string(group: "g", key: "spaces"), "30  ", "GKeyFile keeps trailing blanks")
    }

    func testMissingFileIsAFileError() {
        XCTAssertThrowsError(try KeyFile().load(path: "/nonexistent/plumb.ini")) { error in
            XCTAssertEqual((error as! GLibError).domain, KeyFile.fileErrorDomain)
        }
    }

    func testWrittenTextReadsBack() throws {
        let file = KeyFile()
        file.setString(" spaced\nvalue", group: "g", key: "k")
        file.setComment(" a comment", group: "g", key: "k")
        let text = file.text
        XCTAssertTrue(text.contains("# a comment\nk="), text)
        let again = KeyFile()
        try again.load(text: text)
        XCTAssertEqual(try again.string(group: "g", key: "k"), " spaced\nvalue")
    }
}
