import CProcflow

/// SHA-256 (FIPS 180-4), written here because procflow takes no package dependencies: the
/// digest of file contents and of what goes into a step. The compression function is C
/// (`SHA256Blocks.c`), on the CPU's SHA extensions where it has them.
///
/// Feed it with ``update(_:)-(UnsafeRawBufferPointer)`` as often as needed, then read
/// ``finalize()``. It is a value: copying a hasher forks the computation.
struct SHA256 {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a,
        0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    /// Bytes waiting for a whole 64-byte block.
    private var pending: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (
        0, 0, 0, 0, 0, 0, 0, 0
    )
    private var pendingCount = 0
    private var length: UInt64 = 0

    /// A hasher that has read nothing yet.
    init() {}

    /// The digest of `bytes`.
    static func hash(_ bytes: some Collection<UInt8>) -> Digest {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Reads `bytes`.
    mutating func update(_ bytes: some Collection<UInt8>) {
        if let done = bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }
        ) {
            return done
        }
        update(Array(bytes))
    }

    /// Reads the UTF-8 bytes of `text`.
    mutating func update(_ text: String) {
        var text = text
        text.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    /// Reads `buffer`.
    mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard var input = buffer.baseAddress, buffer.count > 0 else { return }
        var remaining = buffer.count
        length &+= UInt64(remaining)
        if pendingCount > 0 {
            let taken = min(64 - pendingCount, remaining)
            withUnsafeMutableBytes(of: &pending) {
                $0.baseAddress!.advanced(by: pendingCount).copyMemory(from: input, byteCount: taken)
            }
            pendingCount += taken
            input += taken
            remaining -= taken
            guard pendingCount == 64 else { return }
            var block = pending
            withUnsafeBytes(of: &block) { compress($0.baseAddress!, blocks: 1) }
            pendingCount = 0
        }
        let whole = remaining / 64
        if whole > 0 {
            compress(input, blocks: whole)
            input += whole * 64
            remaining -= whole * 64
        }
        if remaining > 0 {
            withUnsafeMutableBytes(of: &pending) {
                $0.baseAddress!.copyMemory(from: input, byteCount: remaining)
            }
            pendingCount = remaining
        }
    }

    /// The digest of everything read.
    func finalize() -> Digest {
        var copy = self
        let bits = length &* 8
        // 0x80, zeros up to 56 bytes into a block, then the length in bits, big-endian.
        let zeros = (pendingCount < 56 ? 55 : 119) - pendingCount
        var tail = [UInt8](repeating: 0, count: 1 + zeros + 8)
        tail[0] = 0x80
        for index in 0..<8 {
            tail[1 + zeros + index] = UInt8(truncatingIfNeeded: bits >> (56 - 8 * index))
        }
        copy.update(tail)
        let state = copy.state
        func pair(_ high: UInt32, _ low: UInt32) -> UInt64 { UInt64(high) << 32 | UInt64(low) }
        return Digest(
            pair(state.0, state.1), pair(state.2, state.3), pair(state.4, state.5),
            pair(state.6, state.7))
    }

    /// Runs the compression function over `blocks` 64-byte blocks at `input`: the C shim's,
    /// on the CPU's SHA extensions where it has them.
    private mutating func compress(_ input: UnsafeRawPointer, blocks: Int) {
        withUnsafeMutableBytes(of: &state) { words in
            procflow_sha256_blocks(
                words.baseAddress!.assumingMemoryBound(to: UInt32.self),
                input.assumingMemoryBound(to: UInt8.self), blocks)
        }
    }
}
