import Foundation
import Testing

@testable import Procflow

/// A `forEach` exported to Argo: `withItems` over the items the file gives, `withParam` over a
/// list another step gives, its output gathered from the instances'. Each case runs with
/// procflow and, exported, in the simulated Argo with real pods; the outcomes of every step
/// and what the readers of the step's output wrote must agree.
@Suite("Argo export: forEach")
struct ArgoForEachTests {
    @Test func staticItemsReachArgvEnvironmentAndTheItemVariable() throws {
        try ArgoEquivalenceTests.compare(
            workflow(
                #"""
                {"id": "each", "kind": "shell", "forEach": {"in": ["a b", "{{c}}", "$${x}"], "as": "name"},
                 "argv": ["/bin/sh", "-c", "printf '%s|%s|%s|%s' \"$1\" \"$X\" \"$name\" \"$PROCFLOW_STEP\"", "sh", "w-${name}"],
                 "env": {"X": "x-${name}"}, "output": "text"},
                {"id": "read", "kind": "shell", "input": {"from": "each"}, "run": "cat > each.json"}
                """#),
            files: ["each.json"])
    }

    @Test func aMatrixOfJSONOutputsIsGatheredInItemOrder() throws {
        try ArgoEquivalenceTests.compare(
            workflow(
                #"""
                {"id": "m", "kind": "shell", "forEach": {"matrix": {"os": ["linux", "mac"], "n": [1, 2, 3]}},
                 "argv": ["/bin/sh", "-c", "printf '{\"v\": \"%s\", \"all\": %s}' \"$1\" \"$item\"", "sh", "${item.os}-${item.n}"],
                 "output": "json"},
                {"id": "read", "kind": "shell", "input": {"from": "m"}, "run": "cat > m.json"}
                """#),
            files: ["m.json"])
    }

    @Test func itemsFromAnotherStepRunThroughWithParam() throws {
        try ArgoEquivalenceTests.compare(
            workflow(
                #"""
                {"id": "list", "kind": "shell", "run": "printf '{\"l\": [\"a\", {\"k\": 1}, 3]}'", "output": "json"},
                {"id": "each", "kind": "shell", "forEach": {"from": "list", "select": "/l"},
                 "run": "printf '%s' \"$item\"", "output": "text"},
                {"id": "read", "kind": "shell", "inputs": {"ALL": {"from": "each"}}, "run": "printf '%s' \"$ALL\" > each.json"}
                """#),
            files: ["each.json"])
    }

    @Test func aFailedInstanceFailsTheStepAndStopsItsReaders() throws {
        try ArgoEquivalenceTests.compare(
            workflow(
                #"""
                {"id": "list", "kind": "shell", "run": "echo '[1, 2, 3]'", "output": "json"},
                {"id": "each", "kind": "shell", "forEach": {"from": "list"}, "run": "test $item != 2 && echo $item", "output": "text"},
                {"id": "read", "kind": "shell", "input": {"from": "each"}, "run": "cat"},
                {"id": "after", "kind": "shell", "dependsOn": ["each"], "run": "true"},
                {"id": "cleanup", "kind": "shell", "dependsOn": ["each"], "always": true, "run": "true"}
                """#))
    }

    @Test func aToleratedFailedInstanceStandsAsNull() throws {
        try ArgoEquivalenceTests.compare(
            workflow(
                #"""
                {"id": "each", "kind": "shell", "forEach": {"in": [1, 2, 3]}, "continueOnError": true,
                 "run": "test $item != 2 && printf '{\"n\": %s}' $item", "output": "json"},
                {"id": "read", "kind": "shell", "input": {"from": "each"}, "run": "cat > each.json"},
                {"id": "after", "kind": "shell", "dependsOn": ["each"], "run": "true"}
                """#),
            files: ["each.json"])
    }

    @Test func anInstanceWhoseOutputIsNotJSONFailsTheStep() throws {
        try ArgoEquivalenceTests.compare(
            workflow(
                #"""
                {"id": "each", "kind": "shell", "forEach": {"in": [1, 2]}, "run": "echo '{'", "output": "json"},
                {"id": "read", "kind": "shell", "input": {"from": "each"}, "run": "cat"}
                """#))
    }

    @Test func emptyListsGiveAnEmptyArray() throws {
        try ArgoEquivalenceTests.compare(
            workflow(
                #"""
                {"id": "list", "kind": "shell", "run": "echo '[]'", "output": "json"},
                {"id": "dynamic", "kind": "shell", "forEach": {"from": "list"}, "run": "echo $item", "output": "text"},
                {"id": "static", "kind": "shell", "forEach": {"in": []}, "run": "echo $item", "output": "text"},
                {"id": "read", "kind": "shell", "inputs": {"D": {"from": "dynamic"}, "S": {"from": "static"}},
                 "run": "printf '%s %s' \"$D\" \"$S\" > empty.txt"}
                """#),
            files: ["empty.txt"])
    }

    @Test func aFalseConditionSkipsEveryInstance() throws {
        try ArgoEquivalenceTests.compare(
            workflow(
                #"""
                {"id": "flag", "kind": "shell", "run": "echo 0", "output": "json"},
                {"id": "each", "kind": "shell", "forEach": {"in": ["a", "b"]}, "when": {"output": {"from": "flag"}, "equals": 1},
                 "run": "echo $item", "output": "text"},
                {"id": "never", "kind": "shell", "forEach": {"in": ["a"]}, "when": {"env": "UNSET_FOR_SURE"},
                 "run": "echo $item", "output": "text"},
                {"id": "read", "kind": "shell", "inputs": {"E": {"from": "each"}, "N": {"from": "never"}},
                 "run": "printf '%s %s' \"$E\" \"$N\" > skipped.txt"}
                """#),
            files: ["skipped.txt"])
    }

    @Test func aListThatIsNotAnArrayFailsTheStep() throws {
        try ArgoEquivalenceTests.compare(
            workflow(
                #"""
                {"id": "object", "kind": "shell", "run": "echo '{\"a\": \"[1]\", \"b\": {}}'", "output": "json"},
                {"id": "string", "kind": "shell", "forEach": {"from": "object", "select": "/a"}, "run": "true"},
                {"id": "missing", "kind": "shell", "forEach": {"from": "object", "select": "/c"}, "run": "true"},
                {"id": "after", "kind": "shell", "dependsOn": ["string"], "always": true, "run": "true"}
                """#))
    }

    @Test func anItemWithoutTheFieldFailsItsInstance() throws {
        try ArgoEquivalenceTests.compare(
            workflow(
                #"""
                {"id": "list", "kind": "shell", "run": "echo '[{\"os\": \"linux\"}, \"plain\"]'", "output": "json"},
                {"id": "each", "kind": "shell", "forEach": {"from": "list"}, "continueOnError": true,
                 "argv": ["printf", "%s", "${item.os}"], "output": "text"},
                {"id": "read", "kind": "shell", "input": {"from": "each"}, "run": "cat > fields.json"}
                """#),
            files: ["fields.json"])
    }

    @Test func aGroupGivesAForEachsOutput() throws {
        try ArgoEquivalenceTests.compare(
            workflow(
                #"""
                {"id": "g", "kind": "group", "outputFrom": "each", "procedures": [
                  {"id": "each", "kind": "shell", "forEach": {"in": [1, 2]}, "run": "echo $item", "output": "json"}]},
                {"id": "read", "kind": "shell", "input": {"from": "g"}, "run": "cat > group.json"}
                """#),
            files: ["group.json"])
    }

    @Test func theManifestPassesTheChecks() throws {
        let export = try exportManifest(
            json: workflow(
                #"""
                {"id": "list", "kind": "shell", "run": "echo '[1]'", "output": "json"},
                {"id": "dynamic", "kind": "shell", "forEach": {"from": "list"}, "argv": ["echo", "${item}"], "output": "text"},
                {"id": "static", "kind": "shell", "forEach": {"matrix": {"a": [1, 2]}}, "run": "echo $item", "env": {"A": "${item.a}"}}
                """#))
        #expect(ArgoManifestCheck.check(export.manifest.json).isEmpty)
        #expect(export.manifest.json.contains(#""withItems""#))
        #expect(
            export.manifest.json.contains(
                #""withParam": "{{tasks.dynamic--prepare.outputs.parameters.loop}}""#))
    }

    @Test func aLargeListInTheFileIsWarnedAbout() throws {
        let items = (0..<20_000).map { "\"item-\($0)\"" }.joined(separator: ", ")
        let export = try exportManifest(
            json: workflow(
                #"{"id": "each", "kind": "shell", "forEach": {"in": [\#(items)]}, "run": "true"}"#))
        #expect(export.warnings.count == 1)
        #expect(
            export.warnings.first?.hasPrefix(#""each": its 20,000 items take "#) == true,
            "\(export.warnings)")
    }

    /// What Argo reads itself, or the export decides once, cannot take the item.
    static let refusals: [ErrorCase] = [
        ErrorCase(
            name: "a cwd that takes the item",
            json: workflow(
                #"{"id": "each", "kind": "shell", "forEach": {"in": ["a"]}, "cwd": "${item}", "run": "true"}"#
            ),
            expected: [
                #"test.json:1:17: error: /procedures/0/cwd: cannot export "each" to Argo: its cwd takes the item, and Argo reads a container's working directory as it is: cd in the command instead"#
            ]),
        ErrorCase(
            name: "a condition that takes the item",
            json: workflow(
                #"{"id": "each", "kind": "shell", "forEach": {"in": ["a"]}, "when": {"exists": "${item}.txt"}, "run": "true"}"#
            ),
            expected: [
                #"test.json:1:17: error: /procedures/0/when: cannot export "each" to Argo: its condition takes the item, and the export decides a forEach's condition once for every instance: test the item in the command instead"#
            ]),
    ]

    @Test(arguments: refusals)
    func whatCannotTakeTheItemIsRefused(_ testCase: ErrorCase) throws {
        do {
            _ = try exportManifest(json: testCase.json)
            Issue.record("exported anyway")
        } catch let error as ArgoExportError {
            #expect(error.diagnostics.map(\.description) == testCase.expected)
        }
    }

    @Test func theHelperIsNotListedAndRefusesBadInput() throws {
        let help = try runProcflow(["--help"])
        #expect(!help.stdout.contains("argo-pod"))
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = directory.appendingPathComponent("list").path
        try Data(#"{"not": "a list"}"#.utf8).write(to: URL(fileURLWithPath: list))
        let spec =
            #"{"step": "each", "variable": "item", "fields": [], "format": "json", "select": ""}"#
        let result = try runProcflow(["argo-pod", "loop", spec, list, directory.path])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "procflow: each: forEach needs a list of items, and the wire gave an object\n")
    }
}
