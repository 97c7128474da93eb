import Foundation
import ProcedureKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Bazel's HTTP cache protocol over libcurl: records under `/ac/KEY`, contents under
/// `/cas/DIGEST`, a 404 a miss. Transfers are kept and reused (with their connections), one
/// per request at once; contents stream to and from files.
final class HTTPCacheClient: Sendable {
    /// Why a request failed (a 404 is no failure), in words that never hold credentials.
    struct Failure: Error, Sendable {
        let message: String
    }

    /// What the client did, for the run's line about the remote cache.
    struct Traffic: Sendable, Equatable {
        var requests = 0
        var downloaded: Int64 = 0
        var uploaded: Int64 = 0
        var seconds: TimeInterval = 0
    }

    /// The largest record document read.
    static let recordLimit: Int64 = 16 << 20

    private let settings: RemoteCacheSettings
    private let idle = Locked([CurlTransfer]())
    private let traffic = Locked(Traffic())

    init(settings: RemoteCacheSettings) {
        self.settings = settings
    }

    /// What the client has done so far.
    var totals: Traffic { traffic.withLock { $0 } }

    /// The record document under `key`; `nil` for a miss.
    func record(_ key: Digest) -> Result<[UInt8]?, Failure> {
        var request = self.request("GET", "ac/\(key.hex)")
        request.timeout = 2 * settings.timeout
        return send(request).flatMap { response in
            if response.status == 404 { return .success(nil) }
            guard (200..<300).contains(response.status) else {
                return .failure(answered(response.status))
            }
            guard Int64(response.body.count) <= Self.recordLimit else {
                return .failure(Failure(message: "a record from the remote cache is too large"))
            }
            return .success(response.body)
        }
    }

    /// Stores the record document `bytes` under `key`.
    func storeRecord(_ bytes: [UInt8], under key: Digest) -> Result<Void, Failure> {
        var request = self.request("PUT", "ac/\(key.hex)")
        request.body = bytes
        request.headers.append(("Content-Type", "application/json"))
        request.timeout = 2 * settings.timeout
        return send(request).flatMap { accepted($0) }
    }

    /// Whether the server holds the content `digest`.
    func hasContent(_ digest: Digest) -> Result<Bool, Failure> {
        var request = self.request("HEAD", "cas/\(digest.hex)")
        request.timeout = 2 * settings.timeout
        return send(request).flatMap { response in
            if response.status == 404 { return .success(false) }
            guard (200..<300).contains(response.status) else {
                return .failure(answered(response.status))
            }
            return .success(true)
        }
    }

    /// Writes the content `digest`, of `size` bytes, to the open file `descriptor`; false
    /// for a miss.
    func download(_ digest: Digest, size: Int64, to descriptor: Int32) -> Result<Bool, Failure> {
        var request = self.request("GET", "cas/\(digest.hex)")
        request.download = (descriptor, size)
        return send(request).flatMap { response in
            if response.status == 404 { return .success(false) }
            guard (200..<300).contains(response.status) else {
                return .failure(answered(response.status))
            }
            return .success(true)
        }
    }

    /// Uploads the open file `descriptor`, of `size` bytes, as the content `digest`.
    func upload(_ digest: Digest, from descriptor: Int32, size: Int64) -> Result<Void, Failure> {
        var request = self.request("PUT", "cas/\(digest.hex)")
        request.upload = (descriptor, size)
        request.headers.append(("Content-Type", "application/octet-stream"))
        return send(request).flatMap { accepted($0) }
    }

    // MARK: - Requests

    /// A request for `path` under the base URL, with the settings' headers and limits: a
    /// connection within the settings' timeout, and never slower than 1 KiB/s for as long.
    private func request(_ method: String, _ path: String) -> HTTPRequest {
        var request = HTTPRequest(
            method: method, url: "\(settings.url)/\(path)",
            headers: settings.headers.map { line in
                let colon = line.firstIndex(of: ":")!
                return (
                    String(line[..<colon]),
                    line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                )
            }, timeout: .infinity)
        request.connectTimeout = settings.timeout
        request.lowSpeed = (1024, max(1, Int(settings.timeout.rounded(.up))))
        request.usesNetrc = true
        request.followsRedirects = false
        return request
    }

    private func send(_ request: HTTPRequest) -> Result<HTTPResponse, Failure> {
        let started = Date()
        let transfer: CurlTransfer
        if let kept = idle.withLock({ $0.popLast() }) {
            transfer = kept
        } else {
            switch CurlTransport.shared.makeTransfer() {
            case .success(let made): transfer = made
            case .failure(let error): return .failure(Failure(message: error.message))
            }
        }
        let result = transfer.perform(request)
        idle.withLock { $0.append(transfer) }
        traffic.withLock { traffic in
            traffic.requests += 1
            traffic.seconds += Date().timeIntervalSince(started)
            if case .success(let response) = result, (200..<300).contains(response.status) {
                traffic.downloaded += response.downloaded
                if request.method == "PUT" { traffic.uploaded += response.uploaded }
            }
        }
        return result.mapError { error in
            // libcurl's messages name the URL; procflow's never show credentials.
            Failure(
                message: error.message.replacingOccurrences(
                    of: settings.url, with: settings.shownURL))
        }
    }

    private func accepted(_ response: HTTPResponse) -> Result<Void, Failure> {
        (200..<300).contains(response.status) ? .success(()) : .failure(answered(response.status))
    }

    private func answered(_ status: Int) -> Failure {
        Failure(
            message:
                "the server answered \(status)\(HTTPStatus.reasons[status].map { " \($0)" } ?? "")")
    }
}
