#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where `name` is found in `searchPath` (colon-separated; relative entries are relative to
/// `directory`), as execvp(3) would find it: the first regular file that may be executed.
func executablePath(for name: String, searchPath: String?, in directory: String?) -> String? {
    let path = searchPath ?? "/bin:/usr/bin"
    // Split at the colons by bytes: splitting a text by characters walks grapheme boundaries,
    // which cost more than the `stat` calls (this runs for every command started).
    var start = path.utf8.startIndex
    while true {
        let end = path.utf8[start...].firstIndex(of: UInt8(ascii: ":")) ?? path.utf8.endIndex
        var folder = start == end ? "." : String(path[start..<end])
        if !folder.hasPrefix("/"), let directory { folder = directory + "/" + folder }
        let candidate = folder + "/" + name
        var info = stat()
        if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
            access(candidate, X_OK) == 0
        {
            return candidate
        }
        guard end < path.utf8.endIndex else { return nil }
        start = path.utf8.index(after: end)
    }
}
