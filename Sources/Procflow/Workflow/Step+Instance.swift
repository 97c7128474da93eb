extension Step {
    /// Why an instance of a `forEach` step could not be made: a reference to a field its item
    /// does not have.
    public struct InstanceError: Error, CustomStringConvertible, Sendable {
        /// The sentence, such as `item 2 has no field "os" (${item.os})`.
        public let description: String
    }

    /// The step's instance for item number `index`, `item`: its id `id[index]` (and the ids of
    /// the steps it holds prefixed with that), the item filled into every field that takes
    /// variables, and the item in the environment of its commands under the `forEach`'s name.
    /// What the `forEach` step keeps for itself — its `dependsOn`, its list, `always` — is left
    /// out.
    ///
    /// - Throws: an ``InstanceError`` when a field names a part of the item that is not there.
    public func instance(at index: Int, item: JSONValue) throws(InstanceError) -> Step {
        guard let forEach else { return self }
        let prefix = ForEach.instanceID(of: id, at: index)
        var inner: Set<String> = []
        func collect(_ step: Step) {
            for child in step.children {
                inner.insert(child.id)
                collect(child)
            }
        }
        collect(self)
        var instance = renamed { name in
            name == id ? prefix : inner.contains(name) ? "\(prefix).\(name)" : name
        }
        instance.forEach = nil
        instance.dependsOn = []
        let fill = ItemFilling(variable: forEach.variable, item: item, index: index)
        instance = try fill.apply(to: instance)
        return instance.addingEnvironment([(forEach.variable, item.text)])
    }
}

extension Step {
    /// How many bytes of the fields that take the item (the step's and those of the steps it
    /// holds) hold a `${…}` reference: the text each instance of a `forEach` fills in anew,
    /// the rest being shared.
    var itemTextSize: Int {
        let measure = ItemFilling(
            variable: forEach?.variable ?? "item", item: .null, index: 0, measured: ByteCount())
        _ = try? measure.apply(to: self)
        return measure.measured!.bytes
    }
}

/// A count of bytes, kept while a walk of a step's fields goes on.
private final class ByteCount {
    var bytes = 0
}

/// Fills one item into the fields of a step that take variables.
private struct ItemFilling {
    let variable: String
    let item: JSONValue
    let index: Int
    /// When set, nothing is filled in: the walk counts the bytes of the texts that hold a
    /// reference, in the one place that knows every field that takes the item.
    var measured: ByteCount? = nil

    func text(_ text: String) throws(Step.InstanceError) -> String {
        if let measured {
            if text.containsByte(UInt8(ascii: "$")), text.contains("${") {
                measured.bytes += text.utf8.count
            }
            return text
        }
        switch VariableSubstitution.fillItem(text, variable, into: item) {
        case .success(let filled): return filled
        case .failure(.noField(let reference)), .failure(.unknown(let reference)):
            throw Step.InstanceError(
                description:
                    "item \(index) has no field \"\(reference.dropFirst(variable.count + 1))\" (${\(reference)})"
            )
        case .failure(.unterminated):
            throw Step.InstanceError(description: "an unterminated variable reference")
        }
    }

    func texts(_ texts: [String]) throws(Step.InstanceError) -> [String] {
        var filled: [String] = []
        for text in texts { filled.append(try self.text(text)) }
        return filled
    }

    /// The patterns with the item filled in; the item's `*`, `?`, `[` and `\` stand for
    /// themselves, so that an item `a[1].c` names that file.
    func patterns(_ patterns: [GlobPattern]) throws(Step.InstanceError) -> [GlobPattern] {
        let literal = ItemFilling(
            variable: variable, item: Self.escapingWildcards(item), index: index,
            measured: measured)
        var filled: [GlobPattern] = []
        for pattern in patterns {
            let text = try literal.text(pattern.text)
            if text == pattern.text {
                filled.append(pattern)
                continue
            }
            do {
                filled.append(try GlobPattern(text))
            } catch {
                throw Step.InstanceError(description: "\(error.message) (\(text))")
            }
        }
        return filled
    }

    /// `value` with the wildcard characters of its strings escaped.
    private static func escapingWildcards(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text):
            var escaped = ""
            for character in text {
                if "*?[\\".contains(character) { escaped.append("\\") }
                escaped.append(character)
            }
            return .string(escaped)
        case .array(let items): return .array(items.map(escapingWildcards))
        case .object(let fields): return .object(fields.mapValues(escapingWildcards))
        case .null, .bool, .number: return value
        }
    }

    func pairs(_ pairs: [(name: String, value: String)]) throws(Step.InstanceError) -> [(
        name: String, value: String
    )] {
        var filled: [(name: String, value: String)] = []
        for (name, value) in pairs { filled.append((name, try text(value))) }
        return filled
    }

    func apply(to step: Step) throws(Step.InstanceError) -> Step {
        try step.mapped { (step) throws(Step.InstanceError) in try fill(step) }
    }

    /// `step`'s own fields filled in (not those of the steps it holds).
    private func fill(_ step: Step) throws(Step.InstanceError) -> Step {
        var step = step
        step.when = try step.when.map { (condition) throws(Step.InstanceError) in
            try apply(to: condition)
        }
        step.caching.sources = try patterns(step.caching.sources)
        step.caching.generates = try patterns(step.caching.generates)
        step.caching.depfile = try step.caching.depfile.map {
            (path) throws(Step.InstanceError) in try text(path)
        }
        switch step.kind {
        case .shell(var shell):
            if case .argv(let argv) = shell.command { shell.command = .argv(try texts(argv)) }
            shell.cwd = try shell.cwd.map { (cwd) throws(Step.InstanceError) in try text(cwd) }
            shell.environment = try pairs(shell.environment)
            step.kind = .shell(shell)
        case .http(var http):
            http.url = try text(http.url)
            http.headers = try pairs(http.headers)
            if case .string(let body) = http.body { http.body = .string(try text(body)) }
            step.kind = .http(http)
        case .file(let operation):
            step.kind = .file(try apply(to: operation))
        case .group, .branch:
            break
        }
        return step
    }

    private func apply(to operation: FileOperation) throws(Step.InstanceError) -> FileOperation {
        func optional(_ value: String?) throws(Step.InstanceError) -> String? {
            guard let value else { return nil }
            return try text(value)
        }
        switch operation {
        case .read(let path, let format): return .read(path: try text(path), format: format)
        case .write(let path, let content):
            return .write(path: try text(path), content: try optional(content))
        case .copy(let source, let destination):
            return .copy(source: try text(source), destination: try text(destination))
        case .render(let template, let path):
            if case .file(let file) = template {
                return .render(template: .file(try text(file)), path: try optional(path))
            }
            return .render(template: template, path: try optional(path))
        case .concat(let paths, let path):
            return .concat(paths: try texts(paths), path: try optional(path))
        case .select, .replace:
            return operation
        }
    }

    private func apply(to condition: StepCondition) throws(Step.InstanceError) -> StepCondition {
        switch condition {
        case .environment(let name, let equals):
            guard let equals else { return condition }
            return .environment(name: name, equals: try text(equals))
        case .exists(let path): return .exists(path: try text(path))
        case .not(let inner): return .not(try apply(to: inner))
        case .all(let parts):
            var filled: [StepCondition] = []
            for part in parts { filled.append(try apply(to: part)) }
            return .all(filled)
        case .any(let parts):
            var filled: [StepCondition] = []
            for part in parts { filled.append(try apply(to: part)) }
            return .any(filled)
        case .command, .output:
            return condition
        }
    }
}
