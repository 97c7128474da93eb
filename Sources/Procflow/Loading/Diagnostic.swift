/// A problem found in a workflow file: where it is, and what is wrong.
///
/// Printed as `build.json:12:7: error: /procedures/3/dependsOn/0: unknown procedure "compil"
/// (did you mean "compile"?)`.
public struct Diagnostic: Error, Sendable, CustomStringConvertible, Equatable {
    /// The file the problem is in, as it was named.
    public var file: String
    /// Where in the file, when the problem is with one place in it.
    public var location: SourceLocation?
    /// The JSON Pointer of the value at fault, if the problem is with one value.
    public var pointer: JSONPointer?
    /// What is wrong, in a sentence.
    public var message: String

    /// A problem in `file`, at `location`, with the value at `pointer`.
    public init(file: String, location: SourceLocation?, pointer: JSONPointer?, message: String) {
        self.file = file
        self.location = location
        self.pointer = pointer
        self.message = message
    }

    /// The one-line form, without colour.
    public var description: String {
        rendered(colored: false)
    }

    /// The one-line form, with "error:" in bold red when `colored`. Control characters that
    /// came from the file (in ids, keys, values) are escaped.
    public func rendered(colored: Bool) -> String {
        var prefix = file
        if let location { prefix += ":\(location.line):\(location.column)" }
        let label = colored ? "\u{1B}[1;31merror:\u{1B}[0m" : "error:"
        var text = ""
        if let pointer, !pointer.isRoot { text += "\(pointer): " }
        text += message
        return "\(prefix.escapingControlCharacters): \(label) \(text.escapingControlCharacters)"
    }
}
