/// A procedure described in a workflow file.
///
/// A value, stored copy-on-write: a step has many fields, and the walks of a run copy steps
/// (into the list of nested steps, the validator's table, a forEach's instances); a copy is one
/// reference until it is changed.
public struct Step: Sendable {
    /// The fields, shared by copies until one of them changes.
    private final class Storage: @unchecked Sendable {
        // @unchecked Sendable: a storage is changed only through a step that holds the only
        // reference to it (`fields`' modify accessor copies it first otherwise), so no two
        // threads see it change.
        var fields: Fields

        init(_ fields: Fields) {
            self.fields = fields
        }
    }

    /// The fields, laid out for a step of a large workflow: what few steps set is kept out of
    /// line, in one box (`forEach` alone takes 184 bytes inline, `placement` 145, `input`
    /// 104), and the two flags sit in the caching fields' padding: a step takes 280 bytes
    /// (its one source and one generated pattern inline), not 864.
    private struct Fields: Sendable {
        var id: String
        var kind: Kind
        var dependsOn: [Reference]
        var input: OutOfLine<Wire>?
        var when: StepCondition?
        /// `nil` when the step sets none of it.
        var rare: OutOfLine<Rare>?
        var caching: Caching
        var continueOnError: Bool
        var always: Bool
        var pointer: JSONPointer
        var offset: Int
    }

    /// What few steps of a large workflow set, together out of line: 72 bytes less a step that
    /// sets none of it. Its large members stay in boxes of their own, so that a step that sets
    /// only a timeout or a description does not carry a `forEach`'s 184 bytes.
    private struct Rare: Sendable {
        var description: String?
        var mutex: [String] = []
        var retry: OutOfLine<Retry>?
        var timeout: Double?
        var forEach: OutOfLine<ForEach>?
        var image: String?
        /// `nil` for the placement that says nothing.
        var placement: OutOfLine<Placement>?

        var isEmpty: Bool {
            description == nil && mutex.isEmpty && retry == nil && timeout == nil
                && forEach == nil && image == nil && placement == nil
        }
    }

    /// A value kept out of line, in a box of its own: a reference inline.
    private indirect enum OutOfLine<Value: Sendable>: Sendable {
        case value(Value)

        var value: Value {
            switch self {
            case .value(let value): return value
            }
        }
    }

    private var storage: Storage

    /// The fields, to change in place: copied first if another step shares them.
    private var fields: Fields {
        get { storage.fields }
        _modify {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
            yield &storage.fields
        }
    }

    /// A step of the given fields.
    public init(
        id: String, description: String?, kind: Kind, dependsOn: [Reference], input: Wire?,
        when: StepCondition?, mutex: [String], retry: Retry?, timeout: Double?,
        continueOnError: Bool, always: Bool, forEach: ForEach? = nil, image: String? = nil,
        caching: Caching = Caching(), placement: Placement = Placement(), pointer: JSONPointer,
        offset: Int
    ) {
        let rare = Rare(
            description: description, mutex: mutex, retry: retry.map(OutOfLine.value),
            timeout: timeout, forEach: forEach.map(OutOfLine.value), image: image,
            placement: placement == Self.noPlacement ? nil : .value(placement))
        storage = Storage(
            Fields(
                id: id, kind: kind, dependsOn: dependsOn, input: input.map(OutOfLine.value),
                when: when, rare: rare.isEmpty ? nil : .value(rare), caching: caching,
                continueOnError: continueOnError, always: always, pointer: pointer,
                offset: offset))
    }

    /// How many bytes a step's fields take inline: for tests of its layout.
    static var fieldsSize: Int { MemoryLayout<Fields>.size }
    /// Whether the step holds a box of what few steps set: for tests of its layout.
    var holdsRareFields: Bool { storage.fields.rare != nil }

    /// What few steps set (``Rare``), changed by `change`: boxed again, or let go of once
    /// nothing of it is set.
    private mutating func changeRare(_ change: (inout Rare) -> Void) {
        var rare = storage.fields.rare?.value ?? Rare()
        change(&rare)
        fields.rare = rare.isEmpty ? nil : .value(rare)
    }

    /// Its id, unique in the file.
    public var id: String {
        get { storage.fields.id }
        _modify { yield &fields.id }
    }
    /// Free text.
    public var description: String? {
        get { storage.fields.rare?.value.description }
        set { changeRare { $0.description = newValue } }
    }
    /// What it does.
    public var kind: Kind {
        get { storage.fields.kind }
        _modify { yield &fields.kind }
    }
    /// Steps this one runs after, besides those it takes data from.
    public var dependsOn: [Reference] {
        get { storage.fields.dependsOn }
        _modify { yield &fields.dependsOn }
    }
    /// Data wired in: stdin of a shell step, the body of an HTTP request, the content of a file
    /// step, the input a group forwards to a child.
    public var input: Wire? {
        get { storage.fields.input?.value }
        set { fields.input = newValue.map(OutOfLine.value) }
    }
    /// Skips the step when false.
    public var when: StepCondition? {
        get { storage.fields.when }
        _modify { yield &fields.when }
    }
    /// Mutual-exclusion categories: no two steps sharing one run at once.
    public var mutex: [String] {
        get { storage.fields.rare?.value.mutex ?? [] }
        set { changeRare { $0.mutex = newValue } }
    }
    /// How to retry it when it fails.
    public var retry: Retry? {
        get { storage.fields.rare?.value.retry?.value }
        set { changeRare { $0.retry = newValue.map(OutOfLine.value) } }
    }
    /// Seconds the step may run, each attempt.
    public var timeout: Double? {
        get { storage.fields.rare?.value.timeout }
        set { changeRare { $0.timeout = newValue } }
    }
    /// Whether a failure is only a warning, letting dependents run.
    public var continueOnError: Bool {
        get { storage.fields.continueOnError }
        _modify { yield &fields.continueOnError }
    }
    /// Whether the step runs even when steps it depends on failed or were skipped: for
    /// clean-up.
    public var always: Bool {
        get { storage.fields.always }
        _modify { yield &fields.always }
    }
    /// Runs the step once per item of a list, instead of once.
    public var forEach: ForEach? {
        get { storage.fields.rare?.value.forEach?.value }
        set { changeRare { $0.forEach = newValue.map(OutOfLine.value) } }
    }
    /// The container image `procflow export` runs a shell or file step in; `procflow run`
    /// ignores it.
    public var image: String? {
        get { storage.fields.rare?.value.image }
        set { changeRare { $0.image = newValue } }
    }
    /// What it reads and makes, for incremental runs.
    public var caching: Caching {
        get { storage.fields.caching }
        _modify { yield &fields.caching }
    }
    /// Where a shell step's command runs and what it needs, with what the groups holding it
    /// and the workflow give.
    public var placement: Placement {
        // Most steps say nothing: one empty placement serves them all, rather than one made
        // each time a step is asked (several times as its procedure is built).
        get { storage.fields.rare?.value.placement?.value ?? Self.noPlacement }
        set {
            changeRare { $0.placement = newValue == Self.noPlacement ? nil : .value(newValue) }
        }
    }
    private static let noPlacement = Placement()
    /// Where the step is in the file: its JSON Pointer, and the byte offset of its object
    /// (turned into a line and column only for a diagnostic).
    public var pointer: JSONPointer {
        get { storage.fields.pointer }
        _modify { yield &fields.pointer }
    }
    var offset: Int {
        get { storage.fields.offset }
        _modify { yield &fields.offset }
    }

    /// What a step does, with what its kind needs.
    public enum Kind: Sendable {
        case shell(Shell)
        case http(HTTP)
        case file(FileOperation)
        // Out of line: a group takes 136 bytes inline, more than any step that does work.
        indirect case group(Group)
        indirect case branch(Branch)

        /// The kind's name in the file.
        public var name: String {
            switch self {
            case .shell: return "shell"
            case .http: return "http"
            case .file: return "file"
            case .group: return "group"
            case .branch: return "branch"
            }
        }

        /// Whether the step does work itself, rather than holding other steps.
        public var isLeaf: Bool {
            switch self {
            case .shell, .http, .file: return true
            case .group, .branch: return false
            }
        }
    }

    /// The steps nested in this one: a group's, or all of a branch's cases.
    public var children: [Step] {
        switch kind {
        case .group(let group): return group.steps
        case .branch(let branch): return branch.cases.flatMap(\.steps) + branch.otherwise
        default: return []
        }
    }

    /// What the step's output is: for a `forEach`, the array of its instances' outputs.
    public var outputFormat: OutputFormat {
        if forEach != nil { return .json }
        switch kind {
        case .shell(let shell): return shell.output
        case .http(let http): return http.output
        case .file(let operation): return operation.outputFormat
        case .group: return outputChild?.outputFormat ?? .none
        case .branch: return .none
        }
    }
}

extension Step {
    /// How many wires the step reads, without listing them.
    var wireCount: Int {
        var count = (input == nil ? 0 : 1) + (when?.wires.count ?? 0)
        if case .wire = forEach?.items { count += 1 }
        if case .shell(let shell) = kind { count += shell.inputs.count }
        if case .branch = kind { count += 1 }
        return count
    }

    /// Every wire the step reads: its input, a shell step's named inputs, a branch's `on`,
    /// its condition's.
    public var wires: [(wire: Wire, role: WireRole)] {
        var wires: [(Wire, WireRole)] = []
        if let input { wires.append((input, .input)) }
        if case .shell(let shell) = kind {
            wires += shell.inputs.map { ($0.wire, .environment($0.name)) }
        }
        if case .branch(let branch) = kind { wires.append((branch.on, .branch)) }
        if let when { wires += when.wires.map { ($0, .condition) } }
        if case .wire(let wire) = forEach?.items { wires.append((wire, .forEach)) }
        return wires
    }

    /// The ids of the steps this one runs after: those it names in `dependsOn`, then those it
    /// takes data from, each once, in the order the file names them.
    public var prerequisites: [String] {
        let named = dependsOn.map(\.id) + wires.map(\.wire.from.id)
        guard named.count > 1 else { return named }
        // Most steps name a few: a search of those found is cheaper than hashing.
        guard named.count > 16 else {
            var ids: [String] = []
            ids.reserveCapacity(named.count)
            for id in named where !ids.contains(id) { ids.append(id) }
            return ids
        }
        var seen = Set<String>(minimumCapacity: named.count)
        return named.filter { seen.insert($0).inserted }
    }
}

extension Step {
    /// Whether the step can take an input at all.
    var acceptsInput: Bool {
        switch kind {
        case .shell, .http, .group: return true
        case .file(let operation):
            switch operation {
            case .write, .render, .select, .replace: return true
            case .read, .copy, .concat: return false
            }
        case .branch: return false
        }
    }

    /// Whether setting `"output": "json"` would make the output JSON.
    var canGiveJSON: Bool {
        switch kind {
        case .shell, .http: return true
        case .file(.read): return true
        default: return false
        }
    }
}

extension Step {
    /// What makes it a service, if it is one.
    public var service: Service? {
        if case .shell(let shell) = kind { return shell.service }
        return nil
    }

    /// Whether the step holds other steps (a group or a branch), even when it has none.
    var isContainer: Bool {
        switch kind {
        case .group, .branch: return true
        default: return false
        }
    }
}

extension Step {
    /// For a group, the child it forwards its input to (`inputTo`); `nil` for other steps.
    public var inputChild: Step? {
        guard case .group(let group) = kind, let id = group.inputTo?.id else { return nil }
        return group.steps.first { $0.id == id }
    }

    /// For a group, the child whose output it gives (`outputFrom`); `nil` for other steps.
    public var outputChild: Step? {
        guard case .group(let group) = kind, let id = group.outputFrom?.id else { return nil }
        return group.steps.first { $0.id == id }
    }

    /// Whether this is a group that forwards its input to its child `id`.
    public func forwardsInput(to id: String) -> Bool {
        guard case .group(let group) = kind else { return false }
        return group.inputTo?.id == id
    }

    /// Whether this is a group that gives the output of its child `id`.
    public func givesOutput(of id: String) -> Bool {
        guard case .group(let group) = kind else { return false }
        return group.outputFrom?.id == id
    }
}
