#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A NULL-terminated array of C strings in one allocation, as exec takes them: each string is
/// a `name` alone, or `name=value`.
///
/// Building it costs a copy of the bytes, not an allocation and a conversion per string: an
/// environment of a few dozen variables is rendered for every command.
struct CStringArray {
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let bytes: UnsafeMutableRawPointer

    init<Strings: Sequence<(String, String?)>>(
        _ strings: Strings, plus last: (name: String, value: String?)? = nil
    ) {
        var size = 0
        var count = 0
        func measure(_ name: String, _ value: String?) {
            size += name.utf8.count + 1 + (value.map { $0.utf8.count + 1 } ?? 0)
            count += 1
        }
        for (name, value) in strings { measure(name, value) }
        if let last { measure(last.name, last.value) }

        let bytes = UnsafeMutableRawPointer.allocate(byteCount: max(size, 1), alignment: 1)
        let pointers = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(
            capacity: count + 1)
        var offset = 0
        var index = 0
        func append(_ text: String) {
            let copied = text.utf8.withContiguousStorageIfAvailable { source in
                if let base = source.baseAddress {
                    (bytes + offset).copyMemory(from: base, byteCount: source.count)
                }
                return source.count
            }
            if let copied {
                offset += copied
                return
            }
            for byte in text.utf8 {  // a bridged string without contiguous UTF-8
                bytes.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
                offset += 1
            }
        }
        func store(_ name: String, _ value: String?) {
            pointers[index] = (bytes + offset).assumingMemoryBound(to: CChar.self)
            index += 1
            append(name)
            if let value {
                bytes.storeBytes(of: UInt8(ascii: "="), toByteOffset: offset, as: UInt8.self)
                offset += 1
                append(value)
            }
            bytes.storeBytes(of: 0, toByteOffset: offset, as: UInt8.self)
            offset += 1
        }
        for (name, value) in strings { store(name, value) }
        if let last { store(last.name, last.value) }
        pointers[index] = nil
        self.bytes = bytes
        self.pointers = pointers
    }

    func deallocate() {
        bytes.deallocate()
        pointers.deallocate()
    }
}
