// The HTTP transport plugin: URLSession behind a C interface that procflow loads with dlopen
// when a workflow first makes a request.
//
// Linking FoundationNetworking (and with it libcurl and its TLS and compression libraries)
// doubles the start-up time of a Swift program; keeping it in this library keeps `procflow
// validate` and `procflow graph` as fast as a Foundation "hello".
//
// A request and its response travel as JSON text:
//   request:  {"method": "GET", "url": "…", "headers": [["Name", "value"]], "body": "<base64>"|null,
//              "timeout": 30}
//   response: {"status": 200, "headers": {"Name": "value"}, "body": "<base64>"}
//          or {"error": "one line saying what went wrong"}

import Foundation
import FoundationNetworking

/// Called once per request with the response JSON; `context` is the caller's.
public typealias ProcflowHTTPCompletion =
    @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>) -> Void

private final class Tasks: @unchecked Sendable {
    // @unchecked Sendable: `tasks` and `next` are only touched while holding `lock`.
    let lock = NSLock()
    var tasks: [Int64: URLSessionTask] = [:]
    var next: Int64 = 1
    let session = URLSession(configuration: .ephemeral)

    static let shared = Tasks()
}

/// A context pointer made Sendable: it is only handed back to the caller's completion.
private struct Context: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer?
}

/// Starts a request; returns an id for `procflow_http_cancel`. `completion` is called exactly
/// once, on an arbitrary thread.
@_cdecl("procflow_http_perform")
public func procflowHTTPPerform(
    _ requestJSON: UnsafePointer<CChar>, _ context: UnsafeMutableRawPointer?,
    _ completion: ProcflowHTTPCompletion
) -> Int64 {
    let callerContext = Context(pointer: context)
    @Sendable func reply(_ object: [String: Any]) {
        let data =
            (try? JSONSerialization.data(withJSONObject: object))
            ?? Data("{\"error\":\"internal error\"}".utf8)
        String(decoding: data, as: UTF8.self).withCString { completion(callerContext.pointer, $0) }
    }
    guard
        let object = try? JSONSerialization.jsonObject(
            with: Data(String(cString: requestJSON).utf8)) as? [String: Any],
        let urlText = object["url"] as? String, let url = URL(string: urlText)
    else {
        reply(["error": "the request could not be read"])
        return 0
    }
    var request = URLRequest(url: url)
    request.httpMethod = object["method"] as? String ?? "GET"
    request.timeoutInterval = object["timeout"] as? Double ?? 60
    for pair in object["headers"] as? [[String]] ?? [] where pair.count == 2 {
        request.addValue(pair[1], forHTTPHeaderField: pair[0])
    }
    if let body = object["body"] as? String { request.httpBody = Data(base64Encoded: body) }

    let timeout = request.timeoutInterval
    let tasks = Tasks.shared
    tasks.lock.lock()
    let id = tasks.next
    tasks.next += 1
    let task = tasks.session.dataTask(with: request) { data, response, error in
        tasks.lock.lock()
        tasks.tasks[id] = nil
        tasks.lock.unlock()
        if let error {
            reply(["error": describe(error, url: url, timeout: timeout)])
            return
        }
        guard let http = response as? HTTPURLResponse else {
            reply(["error": "the server's answer was not an HTTP response"])
            return
        }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key] = value }
        }
        reply([
            "status": http.statusCode, "headers": headers,
            "body": (data ?? Data()).base64EncodedString(),
        ])
    }
    tasks.tasks[id] = task
    tasks.lock.unlock()
    task.resume()
    return id
}

/// Cancels a request started by `procflow_http_perform`; its completion reports the
/// cancellation.
@_cdecl("procflow_http_cancel")
public func procflowHTTPCancel(_ id: Int64) {
    let tasks = Tasks.shared
    tasks.lock.lock()
    let task = tasks.tasks[id]
    tasks.lock.unlock()
    task?.cancel()
}

/// One line saying what went wrong, naming the host.
private func describe(_ error: Error, url: URL, timeout: TimeInterval) -> String {
    let host = url.host.map { url.port.map { "\(url.host!):\($0)" } ?? $0 } ?? url.absoluteString
    let detail = error.localizedDescription.trimmingCharacters(in: .whitespacesAndNewlines)
        .replacingOccurrences(of: "\n", with: " ")
    guard let urlError = error as? URLError else { return "request to \(host) failed: \(detail)" }
    // libcurl reports many handshake failures with a generic code; its text says SSL.
    if detail.range(of: "SSL", options: .caseInsensitive) != nil || detail.contains("TLS") {
        return "TLS failed with \(host): \(detail)"
    }
    switch urlError.code {
    case .cannotConnectToHost:
        return "connection refused by \(host)"
    case .cannotFindHost, .dnsLookupFailed:
        return "cannot resolve the host \(url.host ?? host)"
    case .timedOut:
        return "no answer from \(host) within \(Int(timeout)) s"
    case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
        .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
        .clientCertificateRequired:
        return "TLS failed with \(host): \(detail)"
    case .cancelled:
        return "cancelled"
    case .networkConnectionLost:
        return "the connection to \(host) was lost"
    case .notConnectedToInternet:
        return "no network to reach \(host)"
    case .unsupportedURL:
        return "unsupported URL \(url.absoluteString)"
    default:
        return "request to \(host) failed: \(detail)"
    }
}
