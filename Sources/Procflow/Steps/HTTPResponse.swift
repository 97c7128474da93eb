import Foundation

/// What the server answered.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The headers, by name.
    public var headers: [String: String]
    /// The body.
    public var body: [UInt8]

    /// A response with `status`, `headers` and `body`.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
