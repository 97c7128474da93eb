import Foundation
import Testing

@testable import Procflow

/// The workflow file, its includes and its dotenv files must be regular files of at most
/// 16 MiB: a device, a FIFO, a directory or a bigger file named in a workflow is a located
/// error, in bounded time and memory, never a read without end.
@Suite("Reading workflow files")
struct WorkflowFileReadingTests {
    /// A workflow naming `target` as an include or a dotenv file, and the error it gives.
    struct Case: CustomStringConvertible, Sendable {
        let name: String
        /// What `target` is made as: "fifo", "directory", "sparse N" (a file of N zero bytes),
        /// or "" for a path that exists already (`/dev/zero`).
        let make: String
        let target: String
        let field: String
        let expected: String

        var description: String { name }
    }

    static let oneOverTheLimit = Workflow.maximumFileSize + 1

    static let cases: [Case] = [
        Case(
            name: "include of /dev/zero", make: "", target: "/dev/zero", field: "include",
            expected:
                "flow.json:1:14: error: /include/0/path: the included file /dev/zero is a character device, not a regular file"
        ),
        Case(
            name: "include of a FIFO", make: "fifo", target: "fifo", field: "include",
            expected:
                "flow.json:1:14: error: /include/0/path: the included file fifo is a FIFO, not a regular file"
        ),
        Case(
            name: "include of a directory", make: "directory", target: "sub", field: "include",
            expected:
                "flow.json:1:14: error: /include/0/path: the included file sub is a directory, not a regular file"
        ),
        Case(
            name: "include of a file past 16 MiB", make: "sparse \(oneOverTheLimit)",
            target: "big.json", field: "include",
            expected:
                "flow.json:1:14: error: /include/0/path: the included file big.json is 16.1 MiB; workflow files are limited to 16 MiB"
        ),
        Case(
            name: "dotenv of /dev/zero", make: "", target: "/dev/zero", field: "dotenv",
            expected:
                "flow.json:1:13: error: /dotenv/0: the dotenv file /dev/zero is a character device, not a regular file"
        ),
        Case(
            name: "dotenv of a FIFO", make: "fifo", target: "fifo", field: "dotenv",
            expected:
                "flow.json:1:13: error: /dotenv/0: the dotenv file fifo is a FIFO, not a regular file"
        ),
        Case(
            name: "dotenv of 20 MiB", make: "sparse \(20 << 20)", target: "big.env",
            field: "dotenv",
            expected:
                "flow.json:1:13: error: /dotenv/0: the dotenv file big.env is 20 MiB; dotenv files are limited to 16 MiB"
        ),
    ]

    /// Makes `path` as `make` says.
    static func make(_ make: String, at path: URL) throws {
        switch make {
        case "fifo":
            #expect(mkfifo(path.path, 0o600) == 0)
        case "directory":
            try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
        case let sparse where sparse.hasPrefix("sparse "):
            #expect(FileManager.default.createFile(atPath: path.path, contents: nil))
            #expect(truncate(path.path, off_t(Int(sparse.dropFirst(7))!)) == 0)
        default:
            break
        }
    }

    @Test(arguments: cases)
    func aNamedFileThatIsNotASmallRegularFileIsALocatedError(_ test: Case) throws {
        let entry =
            test.field == "include"
            ? #"[{"path": "\#(test.target)", "as": "x"}]"# : #"["\#(test.target)"]"#
        let fixture = try WorkflowFixture(
            #"{"\#(test.field)": \#(entry), "procedures": [{"id": "a", "kind": "shell", "run": "true"}]}"#
        )
        defer { fixture.remove() }
        try Self.make(test.make, at: fixture.directory.appendingPathComponent(test.target))
        for command in ["validate", "run", "graph"] {
            let result = try runProcflow(
                [command, fixture.file], in: fixture.directory, timeout: 20)
            #expect(result.status == 2)
            #expect(
                result.stderr.withoutSnippets == test.expected + "\nflow.json: 1 error\n",
                "\(command)")
        }
    }

    @Test(arguments: [
        ("fifo", "fifo", "the file is a FIFO, not a regular file"),
        (
            "sparse \(20 << 20)", "big.json",
            "the file is 20 MiB; workflow files are limited to 16 MiB"
        ),
        ("directory", "sub", "the file is a directory, not a regular file"),
    ])
    func aWorkflowFileThatIsNotASmallRegularFileIsAnError(
        make: String, name: String, message: String
    ) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.make(make, at: directory.appendingPathComponent(name))
        for command in ["validate", "run", "list", "export"] {
            let arguments =
                command == "export" ? [command, name, "--to", "argo"] : [command, name]
            let result = try runProcflow(arguments, in: directory, timeout: 20)
            #expect(result.status == 2, "\(command)")
            #expect(result.stderr == "\(name): error: \(message)\n\(name): 1 error\n", "\(command)")
        }
    }

    @Test func aWorkflowOfExactlyTheLimitLoads() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var bytes = Array(workflow(#"{"id": "a", "kind": "shell", "run": "true"}"#).utf8)
        bytes += [UInt8](
            repeating: UInt8(ascii: " "), count: Workflow.maximumFileSize - bytes.count)
        let path = directory.appendingPathComponent("flow.json").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let loaded = try WorkflowLoader.load(path: path)
        #expect(loaded.steps.map(\.id) == ["a"])
        // One byte more is refused, as the file it then is.
        try Data(bytes + [UInt8(ascii: " ")]).write(to: URL(fileURLWithPath: path))
        #expect(throws: WorkflowErrors.self) { try WorkflowLoader.load(path: path) }
    }
}
