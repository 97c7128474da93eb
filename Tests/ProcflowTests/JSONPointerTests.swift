import Foundation
import Testing

@testable import Procflow

/// JSON Pointers as the loader makes and keeps them: RFC 6901's text, and a step's references
/// kept without an allocation of their own.
@Suite("JSON Pointers")
struct JSONPointerTests {
    @Test func tokensSurviveEveryWayOfMakingAPointer() throws {
        let tokens = [
            "procedures", "3", "a/b", "~x", "", "dependsOn", "a-long-key-of-many-bytes", "0",
        ]
        var extended = JSONPointer.root
        for token in tokens { extended = extended.appending(token) }
        let made = JSONPointer(tokens: tokens)
        let parsed = try #require(JSONPointer(parsing: made.description))
        #expect(made.description == "/procedures/3/a~1b/~0x//dependsOn/a-long-key-of-many-bytes/0")
        for pointer in [extended, made, parsed, extended.materialized, extended.compacted] {
            #expect(pointer.tokens == tokens)
            #expect(pointer.description == made.description)
            #expect(pointer == made && pointer.hashValue == made.hashValue)
        }
        // Extended after being made either way, the same.
        #expect(extended.materialized.appending("z") == extended.appending("z"))
        #expect(extended.compacted.appending(1).description == made.description + "/1")
        #expect(extended != extended.appending("z"))
        #expect(JSONPointer.root.description == "" && JSONPointer.root.isRoot)
        #expect(JSONPointer.root.appending("").description == "/")
        #expect(JSONPointer.root.appending("").tokens == [""])
        #expect(!JSONPointer.root.appending("").isRoot)
        #expect(JSONPointer(parsing: "/a~2") == nil && JSONPointer(parsing: "a") == nil)
    }

    @Test func aStepsReferencesHoldNoTokenOfTheirOwn() throws {
        // A step of a group and its reference to the step before: their pointers hang from the
        // group's list of steps, with the step's place, the field and the index inline (two
        // allocations a step of 100,000 when only the last token was).
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "g", "kind": "group", "procedures": [
                {"id": "a", "kind": "shell", "run": "true"},
                {"id": "b", "kind": "shell", "run": "true", "dependsOn": ["a"]}
              ]}
            ]}
            """)
        defer { fixture.remove() }
        let workflow = try WorkflowLoader.load(path: fixture.directory.path + "/" + fixture.file)
        let group = try #require(workflow.steps.first)
        let step = try #require(group.children.last)
        let reference = try #require(step.dependsOn.first)
        #expect(step.pointer.description == "/procedures/0/procedures/1")
        #expect(reference.pointer.description == "/procedures/0/procedures/1/dependsOn/0")
        #expect(reference.pointer.chainBox != nil)
        #expect(reference.pointer.chainBox === step.pointer.chainBox)
        #expect(group.children[0].pointer.chainBox === step.pointer.chainBox)
    }
}
