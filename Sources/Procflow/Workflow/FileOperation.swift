/// A file transform. Paths are relative to the workflow file; every write is atomic.
public enum FileOperation: Sendable {
    /// Reads a file as text or JSON.
    case read(path: String, format: OutputFormat)
    /// Writes `content`, or the step's input, to a file.
    case write(path: String, content: String?)
    /// Copies a file.
    case copy(source: String, destination: String)
    /// Fills `{{name}}` placeholders of a template (a file, or inline text) with the fields of
    /// the JSON object input and the workflow's variables; writes the result if `path` is set.
    case render(template: Template, path: String?)
    /// Takes the part of the JSON input at a JSON Pointer.
    case select(pointer: JSONPointer)
    /// Replaces every occurrence of a text in the text input.
    case replace(find: String, replacement: String)
    /// Joins files, in order; writes the result if `path` is set.
    case concat(paths: [String], path: String?)

    /// A template: a file to read, or inline text.
    public enum Template: Sendable {
        case file(String)
        case text(String)
    }

    /// The operation's name in the file.
    public var name: String {
        switch self {
        case .read: return "read"
        case .write: return "write"
        case .copy: return "copy"
        case .render: return "render"
        case .select: return "select"
        case .replace: return "replace"
        case .concat: return "concat"
        }
    }

    /// The files the operation reads, as the file names them.
    public var readPaths: [String] {
        switch self {
        case .read(let path, _): return [path]
        case .copy(let source, _): return [source]
        case .render(.file(let file), _): return [file]
        case .concat(let paths, _): return paths
        case .write, .render(.text, _), .select, .replace: return []
        }
    }

    /// The file the operation writes, if it writes one, as the file names it.
    public var writtenPath: String? {
        switch self {
        case .write(let path, _), .copy(_, let path): return path
        case .render(_, let path), .concat(_, let path): return path
        case .read, .select, .replace: return nil
        }
    }

    /// What the operation gives.
    public var outputFormat: OutputFormat {
        switch self {
        case .read(_, let format): return format
        case .write, .copy: return .none
        case .render, .replace, .concat: return .text
        case .select: return .json
        }
    }
}
