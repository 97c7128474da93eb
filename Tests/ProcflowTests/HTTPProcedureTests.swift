import Foundation
import ProcedureKit
import Testing

@testable import Procflow

/// A loopback server for one test, serving `files`.
func startServer(files: [String: String] = [:]) throws -> (LoopbackServer, URL) {
    let root = try temporaryDirectory()
    for (name, content) in files {
        try Data(content.utf8).write(to: root.appendingPathComponent(name))
    }
    let server = try LoopbackServer(port: 0, root: root.path)
    server.start()
    return (server, root)
}

@Suite("HTTPProcedure")
struct HTTPProcedureTests {

    private func request(_ http: HTTP, timeout: TimeInterval = 60, input: JSONValue? = nil)
        -> HTTPProcedure
    {
        let procedure = HTTPProcedure(http, timeout: timeout)
        if let input { procedure.input = .ready(input) }
        return run(procedure)
    }

    @Test func getsAFileAsTextOrJSON() throws {
        let (server, root) = try startServer(files: ["release.json": #"{"version": "1.0"}"#])
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let url = "http://127.0.0.1:\(server.port)/release.json"
        #expect(request(.init(url: url)).output.value?.value == .string(#"{"version": "1.0"}"#))
        #expect(
            request(.init(url: url, output: .json)).output.value?.value
                == .object(["version": .string("1.0")]))
    }

    @Test func postsAWiredBodyAsJSONOrText() throws {
        let (server, root) = try startServer()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let url = "http://127.0.0.1:\(server.port)/echo"
        let json = request(
            .init(method: "POST", url: url, output: .json), input: .object(["n": .number(1)]))
        guard case .object(let echo)? = json.output.value?.value else {
            Issue.record("no echo: \(String(describing: json.error))")
            return
        }
        #expect(echo["body"] == .string(#"{"n":1}"#))
        #expect(echo["method"] == .string("POST"))
        guard case .object(let headers)? = echo["headers"] else { return }
        #expect(
            headers.contains {
                $0.key.lowercased() == "content-type" && $0.value == .string("application/json")
            })
        let text = request(
            .init(method: "POST", url: url, body: .string("plain words"), output: .json))
        guard case .object(let textEcho)? = text.output.value?.value else { return }
        #expect(textEcho["body"] == .string("plain words"))
    }

    @Test func anUnexpectedStatusFailsWithTheStatusAndTheStartOfTheBody() throws {
        let (server, root) = try startServer()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let url = "http://127.0.0.1:\(server.port)/missing.txt"
        let procedure = request(.init(url: url))
        let error = procedure.error as? StepError
        #expect(error?.code == .httpStatus(404))
        #expect(error?.message == "GET \(url) answered 404 Not Found: not found: /missing.txt")
        let accepted = request(.init(url: url, expect: [404]))
        #expect(accepted.error == nil)
    }

    @Test func aRefusedConnectionIsAOneLineError() throws {
        let (server, root) = try startServer()
        let port = server.port
        server.stop()
        try? FileManager.default.removeItem(at: root)
        let procedure = request(.init(url: "http://127.0.0.1:\(port)/"))
        #expect(
            (procedure.error as? StepError)?.message == "connection refused by 127.0.0.1:\(port)")
    }

    @Test func noAnswerInTimeIsAOneLineError() throws {
        let (server, root) = try startServer()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let procedure = request(.init(url: "http://127.0.0.1:\(server.port)/delay/5"), timeout: 0.5)
        #expect(
            (procedure.error as? StepError)?.message
                == "no answer from 127.0.0.1:\(server.port) within 0.5 s")
    }

    @Test func aTLSFailureIsAOneLineError() throws {
        let (server, root) = try startServer()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let procedure = request(.init(url: "https://127.0.0.1:\(server.port)/"), timeout: 10)
        let message = (procedure.error as? StepError)?.message ?? ""
        #expect(message.hasPrefix("TLS failed with 127.0.0.1:\(server.port)"), "\(message)")
        #expect(!message.contains("\n"))
    }

    @Test func anUnknownHostIsAOneLineError() {
        let procedure = request(.init(url: "http://no-such-host.invalid/"), timeout: 20)
        let message = (procedure.error as? StepError)?.message ?? ""
        #expect(
            message.hasPrefix("cannot resolve the host no-such-host.invalid")
                || message.hasPrefix("no answer"))
    }

    @Test func cancellingStopsTheRequest() throws {
        let (server, root) = try startServer()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let procedure = HTTPProcedure(.init(url: "http://127.0.0.1:\(server.port)/delay/30"))
        let started = Date()
        ProcedureQueue().addOperation(procedure)
        usleep(200_000)
        procedure.cancel()
        waitUntilFinished(procedure)
        #expect(procedure.isCancelled)
        #expect(Date().timeIntervalSince(started) < 20)
    }
}
