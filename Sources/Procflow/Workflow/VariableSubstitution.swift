/// `${name}` references to workflow variables. `$${` stands for a literal `${`.
///
/// Variables are filled in when the workflow is loaded, in the fields that name things
/// (paths, URLs, headers, argv, environment values) — never in shell scripts, which get the
/// variables as environment variables instead, so the shell expands them as data.
///
/// In a `forEach` step, references to its item (`${item}`, `${item.field}`) are filled in for
/// each instance instead: loading leaves them, and `$${`, as written, and ``fillItem(_:_:into:)``
/// makes the final pass.
enum VariableSubstitution {
    enum Problem: Error, Equatable {
        case unknown(String)
        case unterminated
        /// `${item.a.b}` names a field the item does not have.
        case noField(String)
    }

    /// `text` with its references to `values` filled in; references whose first name is
    /// `deferred` are left for the instance, and so is `$${`.
    static func substitute(_ text: String, _ values: [String: String], deferring deferred: String?)
        -> Result<String, Problem>
    {
        fill(text) { reference in
            let head = reference.split(separator: ".", maxSplits: 1).first.map(String.init) ?? ""
            if let deferred, head == deferred { return .keep }
            return values[reference].map(Replacement.value) ?? .unknown
        } literal: {
            deferred == nil ? "${" : "$${"
        }
    }

    /// `text` with `${variable}` and `${variable.a.b}` replaced by `item`, or the part of it
    /// the path names (a string as is, anything else as JSON text), and `$${` by `${`.
    static func fillItem(_ text: String, _ variable: String, into item: JSONValue) -> Result<
        String, Problem
    > {
        fill(text) { reference in
            var path = reference.split(separator: ".", omittingEmptySubsequences: false)
            guard path.first.map(String.init) == variable else { return .unknown }
            path.removeFirst()
            let pointer = JSONPointer(tokens: path.map(String.init))
            guard let value = item.value(at: pointer) else { return .noField }
            return .value(value.text)
        } literal: {
            "${"
        }
    }

    private enum Replacement {
        case value(String)
        case keep
        case unknown
        case noField
    }

    private static func fill(
        _ text: String, _ replacement: (String) -> Replacement, literal: () -> String
    ) -> Result<String, Problem> {
        // A byte scan: most strings have no `$`, and Foundation's `contains` is slow.
        guard text.containsByte(UInt8(ascii: "$")), text.contains("${") else {
            return .success(text)
        }
        var result = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            result += rest[..<dollar]
            let after = rest[dollar...].dropFirst()
            if after.hasPrefix("${") {
                result += literal()
                rest = after.dropFirst(2)
            } else if after.hasPrefix("{") {
                guard let close = after.firstIndex(of: "}") else { return .failure(.unterminated) }
                let name = String(after[after.index(after: after.startIndex)..<close])
                switch replacement(name) {
                case .value(let value): result += value
                case .keep: result += "${\(name)}"
                case .unknown: return .failure(.unknown(name))
                case .noField: return .failure(.noField(name))
                }
                rest = after[after.index(after: close)...]
            } else {
                result += "$"
                rest = after
            }
        }
        result += rest
        return .success(result)
    }
}
