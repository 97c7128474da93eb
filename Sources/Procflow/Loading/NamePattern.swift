/// Rules for names used as keys: environment variable names, ids.
enum NamePattern {
    case any
    case environmentVariable

    func problem(with name: String) -> String? {
        switch self {
        case .any:
            return nil
        case .environmentVariable:
            // ASCII letters, digits and _, by bytes: any other byte, non-ASCII ones among
            // them, makes the name invalid.
            func isLetter(_ byte: UInt8) -> Bool {
                byte == UInt8(ascii: "_")
                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
            }
            guard let first = name.utf8.first, isLetter(first),
                name.utf8.allSatisfy({
                    isLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                })
            else {
                return
                    "\"\(name)\" is not a valid environment variable name: use letters, digits and _, not starting with a digit"
            }
            return nil
        }
    }
}
