import CProcflow

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The pipes between procflow and a command.
struct Pipes {
    private var stdin: (read: Int32, write: Int32) = (-1, -1)
    private var stdout: (read: Int32, write: Int32) = (-1, -1)
    private var stderr: (read: Int32, write: Int32) = (-1, -1)

    var childStdin: Int32 { stdin.read }
    var childStdout: Int32 { stdout.write }
    var childStderr: Int32 { stderr.write }

    /// Opens the pipes (close-on-exec: the child gets copies on 0, 1 and 2). Without an input,
    /// stdin is /dev/null.
    mutating func open(stdin withInput: Bool) -> Bool {
        func makePipe() -> (Int32, Int32)? {
            var descriptors: [Int32] = [0, 0]
            guard procflow_pipe_cloexec(&descriptors) == 0 else { return nil }
            return (descriptors[0], descriptors[1])
        }
        if withInput {
            guard let pipe = makePipe() else { return false }
            stdin = pipe
        } else {
            guard Self.devNull >= 0 else { return false }
            stdin = (Self.devNull, -1)
        }
        guard let out = makePipe(), let err = makePipe() else { return false }
        stdout = out
        stderr = err
        return true
    }

    /// /dev/null, opened once and shared as the stdin of commands without an input.
    static let devNull = Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)

    mutating func closeChildSides() {
        for descriptor in [stdin.read, stdout.write, stderr.write]
        where descriptor >= 0 && descriptor != Self.devNull {
            close(descriptor)
        }
        stdin.read = -1
        stdout.write = -1
        stderr.write = -1
    }

    mutating func takeStdout() -> Int32 {
        defer { stdout.read = -1 }
        return stdout.read
    }

    mutating func takeStderr() -> Int32 {
        defer { stderr.read = -1 }
        return stderr.read
    }

    mutating func takeStdinWriter() -> Int32 {
        defer { stdin.write = -1 }
        return stdin.write
    }

    /// Closes whatever was not handed over (after a failed spawn, everything).
    mutating func closeParentSides() {
        closeChildSides()
        for descriptor in [stdin.write, stdout.read, stderr.read] where descriptor >= 0 {
            close(descriptor)
        }
    }
}
