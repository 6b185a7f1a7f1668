import GStreamer
import PlumbTestSupport
@testable import PlumbDescription
import XCTest

/// Description files: header, variables, positions after substitution, roles.
final class PipelineDescriptionTests: XCTestCase {
    let sample = """
        # name: demo
        # description: a demo pipeline
        # var: width=640
        # var: sink=fakesink sync=false
        # var: required
        # just a comment: with a colon
        videotestsrc name=src ! video/x-raw,width=${width} ! ${sink}
        """

    func testHeader() throws {
        let d = try PipelineDescription(text: sample, file: "demo.pipeline")
        XCTAssertEqual(d.name, "demo")
        XCTAssertEqual(d.summary, "a demo pipeline")
        XCTAssertEqual(d.variables.map(\.name), ["width", "sink", "required"])
        XCTAssertEqual(d.variables[1].defaultValue, "fakesink sync=false")
        XCTAssertNil(d.variables[2].defaultValue)
        XCTAssertEqual(d.variables[0].location, SourceLocation(file: "demo.pipeline", line: 3, column: 3))
    }

    func testNameDefaultsToTheFileName() throws {
        let d = try PipelineDescription(text: "fakesink", file: "/x/y/preview.pipeline")
        XCTAssertEqual(d.name, "preview")
    }

    func testSubstitutionKeepsPositions() throws {
        let d = try PipelineDescription(text: sample, file: "f")
        let r = try d.resolve(["width": "1280", "required": "x"])
        XCTAssertTrue(r.text.contains("video/x-raw,width=1280 ! fakesink sync=false"), r.text)
        XCTAssertFalse(r.text.contains("#"), "comments are blanked")
        // The `!` after the substituted width is where it was in the file: line 7, column 52.
        let bang = r.text.distance(from: r.text.startIndex, to: r.text.range(of: "1280 !")!.upperBound) - 1
        XCTAssertEqual(r.location(at: bang), SourceLocation(file: "f", line: 7, column: 52))
        // Characters of a substituted value point at its `${`.
        let value = r.text.distance(from: r.text.startIndex, to: r.text.range(of: "1280")!.lowerBound) + 2
        XCTAssertEqual(r.location(at: value), SourceLocation(file: "f", line: 7, column: 43))
    }

    func testVariableErrors() throws {
        do {
            _ = try PipelineDescription(text: "# var: loc\nvideotestsrc ! filesink location=${loc}", file: "r").resolve()
            XCTFail("a required variable without -D accepted")
        } catch {
            XCTAssertEqual(error.location, SourceLocation(file: "r", line: 2, column: 34))
            XCTAssertTrue(error.message.contains("give it with -D loc=VALUE"), error.message)
        }
        do {
            _ = try PipelineDescription(text: "videotestsrc ! ${nope}", file: "g").resolve()
            XCTFail("undefined variable accepted")
        } catch {
            XCTAssertEqual(error.location, SourceLocation(file: "g", line: 1, column: 16))
            XCTAssertTrue(error.message.contains("undefined variable \"nope\""))
        }
        XCTAssertThrowsError(try PipelineDescription(text: "# var: 9lives=1\nfakesink", file: "h"))
        XCTAssertThrowsError(try PipelineDescription(text: "# var: a=1\n# var: a=2\nfakesink", file: "h"))
        XCTAssertThrowsError(try PipelineDescription(text: "fakesink name=${open", file: "h").resolve())
    }

    func testDollarEscape() throws {
        let r = try PipelineDescription(text: "fakesink name=a$$b", file: "f").resolve()
        XCTAssertEqual(r.text.trimmingCharacters(in: .whitespacesAndNewlines), "fakesink name=a$b")
    }

    func testRoles() {
        XCTAssertEqual(ElementRole.of(elementName: "src"), .source)
        XCTAssertEqual(ElementRole.of(elementName: "preview_flip"), .previewFlip)
        XCTAssertEqual(ElementRole.of(elementName: "preview_flip_hdmi"), .previewFlip)
        XCTAssertEqual(ElementRole.of(elementName: "rec_mux"), .recordingMux)
        XCTAssertNil(ElementRole.of(elementName: "source"))
        XCTAssertNil(ElementRole.of(elementName: "preview_flipper"))
    }

    func testLexerUnderstandsCapsReferencesAndBins() throws {
        let text = "videotestsrc ! video/x-raw, width=(int)320, framerate=30/1 ! tee name=t t. ! queue ! fakesink t. ! ( queue ! fakesink )"
        let items = try LaunchLexer(Array(text)).lex()
        var caps: [String] = [], refs: [String] = [], factories: [String] = []
        for item in items {
            switch item {
            case .caps(let c, _): caps.append(c)
            case .reference(let n, _): refs.append(n)
            case .element(let e): factories.append(e.factory)
            default: break
            }
        }
        XCTAssertEqual(caps, ["video/x-raw, width=(int)320, framerate=30/1"])
        XCTAssertEqual(refs, ["t", "t"])
        // The plain `( ... )` is a "bin" GStreamer makes; it may take properties (`( name=b ...)`).
        XCTAssertEqual(factories, ["videotestsrc", "tee", "queue", "fakesink", "bin", "queue", "fakesink"])
        XCTAssertEqual(items.compactMap { if case .element(let e) = $0, e.isImplicitBin { e.offset } else { nil } }, [99])
    }

    /// `bin.( name=b ... )`: the name after the `(` is the bin's, and a generated name goes
    /// there too (between `bin.` and `(` gst-launch reads no properties).
    func testLexerGivesABinItsProperties() throws {
        let text = "videotestsrc ! bin.( name=b queue ! fakesink ) bin.( fakesink )"
        let items = try LaunchLexer(Array(text)).lex()
        let bins = items.compactMap { item -> LaunchLexer.ElementItem? in
            if case .element(let e) = item, e.factory == "bin" { return e }
            return nil
        }
        XCTAssertEqual(bins.map(\.explicitName), ["b", nil])
        XCTAssertEqual(bins.map(\.endOffset), [20, 52])
        XCTAssertEqual(Array(text)[bins[1].endOffset - 1], "(")
    }

    func testBuildGivesTheUsersPipelineWithItsRoles() throws {
        let d = try PipelineDescription(text: "videotestsrc name=src num-buffers=5 ! tee name=tee ! queue ! videoflip name=preview_flip ! fakesink", file: "f")
        let pipeline = try PipelineLoader.build(d.resolve())
        let flip = try XCTUnwrap(pipeline.element(named: "preview_flip"))
        XCTAssertEqual(flip.factoryName, "videoflip")
        XCTAssertEqual(try flip.get("video-direction", as: EnumNick.self), "identity")
        let report = try PipelineLoader.check(d.resolve())
        XCTAssertEqual(report.roles[.previewFlip], ["preview_flip"])
        XCTAssertEqual(report.roles[.tee], ["tee"])
        XCTAssertEqual(report.elementCount, 5)
    }
}
