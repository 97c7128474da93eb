import Foundation

/// What the server answered.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The headers, by name.
    public var headers: [String: String]
    /// The body (empty when it went to a file).
    public var body: [UInt8]
    /// Bytes of body sent and received.
    var uploaded: Int64 = 0
    var downloaded: Int64 = 0

    /// A response with `status`, `headers` and `body`.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
