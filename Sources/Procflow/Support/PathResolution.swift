import Foundation

/// `path` made absolute, relative to `directory`.
func resolve(_ path: String, in directory: String) -> String {
    guard !path.hasPrefix("/") else { return path }
    let base =
        directory.hasPrefix("/")
        ? directory : directory == "." ? currentDirectory() : currentDirectory() + "/" + directory
    // Most paths need no rewriting: a byte scan tells them (this runs for every path of every
    // step).
    if isPlain(path.utf8), base.utf8.first == UInt8(ascii: "/") {
        if base.utf8.count == 1 { return "/" + path }
        if isPlain(base.utf8.dropFirst()) { return base + "/" + path }
    }
    // Lexically, as URL.standardizedFileURL does, without its cost (a command's working
    // directory is resolved for every shell step).
    var components: [Substring] = []
    for component in (base + "/" + path).split(separator: "/") {
        switch component {
        case ".": continue
        case "..": _ = components.popLast()
        default: components.append(component)
        }
    }
    return "/" + components.joined(separator: "/")
}

/// The process's working directory, from `getcwd` (Foundation's `currentDirectoryPath` costs a
/// tenth of a millisecond the first time).
func currentDirectory() -> String {
    guard let path = getcwd(nil, 0) else { return FileManager.default.currentDirectoryPath }
    defer { free(path) }
    return String(cString: path)
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
    for component in path.split(separator: "/") {
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
    let joined = components.joined(separator: "/")
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
    let from = directory.split(separator: "/")
    let to = path.split(separator: "/")
    var shared = 0
    while shared < from.count, shared < to.count, from[shared] == to[shared] { shared += 1 }
    var result = ""
    for _ in shared..<from.count { result += result.isEmpty ? ".." : "/.." }
    for name in to[shared...] {
        if !result.isEmpty { result += "/" }
        result += name
    }
    return result.isEmpty ? "." : result
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
