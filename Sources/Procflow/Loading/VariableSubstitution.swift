/// `${name}` references to workflow variables. `$${` stands for a literal `${`.
///
/// Variables are filled in when the workflow is loaded, in the fields that name things
/// (paths, URLs, headers, argv, environment values) — never in shell scripts, which get the
/// variables as environment variables instead, so the shell expands them as data.
enum VariableSubstitution {
    enum Problem: Error, Equatable {
        case unknown(String)
        case unterminated
    }

    static func substitute(_ text: String, _ values: [String: String]) -> Result<String, Problem> {
        // A byte scan: most strings have no `$`, and Foundation's `contains` is slow.
        guard text.utf8.contains(UInt8(ascii: "$")), text.contains("${") else {
            return .success(text)
        }
        var result = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            result += rest[..<dollar]
            let after = rest[dollar...].dropFirst()
            if after.hasPrefix("${") {
                result += "${"
                rest = after.dropFirst(2)
            } else if after.hasPrefix("{") {
                guard let close = after.firstIndex(of: "}") else { return .failure(.unterminated) }
                let name = String(after[after.index(after: after.startIndex)..<close])
                guard let value = values[name] else { return .failure(.unknown(name)) }
                result += value
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
