#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where `name` is found in `searchPath` (colon-separated; relative entries are relative to
/// `directory`), as execvp(3) would find it: the first regular file that may be executed.
func executablePath(for name: String, searchPath: String?, in directory: String?) -> String? {
    let path = Array((searchPath ?? "/bin:/usr/bin").utf8)
    // Each candidate is made in one buffer of bytes: making strings of them costs more than the
    // `stat` calls (this runs for every command started).
    var candidate: [UInt8] = []
    candidate.reserveCapacity(256)
    var start = 0
    while true {
        var end = start
        while end < path.count, path[end] != UInt8(ascii: ":") { end += 1 }
        candidate.removeAll(keepingCapacity: true)
        if start == end || path[start] != UInt8(ascii: "/"), let directory {
            candidate.append(contentsOf: directory.utf8)
            candidate.append(UInt8(ascii: "/"))
        }
        if start == end {
            candidate.append(UInt8(ascii: "."))
        } else {
            candidate.append(contentsOf: path[start..<end])
        }
        candidate.append(UInt8(ascii: "/"))
        candidate.append(contentsOf: name.utf8)
        candidate.append(0)
        let found = candidate.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { file in
                var info = stat()
                return stat(file.baseAddress!, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
                    && access(file.baseAddress!, X_OK) == 0
            }
        }
        if found { return String(decoding: candidate.dropLast(), as: UTF8.self) }
        guard end < path.count else { return nil }
        start = end + 1
    }
}
