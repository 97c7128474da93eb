import Foundation
import Testing

@testable import Procflow

@Suite("JSON parser")
struct JSONParserTests {

    private func parse(_ text: String) -> JSONValue? {
        try? JSONParser.parse(Array(text.utf8)).plain
    }

    private func error(_ bytes: [UInt8]) -> String? {
        do {
            _ = try JSONParser.parse(bytes)
            return nil
        } catch {
            let location = SourceText(bytes: bytes).location(ofOffset: error.offset)
            return "\(location.line):\(location.column): \(error.message)"
        }
    }

    private func error(_ text: String) -> String? {
        error(Array(text.utf8))
    }

    @Test func parsesEveryKindOfValue() {
        #expect(
            parse(#"{"a": [1, -2.5e3, true, false, null, "x\n\u00e9\ud83d\ude00"], "b": {}}"#)
                == .object([
                    "a": .array([
                        .number(1), .number(-2500), .bool(true), .bool(false), .null,
                        .string("x\né😀"),
                    ]),
                    "b": .object([:]),
                ]))
    }

    @Test func readsIntegersExactlyAndKeepsTheSignOfZero() {
        // Up to 15 digits are read without text; longer ones through Double's own parsing.
        let parsed = parse(
            #"[0, -0, 7, -42, 999999999999999, -999999999999999, 9007199254740993, 12345678901234567890, 1.5, 1e2, 0.1]"#
        )
        #expect(
            parsed
                == .array([
                    .number(0), .number(-0.0), .number(7), .number(-42),
                    .number(999_999_999_999_999), .number(-999_999_999_999_999),
                    .number(Double("9007199254740993")!), .number(Double("12345678901234567890")!),
                    .number(1.5), .number(100), .number(0.1),
                ]))
        guard case .array(let items)? = parsed, case .number(let zero) = items[1] else {
            Issue.record("not an array of numbers: \(String(describing: parsed))")
            return
        }
        #expect(zero.sign == .minus)
    }

    @Test func nestedContainersKeepTheirOwnElements() {
        // The open containers share the parser's element buffers: each takes only its own.
        #expect(
            parse(
                #"{"a": [1, {"b": [2, 3], "c": {}}, [4, [5]]], "d": {"e": [], "f": [6]}, "g": 7}"#)
                == .object([
                    "a": .array([
                        .number(1),
                        .object(["b": .array([.number(2), .number(3)]), "c": .object([:])]),
                        .array([.number(4), .array([.number(5)])]),
                    ]),
                    "d": .object(["e": .array([]), "f": .array([.number(6)])]),
                    "g": .number(7),
                ]))
    }

    @Test func skipsAByteOrderMark() {
        #expect(
            (try? JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("{}".utf8)))?.plain == .object([:]))
    }

    @Test(arguments: [
        ("", "1:1: the file is empty: expected a JSON object"),
        ("   \n  ", "2:3: the file is empty: expected a JSON object"),
        ("{", "1:2: expected '\"' to start an object key, found the end of the file"),
        (
            "{\"a\": [1, 2",
            "1:12: expected ',' or ']' after an array element, found the end of the file"
        ),
        ("{\"a\" 1}", "1:6: expected ':' after the object key \"a\", found '1'"),
        ("{\"a\": tru}", "1:7: expected a value, found 't'"),
        ("{\"a\": 01}", "1:7: invalid number 01"),
        (
            "{\"a\": \"x\ny\"}",
            "1:7: a string not closed before the end of its line (a line break in a string is written \\n)"
        ),
        ("{\"a\": \"x\ty\"}", "1:9: control character U+0009 in a string"),
        ("{\"a\": [1, 2,]}", "1:12: a trailing comma before ']': JSON allows none"),
        ("{\"a\": 1,\n}", "1:8: a trailing comma before '}': JSON allows none"),
        ("{\"a\": 1 \"b\": 2}", "1:8: missing ',' after an object member"),
        ("[1\n  2]", "1:3: missing ',' after an array element"),
        ("{\"a\": 1 // no\n}", "1:9: expected ',' or '}' after an object member, found '/'"),
        ("{\"a\": \"\\q\"}", "1:8: invalid escape \\q in a string"),
        ("{\"a\": \"\\ud800\"}", "1:8: unpaired surrogate in \\u escape"),
        ("{} x", "1:4: unexpected 'x' after the end of the JSON value"),
        ("{\"a\": \"unterminated", "1:7: unterminated string"),
    ])
    func reportsWhereTheSyntaxBreaks(text: String, expected: String) {
        #expect(error(text) == expected)
    }

    private func parseWithComments(_ text: String) throws(JSONSyntaxError) -> JSONNode {
        try JSONParser.parse(Array(text.utf8), withComments: true)
    }

    @Test func workflowFilesMayHoldCommentsAndTrailingCommas() throws {
        let text = """
            // a workflow
            {
              /* the steps,
                 in order */
              "procedures": [1, 2, /* last */ 3,], // trailing
              "name": "a//b /* not a comment */",
            }
            """
        let node = try parseWithComments(text)
        #expect(
            node.plain
                == .object([
                    "procedures": .array([.number(1), .number(2), .number(3)]),
                    "name": .string("a//b /* not a comment */"),
                ]))
        // Locations after comments stay exact.
        guard case .object(let members) = node.value else {
            Issue.record("not an object")
            return
        }
        let source = SourceText(bytes: Array(text.utf8))
        let procedures = members.first { $0.key == "procedures" }!
        #expect(source.location(ofOffset: procedures.keyOffset) == .init(line: 5, column: 3))
        #expect(
            source.location(ofOffset: members.last!.value.offset) == .init(line: 6, column: 11))
    }

    @Test(arguments: [
        ("{\"a\": 1 /* open", "1:9: a comment opened with /* is never closed with */"),
        ("{\"a\": [,]}", "1:8: expected a value, found ','"),
        ("{\"a\": 1,,}", "1:9: expected '\"' to start an object key, found ','"),
        ("{\"a\": 1} / 2", "1:10: unexpected '/' after the end of the JSON value"),
    ])
    func commentsAndCommasStillHaveRules(text: String, expected: String) {
        do {
            _ = try parseWithComments(text)
            Issue.record("parsed \(text)")
        } catch {
            let location = SourceText(bytes: Array(text.utf8)).location(ofOffset: error.offset)
            #expect("\(location.line):\(location.column): \(error.message)" == expected)
        }
    }

    @Test func rejectsInvalidUTF8WithItsLocation() {
        let bytes = Array("{\"name\": \"ab".utf8) + [0xFF, 0xFE] + Array("\"}".utf8)
        #expect(error(bytes) == "1:13: invalid UTF-8 in a string")
    }

    @Test func eachContainerHoldsItsMembersInAListOfItsOwnSize() throws {
        // A step of a large workflow and its small objects: each reserved room for eight
        // members as it opened (the parse's tree was 5.4 times the file).
        let node = try JSONParser.parse(
            Array(
                #"{"id": "a", "inputs": {"X": {"from": "b"}}, "sources": ["s"], "n": [[1, 2], []]}"#
                    .utf8))
        guard case .object(let members) = node.value else {
            Issue.record("not an object")
            return
        }
        #expect(members.map(\.key) == ["id", "inputs", "sources", "n"])
        #expect(members.capacity < 8)
        guard case .object(let inputs) = members[1].value.value,
            case .object(let wire) = inputs.first?.value.value,
            case .array(let lists) = members[3].value.value
        else {
            Issue.record("not the nesting written")
            return
        }
        #expect(inputs.capacity < 4 && wire.capacity < 4)
        #expect(wire.map(\.key) == ["from"] && inputs.map(\.key) == ["X"])
        #expect(lists.count == 2)
        // Nested containers closed in between leave their parents' members in order.
        #expect(
            node.plain
                == .object([
                    "id": .string("a"), "inputs": .object(["X": .object(["from": .string("b")])]),
                    "sources": .array([.string("s")]),
                    "n": .array([.array([.number(1), .number(2)]), .array([])]),
                ]))
    }

    @Test func columnsCountCharactersNotBytes() {
        #expect(error("{\"é\": [1,]}") == "1:9: a trailing comma before ']': JSON allows none")
    }

    @Test func tenThousandLevelsOfNestingAreAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(
            error("{\"a\": \(deep)}") == "1:262: arrays and objects nest deeper than 256 levels")
        let deepObjects =
            String(repeating: "{\"a\":", count: 10_000) + "1"
            + String(repeating: "}", count: 10_000)
        #expect(
            error(deepObjects)?.hasSuffix("arrays and objects nest deeper than 256 levels") == true)
    }

    @Test func aHundredMegabyteStringParsesInLinearTime() throws {
        let prefix = Array("{\"description\": \"".utf8)
        var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: prefix.count + (100 << 20) + 2)
        bytes.replaceSubrange(0..<prefix.count, with: prefix)
        bytes[bytes.count - 2] = UInt8(ascii: "\"")
        bytes[bytes.count - 1] = UInt8(ascii: "}")
        let started = Date()
        let value = try JSONParser.parse(bytes)
        guard case .object(let members) = value.value,
            case .string(let text) = members[0].value.value
        else {
            Issue.record("not parsed as an object with a string")
            return
        }
        #expect(text.utf8.count == 100 << 20)
        // A loose bound: a quadratic parser would take hours.
        #expect(Date().timeIntervalSince(started) < 60)
    }
}
