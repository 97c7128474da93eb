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

    @Test func theHostNameIsWhatFoundationReads() {
        #expect(hostName() == ProcessInfo.processInfo.hostName)
    }

    @Test func theCoreCountIsWhatFoundationReads() {
        // Where neither an affinity mask nor a quota holds the process to fewer cores than
        // the machine has (as here): with either, the two may read them differently.
        let online = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        guard CoreCount.quotaCount() == nil, CoreCount.available == online else { return }
        #expect(CoreCount.available == ProcessInfo.processInfo.activeProcessorCount)
    }

    @Test(
        arguments: [
            ("max 100000\n", nil), ("150000 100000\n", 2), ("50000 100000", 1),
            ("200000 100000\n", 2), ("0 100000", nil), ("x y", nil), ("", nil),
        ] as [(String, Int?)])
    func aCPUMaxLineIsCoresRoundedUp(line: String, cores: Int?) {
        #expect(CoreCount.cores(fromCPUMax: line) == cores)
    }

    @Test func theQuotaIsTheSmallestOfTheGroupAndTheGroupsAroundIt() throws {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("cgroup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let inner = root.appendingPathComponent("outer/inner")
        try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
        func write(_ text: String, _ path: String) throws {
            try Data(text.utf8).write(to: root.appendingPathComponent(path))
        }
        try write("max 100000\n", "outer/inner/cpu.max")
        #expect(CoreCount.quotaCount(cgroupRoot: root.path, membership: "0::/outer/inner\n") == nil)
        try write("300000 100000\n", "outer/cpu.max")
        #expect(CoreCount.quotaCount(cgroupRoot: root.path, membership: "0::/outer/inner\n") == 3)
        try write("150000 100000\n", "outer/inner/cpu.max")
        #expect(CoreCount.quotaCount(cgroupRoot: root.path, membership: "0::/outer/inner\n") == 2)
        // Version 1: the cpu controller's quota and period.
        let v1 = root.appendingPathComponent("cpu")
        try FileManager.default.createDirectory(at: v1, withIntermediateDirectories: true)
        try write("250000\n", "cpu/cpu.cfs_quota_us")
        try write("100000\n", "cpu/cpu.cfs_period_us")
        #expect(CoreCount.quotaCount(cgroupRoot: root.path, membership: "4:cpu:/\n") == 3)
        try write("-1\n", "cpu/cpu.cfs_quota_us")
        #expect(CoreCount.quotaCount(cgroupRoot: root.path, membership: "4:cpu:/\n") == nil)
    }

    @Test func aRunsDefaultLimitIsTheCoresItsAffinityAllows() throws {
        // The jobserver's MAKEFLAGS carry the run's limit; `taskset` allows one core.
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "show", "kind": "shell", "run": "printf %s \"$MAKEFLAGS\" > flags.txt"}]}"#
        )
        defer { fixture.remove() }
        let result = try runProcflow(
            ["-c", "0", procflowBinary.path, "run", "flow.json"], in: fixture.directory,
            executable: URL(fileURLWithPath: "/usr/bin/taskset"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect((fixture.contents("flags.txt") ?? "").hasPrefix(" -j1 "))
    }
}
