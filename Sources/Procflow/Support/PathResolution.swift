import Foundation

/// `path` made absolute, relative to `directory`.
func resolve(_ path: String, in directory: String) -> String {
    guard path.utf8.first != UInt8(ascii: "/") else { return path }
    let base =
        directory.utf8.first == UInt8(ascii: "/")
        ? directory : directory == "." ? currentDirectory() : currentDirectory() + "/" + directory
    // Most paths need no rewriting: a byte scan tells them, and they are joined in one text
    // (this runs for every path of every step).
    if let joined = plainlyJoined(base, path) { return joined }
    // Lexically, as URL.standardizedFileURL does, without its cost (a command's working
    // directory is resolved for every shell step).
    var components: [Substring] = []
    for component in (base + "/" + path).parts(between: UInt8(ascii: "/")) {
        switch component {
        case ".": continue
        case "..": _ = components.popLast()
        default: components.append(component)
        }
    }
    return "/" + joinedPath(components)
}

/// `path` resolved in `directory` (absolute), as ``resolve(_:in:)`` does, but from `directory`
/// when it is below it: `path` itself when it and `directory` are names with nothing to
/// rewrite (most paths a workflow names; `plainDirectory` says whether `directory` is, as
/// ``isPlainDirectory(_:)`` tells), else the resolved path past `directory` and its slash,
/// or the resolved path when it is not below `directory`. Never starts with a slash unless
/// absolute.
func resolveBelow(_ path: String, in directory: String, plainDirectory: Bool) -> String {
    var bytes = path
    if plainDirectory, bytes.withUTF8({ $0.first != UInt8(ascii: "/") && isPlain($0) }) {
        return path
    }
    let resolved = resolve(path, in: directory)
    let prefix = directory == "/" ? "/" : directory + "/"
    // Byte by byte: `hasPrefix` compares characters, which may differ in bytes and still match.
    guard resolved.utf8.count > prefix.utf8.count, resolved.utf8.starts(with: prefix.utf8)
    else { return resolved }
    let rest = resolved.utf8.dropFirst(prefix.utf8.count)
    return rest.first == UInt8(ascii: "/") ? resolved : String(Substring(rest))
}

/// `path` (relative) below `directory` (absolute), joined by a slash, written in one go.
func joined(_ directory: String, _ path: String) -> String {
    var (directory, path) = (directory, path)
    return directory.withUTF8 { directory in
        path.withUTF8 { path in
            // The root is "/", not a name.
            let prefix = directory.count == 1 ? 0 : directory.count
            return String(unsafeUninitializedCapacity: prefix + 1 + path.count) { joined in
                _ = joined.initialize(fromContentsOf: directory.prefix(prefix))
                joined[prefix] = UInt8(ascii: "/")
                _ = UnsafeMutableBufferPointer(rebasing: joined[(prefix + 1)...])
                    .initialize(fromContentsOf: path)
                return prefix + 1 + path.count
            }
        }
    }
}

/// Whether `directory` is absolute with nothing to rewrite (`.`, `..`, empty names): what
/// ``resolve(_:in:)`` joins a plain path to as it is.
func isPlainDirectory(_ directory: String) -> Bool {
    var bytes = directory
    return bytes.withUTF8 { bytes in
        bytes.first == UInt8(ascii: "/")
            && (bytes.count == 1 || isPlain(UnsafeBufferPointer(rebasing: bytes.dropFirst())))
    }
}

/// `components` joined by slashes. (A generic `joined` costs a quarter of a million
/// instructions the first time it runs, in the runtime's lookups of its types: more than all
/// the rest of a small run's paths.)
func joinedPath(_ components: some Collection<Substring>) -> String {
    // By bytes: appending a `Substring` to a `String` takes the generic path, whose first use
    // costs as much as `joined`.
    var path: [UInt8] = []
    for component in components {
        if !path.isEmpty { path.append(UInt8(ascii: "/")) }
        path.append(contentsOf: component.utf8)
    }
    return String(decoding: path, as: UTF8.self)
}

/// The process's working directory, from `getcwd` (Foundation's `currentDirectoryPath` costs a
/// tenth of a millisecond the first time).
func currentDirectory() -> String {
    guard let path = getcwd(nil, 0) else { return FileManager.default.currentDirectoryPath }
    defer { free(path) }
    return String(cString: path)
}

/// The directory for temporary files, as Foundation's `FileManager.temporaryDirectory` names
/// it (`TMPDIR`, else /tmp), without making a URL of it where the name needs no resolving (a
/// URL's first use costs a third of a millisecond).
func temporaryDirectoryPath() -> String {
    temporaryDirectoryPath(tmpdir: getenv("TMPDIR").map { String(cString: $0) })
        ?? FileManager.default.temporaryDirectory.path
}

/// The directory for temporary files when `TMPDIR` is `tmpdir`, if it is that simple: unset,
/// or an absolute path with nothing to resolve; `nil` leaves it to Foundation.
func temporaryDirectoryPath(tmpdir: String?) -> String? {
    guard let tmpdir else { return "/tmp" }
    let isSimple =
        tmpdir.utf8.first == UInt8(ascii: "/") && tmpdir.utf8.last != UInt8(ascii: "/")
        && lexicallyNormalized(tmpdir) == tmpdir
    return isSimple ? tmpdir : nil
}

/// `path` with `.`, empty names and `name/..` taken out, lexically; a relative path keeps
/// the `..` that leave where it starts (`../a` is not `a`), an absolute one drops those above
/// the root. Two paths relative to one directory name one file (links aside) when these are
/// equal.
func lexicallyNormalized(_ path: String) -> String {
    let isAbsolute = path.hasPrefix("/")
    // Most paths are normal already: a byte scan tells them.
    if isPlain(isAbsolute ? path.utf8.dropFirst() : path.utf8[...]) { return path }
    var components: [Substring] = []
    for component in path.parts(between: UInt8(ascii: "/")) {
        switch component {
        case ".": continue
        case "..":
            if let last = components.last, last != ".." {
                components.removeLast()
            } else if !isAbsolute {
                components.append(component)
            }
        default: components.append(component)
        }
    }
    let joined = joinedPath(components)
    return isAbsolute ? "/" + joined : joined.isEmpty ? "." : joined
}

/// The directory part of `path`, lexically: "." for a bare file name, "/" for a file at the
/// root.
func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// `path` (absolute) relative to `directory` (absolute) when it is inside it, for showing;
/// else `path` as it is.
func shown(_ path: String, from directory: String) -> String {
    let prefix = directory == "/" ? "/" : directory + "/"
    return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
}

/// `path` (absolute, normalized) as a path from `directory` (absolute, normalized), climbing
/// out with `..` where it must: `../build.json` for a file beside the directory.
func relativePath(of path: String, from directory: String) -> String {
    let from = directory.parts(between: UInt8(ascii: "/"))
    let to = path.parts(between: UInt8(ascii: "/"))
    var shared = 0
    while shared < from.count, shared < to.count, from[shared] == to[shared] { shared += 1 }
    let climb = [Substring](repeating: "..", count: from.count - shared)
    let result = joinedPath(climb + to[shared...])
    return result.isEmpty ? "." : result
}

/// `base` (absolute) and `path` (relative) joined by a slash, when neither has anything to
/// rewrite (`.`, `..`, empty names); else `nil`.
private func plainlyJoined(_ base: String, _ path: String) -> String? {
    var bytes = path
    guard bytes.withUTF8({ isPlain($0) }), isPlainDirectory(base) else { return nil }
    return joined(base, path)
}

/// Whether `path` is relative names joined by single slashes, none of them `.` or `..`.
private func isPlain(_ path: some Collection<UInt8>) -> Bool {
    var length = 0  // of the current name
    var dots = 0  // in it, if it is only dots
    for byte in path {
        if byte == UInt8(ascii: "/") {
            if length == 0 || (dots == length && dots <= 2) { return false }
            (length, dots) = (0, 0)
        } else {
            length += 1
            if byte == UInt8(ascii: ".") { dots += 1 }
        }
    }
    return length > 0 && !(dots == length && dots <= 2)
}
