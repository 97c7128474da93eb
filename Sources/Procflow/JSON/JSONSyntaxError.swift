/// A JSON syntax error at a byte offset.
struct JSONSyntaxError: Error {
    let message: String
    let offset: Int
    /// Whether arrays and objects nest deeper than the parser allows.
    var isTooDeep = false
}
