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
    /// Seconds the whole exchange may take, to the millisecond; infinity for no limit.
    public var timeout: TimeInterval
    /// A body streamed from an open file: its descriptor and length (``body`` is ignored).
    var upload: (descriptor: Int32, length: Int64)?
    /// Where the answer's body goes instead of memory: an open file, and the most bytes it
    /// may hold.
    var download: (descriptor: Int32, limit: Int64)?
    /// Seconds connecting may take; libcurl's default when `nil`.
    var connectTimeout: TimeInterval?
    /// The slowest a transfer may go, for how long, before it is given up: `nil` for no bound.
    var lowSpeed: (bytesPerSecond: Int, seconds: Int)?
    /// Whether credentials come from ~/.netrc for a host the URL names none for.
    var usesNetrc = false
    /// Whether redirects are followed.
    var followsRedirects = true

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
