import Foundation
import ProcedureKit
import Testing

@testable import Procflow

@Suite("CurlTransport")
struct CurlTransportTests {

    /// Sends `request` through `transport` and waits for the answer.
    private func send(
        _ request: HTTPRequest, through transport: CurlTransport = .shared
    ) -> Result<HTTPResponse, StepError> {
        let answer = Locked<Result<HTTPResponse, StepError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        _ = transport.send(request) { result in
            answer.withLock { $0 = result }
            done.signal()
        }
        guard done.wait(timeout: .now() + 30) == .success else {
            return .failure(StepError(.httpTransport, "no completion in 30 s"))
        }
        return answer.withLock { $0! }
    }

    /// The message of a failed request; nil for an answer.
    private func failure(_ result: Result<HTTPResponse, StepError>?) -> String? {
        guard case .failure(let error)? = result else { return nil }
        return error.message
    }

    @Test func withoutLibcurlARequestFailsWithOneLineSayingWhatToInstall() {
        let transport = CurlTransport(libraryNames: ["libcurl-procflow-test-absent.so.4"])
        let procedure = run(
            HTTPProcedure(.init(url: "http://127.0.0.1:1/"), transport: transport))
        let message = (procedure.error as? StepError)?.message ?? ""
        #expect(message.hasPrefix("HTTP steps need libcurl, which could not be loaded ("))
        #expect(message.contains("libcurl-procflow-test-absent.so.4"))
        #expect(
            message.hasSuffix("(apt-get install libcurl4, dnf install libcurl, apk add libcurl)"))
        #expect(!message.contains("\n"))
    }

    @Test func headAsksForNoBodyAndStillGetsTheHeaders() throws {
        let (server, root) = try startServer(files: ["notes.txt": "some notes\n"])
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let result = send(
            HTTPRequest(
                method: "HEAD", url: "http://127.0.0.1:\(server.port)/notes.txt", timeout: 10))
        let response = try result.get()
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(response.headers["Content-Length"] == "11")
        #expect(response.headers["Content-Type"] == "text/plain; charset=utf-8")
    }

    @Test(arguments: ["PUT", "PATCH", "DELETE", "POST"])
    func aMethodAndBodyAreSentAsGiven(method: String) throws {
        let (server, root) = try startServer()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let request = HTTPRequest(
            method: method, url: "http://127.0.0.1:\(server.port)/echo",
            headers: [("X-Step", "deploy"), ("Content-Type", "text/plain")],
            body: Array("payload".utf8))
        let response = try send(request).get()
        let echo = try JSONParser.parse(response.body).plain
        guard case .object(let fields) = echo, case .object(let headers)? = fields["headers"]
        else {
            Issue.record("not an echo: \(String(decoding: response.body, as: UTF8.self))")
            return
        }
        #expect(fields["method"] == .string(method))
        #expect(fields["body"] == .string("payload"))
        #expect(headers["X-Step"] == .string("deploy"))
        #expect(headers["Content-Type"] == .string("text/plain"))
        #expect(headers["Expect"] == nil)
    }

    @Test func cancellingARequestInFlightEndsItPromptly() throws {
        let (server, root) = try startServer()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let done = DispatchSemaphore(value: 0)
        let answer = Locked<Result<HTTPResponse, StepError>?>(nil)
        let cancel = CurlTransport.shared.send(
            HTTPRequest(url: "http://127.0.0.1:\(server.port)/delay/30")
        ) { result in
            answer.withLock { $0 = result }
            done.signal()
        }
        usleep(300_000)
        let cancelled = Date()
        cancel()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(Date().timeIntervalSince(cancelled) < 5)
        #expect(failure(answer.withLock { $0 }) == "cancelled")
    }

    @Test(arguments: [
        "ftp://127.0.0.1/file", "file:///etc/hostname", "example.com/", "http://[::1",
    ])
    func onlyHTTPAndHTTPSURLsAreFetched(url: String) {
        #expect(failure(send(HTTPRequest(url: url, timeout: 10))) == "unsupported URL \(url)")
    }

    /// Start-up stays fast: validating, and running a workflow whose HTTP step does not run,
    /// never loads libcurl; the first request does.
    @Test func libcurlIsLoadedByTheFirstRequestAndNotBefore() throws {
        let (server, root) = try startServer(files: ["a.txt": "a"])
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let fixture = try WorkflowFixture(
            """
            {"vars": {"port": "\(server.port)"}, "procedures": [
              {"id": "say", "kind": "shell", "argv": ["true"]},
              {"id": "get", "kind": "http", "url": "http://127.0.0.1:${port}/a.txt",
               "when": {"env": "FETCH"}}
            ]}
            """)
        defer { fixture.remove() }
        /// The libraries procflow (and what it ran) loaded, as the dynamic loader reports them.
        func loaded(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
            let log = fixture.directory.appendingPathComponent("ld-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: log, withIntermediateDirectories: true)
            var environment = environment
            environment["LD_DEBUG"] = "files"
            environment["LD_DEBUG_OUTPUT"] = log.appendingPathComponent("ld").path
            let result = try runProcflow(
                arguments, in: fixture.directory, environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            return try FileManager.default.contentsOfDirectory(atPath: log.path)
                .map {
                    try String(contentsOfFile: log.appendingPathComponent($0).path, encoding: .utf8)
                }
                .joined()
        }
        #expect(!(try loaded(["validate", fixture.file])).contains("libcurl"))
        #expect(!(try loaded(["run", fixture.file])).contains("libcurl"))
        #expect(try loaded(["run", fixture.file], environment: ["FETCH": "1"]).contains("libcurl"))
    }

    @Test func headerLinesBecomeFieldsWithRepeatedNamesJoined() {
        let lines =
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nSet-Cookie: a=1\r\n"
            + "Set-Cookie: b=2\r\nX-Empty:\r\n\r\n"
        #expect(
            CurlTransfer.fields(lines) == [
                "Content-Type": "text/plain", "Set-Cookie": "a=1, b=2", "X-Empty": "",
            ])
    }
}
