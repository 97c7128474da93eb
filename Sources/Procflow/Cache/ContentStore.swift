#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Files by the digest of their content: `objects/abcdef…` in the state directory. What a
/// step generated goes in after it runs, so that it can be put back without running the step
/// again. The objects share one directory: a directory per first two digits would cost a
/// `mkdir` for each of the first few hundred objects, and the file systems procflow runs on
/// index large directories.
///
/// Objects are private to the user (0600): a restored file gets the permissions its run
/// recorded. An object is written to a temporary file and renamed into place, so that it is whole or
/// absent; two runs storing the same content write the same name. An object is checked
/// against its name each time it is read, so that a damaged one is never restored.
struct ContentStore: Sendable {
    /// `objects` in the state directory.
    let directory: String
    /// Where objects are written before they are renamed into place.
    let temporaryDirectory: String

    private static let chunkSize = 1 << 16

    /// Where the object of `digest` is.
    func path(of digest: Digest) -> String {
        "\(directory)/\(digest.hex)"
    }

    func contains(_ digest: Digest) -> Bool {
        FileSystem.exists(path(of: digest))
    }

    /// The digest of the file at `path`, and its status before it was read.
    struct Stored {
        var digest: Digest
        var status: FileStatus
        /// Whether the file's status was the same after it was read: if not, it changed
        /// while it was read, and the digest may be of neither version.
        var isSteady: Bool
        /// The bytes added to the store: 0 if its content was there already.
        var added: Int64 = 0
    }

    /// The digest of the file at `path` as a record holds a source's: `nil` when there is no
    /// file, the same digest for every directory, ``Digest/unknown`` for a file that cannot be
    /// read. The file is read in chunks, whatever its size.
    static func digest(ofFileAt path: String) -> Digest? {
        guard let status = FileSystem.status(path) else { return nil }
        if status.isDirectory { return FileDigests.directoryDigest }
        let reader = ContentStore(directory: "", temporaryDirectory: "")
        return (try? reader.add(fileAt: path, store: false))?.digest ?? .unknown
    }

    /// Reads the file at `path`, storing its content unless `store` is false.
    ///
    /// - Throws: a ``CacheProblem`` when the file cannot be read or the object not written.
    func add(fileAt path: String, store: Bool = true) throws(CacheProblem) -> Stored {
        let (input, before) = try openToRead(path)
        defer { close(input) }
        var temporary: (path: String, descriptor: Int32)?
        if store { temporary = try makeTemporary() }
        defer {
            if let temporary {
                close(temporary.descriptor)
                unlink(temporary.path)
            }
        }
        var hasher = SHA256()
        try copy(from: input, path: path, to: temporary?.descriptor, hashing: &hasher)
        let digest = hasher.finalize()
        let after = FileSystem.status(descriptor: input)
        let stored = Stored(
            digest: digest, status: before, isSteady: after.map(before.looksUnchanged) ?? false)
        guard let temporary else { return stored }
        let destination = self.path(of: digest)
        if FileSystem.exists(destination) {
            touch(destination)
            return stored
        }
        guard POSIXIO.makeDirectories(directory, mode: StateDirectory.directoryMode),
            rename(temporary.path, destination) == 0
        else {
            throw problem("cannot store \(path) in \(directory)")
        }
        var added = stored
        added.added = before.size
        return added
    }

    /// The sizes of the files whose content a run keeps to store beside it
    /// (``readKeepingContent(fileAt:upTo:)``): a smaller one is stored at once, for less than
    /// handing it over costs; a larger one is not held in memory.
    static let keptSizes = (32 << 10)...(256 << 10)

    /// Reads the file at `path` as ``add(fileAt:store:)`` does without storing it, keeping its
    /// content, to be stored later (``add(_:as:)``) as what was read and hashed whatever
    /// happens to the file meanwhile; `nil` for a file of more than `limit` bytes, left unread.
    ///
    /// - Throws: a ``CacheProblem`` when the file cannot be read.
    func readKeepingContent(fileAt path: String, upTo limit: Int = keptSizes.upperBound)
        throws(CacheProblem)
        -> (stored: Stored, content: [UInt8])?
    {
        let (input, before) = try openToRead(path)
        defer { close(input) }
        guard before.size <= limit else { return nil }
        // A byte more than its size: a file grown since shows, and is not steady.
        let room = Int(before.size) + 1
        var failed = false
        var content = [UInt8](unsafeUninitializedCapacity: room) { buffer, count in
            while count < room {
                let read = Glibc.read(input, buffer.baseAddress! + count, room - count)
                if read < 0, errno == EINTR { continue }
                if read <= 0 {
                    failed = read < 0
                    return
                }
                count += read
            }
        }
        if failed { throw problem("cannot read \(path)") }
        let whole = content.count < room
        if !whole { content.removeLast() }
        var hasher = SHA256()
        content.withUnsafeBytes { hasher.update($0) }
        let after = FileSystem.status(descriptor: input)
        let steady = whole && (after.map(before.looksUnchanged) ?? false)
        return (Stored(digest: hasher.finalize(), status: before, isSteady: steady), content)
    }

    /// Stores `content`, read earlier and hashed to `digest`, as the object `digest`; an
    /// object there already is marked as used.
    ///
    /// - Returns: the bytes added to the store: 0 if the object was there.
    /// - Throws: a ``CacheProblem`` when the object cannot be written.
    func add(_ content: [UInt8], as digest: Digest) throws(CacheProblem) -> Int64 {
        let destination = self.path(of: digest)
        if FileSystem.exists(destination) {
            touch(destination)
            return 0
        }
        let temporary = try makeTemporary()
        defer {
            close(temporary.descriptor)
            unlink(temporary.path)
        }
        let failure = content.withUnsafeBytes { bytes -> POSIXIO.Failure? in
            do throws(POSIXIO.Failure) {
                try POSIXIO.write(bytes, to: temporary.descriptor)
                return nil
            } catch {
                return error
            }
        }
        if let failure {
            throw CacheProblem(message: "cannot write \(temporary.path): \(failure.message)")
        }
        guard POSIXIO.makeDirectories(directory, mode: StateDirectory.directoryMode),
            rename(temporary.path, destination) == 0
        else {
            throw problem("cannot store \(digest.hex) in \(directory)")
        }
        return Int64(content.count)
    }

    /// Opens the file at `path` to read it, and its status then: not a directory.
    private func openToRead(_ path: String) throws(CacheProblem) -> (Int32, FileStatus) {
        let input = open(path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw problem("cannot read \(path)") }
        guard let status = FileSystem.status(descriptor: input) else {
            let failure = problem("cannot read \(path)")
            close(input)
            throw failure
        }
        guard !status.isDirectory else {
            close(input)
            throw CacheProblem(message: "\(path) is a directory")
        }
        return (input, status)
    }

    /// Writes the object of `digest` to `path` (a temporary file renamed over it), with
    /// `permissions`.
    ///
    /// - Throws: a ``CacheProblem`` when the object is missing or damaged (a damaged object is
    ///   removed), or `path` cannot be written.
    func restore(_ digest: Digest, to path: String, permissions: UInt32) throws(CacheProblem) {
        let source = self.path(of: digest)
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw problem("cannot read \(source)") }
        defer { close(input) }
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        guard POSIXIO.makeDirectories(folder) else {
            throw problem("cannot create the directory \(folder)")
        }
        let temporary =
            "\(folder)/.\(path.split(separator: "/").last ?? "").procflow-\(UInt32.random(in: 0...UInt32.max))"
        let output = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw problem("cannot write \(path)") }
        var hasher = SHA256()
        do {
            try copy(from: input, path: source, to: output, hashing: &hasher)
        } catch {
            close(output)
            unlink(temporary)
            throw error
        }
        fchmod(output, mode_t(permissions))
        close(output)
        guard hasher.finalize() == digest else {
            unlink(temporary)
            unlink(source)
            throw CacheProblem(message: "the stored copy of \(path) was damaged")
        }
        guard rename(temporary, path) == 0 else {
            let failure = problem("cannot write \(path)")
            unlink(temporary)
            throw failure
        }
        touch(source)
    }

    /// Keeps the content `digest` that `fill` writes to an open file: checked against its
    /// digest before it is renamed into place, so that what another machine sent is kept only
    /// if it is what it says.
    ///
    /// - Returns: whether the content is kept now: false if `fill` failed.
    /// - Throws: a ``CacheProblem`` when the content is not what `digest` says, or cannot be
    ///   written.
    func receive(_ digest: Digest, fill: (Int32) -> Bool) throws(CacheProblem) -> Bool {
        let temporary = try makeTemporary()
        defer { unlink(temporary.path) }
        let filled = fill(temporary.descriptor)
        close(temporary.descriptor)
        guard filled else { return false }
        let input = open(temporary.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw problem("cannot read \(temporary.path)") }
        defer { close(input) }
        var hasher = SHA256()
        try copy(from: input, path: temporary.path, to: nil, hashing: &hasher)
        guard hasher.finalize() == digest else {
            throw CacheProblem(
                message: "the content sent for \(digest.hex) is not what its digest says")
        }
        guard POSIXIO.makeDirectories(directory, mode: StateDirectory.directoryMode),
            rename(temporary.path, path(of: digest)) == 0
        else { throw problem("cannot store \(digest.hex) in \(directory)") }
        return true
    }

    /// Marks an object as just used, for pruning the least recently used first.
    private func touch(_ path: String) {
        utimensat(AT_FDCWD, path, nil, 0)
    }

    private func makeTemporary() throws(CacheProblem) -> (path: String, descriptor: Int32) {
        guard POSIXIO.makeDirectories(temporaryDirectory, mode: StateDirectory.directoryMode)
        else {
            throw problem("cannot create \(temporaryDirectory)")
        }
        let path = "\(temporaryDirectory)/\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let descriptor = open(
            path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, StateDirectory.fileMode)
        guard descriptor >= 0 else { throw problem("cannot write in \(temporaryDirectory)") }
        return (path, descriptor)
    }

    /// Copies `input` to the end into `output` (if any), hashing what it reads.
    private func copy(
        from input: Int32, path: String, to output: Int32?, hashing hasher: inout SHA256
    ) throws(CacheProblem) {
        let chunk = UnsafeMutableRawBufferPointer.allocate(
            byteCount: Self.chunkSize, alignment: 8)
        defer { chunk.deallocate() }
        while true {
            let count = read(input, chunk.baseAddress, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw problem("cannot read \(path)")
            }
            if count == 0 { return }
            let filled = UnsafeRawBufferPointer(rebasing: chunk[0..<count])
            hasher.update(filled)
            if let output {
                do throws(POSIXIO.Failure) {
                    try POSIXIO.write(filled, to: output)
                } catch {
                    throw CacheProblem(message: "cannot write a copy of \(path): \(error.message)")
                }
            }
        }
    }

    private func problem(_ what: String) -> CacheProblem {
        CacheProblem(message: "\(what): \(String(cString: strerror(errno)))")
    }
}
