import Foundation

@testable import Procflow

/// Runs one container template of an exported manifest here, as Argo would run its pod: the
/// input artifacts written as files with `{{inputs.parameters.X}}` filled in, the container's
/// environment and working directory, its command run, and its output parameters read back
/// from their paths (a missing file gives the default; one final newline trimmed, as Argo's
/// executor trims it). The pod's directories (`/procflow/in`, `/tmp/procflow`, `/workspace`)
/// are moved under a temporary directory, in the exporter's own scripts and paths only.
struct PodSimulator {
    /// What a simulated pod did.
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
        var outputs: [String: String]
    }

    let root: URL
    /// The workspace the pods share.
    var workspace: URL { URL(fileURLWithPath: local(PodScript.workspace)) }

    init() throws {
        root = try temporaryDirectory()
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(at: root)
    }

    /// `path` moved under the simulation's root, for the pod's own directories.
    func local(_ path: String) -> String {
        for prefix in [PodScript.inputs, PodScript.work, PodScript.workspace]
        where path == prefix || path.hasPrefix(prefix + "/") {
            let name = URL(fileURLWithPath: prefix).lastPathComponent
            return root.path + "/" + name + "-dir" + path.dropFirst(prefix.count)
        }
        return path
    }

    /// The exporter's script text with the pod's directories moved.
    private func localScript(_ text: String) -> String {
        var text = text
        // `/tmp/procflow` first, which holds `/procflow`; through placeholders, because the
        // temporary root's own path may hold a prefix too.
        let prefixes = [PodScript.work, PodScript.inputs, PodScript.workspace]
        for (index, prefix) in prefixes.enumerated() {
            text = text.replacingOccurrences(of: prefix, with: "\u{1}\(index)\u{1}")
        }
        for (index, prefix) in prefixes.enumerated() {
            text = text.replacingOccurrences(of: "\u{1}\(index)\u{1}", with: local(prefix))
        }
        return text
    }

    /// Runs `template` with the input `parameters` (values as Argo would pass them).
    func run(_ template: JSONValue, parameters: [String: String] = [:]) throws -> Run {
        let pod = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: pod) }
        for directory in ["in-dir", "procflow-dir"] {
            try? FileManager.default.removeItem(at: root.appendingPathComponent(directory))
        }
        func fill(_ text: String) -> String {
            var text = text
            for (name, value) in parameters {
                text = text.replacingOccurrences(of: "{{inputs.parameters.\(name)}}", with: value)
            }
            return text.replacingOccurrences(of: "{{workflow.name}}", with: "simulated-run")
        }
        if case .array(let artifacts)? = template.value(
            at: JSONPointer(tokens: ["inputs", "artifacts"]))
        {
            for artifact in artifacts {
                guard case .string(let path)? = artifact.value(at: JSONPointer(tokens: ["path"])),
                    case .string(let data)? = artifact.value(
                        at: JSONPointer(tokens: ["raw", "data"]))
                else { continue }
                let file = URL(fileURLWithPath: local(path))
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                var content = fill(data)
                if path == PodScript.inputs + "/workflow.json", let workflow = content.decoded {
                    content = localScript(workflow).encoded
                }
                try content.write(to: file, atomically: true, encoding: .utf8)
            }
        }
        guard case .object(let container)? = template.value(at: JSONPointer(tokens: ["container"])),
            case .array(let words)? = container["command"]
        else { throw SimulationError("not a container template") }
        var command = words.compactMap { word -> String? in
            if case .string(let text) = word { return text }
            return nil
        }
        if command.count > 2, command[0] == "/bin/sh", command[1] == "-c", command.count > 3,
            command[3] == "procflow"
        {
            command[2] = localScript(command[2])
        }
        var environment = [
            "PATH": procflowBinary.deletingLastPathComponent().path + ":/usr/bin:/bin"
        ]
        if case .array(let entries)? = container["env"] {
            for entry in entries {
                if case .string(let name)? = entry.value(at: JSONPointer(tokens: ["name"])),
                    case .string(let value)? = entry.value(at: JSONPointer(tokens: ["value"]))
                {
                    environment[name] = fill(value)
                }
            }
        }
        var directory = pod
        if case .string(let path)? = container["workingDir"] {
            directory = URL(fileURLWithPath: local(path))
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true)
        }
        let result = try runProcess(command, in: directory, environment: environment)
        var outputs: [String: String] = [:]
        if case .array(let list)? = template.value(
            at: JSONPointer(tokens: ["outputs", "parameters"]))
        {
            for output in list {
                guard case .string(let name)? = output.value(at: JSONPointer(tokens: ["name"])),
                    case .string(let path)? = output.value(
                        at: JSONPointer(tokens: ["valueFrom", "path"]))
                else { continue }
                var value: String
                if let data = FileManager.default.contents(atPath: local(path)) {
                    value = String(decoding: data, as: UTF8.self)
                } else if case .string(let fallback)? = output.value(
                    at: JSONPointer(tokens: ["valueFrom", "default"]))
                {
                    value = fallback
                } else {
                    continue
                }
                if value.hasSuffix("\n") { value.removeLast() }
                outputs[name] = value
            }
        }
        return Run(
            status: result.status, stdout: result.stdout, stderr: result.stderr, outputs: outputs)
    }

    private func runProcess(_ command: [String], in directory: URL, environment: [String: String])
        throws -> CommandResult
    {
        try runProgram(command, in: directory, environment: environment)
    }

    struct SimulationError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

extension Data {
    /// The data base64-encoded, as Argo passes values between pods.
    var encoded: String { base64EncodedString() }
}

extension String {
    /// The text base64-encoded.
    var encoded: String { Data(utf8).base64EncodedString() }

    /// The text base64-decoded, if it is base64.
    var decoded: String? {
        Data(base64Encoded: self, options: .ignoreUnknownCharacters).map {
            String(decoding: $0, as: UTF8.self)
        }
    }
}
