/// An HTTP request, as a workflow describes it and ``HTTPProcedure`` makes it.
public struct HTTP: Sendable {
    /// The method, such as `GET`.
    public var method: String
    /// The URL, variables filled in.
    public var url: String
    /// Headers, in file order.
    public var headers: [(name: String, value: String)]
    /// A body given in the file; a JSON object or array is sent as JSON.
    public var body: JSONValue?
    /// The status codes that count as success; empty for 200–299.
    public var expect: [Int]
    /// What becomes of the response body.
    public var output: OutputFormat

    /// A request to `url`; by default a GET with no headers or body, accepting 2xx statuses,
    /// whose body becomes text.
    public init(
        method: String = "GET", url: String, headers: [(name: String, value: String)] = [],
        body: JSONValue? = nil, expect: [Int] = [], output: OutputFormat = .text
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.expect = expect
        self.output = output
    }
}
