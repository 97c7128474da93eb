import CProcflow
import Foundation

/// One request through libcurl: performed on the calling thread, cancellable from any other.
final class CurlTransfer: @unchecked Sendable {
    // @unchecked Sendable: `transfer` is set once. The C transfer may be cancelled from any
    // thread while another performs it (an atomic flag and curl_multi_wakeup); it is destroyed
    // in deinit, once neither the performing thread nor a cancel closure holds this object.
    private let transfer: OpaquePointer

    /// A transfer through `library`; nil if libcurl cannot allocate one.
    init?(library: CurlTransport.Library) {
        guard let transfer = procflow_http_transfer_create(library.functions) else { return nil }
        self.transfer = transfer
    }

    deinit {
        procflow_http_transfer_destroy(transfer)
    }

    /// Ends a running ``perform(_:)`` at once, or the next one before it starts, with
    /// "cancelled".
    func cancel() {
        procflow_http_transfer_cancel(transfer)
    }

    /// Sends `request` and waits for the whole answer, the timeout or a cancellation.
    func perform(_ request: HTTPRequest) -> Result<HTTPResponse, StepError> {
        // libcurl would take a URL without a scheme for an http one.
        let scheme = request.url.prefix { $0 != ":" }.lowercased()
        guard scheme == "http" || scheme == "https" else {
            return .failure(StepError(.httpTransport, "unsupported URL \(request.url)"))
        }
        var response = procflow_http_response()
        defer { procflow_http_response_release(&response) }
        Self.withCRequest(request) { procflow_http_transfer_perform(transfer, $0, &response) }
        guard response.failure == PROCFLOW_HTTP_SUCCEEDED else {
            let detail = withUnsafeBytes(of: response.detail) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            return .failure(
                StepError(
                    .httpTransport, Self.message(for: response.failure, detail, request: request)))
        }
        let body = response.body.map {
            Array(UnsafeBufferPointer(start: $0, count: response.body_length))
        }
        let headers = response.headers.map {
            String(
                decoding: UnsafeRawBufferPointer(start: $0, count: response.headers_length),
                as: UTF8.self)
        }
        var answer = HTTPResponse(
            status: response.status, headers: Self.fields(headers ?? ""), body: body ?? [])
        answer.uploaded = response.uploaded
        answer.downloaded = response.downloaded
        return .success(answer)
    }

    /// Header lines as fields; a repeated name's values joined with ", " (RFC 9110, 5.3).
    static func fields(_ lines: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in lines.split(whereSeparator: \.isNewline) where !line.hasPrefix("HTTP/") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            fields[name] = fields[name].map { "\($0), \(value)" } ?? value
        }
        return fields
    }

    /// libcurl's timeout: whole milliseconds, at least one (zero would mean none).
    static func milliseconds(_ seconds: TimeInterval) -> Int {
        guard seconds.isFinite else { return Int(Int32.max) }
        return Int(min(max((seconds * 1000).rounded(.up), 1), Double(Int32.max)))
    }

    /// Calls `body` with `request` as C sees it, valid for the duration of the call.
    private static func withCRequest(
        _ request: HTTPRequest, _ body: (UnsafePointer<procflow_http_request>) -> Void
    ) {
        let lines = request.headers.map { strdup("\($0.name): \($0.value)") }
        defer { for line in lines { free(line) } }
        let content = request.body ?? []
        request.method.withCString { method in
            request.url.withCString { url in
                lines.map { UnsafePointer($0) }.withUnsafeBufferPointer { headers in
                    content.withUnsafeBufferPointer { bytes in
                        var c = procflow_http_request(
                            method: method, url: url, headers: headers.baseAddress,
                            header_count: headers.count, has_body: request.body == nil ? 0 : 1,
                            body: bytes.baseAddress, body_length: bytes.count,
                            timeout_ms: milliseconds(request.timeout),
                            body_fd: request.upload?.descriptor ?? -1,
                            body_fd_length: request.upload?.length ?? 0,
                            output_fd: request.download?.descriptor ?? -1,
                            output_limit: request.download?.limit ?? 0,
                            connect_timeout_ms: request.connectTimeout.map(milliseconds) ?? 0,
                            low_speed_bytes: request.lowSpeed?.bytesPerSecond ?? 0,
                            low_speed_seconds: request.lowSpeed?.seconds ?? 0,
                            use_netrc: request.usesNetrc ? 1 : 0,
                            follow_redirects: request.followsRedirects ? 1 : 0)
                        body(&c)
                    }
                }
            }
        }
    }
}
