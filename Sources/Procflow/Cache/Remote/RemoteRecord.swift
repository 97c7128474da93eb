/// One run of a step as a remote cache keeps it, under the key of its inputs (``StepRecord``'s
/// remote key): what it made, what its depfile named, and its output. Paths are relative to
/// the step's working directory, so that checkouts in different directories share records;
/// a file its depfile named outside the workflow's directory (a system header) keeps its
/// absolute path. The document holds the runs for one key, newest first: the depfile's files
/// decide which one stands on this machine, as ccache's manifests do.
///
/// ```json
/// {"format": "procflow-remote-record", "version": 1, "runs": [
///   {"outputs": [{"path": "obj/lapi.o", "digest": "…", "size": 8120, "mode": 420}],
///    "discovered": [{"path": "src/lapi.h", "digest": "…"}, {"path": "gone.h", "digest": null}],
///    "value": null}]}
/// ```
struct RemoteRecord: Sendable, Equatable {
    /// A file the run made.
    struct Output: Sendable, Equatable {
        var path: String
        var digest: Digest
        var size: Int64
        /// Permission bits.
        var mode: UInt32
    }

    /// A file the run's depfile named, with its content's digest (`nil`: it did not exist).
    struct Discovered: Sendable, Equatable {
        var path: String
        var digest: Digest?
    }

    var outputs: [Output]
    var discovered: [Discovered]
    /// The step's output.
    var value: JSONValue

    /// Why a document is not one procflow may use.
    struct Problem: Error, Sendable {
        let message: String
    }

    static let format = "procflow-remote-record"
    static let version = 1.0
    /// The most runs a document keeps for one key.
    static let runLimit = 8

    /// The document holding `runs`.
    static func document(_ runs: [RemoteRecord]) -> [UInt8] {
        Array(
            JSONWriter.string([
                ("format", .string(format)), ("version", .number(version)),
                ("runs", .array(runs.map(\.json))),
            ]).utf8)
    }

    private var json: JSONValue {
        .object([
            "outputs": .array(
                outputs.map {
                    .object([
                        "path": .string($0.path), "digest": .string($0.digest.hex),
                        "size": .number(Double($0.size)), "mode": .number(Double($0.mode)),
                    ])
                }),
            "discovered": .array(
                discovered.map {
                    .object([
                        "path": .string($0.path),
                        "digest": $0.digest.map { .string($0.hex) } ?? .null,
                    ])
                }),
            "value": value,
        ])
    }

    /// The runs of a document, checked: every path an output names stays inside the
    /// working directory (relative, without `..`).
    ///
    /// - Throws: a ``Problem`` naming what is wrong.
    static func runs(in document: [UInt8]) throws(Problem) -> [RemoteRecord] {
        guard let root = try? JSONParser.parse(document).plain,
            case .object(let fields) = root, fields["format"] == .string(format)
        else { throw Problem(message: "it is not a procflow record") }
        guard fields["version"] == .number(version) else {
            throw Problem(message: "it is of another version of the format")
        }
        guard case .array(let runs) = fields["runs"] ?? .null else {
            throw Problem(message: "it has no runs")
        }
        var result: [RemoteRecord] = []
        for run in runs.prefix(runLimit) { result.append(try RemoteRecord(run)) }
        return result
    }

    private init(_ value: JSONValue) throws(Problem) {
        guard case .object(let fields) = value,
            case .array(let outputs) = fields["outputs"] ?? .null,
            case .array(let discovered) = fields["discovered"] ?? .null
        else { throw Problem(message: "a run lacks its outputs or discovered files") }
        self.outputs = []
        for output in outputs { self.outputs.append(try Self.output(output)) }
        self.discovered = []
        for file in discovered { self.discovered.append(try Self.discovered(file)) }
        self.value = fields["value"] ?? .null
    }

    init(outputs: [Output], discovered: [Discovered], value: JSONValue) {
        self.outputs = outputs
        self.discovered = discovered
        self.value = value
    }

    private static func output(_ value: JSONValue) throws(Problem) -> Output {
        guard case .object(let fields) = value, case .string(let path) = fields["path"] ?? .null,
            case .string(let hex) = fields["digest"] ?? .null, let digest = Digest(hex: hex),
            case .number(let size) = fields["size"] ?? .null, size >= 0, size < 1e15,
            case .number(let mode) = fields["mode"] ?? .null, mode >= 0, mode <= 0o7777
        else { throw Problem(message: "an output is not a path, a digest, a size and a mode") }
        guard isInside(path) else {
            throw Problem(message: "an output's path \(path) leaves the working directory")
        }
        return Output(path: path, digest: digest, size: Int64(size), mode: UInt32(mode) & 0o777)
    }

    private static func discovered(_ value: JSONValue) throws(Problem) -> Discovered {
        guard case .object(let fields) = value, case .string(let path) = fields["path"] ?? .null,
            !path.isEmpty
        else { throw Problem(message: "a discovered file has no path") }
        switch fields["digest"] ?? .null {
        case .null: return Discovered(path: path, digest: nil)
        case .string(let hex):
            guard let digest = Digest(hex: hex) else { break }
            return Discovered(path: path, digest: digest)
        default: break
        }
        throw Problem(message: "a discovered file's digest is not one")
    }

    /// Whether `path` is relative and stays below where it starts: no `..`, no empty or `.`
    /// names.
    static func isInside(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/") else { return false }
        return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy {
            !$0.isEmpty && $0 != "." && $0 != ".."
        }
    }
}
