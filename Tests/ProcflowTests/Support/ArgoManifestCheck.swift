import Foundation
import Testing

@testable import Procflow

/// Checks an exported Argo manifest for what a schema cannot see: names Argo accepts, templates
/// that exist, `depends` that name tasks of the same DAG without a cycle, every
/// `{{tasks.X…}}` naming a task the referrer runs after, every `{{inputs.parameters.X}}` one
/// its template declares, arguments that match the template's inputs, no `{{` but the tags the
/// exporter writes, and no tag at all in a command, a script or a working directory — so no
/// wired value can ever become part of one.
///
/// Each manifest checked is also saved to `$PROCFLOW_ARGO_MANIFESTS`, when set, for
/// `scripts/check-argo-export.py` to validate against Argo's schema and models.
struct ArgoManifestCheck {
    static var namePattern: Regex<AnyRegexOutput> { try! Regex("^[a-zA-Z0-9][-a-zA-Z0-9]*$") }
    static var parameterPattern: Regex<AnyRegexOutput> { try! Regex("^[-a-zA-Z0-9_]+$") }
    /// Argo's own pattern for the task names in a `depends` expression.
    static var dependsName: Regex<AnyRegexOutput> {
        try! Regex(#"([a-zA-Z0-9][-a-zA-Z0-9]*?\.[A-Z][a-zA-Z]+)|([a-zA-Z0-9][-a-zA-Z0-9]*)"#)
    }
    /// The only tags the exporter writes.
    static var tagPatterns: [Regex<AnyRegexOutput>] {
        [
            try! Regex(#"^tasks\.([a-zA-Z0-9-]+)\.(status|outputs\.parameters\.[-a-zA-Z0-9_]+)$"#),
            // A looped task's aggregate (checked to be of one below).
            try! Regex(#"^tasks\.([a-zA-Z0-9-]+)\.outputs\.parameters$"#),
            // An item's field, in a looped task (checked below).
            try! Regex(#"^item\.[-a-zA-Z0-9_]+$"#),
            try! Regex(#"^inputs\.parameters\.[-a-zA-Z0-9_]+$"#),
            try! Regex(#"^workflow\.name$"#),
            try! Regex(#"^=sprig\.b64enc\(tasks\['([a-zA-Z0-9-]+)'\]\.outputs\.result \?\? ''\)$"#),
        ]
    }

    private(set) var problems: [String] = []
    private var templates: [String: JSONValue] = [:]

    /// Checks `text`, a manifest in JSON, recording every problem as a test issue.
    @discardableResult
    static func check(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation)
        -> [String]
    {
        save(text)
        let found = problems(in: text)
        for problem in found {
            Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation)
        }
        return found
    }

    /// What is wrong with `text`, a manifest in JSON.
    static func problems(in text: String) -> [String] {
        var check = ArgoManifestCheck()
        check.run(text)
        return check.problems
    }

    private static func save(_ text: String) {
        guard let directory = ProcessInfo.processInfo.environment["PROCFLOW_ARGO_MANIFESTS"] else {
            return
        }
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true)
        let name = "manifest-\(ArgoNames.hash(text)).json"
        try? text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
    }

    private mutating func run(_ text: String) {
        guard let document = try? JSONParser.parse(Array(text.utf8)).plain else {
            return fail("not JSON")
        }
        guard case .string("argoproj.io/v1alpha1") = document.value(at: pointer("apiVersion")),
            case .string("Workflow") = document.value(at: pointer("kind"))
        else { return fail("not an argoproj.io/v1alpha1 Workflow") }
        guard case .array(let list) = document.value(at: pointer("spec", "templates")) else {
            return fail("no templates")
        }
        templates = index(list, what: "template", in: "the manifest")
        guard case .string(let entrypoint) = document.value(at: pointer("spec", "entrypoint")),
            templates[entrypoint] != nil
        else { return fail("the entrypoint is not a template") }
        var used: Set<String> = [entrypoint]
        for (name, template) in templates {
            checkTags(template, in: name)
            checkCommand(template, in: name)
            if case .array(let tasks) = template.value(at: pointer("dag", "tasks")) {
                used.formUnion(checkDAG(tasks, template: name))
            }
        }
        for name in templates.keys where !used.contains(name) {
            fail("template \(name) is never used")
        }
    }

    // MARK: - DAGs

    /// Checks one DAG; returns the templates its tasks use.
    private mutating func checkDAG(_ tasks: [JSONValue], template: String) -> Set<String> {
        let byName = index(tasks, what: "task", in: template)
        var used: Set<String> = []
        var dependencies: [String: [String]] = [:]
        for (name, task) in byName {
            var names: [String] = []
            if case .string(let depends) = task.value(at: pointer("depends")) {
                for match in depends.matches(of: Self.dependsName) {
                    names.append(
                        String(String(match.output[0].substring!).split(separator: ".")[0]))
                }
            }
            for dependency in names where byName[dependency] == nil {
                fail("\(template)/\(name): depends on \(dependency), not a task of this DAG")
            }
            dependencies[name] = names
        }
        func ancestors(of name: String) -> Set<String> {
            var seen: Set<String> = []
            var pending = dependencies[name] ?? []
            while let next = pending.popLast() {
                if seen.insert(next).inserted { pending += dependencies[next] ?? [] }
            }
            return seen
        }
        for (name, task) in byName {
            let before = ancestors(of: name)
            if before.contains(name) { fail("\(template)/\(name): a dependency cycle") }
            guard case .string(let used1) = task.value(at: pointer("template")),
                let target = templates[used1]
            else {
                fail("\(template)/\(name): uses a template that does not exist")
                continue
            }
            used.insert(used1)
            for referenced in taskReferences(in: task) where !before.contains(referenced) {
                fail("\(template)/\(name): reads task \(referenced), which it does not run after")
            }
            checkArguments(of: task, against: target, where: "\(template)/\(name)")
            checkLoop(of: task, in: byName, where: "\(template)/\(name)")
        }
        let end = byName[ArgoManifestBuilder.end]
        if end == nil { fail("\(template): no final task") }
        if end != nil, ancestors(of: ArgoManifestBuilder.end).count != byName.count - 1 {
            fail("\(template): the final task does not wait for every task")
        }
        if case .array(let outputs) = templates[template]?.value(
            at: pointer("outputs", "parameters"))
        {
            for output in outputs {
                for referenced in taskReferences(in: output) where byName[referenced] == nil {
                    fail("\(template): an output reads \(referenced), not a task of this DAG")
                }
            }
        }
        return used
    }

    /// `items` by name, each name checked and unique.
    private mutating func index(_ items: [JSONValue], what: String, in place: String) -> [String:
        JSONValue]
    {
        var byName: [String: JSONValue] = [:]
        for item in items {
            guard case .string(let name) = item.value(at: pointer("name")) else {
                fail("\(place): a \(what) without a name")
                continue
            }
            checkName(name, what: what)
            if byName.updateValue(item, forKey: name) != nil {
                fail("\(place): two \(what)s named \(name)")
            }
        }
        return byName
    }

    /// `{{item.KEY}}` only in a looped task, every item of a `withItems` having every key
    /// read; `{{tasks.X.outputs.parameters}}` only of a looped task.
    private mutating func checkLoop(
        of task: JSONValue, in byName: [String: JSONValue], where place: String
    ) {
        let found = strings(in: task).flatMap { tags(in: $0) }
        let keys = Set(found.filter { $0.hasPrefix("item.") }.map { String($0.dropFirst(5)) })
        let items = task.value(at: pointer("withItems"))
        let looped = items != nil || task.value(at: pointer("withParam")) != nil
        if !keys.isEmpty, !looped { fail("\(place): reads an item, and loops over nothing") }
        if case .array(let list)? = items {
            for item in list {
                guard case .object(let fields) = item, keys.isSubset(of: fields.keys) else {
                    fail("\(place): an item lacks a key it reads: \(item)")
                    continue
                }
            }
        }
        for tag in found {
            guard let match = tag.wholeMatch(of: /tasks\.([a-zA-Z0-9-]+)\.outputs\.parameters/)
            else { continue }
            let source = byName[String(match.output.1)]
            if source?.value(at: pointer("withItems")) == nil,
                source?.value(at: pointer("withParam")) == nil
            {
                fail("\(place): reads the aggregate of \(match.output.1), which loops over nothing")
            }
        }
    }

    /// A task's arguments name exactly the template's input parameters.
    private mutating func checkArguments(
        of task: JSONValue, against template: JSONValue, where place: String
    ) {
        var given: [String] = []
        if case .array(let list) = task.value(at: pointer("arguments", "parameters")) {
            for item in list {
                if case .string(let name) = item.value(at: pointer("name")) { given.append(name) }
            }
        }
        var declared: [String] = []
        if case .array(let list) = template.value(at: pointer("inputs", "parameters")) {
            for item in list {
                if case .string(let name) = item.value(at: pointer("name")) {
                    declared.append(name)
                }
            }
        }
        if Set(given) != Set(declared) || given.count != Set(given).count {
            fail("\(place): passes \(given.sorted()) to a template that takes \(declared.sorted())")
        }
    }

    /// The tasks a value's tags read.
    private func taskReferences(in value: JSONValue) -> [String] {
        strings(in: value).flatMap { tags(in: $0) }.compactMap { tag -> String? in
            for pattern in Self.tagPatterns {
                if let match = tag.wholeMatch(of: pattern), match.output.count > 1,
                    let task = match.output[1].substring
                {
                    return String(task)
                }
            }
            return nil
        }
    }

    // MARK: - Tags and commands

    /// Every `{{` starts one of the exporter's tags; `{{inputs.parameters.X}}` names an input
    /// of its template.
    private mutating func checkTags(_ template: JSONValue, in name: String) {
        var declared: Set<String> = []
        if case .array(let list) = template.value(at: pointer("inputs", "parameters")) {
            for item in list {
                if case .string(let parameter) = item.value(at: pointer("name")) {
                    checkParameterName(parameter)
                    declared.insert(parameter)
                }
            }
        }
        for text in strings(in: template) {
            let found = tags(in: text)
            if found.count != text.components(separatedBy: "{{").count - 1 {
                fail("\(name): a {{ that starts no tag in \(text.debugDescription)")
            }
            for tag in found {
                guard Self.tagPatterns.contains(where: { tag.wholeMatch(of: $0) != nil }) else {
                    fail("\(name): an unexpected tag {{\(tag)}}")
                    continue
                }
                if tag.hasPrefix("inputs.parameters."),
                    !declared.contains(String(tag.dropFirst("inputs.parameters.".count)))
                {
                    fail("\(name): {{\(tag)}} is not an input of the template")
                }
            }
        }
    }

    /// No tag in what a container runs or where: values reach commands as files only.
    private mutating func checkCommand(_ template: JSONValue, in name: String) {
        for key in ["container", "script"] {
            for field in ["command", "args", "source", "workingDir"] {
                guard let value = template.value(at: pointer(key, field)) else { continue }
                for text in strings(in: value) where text.contains("{{") {
                    fail("\(name): a tag in its \(field)")
                }
            }
        }
    }

    /// The contents of the `{{…}}` tags in `text`, as Argo finds them: from `{{` to the next
    /// `}}`.
    private func tags(in text: String) -> [String] {
        var found: [String] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            guard let close = rest[open.upperBound...].range(of: "}}") else { break }
            found.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return found
    }

    private func strings(in value: JSONValue) -> [String] {
        switch value {
        case .string(let string): return [string]
        case .array(let items): return items.flatMap { strings(in: $0) }
        case .object(let members): return members.values.flatMap { strings(in: $0) }
        default: return []
        }
    }

    private mutating func checkName(_ name: String, what: String) {
        if name.wholeMatch(of: Self.namePattern) == nil || name.count > 128 {
            fail("\(what) name \(name.debugDescription) is not valid in Argo")
        }
        if ArgoNames.reservedWords.contains(name) {
            fail("\(what) name \(name) is a word of Argo's expressions")
        }
    }

    private mutating func checkParameterName(_ name: String) {
        if name.wholeMatch(of: Self.parameterPattern) == nil {
            fail("parameter name \(name.debugDescription) is not valid in Argo")
        }
    }

    private func pointer(_ tokens: String...) -> JSONPointer {
        JSONPointer(tokens: tokens)
    }

    private mutating func fail(_ problem: String) {
        problems.append(problem)
    }
}
