import Foundation
import Testing

@testable import Procflow

/// `cacheKey`: what a step's result depends on besides its files.
@Suite("Cache keys")
struct CacheKeyTests {

    @Test func aChangeToAnyPartRunsTheStepsItKeysAgain() throws {
        let fixture = try WorkflowFixture(
            """
            {"cacheKey": [{"command": "cat toolchain.txt"}],
             "procedures": [
              {"id": "a", "kind": "shell", "run": "echo a >> runs.log; echo a > a.out",
               "generates": ["a.out"]},
              {"id": "b", "kind": "shell", "run": "echo b >> runs.log; echo b > b.out",
               "generates": ["b.out"], "cacheKey": ["salt 1", {"file": "tool.bin"}]}
            ]}
            """)
        defer { fixture.remove() }
        try fixture.write("toolchain.txt", "cc 12\n")
        try fixture.write("tool.bin", "v1")
        #expect(try fixture.runSteps().ran == ["a", "b"])
        #expect(try fixture.runSteps().ran == [])
        // The workflow's part keys every step; a step's own parts key it alone.
        try fixture.write("toolchain.txt", "cc 13\n")
        #expect(try fixture.runSteps().ran == ["a", "b"])
        try fixture.write("tool.bin", "v2")
        #expect(try fixture.runSteps().ran == ["b"])
        try fixture.edit("salt 1", "salt 2")
        #expect(try fixture.runSteps().ran == ["b"])
        #expect(try fixture.runSteps().ran == [])
    }

    @Test func aCommandRunsOnceHoweverManyStepsItKeys() throws {
        let steps = (0..<5).map {
            #"{"id": "s\#($0)", "kind": "shell", "run": "true", "cache": true}"#
        }
        let fixture = try WorkflowFixture(
            #"{"cacheKey": [{"command": "echo run >> key.log; echo 1"}], "procedures": [\#(steps.joined(separator: ","))]}"#
        )
        defer { fixture.remove() }
        #expect(try fixture.run().status == 0)
        #expect(fixture.contents("key.log") == "run\n")
    }

    /// Each step's definition but its `cacheKey` values is worked out before the command's
    /// value is asked for, so that it is done while a command started ahead runs; the
    /// definition finished is the one made at once.
    @Test func aStepsDraftIsMadeWithoutItsCacheKeyCommandsValue() throws {
        let fixture = try WorkflowFixture(
            #"{"cacheKey": [{"command": "echo run >> key.log; echo 1"}], "procedures": [{"id": "a", "kind": "shell", "run": "true", "cache": true, "cacheKey": ["own"]}]}"#
        )
        defer { fixture.remove() }
        let workflow = try WorkflowLoader.load(path: fixture.directory.path + "/flow.json")
        let step = try #require(workflow.steps.first)
        let drafting = IncrementalStep.Context(workflow, directory: fixture.directory.path)
        let draft = try #require(IncrementalStep.Draft(step, context: drafting))
        #expect(!fixture.exists("key.log"))
        let finished = draft.finished(with: drafting.keyValues)
        #expect(fixture.contents("key.log") == "run\n")
        let atOnce = IncrementalStep.Context(workflow, directory: fixture.directory.path)
        let made = try #require(IncrementalStep(step, context: atOnce))
        #expect(finished.definition == made.definition)
        #expect(fixture.contents("key.log") == "run\nrun\n")
        // Another value of the command, another definition.
        try fixture.edit("echo 1", "echo 2")
        let changed = try WorkflowLoader.load(path: fixture.directory.path + "/flow.json")
        let changedStep = try #require(changed.steps.first)
        let changedContext = IncrementalStep.Context(changed, directory: fixture.directory.path)
        let other = try #require(IncrementalStep(changedStep, context: changedContext))
        #expect(other.definition != made.definition)
    }

    @Test(arguments: [
        (
            #"{"cacheKey": "cc", "procedures": [{"id": "a", "kind": "shell", "run": "true"}]}"#,
            #"test.json:1:14: error: /cacheKey: expected an array of texts, {"command": …} and {"file": …}, found a string"#
        ),
        (
            #"{"procedures": [{"id": "a", "kind": "shell", "run": "true", "cacheKey": [{"tool": "cc"}]}]}"#,
            #"test.json:1:74: error: /procedures/0/cacheKey/0: a cacheKey part is a text, {"command": "…"} or {"file": "…"}"#
        ),
        (
            #"{"procedures": [{"id": "a", "kind": "group", "procedures": [], "cacheKey": []}]}"#,
            #"/procedures/0/cacheKey: field "cacheKey" does not apply to a group procedure"#
        ),
    ])
    func badCacheKeysAreLocatedErrors(json: String, expected: String) {
        let found = diagnostics(json)
        #expect(found.contains { $0.contains(expected) }, "\(found)")
    }
}
