import Foundation

/// An HTTP request as ``HTTPProcedure`` sends it.
public struct HTTPRequest: Sendable {
    /// The method, such as `GET`.
    public var method: String
    /// The URL, `http` or `https`.
    public var url: String
    /// Headers, in order.
    public var headers: [(name: String, value: String)]
    /// The body, if any.
    public var body: [UInt8]?
    /// Seconds the whole exchange may take, to the millisecond.
    public var timeout: TimeInterval

    /// A request; by default a GET with no headers or body and a 60 s timeout.
    public init(
        method: String = "GET", url: String, headers: [(name: String, value: String)] = [],
        body: [UInt8]? = nil, timeout: TimeInterval = 60
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}
