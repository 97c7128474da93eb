import Foundation

/// `path` made absolute, relative to `directory`.
func resolve(_ path: String, in directory: String) -> String {
    guard !path.hasPrefix("/") else { return path }
    let base =
        directory.hasPrefix("/")
        ? directory : FileManager.default.currentDirectoryPath + "/" + directory
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

/// The directory part of `path`, lexically: "." for a bare file name, "/" for a file at the
/// root.
func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}
