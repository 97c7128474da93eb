/// Why the cache could not do something: a sentence naming the file and the reason.
struct CacheProblem: Error, Equatable, CustomStringConvertible {
    let message: String

    var description: String { message }
}
