/// An HTTP request.
public struct HTTP: Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    /// A body given in the file; a JSON object or array is sent as JSON.
    public var body: JSONValue?
    /// The status codes that count as success; empty for 200–299.
    public var expect: [Int]
    public var output: OutputFormat
}
