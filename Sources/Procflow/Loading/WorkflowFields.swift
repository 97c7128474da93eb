/// The fields of a workflow file, by where they may appear: what the decoder accepts, and what
/// its "did you mean" and "does not apply" errors name.
enum WorkflowFields {
    static let topLevelFields = [
        "$schema", "version", "name", "description", "vars", "env", "dotenv", "include",
        "maxConcurrency", "cacheKey", "executor", "resources", "slurm", "procedures", "secrets",
    ]

    static let commonFields = [
        "id", "kind", "description", "dependsOn", "input", "when", "mutex", "retry", "timeout",
        "continueOnError", "always", "forEach",
    ]

    static let kindFields: [String: [String]] = [
        "shell": [
            "run", "argv", "shell", "cwd", "env", "inputs", "output", "image", "sources",
            "generates", "depfile", "cache", "cacheKey", "executor", "resources", "slurm",
            "service", "ready",
            "jobserver",
        ],
        "http": ["url", "method", "headers", "body", "expect", "output", "cache", "cacheKey"],
        "file": [
            "op", "path", "source", "content", "template", "text", "pointer", "find", "replace",
            "paths", "output", "image", "sources", "generates", "cache", "cacheKey",
        ],
        "group": [
            "procedures", "inputTo", "outputFrom", "maxConcurrency", "executor", "resources",
            "slurm",
        ],
        "branch": ["on", "cases", "otherwise"],
    ]

    static let kindOrder = ["shell", "http", "file", "group", "branch"]

    /// The fields of incremental runs, which belong to a kind rather than to an operation.
    static let cachingFields: Set<String> = [
        "sources", "generates", "depfile", "cache", "cacheKey",
    ]

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

    static let readinessKinds = ["port", "http", "log", "command"]

    static let httpMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
}
