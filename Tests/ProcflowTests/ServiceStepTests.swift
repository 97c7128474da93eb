import Foundation
import Testing

@testable import Procflow

/// Whether the process `pid` is alive: it exists and is not a zombie.
private func isAlive(_ pid: Int32) -> Bool {
    guard
        let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let end = stat.lastIndex(of: ")")
    else { return false }
    return !stat[end...].hasPrefix(") Z")
}

/// The pids a fixture's service wrote, one a file, once written.
private func pids(_ fixture: WorkflowFixture, _ names: [String]) -> [Int32] {
    names.compactMap { name in
        fixture.contents(name).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}

/// A service script that starts a child, writes its own pid and the child's, says it is ready,
/// and waits for the child.
private let serviceWithChild =
    #"sleep 300 & echo $! > child.pid; echo $$ > service.pid; echo ready; wait"#

@Suite("Service steps: loading")
struct ServiceLoadingTests {

    @Test(arguments: [
        ("port", #"{"port": 5432}"#, Service.Readiness.port(5432)),
        ("port from a variable", #"{"port": "${port}"}"#, .port(6543)),
        (
            "http", #"{"http": "http://127.0.0.1:${port}/health"}"#,
            .http("http://127.0.0.1:6543/health")
        ),
        ("log", #"{"log": "listening on [0-9]+"}"#, .log("listening on [0-9]+")),
        ("command", #"{"command": "pg_isready"}"#, .command("pg_isready")),
    ])
    func readinessKinds(name: String, ready: String, expected: Service.Readiness) throws {
        let json = workflow(
            #"{"id": "db", "kind": "shell", "service": true, "run": "serve", "ready": \#(ready)},"#
                + #"{"id": "test", "kind": "shell", "run": "true", "dependsOn": ["db"]}"#,
            extra: #""vars": {"port": "6543"}, "#)
        let loaded = try loadWorkflow(json).get()
        let service = try #require(loaded.steps[0].service)
        #expect(service.ready == expected)
        #expect(service.timeout == Service.defaultTimeout)
    }

    @Test func withoutReadyItIsReadyOnceStartedAndATimeoutIsKept() throws {
        let json = workflow(
            #"{"id": "db", "kind": "shell", "service": true, "run": "serve"},"#
                + #"{"id": "web", "kind": "shell", "service": true, "run": "serve", "ready": {"log": "up", "timeout": 2.5}},"#
                + #"{"id": "test", "kind": "shell", "run": "true", "dependsOn": ["db", "web"]}"#)
        let loaded = try loadWorkflow(json).get()
        #expect(loaded.steps[0].service?.ready == .started)
        #expect(loaded.steps[1].service?.timeout == 2.5)
        #expect(loaded.steps[2].service == nil)
    }

    /// Each bad service, and the located error it gets.
    @Test(arguments: [
        (
            #""timeout": 5"#,
            #"a service cannot have "timeout": a service runs until its dependents"#
        ),
        (
            #""generates": ["out"]"#,
            #"a service cannot have "generates": a service runs every time"#
        ),
        (#""sources": ["src"]"#, #"a service cannot have "sources""#),
        (#""retry": {"attempts": 2}"#, #"a service cannot have "retry""#),
        (#""output": "text""#, #"a service cannot have "output""#),
        (#""forEach": {"in": [1, 2]}"#, #"a service cannot have "forEach": a service runs once"#),
        (#""executor": "slurm""#, #"its "executor" can only be "local""#),
        (#""ready": {"port": 1, "log": "x"}"#, #"give one of "port" and "log", not 2"#),
        (#""ready": {"timeout": 3}"#, #"missing field "port" (or "http", "log", "command")"#),
        (#""ready": {"log": "("}"#, #""(" is not a valid regular expression"#),
        (#""ready": {"port": 70000}"#, "70000 is out of range: expected 1 to 65535"),
        (#""ready": {"port": "http"}"#, #""http" is not a port"#),
        (#""ready": {"port": 80, "tiemout": 3}"#, #"unknown field "tiemout" in "ready""#),
        (#""ready": "port""#, #"expected an object such as {"port": 5432}"#),
    ])
    func refusals(field: String, message: String) {
        let json = workflow(
            #"{"id": "db", "kind": "shell", "service": true, "run": "serve", \#(field)},"#
                + #"{"id": "test", "kind": "shell", "run": "true", "dependsOn": ["db"]}"#)
        let found = diagnostics(json)
        #expect(
            found.contains { $0.hasPrefix("test.json:1:") && $0.contains(message) },
            "\(found)")
    }

    @Test func readyWithoutServiceIsRefused() {
        let found = diagnostics(
            workflow(#"{"id": "db", "kind": "shell", "run": "serve", "ready": {"port": 80}}"#))
        #expect(
            found.contains {
                $0.contains(#"test.json:1:"#)
                    && $0.contains(#"/procedures/0/ready: "ready" applies to a service"#)
            }, "\(found)")
    }

    @Test func aServiceNeedsADependent() {
        let found = diagnostics(
            workflow(#"{"id": "db", "kind": "shell", "service": true, "run": "serve"}"#))
        #expect(
            found.contains {
                $0.contains("test.json:1:")
                    && $0.contains(#"service "db" has no dependents"#)
            }, "\(found)")
    }

    @Test func dependingOnTheGroupHoldingItIsUsingIt() {
        let json = workflow(
            #"{"id": "infra", "kind": "group", "procedures": [{"id": "db", "kind": "shell", "service": true, "run": "serve"}]},"#
                + #"{"id": "test", "kind": "shell", "run": "true", "dependsOn": ["infra"]}"#)
        #expect(diagnostics(json) == [])
    }

    @Test func aServiceInsideAForEachIsRefused() {
        let found = diagnostics(
            workflow(
                #"{"id": "each", "kind": "group", "forEach": {"in": [1, 2]}, "procedures": ["#
                    + #"{"id": "db", "kind": "shell", "service": true, "run": "serve"},"#
                    + #"{"id": "test", "kind": "shell", "run": "true", "dependsOn": ["db"]}]}"#))
        #expect(
            found.contains { $0.contains(#"service "db" is inside a forEach"#) }, "\(found)")
    }

    @Test func aServiceGivesNoOutputToWire() {
        let found = diagnostics(
            workflow(
                #"{"id": "db", "kind": "shell", "service": true, "run": "serve"},"#
                    + #"{"id": "test", "kind": "shell", "run": "true", "input": {"from": "db"}}"#))
        #expect(
            found.contains { $0.contains(#""db" is a service and gives no output"#) },
            "\(found)")
    }
}

@Suite("Service steps: running")
struct ServiceStepTests {

    /// A dependent that checks, without waiting, what only a ready service has done.
    @Test(arguments: ["port", "http", "log", "command"])
    func dependentsStartOnceTheServiceIsReady(kind: String) throws {
        let port = try freePort()
        let service: String
        switch kind {
        case "port", "http":
            // python3 binds its port only once it has started: the file is there before.
            service =
                #""argv": ["python3", "-m", "http.server", "\#(port)", "--bind", "127.0.0.1"], "ready": \#(kind == "port" ? #"{"port": \#(port)}"# : #"{"http": "http://127.0.0.1:\#(port)/hello.txt"}"#)"#
        case "log":
            service =
                #""run": "sleep 0.3; echo hello > hello.txt; echo 'listening now'; exec sleep 300", "ready": {"log": "^listening"}"#
        default:
            service =
                #""run": "sleep 0.3; echo hello > hello.txt; exec sleep 300", "ready": {"command": "test -f hello.txt"}"#
        }
        let check =
            kind == "port" || kind == "http"
            ? #"{"id": "test", "kind": "http", "url": "http://127.0.0.1:\#(port)/hello.txt", "output": "text", "dependsOn": ["svc"]}"#
            : #"{"id": "test", "kind": "shell", "run": "cat hello.txt", "dependsOn": ["svc"]}"#
        let fixture = try WorkflowFixture(
            workflow(#"{"id": "svc", "kind": "shell", "service": true, \#(service)},"# + check))
        defer { fixture.remove() }
        if kind == "port" || kind == "http" {
            try Data("hello\n".utf8).write(
                to: fixture.directory.appendingPathComponent("hello.txt"))
        }
        let (result, events) = try fixture.events()
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(statuses(events) == ["svc": "succeeded", "test": "succeeded"])
        #expect(reasons(events)["svc"]?.hasPrefix("service ready in ") == true)
        let finished = events.first {
            $0["event"] as? String == "step.finished" && $0["step"] as? String == "svc"
        }
        #expect(finished?["ready"] as? Bool == true)
        if kind == "log" {
            let terminal = try fixture.run(["--no-cache", "--output", "prefixed"])
            #expect(terminal.stdout.contains("svc  ✓ ready in "), "\(terminal.stdout)")
            let grouped = try fixture.run(["--no-cache", "--output", "grouped"])
            #expect(grouped.stdout.contains("svc: ready in "), "\(grouped.stdout)")
        }
    }

    /// A service runs on past its step: it holds no jobserver token, which would leave its
    /// dependents none under -j 1.
    @Test func aServiceHoldsNoJobserverToken() throws {
        let fixture = try WorkflowFixture(
            workflow(
                #"{"id": "svc", "kind": "shell", "service": true, "run": "echo up; exec sleep 300", "ready": {"log": "^up"}},"#
                    + #"{"id": "test", "kind": "shell", "run": "echo tested", "dependsOn": ["svc"]}"#
            ))
        defer { fixture.remove() }
        let result = try fixture.run(["--max-concurrent", "1", "--no-cache"], timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("test tested"), "\(result.stdout)")
    }

    @Test func notReadyInTimeFailsAndStopsIt() throws {
        let fixture = try WorkflowFixture(
            workflow(
                #"{"id": "db", "kind": "shell", "service": true, "run": "echo $$ > service.pid; exec sleep 300", "ready": {"log": "never", "timeout": 0.3}},"#
                    + #"{"id": "test", "kind": "shell", "run": "true", "dependsOn": ["db"]}"#))
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 1)
        #expect(statuses(events) == ["db": "failed", "test": "skipped"])
        #expect(reasons(events)["db"] == "not ready after 300 ms")
        let pid = try #require(pids(fixture, ["service.pid"]).first)
        #expect(!isAlive(pid))
    }

    @Test func exitingBeforeReadyFailsWithItsStatusAndStderr() throws {
        let fixture = try WorkflowFixture(
            workflow(
                #"{"id": "db", "kind": "shell", "service": true, "run": "echo cannot bind >&2; exit 3", "ready": {"port": \#(try freePort())}},"#
                    + #"{"id": "test", "kind": "shell", "run": "true", "dependsOn": ["db"]}"#))
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 1)
        #expect(statuses(events) == ["db": "failed", "test": "skipped"])
        #expect(reasons(events)["db"] == "exited with status 3 before it was ready")
        let failed = events.first { $0["event"] as? String == "step.failed" }
        #expect(failed?["stderr"] as? [String] == ["cannot bind"])
    }

    /// The service waits for its dependent to start, then dies: the dependent, which would
    /// otherwise sleep on, fails at once saying why. The service's lines after it was ready are
    /// printed as any step's, in both output modes.
    @Test(arguments: ["prefixed", "grouped"])
    func dyingWhileADependentRunsFailsIt(output: String) throws {
        let fixture = try WorkflowFixture(
            workflow(
                #"{"id": "db", "kind": "shell", "service": true, "run": "echo up; while [ ! -f go ]; do sleep 0.01; done; echo going away >&2; exit 1", "ready": {"log": "up"}},"#
                    + #"{"id": "test", "kind": "shell", "run": ": > go; exec sleep 300", "dependsOn": ["db"]}"#
            ))
        defer { fixture.remove() }
        let result = try fixture.run(["--output", output], timeout: 60)
        #expect(result.status == 1)
        #expect(result.stdout.contains("service db exited with status 1 while test was running"))
        let line = output == "grouped" ? "db: [stderr] going away" : "db   going away"
        #expect(result.stdout.contains(line), "\(result.stdout)")
    }

    /// The service dies while its dependent waits for another step: the dependent fails
    /// without starting.
    @Test func dyingBeforeADependentStartsFailsIt() throws {
        let fixture = try WorkflowFixture(
            workflow(
                #"{"id": "db", "kind": "shell", "service": true, "run": "echo up; while [ ! -f go ]; do sleep 0.01; done; exit 2", "ready": {"log": "up"}},"#
                    + #"{"id": "slow", "kind": "shell", "run": ": > running; exec sleep 300", "dependsOn": ["db"]},"#
                    + #"{"id": "go", "kind": "shell", "run": "while [ ! -f running ]; do sleep 0.01; done; touch go", "dependsOn": ["db"]},"#
                    + #"{"id": "test", "kind": "shell", "run": "touch ran", "dependsOn": ["db", "go", "slow"]}"#
            ))
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 1)
        let found = reasons(events)
        #expect(found["slow"] == "service db exited with status 2 while slow was running")
        #expect(found["test"] == "service db exited with status 2 before test started")
        #expect(fixture.contents("ran") == nil)
    }

    /// A step after the dependents (not depending on the service) waits for the service and
    /// its child to be gone: it ends only if the service is stopped once its last dependent has
    /// finished, not at the run's end.
    @Test func stoppedAfterItsLastDependentWithItsChildren() throws {
        let gone =
            #"alive() { [ -e /proc/$1 ] && ! grep -q ') Z' /proc/$1/stat; }; while alive $(cat service.pid) || alive $(cat child.pid); do sleep 0.01; done"#
        let fixture = try WorkflowFixture(
            workflow(
                #"{"id": "db", "kind": "shell", "service": true, "run": "\#(serviceWithChild)", "ready": {"log": "ready"}},"#
                    + #"{"id": "one", "kind": "shell", "run": "test -f child.pid", "dependsOn": ["db"]},"#
                    + #"{"id": "two", "kind": "group", "dependsOn": ["db"], "procedures": [{"id": "inner", "kind": "shell", "run": "true"}]},"#
                    + #"{"id": "after", "kind": "shell", "run": "\#(gone)", "dependsOn": ["one", "two"], "timeout": 30}"#
            ))
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 0, "\(result.stdout)")
        #expect(statuses(events)["after"] == "succeeded")
        let found = pids(fixture, ["service.pid", "child.pid"])
        #expect(found.count == 2)
        #expect(!found.contains(where: isAlive))
    }

    /// A `forEach` dependent counts once all its instances are done; one inside a branch case
    /// never taken counts once the branch is done: neither keeps the service running.
    @Test func forEachAndBranchDependentsReleaseIt() throws {
        let gone =
            #"alive() { [ -e /proc/$1 ] && ! grep -q ') Z' /proc/$1/stat; }; while alive $(cat service.pid); do sleep 0.01; done"#
        let fixture = try WorkflowFixture(
            workflow(
                #"{"id": "db", "kind": "shell", "service": true, "run": "\#(serviceWithChild)", "ready": {"log": "ready"}},"#
                    + #"{"id": "each", "kind": "shell", "forEach": {"in": [1, 2, 3]}, "run": "echo ${item}", "dependsOn": ["db"]},"#
                    + #"{"id": "pick", "kind": "shell", "run": "printf b", "output": "text"},"#
                    + #"{"id": "route", "kind": "branch", "on": {"from": "pick"}, "cases": ["#
                    + #"{"equals": "a", "procedures": [{"id": "in-a", "kind": "shell", "run": "true", "dependsOn": ["db"]}]},"#
                    + #"{"equals": "b", "procedures": [{"id": "in-b", "kind": "shell", "run": "true"}]}]},"#
                    + #"{"id": "after", "kind": "shell", "run": "\#(gone)", "dependsOn": ["each", "route"], "timeout": 30}"#
            ))
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 0, "\(result.stdout)")
        #expect(statuses(events)["after"] == "succeeded")
        #expect(statuses(events)["in-a"] == "skipped")
    }

    /// A step that depends on the group holding the service keeps it running: the service
    /// answers the step's ping, which it could not if it had been stopped once ready.
    @Test func dependingOnItsGroupKeepsItRunning() throws {
        let fixture = try WorkflowFixture(
            workflow(
                #"{"id": "infra", "kind": "group", "procedures": [{"id": "db", "kind": "shell", "service": true, "run": "echo up; while :; do if [ -f ping ]; then touch pong; fi; sleep 0.01; done", "ready": {"log": "up"}}]},"#
                    + #"{"id": "test", "kind": "shell", "run": "touch ping; while [ ! -f pong ]; do sleep 0.01; done", "dependsOn": ["infra"], "timeout": 5}"#
            ))
        defer { fixture.remove() }
        let (result, events) = try fixture.events()
        #expect(result.status == 0, "\(result.stdout)")
        #expect(statuses(events)["test"] == "succeeded")
    }

    /// What a service writes as it stops comes before the summary.
    @Test func itsLastLinesComeBeforeTheSummary() throws {
        let fixture = try WorkflowFixture(
            workflow(
                #"{"id": "db", "kind": "shell", "service": true, "run": "trap 'echo stopping now; exit 0' TERM; echo up; while :; do sleep 0.01; done", "ready": {"log": "up"}},"#
                    + #"{"id": "test", "kind": "shell", "run": "true", "dependsOn": ["db"]}"#))
        defer { fixture.remove() }
        let result = try fixture.run()
        #expect(result.status == 0)
        let stopping = try #require(result.stdout.range(of: "db   stopping now"))
        let summary = try #require(result.stdout.range(of: "Summary of"))
        #expect(stopping.upperBound < summary.lowerBound)
    }

    /// Run alone (a target), nothing depends on it: it is stopped as soon as it is ready.
    @Test func withNoDependentInTheRunItStopsOnceReady() throws {
        let fixture = try WorkflowFixture(
            workflow(
                #"{"id": "db", "kind": "shell", "service": true, "run": "\#(serviceWithChild)", "ready": {"log": "ready"}},"#
                    + #"{"id": "test", "kind": "shell", "run": "true", "dependsOn": ["db"]}"#))
        defer { fixture.remove() }
        let (result, events) = try fixture.events(["db"])
        #expect(result.status == 0)
        #expect(statuses(events) == ["db": "succeeded"])
        #expect(!pids(fixture, ["service.pid", "child.pid"]).contains(where: isAlive))
    }

    @Test func ctrlCLeavesNoServiceProcessBehind() throws {
        let fixture = try WorkflowFixture(
            workflow(
                #"{"id": "db", "kind": "shell", "service": true, "run": "\#(serviceWithChild)", "ready": {"log": "ready"}},"#
                    + #"{"id": "test", "kind": "shell", "run": ": > testing; exec sleep 300", "dependsOn": ["db"]}"#
            ))
        defer { fixture.remove() }
        let run = try RunningProcflow(fixture)
        #expect(eventually(timeout: 60) { fixture.contents("testing") != nil })
        let found = pids(fixture, ["service.pid", "child.pid"])
        #expect(found.count == 2 && found.allSatisfy(isAlive))
        run.signal(SIGINT)
        let output = run.finish(timeout: 60)
        #expect(run.process.terminationStatus == 130, "\(output)")
        #expect(!found.contains(where: isAlive))
    }

    /// Under `--executor slurm` a service runs only if it says `"executor": "local"`.
    @Test(arguments: [false, true])
    func onTheSlurmExecutorOnlyALocalServiceRuns(local: Bool) throws {
        let executor = local ? #", "executor": "local""# : ""
        let fixture = try WorkflowFixture(
            workflow(
                #"{"id": "db", "kind": "shell", "service": true, "run": "echo up; exec sleep 300", "ready": {"log": "up"}\#(executor)},"#
                    + #"{"id": "test", "kind": "shell", "run": "true", "executor": "local", "dependsOn": ["db"]}"#
            ))
        defer { fixture.remove() }
        let (result, events) = try fixture.events(["--executor", "slurm"])
        if local {
            #expect(result.status == 0, "\(result.stdout)")
            #expect(statuses(events) == ["db": "succeeded", "test": "succeeded"])
        } else {
            #expect(result.status == 1)
            #expect(
                reasons(events)["db"]
                    == #"a service runs on this machine, not on the slurm executor: give it "executor": "local""#
            )
        }
    }

    /// The example of workflows/README.md's Services section validates.
    @Test func theReferenceExampleValidates() throws {
        let reference = try String(
            contentsOf: packageRoot.appendingPathComponent("workflows/README.md"), encoding: .utf8)
        let section = try #require(reference.range(of: "### Services"))
        let start = try #require(
            reference.range(of: "```json\n", range: section.upperBound..<reference.endIndex))
        let end = try #require(
            reference.range(of: "```", range: start.upperBound..<reference.endIndex))
        let json = workflow(
            String(reference[start.upperBound..<end.lowerBound]),
            extra: #""vars": {"port": "5432"}, "#)
        #expect(diagnostics(json) == [])
    }

    @Test func dryRunAndListShowIt() throws {
        let fixture = try WorkflowFixture(
            workflow(
                #"{"id": "db", "kind": "shell", "service": true, "run": "serve", "ready": {"port": 5432}},"#
                    + #"{"id": "test", "kind": "shell", "run": "true", "dependsOn": ["db"]}"#))
        defer { fixture.remove() }
        let result = try fixture.run(["--dry-run"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("1. db [service, ready on port 5432; shell: serve]"))
        let list = try runProcflow(["list", fixture.file], in: fixture.directory)
        #expect(list.stdout.contains("  db    shell service\n"), "\(list.stdout)")
    }

    @Test func argoExportRefusesIt() throws {
        let fixture = try WorkflowFixture(
            workflow(
                #"{"id": "db", "kind": "shell", "service": true, "run": "serve"},"#
                    + #"{"id": "test", "kind": "shell", "run": "true", "dependsOn": ["db"]}"#))
        defer { fixture.remove() }
        let result = try runProcflow(
            ["export", "--to", "argo", "--image", "alpine", fixture.file], in: fixture.directory)
        #expect(result.status != 0)
        #expect(
            result.stderr.contains(
                #"flow.json:1:17: error: /procedures/0/service: cannot export "db" to Argo: a service is a process"#
            ), "\(result.stderr)")
    }
}
