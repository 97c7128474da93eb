import Foundation
import Testing

@testable import Procflow

@Suite("Path patterns")
struct GlobPatternTests {

    static let matches: [(pattern: String, name: String, matches: Bool)] = [
        ("*.c", "lapi.c", true),
        ("*.c", "lapi.h", false),
        ("l?pi.c", "lapi.c", true),
        ("l?pi.c", "lpi.c", false),
        ("[a-c]x", "bx", true),
        ("[a-c]x", "dx", false),
        ("[!a-c]x", "dx", true),
        ("[^a-c]x", "ax", false),
        ("*", ".hidden", false),
        (".*", ".hidden", true),
        ("a*b*c", "aXXbYYc", true),
        ("a*b*c", "aXXbYY", false),
        (#"\*"#, "*", true),
        (#"\*"#, "x", false),
    ]

    @Test(arguments: matches)
    func namesMatch(pattern: String, name: String, matches: Bool) throws {
        let parsed = try GlobPattern(pattern)
        guard case .wildcard(let tokens)? = parsed.components.last else {
            #expect((parsed.literalPath == name) == matches, "\(pattern) is literal")
            return
        }
        #expect(GlobPattern.matches(name, tokens) == matches)
    }

    @Test(arguments: [
        ("", "a pattern must not be empty"),
        ("src/[ab.c", "a '[' is not closed by ']'"),
        (#"src/a\"#, #"the pattern ends with a lone '\'"#),
        ("[z-a]", "the range z-a in '[...]' is backwards"),
    ])
    func malformedPatternsAreRejected(pattern: String, message: String) {
        #expect(throws: GlobPattern.Problem(message: message)) { try GlobPattern(pattern) }
    }

    @Test func plainPathsAndEscapedWildcardsAreLiteral() throws {
        #expect(try GlobPattern("src/lapi.c").isLiteral)
        #expect(try GlobPattern(#"src/a\*b"#).literalPath == "src/a*b")
        #expect(try !GlobPattern("src/*.c").isLiteral)
    }

    @Test func expansionFindsFilesDirectoriesAndSkipsHiddenOnesAndTheStateDirectory() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        for file in [
            "src/a.c", "src/b.c", "src/b.h", "src/sub/c.c", "src/sub/deep/d.c", "src/.hidden/e.c",
            "src/.f.c", ".procflow/objects/x.c", "out/one", "out/two/three",
        ] {
            let url = root.appendingPathComponent(file)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file.utf8).write(to: url)
        }
        let base = root.path
        func expand(_ pattern: String) throws -> [String] {
            try GlobPattern(pattern).expand(in: base, excluding: base + "/.procflow").map {
                String($0.path.dropFirst(base.count + 1))
            }
        }
        #expect(try expand("src/*.c") == ["src/a.c", "src/b.c"])
        #expect(
            try expand("src/**/*.c") == ["src/a.c", "src/b.c", "src/sub/c.c", "src/sub/deep/d.c"])
        let everywhere = try expand("**/*.c")
        #expect(everywhere == (try expand("src/**/*.c")))
        #expect(try expand("src/.*.c") == ["src/.f.c"])
        #expect(try expand("o*") == ["out/one", "out/two/three"])
        #expect(try expand("*/../src/?.h") == ["src/b.h"])
        // A changed file matches a pattern exactly when expanding the pattern gives it.
        let tree = try GlobPattern("**").expand(in: base).map(\.path) + [base + "/src/.hidden/e.c"]
        for pattern in [
            "src/*.c", "src/**/*.c", "**/*.c", "src/.*.c", "o*", "out", "src/sub", "src/a.c", "**",
            "../\(root.lastPathComponent)/src/*.h",
        ] {
            let parsed = try GlobPattern(pattern)
            let expanded = Set(
                IncrementalStep.Files([parsed], in: base).expand(in: base, excluding: nil).map(
                    \.path))
            for path in tree {
                #expect(
                    parsed.matches(path: path, in: base) == expanded.contains(path),
                    "\(pattern) and \(path.dropFirst(base.count + 1))")
            }
        }
        #expect(try GlobPattern("src/*.c").matches(path: base + "/src/new.c", in: base))
        #expect(try !GlobPattern("src/*.c").matches(path: "/elsewhere/src/a.c", in: base))
        let files = IncrementalStep.Files(
            [try GlobPattern("out"), try GlobPattern("missing.txt"), try GlobPattern("src/a.c")],
            in: base)
        #expect(
            files.expand(in: base, excluding: nil).map {
                "\($0.path.dropFirst(base.count + 1)) \($0.status == nil ? "missing" : "found")"
            } == [
                "missing.txt missing", "out/one found", "out/two/three found", "src/a.c found",
            ])
    }

    /// A step's files come sorted by path, each once, whether they were named in order (a
    /// link's objects), out of order, or twice; a file in the excluded folder is left out.
    @Test func namedFilesComeSortedAndEachOnce() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("state"), withIntermediateDirectories: true)
        for file in ["a.o", "b.o", "c.o", "state/x", "statement"] {
            try Data(file.utf8).write(to: root.appendingPathComponent(file))
        }
        let base = root.path
        func expand(_ names: [String]) throws -> [String] {
            let files = IncrementalStep.Files(try names.map { try GlobPattern($0) }, in: base)
            return files.expand(in: base, excluding: base + "/state").map {
                String($0.path.dropFirst(base.count + 1))
            }
        }
        #expect(try expand(["a.o", "b.o", "c.o"]) == ["a.o", "b.o", "c.o"])
        #expect(try expand(["c.o", "a.o", "b.o"]) == ["a.o", "b.o", "c.o"])
        #expect(try expand(["a.o", "b.o", "b.o", "c.o"]) == ["a.o", "b.o", "c.o"])
        #expect(try expand(["b.o", "a.o", "b.o"]) == ["a.o", "b.o"])
        #expect(try expand(["a.o", "state", "state/x", "statement"]) == ["a.o", "statement"])
    }
}
