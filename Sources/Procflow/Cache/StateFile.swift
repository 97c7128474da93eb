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

    /// The format version this procflow reads and writes.
    /// 2: records keep the digest of each entry of their environment.
    static let version: UInt32 = 2

    /// Why a file's content cannot be used.
    enum Problem: Error, Equatable, CustomStringConvertible {
        /// Written by a procflow with another format.
        case foreignVersion(UInt32)
        /// Not a file of this kind, or altered since it was written.
        case damaged(String)

        var description: String {
            switch self {
            case .foreignVersion(let version):
                return
                    "it has format version \(version), and this procflow reads \(StateFile.version)"
            case .damaged(let reason): return "it is damaged (\(reason))"
            }
        }
    }

    private static let headerSize = 20

    /// `body` in its envelope.
    static func wrap(_ body: [UInt8], as kind: Kind) -> [UInt8] {
        var writer = BinaryWriter()
        writer.write(kind.rawValue)
        writer.write(version)
        writer.write(body.withUnsafeBytes { Checksum.of($0) })
        return writer.bytes + body
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
}
