#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The envelope of every file procflow keeps in a state directory: what it is, the format's
/// version, and a checksum of the rest, so that a torn, altered or foreign file is noticed
/// and set aside rather than believed.
enum StateFile {
    /// What a file holds.
    enum Kind: UInt64 {
        /// A workflow's ``StateIndex``: "PFINDEX\0".
        case index = 0x0058_4544_4E49_4650
        /// The ``StepRecord``s of one key: "PFHIST\0\0".
        case history = 0x0000_5453_4948_4650
        /// An ``UpToDateSnapshot``: "PFSNAP\0\0".
        case snapshot = 0x0000_5041_4E53_4650
        /// A ``StepDurationsFile``: "PFDURS\0\0".
        case durations = 0x0000_5352_5544_4650
        /// A ``WorkflowPlan``: "PFPLAN\0\0".
        case plan = 0x0000_4E41_4C50_4650
    }

    /// The format version this procflow reads and writes (the index's own is
    /// ``StateIndex/appendableVersion``, and it reads this one too).
    /// 2: records keep the digest of each entry of their environment.
    static let version: UInt32 = 2

    /// Why a file's content cannot be used.
    enum Problem: Error, Equatable, CustomStringConvertible {
        /// Written by a procflow with another format: the file's version, and the one this
        /// procflow reads and writes for files of its kind.
        case foreignVersion(UInt32, reads: UInt32 = StateFile.version)
        /// Not a file of this kind, or altered since it was written.
        case damaged(String)

        var description: String {
            switch self {
            case .foreignVersion(let version, let reads):
                return "it has format version \(version), and this procflow reads \(reads)"
            case .damaged(let reason): return "it is damaged (\(reason))"
            }
        }
    }

    private static let headerSize = 20

    /// How many bytes the envelope puts before a body, at most: a writer of a body with this
    /// much more capacity is wrapped in place.
    static let envelopeSize = headerSize + 8

    /// `body` in its envelope. The header is put in front of the body in its own buffer,
    /// without a copy of the body in another, if it has the room (``envelopeSize``) and
    /// nothing else holds it: a large index, plan or snapshot is not held twice while it is
    /// written.
    static func wrap(_ body: consuming [UInt8], as kind: Kind) -> [UInt8] {
        let header = header(
            kind, version: version, checksum: body.withUnsafeBytes { Checksum.of($0) },
            length: nil)
        var bytes = body
        bytes.insert(contentsOf: header, at: 0)
        return bytes
    }

    /// The header before a body whose checksum is `checksum`: with the body's `length` for a
    /// file that entries are appended to.
    private static func header(_ kind: Kind, version: UInt32, checksum: UInt64, length: Int?)
        -> [UInt8]
    {
        var writer = BinaryWriter()
        writer.write(kind.rawValue)
        writer.write(version)
        writer.write(checksum)
        if let length { writer.write(UInt64(length)) }
        return writer.finished()
    }

    /// About how many bytes of a large file are encoded before they are written, by
    /// ``write(_:version:appendable:to:piece:encode:)``.
    static let piece = 256 << 10

    /// Writes a file of `kind` and `version` whose body `encode` writes, to `descriptor` (a
    /// new file), without holding the body whole: `encode` writes into the writer it is given
    /// and calls `pause` with it between records, where what it holds is written once it
    /// passes `piece` bytes. A body larger than a piece is encoded twice (the checksum in the
    /// header is seeded by its length), so `encode` must write the same bytes each time; the
    /// header, as ``wrap(_:as:)`` or (`appendable`) ``wrapAppendable(_:as:version:)`` makes
    /// it, is written last.
    ///
    /// - Returns: how many bytes it wrote.
    static func write(
        _ kind: Kind, version: UInt32, appendable: Bool, to descriptor: Int32, piece: Int,
        encode: (inout BinaryWriter, _ pause: (inout BinaryWriter) -> Void) -> Void
    ) throws(POSIXIO.Failure) -> Int {
        var writer = BinaryWriter(capacity: piece + 4096)
        var length = 0
        var inPieces = false
        func count(_ writer: inout BinaryWriter) {
            length += writer.count
            inPieces = true
            writer.drain { _ in }
        }
        encode(&writer) { if $0.count >= piece { count(&$0) } }
        // A body within one piece is whole in the writer: it is not encoded again.
        if inPieces { count(&writer) } else { length = writer.count }
        let headerLength = appendable ? envelopeSize : headerSize
        guard lseek(descriptor, off_t(headerLength), SEEK_SET) >= 0 else { throw .current }
        var checksum = Checksum.Stream(length: length)
        var failure: POSIXIO.Failure?
        func emit(_ writer: inout BinaryWriter) {
            writer.drain { buffer in
                checksum.add(buffer)
                guard failure == nil else { return }
                do throws(POSIXIO.Failure) {
                    try POSIXIO.write(buffer, to: descriptor)
                } catch {
                    failure = error
                }
            }
        }
        if inPieces { encode(&writer) { if $0.count >= piece { emit(&$0) } } }
        emit(&writer)
        if let failure { throw failure }
        let bytes = header(
            kind, version: version, checksum: checksum.finished(),
            length: appendable ? length : nil)
        precondition(bytes.count == headerLength)
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        guard written == bytes.count else {
            throw written < 0 ? .current : POSIXIO.Failure(message: "a short write")
        }
        return headerLength + length
    }

    /// Calls `read` with the body of `bytes`, checked.
    ///
    /// - Throws: a ``Problem`` when the envelope is wrong, or when `read` finds the body
    ///   truncated.
    static func unwrap<T>(
        _ bytes: [UInt8], as kind: Kind,
        _ read: (inout BinaryReader) throws(BinaryReader.Truncated) -> T
    ) throws(Problem) -> T {
        // An optional and the problem beside it, not a `Result`: the runtime's first lookup of
        // a `Result` of a new error type costs a quarter of a million instructions.
        var problem = Problem.damaged("not a procflow state file")
        let value = bytes.withUnsafeBytes { buffer -> T? in
            var reader = BinaryReader(buffer)
            guard buffer.count >= headerSize, let magic = try? reader.uint64(),
                magic == kind.rawValue
            else { return nil }
            let found = try! reader.uint32()
            guard found == version else {
                problem = .foreignVersion(found)
                return nil
            }
            let checksum = try! reader.uint64()
            let body = UnsafeRawBufferPointer(rebasing: buffer[headerSize...])
            guard Checksum.of(body) == checksum else {
                problem = .damaged("its checksum is wrong")
                return nil
            }
            var bodyReader = BinaryReader(body)
            guard let value = try? read(&bodyReader), bodyReader.isAtEnd else {
                problem = .damaged("its content ends early or late")
                return nil
            }
            return value
        }
        guard let value else { throw problem }
        return value
    }

    // MARK: - Files that entries are appended to

    /// How a file that entries are appended to was laid out when it was read.
    struct Layout: Sendable, Equatable {
        /// The length of the base, the whole file's header included.
        var baseLength = 0
        /// The length of the entries after the base.
        var appendedLength = 0
        /// Whether an entry can be appended: the file has the appendable layout and ends with a
        /// whole entry (a torn one would hide every entry after it).
        var isAppendable = false
    }

    /// `body` as the base of a file that entries are appended to: the header (with
    /// `version`), the body's length, the body; in place, as ``wrap(_:as:)`` does.
    static func wrapAppendable(_ body: consuming [UInt8], as kind: Kind, version: UInt32)
        -> [UInt8]
    {
        let header = header(
            kind, version: version, checksum: body.withUnsafeBytes { Checksum.of($0) },
            length: body.count)
        var bytes = body
        bytes.insert(contentsOf: header, at: 0)
        return bytes
    }

    /// `body` as an entry to append: its length, its checksum, itself.
    static func appendedEntry(_ body: [UInt8]) -> [UInt8] {
        var writer = BinaryWriter(capacity: 12 + body.count)
        writer.write(UInt32(body.count))
        writer.write(body.withUnsafeBytes { Checksum.of($0) })
        var bytes = writer.bytes
        bytes.append(contentsOf: body)
        return bytes
    }

    /// Reads a file that entries are appended to: `read` reads the base, checked, and `apply`
    /// each whole entry in turn, up to the first that is not (torn, or being written). A file
    /// of ``version``, written whole before entries were appended, is read as a base alone.
    ///
    /// `apply` must change nothing unless it read its entry to the end.
    ///
    /// - Throws: a ``Problem`` when the base's envelope is wrong, or when `read` finds the
    ///   base truncated.
    static func unwrapAppendable<T>(
        _ bytes: [UInt8], as kind: Kind, version appendable: UInt32,
        _ read: (inout BinaryReader) throws(BinaryReader.Truncated) -> T,
        applying apply: (inout T, inout BinaryReader) throws(BinaryReader.Truncated) -> Void
    ) throws(Problem) -> (T, Layout) {
        let found = bytes.withUnsafeBytes { buffer -> (magic: UInt64, version: UInt32)? in
            var reader = BinaryReader(buffer)
            guard buffer.count >= headerSize, let magic = try? reader.uint64(),
                let version = try? reader.uint32()
            else { return nil }
            return (magic, version)
        }
        if let found, found.magic == kind.rawValue, found.version == version {
            let value = try unwrap(bytes, as: kind, read)
            return (value, Layout(baseLength: bytes.count))
        }
        guard let found, found.magic == kind.rawValue else {
            throw Problem.damaged("not a procflow state file")
        }
        guard found.version == appendable else {
            throw Problem.foreignVersion(found.version, reads: appendable)
        }
        var problem = Problem.damaged("its content ends early or late")
        let result = bytes.withUnsafeBytes { buffer -> (T, Layout)? in
            var header = BinaryReader(buffer, from: 12)
            let checksum = try! header.uint64()
            guard let length = try? header.uint64(), length <= UInt64(buffer.count - headerSize - 8)
            else { return nil }
            let baseEnd = headerSize + 8 + Int(length)
            let body = UnsafeRawBufferPointer(rebasing: buffer[(headerSize + 8)..<baseEnd])
            guard Checksum.of(body) == checksum else {
                problem = .damaged("its checksum is wrong")
                return nil
            }
            var bodyReader = BinaryReader(body)
            guard var value = try? read(&bodyReader), bodyReader.isAtEnd else { return nil }
            var end = baseEnd
            while buffer.count - end >= 12 {
                var entryHeader = BinaryReader(buffer, from: end)
                let entryLength = Int(try! entryHeader.uint32())
                let entryChecksum = try! entryHeader.uint64()
                guard entryLength <= buffer.count - end - 12 else { break }
                let entry = UnsafeRawBufferPointer(
                    rebasing: buffer[(end + 12)..<(end + 12 + entryLength)])
                guard Checksum.of(entry) == entryChecksum else { break }
                var entryReader = BinaryReader(entry)
                guard (try? apply(&value, &entryReader)) != nil else { break }
                end += 12 + entryLength
            }
            return (
                value,
                Layout(
                    baseLength: baseEnd, appendedLength: end - baseEnd,
                    isAppendable: end == buffer.count)
            )
        }
        guard let result else { throw problem }
        return result
    }
}
