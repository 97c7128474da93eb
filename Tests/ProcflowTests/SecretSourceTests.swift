import Foundation
import Testing

@testable import Procflow

/// Secrets are masked where text is made, before a writer escapes it again or cuts it: no
/// doubly escaped form, no cut piece and no value followed by a combining mark slips through.
@Suite("Secrets masked at the source")
struct SecretSourceTests {
    /// A value with JSON, markup, annotation and regex characters; its four-letter runs are
    /// what no report may show.
    static let value = #"QQzz"XXww\JJkk<&VVpp%ZZyy"#
    static let runs = ["QQzz", "XXww", "JJkk", "VVpp", "ZZyy"]

    static func leaks(in text: String) -> [String] {
        runs.filter { text.contains($0) }
    }

    @Test func noEscapedOrCombinedFormReachesAWriter() throws {
        let escaped = String(JSONWriter.string(.string(Self.value)).dropFirst().dropLast())
        let fixture = try WorkflowFixture(
            """
            {"secrets": ["S_HOSTILE", "TOKEN"],
             "vars": {"TOKEN": "t0k3n-QQzz-value"},
             "procedures": [
              {"id": "json", "kind": "shell", "output": "json",
               "run": "printf '{\\"t\\": \\"%s\\"}\\\\n' \\"$ESCAPED\\""},
              {"id": "mark", "kind": "shell", "output": "text",
               "run": "printf '%s\\\\314\\\\201 and more\\\\n' \\"$S_HOSTILE\\""},
              {"id": "fail", "kind": "shell", "run": "printf '%s\\\\n' \\"$ESCAPED\\" >&2; exit 3"},
              {"id": "skipped", "kind": "shell", "run": "true",
               "when": {"env": "MODE", "equals": "${TOKEN}"}}
            ]}
            """)
        defer { fixture.remove() }
        let summary = fixture.directory.appendingPathComponent("step-summary.md").path
        let environment = [
            "S_HOSTILE": Self.value, "ESCAPED": escaped, "GITHUB_ACTIONS": "true",
            "GITHUB_STEP_SUMMARY": summary,
        ]
        var outputs: [(String, String)] = []
        for arguments in [
            [
                "--output", "prefixed", "--junit", "junit.xml", "--trace", "trace.json",
                "--html", "r.html", "--summary", "summary.json",
            ],
            ["--events", "json", "--no-cache"],
            ["--output", "grouped", "--no-cache"],
        ] {
            let result = try fixture.run(arguments, environment: environment)
            #expect(result.status == 1)
            outputs += [
                ("stdout \(arguments)", result.stdout), ("stderr \(arguments)", result.stderr),
            ]
        }
        for file in ["junit.xml", "trace.json", "r.html", "summary.json", "step-summary.md"] {
            outputs.append((file, fixture.contents(file) ?? "missing"))
        }
        for (place, text) in outputs {
            let shown = text.split(separator: "\n").filter {
                !Self.leaks(in: String($0)).isEmpty && !$0.hasPrefix("::add-mask::")
            }
            #expect(shown.isEmpty, "\(place) shows a part of a secret: \(shown)")
        }
        // The mark after the value stays; the value does not.
        #expect(outputs[0].1.contains("mark    ***\u{301} and more"))
        #expect(outputs[0].1.contains(#"its condition is false: env MODE is not "***""#))
    }

    @Test func eventsStayJSONInGitHubActions() throws {
        let fixture = try WorkflowFixture(
            """
            {"secrets": ["S_HOSTILE"], "procedures": [
              {"id": "a", "kind": "shell", "run": "echo \\"$S_HOSTILE\\""}
            ]}
            """)
        defer { fixture.remove() }
        let result = try fixture.run(
            ["--events", "json"], environment: ["S_HOSTILE": Self.value, "GITHUB_ACTIONS": "true"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(
            lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil })
        #expect(result.stderr.contains("::add-mask::\(Self.value)\n"))
    }

    @Test func aLongLineIsNotCutInsideAValue() {
        let secrets = SecretValues([Self.value])
        for offset in 1..<Self.value.utf8.count {
            var splitter = LineSplitter(secrets: secrets)
            let line =
                String(repeating: "a", count: LineSplitter.maximumLineLength - offset) + Self.value
                + String(repeating: "b", count: 100)
            let pieces =
                Array(line.utf8).withUnsafeBytes { splitter.lines(in: $0) } + splitter.finish()
            #expect(pieces.count == 2)
            #expect(pieces.map { secrets.mask($0) }.allSatisfy { Self.leaks(in: $0).isEmpty })
        }
    }

    @Test func aValuePreviewIsMaskedBeforeItIsCut() {
        let secrets = SecretValues([Self.value])
        let text = String(repeating: "a", count: RunSummary.ValuePreview.limit - 10) + Self.value
        let preview = RunSummary.ValuePreview(.string(text), format: .text, secrets: secrets)
        #expect(Self.leaks(in: preview.text).isEmpty)
        #expect(preview.text.hasSuffix("***"))
        #expect(!preview.isCut)
    }

    @Test func anHTTPBodyExcerptIsMaskedBeforeItIsCut() {
        let secrets = SecretValues([Self.value])
        let body = Array((String(repeating: "e", count: 190) + Self.value + "tail").utf8)
        let excerpt = HTTPProcedure.excerpt(of: body, secrets: secrets)
        #expect(Self.leaks(in: excerpt).isEmpty)
        #expect(excerpt.hasSuffix("***tail"))
        #expect(HTTPProcedure.excerpt(of: body, secrets: .none).hasSuffix("…"))
    }

    @Test func aValueIsMaskedWhateverFollowsIt() {
        let secrets = SecretValues(["abcd"])
        #expect(secrets.mask("xabcd\u{301}y") == "x***\u{301}y")
        #expect(secrets.mask("abcdabcd") == "******")
        #expect(SecretValues(["****"]).mask("****") == "****")
    }

    @Test func anIncludedFilesVariableIsASecretsValue() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(
            #"""
            {"vars": {"TOKEN": "included-QQzz"}, "procedures": [
              {"id": "get", "kind": "http", "url": "http://127.0.0.1:9/",
               "headers": {"Authorization": "Bearer ${TOKEN}"}}
            ]}
            """#.utf8
        ).write(to: directory.appendingPathComponent("part.json"))
        let path = directory.appendingPathComponent("flow.json").path
        try Data(
            #"""
            {"secrets": ["TOKEN"], "include": [{"path": "part.json", "as": "part"}],
             "procedures": [{"id": "a", "kind": "shell", "run": "true"}]}
            """#.utf8
        ).write(to: URL(fileURLWithPath: path))
        let workflow = try WorkflowLoader.load(path: path)
        #expect(workflow.secretValues(in: [:]) == ["included-QQzz"])
    }

    @Test func aLoadErrorShowsNoValue() throws {
        let fixture = try WorkflowFixture(
            #"""
            {"secrets": ["TOKEN"], "vars": {"TOKEN": "QQzz-in-the-file"}, "bogus": 1,
             "procedures": [{"id": "a", "kind": "shell", "run": "true"}]}
            """#)
        defer { fixture.remove() }
        let result = try runProcflow(["validate", fixture.file], in: fixture.directory)
        #expect(result.status != 0)
        #expect(result.stderr.contains("bogus"))
        #expect(result.stderr.contains("^"))
        #expect(Self.leaks(in: result.stderr).isEmpty, "\(result.stderr)")
    }

    @Test func anExportHoldingASecretSaysSo() throws {
        let fixture = try WorkflowFixture(
            #"""
            {"secrets": ["TOKEN"], "vars": {"TOKEN": "QQzz-exported"},
             "procedures": [{"id": "a", "kind": "shell", "run": "echo \"$TOKEN\""}]}
            """#)
        defer { fixture.remove() }
        let result = try runProcflow(
            ["export", fixture.file, "--to", "argo", "--image", "alpine"], in: fixture.directory)
        #expect(result.status == 0)
        #expect(result.stdout.contains("QQzz-exported"))
        #expect(result.stderr.contains("secrets in clear"))
        let plain = try WorkflowFixture(
            #"""
            {"vars": {"TOKEN": "QQzz-exported"},
             "procedures": [{"id": "a", "kind": "shell", "run": "echo \"$TOKEN\""}]}
            """#)
        defer { plain.remove() }
        let clear = try runProcflow(
            ["export", plain.file, "--to", "argo", "--image", "alpine"], in: plain.directory)
        #expect(clear.stdout.contains("QQzz-exported"))
        #expect(!clear.stderr.contains("secrets in clear"))
    }
}
