/// What `procflow run --watch` watches in a workflow, and what a change to a file there
/// affects: the steps whose declared sources name the file (for a step of a `forEach`, the
/// `forEach` step, whose instances the cache tells apart) and every step downstream of them.
struct WatchPlan: Sendable {
    /// A step's declared sources, and the step a change to one runs again.
    private struct Watched: Sendable {
        /// The step, or the `forEach` step it is an instance of or inside.
        let target: String
        /// Where its paths are relative to, absolute.
        let directory: String
        let sources: IncrementalStep.Files
    }

    /// What a batch of changed files affects.
    struct Change: Sendable {
        /// The changed files the workflow was read from: it must be loaded again.
        var workflowFiles: [String] = []
        /// The changed sources, each with the steps that declare it, in file order.
        var sources: [(path: String, steps: [String])] = []
        /// The steps to run again, in file order: the steps the sources are of, and every
        /// step downstream of them.
        var steps: [String] = []

        /// Whether the change is to nothing the workflow reads.
        var isEmpty: Bool { workflowFiles.isEmpty && sources.isEmpty }
    }

    /// The files the workflow was read from, absolute.
    let workflowFiles: Set<String>
    /// The directories to watch, with the ones below them: absolute, none inside another.
    let roots: [String]
    private let watched: [Watched]
    /// The files depfiles named, from ``learn(_:)``.
    private var learned: [Watched] = []
    /// What steps declare they make: a change there is a run's own doing.
    private let generated: [(directory: String, files: IncrementalStep.Files)]
    /// The steps that run after each step, or take its data, directly.
    private let dependents: [String: [String]]
    /// The group or branch each step is in.
    private let parents: [String: String]
    /// Every step's position in the file.
    private let positions: [String: Int]
    /// The state directory: what is below it is procflow's own.
    private let stateDirectory: String
    /// Files each run writes, such as its reports: never a change.
    private let ownFiles: Set<String>

    /// The plan for `workflow`, whose relative paths start at `directory` (absolute), with
    /// its state in `stateDirectory`; `ownFiles` are the files each run writes besides what
    /// its steps generate (the reports), relative to the current directory or absolute.
    ///
    /// A `forEach` with its items in the file is watched through its instances, their paths
    /// filled in. One whose items come from another step is watched with each reference to
    /// its item standing for any one name (`src/${item}.c` as `src/*.c`); what its steps
    /// generate then cannot be told, and does not count as generated.
    init(
        _ workflow: Workflow, directory: String, stateDirectory: String, ownFiles: [String] = []
    ) {
        workflowFiles = Set(workflow.files)
        self.stateDirectory = resolve(stateDirectory, in: ".")
        self.ownFiles = Set(ownFiles.map { resolve($0, in: ".") })
        var watched: [Watched] = []
        var generated: [(directory: String, files: IncrementalStep.Files)] = []
        var dependents: [String: [String]] = [:]
        var parents: [String: String] = [:]
        var positions: [String: Int] = [:]
        var forEachSteps: Set<String> = []
        /// Adds what `step` reads and makes, a change to what it reads running `target`.
        func add(_ step: Step, target: String, anyItem: Bool) {
            let (read, made) = Self.files(of: step, in: directory, anyItem: anyItem)
            if let read {
                watched.append(
                    Watched(target: target, directory: read.directory, sources: read.files))
            }
            if let made { generated.append(made) }
        }
        workflow.forEachStep { nested in
            let step = nested.step
            // The steps of a forEach are its instances' business.
            guard !nested.path.contains(where: forEachSteps.contains) else { return }
            positions[step.id] = positions.count
            parents[step.id] = nested.parent
            for prerequisite in step.prerequisites {
                dependents[prerequisite, default: []].append(step.id)
            }
            guard let forEach = step.forEach else {
                add(step, target: step.id, anyItem: false)
                return
            }
            forEachSteps.insert(step.id)
            guard let items = forEach.staticItems else {
                var template = step
                template.forEach = nil
                Workflow.walk([template], path: [], cases: []) {
                    add($0.step, target: step.id, anyItem: true)
                }
                return
            }
            for (index, item) in items.enumerated() {
                guard let instance = try? step.instance(at: index, item: item) else { continue }
                Workflow.walk([instance], path: [], cases: []) {
                    add($0.step, target: step.id, anyItem: false)
                }
            }
        }
        self.watched = watched
        self.generated = generated
        self.dependents = dependents
        self.parents = parents
        self.positions = positions
        roots = Self.roots(of: watched, workflowFiles: workflowFiles, directory: directory)
    }

    /// The directories to watch: those of the workflow files and of what the steps read, as
    /// few as cover them, within the workflow's directory and the workflow files'.
    private static func roots(
        of watched: [Watched], workflowFiles: Set<String>, directory: String
    ) -> [String] {
        let workflowDirectory = resolve(directory, in: ".")
        return roots(
            workflowFiles.map { Procflow.directory(of: $0) }
                + watched.flatMap { entry in
                    entry.sources.paths.map {
                        FileSystem.isDirectory($0) ? $0 : Procflow.directory(of: $0)
                    }
                        + entry.sources.patterns.map { $0.fixedDirectory(in: entry.directory) }
                },
            within: [workflowDirectory] + workflowFiles.map { Procflow.directory(of: $0) })
    }

    /// What `step`, in a workflow whose relative paths start at `directory`, reads (where from,
    /// and what) and makes, if anything; with `anyItem`, a reference to a `forEach` item in
    /// its paths stands for any one name, and what it makes cannot be told.
    private static func files(of step: Step, in directory: String, anyItem: Bool) -> (
        read: (directory: String, files: IncrementalStep.Files)?,
        made: (directory: String, files: IncrementalStep.Files)?
    ) {
        var sources = step.caching.sources
        var generates = step.caching.generates
        var stepDirectory = directory
        switch step.kind {
        case .shell(let shell):
            guard let cwd = shell.cwd else { break }
            guard anyItem, cwd.contains("${") else {
                stepDirectory = resolve(cwd, in: directory)
                break
            }
            // Relative paths start in a directory named by the item: any directory.
            sources = sources.compactMap { pattern in
                pattern.isAbsolute ? pattern : try? GlobPattern(cwd + "/" + pattern.text)
            }
        case .file(let operation) where !anyItem:
            let (reads, writes) = IncrementalStep.files(of: operation)
            sources += reads
            generates += writes
        case .file, .http, .group, .branch:
            break
        }
        if anyItem { sources = Self.anyItem(sources) }
        let read =
            sources.isEmpty
            ? nil : (stepDirectory, IncrementalStep.Files(sources, in: stepDirectory))
        let made =
            generates.isEmpty || anyItem
            ? nil : (stepDirectory, IncrementalStep.Files(generates, in: stepDirectory))
        return (read, made)
    }

    /// Takes the files the depfiles of the last runs named, by step (or instance) id, in place
    /// of those it had: a change to one runs its step again. Only those below the directories
    /// watched are seen.
    mutating func learn(_ discovered: [(step: String, paths: [String])]) {
        learned = discovered.compactMap { id, paths in
            let step = ForEach.stepID(ofInstance: id)
            guard positions[step] != nil, !paths.isEmpty else { return nil }
            var files = IncrementalStep.Files([], in: "/")
            // As the watcher reports them: without `.`, `..` or doubled slashes.
            files.paths = PathList(paths.map { resolve(String($0.drop { $0 == "/" }), in: "/") })
            return Watched(target: step, directory: "/", sources: files)
        }
    }

    /// What the changed files `paths` (absolute) affect. A source counts for a step only if
    /// `differs` says that its content is not what the step's last successful run read.
    func change(for paths: [String], differs: (_ path: String, _ step: String) -> Bool) -> Change {
        var change = Change()
        var direct: Set<String> = []
        let state = stateDirectory + "/"
        for path in paths where !path.hasPrefix(state) && !ownFiles.contains(path) {
            if workflowFiles.contains(path) {
                change.workflowFiles.append(path)
                continue
            }
            if generated.contains(where: { $0.files.contain(path, in: $0.directory) }) { continue }
            var steps: [String] = []
            for entry in watched + learned
            where !steps.contains(entry.target) && entry.sources.contain(path, in: entry.directory)
                && differs(path, entry.target)
            {
                steps.append(entry.target)
            }
            guard !steps.isEmpty else { continue }
            change.sources.append((path, sortedByPosition(steps)))
            direct.formUnion(steps)
        }
        change.steps = sortedByPosition(Array(downstream(of: direct)))
        return change
    }

    /// `steps`, and every step that runs after one of them or one of the groups they are
    /// in, or takes its data, transitively.
    func downstream(of steps: Set<String>) -> Set<String> {
        var found = steps
        var pending = Array(steps)
        while let step = pending.popLast() {
            var ancestor: String? = step
            while let current = ancestor {
                for dependent in dependents[current] ?? [] where found.insert(dependent).inserted {
                    pending.append(dependent)
                }
                ancestor = parents[current]
            }
        }
        return found
    }

    private func sortedByPosition(_ steps: [String]) -> [String] {
        steps.sorted { (positions[$0] ?? .max) < (positions[$1] ?? .max) }
    }

    /// `patterns`, with each reference to a variable (a `forEach` item's) made a wildcard.
    private static func anyItem(_ patterns: [GlobPattern]) -> [GlobPattern] {
        patterns.compactMap { pattern in
            guard pattern.text.contains("${") else { return pattern }
            var text = ""
            var rest = pattern.text[...]
            while let start = rest.range(of: "${") {
                text += rest[..<start.lowerBound] + "*"
                guard let end = rest[start.upperBound...].firstIndex(of: "}") else { return nil }
                rest = rest[rest.index(after: end)...]
            }
            return try? GlobPattern(text + rest)
        }
    }

    /// Each of `directories` made one that exists — the nearest above it that does, if that is
    /// still inside one of `bounds` (a missing directory elsewhere is not watched) — then those
    /// inside another dropped. The root directory is never watched whole.
    private static func roots(_ directories: [String], within bounds: [String]) -> [String] {
        func isInside(_ path: String, _ directory: String) -> Bool {
            path == directory || path.hasPrefix(directory == "/" ? "/" : directory + "/")
        }
        var existing: Set<String> = []
        for directory in directories {
            var current = directory
            while current != "/", !FileSystem.isDirectory(current) {
                current = Procflow.directory(of: current)
            }
            guard current != "/" else { continue }
            if current != directory, !bounds.contains(where: { isInside(current, $0) }) { continue }
            existing.insert(current)
        }
        var roots: [String] = []
        // Shorter first, so that a directory comes before those inside it.
        for directory in existing.sorted(by: { ($0.count, $0) < ($1.count, $1) })
        where !roots.contains(where: { isInside(directory, $0) }) {
            roots.append(directory)
        }
        return roots.sorted()
    }
}

extension IncrementalStep.Files {
    /// Whether the files named include the file at `path`, or a directory above it; relative
    /// paths start at `directory`.
    func contain(_ path: String, in directory: String) -> Bool {
        paths.contains { path == $0 || path.hasPrefix($0 + "/") }
            || patterns.contains { $0.matches(path: path, in: directory) }
    }
}
