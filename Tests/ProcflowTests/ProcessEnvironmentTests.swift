import Foundation
import Testing

@testable import Procflow

@Suite("The process's environment")
struct ProcessEnvironmentTests {
    @Test func itIsWhatFoundationReads() {
        #expect(processEnvironment() == ProcessInfo.processInfo.environment)
    }

    @Test func commandsGetProcflowsEnvironmentReadAsFoundationReadsIt() throws {
        let fixture = try WorkflowFixture(
            #"""
            {"procedures": [
              {"id": "show", "kind": "shell", "run": "printf '%s|%s|%s|%s' \"$DUP\" \"$A\" \"$B\" \"$EMPTY\" > seen.txt"}
            ]}
            """#)
        defer { fixture.remove() }
        // A name given twice (the later counts), a value with `=`, one that is not UTF-8
        // (repaired), an empty one.
        let script =
            #"exec env -i PATH="$PATH" DUP=1 DUP=2 'A=a=b' "B=$(printf '\377')" EMPTY= "$0" run flow.json"#
        let result = try runProcflow(
            ["-c", script, procflowBinary.path], in: fixture.directory,
            executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(result.status == 0, "\(result.stderr)")
        let seen = try Data(contentsOf: fixture.directory.appendingPathComponent("seen.txt"))
        #expect(Array(seen) == Array("2|a=b|\u{FFFD}|".utf8))
    }
}
