#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a workflow file, parses it, decodes it and checks it, reporting every problem found
/// with its file, line, column and JSON Pointer.
public enum WorkflowLoader {
    /// Loads the workflow at `path`.
    ///
    /// - Parameters:
    ///   - path: the workflow file.
    ///   - overrides: `--var` values, which replace the defaults of declared variables.
    /// - Throws: ``WorkflowErrors`` listing every problem, in file order.
    public static func load(path: String, overrides: [(name: String, value: String)] = [])
        throws(WorkflowErrors)
        -> Workflow
    {
        try load(bytes: read(path: path), file: path, overrides: overrides)
    }

    /// The bytes of the workflow file at `path`: a regular file of at most
    /// ``Workflow/maximumFileSize`` bytes.
    ///
    /// - Throws: ``WorkflowErrors`` saying why it cannot be read.
    public static func read(path: String) throws(WorkflowErrors) -> [UInt8] {
        switch WorkflowFile.read(path, named: "the file") {
        case .success(let bytes):
            return bytes
        case .failure(let problem):
            throw WorkflowErrors(diagnostics: [
                Diagnostic(file: path, location: nil, pointer: nil, message: problem.message)
            ])
        }
    }

    /// Loads a workflow from `bytes`, naming `file` in diagnostics.
    ///
    /// - Parameter freeingTree: `false` in a process that ends once it has used the workflow:
    ///   the file's syntax tree is then left for the system to reclaim at exit (see
    ///   ``LeftToExit``) instead of being torn down object by object.
    public static func load(
        bytes: [UInt8], file: String, overrides: [(name: String, value: String)] = [],
        freeingTree: Bool = true
    ) throws(WorkflowErrors) -> Workflow {
        let sources = SourceMap()
        _ = sources.add(file, bytes)
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes, withComments: true)
        } catch {
            if looksLikeYAML(bytes) {
                throw WorkflowErrors(
                    diagnostics: [
                        Diagnostic(
                            file: file, location: sources.locate(0).location, pointer: nil,
                            message:
                                "this looks like YAML: procflow reads workflows written in JSON (with // comments and trailing commas)"
                        )
                    ], sources: sources)
            }
            throw WorkflowErrors(
                diagnostics: [
                    Diagnostic(
                        file: file, location: sources.locate(error.offset).location, pointer: nil,
                        message: "invalid JSON: \(error.message)")
                ], sources: sources)
        }
        let budget = ReadBudget()
        _ = budget.take(bytes.count, for: "the file")
        let context = DecodingContext(
            file: file, sources: sources, includeChain: [canonicalPath(file)], budget: budget)
        var overrideValues: [String: String] = [:]
        for (name, value) in overrides { overrideValues[name] = value }
        let decoder = WorkflowDecoder(report: context, overrides: overrideValues)
        let workflow = decoder.decodeWorkflow(root, defaultName: defaultName(for: file))
        // Let go of before the workflow is checked, whose tables then take its room: a large
        // file's tree (600 bytes a step) was held beside them, at the load's peak.
        if freeingTree { _ = consume root } else { LeftToExit.keep(root) }
        var diagnostics: [Diagnostic] = []
        if let workflow {
            diagnostics = unknownOverrides(overrides, of: workflow, file: file)
            // Validate what could be decoded, so that one run reports every problem.
            var validator = WorkflowValidator(workflow: workflow, report: context)
            validator.validate()
        }
        diagnostics += context.diagnostics
        guard diagnostics.isEmpty, let workflow else {
            var errors = WorkflowErrors(
                diagnostics: inFileOrder(diagnostics, first: file), sources: sources)
            if let workflow { errors.secrets = secretForms(of: workflow) }
            throw errors
        }
        var loaded = workflow
        loaded.sources = sources
        return loaded
    }

    /// The values of `workflow`'s secrets (with procflow's environment) as they are, with
    /// control characters escaped, and as a JSON string in the file writes them.
    private static func secretForms(of workflow: Workflow) -> SecretValues {
        var environment: [String: String] = [:]
        for name in workflow.secrets {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return SecretValues(
            workflow.secretValues(in: environment),
            alsoAs: [\.escapingControlCharacters, JSONWriter.stringContent])
    }

    /// A diagnostic for each `--var` that names no variable `workflow` declares.
    private static func unknownOverrides(
        _ overrides: [(name: String, value: String)], of workflow: Workflow, file: String
    ) -> [Diagnostic] {
        let declared = workflow.variables.map(\.name)
        return overrides.filter { !declared.contains($0.name) }.map { name, _ in
            let known =
                declared.isEmpty
                ? "the workflow declares no \"vars\""
                : "it declares \(declared.map { "\"\($0)\"" }.joined(separator: ", "))"
            return Diagnostic(
                file: file, location: nil, pointer: nil,
                message:
                    "--var \(name): no such variable\(Suggestion.hint(for: name, in: declared)); \(known)"
            )
        }
    }

    /// `diagnostics` with the workflow file's (`file`) first, then each other file's as they
    /// came; in file order within each.
    private static func inFileOrder(_ diagnostics: [Diagnostic], first file: String)
        -> [Diagnostic]
    {
        var files = [file: 0]
        for diagnostic in diagnostics where files[diagnostic.file] == nil {
            files[diagnostic.file] = files.count
        }
        let origin = SourceLocation(line: 0, column: 0)
        return diagnostics.enumerated().sorted { lhs, rhs in
            let left = (files[lhs.element.file]!, lhs.element.location ?? origin)
            let right = (files[rhs.element.file]!, rhs.element.location ?? origin)
            if left.0 != right.0 { return left.0 < right.0 }
            return left.1 == right.1 ? lhs.offset < rhs.offset : left.1 < right.1
        }.map(\.element)
    }

    /// The file name without directories and extension.
    static func defaultName(for path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// The path with symbolic links and `..` resolved, as include cycles are found; the path
    /// as given if it cannot be resolved.
    static func canonicalPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// Whether `bytes` begin like a YAML document rather than JSON: their first line that is not
/// blank or a `#` comment is `---` or a `key:` mapping entry.
func looksLikeYAML(_ bytes: [UInt8]) -> Bool {
    let text = String(decoding: bytes.prefix(4096), as: UTF8.self)
    // "\r\n" is one Character: a file with CRLF ends splits on it.
    for line in text.split(
        omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    {
        let trimmed = line.drop { $0 == " " || $0 == "\t" || $0 == "\u{FEFF}" }
        if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
        if trimmed.hasPrefix("---") { return true }
        return trimmed.wholeMatch(of: /[A-Za-z_][-A-Za-z0-9_ .]*:(\s.*)?/) != nil
    }
    return false
}
