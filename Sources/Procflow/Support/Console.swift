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
    /// Whether standard output is a terminal.
    public var outputIsTerminal: Bool
    /// Whether standard error is a terminal.
    public var errorIsTerminal: Bool
    /// The process environment, for `NO_COLOR`, `GITHUB_ACTIONS` and workflow conditions.
    public var environment: [String: String]
    /// How many columns the terminal on standard output has now, if it is one that says.
    public var terminalWidth: @Sendable () -> Int?

    /// A console writing through `write` and `writeError`.
    public init(
        write: @escaping @Sendable (String) -> Void,
        writeError: @escaping @Sendable (String) -> Void,
        outputIsTerminal: Bool = false, errorIsTerminal: Bool = false,
        environment: [String: String] = [:], terminalWidth: @escaping @Sendable () -> Int? = { nil }
    ) {
        self.write = write
        self.writeError = writeError
        self.outputIsTerminal = outputIsTerminal
        self.errorIsTerminal = errorIsTerminal
        self.environment = environment
        self.terminalWidth = terminalWidth
    }

    /// The process's standard output and error.
    public static var standard: Console {
        Console(
            write: { POSIXIO.write($0, to: STDOUT_FILENO) },
            writeError: { POSIXIO.write($0, to: STDERR_FILENO) },
            outputIsTerminal: isatty(STDOUT_FILENO) == 1,
            errorIsTerminal: isatty(STDERR_FILENO) == 1,
            environment: processEnvironment(),
            terminalWidth: {
                var size = winsize()
                guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else {
                    return nil
                }
                return Int(size.ws_col)
            })
    }

    /// Whether colour is welcome: `NO_COLOR` (any value) turns it off.
    var allowsColor: Bool {
        environment["NO_COLOR"].map(\.isEmpty) ?? true
    }

    /// Whether diagnostics on standard error may be coloured.
    var colorsErrors: Bool { errorIsTerminal && allowsColor }
}
