import Foundation
import ProcedureKit
import Testing

@testable import Procflow

/// An HTTP step's `timeout` counts to the millisecond (it was cut to whole seconds: 0.5 gave up
/// at once, 1.5 after one second). The bounds are loose: the machine may be busy.
@Suite("HTTP timeouts")
struct HTTPTimeoutTests {

    @Test(arguments: [0.5, 1.5])
    func aSlowServerIsGivenUpOnAfterTheTimeout(timeout: TimeInterval) throws {
        let (server, root) = try startServer()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let started = Date()
        let procedure = run(
            HTTPProcedure(.init(url: "http://127.0.0.1:\(server.port)/delay/10"), timeout: timeout))
        let elapsed = Date().timeIntervalSince(started)
        #expect(
            (procedure.error as? StepError)?.message
                == "no answer from 127.0.0.1:\(server.port) within \(timeout) s")
        #expect(elapsed >= timeout - 0.05, "gave up after \(elapsed) s")
        #expect(elapsed < timeout + 3, "gave up after \(elapsed) s")
    }

    @Test(arguments: [(timeout: 0.5, delay: 0.1), (timeout: 1.5, delay: 1.1)])
    func anAnswerWithinAFractionalTimeoutArrives(timeout: TimeInterval, delay: TimeInterval)
        throws
    {
        let (server, root) = try startServer()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let procedure = run(
            HTTPProcedure(
                .init(url: "http://127.0.0.1:\(server.port)/delay/\(delay)"), timeout: timeout))
        #expect(procedure.error == nil)
        #expect(procedure.output.value?.value == .string("waited \(delay) s\n"))
    }

    @Test(arguments: [
        (seconds: 0.5, milliseconds: 500), (seconds: 1.5, milliseconds: 1500),
        (seconds: 0.0001, milliseconds: 1), (seconds: 0, milliseconds: 1),
        (seconds: 60, milliseconds: 60000), (seconds: .infinity, milliseconds: Int(Int32.max)),
    ])
    func timeoutsBecomeWholeMillisecondsOfAtLeastOne(seconds: TimeInterval, milliseconds: Int) {
        #expect(CurlTransfer.milliseconds(seconds) == milliseconds)
    }
}
