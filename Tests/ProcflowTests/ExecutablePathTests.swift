import Foundation
import Testing

@testable import Procflow

@Suite("Finding a command in PATH")
struct ExecutablePathTests {
    /// A directory with `bin/tool` (executable), `plain/tool` (not executable), `dir/tool` (a
    /// directory) and `./tool` (executable).
    private static func layout() throws -> String {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("procflow-path-\(UUID().uuidString)").path
        let manager = FileManager.default
        for folder in ["bin", "plain", "dir/tool"] {
            try manager.createDirectory(
                atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        for (file, mode) in [("bin/tool", 0o755), ("plain/tool", 0o644), ("tool", 0o755)] {
            _ = manager.createFile(
                atPath: root + "/" + file, contents: Data("#!/bin/sh\n".utf8),
                attributes: [.posixPermissions: mode])
        }
        return root
    }

    @Test func theFirstExecutableRegularFileIsTakenAsExecvpTakesIt() throws {
        let root = try Self.layout()
        defer { try? FileManager.default.removeItem(atPath: root) }
        func find(_ path: String?) -> String? {
            executablePath(for: "tool", searchPath: path, in: root)
        }
        // Not executable, then a directory: both passed over.
        #expect(find("\(root)/plain:\(root)/dir:\(root)/bin") == "\(root)/bin/tool")
        // Relative entries start from the directory; an empty one is it.
        #expect(find("plain:bin") == "\(root)/bin/tool")
        #expect(find("plain::bin") == "\(root)/./tool")
        #expect(find("plain:") == "\(root)/./tool")
        #expect(find(":bin") == "\(root)/./tool")
        #expect(find("plain:dir") == nil)
        #expect(find("") == "\(root)/./tool")
        // Names that are not ASCII split at the colons alike.
        #expect(find("/nowhere/é:\(root)/bin") == "\(root)/bin/tool")
        // No PATH: /bin and /usr/bin.
        #expect(executablePath(for: "sh", searchPath: nil, in: nil) != nil)
    }
}
