extension GlobPattern {
    /// The files the pattern matches, relative to `directory` (absolute), as absolute paths
    /// without `.` or `..`, sorted, each with its status. A directory a wildcard matches
    /// gives the files below it. Nothing below `excluded` (the state directory) is given.
    func expand(in directory: String, excluding excluded: String? = nil) -> [(
        path: String, status: FileStatus
    )] {
        var found: [(path: String, status: FileStatus)] = []
        let start = isAbsolute ? "/" : resolve(".", in: directory)
        expand(components[...], from: start, excluding: excluded, into: &found)
        var seen: Set<String> = []
        return found.filter { seen.insert($0.path).inserted }.sorted { $0.path < $1.path }
    }

    private func expand(
        _ rest: ArraySlice<Component>, from path: String, excluding excluded: String?,
        into found: inout [(path: String, status: FileStatus)]
    ) {
        if excluded == path { return }
        guard let component = rest.first else {
            guard let status = FileSystem.status(path) else { return }
            if status.isDirectory {
                FileSystem.walk(path, excluding: excluded) { file, status in
                    found.append((file, status))
                }
            } else {
                found.append((path, status))
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
        case "..": return resolve("..", in: directory)
        default: return directory == "/" ? "/" + name : directory + "/" + name
        }
    }
}

extension IncrementalStep.Files {
    /// Every file named, with its status; a path named without wildcards that does not exist
    /// comes with a `nil` status. Sorted by path, each once. `named`, if given, are
    /// ``paths``, made already; `statuses`, if given, are those of ``paths``, in order,
    /// looked up already.
    func expand(
        _ named: PathList? = nil, in directory: String, excluding excluded: String?,
        status: (String) -> FileStatus? = FileSystem.status, statuses: [FileStatus?]? = nil
    ) -> [(path: String, status: FileStatus?)] {
        var found: [(path: String, status: FileStatus?)] = []
        let paths = named ?? paths
        found.reserveCapacity(paths.count)
        let excludedFolder = excluded.map { $0 + "/" }
        for (index, path) in paths.enumerated() {
            if let excluded, let excludedFolder, path == excluded || path.hasPrefix(excludedFolder)
            {
                continue
            }
            guard let status = statuses.map({ $0[index] }) ?? status(path) else {
                found.append((path, nil))
                continue
            }
            if status.isDirectory {
                FileSystem.walk(path, excluding: excluded) { found.append(($0, $1)) }
            } else {
                found.append((path, status))
            }
        }
        for pattern in patterns {
            for (path, status) in pattern.expand(in: directory, excluding: excluded) {
                found.append((path, status))
            }
        }
        guard found.count > 1 else { return found }
        // Named in order, each once, as a link's objects mostly are: nothing to sort or drop.
        if zip(found, found.dropFirst()).allSatisfy({ $0.path < $1.path }) { return found }
        var seen: Set<String> = []
        seen.reserveCapacity(found.count)
        return found.filter { seen.insert($0.path).inserted }.sorted { $0.path < $1.path }
    }
}
