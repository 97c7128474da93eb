import Foundation
import Testing

@testable import Procflow

/// Every stored field of `value`, recursively, as text: two workflows with the same text have
/// the same fields. Dictionaries and sets are in sorted order; a JSON Pointer is its text (its
/// chain of tokens is shared differently by each way of making it); the source map is its files.
private func fields(of value: Any) -> String {
    if let pointer = value as? JSONPointer { return "JSONPointer(\(pointer))" }
    if let sources = value as? SourceMap {
        return "SourceMap(\(sources.names), \(sources.otherFiles))"
    }
    let mirror = Mirror(reflecting: value)
    let children = mirror.children.map { "\($0.label ?? "_"): \(fields(of: $0.value))" }
    switch mirror.displayStyle {
    case .dictionary?, .set?: return "[" + children.sorted().joined(separator: ", ") + "]"
    case .optional?: return mirror.children.first.map { fields(of: $0.value) } ?? "nil"
    case nil: return "\(type(of: value))(\(value))"
    case .enum? where children.isEmpty: return "\(type(of: value)).\(value)"
    default: return "\(type(of: value))(" + children.joined(separator: ", ") + ")"
    }
}

/// Records where the fields of `actual` and `expected` first differ, if they do.
private func expectSameFields(
    _ actual: Workflow, _ expected: Workflow,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    let (actual, expected) = (Array(fields(of: actual)), Array(fields(of: expected)))
    guard actual != expected else { return }
    let at = zip(actual, expected).prefix { $0 == $1 }.count
    let context = { (text: [Character]) in String(text[max(0, at - 150)..<min(text.count, at + 80)])
    }
    Issue.record(
        "fields differ at character \(at):\n  got      …\(context(actual))…\n  expected …\(context(expected))…",
        sourceLocation: sourceLocation)
}

/// `workflow` through a plan's encoding and back (the plan file gives the source map).
private func roundTrip(_ workflow: Workflow) throws -> Workflow {
    let encoder = WorkflowEncoder()
    encoder.workflow(workflow)
    return try encoder.writer.bytes.withUnsafeBytes { bytes in
        let decoding = WorkflowDecoding(BinaryReader(bytes))
        var decoded = try decoding.workflow()
        #expect(decoding.reader.isAtEnd)
        decoded.sources = workflow.sources
        return decoded
    }
}

/// A workflow that gives every field of the format a value other than its default, with an
/// included file and dotenv files, written to a fresh directory.
private struct EveryField {
    let directory: URL
    var file: String { directory.appendingPathComponent("flow.json").path }

    /// - Parameter secret: the name the workflow's `secrets` lists: `TOKEN` is in its dotenv
    ///   file, `greeting` a variable, `API_KEY` in neither.
    init(secret: String = "API_KEY") throws {
        directory = try temporaryDirectory()
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("ci"), withIntermediateDirectories: true)
        try write(
            "ci/tests.json",
            #"""
            {"vars": {"suite": "unit"}, "env": {"SUITE": "${suite}"},
             "procedures": [{"id": "test", "kind": "shell", "run": "echo ${suite}", "output": "text"}]}
            """#)
        try write(".env", "TOKEN=abc\nOTHER=1\n")
        try write("flow.json", Self.text(secret: secret))
    }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: directory.appendingPathComponent(name))
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    static func text(secret: String = "API_KEY") -> String {
        #"""
        {
          // Every field the format has.
          "name": "everything", "description": "all the fields",
          "vars": {"greeting": "hello", "port": "8765"},
          "env": {"WORLD": "world"},
          "dotenv": [".env", {"path": ".env.missing", "optional": true, "secret": true}],
          "secrets": ["\#(secret)"],
          "maxConcurrency": 3,
          "cacheKey": ["v1", {"command": "echo key"}, {"file": "key.txt"}],
          "executor": "local",
          "resources": {"cpus": 1, "memory": "64M", "time": "1h", "gpus": 0},
          "slurm": {"partition": "debug", "account": "acct", "qos": "normal",
                    "extraArgs": ["--exclusive"], "pendingTimeout": "10m"},
          "include": [{"path": "ci/tests.json", "as": "tests", "vars": {"suite": "integration"}}],
          "procedures": [
            {"id": "db", "kind": "shell", "run": "sleep 100", "service": true,
             "ready": {"log": "ready.*", "timeout": 12.5}},
            {"id": "web", "kind": "shell", "argv": ["sleep", "100"], "service": true,
             "ready": {"port": "${port}"}},
            {"id": "api", "kind": "shell", "run": "sleep 100", "service": true,
             "ready": {"http": "http://127.0.0.1:${port}/"}},
            {"id": "probe", "kind": "shell", "run": "sleep 100", "service": true,
             "ready": {"command": "true"}},
            {"id": "gen", "kind": "shell", "description": "makes things", "shell": "bash",
             "run": "printf '{\"list\": [1, 2], \"tag\": \"x\"}'", "output": "json",
             "cwd": ".", "env": {"A": "1", "B": "two"}, "jobserver": false, "image": "alpine:3",
             "sources": ["src/**/*.c", "key.txt", "lit\\*eral", "[ab]?.h"],
             "generates": ["out/gen.o", "out/*.d"], "depfile": "out/gen.d",
             "cache": true, "cacheKey": ["local", {"command": "cc --version"}, {"file": "k"}],
             "executor": "local", "resources": {"cpus": 2}, "slurm": {"partition": "gpu"},
             "mutex": "disk", "timeout": 30, "continueOnError": true,
             "retry": {"attempts": 3, "backoff": "linear", "delay": 0.5, "maxDelay": 4, "jitter": 0.1},
             "dependsOn": ["db", "web", "api", "probe"]},
            {"id": "py", "kind": "shell", "shell": "python3", "run": "print(1)",
             "inputs": {"LIST": {"from": "gen", "select": "/list"}, "ALL": {"from": "gen"}},
             "input": {"from": "gen", "select": "/tag"},
             "when": {"all": [{"env": "CI", "equals": "true"}, {"env": "HOME"},
                              {"not": {"exists": "nope"}},
                              {"any": [{"command": "true"},
                                       {"output": {"from": "gen", "select": "/tag"}, "equals": "x"}]}]}},
            {"id": "custom", "kind": "shell", "shell": ["sh", "-c"], "run": "echo hi", "always": true},
            {"id": "fetch", "kind": "http", "method": "POST", "url": "http://127.0.0.1:${port}/x",
             "headers": {"X-A": "1", "Authorization": "Bearer ${greeting}"},
             "body": {"k": [1, true, null, "s", 2.5, {"n": {}}]},
             "expect": [200, 201], "output": "json"},
            {"id": "fetch2", "kind": "http", "url": "http://127.0.0.1:${port}/y", "input": {"from": "gen"}},
            {"id": "read", "kind": "file", "op": "read", "path": "in.json", "output": "json"},
            {"id": "write", "kind": "file", "op": "write", "path": "out/w.txt", "content": "text ${greeting}"},
            {"id": "write2", "kind": "file", "op": "write", "path": "out/w2.txt", "input": {"from": "read"}},
            {"id": "copy", "kind": "file", "op": "copy", "source": "in.json", "path": "out/copy.json"},
            {"id": "render", "kind": "file", "op": "render", "template": "t.tmpl", "path": "out/r.txt",
             "input": {"from": "read"}},
            {"id": "render2", "kind": "file", "op": "render", "text": "{{name}}", "input": {"from": "read"}},
            {"id": "select", "kind": "file", "op": "select", "pointer": "/a~1b/0", "input": {"from": "read"}},
            {"id": "replace", "kind": "file", "op": "replace", "find": "a", "replace": "b",
             "input": {"from": "read"}},
            {"id": "concat", "kind": "file", "op": "concat", "paths": ["a.txt", "b.txt"], "path": "out/c.txt"},
            {"id": "group", "kind": "group", "maxConcurrency": 2, "executor": "local",
             "resources": {"memory": "1G"}, "slurm": {"qos": "low"},
             "input": {"from": "gen"}, "inputTo": "inner", "outputFrom": "inner",
             "procedures": [{"id": "inner", "kind": "shell", "run": "cat", "output": "text"}]},
            {"id": "choose", "kind": "branch", "on": {"from": "gen", "select": "/tag"},
             "cases": [{"equals": "x", "procedures": [{"id": "x1", "kind": "shell", "run": "true"}]},
                       {"equals": {"o": [1]}, "procedures": [{"id": "x2", "kind": "shell", "run": "true"}]}],
             "otherwise": [{"id": "x3", "kind": "shell", "run": "true"}]},
            {"id": "each", "kind": "shell", "run": "echo ${item}", "forEach": {"in": ["a", 2, {"k": "v"}]}},
            {"id": "cross", "kind": "shell", "run": "echo ${os.os}",
             "forEach": {"matrix": {"os": ["linux", "mac"], "arch": ["x86", "arm"]}, "as": "os",
                         "name": "build ${os.os}"}},
            {"id": "wired", "kind": "shell", "run": "echo $N", "env": {"N": "${n}"},
             "forEach": {"from": "gen", "select": "/list", "as": "n"}}
          ]
        }
        """#
    }
}

/// The plan a run of `fixture` left in its state directory.
private func planFile(of fixture: WorkflowFixture) throws -> URL {
    let state = fixture.directory.appendingPathComponent(".procflow")
    let name = try #require(
        try FileManager.default.contentsOfDirectory(atPath: state.path).first {
            $0.hasSuffix(".plan")
        })
    return state.appendingPathComponent(name)
}

@Suite("workflow plans")
struct WorkflowPlanTests {

    @Test func everyFieldOfTheFormatComesBackFromAPlan() throws {
        let everything = try EveryField()
        defer { everything.remove() }
        let workflow = try WorkflowLoader.load(path: everything.file)
        expectSameFields(try roundTrip(workflow), workflow)
        // A run of some steps: only some instances, and the steps left out.
        let restricted = workflow.restricted(to: ["each[1]", "gen"])
        #expect(!restricted.stepsLeftOut.isEmpty)
        expectSameFields(try roundTrip(restricted), restricted)
    }

    @Test(arguments: [
        "workflows/showcase.json", "workflows/build.json",
        "Tests/ProcflowTests/Fixtures/argo/workflow.json",
        "Tests/ProcflowTests/Fixtures/graph/workflow.json",
    ])
    func theProjectsWorkflowsComeBackFromAPlan(file: String) throws {
        let workflow = try WorkflowLoader.load(path: packageRoot.appendingPathComponent(file).path)
        expectSameFields(try roundTrip(workflow), workflow)
    }

    /// The comparison the tests above rest on sees a field deep in a step.
    @Test func theComparisonSeesAFieldDeepInAStep() throws {
        let everything = try EveryField()
        defer { everything.remove() }
        let workflow = try WorkflowLoader.load(path: everything.file)
        var changed = workflow
        let index = try #require(changed.steps.firstIndex { $0.id == "group" })
        guard case .group(var group) = changed.steps[index].kind else { return }
        group.steps[0].placement.slurm.pendingTimeout = 1
        changed.steps[index].kind = .group(group)
        #expect(fields(of: changed) != fields(of: workflow))
    }

    @Test func aDamagedEncodingIsNotAWorkflow() throws {
        let everything = try EveryField()
        defer { everything.remove() }
        let encoder = WorkflowEncoder()
        encoder.workflow(try WorkflowLoader.load(path: everything.file))
        let bytes = encoder.writer.bytes
        // Cut short anywhere, or with a count past the end, it throws; it never traps.
        for end in stride(from: 0, to: bytes.count, by: 97) {
            let decoded = Array(bytes[..<end]).withUnsafeBytes { buffer in
                try? WorkflowDecoding(BinaryReader(buffer)).workflow()
            }
            #expect(decoded == nil)
        }
        var huge = bytes
        huge.replaceSubrange(huge.count - 4..<huge.count, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(huge.withUnsafeBytes { try? WorkflowDecoding(BinaryReader($0)).workflow() } == nil)
    }

    @Test func anEncodingNestedDeeperThanAnyWorkflowIsNotOne() throws {
        var workflow = try WorkflowLoader.load(
            bytes: Array(#"{"procedures": [{"id": "a", "kind": "shell", "run": "true"}]}"#.utf8),
            file: "flow.json")
        var condition = StepCondition.command("true")
        for _ in 0..<600 { condition = .not(condition) }
        workflow.steps[0].when = condition
        let encoder = WorkflowEncoder()
        encoder.workflow(workflow)
        let decoded = encoder.writer.bytes.withUnsafeBytes { bytes in
            try? WorkflowDecoding(BinaryReader(bytes)).workflow()
        }
        #expect(decoded == nil)
        condition = .command("true")
        for _ in 0..<100 { condition = .not(condition) }
        workflow.steps[0].when = condition
        #expect(fields(of: try roundTrip(workflow)) == fields(of: workflow))
    }

    // MARK: - The plan file

    /// A workflow loaded in full, with the plan it wrote in a fresh state directory.
    private struct Planned {
        let everything: EveryField
        let state: StateDirectory
        let key: WorkflowPlan.Key
        let workflow: Workflow

        init(secret: String = "API_KEY") throws {
            everything = try EveryField(secret: secret)
            state = StateDirectory(path: everything.directory.appendingPathComponent("state").path)
            key = try #require(WorkflowPlan.Key(file: everything.file, overrides: []))
            workflow = try WorkflowLoader.load(path: everything.file)
            WorkflowPlan.write(workflow, for: key, bytes: bytes, trusted: nil, in: state)
        }

        var bytes: [UInt8] { Array(try! Data(contentsOf: URL(fileURLWithPath: everything.file))) }

        func read(
            key: WorkflowPlan.Key? = nil, bytes: [UInt8]? = nil, trusted: FileStatus? = nil
        ) -> WorkflowPlan.Outcome {
            WorkflowPlan.read(
                for: key ?? self.key, bytes: bytes ?? self.bytes, trusted: trusted, in: state)
        }
    }

    @Test func aPlanGivesTheWorkflowItWasWrittenFor() throws {
        let planned = try Planned()
        defer { planned.everything.remove() }
        guard case .loaded(let workflow, learnt: false) = planned.read() else {
            Issue.record("\(planned.read())")
            return
        }
        expectSameFields(workflow, planned.workflow)
        // The files it was read from, to say where a step is, and to watch.
        #expect(workflow.files == planned.workflow.files)
        #expect(workflow.files.count == 4)
        let step = try #require(workflow.allSteps.first { $0.id == "gen" })
        let line = EveryField.text().split(
            separator: "\n", omittingEmptySubsequences: false
        ).firstIndex { $0.contains(#"{"id": "gen""#) }
        #expect(workflow.sources?.locate(step.offset).location?.line == line.map { $0 + 1 })
    }

    @Test func aPlanTrustingTheWorkflowsStatusTellsItByThatStatus() throws {
        let planned = try Planned()
        defer { planned.everything.remove() }
        let status = try #require(FileSystem.status(planned.everything.file))
        WorkflowPlan.write(
            planned.workflow, for: planned.key, bytes: planned.bytes, trusted: status,
            in: planned.state)
        // The status unchanged: the content is not hashed (bytes it could not have had pass).
        guard case .loaded(_, learnt: false) = planned.read(bytes: Array("{}".utf8)) else {
            Issue.record("\(planned.read(bytes: Array("{}".utf8)))")
            return
        }
        // Written again, the same: told by its digest. Changed: no plan.
        try planned.everything.write("flow.json", EveryField.text())
        guard case .loaded = planned.read(), case .noPlan = planned.read(bytes: Array("{}".utf8))
        else {
            Issue.record("\(planned.read()), \(planned.read(bytes: Array("{}".utf8)))")
            return
        }
    }

    @Test func aPlanLearnsTheWorkflowsStatusOnceItCanBeTrusted() throws {
        let planned = try Planned()
        defer { planned.everything.remove() }
        let status = try #require(FileSystem.status(planned.everything.file))
        // Fresh, a status is not trusted; settled, it is.
        let now = FileSystem.now()
        #expect(WorkflowPlan.trustedStatus(status, seenAt: now) == nil)
        #expect(WorkflowPlan.trustedStatus(status, seenAt: now + 2_100_000_000) == status)
        // Written without it, read with it: to be written again with it.
        guard case .loaded(_, learnt: true) = planned.read(trusted: status) else {
            Issue.record("\(planned.read(trusted: status))")
            return
        }
        guard case .loaded(_, learnt: false) = planned.read() else {
            Issue.record("\(planned.read())")
            return
        }
    }

    @Test func aRunKeepsTheWorkflowsStatusInItsPlanOnceSettled() throws {
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "a", "kind": "shell", "run": "echo a > a.txt"}]}"#)
        defer { fixture.remove() }
        func planTrusts() throws -> Bool {
            let bytes = Array(try Data(contentsOf: try planFile(of: fixture)))
            return try StateFile.unwrap(bytes, as: .plan) { reader throws(BinaryReader.Truncated) in
                _ = try reader.status()
                _ = try reader.string()
                _ = try reader.string()
                _ = try reader.strings()
                let trusted = try reader.status() != nil
                reader.skipRest()
                return trusted
            }
        }
        #expect(try fixture.run().status == 0)
        #expect(try !planTrusts())
        let file = fixture.directory.appendingPathComponent(fixture.file).path
        let status = try #require(FileSystem.status(file))
        while !status.isSettled(at: FileSystem.now()) { Thread.sleep(forTimeInterval: 0.02) }
        #expect(try fixture.run().status == 0)
        #expect(try planTrusts())
        // Edited, the same size: seen at once.
        try Data(#"{"procedures": [{"id": "b", "kind": "shell", "run": "echo b > b.txt"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: file))
        #expect(try fixture.run().status == 0)
        #expect(fixture.contents("b.txt") == "b\n")
    }

    @Test(arguments: [
        "the workflow file", "an included file", "a dotenv file", "a missing dotenv file",
    ])
    func aChangeToAFileTheLoadReadIsNoPlan(file: String) throws {
        let planned = try Planned()
        defer { planned.everything.remove() }
        switch file {
        case "the workflow file":
            try planned.everything.write(
                "flow.json", EveryField.text().replacing("hello", with: "HELLO"))
        case "an included file":
            try planned.everything.write(
                "ci/tests.json",
                #"{"procedures": [{"id": "test", "kind": "shell", "run": "echo other"}]}"#)
        case "a dotenv file": try planned.everything.write(".env", "TOKEN=abd\nOTHER=1\n")
        default: try planned.everything.write(".env.missing", "NEW=1\n")
        }
        guard case .noPlan = planned.read() else {
            Issue.record("\(planned.read())")
            return
        }
    }

    /// A file that changes between the load and the plan's writing: the plan is of what the
    /// load read, so the new content finds no plan (rather than the old content's workflow).
    @Test(arguments: ["ci/tests.json", ".env"])
    func aFileChangedWhileTheWorkflowLoadedFindsNoPlan(file: String) throws {
        let everything = try EveryField()
        defer { everything.remove() }
        let state = StateDirectory(
            path: everything.directory.appendingPathComponent("state").path)
        let key = try #require(WorkflowPlan.Key(file: everything.file, overrides: []))
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: everything.file)))
        let workflow = try WorkflowLoader.load(bytes: bytes, file: everything.file)
        try everything.write(
            file,
            file == ".env"
                ? "TOKEN=changed\nOTHER=1\n"
                : #"{"procedures": [{"id": "test", "kind": "shell", "run": "echo changed"}]}"#)
        WorkflowPlan.write(workflow, for: key, bytes: bytes, trusted: nil, in: state)
        guard case .noPlan = WorkflowPlan.read(for: key, bytes: bytes, trusted: nil, in: state)
        else {
            Issue.record("\(WorkflowPlan.read(for: key, bytes: bytes, trusted: nil, in: state))")
            return
        }
    }

    @Test func anotherProcflowDirectoryOrVarIsNoPlan() throws {
        let planned = try Planned()
        defer { planned.everything.remove() }
        var program = planned.key
        program.program.modified += 1
        var directory = planned.key
        directory.directory += "/elsewhere"
        var overrides = planned.key
        overrides.overrides = ["greeting=hi"]
        for key in [program, directory, overrides] {
            guard case .noPlan = planned.read(key: key) else {
                Issue.record("\(planned.read(key: key))")
                continue
            }
        }
    }

    @Test func aDamagedOrForeignPlanIsUnusableAndSaysWhy() throws {
        let planned = try Planned()
        defer { planned.everything.remove() }
        let path = planned.state.plan(for: planned.key.file)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 2] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        guard case .unusable(let reason) = planned.read() else {
            Issue.record("\(planned.read())")
            return
        }
        #expect(reason == "it is damaged (its checksum is wrong)")
        try Data(StateFile.wrap([1, 2, 3], as: .snapshot)).write(to: URL(fileURLWithPath: path))
        guard case .unusable(let foreign) = planned.read() else {
            Issue.record("\(planned.read())")
            return
        }
        #expect(foreign == "it is damaged (not a procflow state file)")
    }

    @Test(arguments: [("TOKEN", false), ("greeting", false), ("API_KEY", true)])
    func aWorkflowThatHoldsASecretsValueHasNoPlan(secret: String, planned: Bool) throws {
        let written = try Planned(secret: secret)
        defer { written.everything.remove() }
        let path = written.state.plan(for: written.key.file)
        #expect(FileManager.default.fileExists(atPath: path) == planned)
    }

    // MARK: - Runs

    @Test func aRunOfAnUnchangedWorkflowTakesItFromThePlan() throws {
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "a", "kind": "shell", "run": "printf file > out.txt"}]}"#)
        defer { fixture.remove() }
        #expect(try fixture.run().status == 0)
        #expect(fixture.contents("out.txt") == "file")
        // A plan for this file, written as procflow would, but saying another command: a run
        // that follows it did not load the file.
        let file = fixture.directory.appendingPathComponent(fixture.file).path
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        var workflow = try WorkflowLoader.load(bytes: bytes, file: fixture.file)
        guard case .shell(var shell) = workflow.steps[0].kind else { return }
        shell.command = .script("printf plan > out.txt")
        workflow.steps[0].kind = .shell(shell)
        let key = WorkflowPlan.Key(
            program: try #require(FileSystem.status(procflowBinary.path)),
            directory: fixture.directory.resolvingSymlinksInPath().path, file: fixture.file,
            overrides: [])
        // Written elsewhere (this process's directory is not the run's), then put in place.
        let elsewhere = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let written = StateDirectory(path: elsewhere.path)
        WorkflowPlan.write(workflow, for: key, bytes: bytes, trusted: nil, in: written)
        let plan = try Data(contentsOf: URL(fileURLWithPath: written.plan(for: key.file)))
        try plan.write(to: try planFile(of: fixture))
        #expect(try fixture.run(["--force"]).status == 0)
        #expect(fixture.contents("out.txt") == "plan")
    }

    @Test func aChangedWorkflowIsSeenAtOnce() throws {
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "a", "kind": "shell", "run": "printf one > out.txt"}]}"#)
        defer { fixture.remove() }
        #expect(try fixture.run().status == 0)
        _ = try planFile(of: fixture)
        // Same size, and written within the same second.
        try Data(
            #"{"procedures": [{"id": "a", "kind": "shell", "run": "printf two > out.txt"}]}"#.utf8
        )
        .write(to: fixture.directory.appendingPathComponent(fixture.file))
        #expect(try fixture.run().status == 0)
        #expect(fixture.contents("out.txt") == "two")
    }

    @Test func aDamagedPlanIsAWarningAndAFullLoad() throws {
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "a", "kind": "shell", "run": "printf one > out.txt"}]}"#)
        defer { fixture.remove() }
        #expect(try fixture.run().status == 0)
        let url = try planFile(of: fixture)
        var bytes = Array(try Data(contentsOf: url))
        bytes[bytes.count - 1] ^= 1
        try Data(bytes).write(to: url)
        let damaged = try fixture.run(["--force"])
        #expect(damaged.status == 0)
        #expect(
            damaged.stderr.contains(
                "warning: not using the workflow's plan \(url.resolvingSymlinksInPath().path): it is damaged (its checksum is wrong); loading the workflow in full"
            ), "\(damaged.stderr)")
        // The full load wrote it again.
        let again = try fixture.run(["--force"])
        #expect(again.status == 0)
        #expect(!again.stderr.contains("warning"), "\(again.stderr)")
    }
}

/// Lists of texts in a state file, read back; a list the same as the one before is that one,
/// shared (the path of every step in a group, in a snapshot of 100,000 steps).
@Suite("Lists of texts in state files")
struct StateFileTextListTests {
    @Test func aListTheSameAsTheOneBeforeIsSharedAndTheOthersAreRead() throws {
        let lists: [[String]] = [
            [], ["g0"], ["g0"], ["g0", "inner"], ["g0", "inner"], ["g1"], [], ["é"], ["é"],
        ]
        var writer = BinaryWriter()
        for list in lists { writer.write(strings: list) }
        writer.write(UInt32(7))
        let bytes = writer.bytes
        try bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) throws in
            var reader = BinaryReader(buffer)
            var previous: [String] = []
            for (index, list) in lists.enumerated() {
                let read = try reader.strings(sameAs: previous)
                #expect(read == list)
                if index > 0, list == lists[index - 1], !list.isEmpty {
                    // The very array, not a copy made again.
                    #expect(
                        read.withUnsafeBufferPointer { $0.baseAddress }
                            == previous.withUnsafeBufferPointer { $0.baseAddress })
                }
                previous = read
            }
            #expect(try reader.uint32() == 7)
            #expect(reader.isAtEnd)
        }
    }
}
