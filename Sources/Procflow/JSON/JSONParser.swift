/// Parses JSON (RFC 8259) without recursion, so hostile input cannot exhaust the stack, and
/// with a limit on nesting so that nothing downstream can either. A UTF-8 byte order mark is
/// skipped. Workflow files may also hold `//` and `/* */` comments and trailing commas, as
/// `tsconfig.json` and VS Code's settings do ("JSON with comments"); values commands and
/// servers give are read as strict JSON.
struct JSONParser {
    /// How deeply arrays and objects may nest. Workflows need a handful of levels.
    static let maximumDepth = 256

    private let bytes: [UInt8]
    private var index = 0
    /// Whether comments and trailing commas are allowed.
    private let withComments: Bool
    /// The levels the document is nested in already: an included workflow file is nested in
    /// the files that include it, and counts their levels.
    private let enclosingDepth: Int

    /// An array or object being read: its elements or members so far are those of
    /// ``pendingItems`` or ``pendingMembers`` from `first` on.
    private struct Frame {
        let isObject: Bool
        let offset: Int
        let first: Int
        var key = ""
        var keyOffset = 0
    }

    /// The elements of the arrays being read, the innermost array's last: each array takes a
    /// list of the size it needs as it closes. (Each object reserved room for eight members as
    /// it opened, 448 bytes, most of it unused in a step's small objects: the parse's tree was
    /// 5.4 times the file.)
    private var pendingItems: [JSONNode] = []
    /// The members of the objects being read, the innermost object's last.
    private var pendingMembers: [JSONNode.Member] = []

    /// Parses `bytes`, a document nested `enclosingDepth` levels deep already; with
    /// `withComments`, JSON with comments and trailing commas.
    static func parse(_ bytes: [UInt8], enclosingDepth: Int = 0, withComments: Bool = false)
        throws(JSONSyntaxError) -> JSONNode
    {
        var parser = JSONParser(
            bytes: bytes, enclosingDepth: enclosingDepth, withComments: withComments)
        return try parser.parseDocument()
    }

    private init(bytes: [UInt8], enclosingDepth: Int, withComments: Bool) {
        self.bytes = bytes
        self.enclosingDepth = enclosingDepth
        self.withComments = withComments
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    private mutating func parseDocument() throws(JSONSyntaxError) -> JSONNode {
        try skipWhitespace()
        guard index < bytes.count else {
            throw JSONSyntaxError(
                message: "the file is empty: expected a JSON object", offset: index)
        }
        var stack: [Frame] = []
        while true {
            guard var node = try openValue(on: &stack) else { continue }
            // Have a value: attach it, closing containers as they end.
            while let closed = try attach(node, to: &stack) { node = closed }
            if stack.isEmpty {
                try skipWhitespace()
                guard index == bytes.count else {
                    throw JSONSyntaxError(
                        message: "unexpected \(describeNext()) after the end of the JSON value",
                        offset: index)
                }
                return node
            }
        }
    }

    /// Reads the start of a value: a whole scalar or empty container, which it returns, or the
    /// opening of a container with members to come, which it pushes on `stack`.
    private mutating func openValue(on stack: inout [Frame]) throws(JSONSyntaxError) -> JSONNode? {
        try skipWhitespace()
        let start = index
        switch peek() {
        case UInt8(ascii: "{"):
            try checkDepth(stack.count)
            index += 1
            try skipWhitespace()
            if peek() == UInt8(ascii: "}") {
                index += 1
                return JSONNode(value: .object([]), offset: start)
            }
            let (key, keyOffset) = try parseKey()
            stack.append(
                Frame(
                    isObject: true, offset: start, first: pendingMembers.count, key: key,
                    keyOffset: keyOffset))
            return nil
        case UInt8(ascii: "["):
            try checkDepth(stack.count)
            index += 1
            try skipWhitespace()
            if peek() == UInt8(ascii: "]") {
                index += 1
                return JSONNode(value: .array([]), offset: start)
            }
            stack.append(Frame(isObject: false, offset: start, first: pendingItems.count))
            return nil
        default:
            return try parseScalar()
        }
    }

    /// Adds a finished value to the container on top of `stack` and reads what follows it:
    /// returns the container if that closes it (popped, to be attached in turn), or `nil` when
    /// another member follows, or when `stack` is empty (the value is the document).
    private mutating func attach(_ node: JSONNode, to stack: inout [Frame]) throws(JSONSyntaxError)
        -> JSONNode?
    {
        guard !stack.isEmpty else { return nil }
        let top = stack.count - 1
        let end = index
        try skipWhitespace()
        let isObject = stack[top].isObject
        let closer = UInt8(ascii: isObject ? "}" : "]")
        if isObject {
            pendingMembers.append(
                JSONNode.Member(key: stack[top].key, keyOffset: stack[top].keyOffset, value: node))
        } else {
            pendingItems.append(node)
        }
        let what = isObject ? "an object member" : "an array element"
        switch peek() {
        case UInt8(ascii: ","):
            let comma = index
            index += 1
            try skipWhitespace()
            if peek() == closer {
                guard withComments else {
                    throw JSONSyntaxError(
                        message:
                            "a trailing comma before '\(Character(Unicode.Scalar(closer)))': JSON allows none",
                        offset: comma)
                }
                return close(&stack)
            }
            if isObject { (stack[top].key, stack[top].keyOffset) = try parseKey() }
            return nil
        case closer:
            return close(&stack)
        case let next? where startsValue(next) && (!isObject || next == UInt8(ascii: "\"")):
            // Another member where a comma belongs: say so where it belongs.
            throw JSONSyntaxError(message: "missing ',' after \(what)", offset: end)
        default:
            throw JSONSyntaxError(
                message:
                    "expected ',' or '\(Character(Unicode.Scalar(closer)))' after \(what), found \(describeNext())",
                offset: index)
        }
    }

    /// Closes the container on top of `stack` at its closing bracket: pops it and returns it.
    private mutating func close(_ stack: inout [Frame]) -> JSONNode {
        index += 1
        let frame = stack.removeLast()
        let value: JSONNode.Value
        if frame.isObject {
            value = .object(Array(pendingMembers[frame.first...]))
            pendingMembers.removeSubrange(frame.first...)
        } else {
            value = .array(Array(pendingItems[frame.first...]))
            pendingItems.removeSubrange(frame.first...)
        }
        return JSONNode(value: value, offset: frame.offset)
    }

    /// Whether `byte` can start a JSON value.
    private func startsValue(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "-"),
            UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return false
        }
    }

    private func checkDepth(_ depth: Int) throws(JSONSyntaxError) {
        guard depth + enclosingDepth < Self.maximumDepth else {
            throw JSONSyntaxError(
                message: "arrays and objects nest deeper than \(Self.maximumDepth) levels",
                offset: index, isTooDeep: true)
        }
    }

    /// Parses `"key" :` and returns the key and its offset.
    private mutating func parseKey() throws(JSONSyntaxError) -> (String, Int) {
        let offset = index
        guard peek() == UInt8(ascii: "\"") else {
            throw JSONSyntaxError(
                message: "expected '\"' to start an object key, found \(describeNext())",
                offset: index)
        }
        let key = try parseString()
        try skipWhitespace()
        guard peek() == UInt8(ascii: ":") else {
            throw JSONSyntaxError(
                message: "expected ':' after the object key \"\(key)\", found \(describeNext())",
                offset: index)
        }
        index += 1
        return (key, offset)
    }

    private mutating func parseScalar() throws(JSONSyntaxError) -> JSONNode {
        let start = index
        switch peek() {
        case UInt8(ascii: "\""):
            return JSONNode(value: .string(try parseString()), offset: start)
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return JSONNode(value: .bool(true), offset: start)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return JSONNode(value: .bool(false), offset: start)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return JSONNode(value: .null, offset: start)
        case UInt8(ascii: "-"), .some(UInt8(ascii: "0")...UInt8(ascii: "9")):
            return JSONNode(value: .number(try parseNumber()), offset: start)
        default:
            throw JSONSyntaxError(
                message: "expected a value, found \(describeNext())", offset: index)
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let start = index
        let count = literal.utf8CodeUnitCount
        let matches = literal.withUTF8Buffer { expected in
            bytes.count - index >= count
                && (0..<count).allSatisfy { bytes[index + $0] == expected[$0] }
        }
        guard matches else {
            throw JSONSyntaxError(
                message: "expected a value, found \(describeNext())", offset: start)
        }
        index += count
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> Double {
        let start = index
        func digits() -> Int {
            let first = index
            while index < bytes.count,
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index])
            {
                index += 1
            }
            return index - first
        }
        let negative = peek() == UInt8(ascii: "-")
        if negative { index += 1 }
        let leadingZero = peek() == UInt8(ascii: "0")
        let integerStart = index
        let integerDigits = digits()
        var valid = integerDigits > 0 && !(leadingZero && integerDigits > 1)
        var isInteger = true
        if valid, peek() == UInt8(ascii: ".") {
            index += 1
            valid = digits() > 0
            isInteger = false
        }
        if valid, peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            valid = digits() > 0
            isInteger = false
        }
        if valid, isInteger, integerDigits <= 15 {
            // Exact in a Double (below 2^53): no text to make and convert.
            var magnitude = 0
            for position in integerStart..<integerStart + integerDigits {
                magnitude = magnitude * 10 + Int(bytes[position] - UInt8(ascii: "0"))
            }
            return negative ? -Double(magnitude) : Double(magnitude)
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard valid, let number = Double(text), number.isFinite else {
            throw JSONSyntaxError(message: "invalid number \(text)", offset: start)
        }
        return number
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = index
        index += 1  // the opening quote
        let contentStart = index
        // Fast path: no escapes. Scanned through a buffer pointer: strings can be huge.
        var seen: UInt8 = 0
        index = bytes.withUnsafeBufferPointer { buffer in
            var position = contentStart
            while position < buffer.count {
                let byte = buffer[position]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                seen |= byte
                position += 1
            }
            return position
        }
        if index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let content = bytes[contentStart..<index]
                index += 1
                // ASCII, the common case, needs no validation beyond the scan.
                if seen < 0x80 { return String(decoding: content, as: UTF8.self) }
                return try decode(content, at: contentStart)
            }
            if byte < 0x20 { throw controlCharacter(byte, stringStart: start) }
        }
        var buffer = Array(bytes[contentStart..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try decode(buffer[...], at: contentStart)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &buffer)
            case 0..<0x20:
                throw controlCharacter(byte, stringStart: start)
            default:
                buffer.append(byte)
                index += 1
            }
        }
        throw JSONSyntaxError(message: "unterminated string", offset: start)
    }

    /// A control character in the string that opened at `stringStart`. A line break most
    /// often means that the string was never closed: reported at its opening quote.
    private func controlCharacter(_ byte: UInt8, stringStart: Int) -> JSONSyntaxError {
        if byte == UInt8(ascii: "\n") {
            return JSONSyntaxError(
                message:
                    "a string not closed before the end of its line (a line break in a string is written \\n)",
                offset: stringStart)
        }
        let hex = String(byte, radix: 16, uppercase: true)
        return JSONSyntaxError(
            message:
                "control character U+\(String(repeating: "0", count: 4 - hex.count))\(hex) in a string",
            offset: index)
    }

    private mutating func parseEscape(into buffer: inout [UInt8]) throws(JSONSyntaxError) {
        let start = index
        index += 1
        guard index < bytes.count else {
            throw JSONSyntaxError(message: "unterminated string", offset: start)
        }
        let escaped = bytes[index]
        index += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escaped)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4(escapeStart: start)
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else {
                    throw JSONSyntaxError(
                        message: "unpaired surrogate in \\u escape", offset: start)
                }
                index += 2
                let low = try parseHex4(escapeStart: start)
                guard (0xDC00..<0xE000).contains(low) else {
                    throw JSONSyntaxError(
                        message: "unpaired surrogate in \\u escape", offset: start)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw JSONSyntaxError(message: "unpaired surrogate in \\u escape", offset: start)
            }
            buffer.append(contentsOf: Array(String(Unicode.Scalar(scalar)!).utf8))
        default:
            let shown =
                (0x21..<0x7F).contains(escaped)
                ? "\\\(Character(Unicode.Scalar(escaped)))" : "\\ followed by \(describe(escaped))"
            throw JSONSyntaxError(message: "invalid escape \(shown) in a string", offset: start)
        }
    }

    private mutating func parseHex4(escapeStart: Int) throws(JSONSyntaxError) -> UInt32 {
        guard bytes.count - index >= 4 else {
            throw JSONSyntaxError(
                message: "invalid \\u escape: expected 4 hex digits", offset: escapeStart)
        }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            guard let digit = hexDigit(byte) else {
                throw JSONSyntaxError(
                    message: "invalid \\u escape: expected 4 hex digits", offset: escapeStart)
            }
            value = value << 4 | digit
        }
        index += 4
        return value
    }

    private func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    /// Decodes string content, rejecting invalid UTF-8 with the offset of the first bad byte.
    private func decode(_ content: ArraySlice<UInt8>, at offset: Int) throws(JSONSyntaxError)
        -> String
    {
        let valid = content.withUnsafeBufferPointer { buffer -> String? in
            // ASCII, the common case, needs no validation beyond the byte scan.
            if buffer.allSatisfy({ $0 < 0x80 }) { return String(decoding: buffer, as: UTF8.self) }
            return String(validating: buffer, as: UTF8.self)
        }
        if let valid { return valid }
        var position = offset
        var iterator = content.makeIterator()
        var decoder = UTF8()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): position += String(scalar).utf8.count
            case .emptyInput: break loop
            case .error: break loop
            }
        }
        throw JSONSyntaxError(message: "invalid UTF-8 in a string", offset: position)
    }

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    /// Skips whitespace, and comments where they are allowed.
    private mutating func skipWhitespace() throws(JSONSyntaxError) {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                index += 1
            case UInt8(ascii: "/") where withComments && index + 1 < bytes.count:
                let start = index
                switch bytes[index + 1] {
                case UInt8(ascii: "/"):
                    index += 2
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
                case UInt8(ascii: "*"):
                    index += 2
                    while index + 1 < bytes.count,
                        !(bytes[index] == UInt8(ascii: "*")
                            && bytes[index + 1] == UInt8(ascii: "/"))
                    {
                        index += 1
                    }
                    guard index + 1 < bytes.count else {
                        throw JSONSyntaxError(
                            message: "a comment opened with /* is never closed with */",
                            offset: start)
                    }
                    index += 2
                default:
                    return
                }
            default:
                return
            }
        }
    }

    private func describeNext() -> String {
        guard let byte = peek() else { return "the end of the file" }
        return describe(byte)
    }

    private func describe(_ byte: UInt8) -> String {
        if (0x21..<0x7F).contains(byte) { return "'\(Character(Unicode.Scalar(byte)))'" }
        if byte == UInt8(ascii: " ") { return "a space" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }
}
