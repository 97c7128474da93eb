#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The loaded and checked workflow, kept between runs in the state directory
/// (`<workflow>.plan`), so that a run of an unchanged workflow reads it back without parsing,
/// decoding or checking the JSON again: ninja's `.ninja_deps` for the workflow itself.
///
/// It holds what the load depended on, and the run uses it only if all of that is the same:
/// this procflow (its executable's status: another build may decode otherwise), the current
/// directory, the workflow file as named and its `--var` values, and the content of every
/// file the load read (the workflow file, the files it includes, its dotenv files, and that an
/// optional dotenv file is still missing), by digest. Any difference, or a plan that cannot be
/// read, is a full load, which writes a new plan: a plan can make a run slower, never wrong.
/// A damaged or foreign plan is said in a warning.
///
/// The workflow file is told by its status instead of its digest once that status can be
/// trusted (``trustedStatus(_:seenAt:)``): a plan made while the file was fresh learns it on
/// the first run that finds the file settled, and is written again with it.
enum WorkflowPlan {
    /// What the load of a workflow depended on besides its files' contents.
    struct Key: Equatable {
        /// The status of procflow's own executable.
        var program: FileStatus
        var directory: String
        /// The workflow file as named on the command line.
        var file: String
        /// `--var` values, `name=value`, in the order given.
        var overrides: [String]

        /// The key of a load of `file` with `overrides` by this procflow, here; `nil` where
        /// procflow's executable cannot be found (no `/proc`): then no plan is used.
        init?(file: String, overrides: [(name: String, value: String)]) {
            guard let program = FileSystem.status("/proc/self/exe") else { return nil }
            self.init(
                program: program, directory: currentDirectory(), file: file,
                overrides: overrides.map { "\($0.name)=\($0.value)" })
        }

        init(program: FileStatus, directory: String, file: String, overrides: [String]) {
            self.program = program
            self.directory = directory
            self.file = file
            self.overrides = overrides
        }
    }

    /// The status of the workflow file seen at `seenAt`, before its content was read, if it
    /// can be trusted to show a later change (it was settled then): a file that still has it
    /// has the content read.
    static func trustedStatus(_ status: FileStatus?, seenAt: Int64) -> FileStatus? {
        status.flatMap { $0.isSettled(at: seenAt) ? $0 : nil }
    }

    /// What reading a plan found.
    enum Outcome {
        /// The workflow, as a full load of the same files gives it; `learnt` when the plan
        /// did not trust the workflow file's status and it can be trusted now: the plan is
        /// to be written again with it.
        case loaded(Workflow, learnt: Bool)
        /// No plan, or one of another load: load in full.
        case noPlan
        /// A plan that cannot be used, and why ("it is damaged (…)"): load in full, and say so.
        case unusable(String)
    }

    /// The most bytes a plan may take: a larger file is not read (a damaged or foreign one).
    static let maximumSize = 4 * Workflow.maximumBytesRead

    /// The plan in `directory` for `key`, if the workflow file read as `bytes`, and every
    /// other file the load read, are what it was made from. `trusted` is the workflow file's
    /// status before it was read, if it could be trusted (``trustedStatus(_:seenAt:)``).
    static func read(
        for key: Key, bytes: [UInt8], trusted: FileStatus?, in directory: StateDirectory
    ) -> Outcome {
        let path = directory.plan(for: key.file)
        let plan: [UInt8]
        switch POSIXIO.readRegularFile(path, limit: maximumSize) {
        case .success(let read): plan = read
        case .failure(.unreadable(let failure)) where failure.code == ENOENT: return .noPlan
        case .failure(.unreadable(let failure)):
            return .unusable("it cannot be read: \(failure.message)")
        case .failure(.notRegular(let type)): return .unusable("it is \(type), not a regular file")
        case .failure(.tooLarge): return .unusable("it is larger than \(formatBytes(maximumSize))")
        }
        do {
            return try StateFile.unwrap(plan, as: .plan) { reader throws(BinaryReader.Truncated) in
                let outcome = try read(&reader, for: key, bytes: bytes, trusted: trusted)
                // A plan of another load is not read to its end.
                if case .noPlan = outcome { reader.skipRest() }
                return outcome
            }
        } catch {
            return .unusable(error.description)
        }
    }

    private static func read(
        _ reader: inout BinaryReader, for key: Key, bytes: [UInt8], trusted: FileStatus?
    ) throws(BinaryReader.Truncated) -> Outcome {
        guard let program = try reader.status() else { throw BinaryReader.Truncated() }
        let directory = try reader.string()
        let file = try reader.string()
        let overrides = try reader.strings()
        let known = try reader.status()
        let digest = try reader.digest()
        guard Key(program: program, directory: directory, file: file, overrides: overrides) == key
        else { return .noPlan }
        // The status the plan trusts, still the file's after `bytes` were read: no change
        // since it was seen, when the file had the content the plan was made of.
        let sameStatus =
            known.map { known in
                FileSystem.status(key.file).map(known.looksUnchanged) ?? false
            } ?? false
        guard sameStatus || digest == SHA256.hash(bytes) else { return .noPlan }
        let sources = SourceMap()
        _ = sources.add(key.file, bytes)
        // The included workflow files, in the order the load read them.
        for _ in 0..<(try reader.count(minimumSize: 36)) {
            let name = try reader.string()
            let digest = try reader.digest()
            guard case .success(let included) = readFile(resolve(name, in: ".")),
                SHA256.hash(included) == digest
            else { return .noPlan }
            _ = sources.add(name, included)
        }
        // The dotenv files: each with its digest, or missing.
        for _ in 0..<(try reader.count(minimumSize: 5)) {
            let path = try reader.string()
            let wasPresent = try reader.bool()
            let digest = wasPresent ? try reader.digest() : nil
            let read = readFile(path)
            switch read {
            case .success(let content):
                guard let digest, SHA256.hash(content) == digest else { return .noPlan }
            case .failure(let problem):
                guard digest == nil, problem == .missing else { return .noPlan }
            }
            sources.noteRead(path, content: try? read.get())
        }
        let decoding = WorkflowDecoding(reader)
        var workflow = try decoding.workflow()
        reader = decoding.reader
        workflow.sources = sources
        return .loaded(workflow, learnt: !sameStatus && trusted != nil)
    }

    /// Writes the plan of `workflow`, loaded by `key` from `bytes` and the other files its
    /// source map keeps as the load read them (a file changed since is not read again: its
    /// new content must not be paired with the old one's workflow); `trusted` is the workflow
    /// file's status before `bytes` were read, if it could be trusted. A failure only means
    /// the next run loads in full.
    ///
    /// A workflow that holds a secret's value (in its variables, `--var` values, `env` or
    /// dotenv files) has no plan: a value filled into its steps would be written in the clear.
    /// Secrets that only procflow's environment gives are not in the workflow.
    static func write(
        _ workflow: Workflow, for key: Key, bytes: [UInt8], trusted: FileStatus?,
        in directory: StateDirectory
    ) {
        guard workflow.secretValues(in: [:]).isEmpty else { return }
        var writer = BinaryWriter()
        writer.write(key.program)
        writer.write(key.directory)
        writer.write(key.file)
        writer.write(strings: key.overrides)
        writer.write(trusted)
        writer.write(SHA256.hash(bytes))
        guard let sources = workflow.sources else { return }
        let included = sources.contents.dropFirst()
        writer.write(UInt32(included.count))
        for (name, content) in included {
            // Held until the plan is written; a file let go of first leaves no plan.
            guard let content else { return }
            writer.write(name)
            writer.write(SHA256.hash(content))
        }
        // A dotenv file the load could not read was a missing optional one: any other problem
        // fails the load.
        writer.write(UInt32(sources.otherFiles.count))
        for (path, content) in zip(sources.otherFiles, sources.otherContents) {
            writer.write(path)
            writer.write(content != nil)
            if let content { writer.write(SHA256.hash(content)) }
        }
        let encoder = WorkflowEncoder(writer)
        encoder.workflow(workflow)
        let body = encoder.finished()
        guard body.count + 64 <= maximumSize, (try? directory.prepare()) != nil else { return }
        try? StateDirectory.write(
            StateFile.wrap(body, as: .plan), to: directory.plan(for: key.file),
            temporary: directory.temporary)
    }

    /// Why a file the load read cannot be read now.
    private enum ReadProblem: Error {
        /// It does not exist.
        case missing
        /// Anything else: the load read it, or found it missing; now neither holds.
        case unreadable
    }

    /// The bytes of the file at `path`, as the load reads a workflow or dotenv file.
    private static func readFile(_ path: String) -> Result<[UInt8], ReadProblem> {
        switch POSIXIO.readRegularFile(path, limit: Workflow.maximumFileSize) {
        case .success(let bytes): return .success(bytes)
        case .failure(.unreadable(let failure)) where failure.code == ENOENT:
            return .failure(.missing)
        case .failure: return .failure(.unreadable)
        }
    }
}
