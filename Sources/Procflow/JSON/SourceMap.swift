import Synchronization

/// The files one workflow was loaded from — the workflow file and the files it includes —
/// laid end to end in one space of byte offsets, so that an offset alone says which file a
/// step, a reference or a value came from, and where in it.
final class SourceMap: @unchecked Sendable {
    // @unchecked Sendable: files are added only by the load that makes the map, before the
    // workflow it belongs to is handed out; afterwards it is only read.

    private final class File: Sendable {
        let name: String
        let base: Int
        /// How many bytes it has.
        let count: Int
        /// Its bytes, and the line index made the first time a location is asked for (a file
        /// that loads without a problem never needs one); `nil` both once let go.
        private let content: Mutex<(bytes: [UInt8], text: SourceText?)?>

        init(name: String, base: Int, bytes: [UInt8]) {
            self.name = name
            self.base = base
            count = bytes.count
            content = Mutex((bytes, nil))
        }

        var bytes: [UInt8]? { content.withLock { $0?.bytes } }

        /// Its text, `nil` once let go.
        var text: SourceText? {
            content.withLock { content in
                guard let held = content else { return nil }
                if let text = held.text { return text }
                let made = SourceText(bytes: held.bytes)
                content = (held.bytes, made)
                return made
            }
        }

        func letGo() {
            content.withLock { $0 = nil }
        }
    }

    private var files: [File] = []
    /// The other files read, absolute: dotenv files, and optional ones found missing.
    private(set) var otherFiles: [String] = []

    /// What the load read of each of ``otherFiles``; `nil` for one it could not read.
    private(set) var otherContents: [[UInt8]?] = []

    /// The names of the workflow files, the loaded one first, as they were given.
    var names: [String] { files.map(\.name) }

    /// The workflow files as the load read them, the loaded one first: each name and bytes
    /// (`nil` once let go: ``letGoOfLargeFiles(over:)``).
    var contents: [(name: String, bytes: [UInt8]?)] { files.map { ($0.name, $0.bytes) } }

    /// Lets go of the bytes of the workflow files larger than `limit` bytes, once nothing will
    /// ask where an offset is (a run, once its workflow is loaded and its plan written): a
    /// 100,000-step file's 15 MB. Its offsets then have no line and column.
    func letGoOfLargeFiles(over limit: Int) {
        for file in files where file.count > limit { file.letGo() }
    }

    /// Notes that the load read (or looked for) `path`, a file that is not a workflow file,
    /// and found `content` there (`nil`: none it could read).
    func noteRead(_ path: String, content: [UInt8]?) {
        otherFiles.append(path)
        otherContents.append(content)
    }

    /// Adds the file `name` with its `bytes`; returns the offset its first byte has.
    func add(_ name: String, _ bytes: [UInt8]) -> Int {
        let base = files.last.map { $0.base + $0.count + 1 } ?? 0
        files.append(File(name: name, base: base, bytes: bytes))
        return base
    }

    /// A part of line `number` of the file named `name` around `column` (see
    /// ``SourceText/excerpt(line:column:radius:)``), if it is one of the files.
    func excerpt(line number: Int, column: Int, in name: String, radius: Int) -> (
        bytes: ArraySlice<UInt8>, column: Int, cutBefore: Bool, cutAfter: Bool
    )? {
        files.first { $0.name == name }?.text?.excerpt(line: number, column: column, radius: radius)
    }

    /// The file `offset` is in, and the line and column there (`nil` in a file let go of).
    func locate(_ offset: Int) -> (file: String, location: SourceLocation?) {
        var low = 0
        var high = files.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if files[middle].base <= offset { low = middle } else { high = middle - 1 }
        }
        let file = files[low]
        return (file.name, file.text?.location(ofOffset: offset - file.base))
    }
}
