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

    /// What included files bring to the workflow that includes them.
    struct Included {
        /// Each file's steps, as a group named by its `as` with ids prefixed `as.`.
        var steps: [Step] = []
        /// The variables of their dotenv files, and the file each name was read from.
        var dotenv: [(name: String, value: String)] = []
        var dotenvFiles: [String: String] = [:]
        /// The names their `secrets` give.
        var secrets: Set<String> = []
        /// Their variables and `env` entries, which reach only their own steps: the values a
        /// secret name may have there.
        var values: [(name: String, value: String)] = []
    }

    /// What the files listed at `pointer` bring.
    func decodeIncludes(_ node: JSONNode, at pointer: JSONPointer) -> Included {
        var included = Included()
        guard case .array(let entries) = node.value else {
            report.error(
                "expected an array of includes, found \(node.typeDescription)", at: node.offset,
                pointer)
            return included
        }
        for (position, entry) in entries.enumerated() {
            guard let include = decodeInclude(entry, at: pointer.appending(position)),
                let (group, workflow) = load(include)
            else { continue }
            included.steps.append(group)
            included.dotenv += workflow.dotenv
            included.dotenvFiles.merge(workflow.dotenvFiles) { _, later in later }
            included.secrets.formUnion(workflow.secrets)
            included.values += workflow.variables + workflow.environment + workflow.includedValues
        }
        return included
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
    private func load(_ include: Include) -> (group: Step, workflow: Workflow)? {
        let full = resolve(include.path, in: directory(of: report.file))
        let canonical = WorkflowLoader.canonicalPath(full)
        let chain = (report.includeChain + [canonical]).map { lastComponent($0) }
        if let start = report.includeChain.firstIndex(of: canonical) {
            report.error(
                "include cycle: \(Self.describe(chain[start...]))", at: include.offset,
                include.pointer.appending("path"))
            return nil
        }
        // The included file nests inside the entry that names it, so that a chain of
        // includes nests no deeper than one file may: every walk of the steps stays bounded.
        let depth = report.depth + include.pointer.tokens.count + 1
        guard let root = parse(include, full, depth: depth, chain: chain) else { return nil }
        let context = DecodingContext(
            file: include.shown, sources: report.sources,
            includeChain: report.includeChain + [canonical], depth: depth, budget: report.budget)
        context.enclosingPlacement = report.enclosingPlacement
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
        let steps = workflow.steps.map {
            $0.renamed(rename).addingEnvironment(environment).addingCacheKey(workflow.cacheKey)
        }
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
        return (group, workflow)
    }

    /// Reads and parses the included file, nested `depth` levels deep; reports, at the
    /// entry, a file it cannot read, one past what the workflow may read, and one that nests
    /// too deep where it is included (`chain` names the files that lead to it).
    private func parse(_ include: Include, _ path: String, depth: Int, chain: [String])
        -> JSONNode?
    {
        let at = include.pointer.appending("path")
        func tooDeep(_ inside: String = "") -> String {
            "the included file \(include.path) nests too deep\(inside): included files count from where they are included, and a workflow nests at most \(JSONParser.maximumDepth) levels of arrays and objects (\(Self.describe(chain[...])))"
        }
        guard !report.budget.isSpent else { return nil }
        guard depth < JSONParser.maximumDepth else {
            report.error(tooDeep(), at: include.offset, at)
            return nil
        }
        let name = "the included file \(include.path)"
        let bytes: [UInt8]
        switch WorkflowFile.read(path, named: name) {
        case .success(let read): bytes = read
        case .failure(let problem):
            report.error(problem.message, at: include.offset, at)
            return nil
        }
        if let problem = report.budget.take(bytes.count, for: name) {
            report.error(problem, at: include.offset, at)
            return nil
        }
        let base = report.sources.add(include.shown, bytes)
        do throws(JSONSyntaxError) {
            return try JSONParser.parse(bytes, enclosingDepth: depth, withComments: true)
                .rebased(by: base)
        } catch  where error.isTooDeep {
            let location = report.location(of: base + error.offset)
            let inside = " (at \(include.shown):\(location.line):\(location.column))"
            report.error(tooDeep(inside), at: include.offset, at)
        } catch {
            report.error("invalid JSON: \(error.message)", at: base + error.offset, nil)
        }
        return nil
    }

    /// A chain of files, `a.json -> b.json -> c.json`, its middle left out when it is long.
    private static func describe(_ chain: ArraySlice<String>) -> String {
        guard chain.count > 8 else { return chain.joined(separator: " -> ") }
        let middle = "… \(chain.count - 6) more …"
        return (chain.prefix(3) + [middle] + chain.suffix(3)).joined(separator: " -> ")
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
