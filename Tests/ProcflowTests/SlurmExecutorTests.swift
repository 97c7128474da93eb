import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `--executor slurm` against a real one-node cluster (scripts/slurm-local.sh): the built
/// binary submits, follows and cancels real jobs. The tests wait on the cluster for seconds, on
/// threads of their own (``SlurmCluster/unblocked(_:)``), not on the few that Swift's
/// concurrency shares among the suites.
@Suite("Slurm executor, on a real cluster", .serialized)
struct SlurmExecutorTests {
    @Test(.enabled(if: SlurmCluster.runs))
    func wiresRetriesConditionsAndForEachRunAsJobs() async throws {
        try SlurmCluster.require()
        let fixture = try WorkflowFixture(
            workflow(
                #"""
                {"id": "make", "kind": "shell", "output": "json",
                 "run": "echo '{\"n\": 3, \"word\": \"it'\"'\"'s $HOME; rm -rf /\"}'"},
                {"id": "use", "kind": "shell", "output": "text",
                 "inputs": {"WORD": {"from": "make", "select": "/word"}}, "input": {"from": "make"},
                 "run": "printf 'env=%s\\n' \"$WORD\"; printf 'stdin='; cat; echo; echo \"job=${SLURM_JOB_ID:+yes}\""},
                {"id": "flaky", "kind": "shell", "retry": {"attempts": 2, "delay": 0.1},
                 "run": "if [ -e attempted ]; then echo second; else touch attempted; exit 4; fi"},
                {"id": "broken", "kind": "shell", "continueOnError": true, "run": "echo oops >&2; exit 3"},
                {"id": "skipped", "kind": "shell", "when": {"env": "NOT_SET_ANYWHERE"}, "run": "true"},
                {"id": "each", "kind": "shell", "forEach": {"in": ["a", "b", "c"]},
                 "run": "echo \"item=$item task=${SLURM_ARRAY_TASK_ID:-none}\"", "dependsOn": ["use"]},
                {"id": "here", "kind": "shell", "executor": "local", "run": "echo \"local=${SLURM_JOB_ID:-none}\""}
                """#))
        let result = try await SlurmCluster.unblocked {
            try fixture.run(["--events", "json", "--executor", "slurm"])
        }
        let events = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(result.status == 0, "\(result.stderr)")
        func lines(_ step: String) -> [String] {
            events.filter {
                $0["event"] as? String == "step.output" && $0["step"] as? String == step
            }
            .compactMap { $0["line"] as? String }
        }
        // Wired data reached the job through the environment and stdin, never as script text.
        #expect(
            lines("use") == [
                "env=it's $HOME; rm -rf /", "stdin={\"n\":3,\"word\":\"it's $HOME; rm -rf /\"}",
                "job=yes",
            ])
        #expect(lines("flaky") == ["second"])
        #expect(lines("broken") == ["oops"])
        #expect(lines("here") == ["local=none"])
        // The three instances ran as one job array (tasks in the order they started), each
        // still a step of its own.
        let tasks = ["a", "b", "c"].enumerated().map { index, item -> String in
            let line = lines("each[\(index)]").first ?? ""
            #expect(line.hasPrefix("item=\(item) task="), "\(line)")
            return String(line.split(separator: "=").last ?? "")
        }
        #expect(tasks.sorted() == ["0", "1", "2"])
        #expect(result.stderr.contains("(1 array)"), "\(result.stderr)")
        let finished = events.first { $0["event"] as? String == "workflow.finished" }
        let steps = finished?["steps"] as? [[String: Any]] ?? []
        func status(_ id: String) -> String? {
            steps.first { $0["id"] as? String == id }?["status"] as? String
        }
        #expect(status("broken") == "warning")
        #expect(status("skipped") == "skipped")
        #expect(status("flaky") == "succeeded")
        let failure = events.first {
            $0["event"] as? String == "step.failed" && $0["step"] as? String == "broken"
        }
        #expect(failure?["reason"] as? String == "exited with status 3")
    }

    @Test(.enabled(if: SlurmCluster.runs))
    func aTimeoutCancelsTheJobAndTheCaptureLimitHolds() async throws {
        try SlurmCluster.require()
        let word = SlurmCluster.uniqueWord()
        let fixture = try WorkflowFixture(
            workflow(
                """
                {"id": "slow_\(word)", "kind": "shell", "timeout": 1.5, "run": "echo begun; sleep 60"},
                {"id": "loud_\(word)", "kind": "shell", "output": "text",
                 "run": "head -c 2000000 /dev/zero | tr '\\\\0' x; echo; sleep 60"}
                """))
        let result = try await SlurmCluster.unblocked {
            try fixture.run(["--executor", "slurm", "--capture-limit", "1"])
        }
        #expect(result.status == 1)
        #expect(result.stdout.contains("slow_\(word) ✗ failed after"))
        #expect(result.stdout.contains("timed out after 1.5 s"), "\(result.stdout)")
        #expect(result.stdout.contains("stdout went over the 1 MiB capture limit"))
        // Neither job is left: the timeout and the limit cancelled them.
        #expect(try SlurmCluster.activeJobNames().filter { $0.contains(word) } == [])
    }

    @Test(.enabled(if: SlurmCluster.runs))
    func ctrlCCancelsEveryJobInFlight() async throws {
        try SlurmCluster.require()
        let word = SlurmCluster.uniqueWord()
        let fixture = try WorkflowFixture(
            workflow(
                (0..<3).map {
                    """
                    {"id": "sleeper\($0)_\(word)", "kind": "shell", "run": "echo job-begun; sleep 120"}
                    """
                }.joined(separator: ",")))
        let run = try RunningProcflow(fixture, arguments: ["--executor", "slurm"])
        // Two run on the cluster's two cores; the third waits in Slurm's queue.
        #expect(await SlurmCluster.eventually(timeout: 60) { run.output.contains("job-begun") })
        #expect(
            await SlurmCluster.eventually(timeout: 30) {
                ((try? SlurmCluster.activeJobNames()) ?? []).filter { $0.contains(word) }.count == 3
            })
        run.signal(SIGINT)
        let output = try await SlurmCluster.unblocked { run.finish(timeout: 60) }
        #expect(run.process.terminationStatus == 130, "\(output)")
        #expect(output.contains("cancelled"), "\(output)")
        #expect(try SlurmCluster.activeJobNames().filter { $0.contains(word) } == [])
        #expect(output.contains("3 jobs submitted"), "\(output)")
    }

    @Test(.enabled(if: SlurmCluster.runs))
    func aJobCancelledFromOutsideIsReportedSo() async throws {
        try SlurmCluster.require()
        let fixture = try WorkflowFixture(
            workflow(
                #"""
                {"id": "victim", "kind": "shell", "run": "echo \"id=$SLURM_JOB_ID\"; sleep 120"}
                """#))
        let run = try RunningProcflow(fixture, arguments: ["--executor", "slurm"])
        #expect(await SlurmCluster.eventually(timeout: 60) { run.output.contains("id=") })
        let line = run.output.split(separator: "\n").first { $0.contains("id=") } ?? ""
        let id = String(line.split(separator: "=").last ?? "")
        #expect(try SlurmCluster.run(["scancel", id]).status == 0)
        let output = try await SlurmCluster.unblocked { run.finish(timeout: 60) }
        #expect(run.process.terminationStatus == 1)
        #expect(output.contains("Slurm job \(id) was cancelled outside procflow"), "\(output)")
    }

    @Test(.enabled(if: SlurmCluster.runs))
    func aSecondRunOfIncrementalStepsSubmitsNothing() async throws {
        try SlurmCluster.require()
        let fixture = try WorkflowFixture(
            workflow(
                """
                {"id": "copy", "kind": "shell", "sources": ["in.txt"], "generates": ["out.txt"],
                 "run": "tr a-z A-Z < in.txt > out.txt"}
                """, extra: #""executor": "slurm", "#))
        try Data("hello\n".utf8).write(to: fixture.directory.appendingPathComponent("in.txt"))
        let first = try await SlurmCluster.unblocked { try fixture.run() }
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stderr.contains("slurm: 1 job submitted"), "\(first.stderr)")
        let made = try String(
            contentsOf: fixture.directory.appendingPathComponent("out.txt"), encoding: .utf8)
        #expect(made == "HELLO\n")
        let second = try await SlurmCluster.unblocked { try fixture.run() }
        #expect(second.status == 0)
        #expect(!second.stderr.contains("slurm:"), "\(second.stderr)")
        // The job's files are gone with the run.
        let jobs = fixture.directory.appendingPathComponent(".procflow/jobs").path
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: jobs)) ?? []) == [])
    }

    @Test(.enabled(if: SlurmCluster.runs))
    func aJobWaitingTooLongFailsWithSlurmsReason() async throws {
        try SlurmCluster.require()
        let word = SlurmCluster.uniqueWord()
        let fixture = try WorkflowFixture(
            workflow(
                """
                {"id": "later_\(word)", "kind": "shell", "run": "true",
                 "slurm": {"extraArgs": ["--begin=now+3600"], "pendingTimeout": 1}}
                """))
        let result = try await SlurmCluster.unblocked { try fixture.run(["--executor", "slurm"]) }
        #expect(result.status == 1)
        #expect(
            result.stdout.contains("waited in the queue for more than 1 s (BeginTime)"),
            "\(result.stdout)")
        #expect(try SlurmCluster.activeJobNames().filter { $0.contains(word) } == [])
    }

    @Test(.enabled(if: SlurmCluster.runs))
    func aWorkingDirectoryTheNodeCannotEnterIsNamed() async throws {
        try SlurmCluster.require()
        let fixture = try WorkflowFixture(
            workflow(#"{"id": "lost", "kind": "shell", "cwd": "not-here", "run": "true"}"#))
        let result = try await SlurmCluster.unblocked { try fixture.run(["--executor", "slurm"]) }
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(
                "could not enter its working directory \(fixture.directory.path)/not-here on its node"
            ),
            "\(result.stdout)")
    }

    @Test(.enabled(if: SlurmCluster.runs))
    func sbatchRefusingAJobFailsTheStepWithItsMessage() async throws {
        try SlurmCluster.require()
        let fixture = try WorkflowFixture(
            workflow(
                #"{"id": "nowhere", "kind": "shell", "run": "true", "slurm": {"partition": "no_such_partition"}}"#
            ))
        let result = try await SlurmCluster.unblocked { try fixture.run(["--executor", "slurm"]) }
        #expect(result.status == 1)
        #expect(result.stdout.contains("sbatch refused the job:"), "\(result.stdout)")
        #expect(result.stdout.contains("partition"), "\(result.stdout)")
    }

    @Test(.enabled(if: SlurmCluster.runs))
    func theCProjectBuildsTheSameProgramOnTheCluster() async throws {
        try SlurmCluster.require()
        // The benchmarks' C project (depfiles, a cacheKey, a link), built here and as jobs.
        let roots = try (0..<2).map { _ in try temporaryDirectory() }
        defer { for root in roots { try? FileManager.default.removeItem(at: root) } }
        for root in roots {
            let generate = Process()
            generate.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            generate.arguments = [
                "python3", packageRoot.appendingPathComponent("scripts/generate-c-project.py").path,
                root.path, "6", "procflow",
            ]
            try generate.run()
            generate.waitUntilExit()
            #expect(generate.terminationStatus == 0)
        }
        let projects = roots.map { $0.appendingPathComponent("c-procflow") }
        let (local, cluster) = try await SlurmCluster.unblocked {
            (
                try runProcflow(["run", "build.json"], in: projects[0]),
                try runProcflow(["run", "build.json", "--executor", "slurm"], in: projects[1])
            )
        }
        #expect(local.status == 0, "\(local.stdout)\(local.stderr)")
        #expect(cluster.status == 0, "\(cluster.stdout)\(cluster.stderr)")
        #expect(cluster.stderr.contains("slurm: 9 jobs submitted"), "\(cluster.stderr)")
        let programs = try projects.map { try Data(contentsOf: $0.appendingPathComponent("app")) }
        #expect(!programs[0].isEmpty)
        #expect(programs[0] == programs[1])
        // The depfiles the jobs wrote were read: a header edit rebuilds exactly its includer,
        // then the link.
        let header = projects[1].appendingPathComponent("src/mod1.h")
        let text = try String(contentsOf: header, encoding: .utf8)
        #expect(text.contains("#define MOD1_BASE 8"))
        try Data(text.replacingOccurrences(of: "MOD1_BASE 8", with: "MOD1_BASE 9").utf8)
            .write(to: header)
        let again = try await SlurmCluster.unblocked {
            try runProcflow(["run", "build.json", "--executor", "slurm"], in: projects[1])
        }
        #expect(again.status == 0)
        #expect(again.stderr.contains("slurm: 2 jobs submitted"), "\(again.stdout)\(again.stderr)")
    }

    @Test(.enabled(if: SlurmCluster.runs))
    func theNextRunCancelsWhatAKilledRunLeft() async throws {
        try SlurmCluster.require()
        let word = SlurmCluster.uniqueWord()
        let fixture = try WorkflowFixture(
            workflow(
                """
                {"id": "orphan_\(word)", "kind": "shell", "run": "echo job-begun; sleep 300"},
                {"id": "quick", "kind": "shell", "run": "true"}
                """))
        let killed = try RunningProcflow(
            fixture, arguments: ["orphan_\(word)", "--executor", "slurm"])
        #expect(await SlurmCluster.eventually(timeout: 60) { killed.output.contains("job-begun") })
        killed.signal(SIGKILL)
        _ = try await SlurmCluster.unblocked { killed.finish(timeout: 30) }
        // procflow could not end it: the job runs on.
        #expect(try SlurmCluster.activeJobNames().contains { $0.contains(word) })
        let next = try await SlurmCluster.unblocked {
            try fixture.run(["quick", "--executor", "slurm"])
        }
        #expect(next.status == 0)
        #expect(next.stderr.contains("cancelled 1 left by a run that was killed"), "\(next.stderr)")
        #expect(
            await SlurmCluster.eventually(timeout: 60) {
                ((try? SlurmCluster.activeJobNames()) ?? []).allSatisfy { !$0.contains(word) }
            })
    }
}
