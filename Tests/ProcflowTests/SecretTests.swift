import Foundation
import Testing

@testable import Procflow

/// A secret's value never reaches anything procflow writes: the terminal, events, every
/// report, the GitHub step summary, error messages — the commands' own output included.
@Suite("Secrets")
struct SecretTests {
    /// Hostile values: regex characters, markup and JSON escapes, two lines, a backslash.
    static let values = [
        "S_REGEX": "a.*b[c]+(d)?",
        "S_MARKUP": #"<tag>&"q'x"#,
        "S_LINES": "first-line\nsecond-line",
        "S_PATH": #"C:\temp\x"#,
    ]

    /// Every form a writer could put a value in, but those shorter than the minimum.
    static var forms: [String] {
        var forms: [String] = []
        for value in values.values {
            for piece in [value] + value.split(separator: "\n").map(String.init) {
                let json = JSONWriter.string(.string(piece))
                forms += [piece, String(json.dropFirst().dropLast()), piece.markupEscaped()]
            }
        }
        return forms
    }

    @Test func noWriterShowsAValue() throws {
        let fixture = try WorkflowFixture(
            """
            {"secrets": ["S_REGEX", "S_MARKUP", "S_LINES", "S_PATH", "S_SHORT"],
             "dotenv": [{"path": "private.env", "secret": true}],
             "procedures": [
              {"id": "print", "kind": "shell", "output": "text",
               "run": "printf '%s\\\\n' \\"$S_REGEX\\" \\"$S_MARKUP\\" \\"$S_LINES\\" \\"$S_PATH\\" \\"$S_SHORT\\" \\"$FROM_FILE\\""},
              {"id": "json", "kind": "shell", "output": "json",
               "run": "printf '{\\"v\\": \\"%s\\"}' \\"$FROM_FILE\\""},
              {"id": "fail", "kind": "shell", "run": "echo \\"$S_MARKUP\\" >&2; echo \\"$S_LINES\\" >&2; exit 4"},
              {"id": "reader", "kind": "shell", "input": {"from": "print"}, "run": "cat", "sources": ["private.env"]}
            ]}
            """)
        defer { fixture.remove() }
        try Data("FROM_FILE=from-the-dotenv-file\n".utf8).write(
            to: fixture.directory.appendingPathComponent("private.env"))
        let summary = fixture.directory.appendingPathComponent("step-summary.md").path
        var environment = Self.values
        environment["S_SHORT"] = "abc"
        environment["GITHUB_ACTIONS"] = "true"
        environment["GITHUB_STEP_SUMMARY"] = summary
        var outputs: [(String, String)] = []
        for arguments in [
            [
                "--explain", "--output", "prefixed", "--junit", "junit.xml", "--trace",
                "trace.json", "--html", "r.html", "--summary", "summary.json",
            ],
            ["--events", "json", "--no-cache"],
            ["--output", "grouped", "--no-cache"],
            ["--dry-run"],
        ] {
            let result = try fixture.run(arguments, environment: environment)
            outputs += [
                ("stdout \(arguments)", result.stdout), ("stderr \(arguments)", result.stderr),
            ]
        }
        for file in ["junit.xml", "trace.json", "r.html", "summary.json", "step-summary.md"] {
            outputs.append((file, fixture.contents(file) ?? ""))
        }
        #expect(outputs.allSatisfy { !$0.1.isEmpty || $0.0.hasPrefix("stderr") })
        for (place, text) in outputs {
            for form in Self.forms + ["from-the-dotenv-file"] where text.contains(form) {
                // GitHub's own mask commands carry the values, and only they.
                let lines = text.split(separator: "\n").filter { $0.contains(form) }
                #expect(
                    lines.allSatisfy { $0.hasPrefix("::add-mask::") },
                    "\(place) shows \(form.debugDescription): \(lines)")
            }
        }
        let first = outputs[0].1
        #expect(first.contains("::add-mask::first-line\n::add-mask::from-the-dotenv-file\n"))
        #expect(
            first.contains(
                "print  ***\nprint  ***\nprint  ***\nprint  ***\nprint  ***\nprint  abc\nprint  ***"
            ))
        // Shorter than the minimum: not masked, as documented.
        #expect(first.contains("print  abc"))
        #expect(SecretMasker.minimumLength == 4)
        #expect(fixture.contents("summary.json")?.contains(#""text":"***\n"#) == true)
    }

    @Test func theMaskerReplacesEveryFormLongestFirst() {
        let masker = SecretMasker(values: ["pass-word", "pass", "ab", "x\ny-line"])
        #expect(masker.mask("a pass-word b") == "a *** b")
        #expect(masker.mask("pass and passes") == "*** and ***es")
        #expect(masker.mask("ab stays") == "ab stays")
        #expect(masker.mask("y-line alone, x alone") == "*** alone, x alone")
        #expect(SecretMasker(values: []).mask("anything") == "anything")
    }

    @Test func aSecretNameMustBeAName() {
        #expect(
            diagnostics(
                workflow(
                    #"{"id": "a", "kind": "shell", "run": "true"}"#,
                    extra: #""secrets": ["NOT A NAME"], "#))
                == [
                    #"test.json:1:14: error: /secrets/0: "NOT A NAME" is not a valid environment variable name: use letters, digits and _, not starting with a digit"#
                ])
    }
}

@Suite("Secrets with CRLF line ends")
struct SecretCRLFTests {
    @Test func eachLineOfACRLFValueIsMasked() {
        let masker = SecretMasker(values: ["firstline1\r\nsecondline2"])
        #expect(masker.mask("a secondline2 b") == "a *** b")
        #expect(
            SecretMasker.githubMaskCommands(for: ["firstline1\r\nsecondline2"])
                == "::add-mask::firstline1\n::add-mask::secondline2\n")
    }
}
