/// Appends the fields of the cache's files: little-endian integers, length-prefixed bytes.
struct BinaryWriter {
    private(set) var bytes: [UInt8] = []

    init() {}

    /// A writer with room for about `capacity` bytes: one allocation for what it writes, not
    /// one each time it doubles.
    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// What it wrote, handed over without a copy: the writer is done.
    consuming func finished() -> [UInt8] {
        bytes
    }

    /// How many bytes it holds.
    var count: Int { bytes.count }

    /// Hands what it wrote to `take`, and starts again in the same room: a large file is
    /// encoded and written a piece at a time.
    mutating func drain<E: Error>(_ take: (UnsafeRawBufferPointer) throws(E) -> Void) throws(E) {
        var failure: E?
        bytes.withUnsafeBytes { buffer in
            do throws(E) {
                try take(buffer)
            } catch {
                failure = error
            }
        }
        bytes.removeAll(keepingCapacity: true)
        if let failure { throw failure }
    }

    mutating func write(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func write(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func write(_ value: Int64) {
        write(UInt64(bitPattern: value))
    }

    mutating func write(_ value: Bool) {
        bytes.append(value ? 1 : 0)
    }

    /// Its four words, in one append (a state file holds one or two for every file).
    mutating func write(_ digest: Digest) {
        let words = (
            digest.words.0.littleEndian, digest.words.1.littleEndian,
            digest.words.2.littleEndian, digest.words.3.littleEndian
        )
        withUnsafeBytes(of: words) { bytes.append(contentsOf: $0) }
    }

    /// A status or its absence; a status's fields in one append.
    mutating func write(_ status: FileStatus?) {
        write(status != nil)
        guard let status else { return }
        let fields = (
            UInt64(bitPattern: status.size).littleEndian,
            UInt64(bitPattern: status.modified).littleEndian,
            UInt64(bitPattern: status.changed).littleEndian, status.inode.littleEndian
        )
        withUnsafeBytes(of: fields) { bytes.append(contentsOf: $0) }
        write(status.mode)
    }

    mutating func write(_ text: String) {
        var text = text
        text.withUTF8 { write(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// A list of texts: its count, then each (``BinaryReader/strings()`` reads it).
    mutating func write(strings texts: [String]) {
        write(UInt32(texts.count))
        for text in texts { write(text) }
    }

    mutating func write(bytes data: UnsafeRawBufferPointer) {
        write(UInt32(data.count))
        bytes.append(contentsOf: data)
    }

    mutating func write(bytes data: [UInt8]) {
        data.withUnsafeBytes { write(bytes: $0) }
    }
}

/// Reads what a ``BinaryWriter`` wrote; every read checks that the bytes are there.
struct BinaryReader {
    /// The data ended before a field did.
    struct Truncated: Error {}

    private let bytes: UnsafeRawBufferPointer
    private var position: Int

    init(_ bytes: UnsafeRawBufferPointer, from position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    var isAtEnd: Bool { position == bytes.count }

    /// How far into `whole` it has read, where its bytes are a part of `whole`'s.
    func offset(in whole: UnsafeRawBufferPointer) -> Int {
        guard let start = bytes.baseAddress, let wholeStart = whole.baseAddress else {
            return position
        }
        return start - wholeStart + position
    }

    /// Passes over what is left: a reader that found what it needed early.
    mutating func skipRest() {
        position = bytes.count
    }

    private mutating func take(_ count: Int) throws(Truncated) -> UnsafeRawBufferPointer {
        guard count >= 0, bytes.count - position >= count else { throw Truncated() }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<position + count])
    }

    mutating func uint32() throws(Truncated) -> UInt32 {
        UInt32(littleEndian: try take(4).loadUnaligned(as: UInt32.self))
    }

    mutating func uint64() throws(Truncated) -> UInt64 {
        UInt64(littleEndian: try take(8).loadUnaligned(as: UInt64.self))
    }

    mutating func int64() throws(Truncated) -> Int64 {
        Int64(bitPattern: try uint64())
    }

    mutating func bool() throws(Truncated) -> Bool {
        try take(1)[0] != 0
    }

    mutating func digest() throws(Truncated) -> Digest {
        Digest(try uint64(), try uint64(), try uint64(), try uint64())
    }

    mutating func status() throws(Truncated) -> FileStatus? {
        guard try bool() else { return nil }
        return FileStatus(
            size: try int64(), modified: try int64(), changed: try int64(), inode: try uint64(),
            mode: try uint32())
    }

    mutating func string() throws(Truncated) -> String {
        String(decoding: try bytesField(), as: UTF8.self)
    }

    /// A list of texts as ``BinaryWriter/write(strings:)`` writes it.
    mutating func strings() throws(Truncated) -> [String] {
        var texts: [String] = []
        for _ in 0..<(try count(minimumSize: 4)) { texts.append(try string()) }
        return texts
    }

    /// A list of texts as ``strings()`` reads it; `previous` itself, shared rather than made
    /// again, when the list holds the same texts (the path of each step in a group).
    mutating func strings(sameAs previous: [String]) throws(Truncated) -> [String] {
        var ahead = self
        if try ahead.count(minimumSize: 4) == previous.count {
            var same = true
            for text in previous where same {
                let field = try ahead.bytesField()
                same =
                    text.utf8.withContiguousStorageIfAvailable {
                        $0.count == field.count && $0.elementsEqual(field)
                    } ?? text.utf8.elementsEqual(field)
            }
            if same {
                self = ahead
                return previous
            }
        }
        return try strings()
    }

    /// Passes over `count` bytes.
    mutating func skip(_ count: Int) throws(Truncated) {
        _ = try take(count)
    }

    mutating func bytesField() throws(Truncated) -> UnsafeRawBufferPointer {
        try take(Int(try uint32()))
    }

    /// A count of items that each take at least `minimumSize` bytes, checked against what is
    /// left so that a damaged count cannot ask for a huge allocation.
    mutating func count(minimumSize: Int) throws(Truncated) -> Int {
        let count = Int(try uint32())
        guard count * max(minimumSize, 1) <= bytes.count - position else { throw Truncated() }
        return count
    }
}

/// A fast 64-bit checksum of the cache's files, to find damage (a torn or altered file), not
/// tampering.
enum Checksum {
    static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var stream = Stream(length: bytes.count)
        stream.add(bytes)
        return stream.finished()
    }

    /// The checksum of bytes given in pieces of any length, whose total length is known
    /// before the first: it seeds the checksum.
    struct Stream {
        private static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        private var hash: UInt64
        /// The bytes of a word not yet whole, in its low bytes, and how many there are.
        private var pending: UInt64 = 0
        private var pendingCount = 0

        init(length: Int) {
            hash = 0xCBF2_9CE4_8422_2325 ^ (UInt64(length) &* Self.multiplier)
        }

        mutating func add(_ bytes: UnsafeRawBufferPointer) {
            var index = 0
            while pendingCount > 0, pendingCount < 8, index < bytes.count {
                pending |= UInt64(bytes[index]) << (8 * UInt64(pendingCount))
                pendingCount += 1
                index += 1
            }
            if pendingCount == 8 {
                mix(pending)
                (pending, pendingCount) = (0, 0)
            }
            while index + 8 <= bytes.count {
                mix(
                    UInt64(
                        littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
                index += 8
            }
            while index < bytes.count {
                pending |= UInt64(bytes[index]) << (8 * UInt64(pendingCount))
                pendingCount += 1
                index += 1
            }
        }

        private mutating func mix(_ word: UInt64) {
            let mixed = hash ^ (word &* Self.multiplier)
            hash = (mixed &<< 29 | mixed &>> 35) &* 0xBF58_476D_1CE4_E5B9
        }

        /// The checksum: the bytes after the last whole word are mixed in one at a time.
        consuming func finished() -> UInt64 {
            for byte in 0..<pendingCount {
                hash = (hash ^ ((pending >> (8 * UInt64(byte))) & 0xFF)) &* 0x100_0000_01B3
            }
            // The final mix of SplitMix64, so that every input bit reaches every output bit.
            hash = (hash ^ (hash >> 30)) &* 0xBF58_476D_1CE4_E5B9
            hash = (hash ^ (hash >> 27)) &* 0x94D0_49BB_1331_11EB
            return hash ^ (hash >> 31)
        }
    }
}
