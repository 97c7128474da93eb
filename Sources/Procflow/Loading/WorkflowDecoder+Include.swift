#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension WorkflowDecoder {
    /// One `include` entry, read.
    private struct Include {
        /// The file, as the workflow names it, and as procflow names it (relative to where it
        /// runs, as the workflow file is named).
        let path: String
        let shown: String
        /// The id of the group the included steps join under, and their prefix.
        let name: String
        /// Values for the included file's variables.
        let variables: [(name: String, value: String)]
        /// Where the entry and its `vars` are.
        let offset: Int
        let pointer: JSONPointer
        let variablesAt: (offset: Int, pointer: JSONPointer)?
    }

    /// The steps the files listed at `pointer` bring, each file's as a group named by its
    /// `as` with ids prefixed `as.`, and the variables of their dotenv files.
    func decodeIncludes(_ node: JSONNode, at pointer: JSONPointer) -> (
        steps: [Step], dotenv: [(name: String, value: String)]
    ) {
        guard case .array(let entries) = node.value else {
            report.error(
                "expected an array of includes, found \(node.typeDescription)", at: node.offset,
                pointer)
            return ([], [])
        }
        var steps: [Step] = []
        var dotenv: [(name: String, value: String)] = []
        for (position, entry) in entries.enumerated() {
            guard let include = decodeInclude(entry, at: pointer.appending(position)),
                let included = load(include)
            else { continue }
            steps.append(included.group)
            dotenv += included.dotenv
        }
        return (steps, dotenv)
    }

    private func decodeInclude(_ node: JSONNode, at pointer: JSONPointer) -> Include? {
        guard
            var object = ObjectReader(
                node, at: pointer, report: report, expected: "an include object")
        else { return nil }
        let path = object.string("path", required: true, nonEmpty: true, substitute: true)
        let name = object.node("as").flatMap { node, at -> String? in
            guard case .string(let name) = node.value, Self.isValidID(name) else {
                report.error(
                    "\"as\" names the group the included steps join: a valid id (letters, digits, '_', '-' and '.', starting with a letter or '_')",
                    at: node.offset, at)
                return nil
            }
            return name
        }
        if !object.has("as") { object.missing("as", ": the prefix of the included steps' ids") }
        let variablesAt = object.node("vars").map { ($0.node.offset, $0.pointer) }
        let variables = object.stringMap("vars", names: .environmentVariable, substitute: true)
        object.reportUnread(in: "an include", allowed: ["path", "as", "vars"])
        guard let path, let name else { return nil }
        if let first = report.declaredIDs[name] {
            report.error(
                "duplicate id \"\(name)\": already used at line \(report.location(of: first).line)",
                at: node.offset, pointer.appending("as"))
            return nil
        }
        report.declaredIDs[name] = node.offset
        let base = directory(of: report.file)
        return Include(
            path: path, shown: path.hasPrefix("/") || base == "." ? path : base + "/" + path,
            name: name, variables: variables ?? [], offset: node.offset, pointer: pointer,
            variablesAt: variablesAt)
    }

    /// Reads, parses and decodes the included file, with its own includes; its problems are
    /// reported in it.
    private func load(_ include: Include) -> (group: Step, dotenv: [(name: String, value: String)])?
    {
        let full = resolve(include.path, in: directory(of: report.file))
        let canonical = WorkflowLoader.canonicalPath(full)
        if let start = report.includeChain.firstIndex(of: canonical) {
            let cycle = (report.includeChain[start...] + [canonical]).map { lastComponent($0) }
            report.error(
                "include cycle: \(cycle.joined(separator: " -> "))", at: include.offset,
                include.pointer.appending("path"))
            return nil
        }
        let bytes: [UInt8]
        switch WorkflowFile.read(full, named: "the included file \(include.path)") {
        case .success(let read): bytes = read
        case .failure(let problem):
            report.error(problem.message, at: include.offset, include.pointer.appending("path"))
            return nil
        }
        let base = report.sources.add(include.shown, bytes)
        let root: JSONNode
        do throws(JSONSyntaxError) {
            root = try JSONParser.parse(bytes).rebased(by: base)
        } catch {
            report.error("invalid JSON: \(error.message)", at: base + error.offset, nil)
            return nil
        }
        let context = DecodingContext(
            file: include.shown, sources: report.sources,
            includeChain: report.includeChain + [canonical])
        let decoder = WorkflowDecoder(
            report: context,
            overrides: Dictionary(include.variables.map { ($0.name, $0.value) }) { _, last in last }
        )
        guard let workflow = decoder.decodeWorkflow(root, defaultName: include.name) else {
            report.absorb(context) { $0 }
            return nil
        }
        checkVariables(of: include, declared: workflow.variables.map(\.name))
        let declared = Set(context.declaredIDs.keys)
        let rename = { (id: String) in declared.contains(id) ? "\(include.name).\(id)" : id }
        report.absorb(context, renaming: rename)
        // The included file's variables and `env` reach its own commands only.
        let environment = workflow.variables + workflow.environment
        let steps = workflow.steps.map { $0.renamed(rename).addingEnvironment(environment) }
        let group = Step(
            id: include.name,
            description: workflow.description ?? "the steps of \(include.path)",
            kind: .group(
                Group(
                    steps: steps, inputTo: nil, outputFrom: nil,
                    maxConcurrency: workflow.maxConcurrency, includedFrom: include.shown)),
            dependsOn: [], input: nil, when: nil, mutex: [], retry: nil, timeout: nil,
            continueOnError: false, always: false, pointer: include.pointer,
            offset: include.offset)
        return (group, workflow.dotenv)
    }

    /// Reports values given for variables the included file does not declare.
    private func checkVariables(of include: Include, declared: [String]) {
        guard let (offset, pointer) = include.variablesAt else { return }
        for (name, _) in include.variables where !declared.contains(name) {
            report.error(
                "\(include.path) declares no variable \"\(name)\"\(Suggestion.hint(for: name, in: declared))",
                at: offset, pointer.appending(name))
        }
    }

    private func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
