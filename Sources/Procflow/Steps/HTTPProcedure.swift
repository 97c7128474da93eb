import Foundation
import ProcedureKit

/// Makes an HTTP request as a procedure.
///
/// The body is the literal given, or the procedure's input when it has one: a string as is,
/// anything else as JSON (with `Content-Type: application/json` unless a header says
/// otherwise). A status outside ``Options/expect`` (200–299 when empty) fails it with the
/// status and the first bytes of the body; a refused connection, an unknown host, a TLS failure
/// or no answer in time fails it with one line saying which. Its output is the response body as
/// text, as JSON, or nothing.
public final class HTTPProcedure: Procedure, StepPortsProcedure, @unchecked Sendable {
    // @unchecked Sendable: mutable state lives in `ports` and `state`, `Locked` mutexes.

    private struct State {
        var cancelRequest: (@Sendable () -> Void)?
    }

    /// What it requests, and what it accepts.
    public let request: HTTP
    /// Seconds the whole exchange may take.
    public let timeout: TimeInterval
    private let transport: any HTTPTransport
    private let secrets: SecretValues
    /// The input and output.
    public let ports = Locked(StepPorts())
    private let state = Locked(State())

    /// A procedure that makes `request` through `transport`, giving up after `timeout` seconds;
    /// `secrets` are masked in the excerpt of a body its failure quotes before it is cut.
    public init(
        _ request: HTTP, timeout: TimeInterval = 60,
        transport: any HTTPTransport = CurlTransport.shared, secrets: SecretValues = .none
    ) {
        self.request = request
        self.timeout = timeout
        self.transport = transport
        self.secrets = secrets
        super.init()
    }

    public override func execute() {
        var headers = request.headers
        var body: [UInt8]?
        if let value = input.value ?? request.body {
            body = Array(value.text.utf8)
            let isJSON: Bool
            if case .string = value { isJSON = false } else { isJSON = true }
            if isJSON, !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
                headers.append(("Content-Type", "application/json"))
            }
        }
        let message = HTTPRequest(
            method: request.method, url: request.url, headers: headers, body: body,
            timeout: timeout)
        let cancel = transport.send(message) { [self] result in
            switch result {
            case .success(let response): received(response)
            case .failure(let error): finish(withResult: .failure(error))
            }
        }
        state.withLock { $0.cancelRequest = cancel }
    }

    public override func procedureDidCancel(with error: (any Error)?) {
        state.withLock { $0.cancelRequest }?()
    }

    /// The start of `body` a failure quotes: its first 200 bytes on one line, `secrets`
    /// masked in the whole before the cut.
    static func excerpt(of body: [UInt8], secrets: SecretValues) -> String {
        var text = String(decoding: body.prefix(64 * 1024), as: UTF8.self)
        if !secrets.isEmpty { text = secrets.mask(text) }
        var bytes = Array(text.utf8)
        let isCut = bytes.count > 200 || body.count > 64 * 1024
        if bytes.count > 200 {
            var end = 200
            while end > 0, UTF8.isContinuation(bytes[end]) { end -= 1 }
            bytes.removeSubrange(end...)
        }
        var excerpt = String(decoding: bytes, as: UTF8.self)
            .replacingOccurrences(of: "\n", with: " ").trimmingCharacters(in: .whitespaces)
        if isCut { excerpt += "…" }
        return excerpt
    }

    private func received(_ response: HTTPResponse) {
        let accepted =
            request.expect.isEmpty
            ? (200..<300).contains(response.status) : request.expect.contains(response.status)
        guard accepted else {
            let excerpt = Self.excerpt(of: response.body, secrets: secrets)
            let reason = HTTPStatus.reasons[response.status].map { " \($0)" } ?? ""
            var message = "\(request.method) \(request.url) answered \(response.status)\(reason)"
            if !excerpt.isEmpty { message += ": \(excerpt)" }
            return finish(withResult: .failure(StepError(.httpStatus(response.status), message)))
        }
        switch request.output {
        case .none:
            finish(withResult: .success(.null))
        case .text:
            finish(withResult: .success(.string(String(decoding: response.body, as: UTF8.self))))
        case .json:
            do {
                finish(withResult: .success(try JSONParser.parse(response.body).plain))
            } catch {
                finish(
                    withResult: .failure(
                        StepError(
                            .invalidJSON,
                            "the response from \(request.url) is not valid JSON: \(error.message)"))
                )
            }
        }
    }
}
