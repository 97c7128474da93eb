import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the command writes, and what it knows of the terminal it writes to.
public struct Console: Sendable {
    /// Writes to standard output.
    public var write: @Sendable (String) -> Void
    /// Writes to standard error.
    public var writeError: @Sendable (String) -> Void
    public var outputIsTerminal: Bool
    public var errorIsTerminal: Bool
    /// The process environment, for `NO_COLOR`, `GITHUB_ACTIONS` and workflow conditions.
    public var environment: [String: String]

    public init(
        write: @escaping @Sendable (String) -> Void,
        writeError: @escaping @Sendable (String) -> Void,
        outputIsTerminal: Bool = false, errorIsTerminal: Bool = false,
        environment: [String: String] = [:]
    ) {
        self.write = write
        self.writeError = writeError
        self.outputIsTerminal = outputIsTerminal
        self.errorIsTerminal = errorIsTerminal
        self.environment = environment
    }

    /// The process's standard output and error.
    public static var standard: Console {
        Console(
            write: { writeAll($0, to: STDOUT_FILENO) },
            writeError: { writeAll($0, to: STDERR_FILENO) },
            outputIsTerminal: isatty(STDOUT_FILENO) == 1,
            errorIsTerminal: isatty(STDERR_FILENO) == 1,
            environment: ProcessInfo.processInfo.environment)
    }

    /// Whether colour is welcome: `NO_COLOR` (any value) turns it off.
    var allowsColor: Bool {
        environment["NO_COLOR"].map(\.isEmpty) ?? true
    }

    /// Whether diagnostics on standard error may be coloured.
    var colorsErrors: Bool { errorIsTerminal && allowsColor }
}

/// Writes all of `text` to `descriptor`. A reader that has gone away (`procflow run … | head`)
/// is not an error: what it would not read is dropped, and the run goes on.
private func writeAll(_ text: String, to descriptor: Int32) {
    var text = text
    text.withUTF8 { _ = writeFully(UnsafeRawBufferPointer($0), to: descriptor) }
}

/// Writes all of `buffer` to `descriptor`, retrying short and interrupted writes; stops at the
/// first error (a reader that has gone away, most often). Returns whether everything was written.
func writeFully(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
    var offset = 0
    while offset < buffer.count {
        let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            return false
        }
        offset += written
    }
    return true
}
