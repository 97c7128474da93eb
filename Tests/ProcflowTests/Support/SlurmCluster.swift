import Foundation
import Testing

/// The Slurm cluster the executor's end-to-end tests submit to: the one `scontrol ping` finds
/// (`scripts/slurm-local.sh start` starts a one-node cluster on this machine). `.ci/run`
/// starts it and sets `PROCFLOW_REQUIRE_SLURM=1`, so that CI fails where the tests would skip.
enum SlurmCluster {
    /// Whether a cluster answers.
    static let answers: Bool = {
        guard let result = try? run(["scontrol", "ping"]) else { return false }
        return result.status == 0 && result.stdout.contains("is UP")
    }()

    /// Whether the tests that need a cluster run: one answers, or CI requires one (and then
    /// they fail without it).
    static let runs =
        answers || ProcessInfo.processInfo.environment["PROCFLOW_REQUIRE_SLURM"] == "1"

    /// Fails the test when no cluster answers (where CI requires one).
    static func require() throws {
        guard answers else {
            throw TestFailure(
                "no Slurm cluster answers `scontrol ping`: start one with scripts/slurm-local.sh start"
            )
        }
    }

    /// The names of the jobs Slurm still has pending or running.
    static func activeJobNames() throws -> [String] {
        let result = try run(["squeue", "--noheader", "--format=%j"])
        return result.stdout.split(separator: "\n").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
    }

    /// A word for a test's step ids, so that its jobs can be told from any other's in squeue.
    static func uniqueWord() -> String {
        "t" + UUID().uuidString.prefix(8).lowercased()
    }

    /// Runs `body`, which blocks, on a thread of its own and waits for it without holding one
    /// of Swift concurrency's threads: a test that blocks for seconds would starve the async
    /// suites.
    static func unblocked<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws
        -> T
    {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Waits until `condition` holds, at most `timeout` seconds, asking every 20 ms.
    static func eventually(timeout: TimeInterval, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        return condition()
    }

    /// Runs a Slurm client program and waits for it.
    static func run(_ arguments: [String]) throws -> CommandResult {
        try runProgram(arguments)
    }
}
