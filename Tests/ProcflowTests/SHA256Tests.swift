import CProcflow
import Foundation
import Testing

@testable import Procflow

@Suite("SHA-256")
struct SHA256Tests {

    /// The test vectors of FIPS 180-4's examples and NIST's SHA-256 short messages.
    static let vectors: [(String, String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
        (
            "The quick brown fox jumps over the lazy dog",
            "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592"
        ),
    ]

    @Test(arguments: vectors)
    func knownDigests(message: String, digest: String) {
        #expect(SHA256.hash(Array(message.utf8)).hex == digest)
    }

    @Test func aMillionAs() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(
            SHA256.hash(message).hex
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func messagesAroundTheBlockBoundariesHashTheSameWholeOrInPieces() {
        // Lengths where the padding takes one more block, fed in every split.
        for length in [55, 56, 63, 64, 65, 119, 120, 128] {
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let whole = SHA256.hash(message)
            for split in 0...length {
                var hasher = SHA256()
                hasher.update(message[..<split])
                hasher.update(message[split...])
                #expect(hasher.finalize() == whole, "length \(length), split at \(split)")
            }
        }
    }

    /// Random inputs of random lengths, split at random places, against coreutils' sha256sum.
    @Test func randomInputsHashAsSha256sumDoes() throws {
        var generator = FuzzRandom(state: 0x5A_256)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for round in 0..<24 {
            let length = round < 8 ? round * 9 : Int.random(in: 0...300_000, using: &generator)
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let file = directory.appendingPathComponent("input-\(round)")
            try Data(message).write(to: file)
            let expected = try sha256sum(file).prefix(64)
            var hasher = SHA256()
            let split = Int.random(in: 0...length, using: &generator)
            hasher.update(message[..<split])
            hasher.update(message[split...])
            #expect(hasher.finalize().hex == String(expected), "length \(length), split \(split)")
        }
    }

    /// The SHA-extension path and the portable C path agree on every block they are given.
    @Test func theExtensionAndPortablePathsAgree() {
        var generator = FuzzRandom(state: 0xB10C)
        for blocks in [1, 2, 3, 17, 64] {
            let data = (0..<(blocks * 64)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var fast: [UInt32] = [1, 2, 3, 4, 5, 6, 7, 8].map { $0 &* 0x9E37_79B9 }
            var portable = fast
            procflow_sha256_blocks(&fast, data, blocks)
            procflow_sha256_blocks_portable(&portable, data, blocks)
            #expect(fast == portable, "\(blocks) blocks")
        }
    }

    /// On a CPU with `sha_ni` in /proc/cpuinfo the extensions are used (the speed the
    /// benchmark measures depends on it).
    @Test func theExtensionsAreUsedWhereTheCPUHasThem() throws {
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let hasSHA = cpuinfo.split(separator: "\n").contains {
            $0.hasPrefix("flags") && $0.split(separator: " ").contains("sha_ni")
        }
        #expect((procflow_sha256_uses_extensions() == 1) == hasSHA)
    }

    @Test func digestsReadBackFromHex() {
        let digest = SHA256.hash(Array("abc".utf8))
        #expect(Digest(hex: digest.hex) == digest)
        #expect(Digest(hex: "xyz") == nil)
    }
}

/// What coreutils' sha256sum prints for `file`.
private func sha256sum(_ file: URL) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    process.arguments = [file.path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}
