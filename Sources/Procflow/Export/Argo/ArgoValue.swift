/// Where a manifest finds a value that one step gives another, and what the value is.
///
/// Values travel between pods base64-encoded: Argo reads `{{` in any text it handles, values
/// passed on included, so raw data could be rewritten on the way, and it trims a final newline
/// from outputs. Base64 has neither problem. Only procflow, in a pod, ever decodes a value, so
/// a `select` stays a JSON Pointer applied by procflow itself, with its typed semantics.
struct ArgoValue {
    /// Where the encoded value is.
    enum Source: Equatable {
        /// An output parameter of a task of the same DAG.
        case parameter(task: String, name: String)
        /// The body of an HTTP task of the same DAG (raw, so encoded by an expression).
        case result(task: String)
        /// An input parameter of the DAG template.
        case input(String)
    }

    var source: Source
    /// Text or JSON.
    var format: OutputFormat
    /// The part of a JSON value taken, applied by procflow when the value is read.
    var select: JSONPointer?

    /// The value with `pointer` selected from it too.
    func selecting(_ pointer: JSONPointer?) -> ArgoValue {
        guard let pointer, !pointer.isRoot else { return self }
        var copy = self
        copy.select = JSONPointer(tokens: (select?.tokens ?? []) + pointer.tokens)
        return copy
    }

    /// Whether a command can be given the value as it is: text, whole.
    var isPlainText: Bool {
        format == .text && (select?.isRoot ?? true)
    }

    /// The tag that gives the encoded value in a task's arguments.
    var argument: String {
        switch source {
        case .parameter(let task, let name): return "{{tasks.\(task).outputs.parameters.\(name)}}"
        case .result(let task): return "{{=\(Self.encodedResult(task))}}"
        case .input(let name): return "{{inputs.parameters.\(name)}}"
        }
    }

    /// How a DAG template's output parameter takes the encoded value.
    var valueFrom: Manifest {
        switch source {
        case .parameter, .input: return .members(["parameter": .string(argument), "default": ""])
        case .result(let task):
            return .members(["expression": .string(Self.encodedResult(task)), "default": ""])
        }
    }

    /// An expression giving an HTTP task's body, base64-encoded; empty if there is none.
    private static func encodedResult(_ task: String) -> String {
        "sprig.b64enc(tasks['\(task)'].outputs.result ?? '')"
    }
}
