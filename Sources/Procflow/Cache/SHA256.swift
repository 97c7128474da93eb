/// SHA-256 (FIPS 180-4), written here because procflow takes no package dependencies: the
/// digest of file contents and of what goes into a step.
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

    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4,
        0xab1c_5ed5, 0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe,
        0x9bdc_06a7, 0xc19b_f174, 0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f,
        0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da, 0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7,
        0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967, 0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc,
        0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85, 0xa2bf_e8a1, 0xa81a_664b,
        0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070, 0x19a4_c116,
        0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7,
        0xc671_78f2,
    ]

    /// Runs the compression function over `blocks` 64-byte blocks at `input`.
    private mutating func compress(_ input: UnsafeRawPointer, blocks: Int) {
        Self.roundConstants.withUnsafeBufferPointer { constants in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
                var (h0, h1, h2, h3, h4, h5, h6, h7) = state
                for block in 0..<blocks {
                    let base = input + block * 64
                    for index in 0..<16 {
                        schedule[index] = UInt32(
                            bigEndian: base.loadUnaligned(
                                fromByteOffset: index * 4, as: UInt32.self))
                    }
                    for index in 16..<64 {
                        let w15 = schedule[index - 15]
                        let w2 = schedule[index - 2]
                        let s0 = rotate(w15, 7) ^ rotate(w15, 18) ^ (w15 >> 3)
                        let s1 = rotate(w2, 17) ^ rotate(w2, 19) ^ (w2 >> 10)
                        schedule[index] = schedule[index - 16] &+ s0 &+ schedule[index - 7] &+ s1
                    }
                    var (a, b, c, d, e, f, g, h) = (h0, h1, h2, h3, h4, h5, h6, h7)
                    for index in 0..<64 {
                        let s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
                        let choice = (e & f) ^ (~e & g)
                        let t1 = h &+ s1 &+ choice &+ constants[index] &+ schedule[index]
                        let s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
                        let majority = (a & b) ^ (a & c) ^ (b & c)
                        let t2 = s0 &+ majority
                        (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                    }
                    h0 &+= a
                    h1 &+= b
                    h2 &+= c
                    h3 &+= d
                    h4 &+= e
                    h5 &+= f
                    h6 &+= g
                    h7 &+= h
                }
                state = (h0, h1, h2, h3, h4, h5, h6, h7)
            }
        }
    }
}

@inline(__always)
private func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
    (value >> count) | (value << (32 - count))
}
