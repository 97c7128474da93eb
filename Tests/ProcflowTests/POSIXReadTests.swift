import Foundation
import Testing

@testable import Procflow

/// `POSIXIO.read` reads a descriptor to its end, or to one byte past a limit, whatever size
/// it was told to expect: the size `fstat` gave can be wrong (a file that grew or shrank since,
/// a pipe, a file of /proc).
@Suite("Reading a descriptor")
struct POSIXReadTests {
    /// `count` bytes of a pattern that shows a misplaced or repeated chunk.
    private func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
    }

    /// Reads `content` through a pipe, written by another thread, telling `read` to expect
    /// `expected` bytes, with `limit`.
    private func readThroughAPipe(_ content: [UInt8], expected: Int, limit: Int = Int.max - 1)
        throws -> [UInt8]
    {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let (reader, writer) = (ends[0], ends[1])
        let written = Thread {
            content.withUnsafeBytes { try? POSIXIO.write($0, to: writer) }
            close(writer)
        }
        written.start()
        defer { close(reader) }
        let read = try POSIXIO.read(reader, expected: expected, limit: limit).get()
        // What is left unread is drained, so that the writer ends (no SIGPIPE).
        var rest = [UInt8](repeating: 0, count: 1 << 16)
        while rest.withUnsafeMutableBytes({ Glibc.read(reader, $0.baseAddress, $0.count) }) > 0 {}
        return read
    }

    @Test(arguments: [
        // (size of the content, size expected)
        (0, 0), (1, 0), (0, 10), (10, 10), (10, 9), (10, 11), (65_536, 65_536),
        (200_000, 100), (200_000, 200_000), (200_000, 300_000), (131_073, 131_072),
    ])
    func readsEverythingWhateverSizeItExpects(size: Int, expected: Int) throws {
        let content = bytes(size)
        #expect(try readThroughAPipe(content, expected: expected) == content)
    }

    @Test(arguments: [
        // (size of the content, size expected, limit): one byte past the limit at most.
        (100, 100, 50), (100, 10, 50), (100, 0, 99), (100, 100, 100), (200_000, 200_000, 70_000),
        (200_000, 10, 70_000),
    ])
    func stopsOneBytePastTheLimit(size: Int, expected: Int, limit: Int) throws {
        let content = bytes(size)
        let read = try readThroughAPipe(content, expected: expected, limit: limit)
        #expect(read == Array(content.prefix(limit + 1)))
    }

    @Test func readsARegularFileOfTheSizeItHas() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.path + "/file"
        let content = bytes(70_000)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(content)))
        #expect(try POSIXIO.readFile(path).get() == content)
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(try POSIXIO.readFile(path).get() == [])
    }
}
