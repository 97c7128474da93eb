#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Turns the JSON of a workflow file into a ``Workflow``, reporting every problem of shape
/// (types, missing and unknown fields) rather than stopping at the first.
struct WorkflowDecoder {
    let report: DecodingContext
    /// `--var` overrides of the workflow's variables.
    let overrides: [String: String]

    func decodeWorkflow(_ root: JSONNode, defaultName: String) -> Workflow? {
        guard
            var object = ObjectReader(
                root, at: .root, report: report, expected: "a workflow object")
        else { return nil }
        if let (node, pointer) = object.node("version") {
            if case .number(let version) = node.value, version == 1 {
            } else {
                report.error(
                    "unsupported version: this procflow reads version 1", at: node.offset, pointer)
            }
        }
        _ = object.string("$schema")
        let name = object.string("name", nonEmpty: true) ?? defaultName
        let description = object.string("description")
        var variables = object.stringMap("vars", names: .environmentVariable) ?? []
        for index in variables.indices {
            if let value = overrides[variables[index].name] { variables[index].value = value }
        }
        report.variables = Dictionary(
            variables.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        let environment =
            object.stringMap("env", names: .environmentVariable, substitute: true) ?? []
        let (dotenv, secretFiles, dotenvFiles) =
            object.node("dotenv").map { decodeDotenv($0.node, at: $0.pointer) } ?? ([], [], [:])
        var secrets = secretFiles
        // Names of variables, `env` entries, dotenv entries or environment variables.
        secrets.formUnion(object.strings("secrets", names: .environmentVariable) ?? [])
        let maxConcurrency = object.integer("maxConcurrency", in: 1...10_000)
        let cacheKey = decodeCacheKey(&object)
        let defaults = decodePlacement(&object)
        // The workflow's executor is the default `--executor` overrides: steps do not take it.
        report.enclosingPlacement = Placement(resources: defaults.resources, slurm: defaults.slurm)
        var steps: [Step] = []
        if let (node, pointer) = object.node("procedures") {
            steps = decodeSteps(node, at: pointer, requireSome: true)
        } else {
            object.missing("procedures", ": a workflow lists its procedures")
        }
        var included = WorkflowDecoder.Included()
        if let (node, pointer) = object.node("include") {
            included = decodeIncludes(node, at: pointer)
            steps += included.steps
            secrets.formUnion(included.secrets)
        }
        object.reportUnread(in: "the workflow", allowed: WorkflowFields.topLevelFields)
        var workflow = Workflow(
            path: report.file, name: name, description: description, variables: variables,
            environment: environment, dotenv: dotenv + included.dotenv,
            maxConcurrency: maxConcurrency,
            cacheKey: cacheKey, executor: defaults.executor, steps: steps)
        workflow.secrets = secrets
        workflow.includedValues = included.values
        workflow.dotenvFiles = included.dotenvFiles.merging(dotenvFiles) { _, own in own }
        return workflow
    }

    func decodeSteps(_ node: JSONNode, at pointer: JSONPointer, requireSome: Bool) -> [Step] {
        guard case .array(let items) = node.value else {
            report.error(
                "expected an array of procedures, found \(node.typeDescription)", at: node.offset,
                pointer)
            return []
        }
        if requireSome, items.isEmpty {
            report.error("the list of procedures is empty", at: node.offset, pointer)
        }
        let pointer = pointer.materialized
        return items.enumerated().compactMap { position, item in
            decodeStep(item, at: pointer.appending(position))
        }
    }

    func decodeStep(_ node: JSONNode, at pointer: JSONPointer) -> Step? {
        guard
            var object = ObjectReader(
                node, at: pointer, report: report, expected: "a procedure object")
        else { return nil }
        let id = decodeID(&object)
        let kindName = object.choice("kind", of: KindName.self)
        if kindName == nil, !object.has("kind") {
            object.missing("kind", ": one of \"shell\", \"http\", \"file\", \"group\", \"branch\"")
        }
        let description = object.string("description")
        if kindName == .shell { refuseServiceConflicts(object) }
        // Read first: the item's references in the other fields are left for each instance.
        let forEach = object.node("forEach").flatMap { decodeForEach($0.node, at: $0.pointer) }
        let enclosingItem = report.itemVariable
        if let forEach { report.itemVariable = forEach.variable }
        defer { report.itemVariable = enclosingItem }
        let dependsOn = decodeReferences(&object, "dependsOn")
        let input = object.node("input").flatMap { decodeWire($0.node, at: $0.pointer) }
        let when = object.node("when").flatMap { decodeCondition($0.node, at: $0.pointer) }
        let mutex = object.string("mutex", nonEmpty: true).map { [$0] } ?? []
        let retry = object.node("retry").flatMap { decodeRetry($0.node, at: $0.pointer) }
        let timeout = object.number("timeout", in: 0.001...Double.greatestFiniteMagnitude)
        let continueOnError = object.bool("continueOnError") ?? false
        let always = object.bool("always") ?? false
        // Only shell and file steps run in a container of their own when exported.
        let image =
            kindName == .shell || kindName == .file ? decodeImage(&object) : nil
        let caching = decodeCaching(&object, kind: kindName)
        // A group's placement is its steps' default; only shell steps use one.
        let enclosingPlacement = report.enclosingPlacement
        var placement = enclosingPlacement
        if kindName == .shell || kindName == .group {
            placement = decodePlacement(&object).over(enclosingPlacement)
        }
        report.enclosingPlacement = placement
        defer { report.enclosingPlacement = enclosingPlacement }

        var kind: Step.Kind?
        switch kindName {
        case .shell: kind = decodeShell(&object).map(Step.Kind.shell)
        case .http: kind = decodeHTTP(&object).map(Step.Kind.http)
        case .file: kind = decodeFile(&object).map(Step.Kind.file)
        case .group: kind = decodeGroup(&object).map(Step.Kind.group)
        case .branch: kind = decodeBranch(&object).map(Step.Kind.branch)
        case nil: break
        }
        let context =
            kindName.map { "\($0 == .http ? "an" : "a") \($0.rawValue) procedure" } ?? "a procedure"
        // Without a known kind, any kind's fields may be meant: only report true unknowns.
        let allowed = WorkflowFields.allowedFields[kindName?.rawValue ?? ""]!
        object.reportUnread(in: context, allowed: allowed) { field in
            guard kindName != nil, let owners = WorkflowFields.fieldOwners[field] else {
                return nil
            }
            return WorkflowFields.list(owners.map { "\($0)" }) + " procedures"
        }

        guard let id, let kind else { return nil }
        return Step(
            id: id, description: description, kind: kind, dependsOn: dependsOn, input: input,
            when: when, mutex: mutex, retry: retry, timeout: timeout,
            continueOnError: continueOnError, always: always, forEach: forEach, image: image,
            caching: caching, placement: placement,
            pointer: pointer, offset: object.offset)
    }

    /// The fields of incremental runs that a step of `kind` has (as ``kindFields`` lists
    /// them); the others are left unread, to be reported as not applying.
    func decodeCaching(_ object: inout ObjectReader, kind: KindName?) -> Caching {
        var caching = Caching()
        switch kind {
        case .shell, .file:
            caching.sources = decodePatterns(&object, "sources").patterns
            let (generates, offsets) = decodePatterns(&object, "generates")
            (caching.generates, caching.generatesOffsets) = (generates, OneOrMore(offsets))
            if kind == .shell {
                caching.depfile = object.string("depfile", nonEmpty: true, substitute: true)
            }
            caching.cache = object.bool("cache")
            caching.keyParts = decodeCacheKey(&object)
        case .http:
            caching.cache = object.bool("cache")
            caching.keyParts = decodeCacheKey(&object)
        case .group, .branch, nil:
            break
        }
        return caching
    }

    /// `cacheKey`: texts (variables filled in), `{"command": …}` and `{"file": …}`.
    func decodeCacheKey(_ object: inout ObjectReader) -> [CacheKeyPart] {
        guard let (node, pointer) = object.node("cacheKey") else { return [] }
        guard case .array(let items) = node.value else {
            report.error(
                "expected an array of texts, {\"command\": …} and {\"file\": …}, found \(node.typeDescription)",
                at: node.offset, pointer)
            return []
        }
        return items.enumerated().compactMap { index, item in
            decodeCacheKeyPart(item, at: pointer.appending(String(index)))
        }
    }

    private func decodeCacheKeyPart(_ node: JSONNode, at pointer: JSONPointer) -> CacheKeyPart? {
        if case .string(let text) = node.value {
            return report.substitute(text, at: node.offset, pointer).map(CacheKeyPart.text)
        }
        guard
            var part = ObjectReader(node, at: pointer, report: report, expected: "a cacheKey part")
        else { return nil }
        switch (part.has("command"), part.has("file")) {
        case (true, false):
            return part.string("command", nonEmpty: true).map(CacheKeyPart.command)
        case (false, true):
            return part.string("file", nonEmpty: true, substitute: true).map(CacheKeyPart.file)
        default:
            report.error(
                "a cacheKey part is a text, {\"command\": \"…\"} or {\"file\": \"…\"}",
                at: node.offset, pointer)
            return nil
        }
    }

    /// An array of path patterns, variables filled in, each checked; with the offset of each.
    func decodePatterns(_ object: inout ObjectReader, _ key: String) -> (
        patterns: [GlobPattern], offsets: [Int]
    ) {
        guard let (node, pointer) = object.node(key) else { return ([], []) }
        guard case .array(let items) = node.value else {
            report.error(
                "expected an array of path patterns, found \(node.typeDescription)",
                at: node.offset, pointer)
            return ([], [])
        }
        var patterns: [GlobPattern] = []
        var offsets: [Int] = []
        patterns.reserveCapacity(items.count)
        offsets.reserveCapacity(items.count)
        // Pointers are made only for problems: this runs for every path of every step.
        for (position, item) in items.enumerated() {
            guard case .string(let text) = item.value else {
                report.error(
                    "expected a path pattern string, found \(item.typeDescription)",
                    at: item.offset, pointer.appending(position))
                continue
            }
            var filled = text
            if text.containsByte(UInt8(ascii: "$")) {
                guard
                    let substituted = report.substitute(
                        text, at: item.offset, pointer.appending(position))
                else { continue }
                filled = substituted
            }
            do {
                patterns.append(try GlobPattern(filled))
                offsets.append(item.offset)
            } catch {
                report.error(
                    "\"\(filled)\" is not a usable path pattern: \(error.message)",
                    at: item.offset, pointer.appending(position))
            }
        }
        return (patterns, offsets)
    }

    enum KindName: String, CaseIterable {
        case shell, http, file, group, branch
    }

    func decodeID(_ object: inout ObjectReader) -> String? {
        guard let (node, pointer) = object.node("id") else {
            object.missing("id")
            return nil
        }
        guard case .string(let id) = node.value else {
            report.error(
                "expected a string, found \(node.typeDescription)", at: node.offset, pointer)
            return nil
        }
        if let first = report.declaredIDs.updateValue(node.offset, forKey: id) {
            report.declaredIDs[id] = first
            report.error(
                "duplicate id \"\(id)\": already used at line \(report.location(of: first).line)",
                at: node.offset,
                pointer)
            return nil
        }
        guard Self.isValidID(id) else {
            report.error(
                "\"\(id)\" is not a valid id: use letters, digits, '_', '-' and '.', starting with a letter or '_'",
                at: node.offset, pointer)
            return nil
        }
        return id
    }

    /// Whether `text` is an http or https URL with a host (and a valid port, if any).
    static func isHTTPURL(_ text: String) -> Bool {
        guard let separator = text.range(of: "://") else { return false }
        let scheme = text[..<separator.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return false }
        let authority = text[separator.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort =
            authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        var host = hostAndPort
        var port: Substring?
        if hostAndPort.hasPrefix("[") {
            guard let close = hostAndPort.firstIndex(of: "]") else { return false }
            host = hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<close]
            let rest = hostAndPort[hostAndPort.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return false }
                port = rest.dropFirst()
            }
        } else if let colon = hostAndPort.lastIndex(of: ":") {
            host = hostAndPort[..<colon]
            port = hostAndPort[hostAndPort.index(after: colon)...]
        }
        if let port, !(Int(port).map { (1...65_535).contains($0) } ?? false) { return false }
        return !host.isEmpty && !host.contains(where: \.isWhitespace)
            && !text.contains(where: \.isWhitespace)
    }

    static func isValidID(_ id: String) -> Bool {
        // ASCII, byte by byte: Unicode properties are slow, and ids are checked one by one.
        let ascii = id.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: ".")
        }
        if ascii, let first = id.utf8.first {
            return first == UInt8(ascii: "_")
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first | 0x20)
        }
        guard let first = id.unicodeScalars.first,
            first == "_" || (first.isASCII && first.properties.isAlphabetic)
        else { return false }
        return id.unicodeScalars.allSatisfy {
            $0.isASCII
                && ($0.properties.isAlphabetic || ("0"..."9").contains($0)
                    || "_-.".unicodeScalars.contains($0))
        }
    }

    /// A container image reference: not empty, without whitespace; variables filled in.
    func decodeImage(_ object: inout ObjectReader) -> String? {
        guard let image = object.string("image", nonEmpty: true, substitute: true) else {
            return nil
        }
        guard
            !image.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 })
        else {
            let (node, pointer) = object.node("image")!
            report.error(
                "\"\(image)\" is not an image reference: write one such as \"alpine:3.20\", without spaces",
                at: node.offset, pointer)
            return nil
        }
        return image
    }

    func decodeReferences(_ object: inout ObjectReader, _ key: String) -> [Reference] {
        guard let (node, pointer) = object.node(key) else { return [] }
        guard case .array(let items) = node.value else {
            report.error(
                "expected an array of procedure ids, found \(node.typeDescription)",
                at: node.offset, pointer)
            return []
        }
        return items.enumerated().compactMap { position, item in
            decodeReference(item, at: pointer.appending(position))
        }
    }

    func decodeReference(_ node: JSONNode, at pointer: JSONPointer) -> Reference? {
        guard case .string(let id) = node.value else {
            report.error(
                "expected a procedure id, found \(node.typeDescription)", at: node.offset, pointer)
            return nil
        }
        return Reference(id: id, pointer: pointer, offset: node.offset)
    }

    func decodeWire(_ node: JSONNode, at pointer: JSONPointer) -> Wire? {
        guard
            var object = ObjectReader(
                node, at: pointer, report: report,
                expected: "a wire object such as {\"from\": \"id\"}")
        else { return nil }
        let wire = decodeWire(in: &object)
        object.reportUnread(in: "a wire", allowed: ["from", "select"])
        return wire
    }

    /// The wire that `object`'s `from` and `select` describe.
    func decodeWire(in object: inout ObjectReader) -> Wire? {
        let from = object.node("from").flatMap { decodeReference($0.node, at: $0.pointer) }
        if !object.has("from") {
            object.missing("from", ": the id of the procedure whose output to take")
        }
        var select: JSONPointer?
        if let (node, selectPointer) = object.node("select") {
            if case .string(let text) = node.value {
                select = JSONPointer(parsing: text)
                if select == nil {
                    report.error(
                        "\"\(text)\" is not a JSON Pointer: it must be empty or start with '/' (and '~' must be escaped as ~0 or ~1)",
                        at: node.offset, selectPointer)
                }
            } else {
                report.error(
                    "expected a JSON Pointer string, found \(node.typeDescription)",
                    at: node.offset, selectPointer)
            }
        }
        guard let from else { return nil }
        return Wire(from: from, select: select, pointer: object.pointer, offset: object.offset)
    }

}
