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

/// Sends HTTP requests for ``HTTPProcedure``.
public protocol HTTPTransport: Sendable {
    /// Sends `request`; calls `completion` once, on any thread, with the response or a
    /// one-line reason it could not be had. The returned closure cancels the request.
    func send(
        _ request: HTTPRequest,
        completion: @escaping @Sendable (Result<HTTPResponse, StepError>) -> Void
    ) -> @Sendable () -> Void
}
