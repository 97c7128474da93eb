import Foundation
import Testing

@testable import Procflow

/// A `forEach` makes at most 100,000 instances, a matrix has at most 32 axes, and the
/// `forEach` steps of a workflow make at most 1,000,000 procedures in all: past a limit, the
/// file is a located error found before any instance is made, in bounded time and memory.
@Suite("forEach limits")
struct ForEachLimitTests {
    /// A matrix of `lengths.count` axes `a0`, `a1`, … with that many values each.
    static func matrix(_ lengths: [Int]) -> String {
        let axes = lengths.enumerated().map { axis, length in
            "\"a\(axis)\": [\((0..<length).map(String.init).joined(separator: ","))]"
        }
        return "{\(axes.joined(separator: ", "))}"
    }

    static func forEachStep(_ id: String, _ forEach: String, children: Int = 0) -> String {
        guard children > 0 else {
            return #"{"id": "\#(id)", "kind": "shell", "forEach": \#(forEach), "run": "true"}"#
        }
        let steps = (0..<children).map {
            #"{"id": "\#(id)c\#($0)", "kind": "shell", "run": "true"}"#
        }
        return
            #"{"id": "\#(id)", "kind": "group", "forEach": \#(forEach), "procedures": [\#(steps.joined(separator: ", "))]}"#
    }

    /// A workflow past a limit, and its one error.
    struct Case: CustomStringConvertible, Sendable {
        let name: String
        let procedures: String
        let expected: String

        var description: String { name }

        init(_ name: String, _ procedures: String, _ expected: String) {
            (self.name, self.procedures, self.expected) = (name, procedures, expected)
        }
    }

    static let limitCases: [Case] = [
        Case(
            "a matrix of 200,000 combinations",
            forEachStep("m", #"{"matrix": \#(matrix([10, 10, 10, 10, 10, 2]))}"#),
            "test.json:1:68: error: /procedures/0/forEach/matrix: the matrix has 200,000 combinations (10 × 10 × 10 × 10 × 10 × 2); a forEach makes at most 100,000 instances"
        ),
        Case(
            "a matrix whose count overflows",
            forEachStep("m", #"{"matrix": \#(matrix(Array(repeating: 10, count: 20)))}"#),
            "test.json:1:68: error: /procedures/0/forEach/matrix: the matrix has more than 9,223,372,036,854,775,807 combinations (\(Array(repeating: "10", count: 20).joined(separator: " × "))); a forEach makes at most 100,000 instances"
        ),
        Case(
            "a list of 100,001 items",
            forEachStep(
                "m", #"{"in": [\#((0...100_000).map(String.init).joined(separator: ","))]}"#),
            "test.json:1:64: error: /procedures/0/forEach/in: the list has 100,001 items; a forEach makes at most 100,000 instances"
        ),
        Case(
            "a matrix of 33 axes",
            forEachStep("m", #"{"matrix": \#(matrix(Array(repeating: 1, count: 33)))}"#),
            "test.json:1:68: error: /procedures/0/forEach/matrix: the matrix has 33 axes; a matrix has at most 32"
        ),
        Case(
            "a matrix naming an axis twice",
            forEachStep("m", #"{"matrix": {"os": ["a"], "os": ["b"]}}"#),
            #"test.json:1:82: error: /procedures/0/forEach/matrix/os: duplicate axis "os""#
        ),
        Case(
            "a forEach around a group past the total",
            forEachStep("g", #"{"matrix": \#(matrix([10, 10, 10, 10, 10]))}"#, children: 10),
            #"test.json:1:57: error: /procedures/0/forEach: "g" makes 100,000 instances of 11 procedures, which brings the procedures forEach steps make to 1,100,000; a workflow's forEach steps make at most 1,000,000"#
        ),
        Case(
            "forEach steps past the total together",
            forEachStep("g", #"{"matrix": \#(matrix([10, 10, 10, 10, 6]))}"#, children: 9) + ", "
                + forEachStep("h", #"{"matrix": \#(matrix([10, 10, 10, 10, 5]))}"#, children: 9),
            #"test.json:1:688: error: /procedures/1/forEach: "h" makes 50,000 instances of 10 procedures, which brings the procedures forEach steps make to 1,100,000; a workflow's forEach steps make at most 1,000,000"#
        ),
        Case(
            "a large content naming the item, made once per item",
            #"{"id": "w", "kind": "file", "op": "write", "path": "out/${item}", "content": "\#(String(repeating: "x", count: 100_000))${item}", "forEach": {"in": [\#((0..<1_000).map(String.init).joined(separator: ","))]}}"#,
            #"test.json:1:100116: error: /procedures/0/forEach: "w" fills its item into 98 KiB of text for each of its 1,000 instances, which brings the text forEach instances fill in to 95.4 MiB; a workflow's forEach instances fill in at most 64 MiB"#
        ),
    ]

    @Test func textWithoutTheItemIsSharedByTheInstances() throws {
        // Only fields naming the item are made anew: the script and this content are not.
        let big = String(repeating: "x", count: 100_000)
        let list = (0..<1_000).map(String.init).joined(separator: ",")
        let loaded = try loadWorkflow(
            workflow(
                #"{"id": "w", "kind": "file", "op": "write", "path": "out/${item}", "content": "\#(big)", "forEach": {"in": [\#(list)]}}, {"id": "s", "kind": "shell", "run": "echo \#(big) ${item}", "forEach": {"in": [\#(list)]}}"#
            )
        ).get()
        #expect(loaded.steps.map(\.itemTextSize) == [11, 0])
    }

    @Test(arguments: limitCases)
    func pastALimitIsALocatedErrorBeforeAnyInstanceIsMade(_ test: Case) {
        let started = Date()
        let found = diagnostics(workflow(test.procedures))
        #expect(found == [test.expected], "\(found.map { $0.prefix(300) })")
        // Counted, not made: making them took minutes and gigabytes.
        #expect(Date().timeIntervalSince(started) < 20)
    }

    @Test func aForEachOfExactlyTheLimitIsValid() throws {
        let list = (0..<Workflow.maximumInstancesPerForEach).map(String.init)
        let loaded = try loadWorkflow(
            workflow(Self.forEachStep("m", #"{"in": [\#(list.joined(separator: ","))]}"#))
        ).get()
        #expect(loaded.steps[0].forEach?.items.count == 100_000)
        #expect(loaded.steps[0].forEach?.staticItems?.last == .number(99_999))
    }

    @Test func aMatrixIsCountedAndMadeFirstAxisSlowest() throws {
        let items = ForEach.Items.matrix([
            ("os", [.string("linux"), .string("mac")]), ("none", []),
        ])
        #expect(items.count == 0)
        let forEach = ForEach(
            items: .matrix([
                ("os", [.string("linux"), .string("mac")]),
                ("arch", [.string("x86"), .string("arm"), .string("riscv")]),
            ]), variable: "item", pointer: .root, offset: 0)
        #expect(forEach.items.count == 6)
        #expect(
            forEach.staticItems?.map { $0.text } == [
                #"{"arch":"x86","os":"linux"}"#, #"{"arch":"arm","os":"linux"}"#,
                #"{"arch":"riscv","os":"linux"}"#, #"{"arch":"x86","os":"mac"}"#,
                #"{"arch":"arm","os":"mac"}"#, #"{"arch":"riscv","os":"mac"}"#,
            ])
    }

    @Test func aWiredListPastTheLimitFailsTheStepBeforeAnyInstanceRuns() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "list", "kind": "shell", "output": "json",
               "run": "awk 'BEGIN { printf \\"[0\\"; for (i = 1; i <= 100000; i++) printf \\",%d\\", i; printf \\"]\\" }'"},
              {"id": "each", "kind": "shell", "forEach": {"from": "list"}, "run": "echo $item >> ran"}
            ]}
            """)
        defer { fixture.remove() }
        let (result, events) = try fixture.run(["--events", "json"], timeout: 60).parsed()
        #expect(result.status == 1)
        #expect(
            reasons(events)["each"]
                == "the wire gave 100,001 items; a forEach makes at most 100,000 instances")
        #expect(fixture.contents("ran") == nil)
    }
}
