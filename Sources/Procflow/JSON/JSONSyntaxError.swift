/// A JSON syntax error at a byte offset.
struct JSONSyntaxError: Error {
    let message: String
    let offset: Int
}
