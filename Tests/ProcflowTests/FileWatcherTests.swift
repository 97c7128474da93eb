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
        // The watches are in place once the watcher is made: no wait for start.
        watcher.start(quiet: 0.2) { paths in reports.withLock { $0.append(paths) } }
        defer { watcher.stop() }
        let file = directory.appendingPathComponent("a.txt")
        for round in 0..<3 { try Data("\(round)".utf8).write(to: file) }
        #expect(eventually(timeout: 10) { reports.withLock { $0.count } == 1 })
        #expect(reports.withLock { $0.first } == [file.path])

        // A file in directories made just now is reported, as the directories are watched
        // when they appear; a file under .git, written before it, never is.
        try Data("x".utf8).write(to: directory.appendingPathComponent(".git/HEAD"))
        let nested = directory.appendingPathComponent("src/deep")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: nested.appendingPathComponent("b.c"))
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
        // A quiet period longer than the writes last: only the longest wait can report them.
        watcher.start(quiet: 30) { paths in reports.withLock { $0.append(paths) } }
        defer { watcher.stop() }
        // A write every 50 ms until a report comes, for 20 s at most.
        let file = directory.appendingPathComponent("busy.log")
        let started = Date()
        var round = 0
        while reports.withLock(\.isEmpty), Date().timeIntervalSince(started) < 20 {
            try Data("\(round)".utf8).write(to: file)
            round += 1
            usleep(50_000)
        }
        let reported = !reports.withLock(\.isEmpty)
        #expect(reported, "no report came while the file kept changing")
        #expect(reports.withLock { $0.first } == [file.path])
    }

    @Test func aMissingRootIsAClearError() {
        #expect(throws: FileWatcher.Failure.self) {
            try FileWatcher(roots: ["/nonexistent/procflow-watch"])
        }
    }

    /// A watcher that cannot start closes its descriptors once: closed again (its
    /// deinitializer runs after its initializer throws), they were by then another thread's,
    /// which read from a file it never opened (a test harness's pipe: "Resource temporarily
    /// unavailable").
    @Test func aWatcherThatCannotStartClosesNoOtherThreadsDescriptors() {
        let (disturbed, opened) = socketPairsDisturbed {
            for _ in 0..<3000 {
                _ = try? FileWatcher(roots: ["/nonexistent/procflow-watch"])
            }
        }
        #expect(
            disturbed == 0,
            "\(disturbed) of \(opened) socket pairs were closed or changed under their thread")
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
