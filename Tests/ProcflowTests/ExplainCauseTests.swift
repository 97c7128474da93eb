import Foundation
import Testing

@testable import Procflow

/// `--explain` names what changed in a step's environment: the variable, the `env` entry, the
/// dotenv file's entry; a secret only as "secrets", whose values no record keeps one by one.
@Suite("Explanations that name the cause")
struct ExplainCauseTests {
    @Test func theChangedEntryIsNamed() throws {
        let fixture = try WorkflowFixture(
            """
            {"vars": {"cflags": "-O2"}, "env": {"CC": "gcc"},
             "dotenv": [".env", {"path": "private.env", "secret": true}],
             "procedures": [
              {"id": "a", "kind": "shell", "run": "echo a >> runs.log; echo \\"$cflags $CC $FOO\\" > a.out",
               "sources": ["in.txt"], "generates": ["a.out"]}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("in.txt", "x\n")
        try fixture.write(".env", "FOO=1\n")
        try fixture.write("private.env", "TOKEN=first-secret\n")
        #expect(try fixture.runSteps().ran == ["a"])
        func explanation(_ arguments: [String] = []) throws -> String? {
            explained(try fixture.runSteps(["--explain"] + arguments).events)["a"]
        }
        #expect(try explanation(["--var", "cflags=-O0"]) == "variable cflags changed")
        try fixture.write(".env", "FOO=2\n")
        #expect(try explanation(["--var", "cflags=-O0"]) == "dotenv .env: FOO changed")
        try fixture.write(".env", "FOO=2\nBAR=3\n")
        #expect(try explanation(["--var", "cflags=-O0"]) == "dotenv .env: BAR is new")
        try fixture.edit(#""CC": "gcc""#, #""CC": "clang""#)
        #expect(try explanation(["--var", "cflags=-O0"]) == "env CC changed")
        try fixture.write("private.env", "TOKEN=second-secret\n")
        #expect(try explanation(["--var", "cflags=-O0"]) == "secrets changed")
        // No digest of a secret alone is kept.
        let state = fixture.directory.appendingPathComponent(".procflow")
        for file in try FileManager.default.subpathsOfDirectory(atPath: state.path) {
            let data = (try? Data(contentsOf: state.appendingPathComponent(file))) ?? Data()
            #expect(!data.contains(Array("TOKEN".utf8)), "\(file)")
        }
    }

    /// A step whose `cacheKey` gave another value is explained by its key, not as a changed
    /// command; a changed command is one, whatever its key gave.
    @Test func aChangedCacheKeyIsNamedAsSuch() throws {
        let fixture = try WorkflowFixture(
            """
            {"cacheKey": [{"command": "cat toolchain.txt"}],
             "procedures": [
              {"id": "a", "kind": "shell", "run": "echo a >> runs.log; echo a > a.out",
               "generates": ["a.out"]},
              {"id": "b", "kind": "file", "op": "write", "path": "b.out", "content": "b",
               "cache": true, "cacheKey": ["salt 1"]}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("toolchain.txt", "cc 12\n")
        #expect(try fixture.runSteps().ran == ["a"])
        func explanations() throws -> [String: String] {
            explained(try fixture.runSteps(["--explain"]).events)
        }
        try fixture.write("toolchain.txt", "cc 13\n")
        #expect(try explanations() == ["a": "cacheKey changed", "b": "cacheKey changed"])
        try fixture.edit("echo a > a.out", "echo A > a.out")
        #expect(try explanations() == ["a": "command changed"])
        // Both at once: the step changed.
        try fixture.write("toolchain.txt", "cc 14\n")
        try fixture.edit("echo A > a.out", "echo a > a.out")
        try fixture.edit("salt 1", "salt 2")
        #expect(try explanations() == ["a": "command changed", "b": "cacheKey changed"])
        try fixture.edit(#""content": "b""#, #""content": "B""#)
        #expect(try explanations() == ["b": "operation changed"])
    }

    @Test func aDryRunListsTheInstancesThatRun() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "cc", "kind": "shell", "forEach": {"in": ["a", "b"]}, "run": "cp $item.c $item.o",
               "sources": ["${item}.c"], "generates": ["${item}.o"]},
              {"id": "link", "kind": "shell", "run": "cat a.o b.o > app", "dependsOn": ["cc"],
               "sources": ["a.o", "b.o"], "generates": ["app"]}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("a.c", "a\n")
        try fixture.write("b.c", "b\n")
        #expect(try fixture.run().status == 0)
        let noop = try fixture.run(["--dry-run"])
        #expect(
            noop.stdout == """
                plan for flow: 2 steps, in order
                1. cc [shell: cp $item.c $item.o]: up to date
                   cc[a]: up to date
                   cc[b]: up to date
                2. link [shell: cat a.o b.o > app]: after cc; up to date

                """)
        try fixture.write("b.c", "b2\n")
        let edited = try fixture.run(["--dry-run"])
        #expect(
            edited.stdout.contains("1. cc [shell: cp $item.c $item.o]: runs: 1 of 2 instances\n"))
        #expect(
            edited.stdout.contains("   cc[a]: up to date\n   cc[b]: runs: source b.c changed\n"))
        #expect(
            edited.stdout.contains(
                "link [shell: cat a.o b.o > app]: after cc; may run: cc may run first"))
        let json = try fixture.run(["--dry-run", "--events", "json"])
        #expect(json.stdout.contains(#""instances":[{"#))
        #expect(json.stdout.contains(#""name":"cc[b]""#))
        #expect(fixture.contents("b.o") == "b\n")
    }
}

/// The sources' part of an explanation: one walk along two records' sorted lists, and the same
/// words as a lookup by path when a list is out of order.
@Suite("What became of a step's sources")
struct SourceChangeTests {
    private static func source(_ path: String, _ digest: UInt64?) -> StepRecord.Source {
        StepRecord.Source(path: path, digest: digest.map { Digest($0, 0, 0, 0) })
    }

    private static let earlier = [
        source("a", 1), source("b", 2), source("d", nil), source("e", 5), source("f", 6),
        source("g", 7),
    ]
    private static let current = [
        source("b", 20), source("c", 3), source("d", 4), source("e", nil), source("g", 7),
    ]

    @Test func sortedListsAreWalkedTogether() {
        let reasons = StepExplanation.sourceChanges(
            Self.current, from: Self.earlier, display: { "src/" + $0 })
        #expect(
            reasons == [
                "source src/b changed", "source src/c is new", "source src/d appeared",
                "source src/e is missing", "source src/a is gone", "source src/f is gone",
            ])
        #expect(StepExplanation.sourceChanges(Self.current, from: Self.current) { $0 }.isEmpty)
        #expect(
            StepExplanation.sourceChanges([], from: Self.earlier) { $0 }
                == ["a", "b", "d", "e", "f", "g"].map { "source \($0) is gone" })
        #expect(
            StepExplanation.sourceChanges(Self.current, from: []) { $0 }
                == ["b", "c", "d", "e", "g"].map { "source \($0) is new" })
    }

    @Test func listsOutOfOrderGiveTheSameWords() {
        let current = Array(Self.current.reversed())
        let earlier = Array(Self.earlier.reversed())
        let reasons = StepExplanation.sourceChanges(current, from: earlier) { $0 }
        #expect(
            reasons == [
                "source e is missing", "source d appeared", "source c is new",
                "source b changed", "source f is gone", "source a is gone",
            ])
        // A path twice in the earlier list: its first digest counts, as a lookup has it.
        let twice = [Self.source("b", 2), Self.source("b", 9)]
        #expect(
            StepExplanation.sourceChanges([Self.source("b", 2)], from: twice) { $0 }.isEmpty)
    }
}
