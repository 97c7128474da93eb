import Foundation

/// A command run the way `env -i PATH=/usr/bin:/bin EXECUTABLE ARGUMENTS…` runs it: nothing in
/// its environment but that PATH, in `directory`, its stdout and stderr going to `log`.
struct IsolatedProcess {
    /// The minimal environment, as in the install instructions' check.
    static let path = "PATH=/usr/bin:/bin"

    let process = Process()
    let log: URL

    init(_ executable: URL, _ arguments: [String], in directory: URL, log: URL) throws {
        self.log = log
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["-i", Self.path, executable.path] + arguments
        process.currentDirectoryURL = directory
        process.environment = [:]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
    }

    /// Starts the command; `ended` is signalled when it exits.
    func start(_ ended: DispatchSemaphore) throws {
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
    }

    /// Runs the command to its end (killed after `timeout` seconds); its exit status and
    /// everything it wrote.
    func run(timeout: TimeInterval = 60) throws -> (status: Int32, output: String) {
        let ended = DispatchSemaphore(value: 0)
        try start(ended)
        if ended.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            ended.wait()
        }
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return (process.terminationStatus, output)
    }
}
