import Foundation
import Testing

@testable import Procflow

/// A `forEach` step's instances are called by their items — `cc[src/lapi.c]`, or the name the
/// step's `forEach` gives — wherever procflow shows them, and are targets by that name.
@Suite("forEach instances named by their items")
struct ForEachNameTests {
    static let workflow = """
        {"procedures": [
          {"id": "cc", "kind": "shell", "forEach": {"in": ["src/lapi.c", "src/lcode.c", 7]},
           "run": "echo \\"compiling $item\\""},
          {"id": "test", "kind": "shell",
           "forEach": {"matrix": {"os": ["linux"], "cc": ["gcc", "clang"]}, "name": "test on ${item.os} with ${item.cc}"},
           "run": "echo \\"testing $item\\""},
          {"id": "odd", "kind": "shell", "forEach": {"in": ["same", "same", {"a": [1]}, "x[1]"]},
           "run": "true"}
        ]}
        """

    @Test func theNamesFollowTheItems() {
        let forEach = ForEach(items: .values([]), variable: "item", pointer: .root, offset: 0)
        #expect(
            forEach.instanceNames(
                of: "cc", items: [.string("a.c"), .number(2), .bool(true), .string("")])
                == ["cc[a.c]", "cc[1]", "cc[true]", "cc[3]"])
        // Twins, what has no text or a bracket, what is too long: the index.
        #expect(
            forEach.instanceNames(
                of: "x",
                items: [
                    .string("same"), .string("same"), .array([]), .null, .string("a]"),
                    .string(String(repeating: "l", count: 90)), .string("tab\there"),
                ]) == (0..<7).map { "x[\($0)]" })
        #expect(
            forEach.instanceNames(
                of: "m", items: [.object(["os": .string("linux"), "cc": .string("gcc")])])
                == ["m[cc=gcc,os=linux]"])
        var named = forEach
        named.name = "build ${item.os}"
        #expect(
            named.instanceNames(
                of: "b", items: [.object(["os": .string("linux")]), .object(["cpu": .string("x")])])
                == ["build linux", "b[1]"])
    }

    @Test func everyReportShowsTheNames() throws {
        let fixture = try WorkflowFixture(Self.workflow)
        defer { fixture.remove() }
        let run = try fixture.run([
            "--output", "prefixed", "--junit", "junit.xml", "--summary", "summary.json", "--html",
            "r.html",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        for line in [
            "cc[src/lapi.c] compiling src/lapi.c", "cc[2] compiling 7",
            "test on linux with clang", "odd[0]", "odd[2]", "odd[3]",
        ] {
            #expect(run.stdout.contains(line), "\(line): \(run.stdout)")
        }
        #expect(!run.stdout.contains("cc[0]"))
        let junit = try #require(fixture.contents("junit.xml"))
        #expect(junit.contains(#"<testcase name="cc[src/lcode.c]""#))
        #expect(junit.contains(#"<testcase name="test on linux with gcc""#))
        let summary = try #require(fixture.contents("summary.json"))
        #expect(summary.contains(#""id":"cc[0]""#) && summary.contains(#""name":"cc[src/lapi.c]""#))
        #expect(try #require(fixture.contents("r.html")).contains("cc[src/lcode.c]"))
        let (_, events) = try fixture.events(["--no-cache"])
        let started = events.filter { $0["event"] as? String == "step.started" }
        #expect(
            started.contains {
                $0["step"] as? String == "cc[1]" && $0["name"] as? String == "cc[src/lcode.c]"
            })
        #expect(started.contains { $0["step"] as? String == "odd[0]" && $0["name"] == nil })
    }

    @Test func anInstanceIsATargetByNameOrId() throws {
        let fixture = try WorkflowFixture(Self.workflow)
        defer { fixture.remove() }
        let byName = try fixture.run(["cc[src/lcode.c]", "--output", "prefixed"])
        #expect(byName.status == 0, "\(byName.stderr)")
        #expect(byName.stdout.contains("compiling src/lcode.c"))
        #expect(!byName.stdout.contains("compiling src/lapi.c"))
        #expect(!byName.stdout.contains("testing"))
        let byTemplate = try fixture.run([
            "--only", "test on linux with gcc", "--output", "prefixed",
        ])
        #expect(byTemplate.status == 0, "\(byTemplate.stderr)")
        #expect(byTemplate.stdout.contains("test on linux with gcc testing"))
        #expect(!byTemplate.stdout.contains("clang"))
        let byID = try fixture.run(["cc[2]", "--output", "prefixed"])
        #expect(byID.stdout.contains("compiling 7") && !byID.stdout.contains("lcode"))
        let unknown = try fixture.run(["cc[src/nope.c]"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.hasPrefix("error: no procedure \"cc[src/nope.c]\" in flow.json"))
    }

    @Test func anInstanceOfWiredItemsIsNoTarget() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "list", "kind": "shell", "output": "json", "run": "echo '[\\"a\\"]'"},
              {"id": "each", "kind": "shell", "forEach": {"from": "list"}, "run": "true"}
            ]}
            """)
        defer { fixture.remove() }
        let result = try fixture.run(["each[a]"])
        #expect(result.status == 2)
        #expect(
            result.stderr.hasPrefix(
                "error: \"each[a]\" names an instance of each, whose items come from another step as the run goes: run each"
            ), "\(result.stderr)")
    }

    @Test func aStepsIdIsNeverTakenForAnInstancesName() throws {
        let fixture = try WorkflowFixture(
            """
            {"procedures": [
              {"id": "each", "kind": "shell", "forEach": {"in": ["link"], "name": "${item}"},
               "run": "echo instance"},
              {"id": "link", "kind": "shell", "run": "echo the-step"}
            ]}
            """)
        defer { fixture.remove() }
        let result = try fixture.run(["link", "--output", "prefixed"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("the-step"))
        #expect(!result.stdout.contains("instance"))
    }
}
