import Foundation
import Testing

@testable import Procflow

/// `procflow completion bash` run by bash's completion machinery on real command lines: the
/// script is sourced in bash, the words set as bash sets them, and the completion function's
/// answers read back.
@Suite("Shell completion")
struct CompletionTests {
    /// What bash completes for `line` (the cursor at its end) in `directory`.
    static func complete(_ line: String, in directory: URL) throws -> [String] {
        // As bash cuts words: at spaces, and around = (in COMP_WORDBREAKS).
        var words: [String] = []
        for word in line.split(separator: " ") {
            let parts = word.split(separator: "=", omittingEmptySubsequences: false)
            words += parts.count == 1 ? [String(word)] : [String(parts[0]), "=", String(parts[1])]
        }
        if line.hasSuffix(" ") { words.append("") }
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let script = """
            source <(procflow completion bash)
            COMP_WORDS=(\(quoted.joined(separator: " ")))
            COMP_CWORD=\(words.count - 1)
            COMP_LINE='\(line)'
            COMP_POINT=${#COMP_LINE}
            _procflow
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let path = procflowBinary.deletingLastPathComponent().path
        let result = try runProgram(
            ["/bin/bash", "--norc", "-c", script], in: directory,
            environment: ["PATH": path + ":/usr/bin:/bin", "HOME": directory.path])
        #expect(result.stderr == "", "\(line): \(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init).sorted()
    }

    @Test func commandsOptionsAndTheirValues() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try Self.complete("procflow va", in: directory) == ["validate"])
        #expect(try Self.complete("procflow co", in: directory) == ["completion"])
        #expect(try Self.complete("procflow run --out", in: directory) == ["--output"])
        #expect(
            try Self.complete("procflow run --output ", in: directory) == ["grouped", "prefixed"])
        #expect(try Self.complete("procflow graph --format m", in: directory) == ["mermaid"])
        #expect(try Self.complete("procflow completion f", in: directory) == ["fish"])
        #expect(try Self.complete("procflow cache p", in: directory) == ["prune"])
        #expect(try Self.complete("procflow help ex", in: directory) == ["export"])
        let short = try Self.complete("procflow run -", in: directory)
        #expect(short.contains("-j") && short.contains("-n") && short.contains("--max-concurrent"))
        // Every option the parser takes is offered.
        for option in RunCommand.Option.allCases {
            #expect(short.contains("--" + option.rawValue), "--\(option.rawValue)")
        }
    }

    @Test func stepIdsOfTheWorkflowAtHand() throws {
        let directory = try DefaultFileTests.project()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"{"procedures": [{"id": "other-step", "kind": "shell", "run": "true"}]}"#.utf8)
            .write(to: directory.appendingPathComponent("other.json"))
        // The default file's steps, and the workflow files here.
        #expect(
            try Self.complete("procflow run ", in: directory)
                == ["count", "greet", "in-ci", "other.json", "procflow.json", "shout", "sub"])
        #expect(try Self.complete("procflow run sh", in: directory) == ["shout"])
        #expect(try Self.complete("procflow run --only g", in: directory) == ["greet"])
        // The file named first, or with -f.
        #expect(try Self.complete("procflow run other.json ", in: directory) == ["other-step"])
        #expect(try Self.complete("procflow run -f other.json o", in: directory) == ["other-step"])
        #expect(
            try Self.complete("procflow run -f other.json --only o", in: directory) == [
                "other-step"
            ])
        // An option's value is not the workflow file; --file= is -f.
        #expect(
            try Self.complete("procflow run --summary other.json sh", in: directory) == ["shout"])
        #expect(
            try Self.complete("procflow run --file=other.json o", in: directory) == ["other-step"])
        #expect(try Self.complete("procflow run --output=g", in: directory) == ["grouped"])
        #expect(try Self.complete("procflow run -j 2 sh", in: directory) == ["shout"])
        // A file argument completes files.
        #expect(try Self.complete("procflow validate oth", in: directory) == ["other.json"])
    }

    /// What fish completes for `line`, with the script procflow prints, in `directory`.
    static func completeInFish(_ line: String, in directory: URL) throws -> [String] {
        let path = procflowBinary.deletingLastPathComponent().path
        let script = "procflow completion fish | source; complete -C '\(line)'"
        let result = try runProgram(
            ["/usr/bin/env", "fish", "--no-config", "-c", script], in: directory,
            environment: ["PATH": path + ":/usr/bin:/bin", "HOME": directory.path])
        #expect(result.stderr == "", "\(line): \(result.stderr)")
        return result.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
            .sorted()
    }

    @Test func fishCompletesTheStepIdsOfTheWorkflowAtHand() throws {
        let hasFish = ["/usr/bin/fish", "/usr/local/bin/fish", "/bin/fish"].contains {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        if !hasFish {
            // .ci/run installs fish: there, this test must not pass by skipping.
            #expect(ProcessInfo.processInfo.environment["PROCFLOW_REQUIRE_FISH"] == nil)
            return
        }
        let directory = try DefaultFileTests.project()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"{"procedures": [{"id": "other-step", "kind": "shell", "run": "true"}]}"#.utf8)
            .write(to: directory.appendingPathComponent("other.json"))
        #expect(try Self.completeInFish("procflow run sh", in: directory) == ["shout"])
        #expect(
            try Self.completeInFish("procflow run --summary other.json sh", in: directory) == [
                "shout"
            ])
        #expect(try Self.completeInFish("procflow run -j 2 sh", in: directory) == ["shout"])
        for line in [
            "procflow run -f other.json other-", "procflow run --file=other.json other-",
            "procflow run other.json other-",
        ] {
            #expect(try Self.completeInFish(line, in: directory) == ["other-step"], "\(line)")
        }
        #expect(
            try Self.completeInFish("procflow run --output ", in: directory) == [
                "grouped", "prefixed",
            ])
    }
}
