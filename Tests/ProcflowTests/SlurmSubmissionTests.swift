import Foundation
import Testing

@testable import Procflow

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What procflow hands Slurm and what it makes of Slurm's answers, without a cluster: the
/// `sbatch` command line, the task files, and `squeue`'s lines.
@Suite("Slurm submissions and job states")
struct SlurmSubmissionTests {
    private func launch(_ arguments: [String], stdin: [UInt8]? = nil) -> CommandLaunch {
        CommandLaunch(
            executable: arguments[0], arguments: arguments,
            environment: [
                "PATH": "/usr/bin:/bin", "WIRED": "a'b\"c $(rm -rf /)\nline", "SLURM_JOB_ID": "7",
            ],
            workingDirectory: "/shared/work", stdin: stdin, captureStdout: false,
            captureLimit: 1 << 20, gracePeriod: 5, pipeGracePeriod: 0.2)
    }

    @Test func resourcesAndSettingsBecomeSbatchOptions() {
        let request = JobRequest(
            name: "cc[src/a b.c]",
            resources: Resources(cpus: 4, memory: 2048, time: nil, gpus: 1),
            slurm: SlurmSettings(
                partition: "gpu", account: "lab", qos: "high", extraArgs: ["--constraint=avx2"]),
            timeout: 61)
        let submission = SlurmSubmission(
            base: "/state/jobs/run/3", request: request, launches: [launch(["true"])])
        #expect(
            submission.arguments(script: "/state/jobs/run/job.sh") == [
                "sbatch", "--parsable", "--job-name=procflow-cc[src_a_b.c]",
                "--output=/state/jobs/run/3.0.out", "--error=/state/jobs/run/3.0.err",
                "--input=/dev/null", "--export=ALL", "--chdir=/state/jobs/run",
                "--cpus-per-task=4", "--mem=2048M", "--gpus=1", "--time=2", "--partition=gpu",
                "--account=lab", "--qos=high", "--constraint=avx2", "/state/jobs/run/job.sh",
                "/state/jobs/run/3",
            ])
        #expect(submission.slurmID(of: 0, jobID: "41") == "41")
    }

    @Test func theTimeResourceWinsOverTheTimeoutAndAnArrayNamesItsTasks() {
        let request = JobRequest(name: "each[]", resources: Resources(time: 3600), timeout: 5)
        let submission = SlurmSubmission(
            base: "/s/1", request: request, launches: [launch(["a"]), launch(["b"]), launch(["c"])])
        let arguments = submission.arguments(script: "/s/job.sh")
        #expect(arguments.contains("--time=60"))
        #expect(arguments.contains("--array=0-2"))
        #expect(arguments.contains("--output=/s/1.%a.out"))
        #expect(submission.slurmID(of: 2, jobID: "9") == "9_2")
        #expect(submission.taskPrefix(2) == "/s/1.2")
    }

    @Test func taskFilesHoldTheCommandAsDataPrivateToTheUser() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = directory.appendingPathComponent("1").path
        let submission = SlurmSubmission(
            base: base, request: JobRequest(),
            launches: [launch(["printf", "%s", "it's; rm -rf /"], stdin: Array("in\n".utf8))])
        #expect(submission.writeTaskFiles() == nil)
        let args = try Data(contentsOf: URL(fileURLWithPath: base + ".0.args"))
        let words = args.split(separator: 0, omittingEmptySubsequences: false).dropLast().map {
            String(decoding: $0, as: UTF8.self)
        }
        // The directory, the number of entries, the entries (sorted, Slurm's own left out),
        // then the command.
        #expect(
            words == [
                "/shared/work", "2", "PATH=/usr/bin:/bin", "WIRED=a'b\"c $(rm -rf /)\nline",
                "printf", "%s", "it's; rm -rf /",
            ])
        #expect(try String(contentsOfFile: base + ".0.in", encoding: .utf8) == "in\n")
        for suffix in [".0.args", ".0.in"] {
            var status = stat()
            #expect(stat(base + suffix, &status) == 0)
            #expect(status.st_mode & 0o777 == 0o600)
        }
    }

    @Test func theBatchScriptRunsATaskExactlyAsItsFilesSay() throws {
        // The script itself, run by bash as Slurm would, with the task files written above.
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("job.sh")
        try Data(SlurmSubmission.script.utf8).write(to: script)
        let base = directory.appendingPathComponent("4").path
        var task = launch(
            ["sh", "-c", #"printf '%s|%s|%s|' "$WIRED" "$PWD" "$1"; cat"#, "sh", "$x `y`"],
            stdin: Array("from stdin".utf8))
        task.workingDirectory = directory.path
        let submission = SlurmSubmission(base: base, request: JobRequest(), launches: [task])
        #expect(submission.writeTaskFiles() == nil)
        let result = try runBash([script.path, base])
        #expect(result.stdout == "a'b\"c $(rm -rf /)\nline|\(directory.path)|$x `y`|from stdin")
        #expect(result.status == 0)
        // A working directory the node does not have: a marker and a message, status 1.
        task.workingDirectory = directory.appendingPathComponent("missing").path
        let lost = SlurmSubmission(base: base, request: JobRequest(), launches: [task])
        #expect(lost.writeTaskFiles() == nil)
        let failed = try runBash([script.path, base])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("cannot enter \(task.workingDirectory!)"))
        #expect(FileManager.default.fileExists(atPath: base + ".0.nocd"))
    }

    private func runBash(_ arguments: [String]) throws -> CommandResult {
        try runProgram(["/bin/bash"] + arguments)
    }

    @Test func squeueLinesAreRead() {
        let output = """
            24_0|COMPLETED|0|None               \u{20}
            24_2|FAILED|512|NonZeroExitCode     \u{20}
            27|CANCELLED by 0|15|None
            28|PENDING|0|(launch failed requeued held)
            garbage
            """
        let statuses = SlurmJobStatus.parse(output)
        #expect(statuses.map(\.id) == ["24_0", "24_2", "27", "28"])
        #expect(statuses[1].waitStatus == 512)
        #expect(statuses[2].state == "CANCELLED")
        #expect(statuses[3].reason == "(launch failed requeued held)")
        #expect(statuses[3].isPending && !statuses[3].isOver)
    }

    @Test func instancesOfOneForEachStepShareATemplateID() {
        #expect(ForEach.templateID(ofInstance: "each[3]") == "each[]")
        #expect(ForEach.templateID(ofInstance: "each[3].cc") == "each[].cc")
        #expect(ForEach.templateID(ofInstance: "outer[12].inner[0]") == "outer[].inner[]")
        #expect(ForEach.templateID(ofInstance: "plain.step") == nil)
    }

    @Test func sacctLinesAreRead() {
        let output = """
            24_1|COMPLETED|0:0
            25|FAILED|3:0
            26|CANCELLED by 0|0:15
            27|TIMEOUT|0:0
            odd|line
            """
        let statuses = SlurmJobStatus.parseAccounting(output)
        #expect(statuses.map(\.id) == ["24_1", "25", "26", "27"])
        #expect(statuses[0].termination(cancelledByProcflow: false) == .exited(0))
        #expect(statuses[1].termination(cancelledByProcflow: false) == .exited(3))
        #expect(statuses[2].state == "CANCELLED")
        #expect(statuses[2].termination(cancelledByProcflow: true) == .signaled(15))
        #expect(statuses[3].isOver)
    }

    @Test(arguments: [
        ("COMPLETED", Int32(0), false, CommandOutcome.Termination.exited(0)),
        ("FAILED", 3 << 8, false, .exited(3)),
        ("FAILED", 9, false, .signaled(9)),
        ("CANCELLED", 15, true, .signaled(15)),
        (
            "CANCELLED", 15, false,
            .ended("Slurm job 5 was cancelled outside procflow (scancel, or an administrator)")
        ),
        ("TIMEOUT", 15, false, .ended("Slurm job 5 ran past its time limit (TIMEOUT)")),
        (
            "OUT_OF_MEMORY", 9, false,
            .ended(
                "Slurm job 5 ran out of memory (OUT_OF_MEMORY): ask for more with resources.memory")
        ),
        ("NODE_FAIL", 0, false, .ended("the node running Slurm job 5 failed (NODE_FAIL)")),
        ("PREEMPTED", 0, false, .ended("Slurm job 5 was preempted by another job (PREEMPTED)")),
        ("FAILED", 0, false, .ended("Slurm job 5 failed before its command ran (Reason)")),
    ])
    func jobStatesBecomeClearEnds(
        state: String, waitStatus: Int32, ours: Bool, expected: CommandOutcome.Termination
    ) {
        let status = SlurmJobStatus(id: "5", state: state, waitStatus: waitStatus, reason: "Reason")
        #expect(status.isOver)
        #expect(status.termination(cancelledByProcflow: ours) == expected)
    }

    @Test func withoutSlurmsCommandsTheStepSaysSo() throws {
        let fixture = try WorkflowFixture(workflow(#"{"id": "a", "kind": "shell", "run": "true"}"#))
        let result = try fixture.run(
            ["--executor", "slurm"], environment: ["PATH": "/nonexistent"])
        #expect(result.status == 1)
        #expect(
            result.stdout.contains("cannot submit a Slurm job: sbatch is not in PATH"),
            "\(result.stdout)")
    }
}
