import Foundation
import ProcedureKit
import Testing

@testable import Procflow

@Suite("LoopbackServer")
struct LoopbackServerTests {

    /// Waits at most `timeout` seconds for `server` to have stopped and closed its socket.
    private func stopped(_ server: LoopbackServer, within timeout: TimeInterval = 10) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread {
            server.wait()
            done.signal()
        }.start()
        return done.wait(timeout: .now() + timeout) == .success
    }

    /// Holds the accept loop just before its first `accept` until released.
    private final class AcceptGate: Sendable {
        let reached = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        private let first = Locked(true)

        var hook: @Sendable () -> Void {
            { [self] in
                let isFirst = first.withLock { isFirst in
                    defer { isFirst = false }
                    return isFirst
                }
                guard isFirst else { return }
                reached.signal()
                release.wait()
            }
        }
    }

    /// Before the fix, stop() closed the descriptor under the loop; the socket opened next got
    /// the same number, and the loop's accept then served that socket's connections.
    @Test func stopJustBeforeAcceptNeverServesAnotherSocket() throws {
        for _ in 0..<40 {
            let gate = AcceptGate()
            let server = try LoopbackServer(port: 0, root: nil, beforeAccept: gate.hook)
            server.start()
            gate.reached.wait()
            server.stop()
            let next = try LoopbackServer(port: 0)
            next.start()
            defer { next.stop() }
            gate.release.signal()
            #expect(stopped(server), "the accept loop did not end after stop()")
            let procedure = run(
                HTTPProcedure(.init(url: "http://127.0.0.1:\(next.port)/status/204")))
            #expect(procedure.error == nil)
            #expect(
                server.requestCount == 0, "the stopped server answered another socket's request")
            // A server counts a request once it has sent the answer: the client may read first.
            #expect(eventually { next.requestCount == 1 })
        }
    }

    @Test func stopRightAfterStartAlwaysEnds() throws {
        for round in 0..<200 {
            let server = try LoopbackServer(port: 0)
            server.start()
            if round % 2 == 0 { usleep(UInt32(round % 7) * 100) }
            server.stop()
            #expect(stopped(server), "round \(round): the server did not stop")
        }
    }

    @Test func stopBeforeStartClosesAndStartThenDoesNothing() throws {
        let server = try LoopbackServer(port: 0)
        server.stop()
        #expect(stopped(server))
        server.start()
        server.stop()
        #expect(stopped(server))
    }

    @Test func aShutdownRequestStopsTheServer() throws {
        let server = try LoopbackServer(port: 0)
        server.start()
        let procedure = run(
            HTTPProcedure(.init(method: "POST", url: "http://127.0.0.1:\(server.port)/shutdown")))
        #expect(procedure.error == nil)
        #expect(stopped(server))
    }
}
