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

    /// The plan for `workflow`, whose relative paths start at `directory` (absolute), with
    /// its state in `stateDirectory`.
    init(_ workflow: Workflow, directory: String, stateDirectory: String) {
        workflowFiles = Set(workflow.files)
        self.stateDirectory = resolve(stateDirectory, in: ".")
        var watched: [Watched] = []
        var generated: [(directory: String, files: IncrementalStep.Files)] = []
        var dependents: [String: [String]] = [:]
        var parents: [String: String] = [:]
        var positions: [String: Int] = [:]
        var forEachSteps: Set<String> = []
        workflow.forEachStep { nested in
            let step = nested.step
            positions[step.id] = positions.count
            parents[step.id] = nested.parent
            for prerequisite in step.prerequisites {
                dependents[prerequisite, default: []].append(step.id)
            }
            if step.forEach != nil { forEachSteps.insert(step.id) }
            // A step of a forEach names its item in its paths: any value will do.
            let template =
                nested.path.first(where: forEachSteps.contains)
                ?? (step.forEach != nil ? step.id : nil)
            var sources = Self.anyItem(step.caching.sources, if: template != nil)
            var generates = Self.anyItem(step.caching.generates, if: template != nil)
            var stepDirectory = directory
            switch step.kind {
            case .shell(let shell):
                if let cwd = shell.cwd, !cwd.contains("${") {
                    stepDirectory = resolve(cwd, in: directory)
                }
            case .file(let operation) where template == nil:
                let (reads, writes) = IncrementalStep.files(of: operation)
                sources += reads
                generates += writes
            case .file, .http, .group, .branch:
                break
            }
            if !sources.isEmpty {
                watched.append(
                    Watched(
                        target: template ?? step.id, directory: stepDirectory,
                        sources: IncrementalStep.Files(sources, in: stepDirectory)))
            }
            if !generates.isEmpty {
                generated.append(
                    (stepDirectory, IncrementalStep.Files(generates, in: stepDirectory)))
            }
        }
        self.watched = watched
        self.generated = generated
        self.dependents = dependents
        self.parents = parents
        self.positions = positions
        roots = Self.roots(
            workflowFiles.map { Self.parent(of: $0) }
                + watched.flatMap { entry in
                    entry.sources.paths.map {
                        FileSystem.isDirectory($0) ? $0 : Self.parent(of: $0)
                    }
                        + entry.sources.patterns.map { $0.fixedDirectory(in: entry.directory) }
                })
    }

    /// What the changed files `paths` (absolute) affect. A source counts for a step only if
    /// `differs` says that its content is not what the step's last successful run read.
    func change(for paths: [String], differs: (_ path: String, _ step: String) -> Bool) -> Change {
        var change = Change()
        var direct: Set<String> = []
        let state = stateDirectory + "/"
        for path in paths where !path.hasPrefix(state) {
            if workflowFiles.contains(path) {
                change.workflowFiles.append(path)
                continue
            }
            if generated.contains(where: { $0.files.contain(path, in: $0.directory) }) { continue }
            var steps: [String] = []
            for entry in watched
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

    /// `patterns`, with each reference to a variable (a `forEach` item's) made a wildcard,
    /// when `replacing` is true.
    private static func anyItem(_ patterns: [GlobPattern], if replacing: Bool) -> [GlobPattern] {
        guard replacing else { return patterns }
        return patterns.compactMap { pattern in
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

    /// The directory a path is in.
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// Each of `directories` made one that exists (the nearest above it that does), then
    /// those inside another dropped. The root directory is never watched whole.
    private static func roots(_ directories: [String]) -> [String] {
        var existing: Set<String> = []
        for directory in directories {
            var current = directory
            while current != "/", !FileSystem.isDirectory(current) { current = parent(of: current) }
            if current != "/" { existing.insert(current) }
        }
        var roots: [String] = []
        for directory in existing.sorted() {
            if let last = roots.last, directory.hasPrefix(last + "/") { continue }
            roots.append(directory)
        }
        return roots
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
