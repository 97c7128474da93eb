import Foundation
import Testing

@testable import Procflow

@Suite("The image field")
struct StepImageTests {

    @Test func shellAndFileStepsNameAnImage() throws {
        let json = workflow(
            #"""
            {"id": "a", "kind": "shell", "run": "true", "image": "alpine:3.20"},
            {"id": "b", "kind": "file", "op": "read", "path": "x", "image": "registry.local/procflow:${tag}"}
            """#, extra: #""vars": {"tag": "1.0"}, "#)
        let loaded = try loadWorkflow(json).get()
        #expect(loaded.steps.map(\.image) == ["alpine:3.20", "registry.local/procflow:1.0"])
    }

    @Test func stepsWithoutAnImageHaveNone() throws {
        let loaded = try loadWorkflow(workflow(#"{"id": "a", "kind": "shell", "run": "true"}"#))
            .get()
        #expect(loaded.steps[0].image == nil)
    }

    @Test func otherKindsHaveNoImage() {
        #expect(
            diagnostics(workflow(#"{"id": "a", "kind": "http", "url": "http://x", "image": "a"}"#))
                == [
                    #"test.json:1:64: error: /procedures/0/image: field "image" does not apply to an http procedure (it belongs to shell and file procedures)"#
                ])
    }

    @Test(arguments: [
        (
            #""a b""#,
            #""a b" is not an image reference: write one such as "alpine:3.20", without spaces"#
        ),
        (#""""#, #""image" must not be empty"#),
        ("3", "expected a string, found a number"),
    ])
    func anImageIsAReferenceWithoutSpaces(value: String, message: String) {
        let json = workflow(#"{"id": "a", "kind": "shell", "run": "true", "image": \#(value)}"#)
        let found = diagnostics(json)
        #expect(found.count == 1)
        #expect(found.first?.hasSuffix("/procedures/0/image: " + message) == true)
    }

    @Test func runIgnoresTheImage() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("w.json")
        try workflow(#"{"id": "a", "kind": "shell", "run": "printf ok", "image": "none:0"}"#)
            .write(to: file, atomically: true, encoding: .utf8)
        let result = try runProcflow(["run", file.path])
        #expect(result.status == 0)
    }
}
