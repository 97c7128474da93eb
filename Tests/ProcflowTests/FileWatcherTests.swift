import Foundation
import ProcedureKit
import Testing

@testable import Procflow

@Suite("File watcher")
struct FileWatcherTests {

    @Test func changesAreReportedOnceQuietAndNewDirectoriesAreWatched() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent(".git"), withIntermediateDirectories: true)
        let watcher = try FileWatcher(roots: [directory.path])
        let reports = Locked([[String]]())
        watcher.start(quiet: 0.2) { paths in reports.withLock { $0.append(paths) } }
        defer { watcher.stop() }
        usleep(100_000)
        let file = directory.appendingPathComponent("a.txt")
        for round in 0..<3 { try Data("\(round)".utf8).write(to: file) }
        #expect(eventually(timeout: 10) { reports.withLock { $0.count } == 1 })
        #expect(reports.withLock { $0.first } == [file.path])

        let nested = directory.appendingPathComponent("src/deep")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        usleep(300_000)  // the new directories are watched as they appear
        try Data("x".utf8).write(to: nested.appendingPathComponent("b.c"))
        try Data("x".utf8).write(to: directory.appendingPathComponent(".git/HEAD"))
        #expect(
            eventually(timeout: 10) {
                reports.withLock { $0.joined().contains(nested.path + "/b.c") }
            })
        #expect(!reports.withLock { $0.joined().contains { $0.contains("/.git/") } })
    }

    @Test func changesThatKeepComingAreReportedWithinTheLongestWait() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let watcher = try FileWatcher(roots: [directory.path])
        let reports = Locked([[String]]())
        watcher.start(quiet: 0.2) { paths in reports.withLock { $0.append(paths) } }
        defer { watcher.stop() }
        usleep(100_000)
        // A write every 50 ms for 4 s: never 0.2 s of quiet.
        let file = directory.appendingPathComponent("busy.log")
        var reportedWhileBusy = false
        for round in 0..<80 {
            try Data("\(round)".utf8).write(to: file)
            usleep(50_000)
            if round >= 50, !reports.withLock(\.isEmpty) { reportedWhileBusy = true }
        }
        #expect(reportedWhileBusy, "no report came while the file kept changing")
    }

    @Test func aMissingRootIsAClearError() {
        #expect(throws: FileWatcher.Failure.self) {
            try FileWatcher(roots: ["/nonexistent/procflow-watch"])
        }
    }
}

@Suite("File watcher overflow")
struct FileWatcherOverflowTests {
    /// The kernel's bound on the events an inotify descriptor holds unread.
    static let queueLimit =
        (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))
        .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }

    @Test(.enabled(if: (queueLimit ?? .max) <= 65536))
    func whenTheQueueOverflowsEveryFileIsReported() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let watcher = try FileWatcher(roots: [directory.path])
        defer { watcher.stop() }
        // Each new file is two events (made, written): more than the queue holds, unread.
        let count = (Self.queueLimit ?? 0) / 2 + 100
        for index in 0..<count {
            try Data().write(to: directory.appendingPathComponent("f\(index)"))
        }
        let reports = Locked([[String]]())
        watcher.start(quiet: 0.2) { paths in reports.withLock { $0.append(paths) } }
        #expect(eventually(timeout: 30) { !reports.withLock(\.isEmpty) })
        let reported = Set(reports.withLock { $0.joined() })
        #expect(reported.contains(directory.path + "/f\(count - 1)"))
        #expect(reported.count == count)
    }
}
