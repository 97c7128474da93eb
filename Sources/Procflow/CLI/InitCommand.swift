import Foundation

/// `procflow init [FILE]`: writes a small, commented starter workflow to begin from.
struct InitCommand: ParsableCommand {
    typealias Option = NoOption

    static let name = "init"
    static let abstract = "Write a starter workflow to begin from."
    static let discussion: String? = """
        Writes a small workflow, with comments saying what each part does, to FILE
        (\(DefaultWorkflowFile.names[0]) by default, which procflow run, list, graph and
        validate find without being told). An existing file is never overwritten.
        """
    static let arguments = [
        CommandDescription.Argument(
            name: "file", help: "Where to write it; \(DefaultWorkflowFile.names[0]) by default.",
            isOptional: true)
    ]

    let file: String

    init(_ arguments: ParsedArguments<Option>) throws(ArgumentError) {
        file = arguments.positionals.first ?? DefaultWorkflowFile.names[0]
    }

    func run(console: Console) -> Int32 {
        // O_EXCL: a file that exists, or appears meanwhile, is left alone.
        let descriptor = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let reason =
                errno == EEXIST
                ? "it exists already, and procflow init does not overwrite a file"
                : String(cString: strerror(errno))
            console.writeError("error: cannot write \(file.escapingControlCharacters): \(reason)\n")
            return CommandLineTool.ExitStatus.usage
        }
        let bytes = Array(Self.starter.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == bytes.count else {
            unlink(file)
            console.writeError("error: cannot write \(file.escapingControlCharacters)\n")
            return CommandLineTool.ExitStatus.failure
        }
        let command =
            file == DefaultWorkflowFile.names[0] ? "procflow run" : "procflow run \(file)"
        console.write(
            "wrote \(file.escapingControlCharacters): run it with '\(command)', check it with 'procflow validate'\n"
        )
        return CommandLineTool.ExitStatus.success
    }

    /// The starter: four steps that show order, a wire, an incremental step and a condition.
    static let starter = """
        // A procflow workflow: JSON with comments and trailing commas.
        // Run it with `procflow run`, check it with `procflow validate`,
        // draw it with `procflow graph`. The format is described in procflow's
        // workflows/README.md.
        {
          "name": "starter",
          "procedures": [
            // A shell step. "output": "text" keeps what it prints, for other steps to take.
            {"id": "greet", "kind": "shell", "run": "echo hello from procflow", "output": "text"},

            // Takes greet's output on stdin (a wire), so it runs after greet.
            {"id": "shout", "kind": "shell", "input": {"from": "greet"}, "run": "tr a-z A-Z"},

            // Incremental: it runs again only when a file in "sources" changed or one in
            // "generates" is missing; otherwise it is up to date.
            {"id": "count", "kind": "shell", "run": "cat *.json | wc -l > lines.txt",
             "sources": ["*.json"], "generates": ["lines.txt"]},

            // Runs after greet, and only where the environment variable CI is set.
            {"id": "in-ci", "kind": "shell", "dependsOn": ["greet"], "when": {"env": "CI"},
             "run": "echo running in CI"},
          ],
        }

        """
}
