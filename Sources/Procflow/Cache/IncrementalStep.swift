import Foundation

/// A run's incremental steps by id: 100,000 of them in a dictionary took 6 MB of buckets.
typealias IncrementalSteps = DenseTable<String, IncrementalStep>

/// An incremental step as the cache sees it before it runs: what it is (as a digest), where
/// it runs, and the files it declares, the patterns and paths made absolute.
struct IncrementalStep: Sendable {
    /// The step's fields, in a box of their own: the run's table of incremental steps and each
    /// step's procedure share one copy of them (170 bytes a step), not one each.
    ///
    /// Laid out for a step of 100,000 to take 192 bytes with malloc's overhead: the one path
    /// each list of files most often has kept inline, as the workflow names it (two arrays of
    /// one path took 128 bytes more, and two absolute paths 160), what changes its definition
    /// as a byte in the padding after the sources, what only some steps have out of line, and
    /// where it runs a reference to what most steps share (56 bytes more inline).
    fileprivate struct Fields: Sendable {
        var id: String
        var definition: Digest
        var setting: Setting
        var rare: Rare?
        var sources: Files
        var definitionKind: DefinitionKind
        var generates: Files

        var definitionWithoutKey: Digest? {
            get { rare?.withoutKey }
            set { rare = Rare(withoutKey: newValue, depfile: rare?.depfile) }
        }

        var depfile: String? {
            get { rare?.depfile }
            set { rare = Rare(withoutKey: rare?.withoutKey, depfile: newValue) }
        }
    }

    /// What a step's definition says it does, which its change is called by.
    fileprivate enum DefinitionKind: UInt8, Sendable {
        case command, operation, request

        /// How an explanation names a change of it: "command changed".
        var changeName: String {
            switch self {
            case .command: "command changed"
            case .operation: "operation changed"
            case .request: "request changed"
            }
        }
    }

    /// Where a step runs: its environment's digest and entries, and its working directory. The
    /// steps of a workflow that add no `env` nor `cwd` of their own share one for each kind
    /// of step (``Context``).
    fileprivate final class Setting: Sendable {
        let environment: Digest
        let entries: [StepRecord.Input]
        let directory: String

        init(environment: Digest, entries: [StepRecord.Input], directory: String) {
            self.environment = environment
            self.entries = entries
            self.directory = directory
        }
    }

    /// What only some steps have, in a box of its own: a reference inline.
    fileprivate final class Rare: Sendable {
        /// The definition's digest without the `cacheKey` parts' values.
        let withoutKey: Digest?
        /// The depfile, absolute.
        let depfile: String?

        /// A box of `withoutKey` and `depfile`; `nil` when neither is set.
        init?(withoutKey: Digest?, depfile: String?) {
            guard withoutKey != nil || depfile != nil else { return nil }
            self.withoutKey = withoutKey
            self.depfile = depfile
        }
    }

    private final class Storage: Sendable {
        let fields: Fields

        init(_ fields: Fields) {
            self.fields = fields
        }
    }

    private let storage: Storage

    fileprivate init(_ fields: Fields) {
        storage = Storage(fields)
    }

    /// The box of its fields, which copies share: for tests of who holds it.
    var box: AnyObject { storage }
    /// The box of where it runs, which steps of one kind share: for tests.
    var settingBox: AnyObject { storage.fields.setting }
    /// The size of its fields: for tests of what a step of a large run takes.
    static var fieldsSize: Int { MemoryLayout<Fields>.size }

    /// The step's id.
    var id: String { storage.fields.id }
    /// What a change of ``definition`` is called in an explanation: "command changed".
    var definitionName: String { storage.fields.definitionKind.changeName }
    /// The digest of its kind, command (variables filled in), output format, file
    /// declarations and `cacheKey` parts' values.
    var definition: Digest { storage.fields.definition }
    /// The digest of the same without the `cacheKey` parts' values, when it has parts: to
    /// tell, when the definition changed, whether the step itself did (``definitionName``)
    /// or only what its `cacheKey` gives.
    var definitionWithoutKey: Digest? { storage.fields.definitionWithoutKey }
    /// The digest of the environment the workflow gives it.
    var environment: Digest { storage.fields.setting.environment }
    /// Each entry of that environment, for explanations (see ``StepRecord/environmentEntries``).
    var environmentEntries: [StepRecord.Input] { storage.fields.setting.entries }
    /// Its working directory, absolute.
    var directory: String { storage.fields.setting.directory }
    /// Its `sources`, and for a file step the files its operation reads.
    var sources: Files { storage.fields.sources }
    /// Its `generates`, and for a file step the file its operation writes.
    var generates: Files { storage.fields.generates }
    /// Its depfile, absolute.
    var depfile: String? { storage.fields.depfile }

    /// Declared files: paths without wildcards resolved once, and patterns.
    struct Files: Sendable {
        // The patterns first: the paths' 17 bytes last.
        var patterns: [GlobPattern] = []
        /// The directory the paths are named from (the step's working directory), absolute.
        private var base = "/"
        /// Each path, without `.` or `..`: from ``base`` when below it, as the workflow mostly
        /// names it (a string of 15 bytes or fewer holds it without an allocation of its own,
        /// where each absolute path of 100,000 steps took 80 bytes), else absolute.
        private var named: PathList = []

        /// The paths, absolute, without `.` or `..`. Made when asked for: ask once. Set to
        /// absolute paths, it keeps them as they are.
        var paths: PathList {
            get {
                guard named.contains(where: { $0.utf8.first != UInt8(ascii: "/") }) else {
                    return named
                }
                return PathList(named.map(absolute))
            }
            set { named = newValue }
        }

        /// How many paths it names.
        var pathCount: Int { named.count }

        /// The paths as kept: for tests of what a list holds.
        var keptPaths: [String] { Array(named) }

        /// Whether it names nothing.
        var isEmpty: Bool { named.isEmpty && patterns.isEmpty }

        /// `path`, one of ``named``, absolute.
        private func absolute(_ path: String) -> String {
            guard path.utf8.first != UInt8(ascii: "/") else { return path }
            return joined(base, path)
        }

        /// Whether each path named is among `paths` (absolute), compared without making it
        /// absolute: for the few paths of a step.
        func isEachPath(among paths: [String]) -> Bool {
            named.allSatisfy { named in paths.contains { isPath($0, named) } }
        }

        /// Whether `path` (absolute) is `named`, one of ``named``, once absolute.
        private func isPath(_ path: String, _ named: String) -> Bool {
            guard named.utf8.first != UInt8(ascii: "/") else { return path == named }
            let (path, base, named) = (path.utf8, base.utf8, named.utf8)
            let prefix = base.count == 1 ? 0 : base.count
            return path.count == prefix + 1 + named.count
                && path.starts(with: base.prefix(prefix))
                && path[path.index(path.startIndex, offsetBy: prefix)] == UInt8(ascii: "/")
                && path.suffix(named.count).elementsEqual(named)
        }

        /// Whether `path` (absolute) is one of them: a path named, a file below a directory
        /// named, or a match of a pattern (relative to `directory`).
        func contains(_ path: String, in directory: String) -> Bool {
            named.contains {
                let named = absolute($0)
                return path == named || path.hasPrefix(named + "/")
            } || patterns.contains { $0.matches(path: path, in: directory) }
        }

        init(_ list: [GlobPattern], in directory: String) {
            base = directory
            let plainDirectory = !list.isEmpty && isPlainDirectory(directory)
            for pattern in list {
                if pattern.isLiteral {
                    named.append(
                        resolveBelow(
                            pattern.literalPath, in: directory, plainDirectory: plainDirectory))
                } else {
                    patterns.append(pattern)
                }
            }
        }
    }

    /// What the incremental steps of one workflow share.
    struct Context: Sendable {
        /// The directory of the workflow file, absolute.
        let workflowDirectory: String
        /// The digest of the dotenv variables, the variables and `env` of the workflow, given
        /// to shell steps.
        let environment: Digest
        /// The digest of the variables, which render steps use.
        let variables: Digest
        let variableList: [(name: String, value: String)]
        let environmentList: [(name: String, value: String)]
        let dotenvList: [(name: String, value: String)]
        /// The workflow's `cacheKey`, before each step's own.
        let keyParts: [CacheKeyPart]
        /// The parts' values, each worked out once.
        let keyValues: CacheKeyValues
        /// The entries of ``environment`` and of ``variables``, for explanations; their
        /// lists made once, for the steps that add nothing.
        let environmentEntries: EnvironmentEntries
        let environmentEntryList: [StepRecord.Input]
        let variableEntryList: [StepRecord.Input]
        /// Where the steps that add no `env` nor `cwd` run, shared: shell steps (the
        /// environment), rendering file steps (the variables), the others (no environment).
        fileprivate let shellSetting: Setting
        fileprivate let renderSetting: Setting
        fileprivate let plainSetting: Setting

        /// The context of `workflow`'s steps, in `directory`; `cacheKey` commands run with
        /// `environment` (procflow's) and the workflow's variables.
        init(
            _ workflow: Workflow, directory: String,
            environment own: [String: String] = processEnvironment()
        ) {
            workflowDirectory = directory
            variableList = workflow.variables
            environmentList = workflow.environment
            dotenvList = workflow.dotenv
            keyParts = workflow.cacheKey
            keyValues = CacheKeyValues(
                directory: directory, environment: own, additions: Self.keyAdditions(of: workflow))
            // Commands see the dotenv files' variables too, under the workflow's own: first,
            // so that a digest keeps the value they see.
            environment = IncrementalStep.digest(
                of: workflow.dotenv + workflow.variables + workflow.environment)
            variables = IncrementalStep.digest(of: workflow.variables)
            var entries = EnvironmentEntries(secrets: workflow.secrets)
            for (name, value) in workflow.dotenv {
                let file = workflow.dotenvFiles[name].map { "dotenv \($0): " } ?? "dotenv "
                entries.set(name, value, label: file + name)
            }
            var variableEntries = EnvironmentEntries(secrets: workflow.secrets)
            for (name, value) in workflow.variables {
                entries.set(name, value, label: "variable \(name)")
                variableEntries.set(name, value, label: "variable \(name)")
            }
            for (name, value) in workflow.environment {
                entries.set(name, value, label: "env \(name)")
            }
            environmentEntries = entries
            environmentEntryList = entries.list
            variableEntryList = variableEntries.list
            shellSetting = Setting(
                environment: environment, entries: environmentEntryList, directory: directory)
            renderSetting = Setting(
                environment: variables, entries: variableEntryList, directory: directory)
            plainSetting = Setting(
                environment: IncrementalStep.digest(of: []), entries: [], directory: directory)
        }

        /// What `workflow` adds to procflow's environment for its `cacheKey` commands.
        private static func keyAdditions(of workflow: Workflow) -> [CacheKeyValues.Addition] {
            workflow.dotenv.map { .init(name: $0.name, value: $0.value, weak: true) }
                + (workflow.variables + workflow.environment).map {
                    .init(name: $0.name, value: $0.value, weak: false)
                }
        }

        /// Starts the `cacheKey` commands of `workflow`'s incremental steps, as the context
        /// made with the same `directory` and `environment` will run them, so that they run
        /// while the run reads its state and drafts its steps (``KeyCommandsAhead``).
        ///
        /// Only for a run that takes them: a result started ahead stands until a run takes it.
        static func startKeyCommands(
            of workflow: Workflow, directory: String, environment own: [String: String]
        ) {
            var ownCommands: [String] = []
            var incremental = false
            // The steps ``all(in:context:)`` drafts.
            IncrementalStep.forEachStepOutsideForEach(in: workflow) { step in
                guard IncrementalStep.isIncremental(step) else { return }
                incremental = true
                for case .command(let command) in step.caching.keyParts {
                    ownCommands.append(command)
                }
            }
            guard incremental else { return }
            var commands: [String] = []
            for case .command(let command) in workflow.cacheKey { commands.append(command) }
            for command in ownCommands where !commands.contains(command) {
                commands.append(command)
            }
            guard !commands.isEmpty else { return }
            let environment = CacheKeyValues.environment(
                own, adding: keyAdditions(of: workflow))
            for command in commands {
                KeyCommandsAhead.start(command, in: directory, environment: environment)
            }
        }
    }

    /// The incremental step `step` stands for, in a workflow `context` describes; `nil` if it
    /// is not incremental.
    init?(_ step: Step, context: Context) {
        guard let draft = Draft(step, context: context) else { return nil }
        self = draft.finished(with: context.keyValues)
    }

    /// An incremental step whose definition lacks only its `cacheKey` parts' values: all the
    /// rest is worked out, and hashed, while a `cacheKey` command the run started ahead runs.
    struct Draft: Sendable {
        fileprivate var fields: Fields
        /// The definition's digest so far.
        fileprivate var hasher: SHA256
        fileprivate let keyParts: [CacheKeyPart]

        /// The draft of the incremental step `step` stands for; `nil` if it is not incremental.
        init?(_ step: Step, context: Context) {
            var hasher = SHA256()
            var keyParts: [CacheKeyPart] = []
            guard
                let drafted = Fields(
                    drafting: step, context: context, hasher: &hasher, keyParts: &keyParts)
            else { return nil }
            self.fields = drafted
            self.hasher = hasher
            self.keyParts = keyParts
        }

        /// The step, its definition finished with its `cacheKey` parts' values (waiting for a
        /// command's, the first time).
        func finished(with values: CacheKeyValues) -> IncrementalStep {
            var writer = BinaryWriter(capacity: 32 * keyParts.count)
            for part in keyParts { writer.write(values.digest(of: part)) }
            var hasher = hasher
            var fields = fields
            if !keyParts.isEmpty { fields.definitionWithoutKey = hasher.finalize() }
            hasher.update(writer.bytes)
            fields.definition = hasher.finalize()
            return IncrementalStep(fields)
        }
    }

    /// The entries of an environment by where each name's last value comes from, each with
    /// the digest of its name and value; the secrets' together, under `secrets`, so that no
    /// digest of one secret alone is kept.
    struct EnvironmentEntries: Sendable {
        /// Each name's label and the digest of its name and value; a secret's value is kept
        /// instead, for the one digest of them all.
        private var entries: [String: (label: String, digest: Digest)] = [:]
        private var secretValues: [String: String] = [:]
        private let secrets: Set<String>

        init(secrets: Set<String>) {
            self.secrets = secrets
        }

        /// Sets `name` to `value`, from where `label` says. The digest is made here, once: a
        /// step that adds to the workflow's entries hashes only its own.
        mutating func set(_ name: String, _ value: String, label: String) {
            if secrets.contains(name) {
                secretValues[name] = value
                return
            }
            var writer = BinaryWriter()
            writer.write(name)
            writer.write(value)
            entries[name] = (label, SHA256.hash(writer.bytes))
        }

        /// The entries, sorted by label.
        var list: [StepRecord.Input] {
            var list = entries.values.map { StepRecord.Input(name: $0.label, digest: $0.digest) }
            if !secretValues.isEmpty {
                var writer = BinaryWriter()
                for name in secretValues.keys.sorted() {
                    writer.write(name)
                    writer.write(secretValues[name]!)
                }
                list.append(StepRecord.Input(name: "secrets", digest: SHA256.hash(writer.bytes)))
            }
            return list.sorted { $0.name < $1.name }
        }
    }

    /// The digest of an environment: each name's last value, sorted by name.
    static func digest(of environment: [(name: String, value: String)]) -> Digest {
        guard !environment.isEmpty else { return emptyDigest }
        var values: [String: String] = [:]
        for (name, value) in environment { values[name] = value }
        var writer = BinaryWriter()
        for name in values.keys.sorted() {
            writer.write(name)
            writer.write(values[name]!)
        }
        return SHA256.hash(writer.bytes)
    }

    private static let emptyDigest = SHA256.hash([])

    /// A path the cache shows: relative to the working directory when it is inside it.
    func display(_ path: String) -> String {
        shown(path, from: directory)
    }

    // MARK: - Definitions

    private static func write(_ shell: Shell, to writer: inout BinaryWriter) {
        writer.write("shell")
        switch shell.command {
        case .script(let script):
            // The whole argv: `-e` came in with it, so steps recorded without it run again.
            writer.write("run")
            for argument in shell.interpreter.arguments(running: script, shHasPipefail: false) {
                writer.write(argument)
            }
        case .argv(let argv):
            writer.write("argv")
            writer.write(UInt32(argv.count))
            for argument in argv { writer.write(argument) }
        }
        writer.write(shell.output.rawValue)
    }

    private static func write(_ operation: FileOperation, to writer: inout BinaryWriter) {
        writer.write("file")
        writer.write(operation.name)
        writer.write(operation.outputFormat.rawValue)
        switch operation {
        case .read(let path, _): writer.write(path)
        case .write(let path, let content):
            writer.write(path)
            writer.write(content != nil)
            writer.write(content ?? "")
        case .copy(let source, let destination):
            writer.write(source)
            writer.write(destination)
        case .render(let template, let path):
            switch template {
            case .file(let file):
                writer.write("template")
                writer.write(file)
            case .text(let text):
                writer.write("text")
                writer.write(text)
            }
            writer.write(path ?? "")
        case .select(let pointer): writer.write(pointer.description)
        case .replace(let find, let replacement):
            writer.write(find)
            writer.write(replacement)
        case .concat(let paths, let path):
            writer.write(UInt32(paths.count))
            for file in paths { writer.write(file) }
            writer.write(path ?? "")
        }
    }

    private static func write(_ http: HTTP, to writer: inout BinaryWriter) {
        writer.write("http")
        writer.write(http.method)
        writer.write(http.url)
        writer.write(UInt32(http.headers.count))
        for (name, value) in http.headers {
            writer.write(name)
            writer.write(value)
        }
        writer.write(http.body.map(JSONWriter.string) ?? "")
        writer.write(UInt32(http.expect.count))
        for status in http.expect { writer.write(UInt32(status)) }
        writer.write(http.output.rawValue)
    }

    /// The files a file operation reads and writes, as literal patterns.
    static func files(of operation: FileOperation) -> (
        reads: [GlobPattern], writes: [GlobPattern]
    ) {
        func literal(_ path: String) -> GlobPattern? {
            try? GlobPattern(literal: path)
        }
        return (
            operation.readPaths.compactMap(literal),
            operation.writtenPath.flatMap(literal).map { [$0] } ?? []
        )
    }
}

extension IncrementalStep {
    /// Whether `step` is incremental on its own. A forEach step's instances are incremental,
    /// each on its own; the step itself, which gathers their outputs, is not.
    static func isIncremental(_ step: Step) -> Bool {
        step.caching.isIncremental && !step.always && step.forEach == nil
    }

    /// Calls `body` with each step of `workflow` but those inside a forEach, which are
    /// incremental in its instances, with the item filled in.
    static func forEachStepOutsideForEach(in workflow: Workflow, _ body: (Step) -> Void) {
        var forEachSteps: Set<String> = []
        workflow.forEachStep { nested in
            if nested.step.forEach != nil { forEachSteps.insert(nested.step.id) }
            guard !nested.path.contains(where: forEachSteps.contains) else { return }
            body(nested.step)
        }
    }

    /// Every incremental step of `workflow`, which is in `directory`, by id.
    static func all(in workflow: Workflow, directory: String) -> IncrementalSteps {
        all(in: workflow, context: Context(workflow, directory: directory))
    }

    /// The incremental steps of `workflow`, by id, in `context`, but those of `excluded`. All
    /// of each but its `cacheKey` values is worked out first, for the first ``draftedAhead``
    /// steps, while a `cacheKey` command started ahead runs; past them, each step is finished
    /// as it is drafted.
    static func all(
        in workflow: Workflow, context: Context, excluding excluded: Set<String> = []
    ) -> IncrementalSteps {
        var steps = IncrementalSteps()
        func finish(_ draft: Draft) {
            let step = draft.finished(with: context.keyValues)
            steps[step.id] = step
        }
        var drafts: [Draft] = []
        var finishing = false
        forEachStepOutsideForEach(in: workflow) { step in
            guard excluded.isEmpty || !excluded.contains(step.id),
                let draft = Draft(step, context: context)
            else { return }
            guard !finishing else { return finish(draft) }
            drafts.append(draft)
            guard drafts.count == draftedAhead else { return }
            // A large workflow: room made for all its steps, counted, before they are made.
            var count = 0
            forEachStepOutsideForEach(in: workflow) { step in
                if isIncremental(step), excluded.isEmpty || !excluded.contains(step.id) {
                    count += 1
                }
            }
            steps.reserveCapacity(count)
            drafts.forEach(finish)
            drafts = []
            finishing = true
        }
        if !finishing { steps.reserveCapacity(drafts.count) }
        drafts.forEach(finish)
        return steps
    }

    /// How many steps are drafted before the first is finished: more than the `cacheKey`
    /// commands started ahead take to end in a workflow of hundreds. (100,000 steps' drafts,
    /// held all at once beside the steps finished from them, took 27 MB at the run's start.)
    static let draftedAhead = 4096
}

extension IncrementalStep {
    /// The sources `step` declares, as its incremental step in a workflow whose directory is
    /// `workflowDirectory` (absolute) has them; `nil` if it is not incremental.
    static func sources(of step: Step, workflowDirectory: String) -> Files? {
        guard isIncremental(step) else { return nil }
        let directory: String
        switch step.kind {
        case .shell(let shell): directory = workingDirectory(of: shell, in: workflowDirectory)
        case .file, .http: directory = workflowDirectory
        case .group, .branch: return nil
        }
        return Files(declaredFiles(of: step).sources, in: directory)
    }

    /// The files `step` declares it reads and makes: its `sources` and `generates`, and for a
    /// file step what its operation reads and writes.
    fileprivate static func declaredFiles(of step: Step) -> (
        sources: [GlobPattern], generates: [GlobPattern]
    ) {
        guard case .file(let operation) = step.kind else {
            return (step.caching.sources, step.caching.generates)
        }
        let (reads, writes) = files(of: operation)
        return (step.caching.sources + reads, step.caching.generates + writes)
    }

    /// Where `shell` runs in a workflow whose directory is `workflowDirectory`: its `cwd`
    /// resolved there, else that directory.
    fileprivate static func workingDirectory(of shell: Shell, in workflowDirectory: String)
        -> String
    {
        shell.cwd.map { resolve($0, in: workflowDirectory) } ?? workflowDirectory
    }
}

extension IncrementalStep.Fields {
    /// Everything of the step but its definition's `cacheKey` values: the definition so far is
    /// in `hasher`, the parts whose values end it in `keyParts`.
    fileprivate init?(
        drafting step: Step, context: IncrementalStep.Context, hasher: inout SHA256,
        keyParts: inout [CacheKeyPart]
    ) {
        guard IncrementalStep.isIncremental(step) else { return nil }
        id = step.id
        var writer = BinaryWriter(capacity: 512)
        var setting = context.plainSetting
        switch step.kind {
        case .shell(let shell):
            definitionKind = .command
            IncrementalStep.write(shell, to: &writer)
            setting = context.shellSetting
            if !shell.environment.isEmpty || shell.cwd != nil {
                var entries = context.environmentEntryList
                if !shell.environment.isEmpty {
                    var own = context.environmentEntries
                    for (name, value) in shell.environment {
                        own.set(name, value, label: "env \(name)")
                    }
                    entries = own.list
                }
                setting = IncrementalStep.Setting(
                    environment: shell.environment.isEmpty
                        ? context.environment
                        : IncrementalStep.digest(
                            of: context.dotenvList + context.variableList
                                + context.environmentList + shell.environment),
                    entries: entries,
                    directory: IncrementalStep.workingDirectory(
                        of: shell, in: context.workflowDirectory))
            }
        case .file(let operation):
            definitionKind = .operation
            IncrementalStep.write(operation, to: &writer)
            if case .render = operation { setting = context.renderSetting }
        case .http(let http):
            definitionKind = .request
            IncrementalStep.write(http, to: &writer)
        case .group, .branch:
            return nil
        }
        for list in [step.caching.sourcePatterns, step.caching.generatedPatterns] {
            writer.write(UInt32(list.count))
            for pattern in list { writer.write(pattern.text) }
        }
        writer.write(step.caching.depfile ?? "")
        keyParts = context.keyParts + step.caching.keyParts
        writer.write(UInt32(keyParts.count))
        hasher.update(writer.bytes)
        definition = .unknown
        self.setting = setting
        let workingDirectory = setting.directory
        let (sources, generates) = IncrementalStep.declaredFiles(of: step)
        self.sources = IncrementalStep.Files(sources, in: workingDirectory)
        self.generates = IncrementalStep.Files(generates, in: workingDirectory)
        rare = IncrementalStep.Rare(
            withoutKey: nil,
            depfile: step.caching.depfile.map { resolve($0, in: workingDirectory) })
    }
}
