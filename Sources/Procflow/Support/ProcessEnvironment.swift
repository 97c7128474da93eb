#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The process's environment, `NAME=value` entries read from `environ` as Foundation's
/// `ProcessInfo.environment` reads them (text repaired where it is not UTF-8, a later entry of
/// a name over an earlier one), at a tenth of its cost: every run reads it once at its start.
func processEnvironment() -> [String: String] {
    var environment: [String: String] = [:]
    var entry = environ
    while let text = entry.pointee {
        if let equals = strchr(text, Int32(UInt8(ascii: "="))) {
            let nameLength = text.distance(to: equals)
            let name = UnsafeRawBufferPointer(start: text, count: nameLength)
            environment[String(decoding: name, as: UTF8.self)] = String(cString: equals + 1)
        }
        entry += 1
    }
    return environment
}

/// This machine's name, as `gethostname` gives it (Foundation's `ProcessInfo.hostName` gives
/// the same, after setting up `ProcessInfo`: a hundredth of a short run).
func hostName() -> String {
    var name = [UInt8](repeating: 0, count: 256)
    let found = name.withUnsafeMutableBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { gethostname($0.baseAddress!, $0.count - 1) }
    }
    guard found == 0 else { return "localhost" }
    return String(decoding: name.prefix { $0 != 0 }, as: UTF8.self)
}
