/// What went into a step's successful run and what came out of it: enough to tell, next
/// time, whether running it again would change anything, and to put back what it made.
struct StepRecord: Sendable, Equatable {
    /// A file the step read, with its content's digest (`nil` when it did not exist), and
    /// the file's status when the digest was taken, if that status can be trusted to tell
    /// a change (see ``StepCache``).
    struct Source: Sendable, Equatable {
        var path: String
        var digest: Digest?
        var status: FileStatus? = nil
    }

    /// A file the step made, with its content's digest (its content is in the store),
    /// permission bits, and trusted status as for a ``Source``.
    struct Output: Sendable, Equatable {
        var path: String
        var digest: Digest
        var permissions: UInt32
        var status: FileStatus? = nil
    }

    /// A wired value the step received: `stdin` or the name of an environment variable.
    struct Input: Sendable, Equatable {
        var name: String
        var digest: Digest
    }

    /// The step's kind and command (variables filled in), its output format and what it
    /// declares about files.
    var definition: Digest
    /// The environment the workflow gives it: variables and `env`.
    var environment: Digest
    /// Its working directory.
    var directory: String
    var inputs: [Input]
    /// Its `sources`, expanded, sorted.
    var sources: [Source]
    /// The files its depfile named after the run.
    var discovered: [Source]
    var outputs: [Output]
    /// Its output, as JSON text.
    var value: [UInt8]
    /// Each entry of ``environment`` by where it comes from (`variable cflags`, `env CC`,
    /// `dotenv .env: TOKEN`) with the digest of its name and value, for explanations only
    /// (secrets together, as one entry); empty in a record that came without them. For a step
    /// with `cacheKey` parts, also the digest of its definition without their values
    /// (``StepExplanation/definitionWithoutKey``), to tell a changed key from a changed step.
    var environmentEntries: [Input] = []

    /// The digest of everything known before the step runs (not what its depfile names):
    /// the name of its history in the state directory.
    var key: Digest {
        var writer = BinaryWriter(capacity: 256 + 96 * sources.count)
        writeInputs(to: &writer)
        write(sources, statuses: false, to: &writer)
        return SHA256.hash(writer.bytes)
    }

    /// Its definition, environment, directory and wired values.
    private func writeInputs(to writer: inout BinaryWriter) {
        writer.write(definition)
        writer.write(environment)
        writer.write(directory)
        writer.write(UInt32(inputs.count))
        for input in inputs {
            writer.write(input.name)
            writer.write(input.digest)
        }
    }

    /// The files' paths and digests, and with `statuses` their statuses.
    private func write(_ files: [Source], statuses: Bool, to writer: inout BinaryWriter) {
        writer.write(UInt32(files.count))
        for file in files {
            writer.write(file.path)
            writer.write(file.digest != nil)
            writer.write(file.digest ?? .unknown)
            if statuses { writer.write(file.status) }
        }
    }

    func write(to writer: inout BinaryWriter) {
        writeInputs(to: &writer)
        write(sources, statuses: true, to: &writer)
        write(discovered, statuses: true, to: &writer)
        writer.write(UInt32(outputs.count))
        for output in outputs {
            writer.write(output.path)
            writer.write(output.digest)
            writer.write(output.permissions)
            writer.write(output.status)
        }
        writer.write(bytes: value)
        writer.write(UInt32(environmentEntries.count))
        for entry in environmentEntries {
            writer.write(entry.name)
            writer.write(entry.digest)
        }
    }

    init(
        definition: Digest, environment: Digest, directory: String, inputs: [Input],
        sources: [Source], discovered: [Source], outputs: [Output], value: [UInt8]
    ) {
        self.definition = definition
        self.environment = environment
        self.directory = directory
        self.inputs = inputs
        self.sources = sources
        self.discovered = discovered
        self.outputs = outputs
        self.value = value
    }

    init(from reader: inout BinaryReader) throws(BinaryReader.Truncated) {
        definition = try reader.digest()
        environment = try reader.digest()
        directory = try reader.string()
        inputs = []
        for _ in 0..<(try reader.count(minimumSize: 36)) {
            inputs.append(Input(name: try reader.string(), digest: try reader.digest()))
        }
        sources = try Self.readFiles(&reader)
        discovered = try Self.readFiles(&reader)
        outputs = []
        for _ in 0..<(try reader.count(minimumSize: 41)) {
            outputs.append(
                Output(
                    path: try reader.string(), digest: try reader.digest(),
                    permissions: try reader.uint32(), status: try reader.status()))
        }
        value = Array(try reader.bytesField())
        for _ in 0..<(try reader.count(minimumSize: 36)) {
            environmentEntries.append(Input(name: try reader.string(), digest: try reader.digest()))
        }
    }

    /// Passes over a record as ``init(from:)`` reads it, field for field, without making it:
    /// the index reads a record only when it is asked for (``IndexRecords``).
    ///
    /// - Returns: how many files it names.
    static func skip(_ reader: inout BinaryReader) throws(BinaryReader.Truncated) -> Int {
        try reader.skip(64)  // definition, environment
        _ = try reader.bytesField()  // directory
        for _ in 0..<(try reader.count(minimumSize: 36)) {
            _ = try reader.bytesField()
            try reader.skip(32)
        }
        var files = 0
        for _ in 0..<2 {  // sources, discovered
            let count = try reader.count(minimumSize: 38)
            for _ in 0..<count {
                _ = try reader.bytesField()
                try reader.skip(33)  // present, digest
                _ = try reader.status()
            }
            files += count
        }
        let outputs = try reader.count(minimumSize: 41)
        for _ in 0..<outputs {
            _ = try reader.bytesField()
            try reader.skip(36)  // digest, permissions
            _ = try reader.status()
        }
        _ = try reader.bytesField()  // value
        for _ in 0..<(try reader.count(minimumSize: 36)) {
            _ = try reader.bytesField()
            try reader.skip(32)
        }
        return files + outputs
    }

    private static func readFiles(_ reader: inout BinaryReader) throws(BinaryReader.Truncated)
        -> [Source]
    {
        var files: [Source] = []
        for _ in 0..<(try reader.count(minimumSize: 38)) {
            let path = try reader.string()
            let present = try reader.bool()
            let digest = try reader.digest()
            files.append(
                Source(path: path, digest: present ? digest : nil, status: try reader.status()))
        }
        return files
    }
}

extension StepRecord {
    /// Whether `other` has the same inputs: definition, environment, directory, wired values
    /// and sources' contents.
    func hasInputs(of other: StepRecord) -> Bool {
        definition == other.definition && environment == other.environment
            && directory == other.directory && inputs == other.inputs
            && Self.sameContents(sources, other.sources)
    }

    /// Whether two runs are the same but for the files' statuses.
    func isSameRun(as other: StepRecord) -> Bool {
        hasInputs(of: other) && Self.sameContents(discovered, other.discovered)
            && outputs.count == other.outputs.count
            && zip(outputs, other.outputs).allSatisfy {
                $0.path == $1.path && $0.digest == $1.digest && $0.permissions == $1.permissions
            } && value == other.value
    }

    private static func sameContents(_ first: [Source], _ second: [Source]) -> Bool {
        first.count == second.count
            && zip(first, second).allSatisfy { $0.path == $1.path && $0.digest == $1.digest }
    }
}
