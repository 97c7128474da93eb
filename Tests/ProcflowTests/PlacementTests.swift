import Foundation
import Testing

@testable import Procflow

/// `executor`, `resources` and `slurm`: how the file gives them, how groups and the workflow
/// pass them on, and what a run makes of `cpus` on this machine.
@Suite("Where steps run")
struct PlacementTests {
    private func steps(_ json: String) throws -> [String: Step] {
        let workflow = try loadWorkflow(json).get()
        var steps: [String: Step] = [:]
        workflow.forEachStep { steps[$0.step.id] = $0.step }
        return steps
    }

    @Test func groupsAndTheWorkflowGiveTheirStepsDefaults() throws {
        let loaded = try loadWorkflow(
            workflow(
                """
                {"id": "g", "kind": "group", "executor": "slurm",
                 "resources": {"cpus": 4, "time": "1h30m"}, "slurm": {"partition": "big"},
                 "procedures": [
                   {"id": "inner", "kind": "shell", "run": "true", "resources": {"memory": "2G"}},
                   {"id": "mine", "kind": "shell", "run": "true", "executor": "local",
                    "resources": {"cpus": 1}, "slurm": {"partition": "small", "qos": "fast"}}
                 ]},
                {"id": "top", "kind": "shell", "run": "true"}
                """,
                extra:
                    #""executor": "slurm", "resources": {"memory": 512}, "slurm": {"account": "lab", "pendingTimeout": "10m"}, "#
            )
        ).get()
        #expect(loaded.executor == "slurm")
        var steps: [String: Step] = [:]
        loaded.forEachStep { steps[$0.step.id] = $0.step }
        let inner = try #require(steps["inner"]).placement
        #expect(inner.executor == "slurm")
        #expect(inner.resources == Resources(cpus: 4, memory: 2048, time: 5400))
        #expect(inner.slurm == SlurmSettings(partition: "big", account: "lab", pendingTimeout: 600))
        let mine = try #require(steps["mine"]).placement
        #expect(mine.executor == "local")
        #expect(mine.resources == Resources(cpus: 1, memory: 512, time: 5400))
        #expect(
            mine.slurm
                == SlurmSettings(
                    partition: "small", account: "lab", qos: "fast", pendingTimeout: 600))
        // The workflow's executor is a default `--executor` overrides: steps do not copy it.
        let top = try #require(steps["top"]).placement
        #expect(top.executor == nil)
        #expect(top.resources == Resources(memory: 512))
    }

    @Test func badValuesAreLocatedErrors() {
        let found = diagnostics(
            workflow(
                """
                {"id": "a", "kind": "shell", "run": "true", "executor": "slrum",
                 "resources": {"cpus": 0, "memory": "lots", "time": "soon", "disk": 3},
                 "slurm": {"partition": "", "queue": "x"}},
                {"id": "b", "kind": "http", "url": "http://example.com", "executor": "slurm"}
                """))
        #expect(
            found.contains {
                $0.contains(
                    "/procedures/0/executor: unknown executor \"slrum\": expected one of \"local\", \"slurm\" (did you mean \"slurm\"?)"
                )
            }, "\(found)")
        #expect(found.contains { $0.contains("/procedures/0/resources/cpus: 0 is out of range") })
        #expect(
            found.contains {
                $0.contains("/procedures/0/resources/memory: \"lots\" is not an amount of memory")
            })
        #expect(
            found.contains {
                $0.contains("/procedures/0/resources/time: \"soon\" is not a duration")
            })
        #expect(
            found.contains {
                $0.contains("/procedures/0/resources/disk: unknown field \"disk\" in resources")
            })
        #expect(
            found.contains {
                $0.contains("/procedures/0/slurm/queue: unknown field \"queue\" in slurm")
            })
        #expect(found.contains { $0.contains("/procedures/0/slurm/partition:") })
        // Only shell steps (and groups, for theirs) run commands somewhere.
        #expect(
            found.contains {
                $0.contains("/procedures/1/executor:") && $0.contains("shell and group procedures")
            }, "\(found)")
    }

    @Test(arguments: [
        ("512M", 512), ("4G", 4096), ("4GB", 4096), ("1.5GiB", 1536), ("1T", 1_048_576),
        ("2048K", 2), ("300", 300), (" 8 g ", 8192),
    ])
    func memoryIsReadInMebibytes(text: String, megabytes: Int) {
        #expect(WorkflowDecoder.megabytes(in: text) == megabytes)
    }

    @Test func memoryThatIsNotOneIsRefused() {
        for text in ["", "G", "4X", "-1G", "4 G B", "1e3M"] {
            #expect(WorkflowDecoder.megabytes(in: text) == nil, "\(text)")
        }
    }

    @Test(arguments: [
        ("90s", 90.0), ("30m", 1800), ("1h30m", 5400), ("2d", 172_800), ("01:30:00", 5400),
        ("1:30", 90), ("0.5h", 1800),
    ])
    func durationsAreReadInSeconds(text: String, seconds: Double) {
        #expect(WorkflowDecoder.seconds(in: text) == seconds)
    }

    @Test func durationsThatAreNotOnesAreRefused() {
        for text in ["", "10", "h", "1x", "1:2:3:4", "a:b", "1h 30m"] {
            #expect(WorkflowDecoder.seconds(in: text) == nil, "\(text)")
        }
    }

    @Test func aStepNeedingTwoCoresTakesTwoPlacesOfTheRun() throws {
        // With --max-concurrent 2, the steps needing 2 cores never run beside another; those
        // needing 1 run two at once.
        let narrow = (0..<3).map {
            #"{"id": "narrow\#($0)", "kind": "shell", "run": "sleep 0.2"}"#
        }
        let wide = (0..<3).map {
            #"{"id": "wide\#($0)", "kind": "shell", "resources": {"cpus": 2}, "run": "sleep 0.2"}"#
        }
        let fixture = try WorkflowFixture(workflow((narrow + wide).joined(separator: ",")))
        let (result, events) = try fixture.events(["--max-concurrent", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        var running: Set<String> = []
        var highest = 0
        var besideWide = 0
        for event in events {
            guard let step = event["step"] as? String else { continue }
            switch event["event"] as? String {
            case "step.started":
                running.insert(step)
                highest = max(highest, running.count)
                if running.count > 1, running.contains(where: { $0.hasPrefix("wide") }) {
                    besideWide += 1
                }
            case "step.finished": running.remove(step)
            default: break
            }
        }
        #expect(besideWide == 0, "a step needing 2 cores ran beside another")
        #expect(highest == 2)
    }
}
