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
    private let overrides: [String: String]

    static let topLevelFields = [
        "$schema", "version", "name", "description", "vars", "env", "dotenv", "include",
        "maxConcurrency", "procedures",
    ]
    static let commonFields = [
        "id", "kind", "description", "dependsOn", "input", "when", "mutex", "retry", "timeout",
        "continueOnError", "always", "forEach",
    ]
    static let kindFields: [String: [String]] = [
        "shell": [
            "run", "argv", "shell", "cwd", "env", "inputs", "output", "image", "sources",
            "generates", "depfile", "cache",
        ],
        "http": ["url", "method", "headers", "body", "expect", "output", "cache"],
        "file": [
            "op", "path", "source", "content", "template", "text", "pointer", "find", "replace",
            "paths", "output", "image", "sources", "generates", "cache",
        ],
        "group": ["procedures", "inputTo", "outputFrom", "maxConcurrency"],
        "branch": ["on", "cases", "otherwise"],
    ]
    static let kindOrder = ["shell", "http", "file", "group", "branch"]
    /// The fields of incremental runs, which belong to a kind rather than to an operation.
    static let cachingFields: Set<String> = ["sources", "generates", "depfile", "cache"]
    /// The fields a procedure of each kind may have; under "", those of any kind.
    static let allowedFields: [String: [String]] = {
        var allowed = [
            "": commonFields
                + kindOrder.flatMap { kindFields[$0]! }.reduce(into: []) {
                    if !$0.contains($1) { $0.append($1) }
                }
        ]
        for kind in kindOrder { allowed[kind] = commonFields + kindFields[kind]! }
        return allowed
    }()
    /// For each kind-specific field, the kinds that have it, in a fixed order.
    static let fieldOwners: [String: [String]] = {
        var owners: [String: [String]] = [:]
        for kind in kindOrder {
            for field in kindFields[kind]! { owners[field, default: []].append(kind) }
        }
        return owners
    }()

    /// "a", "a and b", "a, b and c".
    static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + items.last!
    }

    static let fileOperationFields: [String: [String]] = [
        "read": ["path", "output"],
        "write": ["path", "content"],
        "copy": ["source", "path"],
        "render": ["template", "text", "path"],
        "select": ["pointer"],
        "replace": ["find", "replace"],
        "concat": ["paths", "path"],
    ]
    static let conditionFields = [
        "env", "equals", "exists", "command", "output", "not", "all", "any",
    ]
    static let httpMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    init(report: DecodingContext, overrides: [String: String]) {
        self.report = report
        self.overrides = overrides
    }

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
        let dotenv = object.node("dotenv").map { decodeDotenv($0.node, at: $0.pointer) } ?? []
        let maxConcurrency = object.integer("maxConcurrency", in: 1...10_000)
        var steps: [Step] = []
        if let (node, pointer) = object.node("procedures") {
            steps = decodeSteps(node, at: pointer, requireSome: true)
        } else {
            object.missing("procedures", ": a workflow lists its procedures")
        }
        var dotenvVariables = dotenv
        if let (node, pointer) = object.node("include") {
            let included = decodeIncludes(node, at: pointer)
            steps += included.steps
            dotenvVariables += included.dotenv
        }
        object.reportUnread(in: "the workflow", allowed: Self.topLevelFields)
        return Workflow(
            path: report.file, name: name, description: description, variables: variables,
            environment: environment, dotenv: dotenvVariables, maxConcurrency: maxConcurrency,
            steps: steps)
    }

    /// The variables of the dotenv files listed at `pointer`, in order: each entry a path
    /// (relative to the workflow file), or `{"path": …, "optional": true}` for one that may be
    /// missing.
    private func decodeDotenv(_ node: JSONNode, at pointer: JSONPointer) -> [(
        name: String, value: String
    )] {
        guard case .array(let entries) = node.value else {
            report.error(
                "expected an array of dotenv files, found \(node.typeDescription)",
                at: node.offset, pointer)
            return []
        }
        var variables: [(name: String, value: String)] = []
        for (position, entry) in entries.enumerated() {
            let at = pointer.appending(position)
            var path: String?
            var optional = false
            if case .string(let text) = entry.value {
                path = report.substitute(text, at: entry.offset, at)
            } else if var object = ObjectReader(
                entry, at: at, report: report, expected: "a path or {\"path\": …}")
            {
                path = object.string("path", required: true, nonEmpty: true, substitute: true)
                optional = object.bool("optional") ?? false
                object.reportUnread(in: "a dotenv entry", allowed: ["path", "optional"])
            }
            guard let path else { continue }
            variables += readDotenv(path, optional: optional, at: entry.offset, at)
        }
        return variables
    }

    private func readDotenv(_ path: String, optional: Bool, at offset: Int, _ pointer: JSONPointer)
        -> [(name: String, value: String)]
    {
        guard !report.budget.isSpent else { return [] }
        let full = resolve(path, in: directory(of: report.file))
        report.sources.noteRead(resolve(full, in: "."))
        let name = "the dotenv file \(path)"
        switch WorkflowFile.read(full, named: name, kind: "dotenv files") {
        case .failure(let problem):
            if optional, problem.isMissing { return [] }
            report.error(problem.message, at: offset, pointer)
            return []
        case .success(let bytes):
            if let problem = report.budget.take(bytes.count, for: name) {
                report.error(problem, at: offset, pointer)
                return []
            }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                report.error("the dotenv file \(path) is not UTF-8 text", at: offset, pointer)
                return []
            }
            switch DotenvFile.parse(text) {
            case .success(let variables): return variables
            case .failure(let problem):
                // Named as the workflow file is: relative to where procflow runs.
                let shown =
                    path.hasPrefix("/") || directory(of: report.file) == "."
                    ? path : directory(of: report.file) + "/" + path
                report.error(problem.message, in: shown, location: problem.location, nil)
                return []
            }
        }
    }

    private func decodeSteps(_ node: JSONNode, at pointer: JSONPointer, requireSome: Bool) -> [Step]
    {
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

    private func decodeStep(_ node: JSONNode, at pointer: JSONPointer) -> Step? {
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
        let allowed = Self.allowedFields[kindName?.rawValue ?? ""]!
        object.reportUnread(in: context, allowed: allowed) { field in
            guard kindName != nil, let owners = Self.fieldOwners[field] else { return nil }
            return Self.list(owners.map { "\($0)" }) + " procedures"
        }

        guard let id, let kind else { return nil }
        return Step(
            id: id, description: description, kind: kind, dependsOn: dependsOn, input: input,
            when: when, mutex: mutex, retry: retry, timeout: timeout,
            continueOnError: continueOnError, always: always, forEach: forEach, image: image,
            caching: caching,
            pointer: pointer, offset: object.offset)
    }

    /// The fields of incremental runs that a step of `kind` has (as ``kindFields`` lists
    /// them); the others are left unread, to be reported as not applying.
    private func decodeCaching(_ object: inout ObjectReader, kind: KindName?) -> Caching {
        var caching = Caching()
        switch kind {
        case .shell, .file:
            caching.sources = decodePatterns(&object, "sources").patterns
            (caching.generates, caching.generatesOffsets) = decodePatterns(&object, "generates")
            if kind == .shell {
                caching.depfile = object.string("depfile", nonEmpty: true, substitute: true)
            }
            caching.cache = object.bool("cache")
        case .http:
            caching.cache = object.bool("cache")
        case .group, .branch, nil:
            break
        }
        return caching
    }

    /// An array of path patterns, variables filled in, each checked; with the offset of each.
    private func decodePatterns(_ object: inout ObjectReader, _ key: String) -> (
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
            if text.utf8.contains(UInt8(ascii: "$")) {
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

    private enum KindName: String, CaseIterable {
        case shell, http, file, group, branch
    }

    private func decodeID(_ object: inout ObjectReader) -> String? {
        guard let (node, pointer) = object.node("id") else {
            object.missing("id")
            return nil
        }
        guard case .string(let id) = node.value else {
            report.error(
                "expected a string, found \(node.typeDescription)", at: node.offset, pointer)
            return nil
        }
        if let first = report.declaredIDs[id] {
            report.error(
                "duplicate id \"\(id)\": already used at line \(report.location(of: first).line)",
                at: node.offset,
                pointer)
            return nil
        }
        report.declaredIDs[id] = node.offset
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
    private func decodeImage(_ object: inout ObjectReader) -> String? {
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

    private func decodeReferences(_ object: inout ObjectReader, _ key: String) -> [Reference] {
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

    private func decodeWire(_ node: JSONNode, at pointer: JSONPointer) -> Wire? {
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

    private func decodeShell(_ object: inout ObjectReader) -> Shell? {
        var command: Shell.Command?
        switch (object.has("run"), object.has("argv")) {
        case (true, true):
            report.error(
                "give either \"run\" (a script for /bin/sh -c) or \"argv\" (a program and its arguments), not both",
                at: object.offset, object.pointer)
            _ = object.node("run")
            _ = object.node("argv")
        case (true, false):
            command = object.string("run", nonEmpty: true).map(Shell.Command.script)
        case (false, true):
            if let argv = object.strings("argv", substitute: true) {
                if argv.isEmpty || argv[0].isEmpty {
                    let node = object.node("argv")!
                    report.error(
                        "\"argv\" must start with a program to run", at: node.node.offset,
                        node.pointer)
                } else {
                    command = .argv(argv)
                }
            }
        case (false, false):
            object.missing("run", " (or \"argv\"): the command a shell procedure runs")
        }
        let cwd = object.string("cwd", nonEmpty: true, substitute: true)
        let environment =
            object.stringMap("env", names: .environmentVariable, substitute: true) ?? []
        var inputs: [(String, Wire)] = []
        if let (node, pointer) = object.node("inputs") {
            if case .object(let members) = node.value {
                for member in members {
                    let memberPointer = pointer.appending(member.key)
                    if let problem = NamePattern.environmentVariable.problem(with: member.key) {
                        report.error(problem, at: member.keyOffset, memberPointer)
                    } else if inputs.contains(where: { $0.0 == member.key }) {
                        report.error(
                            "duplicate field \"\(member.key)\"", at: member.keyOffset, memberPointer
                        )
                    } else if let wire = decodeWire(member.value, at: memberPointer) {
                        inputs.append((member.key, wire))
                    }
                }
            } else {
                report.error(
                    "expected an object of wires such as {\"NAME\": {\"from\": \"id\"}}, found \(node.typeDescription)",
                    at: node.offset, pointer)
            }
        }
        let output = object.choice("output", of: OutputFormat.self) ?? .none
        let interpreter = decodeInterpreter(&object, for: command)
        guard let command else { return nil }
        return Shell(
            command: command, interpreter: interpreter ?? .sh, cwd: cwd,
            environment: environment, inputs: inputs, output: output)
    }

    /// The `shell` field: `"sh"`, `"bash"`, `"python3"`, or an argv the script is appended to.
    private func decodeInterpreter(_ object: inout ObjectReader, for command: Shell.Command?)
        -> Shell.Interpreter?
    {
        guard let (node, pointer) = object.node("shell") else { return nil }
        if case .argv = command {
            report.error(
                "\"shell\" runs a \"run\" script; \"argv\" runs its program without one",
                at: node.offset, pointer)
            return nil
        }
        let names = ["sh", "bash", "python3"]
        switch node.value {
        case .string("sh"): return .sh
        case .string("bash"): return .bash
        case .string("python3"): return .python3
        case .string(let name):
            report.error(
                "unknown shell \"\(name)\": expected \"sh\", \"bash\", \"python3\", or a command such as [\"pwsh\", \"-Command\"] that the script is appended to\(Suggestion.hint(for: name, in: names))",
                at: node.offset, pointer)
        case .array(let items):
            let words = items.compactMap { item -> String? in
                if case .string(let word) = item.value { return word }
                return nil
            }
            if words.count == items.count, let first = words.first, !first.isEmpty {
                return .command(words)
            }
            report.error(
                "expected a command as an array of strings starting with a program, such as [\"pwsh\", \"-Command\"]",
                at: node.offset, pointer)
        default:
            report.error(
                "expected \"sh\", \"bash\", \"python3\" or an array of strings, found \(node.typeDescription)",
                at: node.offset, pointer)
        }
        return nil
    }

    private func decodeHTTP(_ object: inout ObjectReader) -> HTTP? {
        let url = object.string("url", required: true, nonEmpty: true, substitute: true)
        // A forEach instance's URL is checked when the item is filled in.
        let perItem = report.itemVariable != nil && (url?.contains("${") ?? false)
        if let url, !perItem, !Self.isHTTPURL(url), let (node, pointer) = object.node("url") {
            report.error(
                "\"\(url)\" is not a valid URL: expected http:// or https:// and a host",
                at: node.offset,
                pointer)
        }
        var method = "GET"
        if let (node, pointer) = object.node("method") {
            if case .string(let name) = node.value, name.allSatisfy(\.isASCII),
                Self.httpMethods.contains(name.uppercased())
            {
                method = name.uppercased()
            } else {
                let found =
                    if case .string(let name) = node.value { "\"\(name)\"" } else {
                        node.typeDescription
                    }
                report.error(
                    "unknown method \(found): expected one of \(Self.httpMethods.joined(separator: ", "))",
                    at: node.offset, pointer)
            }
        }
        let headers = object.stringMap("headers", substitute: true) ?? []
        var body = object.node("body").map(\.node.plain)
        if case .string(let text)? = body, let (node, pointer) = object.node("body") {
            body = report.substitute(text, at: node.offset, pointer).map(JSONValue.string)
        }
        var expect: [Int] = []
        if let (node, pointer) = object.node("expect") {
            if case .array(let items) = node.value, !items.isEmpty {
                for (position, item) in items.enumerated() {
                    if case .number(let number) = item.value, number == number.rounded(),
                        (100...599).contains(number)
                    {
                        expect.append(Int(number))
                    } else {
                        report.error(
                            "expected an HTTP status code (100 to 599)", at: item.offset,
                            pointer.appending(position))
                    }
                }
            } else {
                report.error("expected a non-empty array of status codes", at: node.offset, pointer)
            }
        }
        let output = object.choice("output", of: OutputFormat.self) ?? .text
        guard let url else { return nil }
        return HTTP(
            method: method, url: url, headers: headers, body: body, expect: expect, output: output)
    }

    private func decodeFile(_ object: inout ObjectReader) -> FileOperation? {
        guard let (node, pointer) = object.node("op") else {
            object.missing(
                "op",
                ": one of \(Self.fileOperationFields.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", "))"
            )
            return nil
        }
        let names = Self.fileOperationFields.keys.sorted()
        guard case .string(let op) = node.value, let fields = Self.fileOperationFields[op] else {
            let found =
                if case .string(let op) = node.value { "\"\(op)\"" } else { node.typeDescription }
            let hint =
                if case .string(let op) = node.value { Suggestion.hint(for: op, in: names) } else {
                    ""
                }
            report.error(
                "unknown file operation \(found): expected one of \(names.map { "\"\($0)\"" }.joined(separator: ", "))\(hint)",
                at: node.offset, pointer)
            for field in Self.kindFields["file"]! where !Self.cachingFields.contains(field) {
                _ = object.node(field)
            }
            return nil
        }
        // Fields of other operations are reported as not applying to this one.
        for field in Self.kindFields["file"]!
        where field != "op" && field != "image" && !fields.contains(field)
            && !Self.cachingFields.contains(field) && object.has(field)
        {
            let (fieldNode, fieldPointer) = object.node(field)!
            report.error(
                "field \"\(field)\" does not apply to the file operation \"\(op)\"",
                at: fieldNode.offset,
                fieldPointer)
        }
        switch op {
        case "read":
            let path = object.string("path", required: true, nonEmpty: true, substitute: true)
            let format = object.choice("output", of: OutputFormat.self) ?? .text
            if format == .none, let (node, pointer) = object.node("output") {
                report.error(
                    "a read gives its content as \"text\" or \"json\"", at: node.offset, pointer)
            }
            return path.map { .read(path: $0, format: format) }
        case "write":
            let path = object.string("path", required: true, nonEmpty: true, substitute: true)
            let content = object.string("content", substitute: true)
            return path.map { .write(path: $0, content: content) }
        case "copy":
            let source = object.string("source", required: true, nonEmpty: true, substitute: true)
            let destination = object.string(
                "path", required: true, nonEmpty: true, substitute: true)
            guard let source, let destination else { return nil }
            return .copy(source: source, destination: destination)
        case "render":
            var template: FileOperation.Template?
            switch (object.has("template"), object.has("text")) {
            case (true, true):
                report.error(
                    "give either \"template\" (a file) or \"text\" (the template itself), not both",
                    at: object.offset, object.pointer)
                _ = object.node("template")
                _ = object.node("text")
            case (true, false):
                template = object.string("template", nonEmpty: true, substitute: true).map(
                    FileOperation.Template.file)
            case (false, true): template = object.string("text").map(FileOperation.Template.text)
            case (false, false):
                object.missing("template", " (or \"text\"): the template to render")
            }
            let path = object.string("path", nonEmpty: true, substitute: true)
            return template.map { .render(template: $0, path: path) }
        case "select":
            guard let text = object.string("pointer", required: true) else { return nil }
            guard let selected = JSONPointer(parsing: text) else {
                let (node, pointer) = object.node("pointer")!
                report.error(
                    "\"\(text)\" is not a JSON Pointer: it must be empty or start with '/'",
                    at: node.offset, pointer)
                return nil
            }
            return .select(pointer: selected)
        case "replace":
            let find = object.string("find", required: true)
            let replacement = object.string("replace", required: true)
            if find == "" {
                let (node, pointer) = object.node("find")!
                report.error("\"find\" must not be empty", at: node.offset, pointer)
                return nil
            }
            guard let find, let replacement else { return nil }
            return .replace(find: find, replacement: replacement)
        default:  // concat
            let paths = object.strings("paths", required: true, substitute: true)
            if let paths, paths.isEmpty {
                let (node, pointer) = object.node("paths")!
                report.error("\"paths\" must list at least one file", at: node.offset, pointer)
                return nil
            }
            let path = object.string("path", nonEmpty: true, substitute: true)
            return paths.map { .concat(paths: $0, path: path) }
        }
    }

    private func decodeGroup(_ object: inout ObjectReader) -> Group? {
        guard let (node, pointer) = object.node("procedures") else {
            object.missing("procedures", ": the procedures the group runs")
            return nil
        }
        let steps = decodeSteps(node, at: pointer, requireSome: true)
        let inputTo = object.node("inputTo").flatMap { decodeReference($0.node, at: $0.pointer) }
        let outputFrom = object.node("outputFrom").flatMap {
            decodeReference($0.node, at: $0.pointer)
        }
        let maxConcurrency = object.integer("maxConcurrency", in: 1...10_000)
        return Group(
            steps: steps, inputTo: inputTo, outputFrom: outputFrom, maxConcurrency: maxConcurrency)
    }

    private func decodeBranch(_ object: inout ObjectReader) -> Branch? {
        var on: Wire?
        if let (node, pointer) = object.node("on") {
            on = decodeWire(node, at: pointer)
        } else {
            object.missing("on", ": the wire whose value chooses the case")
        }
        var cases: [Branch.Case] = []
        if let (node, pointer) = object.node("cases") {
            if case .array(let items) = node.value, !items.isEmpty {
                for (position, item) in items.enumerated() {
                    let casePointer = pointer.appending(position)
                    guard
                        var caseObject = ObjectReader(
                            item, at: casePointer, report: report, expected: "a case object")
                    else { continue }
                    let equals = caseObject.node("equals")?.node.plain
                    if equals == nil {
                        caseObject.missing("equals", ": the value that selects this case")
                    }
                    var steps: [Step] = []
                    if let (stepsNode, stepsPointer) = caseObject.node("procedures") {
                        steps = decodeSteps(stepsNode, at: stepsPointer, requireSome: true)
                    } else {
                        caseObject.missing("procedures", ": what this case runs")
                    }
                    caseObject.reportUnread(in: "a branch case", allowed: ["equals", "procedures"])
                    if let equals { cases.append(Branch.Case(equals: equals, steps: steps)) }
                }
            } else {
                report.error("expected a non-empty array of cases", at: node.offset, pointer)
            }
        } else {
            object.missing("cases", ": the sets of procedures to choose from")
        }
        let otherwise =
            object.node("otherwise").map {
                decodeSteps($0.node, at: $0.pointer, requireSome: false)
            } ?? []
        guard let on else { return nil }
        return Branch(on: on, cases: cases, otherwise: otherwise)
    }

    private func decodeCondition(_ node: JSONNode, at pointer: JSONPointer) -> StepCondition? {
        guard
            var object = ObjectReader(
                node, at: pointer, report: report, expected: "a condition object")
        else { return nil }
        let forms = ["env", "exists", "command", "output", "not", "all", "any"].filter(object.has)
        guard forms.count == 1, let form = forms.first else {
            let message =
                forms.isEmpty
                ? "a condition needs one of \"env\", \"exists\", \"command\", \"output\", \"not\", \"all\", \"any\""
                : "a condition has exactly one of \(forms.map { "\"\($0)\"" }.joined(separator: ", ")); combine them with \"all\" or \"any\""
            report.error(message, at: object.offset, pointer)
            if forms.isEmpty {
                object.reportUnread(in: "a condition", allowed: Self.conditionFields)
            }
            return nil
        }
        var condition: StepCondition?
        switch form {
        case "env":
            let name = object.string("env", nonEmpty: true)
            let equals = object.string("equals", substitute: true)
            condition = name.map { .environment(name: $0, equals: equals) }
            object.reportUnread(in: "an \"env\" condition", allowed: ["env", "equals"])
        case "exists":
            condition = object.string("exists", nonEmpty: true, substitute: true).map(
                StepCondition.exists)
            object.reportUnread(in: "an \"exists\" condition", allowed: ["exists"])
        case "command":
            condition = object.string("command", nonEmpty: true).map(StepCondition.command)
            object.reportUnread(in: "a \"command\" condition", allowed: ["command"])
        case "output":
            let wire = object.node("output").flatMap { decodeWire($0.node, at: $0.pointer) }
            let equals = object.node("equals")?.node.plain
            if equals == nil { object.missing("equals", ": the value to compare the output with") }
            if let wire, let equals { condition = .output(wire, equals: equals) }
            object.reportUnread(in: "an \"output\" condition", allowed: ["output", "equals"])
        case "not":
            condition = object.node("not").flatMap { decodeCondition($0.node, at: $0.pointer) }.map(
                StepCondition.not)
            object.reportUnread(in: "a \"not\" condition", allowed: ["not"])
        default:  // all, any
            let (listNode, listPointer) = object.node(form)!
            if case .array(let items) = listNode.value, !items.isEmpty {
                let parts = items.enumerated().compactMap {
                    decodeCondition($1, at: listPointer.appending($0))
                }
                if parts.count == items.count {
                    condition = form == "all" ? .all(parts) : .any(parts)
                }
            } else {
                report.error(
                    "expected a non-empty array of conditions", at: listNode.offset, listPointer)
            }
            object.reportUnread(in: "an \"\(form)\" condition", allowed: [form])
        }
        return condition
    }

    private func decodeRetry(_ node: JSONNode, at pointer: JSONPointer) -> Retry? {
        guard
            var object = ObjectReader(
                node, at: pointer, report: report,
                expected: "a retry object such as {\"attempts\": 3}")
        else { return nil }
        let attempts = object.integer("attempts", in: 1...1000, required: true)
        let backoff = object.choice("backoff", of: Retry.Backoff.self) ?? .exponential
        let delay = object.number("delay", in: 0...86_400) ?? 1
        let maxDelay = object.number("maxDelay", in: 0...86_400)
        let jitter = object.number("jitter", in: 0...1) ?? 0
        object.reportUnread(
            in: "a retry", allowed: ["attempts", "backoff", "delay", "maxDelay", "jitter"])
        guard let attempts else { return nil }
        return Retry(
            attempts: attempts, backoff: backoff, delay: delay, maxDelay: maxDelay, jitter: jitter)
    }
}
