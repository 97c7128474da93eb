/// The names procflow's step ids take in an Argo manifest, one for each id, none shared.
///
/// Argo names tasks and templates with letters, digits and `-`, starting with a letter or
/// digit; its `depends` expressions read `-` as `_` and a name as an identifier, so a name must
/// not be a word of the expression language either. An id that is already such a name, in
/// lower case, keeps it (`build-linux`); any other is lowered, has `_` and `.` made `-`, and
/// gets a `-` and eight hex digits of a hash of the whole id (`Build_Linux.x86` becomes
/// `build-linux-x86-5f3c09a2`), so two ids never share a name and the same id always gets the
/// same one. Names never contain `--`: the exporter's own tasks and templates do
/// (`build--prepare`), so they cannot meet a step's. The original id stays in each template's
/// `procflow/step-id` annotation and in the workflow's `procflow/step-ids` map.
struct ArgoNames {
    /// The longest name an id keeps as is; longer ones are cut and hashed.
    static let longestKept = 48

    /// Words of Argo's expression language (expr) that a task name must not be.
    static let reservedWords: Set<String> = [
        "and", "or", "not", "in", "matches", "contains", "true", "false", "nil", "let", "if",
        "else", "all", "any", "none", "one", "filter", "map", "count", "sum", "find", "reduce",
        "len", "abs", "ceil", "floor", "round", "int", "float", "string", "trim", "upper",
        "lower", "split", "replace", "repeat", "max", "min", "mean", "median", "now", "duration",
        "date", "timezone", "first", "last", "get", "keys", "values", "type", "sort", "concat",
        "flatten", "uniq", "join", "reverse", "sprig", "jsonpath", "asint", "asfloat", "tojson",
    ]

    private let names: [String: String]

    /// Names `ids`.
    ///
    /// - Throws: the two ids, should two of them get the same name (which takes a collision
    ///   of 32-bit hashes).
    init(ids: [String]) throws(Collision) {
        var names: [String: String] = [:]
        var owners: [String: String] = [:]
        for id in ids {
            let name = Self.name(for: id)
            if let other = owners[name], other != id { throw Collision(first: other, second: id) }
            owners[name] = id
            names[id] = name
        }
        self.names = names
    }

    /// Two ids that would share a name.
    struct Collision: Error {
        let first: String
        let second: String
    }

    /// The name of `id`, which must be one of the ids given.
    subscript(id: String) -> String {
        names[id]!
    }

    /// The name `id` gets.
    static func name(for id: String) -> String {
        var base = lowered(id)
        if base == id, base.count <= longestKept, !reservedWords.contains(base),
            base.first?.isLetter == true
        {
            return base
        }
        if base.first?.isLetter != true { base = "s-" + base }
        base = String(base.prefix(longestKept - 9))
        while base.hasSuffix("-") { base.removeLast() }
        return base + "-" + hash(id)
    }

    /// Eight lower-case hex digits of the 32-bit FNV-1a hash of `text`'s UTF-8 bytes.
    static func hash(_ text: String) -> String {
        var value: UInt32 = 0x811C_9DC5
        for byte in text.utf8 {
            value ^= UInt32(byte)
            value = value &* 0x0100_0193
        }
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// A DNS-1123 prefix for the workflow's `generateName`, from its name: lower-case letters,
    /// digits and `-`, at most 57 characters with the final `-` Kubernetes adds five to.
    static func generateName(for workflowName: String) -> String {
        var base = lowered(workflowName)
        if base.first?.isLetter != true { base = "procflow" + (base.isEmpty ? "" : "-" + base) }
        return lowered(String(base.prefix(56))) + "-"
    }

    /// `text` in lower-case letters, digits and single `-`s, none at either end: runs of other
    /// characters become one `-`.
    private static func lowered(_ text: String) -> String {
        var base = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "a"..."z", "0"..."9": base.unicodeScalars.append(scalar)
            case "A"..."Z": base += String(scalar).lowercased()
            default: if !base.isEmpty, !base.hasSuffix("-") { base += "-" }
            }
        }
        while base.hasSuffix("-") { base.removeLast() }
        return base
    }
}
