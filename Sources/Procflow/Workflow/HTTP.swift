/// An HTTP request.
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
}
