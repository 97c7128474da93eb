import Foundation
import ProcedureKit
import Testing

@testable import Procflow

/// Runs `procflow run FILE` on a pseudo-terminal, through util-linux's `script`; returns
/// everything it wrote there, and how long it took.
private func runOnTerminal(
    _ fixture: WorkflowFixture, environment: [String: String] = [:]
) throws -> (output: String, seconds: TimeInterval) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
    let command = "'\(procflowBinary.path)' run \(fixture.file)"
    process.arguments = ["-qfec", command, "/dev/null"]
    process.currentDirectoryURL = fixture.directory
    var env = ProcessInfo.processInfo.environment
    env["TERM"] = "xterm-256color"
    env["NO_COLOR"] = nil
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let output = Pipe()
    process.standardOutput = output
    process.standardInput = FileHandle.nullDevice
    let started = Date()
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (String(decoding: data, as: UTF8.self), Date().timeIntervalSince(started))
}

/// Whether a screen line belongs to the live panel.
private func isPanelLine(_ line: String) -> Bool {
    line.contains("▸") || line.contains(" steps · ") || line.contains("more running")
}

@Suite("The terminal")
struct TerminalTests {

    @Test func theSummaryTableAlignsItsColumnsWhateverTheNamesAreMadeOf() {
        let summary = RunSummary(
            name: "w",
            rows: [
                .init(id: "build", path: [], status: .succeeded, duration: 0.012, reason: nil),
                .init(
                    id: "héllo-wörld", path: ["build"], status: .cached, duration: nil, reason: nil),
                .init(
                    id: "t[0]", path: [], status: .failed, duration: 1.5, reason: "exit 1",
                    name: "t[日本]"),
            ],
            result: .failed, duration: 2)
        let plain = TerminalReporter.summaryTable(summary, style: Style(enabled: false))
        // Characters counted, not bytes: the names of two bytes a letter line up.
        let expected = [
            "",
            "Summary of w",
            "  STEP           STATUS     DURATION   NOTE",
            "  build          succeeded  12 ms      ",
            "    héllo-wörld  cached     –          ",
            "  t[日本]          failed     1.5 s      exit 1",
            "",
            "w failed in 2 s: 1 succeeded, 1 cached, 1 failed",
            "",
        ]
        #expect(plain == expected.joined(separator: "\n"))
        let colored = TerminalReporter.summaryTable(summary, style: Style(enabled: true))
        #expect(colored.contains("  build          \u{1B}[32msucceeded\u{1B}[0m  12 ms      \n"))
        #expect(colored.contains("\u{1B}[31mfailed   \u{1B}[0m"))
    }

    @Test func theLivePanelStaysBelowTheLogNeverMixesWithItAndIsClearedAtTheEnd() throws {
        let fixture = try WorkflowFixture(
            """
            {"name": "live", "procedures": [
              {"id": "chatty", "kind": "shell", "run": "for i in $(seq 1 40); do echo line $i; sleep 0.03; done"},
              {"id": "slow-step", "kind": "shell", "run": "sleep 1.2"},
              {"id": "after", "kind": "shell", "run": "sleep 0.3; printf '\\\\033[31mred\\\\n'", "dependsOn": ["chatty"]}
            ]}
            """)
        defer { fixture.remove() }
        let (output, seconds) = try runOnTerminal(fixture)
        #expect(output.contains("▸ slow-step"), "\(output)")
        // A command's colour left on is reset before the next prefix.
        #expect(output.contains("\u{1B}[31mred\u{1B}[0m\r\n"))
        #expect(output.contains("/3 steps · "))
        #expect(output.contains("left"))
        // Replayed up to each erase of the panel: the panel is only the last lines of the
        // screen, and log lines hold nothing of it.
        let erase = "\u{1B}[J"
        var screen = ScreenEmulator()
        let pieces = output.components(separatedBy: erase)
        var draws = 0
        for piece in pieces.dropLast() {
            screen.feed(piece)
            let lines = screen.lines
            let panelStart = lines.firstIndex(where: isPanelLine) ?? lines.count
            #expect(lines[panelStart...].allSatisfy(isPanelLine), "\(lines)")
            #expect(
                lines[..<panelStart].allSatisfy {
                    !isPanelLine($0) && !$0.contains("█") && !$0.contains("░")
                })
            if panelStart < lines.count { draws += 1 }
            screen.feed(erase)
        }
        screen.feed(pieces.last ?? "")
        let final = screen.lines
        #expect(draws > 2)
        // At most about ten times a second.
        #expect(Double(draws) <= seconds * 10 + 3, "\(draws) draws in \(seconds) s")
        #expect(!final.contains(where: isPanelLine), "\(final)")
        #expect(final.contains("chatty    line 40"))
        #expect(final.contains { $0.hasPrefix("after     ✓ finished in ") })
        #expect(final.last?.hasPrefix("live succeeded in ") == true)
        let lineNumbers = final.compactMap { line -> Int? in
            guard line.hasPrefix("chatty    line ") else { return nil }
            return Int(line.dropFirst("chatty    line ".count))
        }
        #expect(lineNumbers == Array(1...40))
    }

    /// A large run's summary is written as it is made, in pieces of whole lines, not held
    /// whole; the lines held back come first.
    @Test func aLargeSummaryTableIsWrittenInPiecesOfWholeLines() {
        let writes = Locked([String]())
        let console = Console(
            write: { text in writes.withLock { $0.append(text) } }, writeError: { _ in },
            outputIsTerminal: false, environment: [:])
        let reporter = TerminalReporter(console: console, livePanel: false)
        let rows = (0..<5000).map {
            RunSummary.Row(
                id: "step-\($0)", path: ["group"], status: .succeeded, duration: 0.5, reason: nil)
        }
        let summary = RunSummary(name: "big", rows: rows, result: .succeeded, duration: 3)
        reporter.report(RunEvent(step: nil, kind: .workflowStarted(name: "big", steps: ["a"])))
        reporter.report(RunEvent(step: "a", kind: .stepCached(note: nil)))
        writes.withLock { $0 = [] }
        reporter.report(RunEvent(step: nil, kind: .workflowFinished(summary)))
        let pieces = writes.withLock { $0 }
        #expect(pieces.count >= 3, "\(pieces.count) writes")
        #expect(pieces.allSatisfy { $0.hasSuffix("\n") })
        #expect(pieces.allSatisfy { $0.utf8.count < 2 * TerminalReporter.summaryPiece })
        let text = pieces.joined()
        let expected = TerminalReporter.summaryTable(summary, style: Style(enabled: false))
        #expect(text.hasSuffix(expected))
        // The held lines (the run's start, the step up to date), then the table.
        let plain = ANSIEscapes.stripping(text)
        #expect(plain.hasPrefix("procflow: running big"))
        #expect(plain.contains("\na ✓ up to date\n\nSummary of big\n"))
        #expect(text.contains("    step-4999  succeeded  500 ms"))
    }

    /// Lines of up-to-date and skipped steps wait, and are made only once a step does
    /// something: then they come first, in order, each step keeping the colour its place in
    /// the run gave it.
    @Test func heldLinesAreWrittenInOrderWithTheirColoursOnceAStepRuns() {
        let written = Locked("")
        let console = Console(
            write: { text in written.withLock { $0 += text } }, writeError: { _ in },
            outputIsTerminal: true, environment: ["TERM": "xterm"])
        let reporter = TerminalReporter(console: console, livePanel: false)
        let events: [RunEvent.Kind] = [
            .workflowStarted(name: "w", steps: ["a", "b", "c", "d"]),
            .stepCached(note: nil), .stepSkipped(reason: "no"), .stepCached(note: "restored"),
        ]
        for (index, kind) in events.enumerated() {
            reporter.report(
                RunEvent(step: index == 0 ? nil : ["", "a", "b", "c"][index], kind: kind))
        }
        #expect(written.withLock { $0 }.isEmpty)
        reporter.report(RunEvent(step: "d", kind: .stepStarted(attempt: 1, of: 1)))
        let text = written.withLock { $0 }
        let colour: (String, Int) -> String = { id, index in
            "\u{1B}[\(Style.stepColors[index])m\(id)\u{1B}[0m"
        }
        let positions = ["a", "b", "c", "d"].enumerated().map { index, id in
            text.range(of: colour(id, index))?.lowerBound
        }
        #expect(positions.allSatisfy { $0 != nil }, "\(text.debugDescription)")
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
        let lines = ANSIEscapes.stripping(text).split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(lines)")
        #expect(lines.first?.hasPrefix("procflow: running w") == true)
        #expect(lines.dropFirst().first == "a ✓ up to date")
        #expect(lines.last == "d started")
    }

    @Test func noPanelWhenTheTerminalIsDumb() throws {
        let fixture = try WorkflowFixture(
            #"{"procedures": [{"id": "a", "kind": "shell", "run": "sleep 0.5; echo done"}]}"#)
        defer { fixture.remove() }
        let (output, _) = try runOnTerminal(fixture, environment: ["TERM": "dumb"])
        #expect(ANSIEscapes.stripping(output).contains("a done"))
        #expect(!output.contains("▸"))
        #expect(!output.contains(" steps · "))
        #expect(!output.contains("\u{1B}[J"))
    }

    @Test func prefixesAlignAndACarriageReturnDoesNotGoBackOverThem() throws {
        let fixture = try WorkflowFixture(
            #"""
            {"procedures": [
              {"id": "a", "kind": "shell", "run": "printf 'one\\n10%%\\r50%%\\r100%%\\n'"},
              {"id": "longer", "kind": "shell", "run": "echo two", "dependsOn": ["a"]}
            ]}
            """#)
        defer { fixture.remove() }
        let result = try fixture.run()
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("a      one"))
        #expect(lines.contains("a      100%"))
        #expect(lines.contains("longer two"))
        #expect(lines.contains("a      started"))
    }

    @Test func aLongLineIsCutNeitherInsideACharacterNorInsideAnEscapeSequence() throws {
        // "é" is two bytes: an odd prefix puts the byte cut inside one; then an escape
        // sequence across the next cut.
        let limit = LineSplitter.maximumLineLength
        let accents = "x" + String(repeating: "é", count: limit / 2)
        let colour = String(repeating: "y", count: limit - 3) + "\u{1B}[38;5;196mred"
        var splitter = LineSplitter()
        var lines: [Substring] = []
        // Each line arrives without its newline first, as a long line does, over reads.
        for text in [accents, "\n", colour, "\n"] {
            lines += Array(text.utf8).withUnsafeBytes { splitter.lines(in: $0) }
        }
        #expect(lines.count == 4)
        #expect(lines.allSatisfy { $0.utf8.count <= limit })
        #expect(!lines.contains { $0.contains("\u{FFFD}") })
        #expect(lines[0...1].joined() == accents)
        #expect(lines[2...3].joined() == colour)
        #expect(lines[3].hasPrefix("\u{1B}[38;5;196m"))
    }

    @Test(arguments: [
        ("plain", "plain"), ("\u{1B}[1;31mred\u{1B}[0m!", "red!"),
        ("a\u{1B}]8;;http://x\u{07}link\u{1B}]8;;\u{1B}\\b", "alinkb"), ("cut\u{1B}[3", "cut"),
        ("\u{1B}(Bx", "x"),
    ])
    func escapeSequencesAreStripped(text: String, stripped: String) {
        #expect(ANSIEscapes.stripping(text) == stripped)
    }

    @Test func aSafeCutBacksOffToTheStartOfACharacterOrASequence() {
        let bytes = Array("abé".utf8)  // é takes bytes 2 and 3
        #expect(ANSIEscapes.safeCut(bytes, limit: 3) == 2)
        let escape = Array("ab\u{1B}[31mc".utf8)
        #expect(ANSIEscapes.safeCut(escape, limit: 4) == 2)
        #expect(ANSIEscapes.safeCut(escape, limit: 7) == 7)
    }
}

@Suite("Durations as people read them")
struct DurationTextTests {
    /// The words `String(format:)` gave before (it is no longer used: its first use costs a
    /// quarter of a millisecond).
    private func formatted(_ seconds: Double) -> String {
        if seconds < 1 { return "\(Int((seconds * 1000).rounded())) ms" }
        if seconds < 60 {
            let tenths = (seconds * 10).rounded() / 10
            return tenths == tenths.rounded()
                ? "\(Int(tenths)) s" : String(format: "%.1f s", tenths)
        }
        let whole = Int(seconds.rounded())
        return String(format: "%d min %02d s", whole / 60, whole % 60)
    }

    @Test func theWordsAreThoseOfPrintf() {
        #expect(formatDuration(0.388) == "388 ms")
        #expect(formatDuration(1) == "1 s")
        #expect(formatDuration(1.23) == "1.2 s")
        #expect(formatDuration(2.25) == "2.3 s")
        #expect(formatDuration(59.96) == "60 s")
        #expect(formatDuration(61) == "1 min 01 s")
        #expect(formatDuration(3_599.6) == "60 min 00 s")
        #expect(formatDuration(7_322) == "122 min 02 s")
        var generator = SystemRandomNumberGenerator()
        let samples =
            stride(from: 0.0, through: 130, by: 0.005).map { $0 }
            + (0..<2_000).map { _ in Double.random(in: 0..<100_000, using: &generator) }
        for seconds in samples {
            #expect(formatDuration(seconds) == formatted(seconds), "\(seconds)")
        }
    }
}
