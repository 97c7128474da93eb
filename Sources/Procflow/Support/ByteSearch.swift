#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension StringProtocol {
    /// Whether the text's UTF-8 holds `byte`: one `memchr` over contiguous storage, where
    /// `utf8.contains` steps through the view an index at a time (the difference shows on
    /// every line of a command's output).
    func containsByte(_ byte: UInt8) -> Bool {
        utf8.withContiguousStorageIfAvailable { bytes in
            guard let base = bytes.baseAddress else { return false }
            return memchr(base, Int32(byte), bytes.count) != nil
        } ?? utf8.contains(byte)
    }

    /// Whether a byte of the text's UTF-8 satisfies `predicate`: a loop over contiguous storage
    /// (see ``containsByte(_:)``).
    func containsByte(where predicate: (UInt8) -> Bool) -> Bool {
        utf8.withContiguousStorageIfAvailable { $0.contains(where: predicate) }
            ?? utf8.contains(where: predicate)
    }
}

extension String {
    /// Whether every byte of the text's UTF-8 is ASCII: a loop over contiguous storage, where
    /// `utf8.allSatisfy` steps through the view an index at a time (every key of a workflow
    /// file is checked).
    var isAllASCII: Bool {
        !containsByte { $0 >= 0x80 }
    }
}

extension String {
    /// The parts of the text between the occurrences of the ASCII byte `separator`, empty parts
    /// left out: `split(separator:)` by bytes. A split by characters walks grapheme clusters
    /// (a path's names cost more that way than the state directory's lookups around them).
    func parts(between separator: UInt8) -> [Substring] {
        var parts: [Substring] = []
        let bytes = utf8
        var start = bytes.startIndex
        var index = start
        while index != bytes.endIndex {
            if bytes[index] == separator {
                if start != index { parts.append(self[start..<index]) }
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        if start != bytes.endIndex { parts.append(self[start..<bytes.endIndex]) }
        return parts
    }
}
