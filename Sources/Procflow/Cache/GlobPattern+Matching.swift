extension GlobPattern {
    /// Whether expanding the pattern in `directory` (absolute) could give the file at `path`
    /// (absolute, without `.` or `..`): the pattern names it, or a directory above it. This
    /// answers for a file that changed, without listing any directory.
    func matches(path: String, in directory: String) -> Bool {
        let (base, rest) = split(in: directory)
        if path == base { return rest.isEmpty }
        let prefix = base == "/" ? "/" : base + "/"
        guard path.hasPrefix(prefix) else { return false }
        let names = path.dropFirst(prefix.count).split(separator: "/").map(String.init)
        return Self.match(rest, names[...])
    }

    /// The directory every file the pattern gives is below, expanded in `directory`: where
    /// its leading names without wildcards lead. For a pattern without wildcards, the path it
    /// names.
    func fixedDirectory(in directory: String) -> String {
        split(in: directory).base
    }

    /// Where the leading names without wildcards (`..` included) lead from `directory`, and
    /// the names after them.
    private func split(in directory: String) -> (base: String, rest: ArraySlice<Component>) {
        var base = isAbsolute ? "/" : resolve(".", in: directory)
        if isLiteral { return (resolve(literalPath, in: base), []) }
        var rest = components[...]
        while case .literal(let name)? = rest.first {
            base = resolve(name, in: base)
            rest = rest.dropFirst()
        }
        return (base, rest)
    }

    /// Whether `components` match the first of `names`: all of them, or the directory the
    /// rest are below.
    private static func match(_ components: ArraySlice<Component>, _ names: ArraySlice<String>)
        -> Bool
    {
        guard let component = components.first else { return true }
        guard let name = names.first else { return false }
        switch component {
        case .literal(let literal):
            return literal == name && match(components.dropFirst(), names.dropFirst())
        case .wildcard(let tokens):
            return matches(name, tokens) && match(components.dropFirst(), names.dropFirst())
        case .anyDirectories:
            if match(components.dropFirst(), names) { return true }
            // As in expansion: `**` goes into directories whose names do not start with a dot.
            return names.count > 1 && !name.hasPrefix(".") && match(components, names.dropFirst())
        }
    }
}
