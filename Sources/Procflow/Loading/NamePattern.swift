/// Rules for names used as keys: environment variable names, ids.
enum NamePattern {
    case any
    case environmentVariable

    func problem(with name: String) -> String? {
        switch self {
        case .any:
            return nil
        case .environmentVariable:
            guard let first = name.unicodeScalars.first,
                first == "_" || (first.isASCII && first.properties.isAlphabetic),
                name.unicodeScalars.allSatisfy({
                    $0 == "_" || ($0.isASCII && $0.properties.isAlphabetic)
                        || ("0"..."9").contains($0)
                })
            else {
                return
                    "\"\(name)\" is not a valid environment variable name: use letters, digits and _, not starting with a digit"
            }
            return nil
        }
    }
}
