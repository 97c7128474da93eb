#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where `name` is found in `searchPath` (colon-separated; relative entries are relative to
/// `directory`), as execvp(3) would find it: the first regular file that may be executed.
func executablePath(for name: String, searchPath: String?, in directory: String?) -> String? {
    for entry in (searchPath ?? "/bin:/usr/bin").split(
        separator: ":", omittingEmptySubsequences: false)
    {
        var folder = entry.isEmpty ? "." : String(entry)
        if !folder.hasPrefix("/"), let directory { folder = directory + "/" + folder }
        let candidate = folder + "/" + name
        var info = stat()
        if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
            access(candidate, X_OK) == 0
        {
            return candidate
        }
    }
    return nil
}
