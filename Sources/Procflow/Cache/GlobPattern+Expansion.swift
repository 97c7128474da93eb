extension GlobPattern {
    /// The files the pattern names, relative to `directory` (absolute), as absolute paths
    /// without `.` or `..`, sorted. A literal pattern gives its path whether it exists or not
    /// (unless it is a directory: then the files below it); a directory a wildcard matches
    /// gives the files below it. Nothing below `excluded` (the state directory) is given.
    func expand(in directory: String, excluding excluded: String? = nil) -> [String] {
        var found: [String] = []
        let start = isAbsolute ? "/" : directory
        if isLiteral {
            let path = resolve(literalPath, in: directory)
            if excluded.map({ path == $0 || path.hasPrefix($0 + "/") }) ?? false { return [] }
            if FileSystem.isDirectory(path) {
                FileSystem.walk(path, excluding: excluded) { found.append($0) }
            } else {
                found.append(path)
            }
            return found
        }
        expand(components[...], from: normalized(start), excluding: excluded, into: &found)
        return Array(Set(found)).sorted()
    }

    private func expand(
        _ rest: ArraySlice<Component>, from path: String, excluding excluded: String?,
        into found: inout [String]
    ) {
        if excluded == path { return }
        guard let component = rest.first else {
            if FileSystem.isDirectory(path) {
                FileSystem.walk(path, excluding: excluded) { found.append($0) }
            } else if FileSystem.exists(path) {
                found.append(path)
            }
            return
        }
        let remaining = rest.dropFirst()
        switch component {
        case .literal(let name):
            expand(remaining, from: join(path, name), excluding: excluded, into: &found)
        case .wildcard(let tokens):
            for entry in FileSystem.entries(of: path) where Self.matches(entry.name, tokens) {
                expand(remaining, from: join(path, entry.name), excluding: excluded, into: &found)
            }
        case .anyDirectories:
            expand(remaining, from: path, excluding: excluded, into: &found)
            for entry in FileSystem.entries(of: path)
            where entry.isDirectory && !entry.name.hasPrefix(".") {
                expand(rest, from: join(path, entry.name), excluding: excluded, into: &found)
            }
        }
    }

    private func join(_ directory: String, _ name: String) -> String {
        switch name {
        case "..": return normalized(directory + "/..")
        default: return directory == "/" ? "/" + name : directory + "/" + name
        }
    }

    private func normalized(_ path: String) -> String {
        resolve(".", in: path)
    }
}
