import CProcflow
import Foundation

extension CurlTransfer {
    /// One line saying why `request` got no answer, naming the host (and its port).
    static func message(
        for failure: procflow_http_failure, _ detail: String, request: HTTPRequest
    ) -> String {
        let url = URL(string: request.url)
        let name = url?.host ?? request.url
        let host = url?.port.map { "\(name):\($0)" } ?? name
        switch failure {
        case PROCFLOW_HTTP_CANCELLED: return "cancelled"
        case PROCFLOW_HTTP_REFUSED: return "connection refused by \(host)"
        case PROCFLOW_HTTP_UNREACHABLE: return "cannot reach \(host): \(detail)"
        case PROCFLOW_HTTP_UNRESOLVED: return "cannot resolve the host \(name)"
        case PROCFLOW_HTTP_TIMED_OUT:
            return "no answer from \(host) within \(seconds(request.timeout)) s"
        case PROCFLOW_HTTP_TLS: return "TLS failed with \(host): \(detail)"
        case PROCFLOW_HTTP_LOST: return "the connection to \(host) was lost"
        case PROCFLOW_HTTP_UNSUPPORTED_URL: return "unsupported URL \(request.url)"
        case PROCFLOW_HTTP_TOO_LARGE: return "the answer from \(host) was larger than expected"
        default: return "request to \(host) failed: \(detail)"
        }
    }

    /// Seconds as written in a workflow: "2", "0.5", "1.25".
    private static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
